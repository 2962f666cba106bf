//! The apply command's side of hooks: when they run, what they are given (the report as JSON,
//! the normalised patch in a temp file), which of their runs the gate must weigh, and taking
//! a write back when the post hook rejects it under `--verify`.

use crate::report::kinds::{ErrorKind, Kinded, NoticeKind};
use std::io::Write as _;
use std::path::Path;

use super::session::Session;
use crate::gate::hooks::{HookInput, HookKind, HookRun, Hooks, Mode};
use crate::gate::{patch_text, Approved};
use crate::patch::{Format, Notice, Patch};
use crate::plan::three_way::blob_present;
use crate::plan::Plan;
use crate::repo::Repo;
use crate::report::hooks::HookReport;
use crate::report::{json, Report, RunFlags, RunStatus};
use crate::snapshot::{self, Journal, SnapshotId};
use crate::write;

/// Why the normalised patch the hooks read (`GIT_LLM_APPLY_PATCH`) could not be written.
#[allow(missing_docs)] // each variant's #[error] message says what it is
#[derive(Debug, thiserror::Error)]
pub enum PatchFileError {
    #[error("cannot create the patch file for hooks: {0}")]
    Create(#[source] std::io::Error),
    #[error("cannot write the patch file for hooks: {0}")]
    Write(#[source] std::io::Error),
}

impl Kinded for PatchFileError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Io
    }
}

/// The hooks of one run and what they have done so far.
pub struct HookRuns<'a> {
    hooks: Option<&'a Hooks>,
    mode: Mode,
    /// `--verify` or `llm-apply.verify`: a failing post hook rolls the apply back.
    pub verify: bool,
    patch_file: Option<tempfile::NamedTempFile>,
    /// Pre-hook runs for the plan that will be written (what the gate weighs).
    pre: Vec<HookRun>,
    /// Every run so far, for the report (a re-planned run's first pre run included).
    pub reports: Vec<HookReport>,
}

impl<'a> HookRuns<'a> {
    /// No hook run yet, for a run in `mode`; `hooks` is `None` where hooks are not run.
    pub fn new(hooks: Option<&'a Hooks>, mode: Mode, verify: bool) -> HookRuns<'a> {
        HookRuns {
            hooks,
            mode,
            verify,
            patch_file: None,
            pre: Vec::new(),
            reports: Vec::new(),
        }
    }

    /// Whether the repository has a hook of this kind to run.
    pub fn has(&self, kind: HookKind) -> bool {
        self.hooks.is_some_and(|h| h.find(kind).is_some())
    }

    /// The pre-hook runs the gate must see for the current plan.
    pub fn pre_runs(&self) -> &[HookRun] {
        &self.pre
    }

    /// Whether every pre-hook run for the current plan passed (true when there was none).
    pub fn pre_passed(&self) -> bool {
        self.pre.iter().all(|r| r.status.passed())
    }

    /// Run `pre-llm-apply` on `plan`, shown as a `planned` report. A later call (after a
    /// re-plan) replaces the runs the gate weighs: each plan is judged on its own.
    pub fn run_pre(
        &mut self,
        patch: &Patch,
        plan: &Plan,
        planned: &Report,
    ) -> Result<(), PatchFileError> {
        let Some(hooks) = self.hooks else {
            return Ok(());
        };
        self.write_patch(patch, plan)?;
        let stdin = json::render(planned);
        let Some(run) = self.run(hooks, HookKind::Pre, stdin.as_bytes()) else {
            return Ok(());
        };
        self.reports.push(HookReport::from(&run));
        self.pre = vec![run];
        Ok(())
    }

    /// Run `post-llm-apply` with the result report, if there is such a hook.
    pub fn run_post(&mut self, result: &Report) -> Option<HookRun> {
        let hooks = self.hooks?;
        // The report is rendered for a hook that is there, not for every apply.
        hooks.find(HookKind::Post)?;
        let stdin = json::render(result);
        let run = self.run(hooks, HookKind::Post, stdin.as_bytes())?;
        self.reports.push(HookReport::from(&run));
        Some(run)
    }

    fn run(&self, hooks: &Hooks, kind: HookKind, stdin: &[u8]) -> Option<HookRun> {
        let patch_file = self
            .patch_file
            .as_ref()
            .map(|f| f.path())
            .unwrap_or(Path::new("/dev/null"));
        hooks.run(
            kind,
            &HookInput {
                stdin,
                mode: self.mode,
                patch_file,
                verify: self.verify,
            },
        )
    }

    /// Make sure a post hook finds the normalised patch even when no pre hook wrote it.
    pub fn prepare_post(&mut self, patch: &Patch, plan: &Plan) -> Result<(), PatchFileError> {
        if self.patch_file.is_none() && self.has(HookKind::Post) {
            self.write_patch(patch, plan)?;
        }
        Ok(())
    }

    /// (Re)write the normalised patch that `GIT_LLM_APPLY_PATCH` names.
    fn write_patch(&mut self, patch: &Patch, plan: &Plan) -> Result<(), PatchFileError> {
        let text = patch_text::render(patch, plan);
        let mut file = tempfile::Builder::new()
            .prefix("git-llm-apply-")
            .suffix(".patch")
            .tempfile()
            .map_err(PatchFileError::Create)?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(PatchFileError::Write)?;
        self.patch_file = Some(file);
        Ok(())
    }
}

/// The report a pre hook reads: the plan, nothing written yet, with the exit status the run
/// would have if the gate lets it through.
pub fn planned_report(
    plan: &Plan,
    format: Format,
    partial: bool,
    check: bool,
    revert: bool,
) -> Report {
    let mut r = Report::from_plan(
        plan,
        format,
        RunStatus::Planned,
        RunFlags {
            check,
            reverse: revert,
        },
    );
    r.partial = partial;
    r
}

/// Whether the gate has something to decide: the run would write (or, with `--check`, would
/// be allowed to write) at least one file.
pub fn gate_has_work(plan: &Plan, partial: bool) -> bool {
    !plan.changes.is_empty() && (plan.all_ok() || partial)
}

/// The preimage blobs the patch names (per file, the side being applied from) that the
/// object store lacks now: a pre hook that fetches them is the cue to plan again.
pub fn absent_preimages(repo: &Repo, original: &Patch, revert: bool) -> Vec<String> {
    original
        .files
        .iter()
        .filter_map(|f| f.index.as_ref())
        .map(|ids| if revert { &ids.new } else { &ids.old })
        .filter(|id| !id.bytes().all(|b| b == b'0'))
        .filter(|id| !blob_present(repo, id))
        .cloned()
        .collect()
}

/// A rollback that left paths holding the write's content.
#[derive(Debug, thiserror::Error)]
#[error(
    "rolling back failed for {}: they keep the patch's changes{}",
    paths.join(", "),
    journal_kept.map(|id| format!(
        "; the journal is kept, so the next git llm-apply run restores them from snapshot {id}"
    )).unwrap_or_default()
)]
pub struct Unrestored {
    /// The paths still holding the write's content.
    pub paths: Vec<String>,
    /// The snapshot whose journal was kept for the next run to finish the rollback.
    pub journal_kept: Option<SnapshotId>,
}

impl Kinded for Unrestored {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Rollback
    }
}

/// What taking a write back did.
#[derive(Debug, Default)]
pub struct RollBack {
    /// Paths still holding the write's content.
    pub unrestored: Vec<String>,
    /// What the roll-back wants said.
    pub notices: Vec<Notice>,
    /// The journal left for the next run to finish the job (when paths stayed unrestored).
    pub journal_kept: Option<SnapshotId>,
}

impl RollBack {
    /// The error naming the paths that keep the write, and, when the journal was kept, that
    /// the next run restores them.
    pub fn unrestored_error(&self) -> Unrestored {
        Unrestored {
            paths: self.unrestored.clone(),
            journal_kept: self.journal_kept,
        }
    }
}

/// Put every path of a verified-and-rejected write back to its state before the write: the
/// `before` states of the approved changes, which are the states the write's snapshot
/// recorded. Exactly those bytes, modes and absences, whatever the post hook did to the files
/// meanwhile (an undo would merge such edits in; a rollback must leave the tree as it was).
///
/// When the write recorded snapshot `id`, the rollback runs under a journal naming it, so a
/// crash midway is finished by the next run's recovery; afterwards the snapshot is marked
/// undone, so `log` shows the apply as taken back and `undo` leaves it alone.
pub fn roll_back(
    root: &Path,
    token: &Approved,
    recorded: Option<(&Session, SnapshotId)>,
) -> RollBack {
    let mut out = RollBack::default();
    let paths: Vec<&str> = token.changes().iter().map(|c| c.path.as_str()).collect();
    let journal = match recorded {
        Some((session, id)) => match &session.lock {
            Some(lock) => match Journal::begin_named(session.repo, lock, id, &paths) {
                Ok(j) => Some(j),
                Err(e) => {
                    out.notices.push(Notice::new(
                        NoticeKind::RollbackUnjournaled,
                        format!("the rollback runs without a journal: {e}"),
                    ));
                    None
                }
            },
            None => None,
        },
        None => None,
    };
    out.unrestored = write::put_back(root, token);
    if !out.unrestored.is_empty() {
        // Left in place: the next run restores what this one could not.
        out.journal_kept = journal.as_ref().and_then(Journal::snapshot);
        drop(journal);
        return out;
    }
    // Marked undone before the journal goes, so no crash leaves `log` saying "applied" of
    // restored files.
    if let Some((session, id)) = recorded {
        match snapshot::mark_undone(session.repo, id) {
            Ok(()) => out.notices.push(Notice::new(
                NoticeKind::RolledBack,
                format!("snapshot {id} recorded this apply and is marked undone"),
            )),
            Err(e) => out.notices.push(Notice::new(
                NoticeKind::RollbackSnapshot,
                format!(
                    "the files were restored, but snapshot {id} could not be marked undone: {e}"
                ),
            )),
        }
    }
    if let Some(j) = journal {
        if let Err(e) = j.finish() {
            out.notices.push(Notice::new(
                NoticeKind::RollbackJournal,
                format!("every file was restored, but the journal could not be removed: {e}"),
            ));
        }
    }
    out
}

//! The one Report of a run, built from the plan and what was written, rendered in exactly two
//! places: `human.rs` and `json.rs`.

pub mod advice;
pub mod brief;
pub mod color;
pub mod conflict;
pub mod diff;
pub mod hooks;
pub mod human;
pub mod json;
pub mod log;
pub mod view;
mod wire;

use schemars::JsonSchema;
use serde::Serialize;

pub use crate::patch::kinds;
use crate::patch::{FileOp, Format, Notice};
use crate::plan::diagnose::Warning;
use crate::plan::{Base, Change, FilePlan, FileStatus, HunkResult, Plan, Strategy};
use crate::text::normalize::Pass;
pub use kinds::{ErrorKind, NoticeKind};
pub use wire::NumberedLine;

/// The JSON schema version; bumped on any incompatible change.
pub const SCHEMA: u32 = 1;

/// What the run as a whole did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// Everything applied (some files may have been already applied).
    Applied,
    /// Nothing to do: every change was already there.
    AlreadyApplied,
    /// `--partial`: some files written, others refused or conflicted.
    Partial,
    /// Nothing written.
    Refused,
    /// `--check`: the plan would apply cleanly; nothing written.
    Checked,
    /// Bad input or a broken environment; nothing written.
    Error,
    /// Another run holds this work tree's lock (past `llm-apply.lockTimeout`); nothing
    /// written: retry.
    Busy,
    /// What a `pre-llm-apply` hook is shown: the plan, before anything is written.
    Planned,
}

impl RunStatus {
    /// The process's exit status for a run that ended so (DESIGN §2): the one place where an
    /// outcome becomes a number. `Planned` is never a run's end (a hook reads it before
    /// anything is decided); it says what an apply that the gate lets through would return.
    pub fn exit_code(self) -> i32 {
        match self {
            RunStatus::Applied
            | RunStatus::AlreadyApplied
            | RunStatus::Checked
            | RunStatus::Planned => 0,
            RunStatus::Refused => 1,
            RunStatus::Error => 2,
            RunStatus::Partial => 3,
            RunStatus::Busy => 4,
        }
    }
}

/// A file's status in the report: the plan's status, or `skipped` for a file that would
/// have applied but was not written because another file failed (all or nothing).
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileOutcome {
    Applied,
    AlreadyApplied,
    Conflicted,
    Refused,
    Skipped,
}

/// A file mode change, as octal strings (`100644`, `100755`).
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ModeChange {
    pub old: String,
    pub new: String,
}

/// What happened to one file of the patch (its JSON: `wire::FileReport`).
#[allow(missing_docs)] // documented in docs/json.md (the JSON twin\'s description)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The path after the change (the old path for a deletion), relative to the top level.
    pub path: String,
    /// The path before a rename or copy.
    pub old_path: Option<String>,
    pub op: FileOp,
    pub status: FileOutcome,
    pub strategy: Strategy,
    /// The loosest matching pass any hunk needed.
    pub pass: Option<Pass>,
    /// The base of a three-way merge, when one was used.
    pub base: Option<Base>,
    /// Lines the patch adds to this file.
    pub added: usize,
    /// Lines the patch removes from this file.
    pub removed: usize,
    pub mode_change: Option<ModeChange>,
    pub hunks: Vec<HunkResult>,
    /// Why the file was refused or skipped, one sentence each.
    pub problems: Vec<String>,
    /// For a path that does not exist: the closest existing path.
    pub suggested_path: Option<String>,
    /// What applied but deserves a second look.
    pub warnings: Vec<Warning>,
    /// For a conflicted file: the conflicting regions as the merge named them.
    pub conflicts: Vec<String>,
    /// For a conflicted file: both sides of each conflicting region.
    pub conflict_regions: Vec<conflict::ConflictRegion>,
}

impl FileReport {
    /// The file applies, or has nothing left to apply.
    fn ok(&self) -> bool {
        matches!(
            self.status,
            FileOutcome::Applied | FileOutcome::AlreadyApplied
        )
    }
}

/// Something that stopped the run before or while writing.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ErrorReport {
    /// Stable machine name: `parse`, `input`, `repository`, `write`, `io`, `config`, `veto`,
    /// `hook`, `verify`, `rollback`.
    pub kind: ErrorKind,
    pub message: String,
}

impl ErrorReport {
    /// The one place an error becomes the report's: the kind the error gives itself, and its
    /// message as it renders it.
    pub fn of(e: &(impl kinds::Kinded + ?Sized)) -> ErrorReport {
        ErrorReport {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

/// Totals over the files that applied (or conflicted).
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    pub files: usize,
    pub added: usize,
    pub removed: usize,
}

/// How the run was asked to go, as its report says: given once to [`Report::from_plan`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunFlags {
    /// `--check`: nothing is to be written.
    pub check: bool,
    /// The patch is applied in reverse (`--revert PATCH`, and every undo).
    pub reverse: bool,
}

/// The report of one run of `git llm-apply`: what the renderers show, as human text
/// (`human.rs`) and as the `--json` document (`wire.rs`, whose fields and schema these are).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The schema version ([`SCHEMA`]).
    pub schema: u32,
    /// How the run ended; the process's exit status follows from it
    /// ([`RunStatus::exit_code`]).
    pub status: RunStatus,
    /// `--check`: nothing was to be written.
    pub check: bool,
    /// The patch was applied in reverse (`--revert PATCH`).
    pub reverse: bool,
    /// The input format, once detected.
    pub format: Option<Format>,
    /// Whether any file was changed on disk.
    pub written: bool,
    /// One entry per file of the patch, in patch order.
    pub files: Vec<FileReport>,
    /// Totals over the files that applied (or conflicted).
    pub summary: Summary,
    /// Repairs the input needed and facts about the run.
    pub notices: Vec<Notice>,
    /// What stopped the run, if anything did.
    pub errors: Vec<ErrorReport>,
    /// The ghost snapshot taken before writing, to undo with.
    pub snapshot: Option<String>,
    /// The `pre-llm-apply` / `post-llm-apply` runs, in order.
    pub hooks: Vec<hooks::HookReport>,
    /// What standard error shows without `--json`, without colour (see `wire.rs`).
    pub message: Option<String>,
    /// A brief report (the MCP server's default) only: what it left out.
    pub omitted: Option<Box<brief::Omitted>>,
    /// Each path's bytes before and after, for the human rendering's diff (computed only
    /// when it is shown).
    pub changes: Vec<Change>,
    /// The run is an `undo`: what it writes restores, and the human rendering says so.
    pub undo: bool,
    /// `--partial`: files that apply are written when others do not. Only a planned
    /// report's exit status depends on it ([`Report::exit_code`]).
    pub partial: bool,
    /// The run left the snapshots beyond `llm-apply.keep` for its caller to drop
    /// ([`crate::write::recorded::Prune::Later`]), and there are some. Not in the JSON.
    pub prune_pending: bool,
}

impl Report {
    /// The process's exit status for this report (DESIGN §2): its status's, except that a
    /// planned report (what a `pre-llm-apply` hook reads) says what the run would return if
    /// the gate lets it through: 0 when every file applies, else 3 with `--partial` and 1
    /// (refused) without.
    pub fn exit_code(&self) -> i32 {
        match self.status {
            RunStatus::Planned if self.files.iter().all(FileReport::ok) => 0,
            RunStatus::Planned if self.partial => RunStatus::Partial.exit_code(),
            RunStatus::Planned => RunStatus::Refused.exit_code(),
            status => status.exit_code(),
        }
    }

    /// A run that failed before planning (bad input, no repository…). Private: outside
    /// `report` a failure is reported through [`Report::failed`], so its kind is the error's.
    fn error(kind: ErrorKind, message: impl Into<String>) -> Report {
        Report {
            schema: SCHEMA,
            status: RunStatus::Error,
            check: false,
            reverse: false,
            format: None,
            written: false,
            files: Vec::new(),
            summary: Summary::default(),
            notices: Vec::new(),
            errors: vec![ErrorReport {
                kind,
                message: message.into(),
            }],
            snapshot: None,
            hooks: Vec::new(),
            message: None,
            omitted: None,
            changes: Vec::new(),
            undo: false,
            partial: false,
            prune_pending: false,
        }
    }

    /// A run that `e` stopped before planning, under the kind `e` gives itself.
    pub fn failed(e: &(impl kinds::Kinded + ?Sized)) -> Report {
        let ErrorReport { kind, message } = ErrorReport::of(e);
        Report::error(kind, message)
    }

    /// The report of a planned run, before anything is written (the driver sets `written`
    /// once it has written).
    pub fn from_plan(plan: &Plan, format: Format, status: RunStatus, run: RunFlags) -> Report {
        let all_or_nothing_failed = matches!(status, RunStatus::Refused);
        let files: Vec<FileReport> = plan
            .files
            .iter()
            .map(|f| file_report(f, all_or_nothing_failed, &plan.changes))
            .collect();
        let mut summary = Summary::default();
        for f in &files {
            if matches!(f.status, FileOutcome::Applied | FileOutcome::Conflicted) {
                summary.files += 1;
                summary.added += f.added;
                summary.removed += f.removed;
            }
        }
        Report {
            schema: SCHEMA,
            status,
            check: run.check,
            reverse: run.reverse,
            format: Some(format),
            written: false,
            files,
            summary,
            notices: plan.notices.clone(),
            errors: Vec::new(),
            snapshot: None,
            hooks: Vec::new(),
            message: None,
            omitted: None,
            changes: plan.changes.clone(),
            undo: false,
            partial: false,
            prune_pending: false,
        }
    }
}

fn file_report(f: &FilePlan, all_or_nothing_failed: bool, changes: &[Change]) -> FileReport {
    let status = match f.status {
        FileStatus::Applied if all_or_nothing_failed => FileOutcome::Skipped,
        FileStatus::Applied => FileOutcome::Applied,
        FileStatus::AlreadyApplied => FileOutcome::AlreadyApplied,
        FileStatus::Conflicted => FileOutcome::Conflicted,
        FileStatus::Refused => FileOutcome::Refused,
    };
    let mut problems = f.problems.clone();
    if status == FileOutcome::Skipped {
        problems.push("not written: another file could not be applied (all or nothing; --partial keeps what applies)".into());
    }
    FileReport {
        path: f.path().to_string(),
        old_path: match (&f.old_path, &f.new_path) {
            (Some(o), Some(n)) if o != n => Some(o.clone()),
            _ => None,
        },
        op: f.op,
        status,
        strategy: f.strategy,
        pass: f.pass,
        base: f.base.clone(),
        added: f.added,
        removed: f.removed,
        mode_change: f.mode_change.map(|(o, n)| ModeChange {
            old: format!("{o:o}"),
            new: format!("{n:o}"),
        }),
        hunks: f.hunks.clone(),
        problems,
        suggested_path: f.suggested_path.clone(),
        warnings: f.warnings.clone(),
        conflicts: f.conflicts.clone(),
        conflict_regions: if f.status == FileStatus::Conflicted {
            changes
                .iter()
                .find(|c| c.path == f.path())
                .and_then(|c| c.after.as_ref())
                .map(|a| conflict::regions(&a.bytes))
                .unwrap_or_default()
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(status: FileOutcome) -> FileReport {
        FileReport {
            path: "f.txt".into(),
            old_path: None,
            op: FileOp::Modify,
            status,
            strategy: Strategy::Text,
            pass: None,
            base: None,
            added: 1,
            removed: 1,
            mode_change: None,
            hunks: Vec::new(),
            problems: Vec::new(),
            suggested_path: None,
            warnings: Vec::new(),
            conflicts: Vec::new(),
            conflict_regions: Vec::new(),
        }
    }

    /// What a pre hook reads as `exit_code` is what the run returns if the gate lets it
    /// through: the plan's own verdict, not the `planned` status's 0.
    #[test]
    fn a_planned_reports_exit_code_is_the_runs_if_the_gate_passes() {
        let planned = |files: Vec<FileReport>, partial: bool| {
            let mut r = Report::error(ErrorKind::Usage, "");
            r.errors.clear();
            r.status = RunStatus::Planned;
            r.files = files;
            r.partial = partial;
            r.exit_code()
        };
        let ok = || file(FileOutcome::Applied);
        let refused = || file(FileOutcome::Refused);
        assert_eq!(
            planned(vec![ok(), file(FileOutcome::AlreadyApplied)], false),
            0
        );
        assert_eq!(planned(vec![ok(), refused()], true), 3);
        assert_eq!(planned(vec![ok(), file(FileOutcome::Conflicted)], true), 3);
        // A plan that would be refused, shown to the hook because it may fetch missing blobs.
        assert_eq!(planned(vec![ok(), refused()], false), 1);
        // Every other status is its own.
        let mut r = Report::error(ErrorKind::Usage, "");
        r.status = RunStatus::Busy;
        assert_eq!(r.exit_code(), RunStatus::Busy.exit_code());
    }
}

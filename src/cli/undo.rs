//! `git llm-apply undo [ID]` (and `--revert` without PATCH): take one apply's change back
//! out of the work tree, keeping what was edited since, never touching HEAD or the index.

use std::path::PathBuf;

use super::args::UndoArgs;
use super::session::{self, fail, Session, SnapshotRequest};
use super::Outcome;
use crate::gate::{self, Verdict};
use crate::patch::{Format, Notice};
use crate::repo::Repo;
use crate::report::{ErrorReport, FileOutcome, Report, RunStatus};
use crate::snapshot::{self, SnapshotError, SnapshotId, Status};
use crate::write::restore;

pub fn run(args: UndoArgs, dir: Option<PathBuf>) -> Outcome {
    let UndoArgs {
        id,
        force,
        check,
        json,
    } = args;
    let report = match undo(id.as_deref(), force, check, dir) {
        Ok(r) => r,
        Err(r) => *r,
    };
    Outcome::run(report, json)
}

/// A refusal of a request that was understood but cannot be done: exit 1, nothing written
/// (an unknown or malformed ID stays a usage error, exit 2).
fn refuse(kind: &str, message: impl Into<String>) -> Box<Report> {
    let mut r = fail(kind, message);
    r.status = RunStatus::Refused;
    r.exit_code = RunStatus::Refused.exit_code();
    r
}

fn undo(
    id: Option<&str>,
    force: bool,
    check: bool,
    dir: Option<PathBuf>,
) -> Result<Report, Box<Report>> {
    let cwd = session::start_dir(dir)?;
    let repo = session::require_repo(&cwd, "there are no snapshots to undo here")?;
    let session = session::open(&repo, !check)?;
    // Whatever happens next, the report says what opening the session did (a recovery).
    undo_locked(&repo, &session, id, force, check).map_err(|mut r| {
        let mut notices = session.notices.clone();
        notices.append(&mut r.notices);
        r.notices = notices;
        r
    })
}

fn undo_locked(
    repo: &Repo,
    session: &Session,
    id: Option<&str>,
    force: bool,
    check: bool,
) -> Result<Report, Box<Report>> {
    let target = match id {
        Some(text) => text
            .parse::<SnapshotId>()
            .map_err(|e| fail("usage", e.to_string()))?,
        None => most_recent_apply(repo)?,
    };
    let snap = snapshot::read(repo, target).map_err(|e| match e {
        SnapshotError::NotFound { .. } => fail(
            "usage",
            format!("{e}; git llm-apply log lists the snapshots there are"),
        ),
        e => fail("snapshot", e.to_string()),
    })?;
    if let Status::Undone { .. } = snap.info().status {
        return Err(refuse(
            "already-undone",
            format!(
                "snapshot {target} was already undone; nothing was written (git llm-apply log \
                 lists what is still applied)"
            ),
        ));
    }
    let plan = restore::plan_undo(repo, &snap, force)
        .map_err(|e| fail("snapshot", format!("cannot undo snapshot {target}: {e}")))?;
    let as_plan = plan.to_plan();
    let mut notices = session.notices.clone();

    let status = if plan.refused() {
        RunStatus::Refused
    } else if check {
        RunStatus::Checked
    } else if as_plan.changes.is_empty() {
        RunStatus::AlreadyApplied
    } else {
        RunStatus::Applied
    };
    let mut report = Report::from_plan(&as_plan, Format::Unified, status, false);
    report.format = None;
    report.reverse = true;
    report.check = check;

    if plan.refused() {
        for f in &mut report.files {
            if f.status == FileOutcome::Skipped {
                // The apply path's hint (--partial) does not exist for undo.
                f.problems = vec![
                    "not written: an undo is all or nothing, and another path stops it".into(),
                ];
            }
        }
        let paths = plan.refused_paths().join(", ");
        notices.push(Notice::new(
            "undo-refused",
            format!(
                "snapshot {target} was not undone, nothing was written: {paths} cannot be \
                 taken back without losing what was written since; git llm-apply undo \
                 {target} --force restores the pre-apply content anyway and keeps the current \
                 content in a new snapshot"
            ),
        ));
        report.notices.extend(notices);
        return Ok(report);
    }
    if check {
        notices.push(Notice::new(
            "undo-checked",
            format!("snapshot {target} can be undone; nothing was written"),
        ));
        report.notices.extend(notices);
        return Ok(report);
    }

    if !as_plan.changes.is_empty() {
        // The undo is itself recorded: the snapshot keeps the content it overwrites (later
        // edits included when forced), makes the undo crash-safe through the journal, and
        // lets `undo <that snapshot>` bring the change back.
        let forced = plan
            .paths
            .iter()
            .any(|p| matches!(p.action, restore::Action::Forced { .. }));
        let meta = session::restore_meta(
            &plan,
            format!(
                "undo of snapshot {target}{}",
                if forced { " (forced)" } else { "" }
            ),
        );
        let request = SnapshotRequest {
            patch_sha256: meta.patch_sha256,
            intent: meta.intent,
            undoes: Some(target),
        };
        let token = match gate::approve_restore(as_plan.changes.clone()) {
            Verdict::Approved(t) => t,
            Verdict::Vetoed { reason, .. } => return Err(refuse("veto", reason)),
        };
        match session::write(
            &repo.work_dir,
            &token,
            Some((session, &request)),
            &report.summary,
        ) {
            Ok(done) => {
                report.written = true;
                report.snapshot = done.snapshot.map(SnapshotId::ref_name);
                notices.extend(done.notices);
            }
            Err(message) => {
                let mut r = Report::from_plan(&as_plan, Format::Unified, RunStatus::Refused, false);
                r.format = None;
                r.reverse = true;
                r.errors.push(ErrorReport {
                    kind: "write".into(),
                    message,
                });
                r.notices.extend(notices);
                return Ok(r);
            }
        }
    }
    match snapshot::mark_undone(repo, target) {
        Ok(()) => {}
        Err(e @ SnapshotError::AlreadyUndone { .. }) => {
            // Another worktree undid it at the same moment; the files here are restored
            // all the same, so say so rather than fail.
            notices.push(Notice::new("already-undone", e.to_string()));
        }
        Err(e) => report.errors.push(ErrorReport {
            kind: "snapshot".into(),
            message: format!(
                "the files were restored, but marking snapshot {target} undone failed: {e}"
            ),
        }),
    }
    // Undoing the snapshot of an undo brings that undo's change back: the snapshot it
    // undid may be undone again.
    if let Some(earlier) = snap.info().undoes {
        if let Err(e) = snapshot::clear_undone(repo, earlier) {
            report.errors.push(ErrorReport {
                kind: "snapshot".into(),
                message: format!("snapshot {earlier} stays marked undone: {e}"),
            });
        }
    }
    let mut message = format!("snapshot {target} undone");
    if let Some(s) = &report.snapshot {
        let n = s.trim_start_matches(snapshot::REF_PREFIX);
        message.push_str(&format!(
            "; the files as they were before this undo are kept in snapshot {n}"
        ));
    } else {
        message.push_str(": its paths already held their pre-apply content");
    }
    notices.push(Notice::new("undone", message));
    report.notices.extend(notices);
    Ok(report)
}

/// The newest snapshot of an apply (snapshots taken before an undo are not applies).
fn most_recent_apply(repo: &Repo) -> Result<SnapshotId, Box<Report>> {
    let infos = snapshot::list(repo).map_err(|e| fail("snapshot", e.to_string()))?;
    let newest = infos.iter().find(|i| i.undoes.is_none()).ok_or_else(|| {
        refuse(
            "no-snapshot",
            "no recorded apply to roll back (applies record a snapshot unless --no-snapshot is given)",
        )
    })?;
    if let Status::Undone { .. } = newest.status {
        return Err(refuse(
            "already-undone",
            format!(
                "the most recent apply (snapshot {id}) was already undone; to roll back an \
                 earlier one, name it: git llm-apply undo ID (git llm-apply log lists them)",
                id = newest.id
            ),
        ));
    }
    Ok(newest.id)
}

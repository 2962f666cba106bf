//! `git llm-apply undo [ID]` (and `--revert` without PATCH): take one apply's change back
//! out of the work tree, keeping what was edited since, never touching HEAD or the index.

use crate::report::kinds::{ErrorKind, Kinded, NoticeKind};
use std::path::PathBuf;

use super::options::UndoOptions;
use super::session::{self, Session, SnapshotRequest, WriteFailure};
use crate::gate::{self, Verdict};
use crate::git::config::Pending;
use crate::patch::{Format, Notice};
use crate::repo::{Repo, RepoError};
use crate::report::{ErrorReport, FileOutcome, Report, RunFlags, RunStatus};
use crate::snapshot::{self, ParseIdError, SnapshotError, SnapshotId, Status};
use crate::write::index::IndexError;
use crate::write::restore::RestoreError;
use crate::write::{self, restore};

/// Why an undo stopped, or what it could not finish after restoring the files.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    #[error("give either a snapshot ID or --session, not both")]
    IdAndSession,
    #[error(
        "--check does not go with --session yet: each undo of a session depends on the one \
         before it; check the newest with undo --check ID"
    )]
    CheckSession,
    #[error(transparent)]
    BadId(#[from] ParseIdError),
    #[error("{0}; git llm-apply log lists the snapshots there are")]
    NotFound(#[source] SnapshotError),
    /// Reading or listing the snapshots failed.
    #[error(transparent)]
    Snapshot(SnapshotError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    /// `--worktree PATH` names no worktree of this repository; `why` says what it is instead.
    #[error(
        "--worktree {}: {why} (git worktree list shows this repository's worktrees)",
        path.display()
    )]
    NotOurWorktree { path: PathBuf, why: &'static str },
    #[error("cannot undo snapshot {target}: {source}")]
    Plan {
        target: SnapshotId,
        #[source]
        source: RestoreError,
    },
    #[error("cannot undo snapshot {target}: {source}")]
    Unstaging {
        target: SnapshotId,
        #[source]
        source: IndexError,
    },
    /// The gate's reason, a sentence of its own.
    #[error("{0}")]
    Vetoed(String),
    #[error("the files were restored, but the index was not: {0}")]
    IndexNotRestored(#[source] IndexError),
    #[error("the files were restored, but marking snapshot {target} undone failed: {source}")]
    NotMarked {
        target: SnapshotId,
        #[source]
        source: SnapshotError,
    },
    #[error(
        "snapshot {target} was made in the worktree {there}, not in this one ({here}); \
         nothing was written. Undo it there: git llm-apply undo {target} --worktree {there} \
         (or git llm-apply -C {there} undo {target})"
    )]
    OtherWorktree {
        target: SnapshotId,
        there: String,
        here: String,
    },
    /// `redo` is the undo that brought the change back, when there is one.
    #[error(
        "snapshot {target} was already undone: nothing to undo ({})",
        match redo {
            Some(r) => format!("git llm-apply undo {r} brings its change back"),
            None => "git llm-apply log lists what is still applied".to_string(),
        }
    )]
    AlreadyUndone {
        target: SnapshotId,
        redo: Option<SnapshotId>,
    },
    #[error(
        "{}",
        match next {
            Some(n) => format!(
                "the most recent apply (snapshot {newest}) is already undone; the next one \
                 still applied is snapshot {n}: git llm-apply undo {n} (git llm-apply log \
                 lists them)"
            ),
            None => format!(
                "nothing to undo: the most recent apply (snapshot {newest}) is already undone \
                 and no earlier apply is still applied (git llm-apply log lists them)"
            ),
        }
    )]
    MostRecentUndone {
        newest: SnapshotId,
        next: Option<SnapshotId>,
    },
    /// `elsewhere`: other worktrees recorded applies.
    #[error(
        "nothing to undo: no apply was recorded here (applies record a snapshot unless \
         --no-snapshot is given){}",
        if *elsewhere {
            "; other worktrees' applies are undone there (git llm-apply log lists them)"
        } else {
            ""
        }
    )]
    NothingRecorded { elsewhere: bool },
    #[error(
        "nothing to undo: no apply of session {tag} is still applied here (git llm-apply log \
         lists the snapshots and their sessions)"
    )]
    NothingInSession { tag: String },
}

impl Kinded for UndoError {
    fn kind(&self) -> ErrorKind {
        match self {
            UndoError::IdAndSession
            | UndoError::CheckSession
            | UndoError::BadId(_)
            | UndoError::NotFound(_)
            | UndoError::NotOurWorktree { .. } => ErrorKind::Usage,
            UndoError::Snapshot(_) | UndoError::Plan { .. } | UndoError::NotMarked { .. } => {
                ErrorKind::Snapshot
            }
            UndoError::Repo(_) => ErrorKind::Repository,
            UndoError::Unstaging { .. } | UndoError::IndexNotRestored(_) => ErrorKind::Index,
            UndoError::Vetoed(_) => ErrorKind::Veto,
            UndoError::OtherWorktree { .. } => ErrorKind::OtherWorktree,
            UndoError::AlreadyUndone { .. } | UndoError::MostRecentUndone { .. } => {
                ErrorKind::AlreadyUndone
            }
            UndoError::NothingRecorded { .. } | UndoError::NothingInSession { .. } => {
                ErrorKind::NothingToUndo
            }
        }
    }
}

impl UndoError {
    /// Whether the request was understood but cannot be done: a refusal (exit 1, nothing
    /// written) rather than an error (an unknown or malformed ID stays a usage error, exit 2).
    fn refuses(&self) -> bool {
        matches!(
            self,
            UndoError::Vetoed(_)
                | UndoError::OtherWorktree { .. }
                | UndoError::AlreadyUndone { .. }
                | UndoError::MostRecentUndone { .. }
                | UndoError::NothingRecorded { .. }
                | UndoError::NothingInSession { .. }
        )
    }

    /// The report of an undo it stopped.
    fn report(&self) -> Box<Report> {
        let mut r = session::failed(self);
        if self.refuses() {
            r.status = RunStatus::Refused;
        }
        r
    }
}

/// Undo one apply (or check that it can be undone): the report of the run.
pub fn run(options: UndoOptions) -> Report {
    let UndoOptions {
        id,
        session,
        force,
        check,
        worktree,
        dir,
        config,
    } = options;
    match undo(
        id.as_deref(),
        session.as_deref(),
        force,
        check,
        dir,
        worktree,
        config,
    ) {
        Ok(r) => r,
        Err(r) => *r,
    }
}

fn undo(
    id: Option<&str>,
    tag: Option<&str>,
    force: bool,
    check: bool,
    dir: Option<PathBuf>,
    worktree: Option<PathBuf>,
    config: Option<Pending>,
) -> Result<Report, Box<Report>> {
    let cwd = session::start_dir(dir)?;
    // An undo writes as the config where it runs says (`llm-apply.fsync`), and not at all
    // when that config is invalid.
    let pending = config.unwrap_or_else(|| Pending::start(&cwd));
    let config = super::checked_config(&pending).map_err(|e| session::failed(&e))?;
    let mut repo = session::require_repo(&pending, &cwd, "there are no snapshots to undo here")?;
    repo.durability = super::durability(&config);
    if let Some(w) = worktree {
        repo = other_worktree(&repo, &cwd.join(w))?;
    }
    if tag.is_some() && id.is_some() {
        return Err(UndoError::IdAndSession.report());
    }
    if tag.is_some() && check {
        return Err(UndoError::CheckSession.report());
    }
    let session = session::open(&repo, !check)?;
    // Whatever happens next, the report says what opening the session did (a recovery).
    let done = match tag {
        Some(tag) => undo_session(&repo, &session, tag, force),
        None => undo_locked(&repo, &session, id, force, check),
    };
    done.map_err(|mut r| {
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
    let (target, snap) = undo_target(repo, id)?;
    let plan = restore::plan_undo(repo, &snap, force)
        .map_err(|source| UndoError::Plan { target, source }.report())?;
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
    let mut report = Report::from_plan(
        &as_plan,
        Format::Unified,
        status,
        RunFlags {
            check,
            reverse: true,
        },
    );
    report.format = None;
    report.undo = true;

    if plan.refused() {
        refused_undo(&mut report, &plan, target, notices);
        return Ok(report);
    }
    if check {
        notices.push(Notice::new(
            NoticeKind::UndoChecked,
            format!("snapshot {target} can be undone; nothing was written"),
        ));
        report.notices.extend(notices);
        return Ok(report);
    }

    // An --index apply staged its change: the entries that still hold it are put back,
    // with the files (under the undo's journal) when the undo writes any.
    let (unstage, index_left) = write::index::unstaging(repo, snap.index_changes())
        .map_err(|source| UndoError::Unstaging { target, source }.report())?;
    let index = unstage.iter().map(|s| s.path.clone()).collect();
    let token = match gate::approve_restore(as_plan.changes.clone(), index, repo.durability) {
        Verdict::Approved(t) => t,
        Verdict::Vetoed { reason, .. } => return Err(UndoError::Vetoed(reason).report()),
    };
    if !as_plan.changes.is_empty() {
        let undo = Undo {
            repo,
            session,
            plan: &plan,
            target,
        };
        match write_undo(&undo, &token, &unstage, &report.summary) {
            Ok(done) => {
                report.written = true;
                report.snapshot = done.snapshot.map(SnapshotId::ref_name);
                notices.extend(done.notices);
            }
            Err(e) => return Ok(write_failed(&as_plan, &e, notices)),
        }
    }
    // Not staged with a recorded write (nothing to write, or llm-apply.keep = 0): here.
    let staged = if report.snapshot.is_none() {
        write::index::stage(repo, &token, &unstage)
    } else {
        Ok(())
    };
    match staged {
        Ok(()) => notices.extend(index_notices(&unstage, &index_left)),
        Err(e) => report
            .errors
            .push(ErrorReport::of(&UndoError::IndexNotRestored(e))),
    }
    // A recorded undo marked its target undone before its journal went (write_recorded);
    // one that wrote nothing, or wrote without a snapshot (llm-apply.keep = 0), does it here.
    if report.snapshot.is_none() {
        if let Err(source) = snapshot::record_undo(repo, target) {
            report
                .errors
                .push(ErrorReport::of(&UndoError::NotMarked { target, source }));
        }
    }
    let mut message = format!("snapshot {target} undone");
    if let Some(s) = &report.snapshot {
        let n = s.trim_start_matches(snapshot::REF_PREFIX);
        message.push_str(&format!(
            "; the files as they were before this undo are kept in snapshot {n}"
        ));
    } else if report.written {
        // llm-apply.keep = 0: the notice from the writer says no snapshot was recorded.
    } else {
        message.push_str(": nothing to undo, its paths already held their pre-apply content");
    }
    notices.push(Notice::new(NoticeKind::Undone, message));
    report.notices.extend(notices);
    Ok(report)
}

/// An undo being written: where, of what.
struct Undo<'a> {
    repo: &'a Repo,
    session: &'a Session<'a>,
    plan: &'a restore::RestorePlan,
    target: SnapshotId,
}

/// Write the undo's files (and stage `unstage` with them). The undo is itself recorded: the
/// snapshot keeps the content it overwrites (later edits included when forced), makes the
/// undo crash-safe through the journal, and lets `undo <that snapshot>` bring the change back.
fn write_undo(
    u: &Undo<'_>,
    token: &gate::Approved,
    unstage: &[write::index::Staging],
    summary: &crate::report::Summary,
) -> Result<session::Done, WriteFailure> {
    let forced = u
        .plan
        .paths
        .iter()
        .any(|p| matches!(p.action, restore::Action::Forced { .. }));
    let meta = session::restore_meta(
        u.plan,
        format!(
            "undo of snapshot {}{}",
            u.target,
            if forced { " (forced)" } else { "" }
        ),
    );
    let request = SnapshotRequest {
        patch_sha256: meta.patch_sha256,
        intent: meta.intent,
        undoes: Some(u.target),
        session: None,
        index: unstage.to_vec(),
        stage_with_write: true,
        lines: meta.lines,
        // An undo drops old snapshots as it records its own, whichever front end runs it.
        prune: crate::write::recorded::Prune::Now,
    };
    session::write(
        &u.repo.work_dir,
        token,
        Some((u.session, &request)),
        summary,
    )
}

/// The report of an undo whose write failed (every file was put back as it was).
fn write_failed(
    as_plan: &crate::plan::Plan,
    failure: &WriteFailure,
    notices: Vec<Notice>,
) -> Report {
    let mut r = Report::from_plan(
        as_plan,
        Format::Unified,
        RunStatus::Refused,
        RunFlags {
            check: false,
            reverse: true,
        },
    );
    r.format = None;
    r.undo = true;
    r.errors.push(ErrorReport::of(failure));
    r.notices.extend(notices);
    r
}

/// The snapshot `id` names (the most recent apply in this work tree when none is named),
/// read, and checked to be undoable here: made in this work tree, not undone yet.
fn undo_target(
    repo: &Repo,
    id: Option<&str>,
) -> Result<(SnapshotId, snapshot::Snapshot), Box<Report>> {
    let here = snapshot::worktree_name(repo);
    let target = match id {
        Some(text) => text
            .parse::<SnapshotId>()
            .map_err(|e| UndoError::BadId(e).report())?,
        None => most_recent_apply(repo, &here)?,
    };
    let snap = snapshot::read(repo, target).map_err(|e| {
        match e {
            SnapshotError::NotFound { .. } => UndoError::NotFound(e),
            e => UndoError::Snapshot(e),
        }
        .report()
    })?;
    if !snapshot::made_in(snap.info(), &here) {
        // Its paths are another work tree's files: compared with this one's, the undo would
        // find nothing to restore, or restore the wrong files.
        let there = snap.info().worktree.clone().unwrap_or_default();
        return Err(UndoError::OtherWorktree {
            target,
            there,
            here,
        }
        .report());
    }
    if let Status::Undone { .. } = snap.info().status {
        return Err(already_undone(repo, target).report());
    }
    Ok((target, snap))
}

/// The report of an undo that paths changed since the apply stop (all or nothing).
fn refused_undo(
    report: &mut Report,
    plan: &restore::RestorePlan,
    target: SnapshotId,
    mut notices: Vec<Notice>,
) {
    for f in &mut report.files {
        if f.status == FileOutcome::Skipped {
            // The apply path's hint (--partial) does not exist for undo.
            f.problems =
                vec!["not written: an undo is all or nothing, and another path stops it".into()];
        }
    }
    let paths = plan.refused_paths().join(", ");
    notices.push(Notice::new(
        NoticeKind::UndoRefused,
        format!(
            "snapshot {target} was not undone, nothing was written: {paths} cannot be \
             taken back without losing what was written since; git llm-apply undo \
             {target} --force restores the pre-apply content anyway and keeps the current \
             content in a new snapshot"
        ),
    ));
    report.notices.extend(notices);
}

/// What the undo did to the index: the entries it put back, and those it left because they
/// changed since the apply staged them.
fn index_notices(unstage: &[write::index::Staging], left: &[String]) -> Vec<Notice> {
    let mut notices = Vec::new();
    if !unstage.is_empty() {
        let paths: Vec<&str> = unstage.iter().map(|s| s.path.as_str()).collect();
        notices.push(Notice::new(
            NoticeKind::IndexRestored,
            format!(
                "the index entries the apply staged were put back: {}",
                paths.join(", ")
            ),
        ));
    }
    if !left.is_empty() {
        notices.push(Notice::new(
            NoticeKind::IndexKept,
            format!(
                "the index entries of {} changed since the apply staged them, so they were \
                 left as they are",
                left.join(", ")
            ),
        ));
    }
    notices
}

/// `undo --session NAME`: every apply of that session still applied in this work tree,
/// newest first, under one lock. When one cannot be undone, the undos already done are
/// taken back (newest first) and the whole is refused: nothing of the session is undone.
fn undo_session(
    repo: &Repo,
    session: &Session,
    tag: &str,
    force: bool,
) -> Result<Report, Box<Report>> {
    let here = snapshot::worktree_name(repo);
    let infos = snapshot::list(repo).map_err(|e| UndoError::Snapshot(e).report())?;
    let targets: Vec<SnapshotId> = infos
        .iter()
        .filter(|i| {
            i.undoes.is_none()
                && i.session.as_deref() == Some(tag)
                && i.status == Status::Applied
                && snapshot::made_in(i, &here)
        })
        .map(|i| i.id)
        .collect();
    if targets.is_empty() {
        return Err(UndoError::NothingInSession {
            tag: tag.to_string(),
        }
        .report());
    }
    let mut reports: Vec<Report> = Vec::new();
    let mut undos: Vec<SnapshotId> = Vec::new();
    for target in &targets {
        let text = target.sequence().to_string();
        let r = match undo_locked(repo, session, Some(&text), force, false) {
            Ok(r) => r,
            Err(r) => *r,
        };
        let ok = matches!(r.status, RunStatus::Applied | RunStatus::AlreadyApplied)
            && r.errors.is_empty();
        if !ok {
            let back = take_back(repo, session, &undos);
            let mut refused = r;
            refused.status = RunStatus::Refused;
            refused.written = !back.is_empty();
            let mut message = format!(
                "session {tag} was not undone: snapshot {target} cannot be undone (see above), \
                 so the session's undo is refused as a whole"
            );
            if undos.is_empty() {
                message.push_str("; nothing was written");
            } else if back.is_empty() {
                message.push_str(&format!(
                    "; the {} newer undo(s) done first were taken back, so every file is as it \
                     was",
                    undos.len()
                ));
            } else {
                message.push_str(&format!(
                    "; taking back the undos done first failed: {}",
                    back.join("; ")
                ));
            }
            refused
                .notices
                .push(Notice::new(NoticeKind::SessionUndoRefused, message));
            return Ok(refused);
        }
        if let Some(s) = &r.snapshot {
            if let Ok(id) = s.parse::<SnapshotId>() {
                undos.push(id);
            }
        }
        reports.push(r);
    }
    let mut all = reports.pop().expect("at least one snapshot was undone");
    for r in reports.into_iter().rev() {
        all.written |= r.written;
        all.summary.files += r.summary.files;
        all.summary.added += r.summary.added;
        all.summary.removed += r.summary.removed;
        all.files.splice(0..0, r.files);
        all.changes.splice(0..0, r.changes);
        let mut notices = r.notices;
        notices.append(&mut all.notices);
        all.notices = notices;
    }
    if all.written {
        all.status = RunStatus::Applied;
    }
    let ids: Vec<String> = targets.iter().map(ToString::to_string).collect();
    all.notices.push(Notice::new(
        NoticeKind::SessionUndone,
        format!(
            "session {tag} undone: snapshots {} (newest first)",
            ids.join(", ")
        ),
    ));
    Ok(all)
}

/// Take back the undos a refused session undo did first, newest first; what could not be.
fn take_back(repo: &Repo, session: &Session, undos: &[SnapshotId]) -> Vec<String> {
    let mut failed = Vec::new();
    for id in undos.iter().rev() {
        let text = id.sequence().to_string();
        let r = match undo_locked(repo, session, Some(&text), false, false) {
            Ok(r) => r,
            Err(r) => *r,
        };
        if !matches!(r.status, RunStatus::Applied | RunStatus::AlreadyApplied) {
            failed.push(format!(
                "snapshot {id}: {}",
                r.errors
                    .first()
                    .map(|e| e.message.clone())
                    .unwrap_or_else(|| "refused".into())
            ));
        }
    }
    failed
}

/// `--worktree PATH`: the repository as seen from that work tree, which must be one of this
/// repository's worktrees.
fn other_worktree(repo: &Repo, path: &std::path::Path) -> Result<Repo, Box<Report>> {
    let not_ours = |why: &'static str| {
        UndoError::NotOurWorktree {
            path: path.to_path_buf(),
            why,
        }
        .report()
    };
    if !path.is_dir() {
        return Err(not_ours("not a directory"));
    }
    let mut other = Repo::discover(path)
        .map_err(|e| UndoError::Repo(e).report())?
        .ok_or_else(|| not_ours("not inside a git repository"))?;
    // Written as the run's own config says, as in its own worktree.
    other.durability = repo.durability;
    let same = |a: &std::path::Path, b: &std::path::Path| {
        std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    };
    if !same(other.common_dir(), repo.common_dir()) {
        return Err(not_ours("a worktree of another repository"));
    }
    Ok(other)
}

/// The newest snapshot of an apply made in this work tree (snapshots taken before an undo
/// are not applies; other worktrees' applies are undone there).
fn most_recent_apply(repo: &Repo, here: &str) -> Result<SnapshotId, Box<Report>> {
    let infos = snapshot::list(repo).map_err(|e| UndoError::Snapshot(e).report())?;
    let elsewhere = infos.iter().any(|i| !snapshot::made_in(i, here));
    let mut applies = infos
        .iter()
        .filter(|i| i.undoes.is_none() && snapshot::made_in(i, here));
    let newest = applies
        .next()
        .ok_or_else(|| UndoError::NothingRecorded { elsewhere }.report())?;
    if let Status::Undone { .. } = newest.status {
        let next = applies.find(|i| i.status == Status::Applied);
        return Err(UndoError::MostRecentUndone {
            newest: newest.id,
            next: next.map(|n| n.id),
        }
        .report());
    }
    Ok(newest.id)
}

/// Why `undo ID` of an undone snapshot does nothing, and what would bring its change back.
fn already_undone(repo: &Repo, target: SnapshotId) -> UndoError {
    let redo = snapshot::list(repo).ok().and_then(|infos| {
        infos
            .into_iter()
            .find(|i| i.undoes == Some(target) && i.status == Status::Applied)
    });
    UndoError::AlreadyUndone {
        target,
        redo: redo.map(|r| r.id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each failure reports under its own kind, and the exit status (DESIGN §2) follows from
    /// the error: a request understood but impossible is refused (1), a malformed one is a
    /// usage error (2); nothing at the call site decides either.
    #[test]
    fn each_undo_failure_says_its_kind_and_whether_it_is_a_refusal() {
        let id = |n: &str| n.parse::<SnapshotId>().expect("a snapshot id");
        let bad_id = "x".parse::<SnapshotId>().expect_err("not an id");
        let cases: Vec<(UndoError, ErrorKind, i32)> = vec![
            (UndoError::IdAndSession, ErrorKind::Usage, 2),
            (UndoError::BadId(bad_id), ErrorKind::Usage, 2),
            (
                UndoError::NotFound(SnapshotError::NotFound { id: id("4") }),
                ErrorKind::Usage,
                2,
            ),
            (
                UndoError::Snapshot(SnapshotError::NotFound { id: id("4") }),
                ErrorKind::Snapshot,
                2,
            ),
            (
                UndoError::AlreadyUndone {
                    target: id("3"),
                    redo: Some(id("5")),
                },
                ErrorKind::AlreadyUndone,
                1,
            ),
            (
                UndoError::NothingRecorded { elsewhere: false },
                ErrorKind::NothingToUndo,
                1,
            ),
            (
                UndoError::OtherWorktree {
                    target: id("2"),
                    there: "wt".into(),
                    here: "main".into(),
                },
                ErrorKind::OtherWorktree,
                1,
            ),
            (UndoError::Vetoed("no".into()), ErrorKind::Veto, 1),
        ];
        for (e, kind, exit) in cases {
            let r = e.report();
            assert_eq!((r.errors[0].kind, r.exit_code()), (kind, exit), "{e:?}");
            assert_eq!(r.errors[0].message, e.to_string());
        }
    }

    #[test]
    fn an_undo_failure_renders_the_message_clients_read() {
        let id = |n: &str| n.parse::<SnapshotId>().expect("a snapshot id");
        let e = UndoError::NotFound(SnapshotError::NotFound { id: id("4") });
        assert_eq!(
            e.to_string(),
            "there is no snapshot 4 (refs/llm-apply/4 does not exist); git llm-apply log lists \
             the snapshots there are"
        );
        let e = UndoError::AlreadyUndone {
            target: id("3"),
            redo: None,
        };
        assert_eq!(
            e.to_string(),
            "snapshot 3 was already undone: nothing to undo (git llm-apply log lists what is \
             still applied)"
        );
        let e = UndoError::NothingRecorded { elsewhere: true };
        assert_eq!(
            e.to_string(),
            "nothing to undo: no apply was recorded here (applies record a snapshot unless \
             --no-snapshot is given); other worktrees' applies are undone there (git llm-apply \
             log lists them)"
        );
    }
}

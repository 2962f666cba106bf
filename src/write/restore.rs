//! Undo and crash recovery: from a checked [`Snapshot`], decide what each touched path must
//! become so that the apply's change is taken out, keeping what was written since wherever a
//! three-way merge can. Reads only; the writes go through [`super::write`] like any apply.

use std::io;
use std::time::{Duration, Instant};

use crate::patch::FileOp;
use crate::plan::diagnose::{Warning, WarningKind};
use crate::plan::merge::{self, Labels, MergeOutcome};
use crate::plan::{Base, Change, FilePlan, FileStatus, Plan, Strategy};
use crate::repo::{Entry, FileState, Files, Repo, WorkTree};
use crate::snapshot::{Snapshot, SnapshotError, SnapshotId, SnapshotPath};
use crate::text::textdiff::{self, LineCounts};

/// Why an undo or a recovery could not be decided.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error("cannot read {path} in the work tree: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("the journal names {path}, which snapshot {snapshot} did not record")]
    UnknownPath { path: String, snapshot: SnapshotId },
}

impl crate::patch::kinds::Kinded for RestoreError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        // Restoring is reading a snapshot back: what fails is the snapshot or its paths.
        crate::patch::kinds::ErrorKind::Snapshot
    }
}

/// How long one undo may spend diffing to count lines, over all its paths. Only paths edited
/// since the apply need a diff (the others report the counts their snapshot recorded); past
/// this, what is still to count is counted coarsely ([`textdiff`]).
const COUNT_BUDGET: Duration = Duration::from_secs(1);

/// What is left of [`COUNT_BUDGET`]: only the counting spends it, not the merges between
/// (a cell, as every path's decision holds it shared).
struct Budget(std::cell::Cell<Duration>);

impl Budget {
    fn new() -> Budget {
        Budget(std::cell::Cell::new(COUNT_BUDGET))
    }

    fn count(&self, from: Option<&FileState>, to: Option<&FileState>) -> LineCounts {
        let started = Instant::now();
        let counts = textdiff::count_change(
            from.map(|f| &f.bytes[..]),
            to.map(|f| &f.bytes[..]),
            started + self.0.get(),
        );
        self.0.set(self.0.get().saturating_sub(started.elapsed()));
        counts
    }
}

/// What happens to one touched path.
#[allow(missing_docs)] // each variant's doc says what its one field holds
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Nothing to write: the path already holds what the undo would write.
    AlreadyRestored,
    /// Unchanged since the apply: its pre-apply state goes back as recorded.
    Restore,
    /// Edited since the apply: a three-way merge took the apply's change out and kept the
    /// later edits.
    Merge,
    /// Edited since the apply where the apply changed it (or created, deleted, or made it
    /// binary): taking the change out would lose those edits. Refused unless forced.
    Conflict { reasons: Vec<String> },
    /// A conflict overridden (`--force`, or recovery): the pre-apply state goes back
    /// outright; the caller records the current content in a snapshot first.
    Forced { reasons: Vec<String> },
    /// Never written, not even when forced: the path is now a symlink or another non-file,
    /// or writing it would leave the work tree.
    Unsafe { reason: String },
}

/// One touched path: its state now, and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRestore {
    /// The touched path, relative to the top level.
    pub path: String,
    /// What the undo does there.
    pub action: Action,
    /// The file now; `None` when there is none.
    pub current: Option<FileState>,
    /// What the path becomes (`None`: no file). For a refused path, the pre-apply state.
    pub target: Option<FileState>,
    /// Lines added and removed going from `current` to `target`. A path that still holds
    /// what the apply left reports the apply's own counts reversed (from the snapshot), so
    /// undo states exactly what it takes out; otherwise (edited since, or a snapshot without
    /// counts) they are those of a diff, bounded in time (see [`textdiff`]).
    pub lines: LineCounts,
}

impl PathRestore {
    fn writes(&self) -> bool {
        matches!(
            self.action,
            Action::Restore | Action::Merge | Action::Forced { .. }
        )
    }
}

/// The undo of one snapshot, decided for every touched path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestorePlan {
    /// The snapshot being undone.
    pub snapshot: SnapshotId,
    /// Every path the snapshot touched, in its order.
    pub paths: Vec<PathRestore>,
}

impl RestorePlan {
    /// Whether any path stops the undo: a conflict not forced, or an unsafe path.
    pub fn refused(&self) -> bool {
        self.paths
            .iter()
            .any(|p| matches!(p.action, Action::Conflict { .. } | Action::Unsafe { .. }))
    }

    /// The paths that stop the undo, in snapshot order.
    pub fn refused_paths(&self) -> Vec<&str> {
        self.paths
            .iter()
            .filter(|p| matches!(p.action, Action::Conflict { .. } | Action::Unsafe { .. }))
            .map(|p| p.path.as_str())
            .collect()
    }

    /// Whether writing this plan would overwrite content that is not the apply's own
    /// (a merge or a forced restore), so that content must be recorded first.
    pub fn overwrites_later_edits(&self) -> bool {
        self.paths
            .iter()
            .any(|p| matches!(p.action, Action::Merge | Action::Forced { .. }))
    }

    /// The writes, for the gate's `approve_restore`. Empty when the plan is refused.
    pub fn changes(&self) -> Vec<Change> {
        if self.refused() {
            return Vec::new();
        }
        self.paths
            .iter()
            .filter(|p| p.writes())
            .map(|p| Change {
                path: p.path.clone(),
                before: p.current.clone(),
                after: p.target.clone(),
            })
            .collect()
    }

    /// The plan as the report shows plans: one file per touched path.
    pub fn to_plan(&self) -> Plan {
        Plan {
            files: self.paths.iter().map(|p| self.file_plan(p)).collect(),
            notices: Vec::new(),
            changes: self.changes(),
        }
    }

    fn file_plan(&self, p: &PathRestore) -> FilePlan {
        let LineCounts { added, removed } = p.lines;
        let (op, old_path, new_path) = match (&p.current, &p.target) {
            (None, Some(_)) => (FileOp::Create, None, Some(p.path.clone())),
            (Some(_), None) => (FileOp::Delete, Some(p.path.clone()), None),
            _ => (FileOp::Modify, Some(p.path.clone()), Some(p.path.clone())),
        };
        let mode_change = match (&p.current, &p.target) {
            (Some(c), Some(t)) if c.mode != t.mode => Some((c.mode, t.mode)),
            _ => None,
        };
        let mut f = FilePlan::new(old_path, new_path, op, added, removed);
        f.mode_change = mode_change;
        let merged_against_snapshot = || {
            Some(Base {
                kind: "snapshot".to_string(),
                id: self.snapshot.ref_name(),
                path: p.path.clone(),
            })
        };
        match &p.action {
            Action::AlreadyRestored => f.status = FileStatus::AlreadyApplied,
            Action::Restore => {}
            Action::Merge => {
                f.strategy = Strategy::HistoryThreeWay;
                f.base = merged_against_snapshot();
                f.warnings.push(Warning::new(
                    WarningKind::KeptLaterEdits,
                    None,
                    "edited since the apply: only the apply's change was taken out, the later \
                     edits are kept",
                ));
            }
            Action::Conflict { reasons } => {
                f.status = FileStatus::Conflicted;
                f.strategy = Strategy::HistoryThreeWay;
                f.base = merged_against_snapshot();
                f.problems.push(
                    "cannot be taken back without losing what was written since; --force \
                     restores the pre-apply content anyway (the current content is kept in a \
                     new snapshot)"
                        .to_string(),
                );
                f.conflicts = reasons.clone();
            }
            Action::Forced { reasons } => {
                f.warnings = reasons
                    .iter()
                    .map(|r| {
                        Warning::new(
                            WarningKind::Forced,
                            None,
                            format!("forced: {r}; the current content is kept in the new snapshot"),
                        )
                    })
                    .collect();
            }
            Action::Unsafe { reason } => {
                f.status = FileStatus::Refused;
                f.mode_change = None;
                f.problems.push(reason.clone());
            }
        }
        f
    }
}

/// Decide the undo of `snapshot` for every path it touched. A path edited since the apply
/// is merged (base: its post-apply content, ours: its content now, theirs: its pre-apply
/// content); where that conflicts, `force` restores the pre-apply state outright.
pub fn plan_undo(
    repo: &Repo,
    snapshot: &Snapshot,
    force: bool,
) -> Result<RestorePlan, RestoreError> {
    let budget = Budget::new();
    let paths = snapshot
        .paths()
        .iter()
        .map(|p| decide(repo, snapshot, p, force, &budget))
        .collect::<Result<_, _>>()?;
    Ok(RestorePlan {
        snapshot: snapshot.id(),
        paths,
    })
}

/// Decide how to take back an apply that was interrupted after it began writing `journal`
/// (the paths its journal names; all of the snapshot's when empty). As an undo, but a path
/// that cannot be merged is restored outright: an unfinished apply must not stay half done.
pub fn plan_recovery(
    repo: &Repo,
    snapshot: &Snapshot,
    journal: &[String],
) -> Result<RestorePlan, RestoreError> {
    for path in journal {
        if snapshot.path(path).is_none() {
            return Err(RestoreError::UnknownPath {
                path: path.clone(),
                snapshot: snapshot.id(),
            });
        }
    }
    let budget = Budget::new();
    let named: std::collections::HashSet<&str> = journal.iter().map(String::as_str).collect();
    let paths = snapshot
        .paths()
        .iter()
        .filter(|p| named.is_empty() || named.contains(p.path.as_str()))
        .map(|p| decide(repo, snapshot, p, true, &budget))
        .collect::<Result<_, _>>()?;
    Ok(RestorePlan {
        snapshot: snapshot.id(),
        paths,
    })
}

fn decide(
    repo: &Repo,
    snapshot: &Snapshot,
    entry: &SnapshotPath,
    force: bool,
    budget: &Budget,
) -> Result<PathRestore, RestoreError> {
    let work = WorkTree::new(&repo.work_dir);
    let path = entry.path.clone();
    let before = entry.before.clone();
    let after = snapshot.after_content(repo, entry)?;
    let unsafe_path = |reason: String, current: Option<FileState>| PathRestore {
        path: path.clone(),
        action: Action::Unsafe { reason },
        lines: budget.count(current.as_ref(), before.as_ref()),
        current,
        target: before.clone(),
    };
    if work.escapes(&path) {
        return Ok(unsafe_path(
            format!("{path} now leads out of the work tree (through a symlink); not touched"),
            None,
        ));
    }
    let current = match work.read(&path) {
        Ok(Entry::File(f)) => Some(f),
        Ok(Entry::Missing) => None,
        // A directory where the apply left no file: the apply put files below it (touched
        // paths of their own), so for this path nothing changed since.
        Ok(Entry::Other("directory")) if after.is_none() => None,
        Ok(Entry::Other(kind)) => {
            return Ok(unsafe_path(
                format!("{path} is now a {kind}; not touched"),
                None,
            ))
        }
        Err(source) => return Err(RestoreError::Io { path, source }),
    };
    let counted = |action: Action, target: Option<FileState>, lines: LineCounts| PathRestore {
        path: path.clone(),
        action,
        lines,
        current: current.clone(),
        target,
    };
    let done = |action: Action, target: Option<FileState>| {
        let lines = if target == current {
            LineCounts::default()
        } else {
            budget.count(current.as_ref(), target.as_ref())
        };
        counted(action, target, lines)
    };
    if current == before {
        return Ok(done(Action::AlreadyRestored, before.clone()));
    }
    if current == after {
        // The apply's own change, taken out: its recorded counts reversed, without a diff.
        return Ok(match entry.lines {
            Some(counts) => counted(Action::Restore, before.clone(), counts.reversed()),
            None => done(Action::Restore, before.clone()),
        });
    }
    let refuse = |reasons: Vec<String>| {
        if force {
            done(Action::Forced { reasons }, before.clone())
        } else {
            done(Action::Conflict { reasons }, before.clone())
        }
    };
    let (Some(cur), Some(aft), Some(bef)) = (&current, &after, &before) else {
        let reason = match (&current, &after, &before) {
            (None, _, _) => "deleted since the apply",
            (Some(_), None, _) => "created again since the apply deleted it",
            _ => "edited since the apply created it; removing it would lose those edits",
        };
        return Ok(refuse(vec![reason.to_string()]));
    };
    // Modes have two values, so a mode edited since the apply is the one to keep; otherwise
    // the apply's mode change (if any) is taken back.
    let mode = if cur.mode == aft.mode {
        bef.mode
    } else {
        cur.mode
    };
    let texts = (
        std::str::from_utf8(&aft.bytes),
        std::str::from_utf8(&cur.bytes),
        std::str::from_utf8(&bef.bytes),
    );
    let (Ok(base), Ok(ours), Ok(theirs)) = texts else {
        if cur.bytes == aft.bytes {
            // Only the mode changed since; the content is the apply's and goes back.
            return Ok(done(
                Action::Merge,
                Some(FileState {
                    bytes: bef.bytes.clone(),
                    mode,
                }),
            ));
        }
        return Ok(refuse(vec![
            "binary content changed since the apply".to_string()
        ]));
    };
    let labels = Labels {
        ours: "current",
        base: "applied",
        theirs: "before the apply",
    };
    match merge::merge(base, ours, theirs, &labels) {
        MergeOutcome::Clean(text) => {
            let target = FileState {
                bytes: text.into_bytes().into(),
                mode,
            };
            if Some(&target) == current.as_ref() {
                Ok(done(Action::AlreadyRestored, Some(target)))
            } else {
                Ok(done(Action::Merge, Some(target)))
            }
        }
        MergeOutcome::Conflicted { conflicts, .. } => Ok(refuse(
            conflicts
                .iter()
                .map(|c| {
                    let start = c.ours.start;
                    match c.ours.end() {
                        Some(end) if end > start => format!(
                            "{path} lines {start}-{end} were edited since the apply, which changed them too"
                        ),
                        Some(_) => format!(
                            "{path} line {start} was edited since the apply, which changed it too"
                        ),
                        None => format!(
                            "{path}: lines were removed before line {start} since the apply, which changed them too"
                        ),
                    }
                })
                .collect(),
        )),
    }
}

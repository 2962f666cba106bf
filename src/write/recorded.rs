//! A write that can be undone and survives a crash: snapshot, journal, write, finish, prune,
//! in that order (the call sequence documented in `snapshot`).

use std::path::Path;

use super::index::{self, Staging};
use super::{WriteError, Written};
use crate::gate::Approved;
use crate::repo::Repo;
use crate::snapshot::{
    self, Journal, JournalError, Lock, Meta, SnapshotError, SnapshotId, Touched,
};

/// What a recorded write needs besides the approved changes: the repository, this
/// worktree's lock (held by the caller for the whole run), and what the snapshot says.
pub struct Recording<'a> {
    /// The repository the snapshot is recorded in.
    pub repo: &'a Repo,
    /// This worktree's lock, held by the caller for the whole run.
    pub lock: &'a Lock,
    /// What the snapshot says about the apply.
    pub meta: Meta,
    /// `--index`: the entries to stage once the files are written, still under the journal
    /// (a recovery puts them back with the files).
    pub stage: &'a [Staging],
    /// When the snapshots beyond `llm-apply.keep` are dropped.
    pub prune: Prune,
}

/// When a recorded write drops the snapshots beyond `llm-apply.keep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prune {
    /// Before it returns.
    #[default]
    Now,
    /// After the caller has answered, by the caller (the MCP server:
    /// `run::housekeeping::prune`): dropping one costs a tenth of a warm call, which the
    /// agent waiting for the answer need not wait for. A `llm-apply.keep` that cannot be read
    /// is still said now.
    Later,
}

/// A recorded write that went through.
#[derive(Debug)]
pub struct RecordedWrite {
    /// What was written.
    pub written: Written,
    /// The snapshot to undo it with.
    pub snapshot: SnapshotId,
    /// Older snapshots dropped to keep `llm-apply.keep`.
    pub pruned: Vec<SnapshotId>,
    /// With [`Prune::Later`]: there are snapshots beyond `llm-apply.keep` for the caller to
    /// drop.
    pub prune_pending: bool,
    /// Housekeeping that failed after the files were written (the write itself stands).
    pub warnings: Vec<String>,
}

/// Why a recorded write failed, and what it left behind.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("recording the snapshot failed, so nothing was written: {0}")]
    Snapshot(#[source] SnapshotError),
    #[error("starting the journal failed, so nothing was written: {0}")]
    Journal(#[source] JournalError),
    /// The writer failed and put every file back; the snapshot was dropped again.
    #[error(transparent)]
    Write(WriteError),
    #[error("{source}; the journal is kept, so the next git llm-apply run restores the rest from snapshot {snapshot}")]
    Unrestored {
        snapshot: SnapshotId,
        #[source]
        source: WriteError,
    },
    #[error("every file was written, but the journal could not be removed, so the next git llm-apply run will take this apply back (snapshot {snapshot}): {source}")]
    Finish {
        snapshot: SnapshotId,
        #[source]
        source: JournalError,
    },
}

impl crate::patch::kinds::Kinded for RecordError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Write
    }
}

/// Record the pre-write state of every path `approved` changes as a snapshot, then write
/// all or nothing under a journal, then drop snapshots beyond `llm-apply.keep`.
///
/// The order makes every prefix of the writes a state that `log` and the next run's
/// recovery describe truly: the journal (naming the snapshot's nonce) before the snapshot
/// ref, the snapshot's number in the journal before the first file, an undo's bookkeeping
/// (the undone marker) before the journal goes, and on a failure the journal's snapshot name
/// taken out before the snapshot is dropped.
pub fn write_recorded(
    root: &Path,
    approved: &Approved,
    rec: &Recording,
) -> Result<RecordedWrite, RecordError> {
    let touched: Vec<Touched> = approved
        .changes()
        .iter()
        .map(|c| Touched {
            path: c.path.clone(),
            before: c.before.clone(),
            after: c.after.clone(),
        })
        .collect();
    // Whether the work tree still holds the states the plan read is found on another thread
    // while the journal is started and the files are staged.
    let mut blobs = snapshot::compare_ahead(rec.repo, &touched);
    let nonce = snapshot::new_nonce();
    let dirs = dirs_to_create(root, approved);
    let mut journal = Journal::begin(
        rec.repo,
        rec.lock,
        &nonce,
        touched.iter().map(|t| &t.path),
        &dirs,
    )
    .map_err(RecordError::Journal)?;
    // The new files go to disk (under temporary names) while the snapshot is recorded.
    let staged = match super::stage(root, approved) {
        Ok(s) => s,
        Err(e) => {
            let _ = journal.finish();
            return Err(RecordError::Write(e));
        }
    };
    let (id, mut listing) =
        match snapshot::create_with_nonce(rec.repo, &touched, &rec.meta, &nonce, &mut blobs) {
            Ok(made) => made,
            Err(e) => {
                // No ref was made (or it will be found by its nonce and dropped next time). The
                // temporary files go while the journal that names their paths is still there.
                drop(staged);
                let _ = journal.finish();
                return Err(RecordError::Snapshot(e));
            }
        };
    if let Err(e) = journal.name_snapshot(id) {
        // Nothing was written: the snapshot would only list an apply that never happened.
        // The journal still holds the nonce only, so a crash here is tidied up next time.
        drop(staged);
        if snapshot::discard(rec.repo, id).is_ok() {
            let _ = journal.finish();
        }
        return Err(RecordError::Journal(e));
    }
    let written = match super::write_staged(root, approved, staged) {
        Ok(w) => w,
        Err(e @ (WriteError::Rolledback { .. } | WriteError::Changed { .. })) => {
            // Every file is back as it was, so there is nothing for a later run to recover;
            // failing to tidy up only costs that later run a no-op restore.
            if journal.unname_snapshot().is_ok() && snapshot::discard(rec.repo, id).is_ok() {
                let _ = journal.finish();
            }
            return Err(RecordError::Write(e));
        }
        Err(e @ WriteError::Partial { .. }) => {
            // Leaving the journal makes the next run restore from the snapshot what the
            // writer's own rollback could not.
            drop(journal);
            return Err(RecordError::Unrestored {
                snapshot: id,
                source: e,
            });
        }
    };
    let mut warnings = Vec::new();
    if !rec.stage.is_empty() {
        if let Err(e) = index::stage(rec.repo, approved, rec.stage) {
            warnings.push(format!("the files were written, but not staged: {e}"));
        }
    }
    // `listing`: the numbers the snapshot read, kept as this run's own markers change them;
    // read again for the prune when a failure left them unknown.
    let mut listed = true;
    if let Some(target) = rec.meta.undoes {
        if let Err(e) = snapshot::record_undo_listed(rec.repo, target, Some(&mut listing)) {
            listed = false;
            warnings.push(format!(
                "the files were restored, but marking snapshot {target} undone failed: {e}"
            ));
        }
    }
    journal.finish().map_err(|source| RecordError::Finish {
        snapshot: id,
        source,
    })?;
    let mut prune_pending = false;
    let pruned = match snapshot::keep_from_config(rec.repo).and_then(|keep| match rec.prune {
        Prune::Later => {
            // Told from the numbers this run read (another worktree's run may have made
            // more: its own prune counts them).
            prune_pending = !listed || listing.beyond(keep);
            Ok(Vec::new())
        }
        Prune::Now if listed => snapshot::prune_listed(rec.repo, keep, listing),
        Prune::Now => snapshot::prune(rec.repo, keep),
    }) {
        Ok(p) => p,
        Err(e) => {
            warnings.push(format!("old snapshots were not pruned: {e}"));
            Vec::new()
        }
    };
    Ok(RecordedWrite {
        written,
        snapshot: id,
        pruned,
        prune_pending,
        warnings,
    })
}

/// The directories the write will create (repository-relative, parents first): none of
/// them exists now, and each lies on the way to a file the write creates.
fn dirs_to_create(root: &Path, approved: &Approved) -> Vec<String> {
    let mut dirs: Vec<String> = Vec::new();
    for c in approved.changes().iter().filter(|c| c.after.is_some()) {
        let mut missing = Vec::new();
        let mut rel = Path::new(&c.path).parent();
        while let Some(d) = rel.filter(|d| !d.as_os_str().is_empty()) {
            if root.join(d).exists() {
                break;
            }
            missing.push(d.to_string_lossy().replace('\\', "/"));
            rel = d.parent();
        }
        for d in missing.into_iter().rev() {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

//! A write that can be undone and survives a crash: snapshot, journal, write, finish, prune,
//! in that order (the call sequence documented in `snapshot`).

use std::path::Path;

use super::{write, WriteError, Written};
use crate::gate::Approved;
use crate::repo::Repo;
use crate::snapshot::{
    self, Journal, JournalError, Lock, Meta, SnapshotError, SnapshotId, Touched,
};

/// What a recorded write needs besides the approved changes: the repository, this
/// worktree's lock (held by the caller for the whole run), and what the snapshot says.
pub struct Recording<'a> {
    pub repo: &'a Repo,
    pub lock: &'a Lock,
    pub meta: Meta,
}

/// A recorded write that went through.
#[derive(Debug)]
pub struct RecordedWrite {
    pub written: Written,
    pub snapshot: SnapshotId,
    /// Older snapshots dropped to keep `llm-apply.keep`.
    pub pruned: Vec<SnapshotId>,
    /// Housekeeping that failed after the files were written (the write itself stands).
    pub warnings: Vec<String>,
}

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

/// Record the pre-write state of every path `approved` changes as a snapshot, then write
/// all or nothing under a journal, then drop snapshots beyond `llm-apply.keep`.
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
            after: c.after.clone(),
        })
        .collect();
    let id = snapshot::create(rec.repo, &touched, &rec.meta).map_err(RecordError::Snapshot)?;
    let journal = match Journal::begin(rec.repo, rec.lock, id, touched.iter().map(|t| &t.path)) {
        Ok(j) => j,
        Err(e) => {
            // Nothing was written: the snapshot would only list an apply that never happened.
            let _ = snapshot::discard(rec.repo, id);
            return Err(RecordError::Journal(e));
        }
    };
    let written = match write(root, approved) {
        Ok(w) => w,
        Err(e @ WriteError::Rolledback { .. }) => {
            // Every file is back as it was, so there is nothing for a later run to recover;
            // failing to tidy up only costs that later run a no-op restore.
            let _ = journal.finish();
            let _ = snapshot::discard(rec.repo, id);
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
    journal.finish().map_err(|source| RecordError::Finish {
        snapshot: id,
        source,
    })?;
    let mut warnings = Vec::new();
    let pruned = match snapshot::keep_from_config(rec.repo)
        .and_then(|keep| snapshot::prune(rec.repo, keep))
    {
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
        warnings,
    })
}

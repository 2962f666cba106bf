//! The file versions ghost snapshots recorded, offered to the planner's search for a
//! three-way base (strategy 3): what the agent's earlier applies found and left behind.

use super::{load, scan, Recorded, REF_PREFIX};
use crate::plan::history::{RecordedState, RecordedStates};
use crate::repo::Repo;

/// Reads `refs/llm-apply/*` on demand: nothing is read unless the search gets that far.
pub struct SnapshotStates<'a> {
    /// The repository whose snapshot refs are read.
    pub repo: &'a Repo,
}

impl RecordedStates for SnapshotStates<'_> {
    fn states(&self, path: &str) -> Vec<RecordedState> {
        let r = &self.repo.repo;
        let Ok(snapshots) = scan(r, REF_PREFIX) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (seq, target) in snapshots.iter().rev() {
            // An undone apply's states were still seen by whoever wrote the patch, so the
            // undo marker is not consulted; a snapshot that does not parse is skipped.
            let Ok((_, record, commit)) = load(r, *seq, target, None) else {
                continue;
            };
            let Some(p) = record.paths.iter().find(|p| p.path == path) else {
                continue;
            };
            // Newest first: what the apply left, then what it found.
            for (state, holder) in [(p.after, record.post_commit), (p.before, commit.id)] {
                if let Recorded::Blob { id, .. } = state {
                    out.push(RecordedState {
                        head: record.head,
                        commit: holder,
                        blob: id,
                    });
                }
            }
        }
        out
    }
}

//! `--index`: which index entries an apply stages, and staging them. The index entry of a
//! touched path gets exactly the patch's change: where the work tree agrees with the index,
//! the apply's result; where it holds unstaged edits, the index entry merged three-way with
//! the patch's change (base: the work tree before, ours: the index entry, theirs: the work
//! tree after), so the unstaged edits stay unstaged. What cannot be staged that way is
//! refused before anything is written. Undo puts back the entries that still hold what the
//! apply staged.

use std::path::Path;

use gix::ObjectId;

use crate::gate::Approved;
use crate::git::{Git, GitError};
use crate::patch::kinds::{ErrorKind, Kinded};
use crate::plan::merge::{self, Labels, MergeOutcome};
use crate::plan::Change;
use crate::repo::{FileState, Repo, MODE_EXEC, MODE_FILE};
use crate::snapshot::{IndexChange, Recorded};

/// Why an index entry cannot take the patch's change, or could not be read or written.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("it has unmerged index entries; resolve the merge first")]
    Unmerged,
    #[error("its index entry has mode {mode:o}, not a regular file's")]
    NotAFile { mode: u32 },
    #[error(
        "it is not in the index (untracked); --index stages only changes to tracked files: \
         git add it first, or apply without --index"
    )]
    Untracked,
    #[error(
        "it is in the index but not in the work tree; git apply --index refuses this too: \
         restore or unstage it first"
    )]
    NotInWorkTree,
    #[error("cannot read its index entry {id}: {source}")]
    ReadEntry {
        id: ObjectId,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("it has unstaged changes and the patch deletes it; stage or discard them first")]
    UnstagedDelete,
    #[error(
        "it has unstaged changes and is not text, so the patch's change cannot be staged alone"
    )]
    UnstagedBinary,
    #[error(
        "its unstaged changes overlap the patch's change, so that change cannot be staged \
         alone; stage or stash them first, or apply without --index"
    )]
    Overlap,
    #[error("staging {path} failed: cannot write its blob: {source}")]
    WriteBlob {
        path: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("cannot read the blob {id} of {path}: {source}")]
    ReadBlob {
        id: ObjectId,
        path: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("updating the index failed: {stderr}")]
    Update { stderr: String },
    #[error("reading the index failed: {stderr}")]
    Read { stderr: String },
    #[error("unexpected git ls-files output {record:?}")]
    LsFiles { record: String },
    #[error("the index entry of {path} was not approved for writing")]
    NotApproved { path: String },
}

impl Kinded for IndexError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Index
    }
}

impl Kinded for Unstageable {
    fn kind(&self) -> ErrorKind {
        self.reason.kind()
    }
}

/// The stage-0 entry an apply leaves for one path: its content, or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staging {
    /// The index path, relative to the top level.
    pub path: String,
    /// The entry before the apply, as blob id and mode.
    pub before: Recorded,
    /// The entry after; `None` removes it.
    pub after: Option<FileState>,
}

impl Staging {
    /// As a snapshot records it.
    pub fn change(&self, repo: &Repo) -> IndexChange {
        IndexChange {
            path: self.path.clone(),
            before: self.before,
            after: match &self.after {
                None => Recorded::Absent,
                Some(f) => Recorded::Blob {
                    id: blob_id(repo, &f.bytes),
                    mode: f.mode,
                },
            },
        }
    }
}

/// A path whose index entry cannot take exactly the patch's change: the apply is refused.
#[derive(Debug, thiserror::Error)]
#[error("--index: {path}: {reason}; nothing was written")]
pub struct Unstageable {
    /// The path, relative to the top level.
    pub path: String,
    /// Why, in one sentence.
    pub reason: IndexError,
}

/// An index entry as `git ls-files -s` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IndexEntry {
    mode: u32,
    id: ObjectId,
    stage: u8,
}

/// Decide the index entry of every changed path, or say which cannot be staged.
pub fn plan(repo: &Repo, changes: &[Change]) -> Result<Vec<Staging>, Vec<Unstageable>> {
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    let entries = match entries(&repo.work_dir, &paths) {
        Ok(e) => e,
        Err(reason) => {
            return Err(vec![Unstageable {
                path: paths.join(", "),
                reason,
            }])
        }
    };
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for c in changes {
        let own: Vec<&IndexEntry> = entries
            .iter()
            .filter(|(p, _)| *p == c.path)
            .map(|(_, e)| e)
            .collect();
        match decide(repo, c, &own) {
            Ok(s) => out.push(s),
            Err(reason) => refused.push(Unstageable {
                path: c.path.clone(),
                reason,
            }),
        }
    }
    if refused.is_empty() {
        Ok(out)
    } else {
        Err(refused)
    }
}

fn decide(repo: &Repo, c: &Change, entries: &[&IndexEntry]) -> Result<Staging, IndexError> {
    if entries.iter().any(|e| e.stage != 0) {
        return Err(IndexError::Unmerged);
    }
    let entry = entries.first().copied();
    let before = match entry {
        None => Recorded::Absent,
        Some(e) if e.mode == MODE_FILE || e.mode == MODE_EXEC => Recorded::Blob {
            id: e.id,
            mode: e.mode,
        },
        Some(e) => return Err(IndexError::NotAFile { mode: e.mode }),
    };
    let staging = |after: Option<FileState>| Staging {
        path: c.path.clone(),
        before,
        after,
    };
    let staged = match (entry, &c.before) {
        (None, None) => return Ok(staging(c.after.clone())),
        (None, Some(_)) => return Err(IndexError::Untracked),
        (Some(_), None) => return Err(IndexError::NotInWorkTree),
        (Some(e), Some(wt)) => {
            let bytes = repo
                .repo
                .find_blob(e.id)
                .map(|mut b| b.take_data())
                .map_err(|err| IndexError::ReadEntry {
                    id: e.id,
                    source: err.into(),
                })?;
            (
                FileState {
                    bytes: bytes.into(),
                    mode: e.mode,
                },
                wt,
            )
        }
    };
    let (index, worktree) = staged;
    if index == *worktree {
        return Ok(staging(c.after.clone()));
    }
    // Unstaged edits: stage the patch's change alone.
    let Some(after) = &c.after else {
        return Err(IndexError::UnstagedDelete);
    };
    let texts = (
        std::str::from_utf8(&worktree.bytes),
        std::str::from_utf8(&index.bytes),
        std::str::from_utf8(&after.bytes),
    );
    let (Ok(base), Ok(ours), Ok(theirs)) = texts else {
        return Err(IndexError::UnstagedBinary);
    };
    let labels = Labels {
        ours: "index",
        base: "work tree",
        theirs: "patched",
    };
    let bytes = match merge::merge(base, ours, theirs, &labels) {
        MergeOutcome::Clean(text) => text.into_bytes(),
        MergeOutcome::Conflicted { .. } => return Err(IndexError::Overlap),
    };
    // A mode the patch changes is staged; a mode changed only in the work tree is not.
    let mode = if after.mode != worktree.mode {
        after.mode
    } else {
        index.mode
    };
    Ok(staging(Some(FileState {
        bytes: bytes.into(),
        mode,
    })))
}

/// Write the decided entries into the index (their blobs first). Run after the work tree
/// is written; a failure is reported, not undone.
pub fn stage(repo: &Repo, approved: &Approved, staged: &[Staging]) -> Result<(), IndexError> {
    approved_all(approved, staged.iter().map(|s| s.path.as_str()))?;
    let mut entries = Vec::new();
    for s in staged {
        let after = match &s.after {
            None => None,
            Some(f) => Some((
                f.mode,
                crate::repo::write_blob(&repo.repo, &f.bytes).map_err(|source| {
                    IndexError::WriteBlob {
                        path: s.path.clone(),
                        source,
                    }
                })?,
            )),
        };
        entries.push((s.path.as_str(), after));
    }
    set_entries(&repo.work_dir, &entries)
}

/// Undo's part, decided before it writes: the entries to put back (each one the apply
/// staged that still holds what it staged, returned to what it held before), and the paths
/// left alone because their entry changed since. Staged with the undo's files, under its
/// journal and recorded in its snapshot, so a crash or an undo of the undo stages again.
pub fn unstaging(
    repo: &Repo,
    changes: &[IndexChange],
) -> Result<(Vec<Staging>, Vec<String>), IndexError> {
    if changes.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let (holding, left) = still_holding(repo, changes)?;
    let mut back = Vec::new();
    for c in holding {
        let after = match c.before {
            Recorded::Absent => None,
            Recorded::Blob { id, mode } => Some(FileState {
                bytes: repo
                    .repo
                    .find_blob(id)
                    .map(|mut b| b.take_data())
                    .map_err(|e| IndexError::ReadBlob {
                        id,
                        path: c.path.clone(),
                        source: e.into(),
                    })?
                    .into(),
                mode,
            }),
        };
        back.push(Staging {
            path: c.path.clone(),
            before: c.after,
            after,
        });
    }
    Ok((back, left))
}

/// The changes whose index entries still hold what the apply staged, and the paths of those
/// whose entries changed since (left alone).
fn still_holding<'c>(
    repo: &Repo,
    changes: &'c [IndexChange],
) -> Result<(Vec<&'c IndexChange>, Vec<String>), IndexError> {
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    let now = entries(&repo.work_dir, &paths)?;
    let mut holding = Vec::new();
    let mut left = Vec::new();
    for c in changes {
        let current: Vec<&IndexEntry> = now
            .iter()
            .filter(|(p, _)| *p == c.path)
            .map(|(_, e)| e)
            .collect();
        if holds(&current, c.after) {
            holding.push(c);
        } else {
            left.push(c.path.clone());
        }
    }
    Ok((holding, left))
}

/// Whether a path's entries are exactly `state` at stage 0.
fn holds(current: &[&IndexEntry], state: Recorded) -> bool {
    match (current, state) {
        ([], Recorded::Absent) => true,
        ([e], Recorded::Blob { id, mode }) => e.stage == 0 && e.id == id && e.mode == mode,
        _ => false,
    }
}

/// Recovery's part: put back every entry the apply staged that still holds what it staged.
/// Returns the paths left alone because their entry changed since.
pub fn restore(
    repo: &Repo,
    approved: &Approved,
    changes: &[IndexChange],
) -> Result<Vec<String>, IndexError> {
    if changes.is_empty() {
        return Ok(Vec::new());
    }
    approved_all(approved, changes.iter().map(|c| c.path.as_str()))?;
    let (holding, left) = still_holding(repo, changes)?;
    let mut set = Vec::new();
    for c in holding {
        let before = match c.before {
            Recorded::Absent => None,
            Recorded::Blob { id, mode } => Some((mode, id)),
        };
        set.push((c.path.as_str(), before));
    }
    set_entries(&repo.work_dir, &set)?;
    Ok(left)
}

/// Set stage-0 entries (`None` removes the path's entry) with one `git update-index`.
fn set_entries(root: &Path, entries: &[(&str, Option<(u32, ObjectId)>)]) -> Result<(), IndexError> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut git = Git::new(root).args(["update-index", "--add"]);
    for (path, entry) in entries {
        git = match entry {
            Some((mode, id)) => git
                .arg("--cacheinfo")
                .arg(format!("{mode:o}"))
                .arg(id.to_string())
                .arg(path),
            None => git.args(["--force-remove", "--"]).arg(path),
        };
    }
    crate::snapshot::fault::mutation("index: update entries");
    let out = git.run()?;
    if out.success() {
        Ok(())
    } else {
        Err(IndexError::Update {
            stderr: out.stderr.trim().to_string(),
        })
    }
}

/// The index entries of `paths` (all stages), from `git ls-files -s`.
fn entries<'p>(root: &Path, paths: &[&'p str]) -> Result<Vec<(&'p str, IndexEntry)>, IndexError> {
    let out = Git::new(root)
        .args(["ls-files", "-s", "-z", "--full-name", "--"])
        .args(paths.iter().map(|p| format!(":(literal){p}")))
        .run()?;
    if !out.success() {
        return Err(IndexError::Read {
            stderr: out.stderr.trim().to_string(),
        });
    }
    let mut found = Vec::new();
    for record in out.stdout.split('\0').filter(|r| !r.is_empty()) {
        let bad = || IndexError::LsFiles {
            record: record.to_string(),
        };
        let (meta, path) = record.split_once('\t').ok_or_else(bad)?;
        let mut parts = meta.split(' ');
        let (Some(mode), Some(id), Some(stage)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad());
        };
        let entry = IndexEntry {
            mode: u32::from_str_radix(mode, 8).map_err(|_| bad())?,
            id: ObjectId::from_hex(id.as_bytes()).map_err(|_| bad())?,
            stage: stage.parse().map_err(|_| bad())?,
        };
        if let Some(p) = paths.iter().find(|p| **p == path) {
            found.push((*p, entry));
        }
    }
    Ok(found)
}

fn blob_id(repo: &Repo, bytes: &crate::repo::Content) -> ObjectId {
    bytes
        .blob_id(repo.repo.object_hash())
        .expect("hashing bytes in memory cannot fail")
}

/// Every one of `paths` may have its index entry written under `approved`; the first that
/// may not is the error (nothing is written then).
fn approved_all<'p>(
    approved: &Approved,
    paths: impl IntoIterator<Item = &'p str>,
) -> Result<(), IndexError> {
    match paths.into_iter().find(|p| !approved.covers_index(p)) {
        Some(p) => Err(IndexError::NotApproved {
            path: p.to_string(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{approve_restore, Verdict};

    fn token(index: &[&str]) -> Approved {
        let index = index.iter().map(|p| p.to_string()).collect();
        match approve_restore(Vec::new(), index, Default::default()) {
            Verdict::Approved(t) => t,
            Verdict::Vetoed { .. } => unreachable!("a restore is always approved"),
        }
    }

    #[test]
    fn only_the_index_entries_the_token_names_may_be_written() {
        let t = token(&["a.txt", "src/b.rs"]);
        assert!(approved_all(&t, ["a.txt", "src/b.rs"]).is_ok());
        let refused = approved_all(&t, ["a.txt", "c.txt"]).expect_err("c.txt is not covered");
        assert!(matches!(&refused, IndexError::NotApproved { path } if path == "c.txt"));
        assert_eq!(
            refused.to_string(),
            "the index entry of c.txt was not approved for writing"
        );
        assert_eq!(refused.kind(), ErrorKind::Index);
        assert!(approved_all(&token(&[]), std::iter::empty()).is_ok());
    }
}

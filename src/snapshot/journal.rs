//! The per-worktree journal `<git dir>/llm-apply/journal`: "an apply is in progress, snapshot
//! N, these paths", written durably before the first file write and removed after the last,
//! so the next run can tell that an apply was interrupted and restore from snapshot N.
//!
//! Format (one `key: value` per line; paths quoted as in snapshot metadata):
//!
//! ```text
//! llm-apply-journal: 1
//! snapshot: 7
//! pid: 12345
//! path: src/lib.rs
//! ```

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use super::format::{quote_path, unquote_path};
use super::{Lock, SnapshotId};
use crate::repo::Repo;

const JOURNAL_FILE: &str = "journal";
const JOURNAL_VERSION: &str = "1";

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot use the journal {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the journal {path} is malformed: {reason}")]
    Malformed { path: PathBuf, reason: String },
    #[error("an interrupted apply (snapshot {snapshot}) must be resolved before another starts")]
    AlreadyPending { snapshot: SnapshotId },
    #[error("the lock {lock} does not guard the journal {path} (another worktree's lock)")]
    ForeignLock { lock: PathBuf, path: PathBuf },
}

/// An apply in progress in this process. Finish it with [`Journal::finish`]; dropping it
/// without finishing leaves the journal on disk, exactly as a crash would.
#[derive(Debug)]
#[must_use = "an unfinished journal makes the next run restore the snapshot"]
pub struct Journal<'lock> {
    _lock: &'lock Lock,
    path: PathBuf,
    snapshot: SnapshotId,
}

/// An apply that a previous run started and did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    snapshot: SnapshotId,
    paths: Vec<String>,
    pid: Option<u32>,
    path: PathBuf,
}

impl<'lock> Journal<'lock> {
    /// Record durably that the apply of `snapshot` over `paths` starts now. Needs this
    /// worktree's lock, and no unresolved journal.
    pub fn begin<S: AsRef<str>>(
        repo: &Repo,
        lock: &'lock Lock,
        snapshot: SnapshotId,
        paths: impl IntoIterator<Item = S>,
    ) -> Result<Journal<'lock>, JournalError> {
        let dir = super::state_dir(repo);
        let path = dir.join(JOURNAL_FILE);
        check_lock(lock, &dir, &path)?;
        if let Some(pending) = read_pending(&path)? {
            return Err(JournalError::AlreadyPending {
                snapshot: pending.snapshot,
            });
        }
        let mut text = format!(
            "llm-apply-journal: {JOURNAL_VERSION}\nsnapshot: {snapshot}\npid: {}\n",
            std::process::id()
        );
        for p in paths {
            text.push_str("path: ");
            text.push_str(&quote_path(p.as_ref()));
            text.push('\n');
        }
        write_durably(&dir, &path, text.as_bytes()).map_err(|source| JournalError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(Journal {
            _lock: lock,
            path,
            snapshot,
        })
    }

    pub fn snapshot(&self) -> SnapshotId {
        self.snapshot
    }

    /// The apply's last write is done: remove the journal.
    pub fn finish(self) -> Result<(), JournalError> {
        remove_durably(&self.path)
    }

    /// The apply that a previous run in this worktree left unfinished, if any. Call it with the
    /// lock held, so that a run in progress is not mistaken for an interrupted one.
    pub fn pending(repo: &Repo) -> Result<Option<Pending>, JournalError> {
        read_pending(&super::state_dir(repo).join(JOURNAL_FILE))
    }
}

impl Pending {
    pub fn snapshot(&self) -> SnapshotId {
        self.snapshot
    }

    /// The paths the interrupted apply was about to write, in its order.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The process that wrote the journal, if it said.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The interrupted apply has been restored (or completed): forget it.
    pub fn clear(self, lock: &Lock) -> Result<(), JournalError> {
        let dir = self.path.parent().unwrap_or(Path::new("")).to_path_buf();
        check_lock(lock, &dir, &self.path)?;
        remove_durably(&self.path)
    }
}

/// Snapshots that an unfinished apply in any worktree of the repository still needs, so that
/// pruning never takes away what a restore will read. Unreadable journals name nothing here;
/// their own worktree reports them.
pub(crate) fn pending_in_all_worktrees(common_dir: &Path) -> Vec<SnapshotId> {
    let mut dirs = vec![common_dir.to_path_buf()];
    if let Ok(entries) = fs::read_dir(common_dir.join("worktrees")) {
        dirs.extend(entries.flatten().map(|e| e.path()));
    }
    dirs.iter()
        .filter_map(|d| {
            read_pending(&d.join("llm-apply").join(JOURNAL_FILE))
                .ok()
                .flatten()
        })
        .map(|p| p.snapshot)
        .collect()
}

fn check_lock(lock: &Lock, dir: &Path, path: &Path) -> Result<(), JournalError> {
    if lock.dir() == dir {
        Ok(())
    } else {
        Err(JournalError::ForeignLock {
            lock: lock.path().to_path_buf(),
            path: path.to_path_buf(),
        })
    }
}

fn read_pending(path: &Path) -> Result<Option<Pending>, JournalError> {
    let text = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(JournalError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    parse(&text)
        .map(|(snapshot, paths, pid)| {
            Some(Pending {
                snapshot,
                paths,
                pid,
                path: path.to_path_buf(),
            })
        })
        .map_err(|reason| JournalError::Malformed {
            path: path.to_path_buf(),
            reason,
        })
}

type Parsed = (SnapshotId, Vec<String>, Option<u32>);

fn parse(bytes: &[u8]) -> Result<Parsed, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let mut lines = text.lines();
    match lines.next() {
        Some(l) if l == format!("llm-apply-journal: {JOURNAL_VERSION}") => {}
        Some(l) if l.starts_with("llm-apply-journal: ") => {
            return Err(format!("unsupported version line {l:?}"))
        }
        _ => return Err("it does not start with `llm-apply-journal: 1`".to_string()),
    }
    let mut snapshot = None;
    let mut pid = None;
    let mut paths = Vec::new();
    for line in lines {
        let (key, value) = line
            .split_once(": ")
            .ok_or_else(|| format!("bad line {line:?}"))?;
        match key {
            "snapshot" => {
                let id: SnapshotId = value
                    .parse()
                    .map_err(|_| format!("bad snapshot id {value:?}"))?;
                if snapshot.replace(id).is_some() {
                    return Err("two snapshot lines".to_string());
                }
            }
            "pid" => pid = value.parse().ok(),
            "path" => paths.push(unquote_path(value).ok_or_else(|| format!("bad path {value:?}"))?),
            _ => {}
        }
    }
    let snapshot = snapshot.ok_or_else(|| "no snapshot line".to_string())?;
    Ok((snapshot, paths, pid))
}

/// Temporary file, fsync, rename over, fsync the directory: after this returns, a crash
/// leaves either no journal or the whole journal.
fn write_durably(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("{JOURNAL_FILE}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(dir);
    Ok(())
}

fn remove_durably(path: &Path) -> Result<(), JournalError> {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(JournalError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    }
    if let Some(dir) = path.parent() {
        sync_dir(dir);
    }
    Ok(())
}

/// Make a rename or removal in `dir` durable where the platform allows it; some file systems
/// refuse to sync directories, and the journal is then as durable as they can make it.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_text_is_parsed_back() {
        let text = "llm-apply-journal: 1\nsnapshot: 7\npid: 9\npath: a b\npath: \"x\\ny\"\n";
        let (id, paths, pid) = parse(text.as_bytes()).expect("valid");
        assert_eq!(id.to_string(), "7");
        assert_eq!(paths, vec!["a b".to_string(), "x\ny".to_string()]);
        assert_eq!(pid, Some(9));
    }

    #[test]
    fn malformed_journals_are_rejected() {
        for text in [
            "",
            "snapshot: 7\n",
            "llm-apply-journal: 2\nsnapshot: 7\n",
            "llm-apply-journal: 1\n",
            "llm-apply-journal: 1\nsnapshot: x\n",
            "llm-apply-journal: 1\nsnapshot: 7\nsnapshot: 8\n",
            "llm-apply-journal: 1\nsnapshot: 7\ngarbage\n",
            "llm-apply-journal: 1\nsnapshot: 7\npath: \"open\n",
        ] {
            assert!(parse(text.as_bytes()).is_err(), "{text:?}");
        }
    }
}

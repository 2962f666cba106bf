//! The per-worktree journal `<git dir>/llm-apply/journal`: "an apply is in progress, snapshot
//! N, these paths", written durably before the first file write and removed after the last,
//! so the next run can tell that an apply was interrupted and restore from snapshot N.
//!
//! Format (one `key: value` per line; paths quoted as in snapshot metadata):
//!
//! ```text
//! llm-apply-journal: 1
//! nonce: 0123456789abcdef
//! snapshot: 7
//! pid: 12345
//! path: src/lib.rs
//! dir: new/dir
//! ```
//!
//! It is written twice. First, before the snapshot exists, without `snapshot:`: the nonce is
//! the one the snapshot commit will carry, so a run killed before it named the snapshot here
//! still finds that snapshot (no file was written yet) and drops it. Then with `snapshot:`,
//! before the first file write. `dir:` lines name the directories the apply will create, so
//! a recovery removes them again. A journal from before nonces always names its snapshot.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use super::format::{quote_path, unquote_path};
use super::{Lock, SnapshotId};
use crate::repo::Repo;
use crate::sys::durable::Durability;

const JOURNAL_FILE: &str = "journal";
const JOURNAL_VERSION: &str = "1";

/// Why the journal of an apply in progress could not be used.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot use the journal {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the journal {path} is malformed: {reason}")]
    Malformed { path: PathBuf, reason: Malformed },
    #[error("an interrupted apply must be resolved before another starts")]
    AlreadyPending,
    #[error("the lock {lock} does not guard the journal {path} (another worktree's lock)")]
    ForeignLock { lock: PathBuf, path: PathBuf },
}

impl crate::patch::kinds::Kinded for JournalError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        // A journal is only read to recover an interrupted apply.
        crate::patch::kinds::ErrorKind::Recovery
    }
}

/// What is wrong with a journal's text.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    #[error("not UTF-8")]
    NotUtf8,
    #[error("unsupported version line {0:?}")]
    Version(String),
    #[error("it does not start with `llm-apply-journal: 1`")]
    NoHeader,
    #[error("bad line {0:?}")]
    Line(String),
    #[error("bad snapshot id {0:?}")]
    SnapshotId(String),
    #[error("two snapshot lines")]
    TwoSnapshots,
    #[error("bad or second nonce line {0:?}")]
    Nonce(String),
    #[error("bad path {0:?}")]
    Path(String),
    #[error("bad dir {0:?}")]
    Dir(String),
    #[error("no snapshot line and no nonce")]
    Unnamed,
}

/// An apply in progress in this process. Finish it with [`Journal::finish`]; dropping it
/// without finishing leaves the journal on disk, exactly as a crash would.
#[derive(Debug)]
#[must_use = "an unfinished journal makes the next run restore the snapshot"]
pub struct Journal<'lock> {
    _lock: &'lock Lock,
    path: PathBuf,
    dir: PathBuf,
    text: Entries,
    /// The repository's: whether the journal is flushed before what it names happens.
    durability: Durability,
}

/// What a journal says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Entries {
    nonce: Option<String>,
    snapshot: Option<SnapshotId>,
    pid: Option<u32>,
    paths: Vec<String>,
    dirs: Vec<String>,
}

impl Entries {
    fn render(&self) -> String {
        let mut text = format!("llm-apply-journal: {JOURNAL_VERSION}\n");
        if let Some(n) = &self.nonce {
            text.push_str(&format!("nonce: {n}\n"));
        }
        if let Some(s) = self.snapshot {
            text.push_str(&format!("snapshot: {s}\n"));
        }
        if let Some(p) = self.pid {
            text.push_str(&format!("pid: {p}\n"));
        }
        for (key, list) in [("path", &self.paths), ("dir", &self.dirs)] {
            for p in list {
                text.push_str(&format!("{key}: {}\n", quote_path(p)));
            }
        }
        text
    }
}

/// An apply that a previous run started and did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    entries: Entries,
    path: PathBuf,
    /// How its rewrite and removal reach the disk: the repository's it was read from.
    durability: Durability,
}

impl<'lock> Journal<'lock> {
    /// Record durably that an apply over `paths` starts now, whose snapshot will carry
    /// `nonce` and which will create the directories `dirs`. Needs this worktree's lock,
    /// and no unresolved journal. Name the snapshot with [`Journal::name_snapshot`] once it
    /// exists, before the first file write.
    pub fn begin<S: AsRef<str>>(
        repo: &Repo,
        lock: &'lock Lock,
        nonce: &str,
        paths: impl IntoIterator<Item = S>,
        dirs: &[String],
    ) -> Result<Journal<'lock>, JournalError> {
        Journal::open(
            repo,
            lock,
            Entries {
                nonce: Some(nonce.to_string()),
                snapshot: None,
                pid: Some(std::process::id()),
                paths: paths.into_iter().map(|p| p.as_ref().to_string()).collect(),
                dirs: dirs.to_vec(),
            },
        )
    }

    /// Store a new journal with `text`, under the lock, where none is pending.
    fn open(repo: &Repo, lock: &'lock Lock, text: Entries) -> Result<Journal<'lock>, JournalError> {
        let dir = super::state_dir(repo);
        let path = dir.join(JOURNAL_FILE);
        check_lock(lock, &dir, &path)?;
        if read_pending(&path, repo.durability)?.is_some() {
            return Err(JournalError::AlreadyPending);
        }
        let journal = Journal {
            _lock: lock,
            path,
            dir,
            text,
            durability: repo.durability,
        };
        journal.store()?;
        Ok(journal)
    }

    /// Record durably that a write under the existing snapshot `snapshot` over `paths`
    /// starts now (a rollback of that snapshot's apply), in one step.
    pub fn begin_named<S: AsRef<str>>(
        repo: &Repo,
        lock: &'lock Lock,
        snapshot: SnapshotId,
        paths: impl IntoIterator<Item = S>,
    ) -> Result<Journal<'lock>, JournalError> {
        Journal::open(
            repo,
            lock,
            Entries {
                nonce: None,
                snapshot: Some(snapshot),
                pid: Some(std::process::id()),
                paths: paths.into_iter().map(|p| p.as_ref().to_string()).collect(),
                dirs: Vec::new(),
            },
        )
    }

    /// The snapshot exists: say which it is, durably, before any file is written.
    pub fn name_snapshot(&mut self, snapshot: SnapshotId) -> Result<(), JournalError> {
        let unnamed = self.text.snapshot.is_none();
        self.text.snapshot = Some(snapshot);
        if !unnamed || self.durability.fsync {
            return self.store();
        }
        // Appended in place rather than the whole journal made anew: a new file renamed over
        // the old one costs the file system an inode made and one freed. An append cut short
        // (a full disk, or a kill as the write crosses a page) leaves a line without its end,
        // which parsing ignores: the journal then reads as the one before, which names no
        // snapshot, and no file is written before this returns (parsing takes the keys in
        // any order).
        super::fault::mutation("journal: append the snapshot");
        let line = format!("snapshot: {snapshot}\n");
        let appended = fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        appended.map_err(|source| JournalError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Take the snapshot's name back out (nothing was written, or all was put back), before
    /// the snapshot is dropped: a crash in between leaves a journal that drops it again.
    pub fn unname_snapshot(&mut self) -> Result<(), JournalError> {
        self.text.snapshot = None;
        self.store()
    }

    fn store(&self) -> Result<(), JournalError> {
        let text = self.text.render();
        write_durably(self.durability, &self.dir, &self.path, text.as_bytes()).map_err(|source| {
            JournalError::Io {
                path: self.path.clone(),
                source,
            }
        })
    }

    /// The snapshot taken before the apply's first write, once one was.
    pub fn snapshot(&self) -> Option<SnapshotId> {
        self.text.snapshot
    }

    /// The apply's last write is done: remove the journal.
    pub fn finish(self) -> Result<(), JournalError> {
        remove_durably(self.durability, &self.path)
    }

    /// The apply that a previous run in this worktree left unfinished, if any. Call it with the
    /// lock held, so that a run in progress is not mistaken for an interrupted one.
    pub fn pending(repo: &Repo) -> Result<Option<Pending>, JournalError> {
        read_pending(&super::state_dir(repo).join(JOURNAL_FILE), repo.durability)
    }
}

impl Pending {
    /// The snapshot the interrupted apply wrote its files under; `None` when it died before
    /// naming one (then it wrote no file, and its snapshot, if made, carries [`Self::nonce`]).
    pub fn snapshot(&self) -> Option<SnapshotId> {
        self.entries.snapshot
    }

    /// The nonce of the interrupted apply's snapshot commit (journals before nonces have none).
    pub fn nonce(&self) -> Option<&str> {
        self.entries.nonce.as_deref()
    }

    /// The paths the interrupted apply was about to write, in its order.
    pub fn paths(&self) -> &[String] {
        &self.entries.paths
    }

    /// The directories the interrupted apply was to create, parents first.
    pub fn dirs(&self) -> &[String] {
        &self.entries.dirs
    }

    /// The process that wrote the journal, if it said.
    pub fn pid(&self) -> Option<u32> {
        self.entries.pid
    }

    /// Take the snapshot's name out (see [`Journal::unname_snapshot`]), before dropping it.
    pub fn unname_snapshot(&mut self, lock: &Lock) -> Result<(), JournalError> {
        let dir = self.path.parent().unwrap_or(Path::new("")).to_path_buf();
        check_lock(lock, &dir, &self.path)?;
        self.entries.snapshot = None;
        let text = self.entries.render();
        write_durably(self.durability, &dir, &self.path, text.as_bytes()).map_err(|source| {
            JournalError::Io {
                path: self.path.clone(),
                source,
            }
        })
    }

    /// The interrupted apply has been restored (or completed): forget it.
    pub fn clear(self, lock: &Lock) -> Result<(), JournalError> {
        let dir = self.path.parent().unwrap_or(Path::new("")).to_path_buf();
        check_lock(lock, &dir, &self.path)?;
        remove_durably(self.durability, &self.path)
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
            // Only read here: how it would be rewritten does not matter.
            read_pending(
                &d.join("llm-apply").join(JOURNAL_FILE),
                Durability::default(),
            )
            .ok()
            .flatten()
        })
        .filter_map(|p| p.entries.snapshot)
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

fn read_pending(path: &Path, durability: Durability) -> Result<Option<Pending>, JournalError> {
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
        .map(|entries| {
            Some(Pending {
                entries,
                path: path.to_path_buf(),
                durability,
            })
        })
        .map_err(|reason| JournalError::Malformed {
            path: path.to_path_buf(),
            reason,
        })
}

fn parse(bytes: &[u8]) -> Result<Entries, Malformed> {
    let text = std::str::from_utf8(bytes).map_err(|_| Malformed::NotUtf8)?;
    // Every line is written with its end: a last line without one is an append cut short (a
    // full disk, or a kill between two pages), and the journal reads as it was before it.
    let whole = text.rfind('\n').map_or("", |end| &text[..=end]);
    let mut lines = whole.lines();
    match lines.next() {
        Some(l) if l == format!("llm-apply-journal: {JOURNAL_VERSION}") => {}
        Some(l) if l.starts_with("llm-apply-journal: ") => {
            return Err(Malformed::Version(l.to_string()))
        }
        _ => return Err(Malformed::NoHeader),
    }
    let mut e = Entries::default();
    for line in lines {
        let (key, value) = line
            .split_once(": ")
            .ok_or_else(|| Malformed::Line(line.to_string()))?;
        match key {
            "snapshot" => {
                let id: SnapshotId = value
                    .parse()
                    .map_err(|_| Malformed::SnapshotId(value.to_string()))?;
                if e.snapshot.replace(id).is_some() {
                    return Err(Malformed::TwoSnapshots);
                }
            }
            "nonce" => {
                let valid = !value.is_empty() && value.bytes().all(|b| b.is_ascii_hexdigit());
                if !valid || e.nonce.replace(value.to_string()).is_some() {
                    return Err(Malformed::Nonce(value.to_string()));
                }
            }
            "pid" => e.pid = value.parse().ok(),
            "path" => e
                .paths
                .push(unquote_path(value).ok_or_else(|| Malformed::Path(value.to_string()))?),
            "dir" => e
                .dirs
                .push(unquote_path(value).ok_or_else(|| Malformed::Dir(value.to_string()))?),
            _ => {}
        }
    }
    if e.snapshot.is_none() && e.nonce.is_none() {
        return Err(Malformed::Unnamed);
    }
    Ok(e)
}

/// Temporary file, fsync, rename over, fsync the directory (the fsyncs when writes are
/// flushed, `durability`): after this returns, a crash leaves either no journal or the
/// whole journal.
fn write_durably(durability: Durability, dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("{JOURNAL_FILE}.{}.tmp", std::process::id()));
    let result = (|| {
        super::fault::mutation("journal: write temporary file");
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        durability.file(&f)?;
        super::fault::mutation("journal: rename into place");
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    durability.dir(dir);
    Ok(())
}

fn remove_durably(durability: Durability, path: &Path) -> Result<(), JournalError> {
    super::fault::mutation("journal: remove");
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
        durability.dir(dir);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_text_is_parsed_back() {
        let text = "llm-apply-journal: 1\nsnapshot: 7\npid: 9\npath: a b\npath: \"x\\ny\"\n";
        let e = parse(text.as_bytes()).expect("valid");
        assert_eq!(e.snapshot.map(|s| s.to_string()), Some("7".to_string()));
        assert_eq!(e.paths, vec!["a b".to_string(), "x\ny".to_string()]);
        assert_eq!(e.pid, Some(9));
        assert_eq!(e.nonce, None, "a journal from before nonces");
        let e = Entries {
            nonce: Some("00ff".to_string()),
            snapshot: None,
            pid: Some(3),
            paths: vec!["new/f.txt".to_string()],
            dirs: vec!["new".to_string()],
        };
        assert_eq!(parse(e.render().as_bytes()), Ok(e));
    }

    #[test]
    fn a_last_line_without_its_end_is_an_append_cut_short_and_is_ignored() {
        let before = "llm-apply-journal: 1\nnonce: 00ff\npid: 3\npath: f.txt\n";
        let whole = parse(before.as_bytes()).expect("valid");
        assert_eq!(whole.snapshot, None);
        // Every prefix of the appended line reads as the journal before it: never as another
        // snapshot (`snapshot: 1` of `snapshot: 12`), never as malformed.
        let line = "snapshot: 12\n";
        for cut in 0..line.len() {
            let torn = format!("{before}{}", &line[..cut]);
            assert_eq!(parse(torn.as_bytes()), Ok(whole.clone()), "{torn:?}");
        }
        let done = parse(format!("{before}{line}").as_bytes()).expect("valid");
        assert_eq!(done.snapshot.map(|s| s.to_string()), Some("12".to_string()));
    }

    #[test]
    fn malformed_journals_are_rejected_each_for_what_is_wrong() {
        let s = |v: &str| v.to_string();
        for (text, why) in [
            ("", Malformed::NoHeader),
            ("snapshot: 7\n", Malformed::NoHeader),
            (
                "llm-apply-journal: 2\nsnapshot: 7\n",
                Malformed::Version(s("llm-apply-journal: 2")),
            ),
            ("llm-apply-journal: 1\n", Malformed::Unnamed),
            (
                "llm-apply-journal: 1\nnonce: xyz\n",
                Malformed::Nonce(s("xyz")),
            ),
            (
                "llm-apply-journal: 1\nsnapshot: x\n",
                Malformed::SnapshotId(s("x")),
            ),
            (
                "llm-apply-journal: 1\nsnapshot: 7\nsnapshot: 8\n",
                Malformed::TwoSnapshots,
            ),
            (
                "llm-apply-journal: 1\nsnapshot: 7\ngarbage\n",
                Malformed::Line(s("garbage")),
            ),
            (
                "llm-apply-journal: 1\nsnapshot: 7\npath: \"open\n",
                Malformed::Path(s("\"open")),
            ),
        ] {
            assert_eq!(parse(text.as_bytes()), Err(why), "{text:?}");
        }
        assert_eq!(
            parse(b"llm-apply-journal: 1\n\xff\n"),
            Err(Malformed::NotUtf8)
        );
        // What a recovery reports names the journal and says what is wrong, as before.
        let e = JournalError::Malformed {
            path: PathBuf::from("/r/.git/llm-apply/journal"),
            reason: Malformed::Nonce(s("xyz")),
        };
        assert_eq!(
            e.to_string(),
            "the journal /r/.git/llm-apply/journal is malformed: bad or second nonce line \"xyz\""
        );
    }
}

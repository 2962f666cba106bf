//! Where we are and what the files say: the work tree on disk, and the repository through gix.
//!
//! The planner reads files through the [`Files`] trait so pure planning tests can run on
//! in-memory files without a repository.

mod content;
mod index_id;
mod listing;
pub use crate::git::object_cache::SmallObjects;
pub(crate) mod stamp;
mod stored;

use crate::sys::mapped;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// A file's bytes, shared: the plan, the proof, the snapshot, the writer and the report all
/// hold the same content, so passing a state along never copies the file.
pub use content::{write_blob, Content, Cursor, Known, Part};
pub use index_id::IndexIds;
pub use stamp::Stamp;
pub use stored::{write_stored_blob, write_stored_object, TEMP_PREFIX as STORED_TEMP_PREFIX};

/// One file's current state in the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    /// The file's bytes.
    pub bytes: Content,
    /// 0o100644 or 0o100755 (git's view of the mode).
    pub mode: u32,
}

/// What lies at a path in the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Nothing there.
    Missing,
    /// A file as git sees it: a regular file, or a symlink inside the tree (its target).
    File(FileState),
    /// A symlink, a directory, or anything else we do not patch at text level.
    Other(&'static str),
}

/// Read access to the files a patch touches, by repository-relative path (`/`-separated).
pub trait Files {
    /// What lies at `path` now; `Err` only for what is broken, never for a missing file.
    fn read(&self, path: &str) -> io::Result<Entry>;
    /// Whether anything exists at `path` (used for prefix decisions and collision checks).
    fn exists(&self, path: &str) -> bool {
        !matches!(self.read(path), Ok(Entry::Missing))
    }
    /// Whether writing `path` would go through a symlink that leads out of the work tree.
    fn escapes(&self, _path: &str) -> bool {
        false
    }
    /// The first of `path`'s directories that is a symbolic link, if one is: the path lies
    /// beyond it, where git does not patch (it is no path git tracks, and it names a file that
    /// has another name too).
    fn beyond_link(&self, _path: &str) -> Option<String> {
        None
    }
    /// Paths that exist, for suggesting one when a patch names a missing path. Bounded in
    /// number; may be empty.
    fn known_paths(&self) -> Vec<String> {
        Vec::new()
    }
}

/// git's mode of a regular file.
pub const MODE_FILE: u32 = 0o100644;
/// git's mode of an executable file.
pub const MODE_EXEC: u32 = 0o100755;
/// A symbolic link: its "content" is the target, as git stores it.
pub const MODE_LINK: u32 = 0o120000;

/// Whether a link at `link` (relative to the top of the work tree) pointing at `target` stays
/// inside the work tree: a relative target that never climbs above the top.
pub fn link_stays_inside(link: &str, target: &[u8]) -> bool {
    let Ok(target) = std::str::from_utf8(target) else {
        return false;
    };
    if target.is_empty() || target.starts_with('/') {
        return false;
    }
    let mut depth: i64 = link.split('/').count() as i64 - 1;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            ".git" if depth == 0 => return false,
            _ => depth += 1,
        }
    }
    true
}

/// The work tree on disk, rooted at the repository's top level (or the current directory
/// outside a repository).
#[derive(Debug, Clone)]
pub struct WorkTree {
    /// The top level: repository-relative paths are joined to it.
    pub root: PathBuf,
    /// Set when the run will record what it reads: a big file's blob id and line count are
    /// then worked out on another thread as soon as it is read, while the plan is made.
    hash_reads: Option<gix::hash::Kind>,
    /// Where those ids may come from the index instead ([`IndexIds`]).
    index_ids: Option<std::sync::Arc<IndexIds>>,
    /// `root` resolved (no symbolic links), once asked for: every path a patch names is
    /// checked against it.
    real_root: std::sync::OnceLock<Option<PathBuf>>,
}

impl WorkTree {
    /// The work tree rooted at `root`, reading files as they are (nothing hashed ahead).
    pub fn new(root: impl Into<PathBuf>) -> WorkTree {
        WorkTree {
            root: root.into(),
            hash_reads: None,
            index_ids: None,
            real_root: std::sync::OnceLock::new(),
        }
    }

    /// This work tree, with every big file it reads hashed ahead ([`Content::hash_ahead`]),
    /// or its id taken from `index_ids` where that knows it.
    pub fn hashing_reads(self, kind: gix::hash::Kind, index_ids: Option<IndexIds>) -> WorkTree {
        WorkTree {
            hash_reads: Some(kind),
            index_ids: index_ids.map(std::sync::Arc::new),
            ..self
        }
    }

    /// The absolute path of a repository-relative one.
    pub fn abs(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }
}

#[cfg(unix)]
fn git_mode(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 {
        MODE_EXEC
    } else {
        MODE_FILE
    }
}

#[cfg(not(unix))]
fn git_mode(_meta: &std::fs::Metadata) -> u32 {
    MODE_FILE
}

impl WorkTree {
    /// Whether `path` holds exactly `state` (a regular file of these bytes and mode, or a
    /// link to this target), read in pieces and compared as it goes: a check of a large
    /// file that costs no copy of it.
    pub fn holds(&self, path: &str, state: &FileState) -> io::Result<bool> {
        use std::io::Read as _;
        if state.mode == MODE_LINK {
            return Ok(matches!(self.read(path)?, Entry::File(f) if f == *state));
        }
        let abs = self.abs(path);
        let meta = match std::fs::symlink_metadata(&abs) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) if e.raw_os_error() == Some(20) => return Ok(false),
            Err(e) => return Err(e),
        };
        if !meta.is_file()
            || git_mode(&meta) != state.mode
            || meta.len() != state.bytes.len() as u64
        {
            return Ok(false);
        }
        let still = state.bytes.stamp().is_some_and(|s| s.still(&meta));
        // Mapped bytes are the file's bytes now, not as they were: only the stamp can tell
        // that they did not change.
        if let Some(intact) = state.bytes.mapped_intact() {
            return Ok(still && intact);
        }
        if still {
            return Ok(true);
        }
        let mut file = std::fs::File::open(&abs)?;
        let mut want = state.bytes.reader();
        // No bigger than the file (and one byte more, to meet its end): zeroing 64 KiB to
        // compare a small file cost more than the comparison.
        let mut buf = vec![0u8; (state.bytes.len() + 1).min(1 << 16)];
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => return Ok(want.is_done()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if !want.eat(&buf[..n]) {
                return Ok(false);
            }
        }
    }
}

impl Files for WorkTree {
    fn read(&self, path: &str) -> io::Result<Entry> {
        let abs = self.abs(path);
        let meta = match std::fs::symlink_metadata(&abs) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Entry::Missing),
            // A path through a regular file ("a/b" where "a" is a file) cannot exist.
            Err(e) if e.raw_os_error() == Some(20) => return Ok(Entry::Missing),
            Err(e) => return Err(e),
        };
        if meta.file_type().is_symlink() {
            // A link inside the tree is a file whose content is its target, as git sees it;
            // one that leads out is not ours to patch.
            use std::os::unix::ffi::OsStrExt;
            let target = std::fs::read_link(&abs)?;
            let bytes = target.as_os_str().as_bytes().to_vec();
            if !link_stays_inside(path, &bytes) {
                return Ok(Entry::Other("symlink leading out of the work tree"));
            }
            return Ok(Entry::File(FileState {
                bytes: bytes.into(),
                mode: MODE_LINK,
            }));
        }
        if meta.is_dir() {
            return Ok(Entry::Other("directory"));
        }
        if !meta.is_file() {
            return Ok(Entry::Other("special file"));
        }
        let file = std::fs::File::open(&abs)?;
        let started = stamp::coarse_now();
        let before = file.metadata()?;
        if before.len() >= crate::sys::threads::BIG as u64 {
            crate::sys::threads::warm_for_big_work();
        }
        // A big file is mapped, not read, where its stamp vouches for the bytes mapped (so
        // that a later change of them shows); otherwise it is read.
        let stamp_now = |file: &std::fs::File| -> io::Result<Option<Stamp>> {
            Ok(match started {
                Some(t) => Stamp::of_read(&before, &file.metadata()?, t),
                None => None,
            })
        };
        let mapped = match usize::try_from(before.len()) {
            Ok(n) if n >= mapped::MAP_AT_LEAST && started.is_some() => {
                match mapped::Mapping::of(&file, n) {
                    Some(m) => stamp_now(&file)?.map(|stamp| Content::mapped(m, stamp)),
                    None => None,
                }
            }
            _ => None,
        };
        let bytes = match mapped {
            Some(c) => c,
            None => {
                let read = crate::text::scan::read_all(&file, before.len())?;
                Content::read_from(read, stamp_now(&file)?)
            }
        };
        if let Some(kind) = self.hash_reads {
            let known = match (&self.index_ids, bytes.stamp().copied()) {
                (Some(ids), Some(stamp)) => {
                    let (ids, path) = (ids.clone(), path.to_string());
                    Some(Box::new(move |c: &Content| ids.id(&path, &stamp, c.len())) as Known)
                }
                _ => None,
            };
            bytes.hash_read_ahead(kind, known);
        }
        Ok(Entry::File(FileState {
            bytes,
            mode: git_mode(&meta),
        }))
    }

    fn known_paths(&self) -> Vec<String> {
        listing::known_paths(&self.root)
    }

    fn beyond_link(&self, path: &str) -> Option<String> {
        let dirs = path.rsplit_once('/').map_or("", |(d, _)| d);
        let mut at = self.root.clone();
        for (i, part) in dirs.split('/').enumerate().filter(|(_, p)| !p.is_empty()) {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Some(dirs.split('/').take(i + 1).collect::<Vec<_>>().join("/"));
                }
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    }

    fn escapes(&self, path: &str) -> bool {
        // The deepest existing ancestor, resolved, must still be inside the resolved root.
        let Some(root) = self
            .real_root
            .get_or_init(|| self.root.canonicalize().ok())
            .as_deref()
        else {
            return true;
        };
        let mut p = self.abs(path);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            // The link itself is what a patch changes (its target, as git does); only one
            // that leads out of the tree is refused.
            use std::os::unix::ffi::OsStrExt;
            return std::fs::read_link(&p)
                .map_or(true, |t| !link_stays_inside(path, t.as_os_str().as_bytes()));
        }
        let mut popped = false;
        while !p.exists() {
            if !p.pop() {
                return true;
            }
            popped = true;
        }
        if no_link_below(&self.root, &p, !popped) {
            // Plain directories below the root: the path resolves to the resolved root
            // joined with them, which is inside it.
            return false;
        }
        match p.canonicalize() {
            Ok(real) => !real.starts_with(root),
            Err(_) => true,
        }
    }
}

/// Whether `p` lies below `root` through plain names (no `..`) of which none is a symbolic
/// link; `last_checked`: `p` itself is known not to be one.
fn no_link_below(root: &Path, p: &Path, last_checked: bool) -> bool {
    use std::path::Component;
    let Ok(below) = p.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<Component> = below.components().collect();
    if !parts.iter().all(|c| matches!(c, Component::Normal(_))) {
        return false;
    }
    let mut at = root.to_path_buf();
    let unchecked = parts.len() - usize::from(last_checked && !parts.is_empty());
    parts.iter().take(unchecked).all(|c| {
        at.push(c);
        std::fs::symlink_metadata(&at).is_ok_and(|m| !m.file_type().is_symlink())
    })
}

/// In-memory files, for tests of the pure stages.
#[derive(Debug, Clone, Default)]
pub struct MemFiles {
    /// Repository-relative path to file.
    pub files: BTreeMap<String, FileState>,
}

impl MemFiles {
    /// These files plus a regular file at `path` holding `text`.
    pub fn with(mut self, path: &str, text: &str) -> MemFiles {
        self.files.insert(
            path.to_string(),
            FileState {
                bytes: text.as_bytes().to_vec().into(),
                mode: MODE_FILE,
            },
        );
        self
    }
}

impl Files for MemFiles {
    fn read(&self, path: &str) -> io::Result<Entry> {
        Ok(match self.files.get(path) {
            Some(f) => Entry::File(f.clone()),
            None => Entry::Missing,
        })
    }
}

/// The repository around a directory, when there is one.
pub struct Repo {
    /// The repository, opened to read config as git does.
    pub repo: gix::Repository,
    /// The work tree's top level.
    pub work_dir: PathBuf,
    /// How the snapshot and the journal written into it reach the disk: not flushed as
    /// opened; a run sets it from its git config (`llm-apply.fsync`) before it writes.
    pub durability: crate::sys::durable::Durability,
    /// The index as this run first read it. Read by the run itself, not through the
    /// repository's shared copy, which a server keeps from call to call (`run/kept.rs`) and
    /// which is checked by modification time alone.
    index: std::cell::OnceCell<Option<gix::index::File>>,
}

/// Why the repository around a directory could not be opened.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("cannot open the git repository at {path}: {message}")]
    Open { path: PathBuf, message: String },
    #[error("{path} is inside a bare repository; git llm-apply needs a work tree")]
    Bare { path: PathBuf },
}

impl crate::patch::kinds::Kinded for RepoError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Repository
    }
}

impl Repo {
    /// Find the repository containing `dir`. `Ok(None)` when `dir` is not in one.
    pub fn discover(dir: &Path) -> Result<Option<Repo>, RepoError> {
        use gix::discover::upwards::Error as Up;
        let open_err = |message: String| RepoError::Open {
            path: dir.to_path_buf(),
            message,
        };
        let (found, trust) = match gix::discover::upwards(dir) {
            Ok(found) => found,
            Err(e) => {
                return match e.downcast_any_ref::<Up>() {
                    Some(
                        Up::NoGitRepository { .. }
                        | Up::NoGitRepositoryWithinCeiling { .. }
                        | Up::NoGitRepositoryWithinFs { .. },
                    ) => Ok(None),
                    _ => Err(open_err(e.to_string())),
                }
            }
        };
        // gix reads config as git does: the system file this git reads, and `git -c`'s.
        let repo = crate::git::config::open_discovered(dir, found, trust)
            .map_err(|e| open_err(e.to_string()))?
            .map_err(|e| open_err(e.to_string()))?;
        Repo::opened(repo, dir, SmallObjects::default()).map(Some)
    }

    /// The repository `repo`, found from `dir` (with the options [`Repo::discover`] uses),
    /// with the trees and commits `objects` keeps (from an earlier run on the same repository,
    /// for a server: `run/kept.rs`) and keeps from now on.
    pub fn opened(
        repo: gix::ThreadSafeRepository,
        dir: &Path,
        objects: SmallObjects,
    ) -> Result<Repo, RepoError> {
        let mut repo = repo.to_thread_local();
        // A run reads the same few trees and commits more than once (HEAD's tree for the
        // snapshot's two trees, its commit to peel and to read): each read is otherwise a
        // file opened, mapped and inflated again.
        repo.objects
            .set_object_cache(move || Box::new(objects.clone()));
        let work_dir = match repo.workdir() {
            Some(w) => w.to_path_buf(),
            None => {
                return Err(RepoError::Bare {
                    path: dir.to_path_buf(),
                })
            }
        };
        Ok(Repo {
            repo,
            work_dir,
            durability: crate::sys::durable::Durability::default(),
            index: std::cell::OnceCell::new(),
        })
    }

    /// The index, read once by this run (`None`: there is none, or it cannot be read).
    pub fn index(&self) -> Option<&gix::index::File> {
        self.index
            .get_or_init(|| self.repo.open_index().ok())
            .as_ref()
    }

    /// The repository's git dir (this worktree's own, under `.git/worktrees/` for a linked one).
    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// The directory shared by all worktrees (refs and objects live here).
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// Which of `paths` the index holds in conflict, with the stages it has of each (1 base,
    /// 2 ours, 3 theirs). The index is read only in the middle of a merge, cherry-pick,
    /// revert or rebase, where git leaves such entries, so an apply elsewhere pays nothing.
    pub fn unmerged(&self, paths: &[&str]) -> Vec<(String, Vec<u32>)> {
        let dir = self.repo.git_dir();
        let states = [
            "MERGE_HEAD",
            "CHERRY_PICK_HEAD",
            "REVERT_HEAD",
            "rebase-merge",
            "rebase-apply",
        ];
        if paths.is_empty() || !states.iter().any(|s| dir.join(s).exists()) {
            return Vec::new();
        }
        let Some(index) = self.index() else {
            return Vec::new();
        };
        let mut out: Vec<(String, Vec<u32>)> = Vec::new();
        for e in index.entries() {
            let stage = e.stage_raw();
            if stage == 0 {
                continue;
            }
            let path = e.path(index).to_string();
            if !paths.contains(&path.as_str()) {
                continue;
            }
            match out.last_mut() {
                Some((p, stages)) if *p == path => stages.push(stage),
                _ => out.push((path, vec![stage])),
            }
        }
        out
    }
}

//! Ghost commits under `refs/llm-apply/<n>`: the pre-apply state of every path an apply
//! touches, written through gix before the first write, so that any apply can be undone.
//! Also the per-worktree lock and journal that make applies serial and crash-safe.
//!
//! # Layout
//!
//! - `refs/llm-apply/<n>` — snapshot `n` (plain decimal, 1, 2, 3, …, never reused). It always
//!   points at a commit whose tree is HEAD's tree with each touched path set to its work-tree
//!   content and mode before the apply, or removed where no file was. Its parents are HEAD
//!   (none on an unborn branch) and, last, a *post commit* whose tree is HEAD's tree with the
//!   touched paths as the apply leaves them: that keeps the post-apply blobs reachable, so a
//!   three-way undo can still read them after `git gc`, and `git diff refs/llm-apply/<n>
//!   refs/llm-apply/<n>^2` shows what the apply did (`^1` on an unborn branch).
//!   The message carries the metadata; see [`format`](self#metadata) below.
//! - `refs/llm-apply-undone/<n>` — present once snapshot `n` was undone; a commit whose parent
//!   is snapshot `n`'s commit and whose message records when. Creating it is atomic and fails
//!   when it exists, which is how a second undo is detected, also across processes.
//! - `<common git dir>/llm-apply/last-sequence` — the highest sequence ever handed out, so
//!   numbers keep rising even after [`prune`] removed every ref.
//! - `<worktree git dir>/llm-apply/{lock,journal}` — see [`Lock`] and [`Journal`]. Refs and
//!   objects are shared by all worktrees; the lock and journal belong to one.
//!
//! # Metadata
//!
//! A summary line for people, then a trailer block of `llm-apply-*` keys: format version,
//! sequence, time, tool version, a nonce that makes the commit unique, patch sha256,
//! optional intent, files/added/removed counts, HEAD, post commit, and one
//! `llm-apply-path: <before> <after> <path>` line per touched path, where a state is
//! `absent` or `<mode>:<blob id>`. The full grammar is in the `format` submodule's
//! documentation; parsing rejects anything else with a [`MetaError`].
//!
//! # Use
//!
//! ```text
//! let lock = Lock::acquire(&repo, timeout)?;              // one run per worktree at a time
//! if let Some(p) = Journal::pending(&repo)? {              // an earlier run died mid-apply
//!     let snap = snapshot::read(&repo, p.snapshot())?;     //   restore from it, then
//!     p.clear(&lock)?;
//! }
//! let id = snapshot::create(&repo, &touched, &meta)?;     // before the first write
//! let journal = Journal::begin(&repo, &lock, id, paths)?;
//! /* write the files */
//! journal.finish()?;                                       // after the last write
//! snapshot::prune(&repo, snapshot::keep_from_config(&repo)?)?;
//! ```
//!
//! # Cost
//!
//! Writing a snapshot reads and writes only the trees on the touched paths' way from the root
//! (the tree editor loads those, never the whole tree), plus one blob per touched file.

mod digest;
pub(crate) mod fault;
mod format;
pub(crate) use format::one_line;
pub use format::valid_session;
mod journal;
mod lock;
mod states;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::str::FromStr;

use gix::date::Time;
use gix::objs::tree::EntryKind;
use gix::objs::Kind;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use gix::ObjectId;

pub use digest::{ParseDigestError, PatchDigest};
pub use format::{MetaError, Recorded, FORMAT_VERSION};
pub use journal::{Journal, JournalError, Pending};
pub use lock::{process_is_alive, Holder, Lock, LockError};
pub use states::SnapshotStates;

use crate::repo::{Entry, FileState, Files, Repo, WorkTree, MODE_EXEC, MODE_FILE, MODE_LINK};
pub use crate::text::textdiff::LineCounts;

/// Where snapshot refs live; the rest of the name is the sequence number.
pub const REF_PREFIX: &str = "refs/llm-apply/";
/// Where undo markers live, named like the snapshot they mark.
pub const UNDONE_REF_PREFIX: &str = "refs/llm-apply-undone/";
/// The git config key that says how many snapshots [`prune`] keeps.
pub const KEEP_CONFIG_KEY: &str = "llm-apply.keep";
/// How many snapshots are kept when `llm-apply.keep` is not set.
pub const DEFAULT_KEEP: usize = 50;
/// The fixed author and committer of ghost commits, so they never pass for the user's work.
pub const IDENTITY_NAME: &str = "git-llm-apply";
/// The email of that identity.
pub const IDENTITY_EMAIL: &str = "git-llm-apply@localhost";

const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");
const SEQUENCE_FILE: &str = "last-sequence";
/// Bound on retries when other processes take the numbers we try; each retry means another
/// process created a snapshot in between, so this is never reached in practice.
const MAX_SEQUENCE_ATTEMPTS: u32 = 64;

/// The number of a snapshot, as shown to users and used in its ref name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SnapshotId(u64);

impl SnapshotId {
    /// The number itself.
    pub fn sequence(self) -> u64 {
        self.0
    }

    /// `refs/llm-apply/<n>`.
    pub fn ref_name(self) -> String {
        format!("{REF_PREFIX}{}", self.0)
    }

    /// `refs/llm-apply-undone/<n>`.
    pub fn undone_ref_name(self) -> String {
        format!("{UNDONE_REF_PREFIX}{}", self.0)
    }
}

impl fmt::Display for SnapshotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A snapshot id that is neither a number nor a snapshot ref; holds the text given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a snapshot id (a number from 1 up, or refs/llm-apply/<number>)")]
pub struct ParseIdError(pub String);

impl crate::patch::kinds::Kinded for ParseIdError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        // A malformed ID is a usage error (exit 2), not a refusal.
        crate::patch::kinds::ErrorKind::Usage
    }
}

impl FromStr for SnapshotId {
    type Err = ParseIdError;

    /// `7` or `refs/llm-apply/7`.
    fn from_str(s: &str) -> Result<SnapshotId, ParseIdError> {
        let digits = s.strip_prefix(REF_PREFIX).unwrap_or(s);
        parse_sequence(digits)
            .map(SnapshotId)
            .ok_or_else(|| ParseIdError(s.to_string()))
    }
}

/// Decimal without sign or leading zeros, from 1: one spelling per number, as in ref names.
fn parse_sequence(s: &str) -> Option<u64> {
    let canonical = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0');
    canonical.then(|| s.parse().ok()).flatten()
}

/// A path the apply will write, with the state the apply will leave it in. Both sides of a
/// rename are touched paths (the old one with `after: None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// The state the plan read, when known: while the work tree still holds it, it is
    /// recorded from memory (a large file is then compared in pieces, not read again whole).
    pub before: Option<FileState>,
    /// Content and mode after the apply; `None` when the apply leaves no file there.
    pub after: Option<FileState>,
}

/// What a snapshot says about its apply, beyond the paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// The SHA-256 of the patch text, to tell which patch an apply came from.
    pub patch_sha256: PatchDigest,
    /// The first line of the patch's prose, if it had any; reduced to one trimmed line.
    pub intent: Option<String>,
    /// Set when this snapshot is taken before undoing another: the one being undone.
    pub undoes: Option<SnapshotId>,
    /// The session the apply was made in (`--session`).
    pub session: Option<String>,
    /// Files changed as `log` counts them (a rename is one file, two touched paths).
    pub files: u64,
    /// Lines added, as the report counted them.
    pub added: u64,
    /// Lines removed, as the report counted them.
    pub removed: u64,
    /// The index entries an `--index` apply changes (empty otherwise).
    pub index: Vec<IndexChange>,
    /// Per touched path, the lines the apply adds and removes there, as its report counts
    /// them; undo reports them reversed instead of diffing the file. A path missing here is
    /// recorded without counts (undo then counts by diff).
    pub lines: BTreeMap<String, LineCounts>,
}

/// One index entry (stage 0) an `--index` apply changes: what it held before and what the
/// apply stages. Blob ids only; `Absent` when there is no entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexChange {
    /// The index path, relative to the top level.
    pub path: String,
    /// The entry before the apply.
    pub before: Recorded,
    /// The entry the apply stages.
    pub after: Recorded,
}

/// The name a snapshot records for the work tree it was made in: the work tree's absolute
/// path, with symlinks resolved so two spellings of one directory compare equal.
pub fn worktree_name(repo: &Repo) -> String {
    let path = std::fs::canonicalize(&repo.work_dir).unwrap_or_else(|_| repo.work_dir.clone());
    let text = path.to_string_lossy().into_owned();
    match text.trim_end_matches('/') {
        "" => "/".to_string(),
        trimmed => trimmed.to_string(),
    }
}

/// Whether this snapshot was made in the work tree named `worktree` (see [`worktree_name`]).
/// Snapshots older than the record of worktrees belong to every worktree, as they did.
pub fn made_in(info: &SnapshotInfo, worktree: &str) -> bool {
    info.worktree.as_deref().is_none_or(|w| w == worktree)
}

/// Whether a snapshot's apply still stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It still stands (as far as the refs say: the files may have changed since).
    Applied,
    /// An undo rolled it back.
    #[allow(missing_docs)] // `time`: when it was undone (its marker's date)
    Undone { time: Time },
}

/// A snapshot as `log` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// The number `undo` takes.
    pub id: SnapshotId,
    /// The ghost commit that holds the snapshot.
    pub commit: ObjectId,
    /// When the snapshot was taken, with the local offset.
    pub time: Time,
    /// The version of git-llm-apply that made it.
    pub tool_version: String,
    /// The SHA-256 of the patch the apply came from.
    pub patch_sha256: PatchDigest,
    /// The first line of the patch's prose, if it had any.
    pub intent: Option<String>,
    /// For the snapshot taken before an undo: the snapshot that undo rolled back.
    pub undoes: Option<SnapshotId>,
    /// The session the apply was made in (`--session`).
    pub session: Option<String>,
    /// Files changed (a rename is one file).
    pub files: u64,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// The touched paths, in the order the apply gave them.
    pub paths: Vec<String>,
    /// Whether the apply still stands.
    pub status: Status,
    /// The work tree the apply wrote ([`worktree_name`]); `None` for snapshots made before
    /// this was recorded.
    pub worktree: Option<String>,
}

/// One touched path of a parsed snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotPath {
    /// The path, relative to the top level.
    pub path: String,
    /// Content and mode before the apply; `None` when there was no file.
    pub before: Option<FileState>,
    /// The same state as blob id and mode, for comparisons without reading content.
    pub before_blob: Recorded,
    /// Blob id and mode the apply left; the bytes come from [`read_blob`].
    pub after: Recorded,
    /// The lines the apply added and removed at this path; `None` in snapshots made before
    /// they were recorded, or where the apply could not tell.
    pub lines: Option<LineCounts>,
}

/// A snapshot read back and checked against its commit and trees. Only [`read`] makes one,
/// so code that restores files can demand it (nothing restores from an unchecked string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    info: SnapshotInfo,
    head: Option<ObjectId>,
    post_commit: ObjectId,
    paths: Vec<SnapshotPath>,
    index: Vec<IndexChange>,
}

impl Snapshot {
    /// The snapshot's number.
    pub fn id(&self) -> SnapshotId {
        self.info.id
    }

    /// What `log` shows about it.
    pub fn info(&self) -> &SnapshotInfo {
        &self.info
    }

    /// HEAD when the snapshot was taken; `None` on an unborn branch.
    pub fn head(&self) -> Option<ObjectId> {
        self.head
    }

    /// The commit whose tree holds the touched paths as the apply left them.
    pub fn post_commit(&self) -> ObjectId {
        self.post_commit
    }

    /// The touched paths, in the order the apply gave them.
    pub fn paths(&self) -> &[SnapshotPath] {
        &self.paths
    }

    /// The index entries the apply staged (`--index`), to put back on undo.
    pub fn index_changes(&self) -> &[IndexChange] {
        &self.index
    }

    /// One touched path's record; `None` when the apply did not touch it.
    pub fn path(&self, path: &str) -> Option<&SnapshotPath> {
        self.paths.iter().find(|p| p.path == path)
    }

    /// Content and mode the apply left at `entry`'s path; `None` when it left no file.
    pub fn after_content(
        &self,
        repo: &Repo,
        entry: &SnapshotPath,
    ) -> Result<Option<FileState>, SnapshotError> {
        match entry.after {
            Recorded::Absent => Ok(None),
            Recorded::Blob { id, mode } => Ok(Some(FileState {
                bytes: read_blob(repo, id)?.into(),
                mode,
            })),
        }
    }
}

/// Why a snapshot could not be taken, read, listed or pruned.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("nothing to snapshot: no touched path")]
    NothingTouched,
    #[error("cannot snapshot {path:?}: {reason}")]
    InvalidPath { path: String, reason: String },
    #[error("the path {path:?} is touched twice")]
    DuplicatePath { path: String },
    #[error("after the apply {file:?} would be a file and so would {below:?} below it")]
    PathConflict { file: String, below: String },
    #[error("cannot snapshot {path:?}: it is a {kind} in the work tree")]
    Unsupported { path: String, kind: &'static str },
    #[error("mode {mode:o} of {path:?} is not a regular file mode (100644 or 100755)")]
    InvalidMode { path: String, mode: u32 },
    #[error("cannot read {path:?} in the work tree: {source}")]
    ReadWorkTree {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot {action}: {source}")]
    Git {
        action: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("cannot use {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("there is no snapshot {id} ({} does not exist)", id.ref_name())]
    NotFound { id: SnapshotId },
    #[error("{name} does not point at a commit but at {found}")]
    NotACommit { name: String, found: String },
    #[error("{name}: malformed metadata: {source}")]
    Malformed {
        name: String,
        #[source]
        source: MetaError,
    },
    #[error("{name}: {reason}")]
    Inconsistent { name: String, reason: String },
    #[error("snapshot {id} was already undone")]
    AlreadyUndone { id: SnapshotId },
    #[error("no free snapshot number after {attempts} attempts (other runs keep taking them)")]
    NoFreeSequence { attempts: u32 },
    #[error("git config {key} is {value:?}, not a number of snapshots to keep (0 or more)")]
    Config { key: &'static str, value: String },
}

impl crate::patch::kinds::Kinded for SnapshotError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        use crate::patch::kinds::ErrorKind;
        match self {
            SnapshotError::Config { .. } => ErrorKind::Config,
            _ => ErrorKind::Snapshot,
        }
    }
}

fn git_err<E>(action: impl Into<String>) -> impl FnOnce(E) -> SnapshotError
where
    E: std::error::Error + Send + Sync + 'static,
{
    let action = action.into();
    move |e| SnapshotError::Git {
        action,
        source: Box::new(e),
    }
}

/// This worktree's private state directory: `<worktree git dir>/llm-apply`.
pub(crate) fn state_dir(repo: &Repo) -> PathBuf {
    repo.git_dir().join("llm-apply")
}

/// Shared state of all worktrees: `<common git dir>/llm-apply`.
fn shared_dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("llm-apply")
}

fn signature(time: Time) -> gix::actor::Signature {
    gix::actor::Signature {
        name: IDENTITY_NAME.into(),
        email: IDENTITY_EMAIL.into(),
        time,
    }
}

/// Record the current work-tree state of every touched path as snapshot N (returned), with
/// the post-apply state from `touched[..].after`. Writes objects and one ref; never the index,
/// HEAD or a work-tree file.
pub fn create(repo: &Repo, touched: &[Touched], meta: &Meta) -> Result<SnapshotId, SnapshotError> {
    create_with_nonce(repo, touched, meta, &new_nonce(), &mut Ahead::default()).map(|(id, _)| id)
}

/// A fresh nonce for [`create_with_nonce`]: 16 hex digits, different on every call.
pub fn new_nonce() -> String {
    format::new_nonce()
}

/// What a big file's snapshot costs that can begin before the snapshot is made: for the
/// states the plan read, whether the work tree still holds them (and their blob ids), found
/// on another thread while the journal is started and the new files are staged. Dropping
/// this waits for the thread.
#[derive(Default)]
pub struct Ahead {
    /// The touched paths, in order, and the thread finding [`known_ids`] for them.
    known: Option<(Vec<String>, KnownIds)>,
}

/// The thread finding [`known_ids`].
type KnownIds = crate::sys::threads::Handle<Vec<io::Result<Option<ObjectId>>>>;

impl Drop for Ahead {
    fn drop(&mut self) {
        if let Some((_, handle)) = self.known.take() {
            let _ = handle.join();
        }
    }
}

/// For each touched path, whether the work tree still holds the state the plan read, and
/// then that state's blob id (`None`: it does not, or the plan read none).
fn known_ids(
    work: &WorkTree,
    touched: &[Touched],
    kind: gix::hash::Kind,
) -> Vec<io::Result<Option<ObjectId>>> {
    touched
        .iter()
        .map(|t| match &t.before {
            // Hashing fails only when SHA-1 collision detection fires: an error, as a blob
            // write would give.
            Some(k) if work.holds(&t.path, k)? => k.bytes.blob_id(kind).map(Some),
            _ => Ok(None),
        })
        .collect()
}

/// Whether the states the plan read are big enough (1 MiB in all) to be compared with the
/// work tree and hashed on a thread of their own.
fn big_before(touched: &[Touched]) -> bool {
    touched
        .iter()
        .filter_map(|t| t.before.as_ref())
        .map(|b| b.bytes.len())
        .sum::<usize>()
        >= AHEAD_AT_LEAST
}

/// From this size on a post-state's blob is written uncompressed (see [`write_after`]), and
/// the states a plan read are compared with the work tree on a thread of their own.
const AHEAD_AT_LEAST: usize = 1 << 20;

/// When the states the plan read are big, start comparing them with the work tree (and
/// finding their blob ids) on another thread; [`create_with_nonce`] given the result waits
/// for it instead of doing it. Where a thread cannot be started, that is done then.
pub fn compare_ahead(repo: &Repo, touched: &[Touched]) -> Ahead {
    let mut ahead = Ahead::default();
    if big_before(touched) {
        let (work, mine) = (WorkTree::new(&repo.work_dir), touched.to_vec());
        let kind = repo.repo.object_hash();
        let spawned = crate::sys::threads::spawn(move || known_ids(&work, &mine, kind));
        if let Ok(handle) = spawned {
            let paths = touched.iter().map(|t| t.path.clone()).collect();
            ahead.known = Some((paths, handle));
        }
    }
    ahead
}

/// Write a post-state's blob unless the repository has it. A big regular file's is stored
/// uncompressed (zlib's stored blocks, which every git reads), written while its id may
/// still be being hashed on another thread: compressing ten megabytes at git's level for
/// loose objects (1) takes longer than the rest of an apply. Where `core.looseCompression`
/// or `core.compression` asks for a level, the blob goes through gix's loose object store
/// at that level.
fn write_after(repo: &Repo, file: &FileState) -> Result<ObjectId, SnapshotError> {
    let r = &repo.repo;
    let big =
        file.bytes.len() >= AHEAD_AT_LEAST && (file.mode == MODE_FILE || file.mode == MODE_EXEC);
    if !big {
        return write_blob(r, &file.bytes);
    }
    let kind = r.object_hash();
    let Some(objects) = stored_objects(r) else {
        let loose = gix::odb::loose::Store::at_opts(
            r.objects.store_ref().path(),
            kind,
            gix::odb::loose::Options {
                alloc_limit_bytes: None,
                compression: r.objects.loose_compression,
            },
        );
        return write_loose_blob(&loose, &file.bytes);
    };
    fault::mutation("object: blob");
    let written = || fault::mutation("object: blob: name its temporary file");
    let flush = repo.durability.fsync;
    crate::repo::write_stored_blob(&objects, kind, &file.bytes, flush, written).map_err(|e| {
        SnapshotError::Git {
            action: "write a blob".into(),
            source: e.into(),
        }
    })
}

/// [`create`], with the nonce the snapshot commit carries given (a journal written before
/// the snapshot names it, so a recovery can find a snapshot whose number it never learnt)
/// and the comparison [`compare_ahead`] started.
pub fn create_with_nonce(
    repo: &Repo,
    touched: &[Touched],
    meta: &Meta,
    nonce: &str,
    ahead: &mut Ahead,
) -> Result<(SnapshotId, Listing), SnapshotError> {
    if touched.is_empty() {
        return Err(SnapshotError::NothingTouched);
    }
    check_paths(touched)?;
    // The number first: finding it reads every snapshot ref, which costs nothing here while
    // the new contents' ids are still being hashed (a number taken meanwhile by another
    // process is skipped below).
    let listing = Listing::read(repo)?;
    let sequence = listing.next_sequence();
    let r = &repo.repo;
    let work = WorkTree::new(&repo.work_dir);

    let (head, base_tree) = match head_commit(r)? {
        Some((commit, tree)) => (Some(commit), tree),
        None => (None, ObjectId::empty_tree(r.object_hash())),
    };

    // Whether the work tree still holds each state the plan read, and that state's blob id,
    // are found on a second thread (for big files) while this one writes the post-states,
    // unless a thread that `compare_ahead` started for these paths is at it already.
    let hash_kind = r.object_hash();
    let started = ahead.known.take().and_then(|(paths, handle)| {
        let same = paths.iter().eq(touched.iter().map(|t| &t.path));
        let found = handle.join().expect("comparing and hashing do not panic");
        same.then_some(found)
    });
    let find = || known_ids(&work, touched, hash_kind);
    let (known, afters) = std::thread::scope(|s| {
        let known = (started.is_none() && big_before(touched)).then(|| s.spawn(find));
        let afters: Vec<Result<Recorded, SnapshotError>> =
            touched.iter().map(|t| record_after(repo, t)).collect();
        let known = match (known, started) {
            (Some(k), _) => k.join().expect("comparing and hashing do not panic"),
            (None, Some(found)) => found,
            (None, None) => find(),
        };
        (known, afters)
    });

    let mut records = Vec::with_capacity(touched.len());
    for ((t, known), after) in touched.iter().zip(known).zip(afters) {
        let known = known.map_err(|source| SnapshotError::ReadWorkTree {
            path: t.path.clone(),
            source,
        })?;
        let before = match (known, &t.before) {
            // Still the plan's state: recorded from memory, written only if git lacks it.
            (Some(id), Some(k)) if has_without_refresh(r, id) => {
                Recorded::Blob { id, mode: k.mode }
            }
            (Some(_), Some(k)) => Recorded::Blob {
                id: write_blob(r, &k.bytes)?,
                mode: k.mode,
            },
            _ => record_work_tree(r, &work, &t.path)?,
        };
        records.push(format::PathRecord {
            path: t.path.clone(),
            before,
            after: after?,
            lines: meta.lines.get(&t.path).copied(),
        });
    }

    let time = now_local();
    // Every object the snapshot's commit reaches that this run may have written: flushed
    // to disk before the ref names it, when writes are flushed.
    let mut written: Vec<ObjectId> = records
        .iter()
        .flat_map(|p| [p.before, p.after])
        .filter_map(|s| match s {
            Recorded::Blob { id, .. } => Some(id),
            Recorded::Absent => None,
        })
        .collect();
    // Files as HEAD has them (the first apply to them since the last commit) leave HEAD's
    // tree as the pre-apply tree: found by looking the paths up, with no tree rebuilt, hashed
    // and looked for in the store. (The post-apply tree differs from it wherever the apply
    // changed something, so it is built whatever.) Not on an unborn branch: the empty tree
    // is one no object file may hold yet, and the editor writes it.
    let befores = records.iter().map(|p| (p.path.as_str(), p.before));
    let pre_tree = if head.is_some() && holds_already(r, base_tree, befores.clone()) {
        base_tree
    } else {
        edit_tree(r, base_tree, befores, &mut written)?
    };
    let afters = records.iter().map(|p| (p.path.as_str(), p.after));
    let post_tree = match splice_tree(r, base_tree, afters.clone(), &mut written)? {
        Some(tree) => tree,
        None => edit_tree(r, base_tree, afters, &mut written)?,
    };
    let post_commit = write_commit(
        r,
        post_tree,
        head.into_iter().collect(),
        format!(
            "llm-apply post-apply state\n\nThe touched paths as the apply of patch {} left them.\n",
            meta.patch_sha256
        ),
        time,
    )?;

    let mut record = format::SnapshotRecord {
        sequence,
        time,
        tool_version: TOOL_VERSION.to_string(),
        nonce: nonce.to_string(),
        patch_sha256: meta.patch_sha256,
        intent: meta.intent.as_deref().and_then(format::one_line),
        undoes: meta.undoes.map(SnapshotId::sequence),
        session: meta.session.clone(),
        files: meta.files,
        added: meta.added,
        removed: meta.removed,
        head,
        post_commit,
        paths: records,
        worktree: Some(worktree_name(repo)),
        index: index_records(&meta.index),
    };
    let parents: Vec<ObjectId> = head.into_iter().chain([post_commit]).collect();
    for _ in 0..MAX_SEQUENCE_ATTEMPTS {
        let message = format::render_snapshot(&record);
        let commit = write_commit(r, pre_tree, parents.clone(), message, time)?;
        let id = SnapshotId(record.sequence);
        flush_loose(repo, written.iter().chain([&post_commit, &commit]))?;
        if create_ref(r, &id.ref_name(), commit, time)? {
            flush_ref(repo, &id.ref_name())?;
            return Ok((id, listing.taken(repo, id.0)));
        }
        record.sequence += 1;
    }
    Err(SnapshotError::NoFreeSequence {
        attempts: MAX_SEQUENCE_ATTEMPTS,
    })
}

/// The index entries an `--index` apply staged, as the snapshot records them.
fn index_records(index: &[IndexChange]) -> Vec<format::PathRecord> {
    index
        .iter()
        .map(|c| format::PathRecord {
            path: c.path.clone(),
            before: c.before,
            after: c.after,
            lines: None,
        })
        .collect()
}

fn check_paths(touched: &[Touched]) -> Result<(), SnapshotError> {
    let options = gix::validate::path::component::Options {
        // Names that are merely awkward on Windows are legal in a repository on other systems;
        // what must never pass are names that git itself would read as `.git`.
        protect_windows: cfg!(windows),
        protect_hfs: true,
        protect_ntfs: true,
    };
    let mut seen = HashSet::new();
    for t in touched {
        let invalid = |reason: String| SnapshotError::InvalidPath {
            path: t.path.clone(),
            reason,
        };
        if t.path.is_empty() {
            return Err(invalid("the path is empty".to_string()));
        }
        for component in t.path.split('/') {
            gix::validate::path::component(component.into(), None, options)
                .map_err(|e| invalid(e.to_string()))?;
        }
        if !seen.insert(t.path.as_str()) {
            return Err(SnapshotError::DuplicatePath {
                path: t.path.clone(),
            });
        }
    }
    // A file cannot have files below it; the tree editor would silently turn it into a
    // directory, so the snapshot would not hold what its metadata says.
    let files_after: HashSet<&str> = touched
        .iter()
        .filter(|t| t.after.is_some())
        .map(|t| t.path.as_str())
        .collect();
    for below in &files_after {
        for (i, _) in below.match_indices('/') {
            if let Some(file) = files_after.get(&below[..i]) {
                return Err(SnapshotError::PathConflict {
                    file: file.to_string(),
                    below: below.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// HEAD's commit and its tree, `None` on an unborn branch; detached HEAD is just a commit.
fn head_commit(r: &gix::Repository) -> Result<Option<(ObjectId, ObjectId)>, SnapshotError> {
    let mut head = r.head().map_err(git_err("read HEAD"))?;
    if head.is_unborn() {
        return Ok(None);
    }
    let commit = head
        .peel_to_commit()
        .map_err(git_err("resolve HEAD to a commit"))?;
    let tree = commit.tree_id().map_err(git_err("read HEAD's tree"))?;
    Ok(Some((commit.id, tree.detach())))
}

/// What the work tree holds at `path`, as a snapshot records it (its blob written).
fn record_work_tree(
    r: &gix::Repository,
    work: &WorkTree,
    path: &str,
) -> Result<Recorded, SnapshotError> {
    match work.read(path) {
        Ok(Entry::File(file)) => Ok(Recorded::Blob {
            id: write_blob(r, &file.bytes)?,
            mode: file.mode,
        }),
        Ok(Entry::Missing) => Ok(Recorded::Absent),
        // A directory where the apply puts a file (after deleting what was in it): there
        // was no file at this path, and the directory's own files are touched paths too.
        Ok(Entry::Other("directory")) => Ok(Recorded::Absent),
        Ok(Entry::Other(kind)) => Err(SnapshotError::Unsupported {
            path: path.to_string(),
            kind,
        }),
        Err(source) => Err(SnapshotError::ReadWorkTree {
            path: path.to_string(),
            source,
        }),
    }
}

/// The state the apply leaves at a touched path, its blob written.
fn record_after(repo: &Repo, t: &Touched) -> Result<Recorded, SnapshotError> {
    match &t.after {
        None => Ok(Recorded::Absent),
        Some(file) => {
            if file.mode != MODE_FILE && file.mode != MODE_EXEC && file.mode != MODE_LINK {
                return Err(SnapshotError::InvalidMode {
                    path: t.path.clone(),
                    mode: file.mode,
                });
            }
            Ok(Recorded::Blob {
                id: write_after(repo, file)?,
                mode: file.mode,
            })
        }
    }
}

/// Now, at the local time zone's offset, as git dates a commit. The offset comes from the C
/// library (a lookup in the zone file `TZ` or /etc/localtime names), not from a walk of the
/// whole zone database.
#[cfg(unix)]
fn now_local() -> Time {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let t = seconds as libc::time_t;
    // SAFETY: `tm` is plain data, zeroed; `localtime_r` fills it or returns null.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let filled = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    match i32::try_from(tm.tm_gmtoff) {
        Ok(offset) if filled => Time { seconds, offset },
        _ => Time::now_local_or_utc(),
    }
}

#[cfg(not(unix))]
fn now_local() -> Time {
    Time::now_local_or_utc()
}

/// Whether the repository has object `id`, asked before writing it: packs that appeared since
/// the run opened the repository are not looked for (a new object always misses, and each
/// miss would list the pack directory again). One missed is written loose, which git allows.
fn has_without_refresh(r: &gix::Repository, id: ObjectId) -> bool {
    id.is_empty_tree() || r.objects.exists_without_refresh(&id)
}

fn write_blob(
    r: &gix::Repository,
    bytes: &crate::repo::Content,
) -> Result<ObjectId, SnapshotError> {
    fault::mutation("object: blob");
    let failed = |source| SnapshotError::Git {
        action: "write a blob".into(),
        source,
    };
    if bytes.len() < STORED_BELOW {
        if let Some(objects) = stored_objects(r) {
            let kind = r.object_hash();
            let id = bytes.blob_id(kind).map_err(|e| failed(e.into()))?;
            if has_without_refresh(r, id) {
                return Ok(id);
            }
            return crate::repo::write_stored_object(&objects, kind, Kind::Blob, bytes)
                .map_err(|e| failed(e.into()));
        }
    }
    crate::repo::write_blob(r, bytes).map_err(failed)
}

/// Below this size a blob goes uncompressed, as trees and commits do ([`stored_objects`]):
/// compressing it saves less than setting up the compressor costs.
const STORED_BELOW: usize = 16 << 10;

/// [`write_blob`] into the loose object store alone: a blob that is already loose is not
/// written again. One that only a pack holds is, which git allows (`git prune-packed`
/// drops the loose copy).
fn write_loose_blob(
    loose: &gix::odb::loose::Store,
    bytes: &crate::repo::Content,
) -> Result<ObjectId, SnapshotError> {
    use gix::objs::Write as _;
    fault::mutation("object: blob");
    let failed = |source| SnapshotError::Git {
        action: "write a blob".into(),
        source,
    };
    let id = bytes
        .blob_id(loose.object_hash())
        .map_err(|e| failed(e.into()))?;
    if loose.contains(&id) {
        return Ok(id);
    }
    // A mapped file's bytes are written from a copy checked to be what was hashed (see
    // `write_blob`).
    let held = bytes
        .held()
        .map_err(|e| failed(e.into()))?
        .map(crate::repo::Content::new);
    let mut from = held.as_ref().unwrap_or(bytes).reader();
    loose
        .write_stream_with_known_id(gix::objs::Kind::Blob, bytes.len() as u64, &mut from, id)
        .map_err(|e| failed(e.into()))
}

/// When writes are flushed ([`Repo::durability`]), put each of `ids` that is a loose object
/// on disk, and the directories naming them (gix writes objects without flushing them). An
/// id only a pack holds was not written by this run.
fn flush_loose<'i>(
    repo: &Repo,
    ids: impl IntoIterator<Item = &'i ObjectId>,
) -> Result<(), SnapshotError> {
    let durability = repo.durability;
    if !durability.fsync {
        return Ok(());
    }
    let objects = repo.repo.objects.store_ref().path();
    let mut dirs = std::collections::BTreeSet::new();
    for id in ids {
        let hex = id.to_hex().to_string();
        let dir = objects.join(&hex[..2]);
        match std::fs::File::open(dir.join(&hex[2..])) {
            Ok(f) => durability
                .file(&f)
                .map_err(git_err("flush an object to disk"))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(git_err("flush an object to disk")(e)),
        }
        dirs.insert(dir);
    }
    for dir in &dirs {
        durability.dir(dir);
    }
    durability.dir(objects);
    Ok(())
}

/// When writes are flushed, put the loose ref `name` on disk (gix writes refs without
/// flushing them).
fn flush_ref(repo: &Repo, name: &str) -> Result<(), SnapshotError> {
    let durability = repo.durability;
    if !durability.fsync {
        return Ok(());
    }
    let path = repo.common_dir().join(name);
    let f = std::fs::File::open(&path).map_err(git_err(format!("flush {name} to disk")))?;
    durability
        .file(&f)
        .map_err(git_err(format!("flush {name} to disk")))?;
    if let Some(dir) = path.parent() {
        durability.dir(dir);
    }
    Ok(())
}

/// `base` with each path set to its state: removals first, so removing `a` (a file that became
/// a directory) cannot drop an insertion at `a/b`. Only trees along the paths are loaded, and
/// entries are not re-validated one by one (that would cost a lookup per entry of every
/// changed tree); the paths were validated in [`check_paths`] and the blobs were just written.
fn edit_tree<'p>(
    r: &gix::Repository,
    base: ObjectId,
    states: impl Iterator<Item = (&'p str, Recorded)> + Clone,
    written: &mut Vec<ObjectId>,
) -> Result<ObjectId, SnapshotError> {
    let mut editor = r
        .edit_tree(base)
        .map_err(git_err("load HEAD's tree"))?
        .detach();
    for (path, state) in states.clone() {
        if state == Recorded::Absent {
            // Leaves a directory standing at `path` alone: it is not the path's file.
            editor
                .remove_if_leaf(path.split('/'))
                .map_err(git_err(format!("remove {path:?} from the snapshot tree")))?;
        }
    }
    for (path, state) in states {
        if let Recorded::Blob { id, mode } = state {
            editor
                .upsert(path.split('/'), entry_kind(mode), id)
                .map_err(git_err(format!("put {path:?} into the snapshot tree")))?;
        }
    }
    let stored = stored_objects(r);
    editor
        .write(|tree| {
            fault::mutation("object: tree");
            let id = write_object(r, stored.as_deref(), tree);
            written.extend(id.as_ref().ok());
            id
        })
        .map_err(git_err("write the snapshot tree"))
}

/// The tree [`edit_tree`] would write, made without the editor where every path names a file
/// that `base` holds (a blob or link entry at the end of a path of trees) and that stays a
/// file: each tree on the way is `base`'s own bytes with that entry's mode and id overwritten
/// in place (every file mode is six bytes), then hashed and written. Nothing is parsed into
/// entries, sorted or re-serialised, and no entry moves. `Ok(None)` where the editor is
/// needed: a path new to `base`, a removal, a path through something that is not a tree, or
/// a tree that cannot be read or parsed (the editor then decides, and reports).
fn splice_tree<'p>(
    r: &gix::Repository,
    base: ObjectId,
    states: impl Iterator<Item = (&'p str, Recorded)>,
    written: &mut Vec<ObjectId>,
) -> Result<Option<ObjectId>, SnapshotError> {
    let mut changes = Vec::new();
    for (path, state) in states {
        let Recorded::Blob { id, mode } = state else {
            return Ok(None);
        };
        changes.push((path.split('/').collect::<Vec<_>>(), id, mode));
    }
    if changes.is_empty() || base.is_empty_tree() {
        return Ok(None);
    }
    let changes: Vec<SetFile<'_>> = changes
        .iter()
        .map(|(names, id, mode)| SetFile {
            names,
            id: *id,
            mode: *mode,
        })
        .collect();
    let stored = stored_objects(r);
    splice_into(r, base, &changes, stored.as_deref(), written)
}

/// A file to set by [`splice_tree`]: the names of the path still to walk, its id and mode.
struct SetFile<'n> {
    names: &'n [&'n str],
    id: ObjectId,
    mode: u32,
}

fn splice_into(
    r: &gix::Repository,
    tree_id: ObjectId,
    changes: &[SetFile<'_>],
    stored: Option<&std::path::Path>,
    written: &mut Vec<ObjectId>,
) -> Result<Option<ObjectId>, SnapshotError> {
    let Ok(mut tree) = r.find_tree(tree_id) else {
        return Ok(None);
    };
    let mut data = std::mem::take(&mut tree.data);
    // The changes by the name they continue with in this tree.
    let mut by_name: BTreeMap<&[u8], Vec<&SetFile<'_>>> = BTreeMap::new();
    for c in changes {
        by_name.entry(c.names[0].as_bytes()).or_default().push(c);
    }
    let Some(entries) = tree_entries(&data, r.object_hash().len_in_bytes()) else {
        return Ok(None);
    };
    // The names of `by_name` met in this tree. A name met twice (a tree git fsck rejects)
    // leaves which entry is the path's to the editor, and cannot stand in for a name that is
    // missing.
    let mut found = BTreeSet::new();
    // Each entry to overwrite: its new mode and id.
    let mut edits: Vec<(&TreeEntry, &[u8], ObjectId)> = Vec::new();
    for e in &entries {
        let name = &data[e.name.clone()];
        let Some(group) = by_name.get(name) else {
            continue;
        };
        if !found.insert(name) {
            return Ok(None);
        }
        let mode = &data[e.mode.clone()];
        if let [c] = group.as_slice() {
            if c.names.len() == 1 {
                // The file itself: it must be one in `base` too.
                if !matches!(mode, b"100644" | b"100755" | b"100664" | b"120000") {
                    return Ok(None);
                }
                let new_mode: &[u8] = match entry_kind(c.mode) {
                    EntryKind::BlobExecutable => b"100755",
                    EntryKind::Link => b"120000",
                    _ => b"100644",
                };
                edits.push((e, new_mode, c.id));
                continue;
            }
        }
        // A directory on the way: every change under this name goes on into it.
        if mode != b"40000" || group.iter().any(|c| c.names.len() == 1) {
            return Ok(None);
        }
        let below: Vec<SetFile<'_>> = group
            .iter()
            .map(|c| SetFile {
                names: &c.names[1..],
                id: c.id,
                mode: c.mode,
            })
            .collect();
        let child = ObjectId::from_bytes_or_panic(&data[e.id.clone()]);
        let Some(new_child) = splice_into(r, child, &below, stored, written)? else {
            return Ok(None);
        };
        edits.push((e, b"40000", new_child));
    }
    if found.len() != by_name.len() {
        return Ok(None);
    }
    for (e, mode, id) in edits {
        data[e.mode.clone()].copy_from_slice(mode);
        data[e.id.clone()].copy_from_slice(id.as_bytes());
    }
    fault::mutation("object: tree");
    let id = match stored {
        Some(objects) => {
            crate::repo::write_stored_object(objects, r.object_hash(), Kind::Tree, &data)
        }
        None => {
            use gix::objs::Write as _;
            r.objects
                .write_buf(Kind::Tree, &data)
                .map_err(io::Error::other)
        }
    }
    .map_err(git_err("write the snapshot tree"))?;
    written.push(id);
    Ok(Some(id))
}

/// Where one entry of a tree's bytes keeps its mode, its name and its id.
struct TreeEntry {
    mode: std::ops::Range<usize>,
    name: std::ops::Range<usize>,
    id: std::ops::Range<usize>,
}

/// The entries of a tree's bytes, in their order; `None` if the bytes are not a tree's (a
/// mode that is not octal digits, a name with no end, an id cut short or an empty name are
/// the editor's to report). A name twice is [`splice_into`]'s to catch.
fn tree_entries(data: &[u8], id_len: usize) -> Option<Vec<TreeEntry>> {
    let mut entries = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let space = at + memchr::memchr(b' ', &data[at..])?;
        let nul = space + 1 + memchr::memchr(0, &data[space + 1..])?;
        let end = nul + 1 + id_len;
        if space == at
            || nul == space + 1
            || end > data.len()
            || !data[at..space].iter().all(|b| (b'0'..=b'7').contains(b))
        {
            return None;
        }
        entries.push(TreeEntry {
            mode: at..space,
            name: space + 1..nul,
            id: nul + 1..end,
        });
        at = end;
    }
    Some(entries)
}

/// Whether tree `base` already holds each path in the state given, as the tree editor would
/// leave it: a blob with that id and that mode (the editor writes 100644 for a plain file, so
/// a legacy 100664 entry is not taken for one), or no file (no entry, a directory, which the
/// editor leaves standing, or a path through a file or a missing directory). False when in
/// doubt (a tree that cannot be read or parsed), so that the editor decides and reports.
fn holds_already<'p>(
    r: &gix::Repository,
    base: ObjectId,
    mut states: impl Iterator<Item = (&'p str, Recorded)>,
) -> bool {
    states.all(|(path, state)| {
        let Some(entry) = entry_at(r, base, path) else {
            return false;
        };
        match (state, entry) {
            (Recorded::Absent, None) => true,
            (Recorded::Absent, Some((mode, _))) => mode.is_tree(),
            (Recorded::Blob { .. }, None) => false,
            (Recorded::Blob { id, mode }, Some((entry_mode, entry_id))) => {
                entry_id == id && entry_mode == gix::objs::tree::EntryMode::from(entry_kind(mode))
            }
        }
    })
}

/// The entry at `path` in tree `root`: `Some(None)` where there is none (a component missing,
/// or one on the way that is not a directory), `None` when a tree on the way cannot be read.
/// Only the trees on the way are read.
fn entry_at(
    r: &gix::Repository,
    root: ObjectId,
    path: &str,
) -> Option<Option<(gix::objs::tree::EntryMode, ObjectId)>> {
    let mut tree_id = root;
    let mut names = path.split('/').peekable();
    while let Some(name) = names.next() {
        if tree_id.is_empty_tree() {
            return Some(None);
        }
        let tree = r.find_tree(tree_id).ok()?;
        let mut found = None;
        for entry in gix::objs::TreeRefIter::from_bytes(&tree.data, r.object_hash()) {
            let entry = entry.ok()?;
            if entry.filename == name.as_bytes() {
                found = Some((entry.mode, entry.oid.to_owned()));
                break;
            }
        }
        let Some((mode, id)) = found else {
            return Some(None);
        };
        if names.peek().is_none() {
            return Some(Some((mode, id)));
        }
        if !mode.is_tree() {
            return Some(None);
        }
        tree_id = id;
    }
    Some(None)
}

/// The tree entry kind a recorded mode is written as.
fn entry_kind(mode: u32) -> EntryKind {
    match mode {
        MODE_EXEC => EntryKind::BlobExecutable,
        MODE_LINK => EntryKind::Link,
        _ => EntryKind::Blob,
    }
}

/// Where small objects go uncompressed ([`crate::repo::write_stored_object`]): the loose
/// object directory, unless `core.looseCompression` or `core.compression` asks for a level
/// (then gix's store compresses at that level).
fn stored_objects(r: &gix::Repository) -> Option<PathBuf> {
    let config = r.config_snapshot();
    let level_set = ["core.looseCompression", "core.compression"]
        .iter()
        .any(|key| config.string(*key).is_some());
    (!level_set).then(|| r.objects.store_ref().path().to_path_buf())
}

/// Write `object` (a tree or a commit) unless the loose store has it: uncompressed into
/// `stored` when given, else through gix's store.
fn write_object(
    r: &gix::Repository,
    stored: Option<&std::path::Path>,
    object: &impl gix::objs::WriteTo,
) -> Result<ObjectId, io::Error> {
    let Some(objects) = stored else {
        return r
            .write_object(object)
            .map(|id| id.detach())
            .map_err(io::Error::other);
    };
    let mut data = Vec::with_capacity(object.size() as usize);
    object.write_to(&mut data)?;
    crate::repo::write_stored_object(objects, r.object_hash(), object.kind(), &data)
}

fn write_commit(
    r: &gix::Repository,
    tree: ObjectId,
    parents: Vec<ObjectId>,
    message: String,
    time: Time,
) -> Result<ObjectId, SnapshotError> {
    let commit = gix::objs::Commit {
        tree,
        parents: parents.into_iter().collect(),
        author: signature(time),
        committer: signature(time),
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    fault::mutation("object: commit");
    write_object(r, stored_objects(r).as_deref(), &commit)
        .map_err(git_err("write a snapshot commit"))
}

/// Create `name` at `target` if it does not exist. `Ok(false)`: it exists (someone was first).
fn create_ref(
    r: &gix::Repository,
    name: &str,
    target: ObjectId,
    time: Time,
) -> Result<bool, SnapshotError> {
    let edit = RefEdit {
        change: Change::Update {
            // Follows core.logAllRefUpdates; these refs get no reflog by default, so
            // deleting a ref really lets its objects go.
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: "llm-apply: snapshot".into(),
            },
            expected: PreviousValue::MustNotExist,
            new: Target::Object(target),
        },
        name: name
            .try_into()
            .map_err(git_err(format!("name the ref {name}")))?,
        deref: false,
    };
    let sig = signature(time);
    let mut time_buf = Default::default();
    fault::mutation("ref: create");
    match r.edit_references_as([edit], Some(sig.to_ref(&mut time_buf))) {
        Ok(_) => Ok(true),
        Err(e) => {
            let exists = r
                .try_find_reference(name)
                .map_err(git_err(format!("read {name}")))?
                .is_some();
            if exists {
                Ok(false)
            } else {
                Err(git_err(format!("create {name}"))(e))
            }
        }
    }
}

/// Numbered refs under `prefix` (other names there are not ours and are left alone).
fn scan(r: &gix::Repository, prefix: &str) -> Result<BTreeMap<u64, Target>, SnapshotError> {
    let platform = r.references().map_err(git_err("list refs"))?;
    let iter = platform
        .prefixed(prefix)
        .map_err(git_err(format!("list {prefix}*")))?;
    let mut found = BTreeMap::new();
    for reference in iter {
        let reference = reference.map_err(git_err(format!("list {prefix}*")))?;
        let name = reference.name().as_bstr().to_string();
        if let Some(seq) = name.strip_prefix(prefix).and_then(parse_sequence) {
            found.insert(seq, reference.detach().target);
        }
    }
    Ok(found)
}

/// The numbers of the refs under `prefix`, told from their names alone (loose refs and packed
/// ones): unlike [`scan`], no ref is read, so that an apply costs the same however many
/// snapshots are kept.
fn numbers(repo: &Repo, prefix: &str) -> Result<BTreeSet<u64>, SnapshotError> {
    let mut found = BTreeSet::new();
    let dir = repo.common_dir().join(prefix.trim_end_matches('/'));
    let io_err = |source| SnapshotError::Io {
        path: dir.clone(),
        source,
    };
    // Read in place: most names are numbers, and no string is made for any of them. Where
    // the listing does not say what an entry is, a numbered one is asked about (one gone
    // meanwhile, pruned by another run, is not a snapshot).
    use crate::sys::dir::Kind;
    let mut unknown = Vec::new();
    let listed = crate::sys::dir::each_name(&dir, |name, kind| {
        let seq = std::str::from_utf8(name).ok().and_then(parse_sequence);
        match (seq, kind) {
            (Some(seq), Kind::NotDir) => {
                found.insert(seq);
            }
            (Some(seq), Kind::Unknown) => unknown.push(seq),
            _ => {}
        }
    });
    match listed {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(e)),
    }
    for seq in unknown {
        match std::fs::symlink_metadata(dir.join(seq.to_string())) {
            Ok(m) if !m.is_dir() => {
                found.insert(seq);
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(e)),
        }
    }
    let packed = repo
        .repo
        .refs
        .cached_packed_buffer()
        .map_err(git_err("read packed refs"))?;
    if let Some(packed) = packed {
        let iter = packed
            .iter_prefixed(prefix.into())
            .map_err(git_err(format!("list {prefix}*")))?;
        for reference in iter {
            let reference = reference.map_err(git_err(format!("list {prefix}*")))?;
            let name = reference.name.as_bstr().to_string();
            if let Some(seq) = name.strip_prefix(prefix).and_then(parse_sequence) {
                found.insert(seq);
            }
        }
    }
    Ok(found)
}

fn read_sequence_floor(repo: &Repo) -> u64 {
    std::fs::read_to_string(shared_dir(repo).join(SEQUENCE_FILE))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// Raise the floor to `seq`. `known`: the floor as this run last read or wrote it, which
/// answers when it is already as high (the floor only rises); a write reads the file first,
/// since another worktree's run may have raised it since.
fn raise_sequence_floor(repo: &Repo, seq: u64, known: Option<u64>) -> Result<(), SnapshotError> {
    use std::io::Write as _;
    if known.is_some_and(|k| k >= seq) || read_sequence_floor(repo) >= seq {
        return Ok(());
    }
    let dir = shared_dir(repo);
    let path = dir.join(SEQUENCE_FILE);
    let io_err = |source| SnapshotError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io_err)?;
    let text = format!("{seq}\n");
    if !repo.durability.fsync {
        // Rewritten in place: a file made and renamed over on every apply costs the file
        // system an inode made and one freed, a tenth of a small apply. A process killed
        // mid-way cannot tear one write of a few bytes; the number only rises, so it covers
        // the old one, and a longer leftover (a hand-edited file) is cut after it.
        fault::mutation("sequence: write in place");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err)?;
        f.write_all(text.as_bytes()).map_err(io_err)?;
        if f.metadata().map_err(io_err)?.len() > text.len() as u64 {
            f.set_len(text.len() as u64).map_err(io_err)?;
        }
        return Ok(());
    }
    // The pid in the name lets a recovery tell a dead run's leftover from a live run's file.
    let tmp = dir.join(format!(
        "{SEQUENCE_FILE}.{}.{}.tmp",
        std::process::id(),
        format::new_nonce()
    ));
    fault::mutation("sequence: write temporary file");
    let mut f = std::fs::File::create(&tmp).map_err(io_err)?;
    f.write_all(text.as_bytes()).map_err(io_err)?;
    repo.durability.file(&f).map_err(io_err)?;
    fault::mutation("sequence: rename into place");
    std::fs::rename(&tmp, &path).map_err(io_err)?;
    repo.durability.dir(&dir);
    Ok(())
}

/// The snapshot numbers in use, as one run read them: the snapshot refs, the undone
/// markers, and the floor no new number may go below. A run that makes a snapshot and then
/// prunes reads them once ([`create_with_nonce`] keeps them for [`prune_listed`]).
#[derive(Debug)]
pub struct Listing {
    snapshots: BTreeSet<u64>,
    undone: BTreeSet<u64>,
    floor: u64,
}

impl Listing {
    fn read(repo: &Repo) -> Result<Listing, SnapshotError> {
        Ok(Listing {
            snapshots: numbers(repo, REF_PREFIX)?,
            undone: numbers(repo, UNDONE_REF_PREFIX)?,
            floor: read_sequence_floor(repo),
        })
    }

    /// The newest `keep` snapshots' numbers, and whether they are every number listed (undo
    /// markers included): then a prune with `keep` drops nothing.
    fn newest(&self, keep: usize) -> (HashSet<u64>, bool) {
        let kept: HashSet<u64> = self.snapshots.iter().rev().take(keep).copied().collect();
        let all = self
            .snapshots
            .iter()
            .chain(self.undone.iter())
            .all(|s| kept.contains(s));
        (kept, all)
    }

    /// Whether a prune with `keep` would drop anything ([`any_beyond`]).
    pub fn beyond(&self, keep: usize) -> bool {
        !self.newest(keep).1
    }

    /// The listing once this run's snapshot `seq` has its ref: the floor raised to it.
    fn taken(mut self, repo: &Repo, seq: u64) -> Listing {
        // Best effort: the ref is the record; the file only keeps numbers rising after every
        // ref was pruned, and a failure here must not disown a written snapshot.
        if raise_sequence_floor(repo, seq, Some(self.floor)).is_ok() {
            self.floor = self.floor.max(seq);
        }
        self.snapshots.insert(seq);
        self
    }

    fn next_sequence(&self) -> u64 {
        [
            self.snapshots.last().copied(),
            self.undone.last().copied(),
            Some(self.floor),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0)
            + 1
    }
}

/// The commit a snapshot or marker ref points at, checked to be a commit.
fn ref_commit<'r>(
    r: &'r gix::Repository,
    name: &str,
    target: &Target,
) -> Result<gix::Commit<'r>, SnapshotError> {
    let id = match target {
        Target::Object(id) => *id,
        Target::Symbolic(to) => {
            return Err(SnapshotError::NotACommit {
                name: name.to_string(),
                found: format!("the symbolic ref {}", to.as_bstr()),
            })
        }
    };
    let object = r
        .find_object(id)
        .map_err(git_err(format!("read the object {name} points at")))?;
    if object.kind != gix::objs::Kind::Commit {
        return Err(SnapshotError::NotACommit {
            name: name.to_string(),
            found: format!("the {} {id}", object.kind),
        });
    }
    Ok(object.into_commit())
}

fn message_of(commit: &gix::Commit<'_>, name: &str) -> Result<Vec<u8>, SnapshotError> {
    commit
        .message_raw()
        .map(|m| m.to_vec())
        .map_err(git_err(format!("decode the commit {name} points at")))
}

fn inconsistent(name: &str, reason: impl Into<String>) -> SnapshotError {
    SnapshotError::Inconsistent {
        name: name.to_string(),
        reason: reason.into(),
    }
}

/// Parse a snapshot's commit and its undo marker (if any) into what `log` shows.
fn load<'r>(
    r: &'r gix::Repository,
    seq: u64,
    target: &Target,
    undone: Option<&Target>,
) -> Result<(SnapshotInfo, format::SnapshotRecord, gix::Commit<'r>), SnapshotError> {
    let id = SnapshotId(seq);
    let name = id.ref_name();
    let commit = ref_commit(r, &name, target)?;
    let record = format::parse_snapshot(&message_of(&commit, &name)?).map_err(|source| {
        SnapshotError::Malformed {
            name: name.clone(),
            source,
        }
    })?;
    if record.sequence != seq {
        return Err(inconsistent(
            &name,
            format!("its metadata says it is snapshot {}", record.sequence),
        ));
    }
    let status = match undone {
        None => Status::Applied,
        Some(target) => {
            let marker_name = id.undone_ref_name();
            let marker = ref_commit(r, &marker_name, target)?;
            let undo =
                format::parse_undone(&message_of(&marker, &marker_name)?).map_err(|source| {
                    SnapshotError::Malformed {
                        name: marker_name.clone(),
                        source,
                    }
                })?;
            let parents: Vec<ObjectId> = marker.parent_ids().map(|p| p.detach()).collect();
            if undo.sequence != seq || parents != [commit.id] {
                return Err(inconsistent(
                    &marker_name,
                    format!("it does not mark {name}'s commit {}", commit.id),
                ));
            }
            Status::Undone { time: undo.time }
        }
    };
    let info = SnapshotInfo {
        id,
        commit: commit.id,
        time: record.time,
        tool_version: record.tool_version.clone(),
        patch_sha256: record.patch_sha256,
        intent: record.intent.clone(),
        undoes: record.undoes.map(SnapshotId),
        session: record.session.clone(),
        files: record.files,
        added: record.added,
        removed: record.removed,
        paths: record.paths.iter().map(|p| p.path.clone()).collect(),
        status,
        worktree: record.worktree.clone(),
    };
    Ok((info, record, commit))
}

/// Every snapshot, newest first. One whose ref or metadata is broken fails the listing with
/// an error naming its ref (delete that ref with `git update-ref -d` to get past it).
pub fn list(repo: &Repo) -> Result<Vec<SnapshotInfo>, SnapshotError> {
    let r = &repo.repo;
    let snapshots = scan(r, REF_PREFIX)?;
    let undone = scan(r, UNDONE_REF_PREFIX)?;
    snapshots
        .iter()
        .rev()
        .map(|(seq, target)| load(r, *seq, target, undone.get(seq)).map(|(info, ..)| info))
        .collect()
}

/// Read snapshot `id` and check it: metadata parses, parents and both trees agree with it,
/// and every blob it names exists. Pre-apply content is loaded (touched files only).
pub fn read(repo: &Repo, id: SnapshotId) -> Result<Snapshot, SnapshotError> {
    let r = &repo.repo;
    let name = id.ref_name();
    let find = |name: &str| -> Result<Option<Target>, SnapshotError> {
        Ok(r.try_find_reference(name)
            .map_err(git_err(format!("read {name}")))?
            .map(|reference| reference.detach().target))
    };
    let target = find(&name)?.ok_or(SnapshotError::NotFound { id })?;
    let undone = find(&id.undone_ref_name())?;
    let (info, record, commit) = load(r, id.0, &target, undone.as_ref())?;

    let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
    let expected: Vec<ObjectId> = record
        .head
        .into_iter()
        .chain([record.post_commit])
        .collect();
    if parents != expected {
        return Err(inconsistent(
            &name,
            "its parents are not the HEAD and post commit its metadata names",
        ));
    }
    let pre_tree = commit
        .tree()
        .map_err(git_err(format!("read the tree of {name}")))?;
    let post_tree = r
        .find_commit(record.post_commit)
        .and_then(|c| c.tree())
        .map_err(git_err(format!("read the post commit of {name}")))?;

    let mut paths = Vec::with_capacity(record.paths.len());
    for p in &record.paths {
        check_tree_entry(&pre_tree, &name, &p.path, p.before, "before")?;
        check_tree_entry(&post_tree, &name, &p.path, p.after, "after")?;
        let before = match p.before {
            Recorded::Absent => None,
            Recorded::Blob { id, mode } => Some(FileState {
                bytes: read_blob(repo, id)?.into(),
                mode,
            }),
        };
        paths.push(SnapshotPath {
            path: p.path.clone(),
            before,
            before_blob: p.before,
            after: p.after,
            lines: p.lines,
        });
    }
    let index = record
        .index
        .iter()
        .map(|c| IndexChange {
            path: c.path.clone(),
            before: c.before,
            after: c.after,
        })
        .collect();
    Ok(Snapshot {
        info,
        head: record.head,
        post_commit: record.post_commit,
        paths,
        index,
    })
}

fn check_tree_entry(
    tree: &gix::Tree<'_>,
    name: &str,
    path: &str,
    expected: Recorded,
    side: &str,
) -> Result<(), SnapshotError> {
    let entry = tree
        .lookup_entry(path.split('/'))
        .map_err(git_err(format!("look up {path:?} in {name}")))?;
    let found = match &entry {
        None => Recorded::Absent,
        Some(e) if e.mode().is_tree() => Recorded::Absent,
        Some(e) => match e.mode().kind() {
            EntryKind::Blob => Recorded::Blob {
                id: e.object_id(),
                mode: MODE_FILE,
            },
            EntryKind::BlobExecutable => Recorded::Blob {
                id: e.object_id(),
                mode: MODE_EXEC,
            },
            EntryKind::Link => Recorded::Blob {
                id: e.object_id(),
                mode: MODE_LINK,
            },
            other => {
                return Err(inconsistent(
                    name,
                    format!(
                        "{path:?} is a {} entry in its {side} tree",
                        other.as_octal_str()
                    ),
                ))
            }
        },
    };
    if found == expected {
        Ok(())
    } else {
        Err(inconsistent(
            name,
            format!("its {side} tree disagrees with its metadata at {path:?}"),
        ))
    }
}

/// The bytes of a blob a snapshot names (pre- or post-apply content).
pub fn read_blob(repo: &Repo, id: ObjectId) -> Result<Vec<u8>, SnapshotError> {
    repo.repo
        .find_blob(id)
        .map(|mut blob| blob.take_data())
        .map_err(git_err(format!("read the blob {id}")))
}

/// Record that snapshot `id` was undone. Fails with [`SnapshotError::AlreadyUndone`] the
/// second time, also when two processes race: the marker ref is created atomically.
pub fn mark_undone(repo: &Repo, id: SnapshotId) -> Result<(), SnapshotError> {
    let r = &repo.repo;
    let name = id.ref_name();
    let target = r
        .try_find_reference(name.as_str())
        .map_err(git_err(format!("read {name}")))?
        .ok_or(SnapshotError::NotFound { id })?
        .detach()
        .target;
    let snapshot = ref_commit(r, &name, &target)?;
    let marker_name = id.undone_ref_name();
    if r.try_find_reference(marker_name.as_str())
        .map_err(git_err(format!("read {marker_name}")))?
        .is_some()
    {
        return Err(SnapshotError::AlreadyUndone { id });
    }
    let tree = snapshot
        .tree_id()
        .map_err(git_err(format!("read the tree of {name}")))?
        .detach();
    let time = now_local();
    let message = format::render_undone(&format::UndoneRecord {
        sequence: id.0,
        time,
        tool_version: TOOL_VERSION.to_string(),
        nonce: format::new_nonce(),
    });
    let marker = write_commit(r, tree, vec![snapshot.id], message, time)?;
    if create_ref(r, &marker_name, marker, time)? {
        Ok(())
    } else {
        Err(SnapshotError::AlreadyUndone { id })
    }
}

/// The snapshot whose commit carries `nonce`, if any: the one an apply that died before its
/// journal named a snapshot made (or was making).
pub fn find_by_nonce(repo: &Repo, nonce: &str) -> Result<Option<SnapshotId>, SnapshotError> {
    let r = &repo.repo;
    for (seq, target) in scan(r, REF_PREFIX)?.iter().rev() {
        let name = SnapshotId(*seq).ref_name();
        let Ok(commit) = ref_commit(r, &name, target) else {
            continue;
        };
        let Ok(message) = message_of(&commit, &name) else {
            continue;
        };
        if let Ok(record) = format::parse_snapshot(&message) {
            if record.nonce == nonce {
                return Ok(Some(SnapshotId(*seq)));
            }
        }
    }
    Ok(None)
}

/// The undo recorded as snapshot `undo` (whose metadata says it undoes `target`) is written:
/// mark `target` undone, and when `target` was itself an undo, its own target is applied
/// again. Done before the undo's journal is removed, so no crash leaves `log` saying
/// "applied" of restored files.
pub fn record_undo(repo: &Repo, target: SnapshotId) -> Result<(), SnapshotError> {
    record_undo_listed(repo, target, None)
}

/// [`record_undo`], keeping `listing` (the numbers the undo's own snapshot read) as the
/// markers now are, for [`prune_listed`].
pub fn record_undo_listed(
    repo: &Repo,
    target: SnapshotId,
    mut listing: Option<&mut Listing>,
) -> Result<(), SnapshotError> {
    match mark_undone(repo, target) {
        Ok(()) | Err(SnapshotError::AlreadyUndone { .. }) => {}
        Err(e) => return Err(e),
    }
    if let Some(l) = listing.as_deref_mut() {
        l.undone.insert(target.0);
    }
    if let Some(earlier) = read(repo, target)?.info().undoes {
        clear_undone(repo, earlier)?;
        if let Some(l) = listing {
            l.undone.remove(&earlier.0);
        }
    }
    Ok(())
}

/// The reverse of [`record_undo`], for an undo that a recovery took back: `target` is
/// applied again, and what it undid is undone again.
pub fn unrecord_undo(repo: &Repo, target: SnapshotId) -> Result<(), SnapshotError> {
    clear_undone(repo, target)?;
    let undid = match read(repo, target) {
        Ok(s) => s.info().undoes,
        Err(SnapshotError::NotFound { .. }) => None,
        Err(e) => return Err(e),
    };
    if let Some(earlier) = undid {
        match mark_undone(repo, earlier) {
            Ok(())
            | Err(SnapshotError::AlreadyUndone { .. })
            | Err(SnapshotError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Remove snapshot `id` and its undo marker: for an apply whose write failed and was rolled
/// back, so that `log` does not list a change that never happened. Missing refs are fine.
pub fn discard(repo: &Repo, id: SnapshotId) -> Result<(), SnapshotError> {
    delete_if_present(repo, &[id.ref_name(), id.undone_ref_name()])
}

/// Forget that snapshot `id` was undone: its change is in the work tree again (the undo
/// itself was undone), so it may be undone once more.
pub fn clear_undone(repo: &Repo, id: SnapshotId) -> Result<(), SnapshotError> {
    delete_if_present(repo, &[id.undone_ref_name()])
}

/// Delete the named refs that exist, in one transaction, each only if it still points where
/// it was just read to point (so a concurrent rewrite is not lost silently).
fn delete_if_present(repo: &Repo, names: &[String]) -> Result<(), SnapshotError> {
    let r = &repo.repo;
    let mut edits = Vec::new();
    for name in names {
        let Some(reference) = r
            .try_find_reference(name.as_str())
            .map_err(git_err(format!("read {name}")))?
        else {
            continue;
        };
        edits.push(RefEdit {
            change: Change::Delete {
                expected: PreviousValue::MustExistAndMatch(reference.detach().target),
                log: RefLog::AndReference,
            },
            name: name
                .as_str()
                .try_into()
                .map_err(git_err(format!("name the ref {name}")))?,
            deref: false,
        });
    }
    if !edits.is_empty() {
        fault::mutation("ref: delete");
        r.edit_references_as(edits, None)
            .map_err(git_err(format!("delete {}", names.join(" and "))))?;
    }
    Ok(())
}

/// Drop every snapshot but the newest `keep` (and the undo markers of dropped ones), in one
/// ref transaction. Their objects become unreachable and git's own gc collects them. A
/// snapshot that an unfinished apply in any worktree still needs is kept besides. Returns the
/// dropped ids, oldest first.
pub fn prune(repo: &Repo, keep: usize) -> Result<Vec<SnapshotId>, SnapshotError> {
    prune_listed(repo, keep, Listing::read(repo)?)
}

/// Whether [`prune`] with `keep` would drop anything: a snapshot or an undo marker older
/// than the newest `keep` snapshots. Only the refs' names are read.
pub fn any_beyond(repo: &Repo, keep: usize) -> Result<bool, SnapshotError> {
    Ok(Listing::read(repo)?.beyond(keep))
}

/// [`prune`] with the numbers as `listing` has them: read by this run under its lock, so
/// only another worktree's run can have changed them since. A snapshot it made meanwhile is
/// not in `listing`, so it is kept (the next prune counts it), and a ref it dropped
/// meanwhile is passed over.
pub fn prune_listed(
    repo: &Repo,
    keep: usize,
    listing: Listing,
) -> Result<Vec<SnapshotId>, SnapshotError> {
    let r = &repo.repo;
    // Which to drop is told from the names; the refs are read (their targets, which their
    // deletion must match) only when there is one to drop.
    let (mut kept, all) = listing.newest(keep);
    let Listing {
        snapshots,
        undone,
        floor,
    } = listing;
    // Remember the highest number before its ref may go, so it is never handed out again.
    if let Some(highest) = snapshots.iter().chain(undone.iter()).max() {
        raise_sequence_floor(repo, *highest, Some(floor))?;
    }
    if all {
        return Ok(Vec::new());
    }
    kept.extend(
        journal::pending_in_all_worktrees(repo.common_dir())
            .iter()
            .map(|id| id.0),
    );
    // Only the refs dropped are read: their deletion must match what they point at.
    let mut edits = Vec::new();
    let mut delete = |name: String| -> Result<(), SnapshotError> {
        let Some(reference) = r
            .try_find_reference(name.as_str())
            .map_err(git_err(format!("read {name}")))?
        else {
            return Ok(());
        };
        edits.push(RefEdit {
            change: Change::Delete {
                expected: PreviousValue::MustExistAndMatch(reference.detach().target),
                log: RefLog::AndReference,
            },
            name: name
                .as_str()
                .try_into()
                .map_err(git_err(format!("name the ref {name}")))?,
            deref: false,
        });
        Ok(())
    };
    let mut dropped = Vec::new();
    for seq in &snapshots {
        if !kept.contains(seq) {
            delete(SnapshotId(*seq).ref_name())?;
            dropped.push(SnapshotId(*seq));
        }
    }
    for seq in &undone {
        if !kept.contains(seq) {
            delete(SnapshotId(*seq).undone_ref_name())?;
        }
    }
    if !edits.is_empty() {
        fault::mutation("ref: prune");
        r.edit_references_as(edits, None)
            .map_err(git_err("delete old snapshot refs"))?;
    }
    Ok(dropped)
}

/// How many snapshots to keep: git config `llm-apply.keep`, else [`DEFAULT_KEEP`].
pub fn keep_from_config(repo: &Repo) -> Result<usize, SnapshotError> {
    let config = repo.repo.config_snapshot();
    let bad = || SnapshotError::Config {
        key: KEEP_CONFIG_KEY,
        value: config
            .string(KEEP_CONFIG_KEY)
            .map(|v| v.to_string())
            .unwrap_or_default(),
    };
    match config.try_integer(KEEP_CONFIG_KEY) {
        Ok(None) => Ok(DEFAULT_KEEP),
        Ok(Some(n)) => usize::try_from(n).map_err(|_| bad()),
        Err(_) => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_ids_have_one_spelling() {
        assert_eq!("7".parse::<SnapshotId>(), Ok(SnapshotId(7)));
        assert_eq!(
            "refs/llm-apply/12".parse::<SnapshotId>(),
            Ok(SnapshotId(12))
        );
        for bad in [
            "",
            "0",
            "07",
            "-1",
            "x",
            "refs/llm-apply/",
            "1 ",
            "refs/llm-apply-undone/3",
        ] {
            assert!(bad.parse::<SnapshotId>().is_err(), "{bad:?}");
        }
        assert_eq!(SnapshotId(3).ref_name(), "refs/llm-apply/3");
        assert_eq!(SnapshotId(3).undone_ref_name(), "refs/llm-apply-undone/3");
    }

    fn touched(path: &str, file: bool) -> Touched {
        Touched {
            path: path.to_string(),
            before: None,
            after: file.then(|| FileState {
                bytes: Vec::new().into(),
                mode: MODE_FILE,
            }),
        }
    }

    /// The shortcut that keeps HEAD's tree says so exactly when gix's tree editor, given the
    /// same states, would write HEAD's tree again: for files as they are (plain, executable,
    /// link, nested), no file where there is none or a directory stands, and not for a
    /// changed id or mode, a removed file or a new one.
    /// A committed repository of a plain file, an executable, a link and nested files:
    /// `a.txt`, `exec.sh`, `link`, `d/e/f.txt`, `d/g.txt`.
    fn committed_tree() -> (tempfile::TempDir, Repo) {
        use crate::git::run_for_test as git;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        git(d, &["init", "-q"]);
        std::fs::create_dir_all(d.join("d/e")).expect("mkdir");
        for (path, text) in [
            ("a.txt", "a\n"),
            ("exec.sh", "run\n"),
            ("d/e/f.txt", "f\n"),
            ("d/g.txt", "g\n"),
        ] {
            std::fs::write(d.join(path), text).expect("write");
        }
        std::os::unix::fs::symlink("a.txt", d.join("link")).expect("symlink");
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(d.join("exec.sh"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        git(d, &["add", "."]);
        git(d, &["commit", "-qm", "base"]);
        let repo = Repo::discover(d).expect("open").expect("a repository");
        (dir, repo)
    }

    /// The id `git rev-parse` gives `spec` in the repository at `d`.
    fn rev(d: &std::path::Path, spec: &str) -> ObjectId {
        let out = crate::git::run_for_test(d, &["rev-parse", spec]);
        ObjectId::from_hex(out.as_bytes()).expect("id")
    }

    #[test]
    fn head_s_tree_is_kept_exactly_where_the_editor_would_rebuild_it_unchanged() {
        let (dir, repo) = committed_tree();
        let r = &repo.repo;
        let id = |spec: &str| rev(dir.path(), spec);
        let base = id("HEAD^{tree}");
        let blob = |path: &str, mode: u32| Recorded::Blob {
            id: id(&format!("HEAD:{path}")),
            mode,
        };
        let other = Recorded::Blob {
            id: id("HEAD:d/g.txt"),
            mode: MODE_FILE,
        };
        let cases: Vec<(Vec<(&str, Recorded)>, bool)> = vec![
            (vec![("a.txt", blob("a.txt", MODE_FILE))], true),
            (vec![("exec.sh", blob("exec.sh", MODE_EXEC))], true),
            (vec![("link", blob("link", MODE_LINK))], true),
            (
                vec![
                    ("d/e/f.txt", blob("d/e/f.txt", MODE_FILE)),
                    ("d/g.txt", blob("d/g.txt", MODE_FILE)),
                ],
                true,
            ),
            (vec![("d", Recorded::Absent)], true),
            (vec![("d/e", Recorded::Absent)], true),
            (vec![("missing.txt", Recorded::Absent)], true),
            (vec![("zz/q", Recorded::Absent)], true),
            (vec![("a.txt/x", Recorded::Absent)], true),
            (vec![("a.txt", other)], false),
            (vec![("a.txt", blob("a.txt", MODE_EXEC))], false),
            (vec![("exec.sh", blob("exec.sh", MODE_FILE))], false),
            (vec![("link", blob("link", MODE_FILE))], false),
            (vec![("a.txt", Recorded::Absent)], false),
            (vec![("d/e/f.txt", Recorded::Absent)], false),
            (vec![("new/x.txt", other)], false),
            (
                vec![
                    ("d/e/f.txt", blob("d/e/f.txt", MODE_FILE)),
                    ("d/e/h.txt", other),
                ],
                false,
            ),
            (vec![("a.txt/x", other)], false),
        ];
        for (states, kept) in cases {
            let shortcut = holds_already(r, base, states.iter().copied());
            let edited = edit_tree(r, base, states.iter().copied(), &mut Vec::new())
                .expect("the editor writes the tree");
            assert_eq!(shortcut, kept, "{states:?}");
            assert_eq!(edited == base, kept, "{states:?}");
        }
        // With no HEAD the base is the empty tree: no file anywhere holds already.
        let empty = ObjectId::empty_tree(r.object_hash());
        assert!(holds_already(
            r,
            empty,
            [("x/y", Recorded::Absent)].into_iter()
        ));
        assert!(!holds_already(r, empty, [("x", other)].into_iter()));
    }

    /// The spliced post-apply tree is the editor's, id for id, wherever the splice takes the
    /// states (files `base` holds that stay files: a new id, a new mode, nested, several in
    /// one directory, a legacy 100664 entry made 100644 as the editor makes it), and it
    /// leaves to the editor each case it cannot do in place.
    #[test]
    fn a_spliced_tree_is_the_one_the_editor_writes_and_the_rest_is_left_to_the_editor() {
        let (dir, repo) = committed_tree();
        let r = &repo.repo;
        let id = |spec: &str| rev(dir.path(), spec);
        let base = id("HEAD^{tree}");
        let new = |text: &str| r.write_blob(text.as_bytes()).expect("write blob").detach();
        let file = |text: &str| Recorded::Blob {
            id: new(text),
            mode: MODE_FILE,
        };
        let exec = Recorded::Blob {
            id: new("x\n"),
            mode: MODE_EXEC,
        };
        let link = Recorded::Blob {
            id: new("b.txt"),
            mode: MODE_LINK,
        };
        // A tree with a legacy group-writable mode, as old gits wrote them.
        let legacy_blob = id("HEAD:a.txt");
        let legacy = {
            let mut data = b"100664 old.txt\0".to_vec();
            data.extend_from_slice(legacy_blob.as_bytes());
            use gix::objs::Write as _;
            r.objects.write_buf(Kind::Tree, &data).expect("write tree")
        };
        let spliced: Vec<(ObjectId, Vec<(&str, Recorded)>)> = vec![
            (base, vec![("a.txt", file("a2\n"))]),
            (base, vec![("a.txt", exec)]),
            (base, vec![("exec.sh", file("run2\n"))]),
            (base, vec![("link", link)]),
            (base, vec![("a.txt", link)]),
            (base, vec![("d/e/f.txt", file("f2\n"))]),
            (
                base,
                vec![
                    ("d/e/f.txt", file("f3\n")),
                    ("d/g.txt", file("g3\n")),
                    ("a.txt", file("a3\n")),
                ],
            ),
            (
                base,
                vec![(
                    "d/g.txt",
                    Recorded::Blob {
                        id: id("HEAD:d/g.txt"),
                        mode: MODE_FILE,
                    },
                )],
            ),
            (legacy, vec![("old.txt", file("new\n"))]),
            (
                legacy,
                vec![(
                    "old.txt",
                    Recorded::Blob {
                        id: legacy_blob,
                        mode: MODE_FILE,
                    },
                )],
            ),
        ];
        for (tree, states) in spliced {
            let mut written = Vec::new();
            let splice = splice_tree(r, tree, states.iter().copied(), &mut written)
                .expect("no error")
                .unwrap_or_else(|| panic!("spliced: {states:?}"));
            let edited = edit_tree(r, tree, states.iter().copied(), &mut Vec::new())
                .expect("the editor writes the tree");
            assert_eq!(splice, edited, "{states:?}");
            assert_eq!(written.last(), Some(&splice), "{states:?}");
            assert!(r.has_object(splice), "{states:?}");
        }
        let other = file("o\n");
        for states in [
            vec![("new.txt", other)],
            vec![("d/new.txt", other)],
            vec![("d/e/f.txt", other), ("d/e/new.txt", other)],
            vec![("a.txt", Recorded::Absent)],
            vec![("d", other)],
            vec![("a.txt/x", other)],
            vec![("zz/q", other)],
            vec![("d/e/f.txt", other), ("missing", Recorded::Absent)],
        ] {
            assert_eq!(
                splice_tree(r, base, states.iter().copied(), &mut Vec::new()).expect("no error"),
                None,
                "{states:?}"
            );
        }
        let empty = ObjectId::empty_tree(r.object_hash());
        assert_eq!(
            splice_tree(r, empty, [("x", other)].into_iter(), &mut Vec::new()).expect("no error"),
            None
        );
        // A tree that names a file twice (written as `git hash-object --literally` would):
        // neither a change to that name nor a new file beside it is spliced. Counted by
        // entries, the second `a.txt` stood in for the missing `b.txt`, and the snapshot's
        // tree lacked the new file.
        let twice = {
            let mut data = Vec::new();
            for name in ["a.txt", "z.txt", "a.txt"] {
                data.extend_from_slice(format!("100644 {name}\0").as_bytes());
                data.extend_from_slice(legacy_blob.as_bytes());
            }
            use gix::objs::Write as _;
            r.objects.write_buf(Kind::Tree, &data).expect("write tree")
        };
        for states in [
            vec![("a.txt", other)],
            vec![("a.txt", other), ("b.txt", other)],
        ] {
            assert_eq!(
                splice_tree(r, twice, states.iter().copied(), &mut Vec::new()).expect("no error"),
                None,
                "{states:?}"
            );
        }
    }

    #[test]
    fn paths_are_checked_before_anything_is_written() {
        for bad in [
            "",
            "/abs",
            "a//b",
            "../x",
            "a/./b",
            ".git/config",
            "a/.GIT/x",
            "trailing/",
        ] {
            assert!(
                matches!(
                    check_paths(&[touched(bad, true)]),
                    Err(SnapshotError::InvalidPath { .. })
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            check_paths(&[touched("a", true), touched("a", false)]),
            Err(SnapshotError::DuplicatePath { .. })
        ));
        assert!(matches!(
            check_paths(&[touched("a/b/c", true), touched("a", true)]),
            Err(SnapshotError::PathConflict { .. })
        ));
        // A file replaced by a directory (or the reverse) is fine: one side is absent.
        check_paths(&[
            touched("a/b", true),
            touched("a", false),
            touched("aux.c", true),
        ])
        .expect("valid paths");
    }
}

//! What every run inside a repository does before anything else: take this worktree's lock
//! (held until the run ends, so runs happen one after the other) and take back an apply
//! that an earlier run left unfinished. Also the one door to the writer for commands that
//! record a snapshot.

use crate::report::kinds::{ErrorKind, Kinded, NoticeKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::gate::{self, Approved, Verdict};
use crate::patch::Notice;
use crate::repo::{Repo, RepoError};
use crate::report::{Report, RunStatus, Summary};
use crate::snapshot::{
    self, Journal, JournalError, Lock, LockError, Meta, PatchDigest, Pending, SnapshotError,
    SnapshotId, Touched,
};
use crate::text::textdiff::LineCounts;
use crate::write::recorded::{self, Prune, RecordError, Recording};
use crate::write::restore::{self, RestoreError, RestorePlan};
use crate::write::{self, WriteError};

/// The git config key: seconds to wait for another run's lock (default 10; 0 waits not).
pub const LOCK_TIMEOUT_KEY: &str = "llm-apply.lockTimeout";
const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// A report of a run that `e` stopped, under the kind `e` gives itself.
pub fn failed(e: &(impl Kinded + ?Sized)) -> Box<Report> {
    Box::new(Report::failed(e))
}

/// Why a run could not start in its repository, or could not put right what an interrupted
/// apply left.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot change to '{}': not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("cannot read the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    #[error(transparent)]
    Repo(#[from] RepoError),
    /// `why` says what the command needs a repository for.
    #[error("not inside a git repository: {0}")]
    NoRepository(&'static str),
    #[error("{0} (--no-snapshot applies without recording a snapshot)")]
    Unlockable(#[source] LockError),
    /// Another run holds the lock: the run is busy (exit status 4), not failed.
    #[error("{0}; nothing was written: retry once that run has ended")]
    Busy(#[source] LockError),
    #[error("{0}; remove it once the files it names are as they should be")]
    Journal(#[source] JournalError),
    #[error(
        "an interrupted apply ({}) must be rolled back first, and that needs the lock this \
         run could not take",
        .0.map(|s| format!("snapshot {s}")).unwrap_or_else(|| "before its snapshot".to_string())
    )]
    RecoveryUnlocked(Option<SnapshotId>),
    #[error("{}", recovery_failed(journal_dir, *snapshot, step))]
    Recovery {
        journal_dir: PathBuf,
        snapshot: Option<SnapshotId>,
        step: Box<RecoveryStep>,
    },
    #[error(
        "{} is {version}, but git-llm-apply needs git {}.{} or newer (set GIT_LLM_APPLY_GIT \
         to a newer git)",
        git.display(),
        MIN_GIT[0],
        MIN_GIT[1]
    )]
    GitTooOld { git: PathBuf, version: String },
    #[error("git config {LOCK_TIMEOUT_KEY} is {value:?}, not a number of seconds (0 or more)")]
    LockTimeout { value: String },
}

impl Kinded for SessionError {
    fn kind(&self) -> ErrorKind {
        match self {
            SessionError::NotADirectory(_) | SessionError::LockTimeout { .. } => ErrorKind::Usage,
            SessionError::CurrentDir(_) => ErrorKind::Io,
            SessionError::Repo(_) | SessionError::NoRepository(_) => ErrorKind::Repository,
            SessionError::Unlockable(_) | SessionError::Busy(_) => ErrorKind::Lock,
            SessionError::Journal(_)
            | SessionError::RecoveryUnlocked(_)
            | SessionError::Recovery { .. } => ErrorKind::Recovery,
            SessionError::GitTooOld { .. } => ErrorKind::GitVersion,
        }
    }
}

impl SessionError {
    /// The report of a run it stopped: a held lock makes the run busy, not failed.
    pub fn report(&self) -> Box<Report> {
        let mut r = failed(self);
        if let SessionError::Busy(_) = self {
            r.status = RunStatus::Busy;
        }
        r
    }
}

/// The step of a recovery that failed.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum RecoveryStep {
    #[error("it cannot be read: {0}")]
    Read(#[source] SnapshotError),
    #[error("restoring it failed: {0}")]
    Restore(#[source] RestoreError),
    #[error("these paths cannot be restored safely: {}", .0.join(", "))]
    Unsafe(Vec<String>),
    #[error("keeping the current content failed: {0}")]
    Keep(#[source] SnapshotError),
    /// The gate's reason, a sentence of its own: kept as the text it is.
    #[error("{0}")]
    Vetoed(String),
    #[error(transparent)]
    Write(WriteError),
    #[error(transparent)]
    Find(SnapshotError),
    #[error("its snapshot {id} cannot be dropped: {source}")]
    Drop {
        id: SnapshotId,
        #[source]
        source: SnapshotError,
    },
}

/// What a failed recovery says: where the journal is, the snapshot it names, the step that
/// failed, and that the journal is kept for the next run.
fn recovery_failed(dir: &Path, snapshot: Option<SnapshotId>, step: &RecoveryStep) -> String {
    match snapshot {
        Some(id) => format!(
            "an interrupted apply left {}/journal naming snapshot {id}, but {step}; the \
             journal is kept, so the next run tries again (to give up instead, put the \
             files right by hand and remove that journal)",
            dir.display()
        ),
        None => format!(
            "an interrupted apply left {}/journal, but {step}; the journal is kept, so \
             the next run tries again",
            dir.display()
        ),
    }
}

/// The directory the run starts in: `-C DIR`, else the current one.
pub fn start_dir(dir: Option<PathBuf>) -> Result<PathBuf, Box<Report>> {
    match dir {
        Some(d) if d.is_dir() => Ok(d),
        Some(d) => Err(SessionError::NotADirectory(d).report()),
        None => std::env::current_dir().map_err(|e| SessionError::CurrentDir(e).report()),
    }
}

/// The repository around `cwd`: the one `config`'s reader opened there (sharing what earlier
/// runs on it kept, for a server: `run/kept.rs`), else found anew.
pub fn repo_of(
    config: Option<&crate::git::config::Pending>,
    cwd: &std::path::Path,
) -> Result<Option<crate::repo::Repo>, RepoError> {
    use crate::repo::Repo;
    let taken = config.and_then(|c| Some((c.take_repository(cwd)?, c.objects())));
    match taken {
        Some((opened, objects)) => Repo::opened(opened, cwd, objects).map(Some),
        None => Repo::discover(cwd),
    }
}

/// The repository around `cwd` ([`repo_of`]), or a report saying `why` one is needed.
pub fn require_repo(
    config: &crate::git::config::Pending,
    cwd: &std::path::Path,
    why: &'static str,
) -> Result<crate::repo::Repo, Box<Report>> {
    repo_of(Some(config), cwd)
        .map_err(|e| SessionError::Repo(e).report())?
        .ok_or_else(|| SessionError::NoRepository(why).report())
}

/// A run in a repository, holding its worktree's lock.
pub struct Session<'r> {
    /// The repository the run works in.
    pub repo: &'r Repo,
    /// `None` only for a run that records nothing and found the lock impossible to create
    /// (a read-only `.git`, as some agent sandboxes mount it).
    pub lock: Option<Lock>,
    /// What opening did that the report must say (a recovered apply).
    pub notices: Vec<Notice>,
    /// Whether opening put back files an interrupted apply had left half written.
    pub recovered: bool,
}

/// Lock the worktree, then restore whatever an interrupted apply left half written.
/// `records` says whether this run will write snapshots or a journal; one that will not
/// goes on without the lock when the lock file cannot be created at all. First of all, git
/// must be new enough ([`MIN_GIT`]).
pub fn open(repo: &Repo, records: bool) -> Result<Session<'_>, Box<Report>> {
    check_git_version(repo)?;
    let mut notices = Vec::new();
    let lock = match Lock::acquire(repo, lock_timeout(repo)?) {
        Ok(lock) => Some(lock),
        Err(e @ LockError::Io { .. }) if !records => {
            notices.push(Notice::new(
                NoticeKind::Unlocked,
                format!("{e}; going on without the lock, as this run records nothing"),
            ));
            None
        }
        Err(e @ LockError::Io { .. }) => return Err(SessionError::Unlockable(e).report()),
        Err(e @ LockError::Timeout { .. }) => return Err(SessionError::Busy(e).report()),
    };
    hold_for_tests();
    let pending = Journal::pending(repo).map_err(|e| SessionError::Journal(e).report())?;
    if lock.is_some() {
        // A run killed while writing one of its own files leaves `*.tmp` beside it.
        remove_dead_runs_temp_files(repo);
    }
    let recovered = pending.is_some();
    if let Some(p) = pending {
        let Some(lock) = &lock else {
            return Err(SessionError::RecoveryUnlocked(p.snapshot()).report());
        };
        notices.push(recover(repo, lock, p).map_err(|e| e.report())?);
    }
    Ok(Session {
        repo,
        lock,
        notices,
        recovered,
    })
}

pub use crate::git::binary::{parse_version as parse_git_version, MIN_GIT};

/// Refuse to run with a git older than [`MIN_GIT`]: its `apply` output and options are not
/// ones we know, so its results could be misread. A git that cannot be run is left for the
/// command that needs it to report. The version is remembered per binary
/// ([`crate::git::binary`]): a run whose git is known starts no process to ask.
fn check_git_version(repo: &Repo) -> Result<(), Box<Report>> {
    let facts = crate::git::binary::facts(Some(repo.git_dir()));
    match facts.version() {
        Some(v) if v < MIN_GIT => Err(SessionError::GitTooOld {
            git: crate::git::binary(),
            version: facts.version.clone(),
        }
        .report()),
        _ => Ok(()),
    }
}

fn lock_timeout(repo: &Repo) -> Result<Duration, Box<Report>> {
    let config = repo.repo.config_snapshot();
    match config.try_integer(LOCK_TIMEOUT_KEY) {
        Ok(None) => Ok(DEFAULT_LOCK_TIMEOUT),
        Ok(Some(n)) if n >= 0 => Ok(Duration::from_secs(n.unsigned_abs())),
        _ => Err(SessionError::LockTimeout {
            value: config
                .string(LOCK_TIMEOUT_KEY)
                .map(|v| v.to_string())
                .unwrap_or_default(),
        }
        .report()),
    }
}

/// Test-only (documented in tests/README): `GIT_LLM_APPLY_TEST_HOLD_LOCK_MS=N` keeps the lock
/// N ms before doing anything, so a test can start a second run while the first holds it.
fn hold_for_tests() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("GIT_LLM_APPLY_TEST_HOLD_LOCK_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// Take back the apply a journal says was interrupted: every path it names goes back to its
/// pre-apply state. A path edited after the crash keeps those edits where a merge can, and
/// otherwise its content is first kept in a new snapshot, so nothing is lost. Then what the
/// run left besides is tidied: directories it created, temporary files.
///
/// Every step leaves a state the next recovery finishes and `log` describes truly: files
/// first, then the snapshot's status (dropped when no file needed restoring, else undone),
/// then the journal.
fn recover(repo: &Repo, lock: &Lock, mut pending: Pending) -> Result<Notice, SessionError> {
    let pid = pending
        .pid()
        .map(|p| format!(", pid {p}"))
        .unwrap_or_default();
    let Some(id) = pending.snapshot() else {
        return recover_unnamed(repo, lock, pending, &pid);
    };
    let broken = |step: RecoveryStep| SessionError::Recovery {
        journal_dir: snapshot_state_dir(repo),
        snapshot: Some(id),
        step: Box::new(step),
    };
    let snap = snapshot::read(repo, id).map_err(|e| broken(RecoveryStep::Read(e)))?;
    let plan = restore::plan_recovery(repo, &snap, pending.paths())
        .map_err(|e| broken(RecoveryStep::Restore(e)))?;
    if plan.refused() {
        return Err(broken(RecoveryStep::Unsafe(
            plan.refused_paths()
                .iter()
                .map(ToString::to_string)
                .collect(),
        )));
    }
    let changes = plan.changes();
    let mut saved = None;
    if plan.overwrites_later_edits() {
        let meta = restore_meta(
            &plan,
            format!("kept before recovering interrupted snapshot {id}"),
        );
        let touched: Vec<Touched> = changes
            .iter()
            .map(|c| Touched {
                path: c.path.clone(),
                before: c.before.clone(),
                after: c.after.clone(),
            })
            .collect();
        saved = Some(
            snapshot::create(repo, &touched, &meta).map_err(|e| broken(RecoveryStep::Keep(e)))?,
        );
    }
    let restored: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
    let has_changes = !changes.is_empty();
    // An --index apply may have staged its change: the entries that still hold it go back.
    let staged = snap.index_changes();
    let index = staged.iter().map(|c| c.path.clone()).collect();
    let verdict = gate::approve_restore(changes, index, repo.durability);
    let token = approved(verdict).map_err(&broken)?;
    if has_changes {
        write::write(&repo.work_dir, &token).map_err(|e| broken(RecoveryStep::Write(e)))?;
    }
    let unstage = write::index::restore(repo, &token, staged)
        .err()
        .map(|e| format!("the index entries it staged could not be put back: {e}"));
    // Temporary files first: they may be all a created directory holds.
    remove_stray_temp_files(
        &repo.work_dir,
        plan.paths
            .iter()
            .map(|p| p.path.as_str())
            .chain(pending.paths().iter().map(String::as_str)),
    );
    remove_created_dirs(&repo.work_dir, pending.dirs());
    remove_dead_runs_temp_files(repo);
    remove_dead_runs_blobs(repo);
    // From here on the files are right; what fails is bookkeeping, reported but not fatal:
    // a journal left behind only makes the next run repeat this (now empty) restore.
    let mut troubles: Vec<String> = unstage.into_iter().collect();
    let undone_already = matches!(snap.info().status, snapshot::Status::Undone { .. });
    let dropped = restored.is_empty() && saved.is_none() && !undone_already;
    if dropped {
        // No file held the apply's content: as far as the tree goes it never happened, so
        // it is not listed. The journal forgets the number first: a crash before the ref
        // is gone leaves a journal that drops it again.
        let tidy = pending
            .unname_snapshot(lock)
            .map_err(|e| e.to_string())
            .and_then(|()| snapshot::discard(repo, id).map_err(|e| e.to_string()));
        if let Err(e) = tidy {
            troubles.push(format!("its snapshot {id} could not be dropped: {e}"));
        }
    } else {
        // The snapshot stays listed, as undone: its change is no longer in the tree.
        match snapshot::mark_undone(repo, id) {
            Ok(()) | Err(SnapshotError::AlreadyUndone { .. }) => {}
            Err(e) => troubles.push(format!("snapshot {id} could not be marked undone: {e}")),
        }
    }
    // An interrupted undo is taken back: what it was undoing stands again.
    if let Some(target) = snap.info().undoes {
        if let Err(e) = snapshot::unrecord_undo(repo, target) {
            troubles.push(format!(
                "snapshot {target} could not be marked applied again: {e}"
            ));
        }
    }
    if let Err(e) = pending.clear(lock) {
        troubles.push(format!("the journal could not be removed: {e}"));
    }
    let what = if snap.info().undoes.is_some() {
        "undo"
    } else {
        "git llm-apply"
    };
    let mut message = format!(
        "an earlier {what} (snapshot {id}{pid}) was interrupted while writing; it was rolled \
         back first: "
    );
    if restored.is_empty() {
        message.push_str("no file needed restoring");
    } else {
        message.push_str(&format!("restored {}", restored.join(", ")));
    }
    if dropped {
        message.push_str(&format!("; snapshot {id} was dropped"));
    }
    if let Some(s) = saved {
        message.push_str(&format!(
            "; content written since is kept in snapshot {s} (git llm-apply undo {s} brings it back)"
        ));
    }
    for t in troubles {
        message.push_str("; but ");
        message.push_str(&t);
    }
    Ok(Notice::new(NoticeKind::Recovered, message))
}

/// A run that died before its journal named a snapshot wrote no file; the snapshot it may
/// have made is found by the journal's nonce and dropped.
fn recover_unnamed(
    repo: &Repo,
    lock: &Lock,
    pending: Pending,
    pid: &str,
) -> Result<Notice, SessionError> {
    let broken = |step: RecoveryStep| SessionError::Recovery {
        journal_dir: snapshot_state_dir(repo),
        snapshot: None,
        step: Box::new(step),
    };
    let found = match pending.nonce() {
        Some(n) => snapshot::find_by_nonce(repo, n).map_err(|e| broken(RecoveryStep::Find(e)))?,
        None => None,
    };
    if let Some(id) = found {
        snapshot::discard(repo, id).map_err(|source| broken(RecoveryStep::Drop { id, source }))?;
    }
    // Files are written under temporary names before the snapshot is named.
    remove_stray_temp_files(&repo.work_dir, pending.paths().iter().map(String::as_str));
    remove_created_dirs(&repo.work_dir, pending.dirs());
    remove_dead_runs_temp_files(repo);
    remove_dead_runs_blobs(repo);
    let mut message = format!(
        "an earlier git llm-apply{pid} was interrupted before it wrote any file; nothing \
         needed restoring"
    );
    if let Some(id) = found {
        message.push_str(&format!("; its unfinished snapshot {id} was dropped"));
    }
    if let Err(e) = pending.clear(lock) {
        message.push_str(&format!("; but the journal could not be removed: {e}"));
    }
    Ok(Notice::new(NoticeKind::Recovered, message))
}

/// Directories an interrupted apply created (its journal says which), deepest first, where
/// they are empty now: as they were before it.
fn remove_created_dirs(root: &Path, dirs: &[String]) {
    for d in dirs.iter().rev() {
        let _ = std::fs::remove_dir(root.join(d));
    }
}

/// `*.tmp` files of runs that died (their pid, in the name, no longer runs) in this
/// worktree's state directory and the shared one.
fn remove_dead_runs_temp_files(repo: &Repo) {
    let me = std::process::id();
    let (own, shared) = (
        snapshot_state_dir(repo),
        repo.common_dir().join("llm-apply"),
    );
    // One directory in the main worktree: listed once.
    let dirs = if own == shared {
        vec![own]
    } else {
        vec![own, shared]
    };
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Some(stem) = name.strip_suffix(".tmp") else {
                continue;
            };
            // journal.<pid>.tmp, lock.<pid>.<n>.tmp, last-sequence.<pid>.<nonce>.tmp
            let pid = stem.split('.').nth(1).and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid {
                if pid != me && !snapshot::process_is_alive(pid) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
}

/// A run killed while it writes a big blob leaves its temporary file (as big as the file) in
/// the objects directory: `tmp_obj_llm-apply-<pid>-*`, removed here once that pid no longer
/// runs (other worktrees' runs share the directory); `.tmp-llm-apply-*`, the name before the
/// pid was in it, once nothing has written to it for an hour (no writer pauses that long).
/// Only a recovery looks: blobs are written while a journal is pending, so a run killed in
/// one leaves a journal, and reading the objects directory costs every other run (some
/// 0.2 ms for its 256 fan-out directories).
fn remove_dead_runs_blobs(repo: &Repo) {
    const LEGACY_PREFIX: &str = ".tmp-llm-apply-";
    const LEGACY_IDLE: Duration = Duration::from_secs(3600);
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir(repo.repo.objects.store_ref().path()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let dead = if let Some(rest) = name.strip_prefix(crate::repo::STORED_TEMP_PREFIX) {
            let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
            pid.is_some_and(|pid| pid != me && !snapshot::process_is_alive(pid))
        } else if name.starts_with(LEGACY_PREFIX) {
            e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|idle| idle >= LEGACY_IDLE)
        } else {
            false
        };
        if dead {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn snapshot_state_dir(repo: &Repo) -> PathBuf {
    repo.git_dir().join("llm-apply")
}

/// A crash between creating the writer's temporary file and renaming it over the target
/// (files are written under temporary names while the snapshot is recorded) leaves
/// `.llm-apply-*.tmp` beside the target; nobody else writes that name.
fn remove_stray_temp_files<'p>(root: &Path, paths: impl IntoIterator<Item = &'p str>) {
    let mut dirs: Vec<PathBuf> = paths
        .into_iter()
        .filter_map(|p| root.join(p).parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(".llm-apply-") && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

fn approved(verdict: Verdict) -> Result<Approved, RecoveryStep> {
    match verdict {
        Verdict::Approved(token) => Ok(token),
        Verdict::Vetoed { reason, .. } => Err(RecoveryStep::Vetoed(reason)),
    }
}

/// The metadata of a snapshot taken before an undo or a recovery writes.
pub fn restore_meta(plan: &RestorePlan, intent: String) -> Meta {
    let p = plan.to_plan();
    let applied = p
        .files
        .iter()
        .filter(|f| f.status == crate::plan::FileStatus::Applied);
    let (mut files, mut added, mut removed) = (0u64, 0u64, 0u64);
    for f in applied {
        files += 1;
        added += f.added as u64;
        removed += f.removed as u64;
    }
    Meta {
        // An undo has no patch text; the digest names the request instead, so equal
        // requests hash alike.
        patch_sha256: PatchDigest::of(format!("git-llm-apply undo {}", plan.snapshot).as_bytes()),
        intent: Some(intent),
        undoes: Some(plan.snapshot),
        session: None,
        files,
        added,
        removed,
        index: Vec::new(),
        lines: plan
            .paths
            .iter()
            .map(|p| (p.path.clone(), p.lines))
            .collect(),
    }
}

/// What an apply's snapshot records besides its paths.
pub struct SnapshotRequest {
    /// The SHA-256 of the patch text.
    pub patch_sha256: PatchDigest,
    /// The snapshot's description: the label, or the first line of the patch's prose.
    pub intent: Option<String>,
    /// For the snapshot an undo takes first: the snapshot it undoes.
    pub undoes: Option<SnapshotId>,
    /// The apply's session (`--session`).
    pub session: Option<String>,
    /// For `--index`: the index entries the apply stages (under its journal, recorded in
    /// its snapshot so undo can put them back).
    pub index: Vec<write::index::Staging>,
    /// Stage `index` with the write, under its journal; otherwise the caller stages later
    /// (after a `--verify` hook passed).
    pub stage_with_write: bool,
    /// Per touched path, the lines the write adds and removes ([`super::lines::path_lines`]).
    pub lines: BTreeMap<String, LineCounts>,
    /// When the snapshots beyond `llm-apply.keep` are dropped.
    pub prune: Prune,
}

impl SnapshotRequest {
    /// An apply's request, before its plan says what it stages and counts.
    pub fn new(
        patch_sha256: PatchDigest,
        intent: Option<String>,
        session: Option<String>,
    ) -> SnapshotRequest {
        SnapshotRequest {
            patch_sha256,
            intent,
            undoes: None,
            session,
            index: Vec::new(),
            stage_with_write: false,
            lines: BTreeMap::new(),
            prune: Prune::Now,
        }
    }
}

/// Why a write failed; every file is as it was, or the journal says what the next run puts
/// back.
#[allow(missing_docs)] // each variant's #[error] message says what it is
#[derive(Debug, thiserror::Error)]
pub enum WriteFailure {
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("cannot record a snapshot without this worktree's lock")]
    Unlocked,
}

impl Kinded for WriteFailure {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Write
    }
}

/// A write that went through.
pub struct Done {
    /// The snapshot that records the write, when one was taken.
    pub snapshot: Option<SnapshotId>,
    /// What the write wants said: no snapshot kept, housekeeping that failed.
    pub notices: Vec<Notice>,
    /// Snapshots beyond `llm-apply.keep` are left for the caller to drop.
    pub prune_pending: bool,
}

/// Write `token`'s changes: recorded in a snapshot under the session's lock when `record`
/// is given, else plainly. `summary` supplies the snapshot's counts.
pub fn write(
    root: &Path,
    token: &Approved,
    record: Option<(&Session, &SnapshotRequest)>,
    summary: &Summary,
) -> Result<Done, WriteFailure> {
    let Some((session, request)) = record else {
        return Ok(write::write(root, token).map(|_| Done {
            snapshot: None,
            notices: Vec::new(),
            prune_pending: false,
        })?);
    };
    // llm-apply.keep = 0 keeps no snapshot, so none is recorded: the write is the plain one
    // of --no-snapshot (no journal either), and an apply drops the older snapshots as any
    // keep value would (an undo keeps them: it may be undoing one of them).
    if let Ok(0) = snapshot::keep_from_config(session.repo) {
        write::write(root, token)?;
        let mut message = format!(
            "no snapshot was recorded: {} is 0 (as with --no-snapshot), so this {} cannot be \
             undone",
            snapshot::KEEP_CONFIG_KEY,
            if request.undoes.is_some() {
                "undo"
            } else {
                "apply"
            }
        );
        if request.undoes.is_none() {
            match snapshot::prune(session.repo, 0) {
                Ok(dropped) if !dropped.is_empty() => {
                    let ids: Vec<String> = dropped.iter().map(ToString::to_string).collect();
                    message.push_str(&format!(
                        "; the older snapshots {} were dropped",
                        ids.join(", ")
                    ));
                }
                Ok(_) => {}
                Err(e) => message.push_str(&format!("; dropping older snapshots failed: {e}")),
            }
        }
        return Ok(Done {
            snapshot: None,
            notices: vec![Notice::new(NoticeKind::NoSnapshot, message)],
            prune_pending: false,
        });
    }
    let Some(lock) = &session.lock else {
        return Err(WriteFailure::Unlocked);
    };
    let recording = Recording {
        repo: session.repo,
        lock,
        prune: request.prune,
        stage: if request.stage_with_write {
            &request.index
        } else {
            &[]
        },
        meta: Meta {
            patch_sha256: request.patch_sha256,
            intent: request.intent.clone(),
            undoes: request.undoes,
            session: request.session.clone(),
            files: summary.files as u64,
            added: summary.added as u64,
            removed: summary.removed as u64,
            index: request
                .index
                .iter()
                .map(|s| s.change(session.repo))
                .collect(),
            lines: request.lines.clone(),
        },
    };
    let done = recorded::write_recorded(root, token, &recording)?;
    // Pruned snapshots are routine housekeeping (llm-apply.keep), not news for the report.
    let notices = done
        .warnings
        .iter()
        .map(|w| Notice::new(NoticeKind::SnapshotHousekeeping, w.clone()))
        .collect();
    Ok(Done {
        snapshot: Some(done.snapshot),
        notices,
        prune_pending: done.prune_pending,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A held lock is the one session failure that makes the run busy (exit 4, retry later)
    /// rather than failed (exit 2); the error says so, not the site that meets it.
    #[test]
    fn a_held_lock_is_busy_and_other_session_failures_are_errors() {
        let io = |m: &str| LockError::Io {
            path: PathBuf::from("/r/.git/llm-apply/lock"),
            source: std::io::Error::other(m.to_string()),
        };
        let busy = SessionError::Busy(io("held")).report();
        assert_eq!(
            (busy.errors[0].kind, busy.exit_code()),
            (ErrorKind::Lock, 4)
        );
        let unlockable = SessionError::Unlockable(io("read-only")).report();
        assert_eq!(
            (unlockable.errors[0].kind, unlockable.exit_code()),
            (ErrorKind::Lock, 2)
        );
        assert_eq!(
            unlockable.errors[0].message,
            "cannot use the lock file /r/.git/llm-apply/lock: read-only (--no-snapshot applies \
             without recording a snapshot)"
        );
        let recovery = SessionError::Recovery {
            journal_dir: PathBuf::from("/r/.git/llm-apply"),
            snapshot: None,
            step: Box::new(RecoveryStep::Unsafe(vec!["a".into(), "b".into()])),
        };
        assert_eq!(recovery.kind(), ErrorKind::Recovery);
        assert_eq!(
            recovery.to_string(),
            "an interrupted apply left /r/.git/llm-apply/journal, but these paths cannot be \
             restored safely: a, b; the journal is kept, so the next run tries again"
        );
        assert_eq!(
            SessionError::NotADirectory(PathBuf::from("nowhere")).kind(),
            ErrorKind::Usage
        );
    }

    #[test]
    fn git_versions_are_read_from_every_spelling_git_prints() {
        assert_eq!(parse_git_version("git version 2.39.5\n"), Some([2, 39, 5]));
        assert_eq!(
            parse_git_version("git version 2.39.5.windows.1"),
            Some([2, 39, 5])
        );
        assert_eq!(
            parse_git_version("git version 2.17.0 (Apple Git-1)"),
            Some([2, 17, 0])
        );
        assert_eq!(
            parse_git_version("git version 2.45.0-rc1"),
            Some([2, 45, 0])
        );
        assert_eq!(parse_git_version("git version 3.0"), Some([3, 0, 0]));
        assert_eq!(parse_git_version("hub version 2.14.2"), None);
        assert_eq!(parse_git_version(""), None);
        assert!(parse_git_version("git version 2.16.6").expect("parsed") < MIN_GIT);
        assert!(parse_git_version("git version 2.17.0").expect("parsed") >= MIN_GIT);
    }
}

//! The per-worktree lock that serialises runs: `<git dir>/llm-apply/lock`, holding the pid.
//!
//! The lock file appears with its content in one step (written to a private temporary file,
//! then hard-linked into place, which fails when the name exists), so a reader never sees a
//! half-written holder. A lock whose pid no longer runs is taken over under a second,
//! short-lived guard file, so two waiters cannot both remove it and both believe they won.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::repo::Repo;

const LOCK_FILE: &str = "lock";
const TAKEOVER_FILE: &str = "lock.takeover";
/// A takeover guard lives for microseconds; one this old was left by a process that died in
/// between, and may be removed.
const TAKEOVER_STALE_AFTER: Duration = Duration::from_secs(10);
/// Tokens (lock file contents) this process holds or is trying to take. A lock file naming
/// our own pid whose content is not in here was left by an earlier process that had the same
/// pid (pids are reused quickly in containers), so it is stale rather than ours. A token is
/// registered before its file can exist and dropped only after the file is gone, so another
/// thread of this process never mistakes a live lock for a stale one.
fn tokens_here() -> &'static Mutex<HashSet<String>> {
    static TOKENS: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    TOKENS.get_or_init(Default::default)
}

fn token_is_ours(content: &str) -> bool {
    // A poisoned set only means a panic elsewhere; its content is still right.
    let tokens = tokens_here().lock().unwrap_or_else(|e| e.into_inner());
    tokens.contains(content)
}

fn register_token(token: &str, ours: bool) {
    let mut tokens = tokens_here().lock().unwrap_or_else(|e| e.into_inner());
    if ours {
        tokens.insert(token.to_string());
    } else {
        tokens.remove(token);
    }
}

const FIRST_DELAY: Duration = Duration::from_millis(5);
const MAX_DELAY: Duration = Duration::from_millis(100);

/// Who holds a lock, as its file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// A process of this host, by its id.
    Process {
        /// Its process id.
        pid: u32,
        /// Seconds since the Unix epoch when it took the lock.
        since: i64,
    },
    /// The file does not say, in a form this version reads; it is never taken over.
    #[allow(missing_docs)] // `content`: the lock file's text, shown in the error
    Unknown { content: String },
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Holder::Process { pid, since } => {
                let ago = now_seconds().saturating_sub(*since).max(0);
                write!(f, "held by pid {pid} for {ago} s")
            }
            Holder::Unknown { content } => {
                write!(f, "held by an unknown process (lock file says {content:?})")
            }
        }
    }
}

/// Why the work tree's lock could not be taken.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot use the lock file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "another git llm-apply is working in this worktree: {path} is {holder}; gave up after \
         waiting {waited:.1?} (if no such process runs any more, remove that file)"
    )]
    Timeout {
        path: PathBuf,
        holder: Holder,
        waited: Duration,
    },
}

impl crate::patch::kinds::Kinded for LockError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Lock
    }
}

/// Exclusive right to change this worktree's files and journal; released when dropped.
#[derive(Debug)]
pub struct Lock {
    dir: PathBuf,
    path: PathBuf,
    /// The exact file content this holder wrote, so a drop never removes someone else's lock.
    token: String,
}

impl Lock {
    /// Take the lock of `repo`'s worktree, waiting up to `timeout` for a running holder.
    /// A lock left by a process that no longer runs is taken over.
    pub fn acquire(repo: &Repo, timeout: Duration) -> Result<Lock, LockError> {
        Lock::acquire_in(&super::state_dir(repo), timeout)
    }

    pub(crate) fn acquire_in(dir: &Path, timeout: Duration) -> Result<Lock, LockError> {
        let token = format!(
            "pid {}\nsince {}\nnonce {}\n",
            std::process::id(),
            now_seconds(),
            nonce()
        );
        register_token(&token, true);
        let result = Lock::try_acquire(dir, timeout, token.clone());
        if result.is_err() {
            register_token(&token, false);
        }
        result
    }

    fn try_acquire(dir: &Path, timeout: Duration, token: String) -> Result<Lock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io_err = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(dir).map_err(io_err)?;
        let start = Instant::now();
        let mut delay = FIRST_DELAY;
        loop {
            match create_with_content(dir, &path, &token) {
                Ok(()) => {
                    return Ok(Lock {
                        dir: dir.to_path_buf(),
                        path,
                        token,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_err(e)),
            }
            let content = match fs::read_to_string(&path) {
                Ok(c) => c,
                // Released between our attempt and this read: try again at once.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(e)),
            };
            let holder = parse_holder(&content);
            if let Holder::Process { pid, .. } = holder {
                let alive = if pid == std::process::id() {
                    token_is_ours(&content)
                } else {
                    process_is_alive(pid)
                };
                if !alive && take_over(dir, &path, &content).map_err(io_err)? {
                    continue;
                }
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(LockError::Timeout {
                    path,
                    holder,
                    waited,
                });
            }
            std::thread::sleep(delay.min(timeout - waited));
            delay = (delay * 2).min(MAX_DELAY);
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The worktree state directory this lock guards.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Give the lock up now (dropping does the same, silently).
    pub fn release(self) -> Result<(), LockError> {
        // The drop that follows finds the file gone or someone else's, and leaves it alone.
        self.remove_if_ours()
            .map_err(|(path, source)| LockError::Io { path, source })
    }

    fn remove_if_ours(&self) -> Result<(), (PathBuf, io::Error)> {
        let result = self.remove_file_if_ours();
        register_token(&self.token, false);
        result
    }

    fn remove_file_if_ours(&self) -> Result<(), (PathBuf, io::Error)> {
        match fs::read_to_string(&self.path) {
            Ok(content) if content == self.token => {
                super::fault::mutation("lock: remove");
                fs::remove_file(&self.path).map_err(|e| (self.path.clone(), e))
            }
            // Someone removed or replaced it by hand: it is no longer ours to remove.
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err((self.path.clone(), e)),
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Nothing to report to from a drop; a lock left behind names a dead pid and is taken
        // over by the next run.
        let _ = self.remove_if_ours();
    }
}

fn now_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Distinguishes two acquisitions by one process (threads), which share a pid.
fn nonce() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    (COUNTER.fetch_add(1, Ordering::Relaxed) << 32) | u64::from(nanos)
}

/// Create `path` holding `content`, failing with `AlreadyExists` when it exists.
fn create_with_content(dir: &Path, path: &Path, content: &str) -> io::Result<()> {
    let tmp = dir.join(format!("lock.{}.{}.tmp", std::process::id(), nonce()));
    let result = (|| {
        super::fault::mutation("lock: write temporary file");
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(content.as_bytes())?;
        super::fault::mutation("lock: link into place");
        fs::hard_link(&tmp, path)
    })();
    super::fault::mutation("lock: remove temporary file");
    let _ = fs::remove_file(&tmp);
    result
}

fn parse_holder(content: &str) -> Holder {
    let mut pid = None;
    let mut since = None;
    for line in content.lines() {
        match line.split_once(' ') {
            Some(("pid", v)) => pid = v.parse::<u32>().ok(),
            Some(("since", v)) => since = v.parse::<i64>().ok(),
            _ => {}
        }
    }
    match (pid, since) {
        (Some(pid), Some(since)) if pid != 0 => Holder::Process { pid, since },
        _ => Holder::Unknown {
            content: content.chars().take(80).collect(),
        },
    }
}

/// Remove a lock whose holder is dead, if it still says what we read. `Ok(true)`: try again now.
fn take_over(dir: &Path, path: &Path, seen: &str) -> io::Result<bool> {
    let guard = dir.join(TAKEOVER_FILE);
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&guard)
    {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let abandoned = fs::metadata(&guard)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > TAKEOVER_STALE_AFTER);
            if abandoned {
                let _ = fs::remove_file(&guard);
            }
            return Ok(false);
        }
        Err(e) => return Err(e),
    }
    // Under the guard, nobody else removes the lock; a live process may still have replaced it
    // since we read it, which is why its content is compared again.
    let result = match fs::read_to_string(path) {
        Ok(now) if now == seen => match fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
            Err(e) => Err(e),
        },
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(e),
    };
    let _ = fs::remove_file(&guard);
    result
}

/// Whether a process with this id may still run; an id we cannot check counts as alive,
/// so a lock is never taken over from a process that might hold it.
#[cfg(unix)]
pub fn process_is_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // Signal 0 checks existence without signalling. EPERM means it exists under another user.
    // SAFETY: kill with signal 0 has no side effect; it only reports whether pid exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Whether a process with this id may still run: without a way to ask, every process
/// counts as alive, so a lock is never taken over.
#[cfg(not(unix))]
pub fn process_is_alive(_pid: u32) -> bool {
    // Without a cheap liveness check, never take a lock over; the timeout error says what to do.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holder_is_read_back_from_the_token_format() {
        assert_eq!(
            parse_holder("pid 42\nsince 7\nnonce 1\n"),
            Holder::Process { pid: 42, since: 7 }
        );
        assert!(matches!(parse_holder(""), Holder::Unknown { .. }));
        assert!(matches!(
            parse_holder("pid x\nsince 1\n"),
            Holder::Unknown { .. }
        ));
    }

    #[test]
    fn our_own_pid_counts_as_alive() {
        assert!(process_is_alive(std::process::id()));
    }

    #[test]
    fn second_acquire_in_one_process_waits_and_times_out() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = Lock::acquire_in(dir.path(), Duration::ZERO).expect("free lock");
        let err = Lock::acquire_in(dir.path(), Duration::from_millis(50)).expect_err("held");
        assert!(matches!(err, LockError::Timeout { .. }), "{err}");
        first.release().expect("release");
        Lock::acquire_in(dir.path(), Duration::ZERO).expect("free again");
    }

    #[test]
    fn a_lock_naming_our_pid_that_we_do_not_hold_is_stale() {
        let dir = tempfile::tempdir().expect("temp dir");
        let stale = format!("pid {}\nsince 1\nnonce 0\n", std::process::id());
        fs::write(dir.path().join(LOCK_FILE), stale).expect("stale lock");
        let lock = Lock::acquire_in(dir.path(), Duration::from_secs(5)).expect("taken over");
        assert!(matches!(
            Lock::acquire_in(dir.path(), Duration::ZERO),
            Err(LockError::Timeout { .. })
        ));
        drop(lock);
    }

    #[test]
    fn a_replaced_lock_file_is_not_removed_by_the_old_holder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lock = Lock::acquire_in(dir.path(), Duration::ZERO).expect("free lock");
        fs::write(lock.path(), "pid 1\nsince 1\n").expect("overwrite");
        let path = lock.path().to_path_buf();
        drop(lock);
        assert!(path.exists(), "the lock now belongs to someone else");
    }
}

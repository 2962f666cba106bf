//! What a long-running server keeps of its directory's git config between calls: the entries
//! read and the repository opened to read them, used again by the next call while every file
//! they could have come from is as it was. Reading them again costs more than the rest of a
//! one-line apply's own work (the config files parsed, the repository's object store and
//! references set up); checking them is a `stat` per file.
//!
//! What is compared, by device, inode, mode, size, modification and change time:
//! - each file git would read config from, whether it exists or not: the system file, the
//!   global ones (`GIT_CONFIG_GLOBAL`, the XDG file, `~/.gitconfig`), the repository's
//!   `config` and its worktree's `config.worktree`, and every file a section was read from;
//! - the `.git` that discovery found, and the absence of one in every directory between it
//!   and the server's directory (a repository made there would be found instead);
//! - the index and `packed-refs`, which the repository keeps once read and checks by
//!   modification time alone (a rewrite within one timestamp tick would go unseen);
//! - the git binary, which says where the system file is.
//!
//! Nothing is kept when the config includes other files (`include.path`, `includeIf`): an
//! include's target can appear later, and `includeIf "onbranch:"` follows HEAD. Nor when a
//! file was changed in the last [`RACY`] (a second write within one timestamp tick could
//! leave its times as they were): the next call reads again. The environment (`git -c`, the
//! `GIT_CONFIG_*` variables) is the process's own and does not change under it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::config::{self, Pending};

/// Files changed this recently are not trusted to show a later change in their times.
const RACY: Duration = Duration::from_secs(3);

thread_local! {
    /// The config and repository of the last call on this thread, when they may be used
    /// again. Per thread: gix, built without its `parallel` feature, shares a repository
    /// within one thread only. A server's calls run on its few worker threads, so each keeps
    /// one.
    static KEPT: RefCell<Option<Read>> = const { RefCell::new(None) };
}

/// One directory's config as read, and what it was read from.
struct Read {
    dir: PathBuf,
    entries: Vec<(String, Option<String>)>,
    repo: gix::ThreadSafeRepository,
    sources: Vec<(PathBuf, Option<Stat>)>,
}

/// What `stat` says of a file (links followed, as the config reader follows them); `None`
/// for a file that is not there or cannot be looked at. Of a directory (a `.git`), only which
/// it is: git writes in it all the time (`index.lock`), and what it holds is compared file
/// by file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn stat(path: &Path) -> Option<Stat> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    if m.is_dir() {
        return Some(Stat {
            dev: m.dev(),
            ino: m.ino(),
            mode: m.mode(),
            size: 0,
            mtime: (0, 0),
            ctime: (0, 0),
        });
    }
    Some(Stat {
        dev: m.dev(),
        ino: m.ino(),
        mode: m.mode(),
        size: m.size(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

/// The config of `dir` (a full path) for one call: the one kept on this thread when nothing
/// it was read from has changed, else read again, and kept when it can be.
pub fn pending(dir: &Path) -> Pending {
    let (pending, kept) = pending_with(dir, racy());
    trace(if kept { "kept" } else { "read" });
    pending
}

/// [`pending`], with files changed within `racy` of the read not trusted; and whether the
/// kept config was used.
fn pending_with(dir: &Path, racy: Duration) -> (Pending, bool) {
    KEPT.with(|kept| {
        let mut slot = kept.borrow_mut();
        if let Some(k) = slot.as_ref() {
            if k.dir == dir && k.sources.iter().all(|(p, s)| stat(p) == *s) {
                let config = config::from_entries(&k.entries);
                return (Pending::of(dir, config, Some(k.repo.clone())), true);
            }
        }
        *slot = None;
        let started = SystemTime::now();
        let pending = match config::entries_and_repository(dir) {
            Ok((entries, repo)) => {
                if let Some(r) = &repo {
                    *slot = keepable(dir, &entries, r, started, racy);
                }
                Pending::of(dir, config::from_entries(&entries), repo)
            }
            Err(e) => Pending::of(dir, Err(e), None),
        };
        (pending, false)
    })
}

/// Test builds say whether each call used the kept config (tests/README).
fn trace(what: &str) {
    #[cfg(debug_assertions)]
    if std::env::var_os("GIT_LLM_APPLY_TEST_TRACE_CONFIG").is_some() {
        eprintln!("git llm-apply: config {what}");
    }
    let _ = what;
}

/// How recent a change must be to be distrusted: [`RACY`], or in test builds what
/// `GIT_LLM_APPLY_TEST_RACY_SECONDS` says, so that a test need not wait.
fn racy() -> Duration {
    #[cfg(debug_assertions)]
    if let Some(s) = std::env::var_os("GIT_LLM_APPLY_TEST_RACY_SECONDS") {
        if let Ok(n) = s.to_string_lossy().parse::<u64>() {
            return Duration::from_secs(n);
        }
    }
    RACY
}

/// The read to keep, when it can be kept: no includes, the server's directory inside the
/// work tree, and no source changed since shortly before `started`.
fn keepable(
    dir: &Path,
    entries: &[(String, Option<String>)],
    repo: &gix::ThreadSafeRepository,
    started: SystemTime,
    racy: Duration,
) -> Option<Read> {
    let local = repo.to_thread_local();
    let snapshot = local.config_snapshot();
    let file = snapshot.plumbing();
    let includes = file.sections().any(|s| {
        let name = s.header().name();
        name.eq_ignore_ascii_case(b"include") || name.eq_ignore_ascii_case(b"includeIf")
    });
    if includes {
        return None;
    }
    let work = local.workdir()?;
    if !dir.starts_with(work) {
        return None;
    }
    let mut paths: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| *d != work)
        .map(|d| d.join(".git"))
        .collect();
    paths.push(work.join(".git"));
    paths.push(local.common_dir().join("config"));
    paths.push(local.git_dir().join("config.worktree"));
    // What the repository itself keeps once read, and checks only by modification time:
    // the index and the packed references.
    paths.push(local.index_path());
    paths.push(local.common_dir().join("packed-refs"));
    paths.extend(file.sections().filter_map(|s| s.meta().path.clone()));
    paths.extend(config::system_file(Some(local.git_dir())));
    let env = |name: &str| std::env::var_os(name);
    for source in [gix::config::Source::Git, gix::config::Source::User] {
        paths.extend(source.storage_location(&mut |n| env(n)));
    }
    paths.extend(env("GIT_CONFIG_GLOBAL").map(PathBuf::from));
    paths.extend(super::binary::resolved());
    paths.sort();
    paths.dedup();
    let since = started.checked_sub(racy)?;
    let recent = |(s, ns): (i64, i64)| {
        let at = u64::try_from(s).map_or(SystemTime::UNIX_EPOCH, |s| {
            SystemTime::UNIX_EPOCH + Duration::new(s, u32::try_from(ns).unwrap_or(0))
        });
        at >= since
    };
    let sources: Vec<(PathBuf, Option<Stat>)> = paths
        .into_iter()
        .map(|p| {
            let s = stat(&p);
            (p, s)
        })
        .collect();
    // A file a section was read from and gone since cannot be told from one that never was.
    let read_from: Vec<PathBuf> = file
        .sections()
        .filter_map(|s| s.meta().path.clone())
        .collect();
    let settled = sources.iter().all(|(p, s)| match s {
        Some(s) => !recent(s.mtime) && !recent(s.ctime),
        None => !read_from.contains(p),
    });
    settled.then(|| Read {
        dir: dir.to_path_buf(),
        entries: entries.to_vec(),
        repo: repo.clone(),
        sources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new(crate::git::binary())
            .args(args)
            .current_dir(dir)
            .env_remove("GIT_DIR")
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// One call's config: whether it was kept, and whether it is valid.
    fn call(dir: &Path) -> (bool, bool) {
        let (pending, kept) = pending_with(dir, Duration::ZERO);
        (kept, pending.get().is_ok())
    }

    const INVALID: &str = "[llm-apply]\n\tfsync = sometimes\n";

    /// Kept while its files are as they were; read again (and right) after any change to
    /// the repository's config or to a file it includes, and never kept with an include.
    #[test]
    fn the_config_is_kept_until_a_file_it_comes_from_changes() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let d = tmp.path().canonicalize().expect("full path");
        git(&d, &["init", "-q"]);
        assert_eq!(call(&d), (false, true), "the first call reads");
        assert_eq!(call(&d), (true, true), "the second keeps");
        git(&d, &["config", "llm-apply.fsync", "sometimes"]);
        assert_eq!(call(&d), (false, false), "a changed config is read again");
        assert_eq!(call(&d), (true, false));
        git(&d, &["config", "--unset", "llm-apply.fsync"]);
        assert_eq!(call(&d), (false, true));
        // An include whose file is not there yet: never kept.
        let included = d.join("included.cfg");
        git(&d, &["config", "include.path", "../included.cfg"]);
        assert_eq!(call(&d), (false, true));
        assert_eq!(
            call(&d),
            (false, true),
            "a config with includes is not kept"
        );
        std::fs::write(&included, INVALID).expect("write");
        assert_eq!(call(&d), (false, false), "the included file is read");
        git(&d, &["config", "--unset", "include.path"]);
        assert_eq!(call(&d), (false, true));
        assert_eq!(call(&d), (true, true));
        // The index, which the repository keeps once read: changed, it is read again.
        std::fs::write(d.join("f.txt"), "f\n").expect("write");
        git(&d, &["add", "f.txt"]);
        assert_eq!(call(&d), (false, true), "a new index is read again");
        assert_eq!(call(&d), (true, true));
        // The same file changed in place, its size and inode as they were.
        let config = d.join(".git/config");
        let text = std::fs::read_to_string(&config).expect("read");
        let changed = format!("{text}[llm-apply]\n\tfsync = true\n");
        std::fs::write(&config, &changed).expect("write");
        assert_eq!(call(&d), (false, true));
        assert_eq!(call(&d), (true, true));
        // Past the file system's timestamp tick (the racy time is the product's guard).
        std::thread::sleep(Duration::from_millis(50));
        let same_size = changed.replace("fsync = true", "fsync = fals");
        std::fs::write(&config, same_size).expect("write");
        assert_eq!(call(&d), (false, false), "rewritten in place, same size");
    }

    /// A repository made between the server's directory and the one it was in is the one the
    /// next call opens.
    #[test]
    fn a_repository_made_below_the_one_kept_is_found() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let d = tmp.path().canonicalize().expect("full path");
        git(&d, &["init", "-q"]);
        let sub = d.join("sub");
        std::fs::create_dir(&sub).expect("mkdir");
        assert_eq!(call(&sub), (false, true));
        assert_eq!(call(&sub), (true, true));
        git(&sub, &["init", "-q"]);
        let (pending, kept) = pending_with(&sub, Duration::ZERO);
        assert!(!kept);
        let repo = pending.take_repository(&sub).expect("a repository");
        assert_eq!(
            repo.to_thread_local()
                .git_dir()
                .canonicalize()
                .expect("path"),
            sub.join(".git")
        );
    }

    /// A file changed within the racy time of the read is not trusted to show the next
    /// change: nothing is kept.
    #[test]
    fn a_config_changed_just_now_is_not_kept() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let d = tmp.path().canonicalize().expect("full path");
        git(&d, &["init", "-q"]);
        let (_, kept) = pending_with(&d, Duration::from_secs(3600));
        assert!(!kept);
        let (_, kept) = pending_with(&d, Duration::from_secs(3600));
        assert!(!kept, "written within the hour: read again");
    }
}

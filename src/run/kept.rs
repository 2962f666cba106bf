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
//! - the `.git` that discovery found (and a linked worktree's `commondir`), and the absence of
//!   one in every directory between it and the server's directory (a repository made there
//!   would be found instead);
//! - `packed-refs`, which the repository keeps once read and checks by modification time
//!   alone (a rewrite within one timestamp tick would go unseen; the index, kept the same
//!   way, is read by each run itself: `Repo::index`), and
//!   `refs/replace`, whose replacements it reads when it opens, and `objects/pack` and
//!   `objects/info/alternates`, its object store being sized for the packs it found;
//! - the git binary, which says where the system file is.
//!
//! Nothing is kept when the config includes other files (`include.path`, `includeIf`): an
//! include's target can appear later, and `includeIf "onbranch:"` follows HEAD. Nor when a
//! source's ctime is not older than the coarse clock read before the config was (the rule of
//! [`crate::repo::stamp`]: then any later change gives it a new ctime), nor where that clock
//! is not known (outside Linux): the next call reads again. The environment (`git -c`, the
//! `GIT_CONFIG_*` variables) is the process's own and does not change under it.
//!
//! The rule trusts the file system's times to come from this machine's clock. A network file
//! system whose server's clock runs behind could stamp a change made during a read as older
//! than the read; the config read then stays kept until the file changes again.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::git::config::{self, Pending};
use crate::git::object_cache::SmallObjects;
use crate::repo::stamp::{coarse_now, settled, Stamp};

thread_local! {
    /// The config and repository of the last call on this thread, when they may be used
    /// again. Per thread: gix, built without its `parallel` feature, shares a repository
    /// within one thread only. A server runs every call on its one call thread (`mcp/calls.rs`).
    static KEPT: RefCell<Option<Read>> = const { RefCell::new(None) };
}

/// One directory's config as read, and what it was read from.
struct Read {
    dir: PathBuf,
    entries: Vec<(String, Option<String>)>,
    repo: gix::ThreadSafeRepository,
    /// The trees and commits the calls read, shared from one to the next.
    objects: SmallObjects,
    sources: Vec<Source>,
}

/// A file or directory the read depends on, and what `stat` said of it then.
struct Source {
    path: PathBuf,
    /// Compared by identity only (a git directory, which git writes in all the time:
    /// `index.lock`), not by size and times.
    identity: bool,
    stamp: Option<Stamp>,
}

impl Source {
    fn new(path: PathBuf, identity: bool) -> Source {
        let stamp = stat(&path, identity);
        Source {
            path,
            identity,
            stamp,
        }
    }

    fn unchanged(&self) -> bool {
        stat(&self.path, self.identity) == self.stamp
    }
}

/// What `stat` says of a file (links followed, as the config reader follows them); `None`
/// for a file that is not there or cannot be looked at. With `identity`, only which file it
/// is: device, inode, mode and owner.
fn stat(path: &Path, identity: bool) -> Option<Stamp> {
    let stamp = Stamp::of(&std::fs::metadata(path).ok()?);
    Some(if identity {
        Stamp {
            size: 0,
            mtime: (0, 0),
            ctime: (0, 0),
            ..stamp
        }
    } else {
        stamp
    })
}

/// The config of `dir` (a full path) for one call: the one kept on this thread when nothing
/// it was read from has changed, else read again, and kept when it can be.
pub fn pending(dir: &Path) -> Pending {
    let (pending, kept) = pending_with(dir);
    trace(if kept { "kept" } else { "read" });
    pending
}

/// [`pending`], and whether the kept config was used.
fn pending_with(dir: &Path) -> (Pending, bool) {
    KEPT.with(|kept| {
        let mut slot = kept.borrow_mut();
        if let Some(k) = slot.as_ref() {
            if k.dir == dir && k.sources.iter().all(Source::unchanged) {
                let config = config::from_entries(&k.entries);
                let pending = Pending::of(dir, config, Some(k.repo.clone()), k.objects.clone());
                return (pending, true);
            }
        }
        *slot = None;
        let started = coarse_now();
        let pending = match config::entries_and_repository(dir) {
            Ok((entries, repo)) => {
                if let Some(r) = &repo {
                    *slot = started.and_then(|t| keepable(dir, &entries, r, t));
                }
                let objects = slot.as_ref().map(|k| k.objects.clone()).unwrap_or_default();
                Pending::of(dir, config::from_entries(&entries), repo, objects)
            }
            Err(e) => Pending::of(dir, Err(e), None, SmallObjects::default()),
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

/// The read to keep, when it can be kept: no includes, the server's directory inside the
/// work tree, and every source's ctime older than `started` (the coarse clock before the
/// read), so that the read saw it as it is and any later change will show.
fn keepable(
    dir: &Path,
    entries: &[(String, Option<String>)],
    repo: &gix::ThreadSafeRepository,
    started: (i64, i64),
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
    // The git directories, compared by identity: the `.git` found (and none made between it
    // and the server's directory) and this worktree's own.
    let mut git_dirs: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| *d != work)
        .map(|d| d.join(".git"))
        .collect();
    git_dirs.push(work.join(".git"));
    git_dirs.push(local.git_dir().to_path_buf());
    // Every file a section was read from.
    let read_from: Vec<PathBuf> = file
        .sections()
        .filter_map(|s| s.meta().path.clone())
        .collect();
    let mut paths = read_from.clone();
    // A linked worktree's way to the repository it belongs to.
    paths.push(local.git_dir().join("commondir"));
    paths.push(local.common_dir().join("config"));
    paths.push(local.git_dir().join("config.worktree"));
    // What the repository itself keeps once read: the packed references (checked by
    // modification time alone), and the replacement objects (read at opening), whose
    // directory's times change with every entry added or removed. Not the index: a run
    // reads its own (`Repo::index`).
    paths.push(local.common_dir().join("packed-refs"));
    paths.push(local.common_dir().join("refs/replace"));
    // The object store is sized for the packs there were when it opened: a pack added since
    // (a fetch, a repack) needs a store opened again.
    let objects = local.objects.store_ref().path().to_path_buf();
    paths.push(objects.join("pack"));
    paths.push(objects.join("info/alternates"));
    paths.extend(config::system_file(Some(local.git_dir())));
    let env = |name: &str| std::env::var_os(name);
    for source in [gix::config::Source::Git, gix::config::Source::User] {
        paths.extend(source.storage_location(&mut |n| env(n)));
    }
    paths.extend(env("GIT_CONFIG_GLOBAL").map(PathBuf::from));
    paths.extend(crate::git::binary::resolved());
    for list in [&mut git_dirs, &mut paths] {
        list.sort();
        list.dedup();
    }
    let sources: Vec<Source> = git_dirs
        .into_iter()
        .map(|p| Source::new(p, true))
        .chain(paths.into_iter().map(|p| Source::new(p, false)))
        .collect();
    // A file a section was read from and gone since cannot be told from one that never was.
    let settled = sources.iter().all(|s| match s.stamp {
        Some(stamp) => settled(stamp.ctime, started),
        None => !read_from.contains(&s.path),
    });
    settled.then(|| Read {
        dir: dir.to_path_buf(),
        entries: entries.to_vec(),
        repo: repo.clone(),
        objects: SmallObjects::default(),
        sources,
    })
}

// Its tests need the coarse clock, which only Linux gives (repo/stamp.rs).
#[cfg(all(test, target_os = "linux", not(feature = "portable")))]
mod tests {
    use super::*;

    use crate::git::run_for_test as git;

    /// Longer than the coarse clock's tick (at most 10 ms): what was written before is
    /// older than the next read.
    fn settle() {
        std::thread::sleep(std::time::Duration::from_millis(25));
    }

    /// A new repository (its directory, full path), when this machine's own config lets a
    /// read be kept at all: its global or system file may include others, and then nothing
    /// is ever kept and these tests, which say so, prove nothing.
    fn repository_that_keeps() -> Option<(tempfile::TempDir, PathBuf)> {
        let tmp = tempfile::tempdir().expect("tempdir");
        let d = tmp.path().canonicalize().expect("full path");
        git(&d, &["init", "-q"]);
        call(&d);
        if !call(&d).0 {
            eprintln!("skipped: this machine's git config includes files, so none is kept");
            return None;
        }
        Some((tmp, d))
    }

    /// One call's config, after the clock moved on: whether it was kept, and whether it is
    /// valid.
    fn call(dir: &Path) -> (bool, bool) {
        settle();
        let (pending, kept) = pending_with(dir);
        (kept, pending.get().is_ok())
    }

    const INVALID: &str = "[llm-apply]\n\tfsync = sometimes\n";

    /// Kept while its files are as they were; read again (and right) after any change to
    /// the repository's config, to a file it includes or to the index, and never kept with
    /// an include.
    #[test]
    fn the_config_is_kept_until_a_file_it_comes_from_changes() {
        let Some((_tmp, d)) = repository_that_keeps() else {
            return;
        };
        git(&d, &["config", "llm-apply.verify", "false"]);
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
        // A new index keeps the repository (`git add` between calls is common), and the run
        // reads the index as it is now, not as the kept repository last saw it.
        let index_has = |pending: &Pending| {
            let opened = pending.take_repository(&d).expect("the kept repository");
            let repo = crate::repo::Repo::opened(opened, &d, pending.objects()).expect("open");
            repo.index()
                .is_some_and(|i| i.entry_by_path("f.txt".into()).is_some())
        };
        settle();
        let (pending, _) = pending_with(&d);
        assert!(!index_has(&pending));
        std::fs::write(d.join("f.txt"), "f\n").expect("write");
        git(&d, &["add", "f.txt"]);
        settle();
        let (pending, kept) = pending_with(&d);
        assert!(kept, "a new index keeps the repository");
        assert!(index_has(&pending), "the run reads the new index");
        // A pack made: the object store is sized for the packs it found.
        git(&d, &["commit", "-qm", "f"]);
        call(&d);
        assert_eq!(call(&d), (true, true));
        git(&d, &["repack", "-q"]);
        assert_eq!(call(&d), (false, true), "a new pack opens the store again");
        assert_eq!(call(&d), (true, true));
        // A replacement object, which the repository reads when it opens.
        std::fs::write(d.join("g.txt"), "g\n").expect("write");
        let f = git(&d, &["hash-object", "-w", "f.txt"]);
        let g = git(&d, &["hash-object", "-w", "g.txt"]);
        git(&d, &["replace", &f, &g]);
        assert_eq!(call(&d), (false, true), "a new replacement is read again");
        assert_eq!(call(&d), (true, true));
        // The same file rewritten in place, its inode as it was: longer, then the same size.
        let config = d.join(".git/config");
        let text = std::fs::read_to_string(&config).expect("read");
        let changed = format!("{text}[llm-apply]\n\tfsync = true\n");
        std::fs::write(&config, &changed).expect("write");
        assert_eq!(call(&d), (false, true));
        assert_eq!(call(&d), (true, true));
        let same_size = changed.replace("fsync = true", "fsync = fals");
        std::fs::write(&config, same_size).expect("write");
        assert_eq!(call(&d), (false, false), "rewritten in place, same size");
    }

    /// A repository made between the server's directory and the one it was in is the one the
    /// next call opens.
    #[test]
    fn a_repository_made_below_the_one_kept_is_found() {
        let Some((_tmp, d)) = repository_that_keeps() else {
            return;
        };
        let sub = d.join("sub");
        std::fs::create_dir(&sub).expect("mkdir");
        assert_eq!(call(&sub), (false, true));
        assert_eq!(call(&sub), (true, true));
        git(&sub, &["init", "-q"]);
        settle();
        let (pending, kept) = pending_with(&sub);
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

    /// A config read in the clock tick it was written in is not trusted to show the next
    /// change: a read that began at its ctime is not kept, one that began a nanosecond later
    /// is.
    #[test]
    fn a_config_changed_within_the_tick_of_the_read_is_not_kept() {
        let Some((_tmp, d)) = repository_that_keeps() else {
            return;
        };
        git(&d, &["config", "llm-apply.fsync", "true"]);
        settle();
        let (entries, repo) = config::entries_and_repository(&d).expect("read");
        let repo = repo.expect("a repository");
        let config = d.join(".git/config");
        let (s, ns) = Stamp::of(&std::fs::metadata(&config).expect("stat")).ctime;
        let whole = ns == 0;
        let next = |(s, ns): (i64, i64)| {
            if ns == 999_999_999 {
                (s + 1, 0)
            } else {
                (s, ns + 1)
            }
        };
        assert!(
            keepable(&d, &entries, &repo, (s, ns)).is_none(),
            "read in its tick"
        );
        if !whole {
            assert!(
                keepable(&d, &entries, &repo, next((s, ns))).is_some(),
                "read after it"
            );
        }
        assert!(keepable(&d, &entries, &repo, (s + 2, ns)).is_some());
    }
}

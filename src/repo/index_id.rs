//! A big file's blob id without hashing it: the index's, where the index's stat data for the
//! file is exactly the file's as read ([`Stamp`]) and git would trust it too.
//!
//! git trusts an entry whose stat data matches the file, unless it is racy (the file's mtime
//! not older than the index's own), and so do we; and further, the id is the work tree's
//! bytes' only when git converts nothing on the way into the index. So the index is not used
//! at all when `core.autocrlf`, `core.attributesFile` or `attr.tree` is set, when
//! `GIT_INDEX_FILE` or `GIT_ATTR_SOURCE` points elsewhere, when any attributes file git reads
//! for every path exists, nor for a path with a `.gitattributes` in its directory or one
//! above it (in the work tree or the index). Flags that make git skip its own check
//! (assume-unchanged, skip-worktree, intent-to-add) rule an entry out too. Whatever is not
//! certain falls back to hashing the bytes, which is always right.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::stamp::Stamp;
use super::Repo;

/// The index, loaded when first asked, for the ids of files read this run. Nothing is read
/// until a big file asks: a run that reads none pays for no check.
pub struct IndexIds {
    file: PathBuf,
    root: PathBuf,
    /// The attributes files git reads for every path (any that exists rules the index out).
    every_path: [PathBuf; 2],
    kind: gix::hash::Kind,
    /// Whether no attributes file for every path exists, looked at once.
    no_attributes: OnceLock<bool>,
    loaded: OnceLock<Option<gix::index::File>>,
}

impl std::fmt::Debug for IndexIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexIds")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl IndexIds {
    /// `None` when no path's id may come from the index in `repo` as configured (see the
    /// module's documentation); `converts` is what git config says about conversions
    /// ([`crate::git::config::Config::converts_on_add`]). The files it depends on are looked
    /// at when an id is first asked for.
    pub fn new(repo: &Repo, converts: bool) -> Option<IndexIds> {
        let env_set = |name: &str| std::env::var_os(name).is_some();
        if converts || env_set("GIT_INDEX_FILE") || env_set("GIT_ATTR_SOURCE") {
            return None;
        }
        Some(IndexIds {
            file: repo.git_dir().join("index"),
            root: repo.work_dir.clone(),
            every_path: [
                repo.git_dir().join("info/attributes"),
                repo.common_dir().join("info/attributes"),
            ],
            kind: repo.repo.object_hash(),
            no_attributes: OnceLock::new(),
            loaded: OnceLock::new(),
        })
    }

    /// No attributes file git reads for every path exists: the repository's, the global one
    /// (`core.attributesFile` is unset, else `converts`, so git reads the default one) and
    /// the system's.
    fn no_attributes(&self) -> bool {
        *self.no_attributes.get_or_init(|| {
            let mut files = self.every_path.to_vec();
            match std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
                Some(x) => files.push(PathBuf::from(x).join("git/attributes")),
                None => files.extend(
                    std::env::var_os("HOME")
                        .map(|home| PathBuf::from(home).join(".config/git/attributes")),
                ),
            }
            if !no_system_attributes() {
                files.extend(system_attribute_files());
            }
            !files.iter().any(|p| exists(p))
        })
    }

    /// The id of the blob at `path` in the index when the file read there (`len` bytes,
    /// stamped `stamp`) is that blob for certain; `None` when that is not known.
    pub fn id(&self, path: &str, stamp: &Stamp, len: usize) -> Option<gix::ObjectId> {
        if stamp.size != len as u64 || !self.no_attributes() {
            return None;
        }
        let index = self.loaded(len)?;
        let bpath = gix::bstr::BStr::new(path.as_bytes());
        let entry = index.entry_by_path_and_stage(bpath, gix::index::entry::Stage::Unconflicted)?;
        use gix::index::entry::{Flags, Mode};
        let skips = Flags::ASSUME_VALID | Flags::SKIP_WORKTREE | Flags::INTENT_TO_ADD;
        if entry.flags.intersects(skips)
            || !(entry.mode == Mode::FILE || entry.mode == Mode::FILE_EXECUTABLE)
        {
            return None;
        }
        if !stat_matches(&entry.stat, stamp) {
            return None;
        }
        // Racy: changed in the same moment as the index was written, so perhaps after.
        let ts = index.timestamp();
        let mtime = (i64::from(entry.stat.mtime.secs), entry.stat.mtime.nsecs);
        if mtime >= (ts.unix_seconds(), ts.nanoseconds()) {
            return None;
        }
        // Attributes for this path: any `.gitattributes` from the root down to its directory.
        let dirs = std::iter::once("").chain(path.match_indices('/').map(|(at, _)| &path[..=at]));
        for dir in dirs {
            let here = format!("{dir}.gitattributes");
            let indexed = index.entry_by_path(gix::bstr::BStr::new(here.as_bytes()));
            if indexed.is_some() || exists(&self.root.join(&here)) {
                return None;
            }
        }
        Some(entry.id)
    }

    /// The index, loaded once; `None` when it cannot be read, or when it is bigger than the
    /// file asked about (loading it would cost more than the hash it saves).
    fn loaded(&self, len: usize) -> Option<&gix::index::File> {
        if let Some(loaded) = self.loaded.get() {
            return loaded.as_ref();
        }
        if std::fs::metadata(&self.file).ok()?.len() > len as u64 {
            return None;
        }
        self.loaded
            .get_or_init(|| {
                let options = gix::index::decode::Options {
                    thread_limit: Some(1),
                    ..Default::default()
                };
                gix::index::File::at(&self.file, self.kind, false, options).ok()
            })
            .as_ref()
    }
}

fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// git's stat comparison at `core.checkStat=default`, on the 32 bits of each field the index
/// keeps.
fn stat_matches(s: &gix::index::entry::Stat, stamp: &Stamp) -> bool {
    let t = |(secs, nsecs): (i64, i64)| (secs as u32, nsecs as u32);
    (s.mtime.secs, s.mtime.nsecs) == t(stamp.mtime)
        && (s.ctime.secs, s.ctime.nsecs) == t(stamp.ctime)
        && s.dev == stamp.dev as u32
        && s.ino == stamp.ino as u32
        && s.uid == stamp.uid
        && s.gid == stamp.gid
        && s.size == stamp.size as u32
}

fn no_system_attributes() -> bool {
    std::env::var("GIT_ATTR_NOSYSTEM").is_ok_and(|v| {
        let v = v.to_ascii_lowercase();
        !matches!(v.as_str(), "" | "0" | "false" | "no" | "off")
    })
}

/// Where a git on this machine may keep its system-wide attributes: `/etc`, and the `etc`
/// beside the `bin` of the git that runs (a git installed under a prefix of its own).
fn system_attribute_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitattributes")];
    let git = crate::git::binary();
    let found = if git.components().count() > 1 {
        Some(git.clone())
    } else {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(&git))
                .find(|c| c.is_file())
        })
    };
    if let Some(bin) = found.as_deref().and_then(|g| g.canonicalize().ok()) {
        if let Some(prefix) = bin.parent().and_then(Path::parent) {
            files.push(prefix.join("etc/gitattributes"));
        }
    }
    files
}

// Its tests read stamps, which only the coarse clock of Linux gives (repo/stamp.rs).
#[cfg(all(test, target_os = "linux", not(feature = "portable")))]
mod tests {
    use super::*;

    use crate::git::run_for_test as git;

    /// The file at `path` in `dir` as a run reads it: its length and stamp.
    fn read(dir: &Path, path: &str) -> (usize, Stamp) {
        std::thread::sleep(std::time::Duration::from_millis(40));
        let started = super::super::stamp::coarse_now().expect("clock");
        let file = std::fs::File::open(dir.join(path)).expect("open");
        let (before, after) = (
            file.metadata().expect("stat"),
            file.metadata().expect("stat"),
        );
        let stamp = Stamp::of_read(&before, &after, started).expect("settled");
        (before.len() as usize, stamp)
    }

    /// The index's id for a clean file, and none once the file, its attributes or the
    /// configuration leave a doubt.
    #[test]
    fn the_index_names_a_clean_file_s_blob_and_nothing_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        git(d, &["init", "-q"]);
        std::fs::create_dir_all(d.join("sub")).expect("mkdir");
        // Bigger than the index, so that the index is worth loading for it.
        let text = "one\ntwo\n".repeat(1000);
        std::fs::write(d.join("sub/f.txt"), &text).expect("write");
        // Written well before the index: not racy.
        std::thread::sleep(std::time::Duration::from_millis(40));
        git(d, &["add", "sub/f.txt"]);
        let blob =
            gix::ObjectId::from_hex(git(d, &["rev-parse", ":sub/f.txt"]).as_bytes()).expect("id");
        let repo = Repo::discover(d).expect("open").expect("a repository");
        let (len, stamp) = read(d, "sub/f.txt");
        let ids = IndexIds::new(&repo, false).expect("nothing converts");
        // A machine with a global or system attributes file never trusts the index.
        if !ids.no_attributes() {
            return;
        }
        assert_eq!(ids.id("sub/f.txt", &stamp, len), Some(blob));
        // Not the index's file, or another length than stamped: unknown.
        assert_eq!(ids.id("sub/g.txt", &stamp, len), None);
        assert_eq!(ids.id("sub/f.txt", &stamp, len + 1), None);
        // Configuration that converts: no index at all.
        assert!(IndexIds::new(&repo, true).is_none());
        // An attributes file in the file's directory.
        std::fs::write(d.join("sub/.gitattributes"), "*.txt text\n").expect("write");
        let ids = IndexIds::new(&repo, false).expect("nothing converts");
        assert_eq!(ids.id("sub/f.txt", &stamp, len), None);
        std::fs::remove_file(d.join("sub/.gitattributes")).expect("rm");
        // The repository's own attributes file.
        std::fs::create_dir_all(d.join(".git/info")).expect("mkdir");
        std::fs::write(d.join(".git/info/attributes"), "*.txt text\n").expect("write");
        let ids = IndexIds::new(&repo, false).expect("nothing converts");
        assert_eq!(ids.id("sub/f.txt", &stamp, len), None);
        std::fs::remove_file(d.join(".git/info/attributes")).expect("rm");
        // The file changed (same length): its new stamp is not the index's stat data.
        std::fs::write(d.join("sub/f.txt"), text.replacen("two", "TWO", 1)).expect("write");
        let (len, stamp) = read(d, "sub/f.txt");
        let ids = IndexIds::new(&repo, false).expect("nothing converts");
        assert_eq!(ids.id("sub/f.txt", &stamp, len), None);
    }

    #[test]
    fn stat_data_is_compared_on_the_bits_the_index_keeps() {
        let stamp = Stamp {
            dev: (1 << 32) + 7,
            ino: 42,
            mode: 0o100644,
            uid: 1000,
            gid: 1000,
            size: (1 << 32) + 5,
            mtime: (1_700_000_000, 5),
            ctime: (1_700_000_001, 6),
        };
        let mut s = gix::index::entry::Stat {
            mtime: gix::index::entry::stat::Time {
                secs: 1_700_000_000,
                nsecs: 5,
            },
            ctime: gix::index::entry::stat::Time {
                secs: 1_700_000_001,
                nsecs: 6,
            },
            dev: 7,
            ino: 42,
            uid: 1000,
            gid: 1000,
            size: 5,
        };
        assert!(stat_matches(&s, &stamp));
        s.ctime.nsecs = 7;
        assert!(!stat_matches(&s, &stamp));
    }
}

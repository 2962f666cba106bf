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

/// The index, loaded when first asked, for the ids of files read this run.
pub struct IndexIds {
    file: PathBuf,
    root: PathBuf,
    kind: gix::hash::Kind,
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
    /// `None` when no path's id may come from the index in `repo` (see the module's
    /// documentation); `converts` is what git config says about conversions
    /// ([`crate::git::config::Config::converts_on_add`]).
    pub fn new(repo: &Repo, converts: bool) -> Option<IndexIds> {
        let env_set = |name: &str| std::env::var_os(name).is_some();
        if converts || env_set("GIT_INDEX_FILE") || env_set("GIT_ATTR_SOURCE") {
            return None;
        }
        let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
        let mut every_path = vec![
            repo.git_dir().join("info/attributes"),
            repo.common_dir().join("info/attributes"),
        ];
        // core.attributesFile is unset (else `converts`): git reads the default one.
        match std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
            Some(x) => every_path.push(PathBuf::from(x).join("git/attributes")),
            None => {
                if let Some(home) = std::env::var_os("HOME") {
                    every_path.push(PathBuf::from(home).join(".config/git/attributes"));
                }
            }
        }
        if !no_system_attributes() {
            every_path.extend(system_attribute_files());
        }
        if every_path.iter().any(|p| exists(p)) {
            return None;
        }
        Some(IndexIds {
            file: repo.git_dir().join("index"),
            root: repo.work_dir.clone(),
            kind: repo.repo.object_hash(),
            loaded: OnceLock::new(),
        })
    }

    /// The id of the blob at `path` in the index when the file read there (`len` bytes,
    /// stamped `stamp`) is that blob for certain; `None` when that is not known.
    pub fn id(&self, path: &str, stamp: &Stamp, len: usize) -> Option<gix::ObjectId> {
        if stamp.size != len as u64 {
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
        let mut dir = "";
        let mut rest = path;
        loop {
            let here = if dir.is_empty() {
                ".gitattributes".to_string()
            } else {
                format!("{dir}/.gitattributes")
            };
            let in_tree = std::fs::symlink_metadata(self.root.join(&here)).is_ok();
            let indexed = index
                .entry_by_path(gix::bstr::BStr::new(here.as_bytes()))
                .is_some();
            if in_tree || indexed {
                return None;
            }
            let Some((first, tail)) = rest.split_once('/') else {
                break;
            };
            dir = &path[..dir.len() + usize::from(!dir.is_empty()) + first.len()];
            rest = tail;
        }
        Some(entry.id)
    }

    /// The index, loaded once; `None` when it cannot be read, or when it is bigger than the
    /// file asked about (loading it would cost more than the hash it saves).
    fn loaded(&self, len: usize) -> Option<&gix::index::File> {
        let size = std::fs::metadata(&self.file).ok()?.len();
        if size > len as u64 && self.loaded.get().is_none() {
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

#[cfg(test)]
mod tests {
    use super::*;

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

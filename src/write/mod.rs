//! The only code that changes the work tree. It takes the gate's `Approved` token, writes
//! every file through a temp file + rename, and on any failure puts back every file it had
//! already changed, so a failed apply leaves the tree as it was. `recorded` wraps it in a
//! snapshot and a journal; `restore` decides what an undo or a crash recovery writes.

pub mod index;
pub mod recorded;
pub mod restore;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::gate::Approved;
use crate::plan::Change;
use crate::repo::{FileState, MODE_EXEC, MODE_LINK};
use crate::sys::durable::Durability;

/// Why a write failed, and what it left behind.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("writing {path} failed: {source}; every file written before it was restored")]
    Rolledback {
        path: String,
        #[source]
        source: io::Error,
    },
    /// Nothing was written: the file changed after the plan read it.
    #[error("{path} changed while the patch was being applied (another program wrote to it), so nothing was written; apply the patch again")]
    Changed { path: String },
    #[error("writing {path} failed: {source}; restoring the files already written ALSO failed for: {unrestored:?}")]
    Partial {
        path: String,
        #[source]
        source: io::Error,
        unrestored: Vec<String>,
    },
}

impl crate::patch::kinds::Kinded for WriteError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Write
    }
}

/// What was written, for the report and the snapshot's journal.
#[derive(Debug, Default)]
pub struct Written {
    /// The paths written, in the order written.
    pub paths: Vec<String>,
}

/// Write every change of `approved` under `root`, all or nothing, one file after another
/// (each through a temporary file beside it, flushed to disk when the token's
/// [`Approved::durability`] says so, then renamed over it).
pub fn write(root: &Path, approved: &Approved) -> Result<Written, WriteError> {
    write_staged(root, approved, Staged::default())
}

/// The new files of an approved write, already written under temporary names beside their
/// places (`.llm-apply-*.tmp`) and, when writes are flushed ([`Approved::durability`]), being
/// synced to disk on another thread, while nothing in
/// the work tree has changed yet: a recorded write stages them under its journal (whose
/// recovery removes them after a crash) while the snapshot is recorded, and
/// [`write_staged`] then only renames them into place.
#[derive(Default)]
pub struct Staged {
    files: std::collections::HashMap<String, tempfile::TempPath>,
    synced: Option<std::thread::JoinHandle<io::Result<()>>>,
}

/// How many files are staged ahead at most: each is an open file until it is synced, and
/// the rest are written one by one as before. A quarter of the open-file limit, so that the
/// snapshot has room for its own.
fn staged_at_most() -> usize {
    const MOST: usize = 64;
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only fills the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            return usize::try_from(limit.rlim_cur / 4).map_or(MOST, |n| n.min(MOST));
        }
    }
    MOST
}

/// Write each regular file `approved` creates or changes, whose directory exists, to a
/// temporary file beside it (up to [`staged_at_most`]), and when writes are flushed, start
/// syncing them to disk. On
/// a failure the temporary files are removed and the work tree is as it was.
pub fn stage(root: &Path, approved: &Approved) -> Result<Staged, WriteError> {
    let mut files = std::collections::HashMap::new();
    let mut handles = Vec::new();
    let most = staged_at_most();
    for c in approved.changes() {
        if files.len() >= most {
            break;
        }
        let Some(st) = c.after.as_ref().filter(|st| st.mode != MODE_LINK) else {
            continue;
        };
        let abs = root.join(&c.path);
        let dir = abs.parent().expect("a path under the root has a parent");
        if !dir.is_dir() {
            continue;
        }
        let failed = |source: io::Error| WriteError::Rolledback {
            path: c.path.clone(),
            source,
        };
        let tmp = match written_beside(dir, st) {
            Ok(t) => t,
            // Made of a mapped file that changed meanwhile.
            Err(_) if st.bytes.source_changed() => {
                return Err(WriteError::Changed {
                    path: c.path.clone(),
                })
            }
            // Out of open files: the rest are written one by one.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => break,
            Err(e) => return Err(failed(e)),
        };
        // The file goes to the syncing thread, which closes it; the path stays here, and
        // removes the file if it is dropped before being renamed.
        let (file, path) = tmp.into_parts();
        handles.push((c.path.clone(), file));
        files.insert(c.path.clone(), path);
    }
    // Syncing waits on the disk, not the processor: it goes on while the snapshot is made.
    let sync_all = move || -> io::Result<()> {
        for (path, f) in handles {
            f.sync_all()
                .map_err(|e| io::Error::new(e.kind(), format!("syncing {path}: {e}")))?;
        }
        Ok(())
    };
    let synced =
        if files.is_empty() || !approved.durability().fsync {
            None
        } else {
            Some(std::thread::Builder::new().spawn(sync_all).map_err(|e| {
                WriteError::Rolledback {
                    path: approved.changes()[0].path.clone(),
                    source: e,
                }
            })?)
        };
    Ok(Staged { files, synced })
}

/// [`write`] with the files `staged` already holds: each is renamed into place once all of
/// them are on disk.
pub fn write_staged(
    root: &Path,
    approved: &Approved,
    mut staged: Staged,
) -> Result<Written, WriteError> {
    if let Some(sync) = staged.synced.take() {
        let synced = sync
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the thread syncing files panicked")));
        if let Err(e) = synced {
            let path = staged.files.keys().min().cloned().unwrap_or_default();
            return Err(WriteError::Rolledback { path, source: e });
        }
    }
    let changes = approved.changes();
    let durability = approved.durability();
    unchanged_since_read(root, changes)?;
    // Deletions first, so a rename into a path that a deleted file's directory frees works.
    let mut order: Vec<&Change> = changes.iter().filter(|c| c.after.is_none()).collect();
    order.extend(changes.iter().filter(|c| c.after.is_some()));
    let mut done: Vec<&Change> = Vec::new();
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let fault = test_fault();
    for (n, c) in order.iter().enumerate() {
        if let Some(f) = &fault {
            if f.after_writes == n {
                if f.kill {
                    std::process::abort();
                }
                let e = io::Error::other("injected failure (GIT_LLM_APPLY_TEST_FAIL_AFTER)");
                return Err(rollback(root, durability, &done, &created_dirs, &c.path, e));
            }
        }
        let tmp = staged.files.remove(&c.path);
        if let Err(e) = apply_one(root, durability, c, &mut created_dirs, tmp) {
            return Err(rollback(root, durability, &done, &created_dirs, &c.path, e));
        }
        done.push(c);
    }
    Ok(Written {
        paths: order.iter().map(|c| c.path.clone()).collect(),
    })
}

/// Refuse, before anything is written, a write planned from a file that changed since it
/// was read (another program wrote to it meanwhile): writing would silently drop that
/// program's change, and where the plan read a big file's mapped bytes, it may have read some
/// of the old bytes and some of the new, so its result would be no one's.
pub fn unchanged_since_read(root: &Path, changes: &[Change]) -> Result<(), WriteError> {
    let work = crate::repo::WorkTree::new(root);
    for c in changes {
        let Some(before) = c.before.as_ref() else {
            continue;
        };
        if !work.holds(&c.path, before).unwrap_or(false) {
            return Err(WriteError::Changed {
                path: c.path.clone(),
            });
        }
    }
    Ok(())
}

/// Put every path an approved write changed back to its state before the write: the undo
/// of a write that a `--verify` hook rejected. Paths are restored in the reverse of the
/// write's order, so a file that replaced a directory's contents goes before the directory
/// comes back. Returns the paths that could not be restored (empty when all were).
pub fn put_back(root: &Path, approved: &Approved) -> Vec<String> {
    let changes = approved.changes();
    let mut order: Vec<&Change> = changes.iter().filter(|c| c.after.is_none()).collect();
    order.extend(changes.iter().filter(|c| c.after.is_some()));
    let mut scratch = Vec::new();
    let mut unrestored = Vec::new();
    for c in order.iter().rev() {
        let state = c.before.as_ref();
        if set_state(root, approved.durability(), &c.path, state, &mut scratch).is_err() {
            unrestored.push(c.path.clone());
        }
    }
    unrestored
}

/// Put one path into a given state (bytes + mode, or absent). Shared by write and rollback.
fn set_state(
    root: &Path,
    durability: Durability,
    path: &str,
    state: Option<&FileState>,
    created_dirs: &mut Vec<PathBuf>,
) -> io::Result<()> {
    let abs = root.join(path);
    use crate::snapshot::fault::mutation;
    match state {
        None => {
            mutation("work tree: remove a file");
            match fs::remove_file(&abs) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            remove_empty_parents(root, &abs);
            Ok(())
        }
        Some(st) => {
            let dir = abs.parent().expect("a path under the root has a parent");
            if !dir.exists() {
                let mut missing = Vec::new();
                let mut d = dir.to_path_buf();
                while !d.exists() {
                    missing.push(d.clone());
                    if !d.pop() {
                        break;
                    }
                }
                mutation("work tree: create directories");
                fs::create_dir_all(dir)?;
                missing.reverse();
                created_dirs.extend(missing);
            }
            if st.mode == MODE_LINK {
                return set_link(dir, &abs, &st.bytes);
            }
            let (file, tmp) = written_beside(dir, st)?.into_parts();
            durability.file(&file)?;
            drop(file);
            rename_into_place(tmp, &abs, st.mode)
        }
    }
}

/// A temporary file in `dir` (`.llm-apply-*.tmp`, which a crash recovery knows) holding
/// `st`'s bytes, not yet synced; it is removed if dropped.
fn written_beside(dir: &Path, st: &FileState) -> io::Result<tempfile::NamedTempFile> {
    crate::snapshot::fault::mutation("work tree: write a temporary file");
    let mut tmp = tempfile::Builder::new()
        .prefix(".llm-apply-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    st.bytes.write_to(&mut tmp)?;
    // Written from a mapped file's bytes: kept only if that file did not change meanwhile.
    if st.bytes.source_changed() {
        return Err(crate::repo::Content::changed_error());
    }
    Ok(tmp)
}

/// Give the written temporary file `tmp` its mode (the permission bits of what `abs` is now,
/// the executable bits following `mode`) and rename it over `abs`.
///
/// A regular file there is swapped with the temporary file in one step where the system can
/// (Linux's `RENAME_EXCHANGE`), and the temporary name, now holding the old content, is
/// removed after: the path holds the old or the new file at every moment, as with a plain
/// rename, but ext4 does not flush the new file's data to disk inside the rename (which it
/// does when a rename replaces a file, and which makes a big file's write several times
/// slower).
fn rename_into_place(tmp: tempfile::TempPath, abs: &Path, mode: u32) -> io::Result<()> {
    let old = fs::metadata(abs).ok();
    let replaces_file = old.as_ref().is_some_and(fs::Metadata::is_file);
    set_mode(&tmp, old, mode)?;
    use crate::snapshot::fault::mutation;
    mutation("work tree: rename into place");
    if replaces_file && exchange(&tmp, abs)? {
        mutation("work tree: remove the replaced file");
        return tmp.close();
    }
    tmp.persist(abs).map_err(|e| e.error)
}

/// Swap the files at `a` and `b` in one step: `Ok(false)` where the system or file system
/// cannot (then nothing changed).
#[cfg(all(target_os = "linux", not(feature = "portable")))]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are NUL-terminated paths that outlive the call; renameat2 reads them only.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        // Not supported here (an old kernel or C library, a file system without it), or the
        // file went away meanwhile: a plain rename does.
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP | libc::ENOENT) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(any(not(target_os = "linux"), feature = "portable"))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<bool> {
    Ok(false)
}

/// A symbolic link, made under a temporary name beside its place and renamed over it, so the
/// path is never missing in between.
#[cfg(unix)]
fn set_link(dir: &Path, abs: &Path, target: &[u8]) -> io::Result<()> {
    use crate::snapshot::fault::mutation;
    use std::os::unix::ffi::OsStrExt;
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".llm-apply-{}-{name}.tmp", std::process::id()));
    let _ = fs::remove_file(&tmp);
    mutation("work tree: write a temporary file");
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), &tmp)?;
    mutation("work tree: rename into place");
    if let Err(e) = fs::rename(&tmp, abs) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_link(_dir: &Path, _abs: &Path, _target: &[u8]) -> io::Result<()> {
    Err(io::Error::other(
        "symbolic links are not supported on this system",
    ))
}

fn apply_one(
    root: &Path,
    durability: Durability,
    c: &Change,
    created_dirs: &mut Vec<PathBuf>,
    staged: Option<tempfile::TempPath>,
) -> io::Result<()> {
    match (staged, &c.after) {
        (Some(tmp), Some(st)) => rename_into_place(tmp, &root.join(&c.path), st.mode),
        _ => set_state(root, durability, &c.path, c.after.as_ref(), created_dirs),
    }
}

fn rollback(
    root: &Path,
    durability: Durability,
    done: &[&Change],
    created_dirs: &[PathBuf],
    path: &str,
    source: io::Error,
) -> WriteError {
    let mut unrestored = Vec::new();
    let mut scratch = Vec::new();
    for c in done.iter().rev() {
        if set_state(root, durability, &c.path, c.before.as_ref(), &mut scratch).is_err() {
            unrestored.push(c.path.clone());
        }
    }
    for d in created_dirs.iter().rev() {
        let _ = fs::remove_dir(d);
    }
    if unrestored.is_empty() {
        WriteError::Rolledback {
            path: path.to_string(),
            source,
        }
    } else {
        WriteError::Partial {
            path: path.to_string(),
            source,
            unrestored,
        }
    }
}

/// Remove directories left empty by a deletion, as git does, never the root itself.
fn remove_empty_parents(root: &Path, abs: &Path) {
    let mut d = abs.parent().map(Path::to_path_buf);
    while let Some(dir) = d {
        if dir == root || !dir.starts_with(root) {
            break;
        }
        crate::snapshot::fault::mutation("work tree: remove an empty directory");
        if fs::remove_dir(&dir).is_err() {
            break;
        }
        d = dir.parent().map(Path::to_path_buf);
    }
}

/// Give the new file the old one's permission bits, with the executable bits following
/// `mode` (x wherever r is, as git does); a new file gets 644 or 755.
#[cfg(unix)]
fn set_mode(path: &Path, old: Option<fs::Metadata>, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let base = old.map(|m| m.permissions().mode() & 0o777).unwrap_or(0o644);
    let perm = if mode == MODE_EXEC {
        base | ((base & 0o444) >> 2)
    } else {
        base & !0o111
    };
    fs::set_permissions(path, fs::Permissions::from_mode(perm))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _old: Option<fs::Metadata>, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Test-only fault injection (documented in tests/README; debug builds only):
/// `GIT_LLM_APPLY_TEST_FAIL_AFTER=N`
/// fails the write after N files (and rolls back); `GIT_LLM_APPLY_TEST_KILL_AFTER=N` aborts
/// the process there, as a crash would.
struct Fault {
    after_writes: usize,
    kill: bool,
}

#[cfg(not(debug_assertions))]
fn test_fault() -> Option<Fault> {
    None
}

#[cfg(debug_assertions)]
fn test_fault() -> Option<Fault> {
    let get = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
    if let Some(n) = get("GIT_LLM_APPLY_TEST_KILL_AFTER") {
        return Some(Fault {
            after_writes: n,
            kill: true,
        });
    }
    get("GIT_LLM_APPLY_TEST_FAIL_AFTER").map(|n| Fault {
        after_writes: n,
        kill: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The swap (`RENAME_EXCHANGE`) where there is one, the plain rename where not (the
    /// `portable` feature forces that on Linux): either way the path ends with the new bytes
    /// and mode, and the temporary name is gone.
    #[test]
    fn renaming_into_place_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let abs = dir.path().join("f.txt");
        fs::write(&abs, b"old\n").expect("write");
        let mut tmp = tempfile::NamedTempFile::new_in(dir.path()).expect("temp file");
        io::Write::write_all(&mut tmp, b"new\n").expect("write");
        let tmp = tmp.into_temp_path();
        let tmp_name = tmp.to_path_buf();
        let swapped = exchange(Path::new("/nonexistent-a"), Path::new("/nonexistent-b"));
        assert!(matches!(swapped, Ok(false)), "a missing file is no error");
        rename_into_place(tmp, &abs, MODE_EXEC).expect("rename");
        assert_eq!(fs::read(&abs).expect("read"), b"new\n");
        assert!(!tmp_name.exists());
        let names: Vec<_> = fs::read_dir(dir.path()).expect("list").collect();
        assert_eq!(names.len(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs::metadata(&abs).expect("stat").permissions().mode() & 0o777;
            assert_eq!(
                mode & 0o111,
                0o111,
                "executable bits follow the patch's mode"
            );
        }
    }
}

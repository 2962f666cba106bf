//! A directory's entry names read without a string made per entry.
//!
//! `std::fs::read_dir` hands each entry out with a handle on the directory and copies its
//! name into a string of its own: about 700 instructions an entry (measured with callgrind),
//! where a run that lists its snapshot refs wants only the names that are numbers.
//! On Linux the names are read here in place from the C library's buffer; elsewhere
//! through std.

use std::io;
use std::path::Path;

/// What the directory listing says an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A directory.
    Dir,
    /// Anything else (a symbolic link is not a directory).
    NotDir,
    /// The file system does not say (some network and FUSE file systems): ask it, with
    /// `symlink_metadata`, where it matters; the entry may be gone by then.
    Unknown,
}

/// Call `each` with the name of every entry of `dir` (not `.` and `..`) and what the listing
/// says it is. `NotFound` when `dir` does not exist.
pub fn each_name(dir: &Path, mut each: impl FnMut(&[u8], Kind)) -> io::Result<()> {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        each_name_linux(dir, &mut each)
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            // std asks the file system itself where the listing does not say.
            let kind = match entry.file_type() {
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(_) => Kind::NotDir,
                Err(_) => Kind::Unknown,
            };
            each(name.to_string_lossy().as_bytes(), kind);
        }
        Ok(())
    }
}

/// On 64-bit Linux `readdir` reads 64-bit inode numbers and offsets (the C library's
/// `readdir64`); a 32-bit build takes std's way, which asks for those.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn each_name_linux(dir: &Path, each: &mut dyn FnMut(&[u8], Kind)) -> io::Result<()> {
    use std::ffi::{CStr, CString};
    use std::os::unix::ffi::OsStrExt;

    /// The open directory, closed when dropped (on every way out).
    struct Open(*mut libc::DIR);
    impl Drop for Open {
        fn drop(&mut self) {
            // SAFETY: the pointer came from a successful opendir and is closed only here.
            unsafe { libc::closedir(self.0) };
        }
    }

    let path = CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `path` is a valid C string that lives across the call.
    let handle = unsafe { libc::opendir(path.as_ptr()) };
    if handle.is_null() {
        return Err(io::Error::last_os_error());
    }
    let open = Open(handle);
    loop {
        // readdir reports an error only through errno, which is cleared first.
        // SAFETY: errno is this thread's; setting it has no other effect.
        unsafe { *libc::__errno_location() = 0 };
        // SAFETY: the directory is open; the entry returned stays valid until the next
        // readdir or closedir on it, and is only read before then.
        let entry = unsafe { libc::readdir(open.0) };
        if entry.is_null() {
            return match io::Error::last_os_error() {
                e if e.raw_os_error() == Some(0) => Ok(()),
                e => Err(e),
            };
        }
        // SAFETY: d_name is a NUL-terminated name inside the entry readdir returned.
        let (name, kind) = unsafe {
            (
                CStr::from_ptr((*entry).d_name.as_ptr()).to_bytes(),
                (*entry).d_type,
            )
        };
        if name == b"." || name == b".." {
            continue;
        }
        let kind = match kind {
            libc::DT_DIR => Kind::Dir,
            libc::DT_UNKNOWN => Kind::Unknown,
            _ => Kind::NotDir,
        };
        each(name, kind);
    }
}

#[cfg(test)]
mod tests {
    use super::{each_name, Kind};

    /// Every entry is named once, with what it is (ext4 and tmpfs say, so no entry here is
    /// `Unknown`); `.` and `..` are not; a missing directory is `NotFound`.
    #[test]
    fn names_every_entry_once_and_tells_directories() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("12"), "x").expect("file");
        std::fs::write(dir.path().join("é name"), "x").expect("file");
        std::fs::create_dir(dir.path().join("7")).expect("dir");
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("7"), dir.path().join("link")).expect("link");
        let mut seen = Vec::new();
        each_name(dir.path(), |name, kind| {
            seen.push((String::from_utf8_lossy(name).into_owned(), kind))
        })
        .expect("read");
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        let mut want = vec![
            ("12".to_string(), Kind::NotDir),
            ("7".to_string(), Kind::Dir),
            ("é name".to_string(), Kind::NotDir),
        ];
        if cfg!(unix) {
            want.push(("link".to_string(), Kind::NotDir));
        }
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(seen, want);
        let err = each_name(&dir.path().join("missing"), |_, _| {}).expect_err("missing");
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    }
}

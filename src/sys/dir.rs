//! A directory's entry names read without a string made per entry.
//!
//! `std::fs::read_dir` hands each entry out with a handle on the directory and copies its
//! name into a string of its own: about 700 instructions an entry (measured with callgrind),
//! where a run that lists its snapshot refs wants only the names that are numbers.
//! On Linux the names are read here in place from the C library's buffer; elsewhere
//! through std.

use std::io;
use std::path::Path;

/// Call `each` with the name of every entry of `dir` (not `.` and `..`) and whether the
/// entry is a directory (a symbolic link is not one). `NotFound` when `dir` does not exist.
pub fn each_name(dir: &Path, mut each: impl FnMut(&[u8], bool)) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        each_name_linux(dir, &mut each)
    }
    #[cfg(not(target_os = "linux"))]
    {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let is_dir = entry.file_type()?.is_dir();
            each(name.to_string_lossy().as_bytes(), is_dir);
        }
        Ok(())
    }
}

#[cfg(target_os = "linux")]
fn each_name_linux(dir: &Path, each: &mut dyn FnMut(&[u8], bool)) -> io::Result<()> {
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
        let is_dir = match kind {
            libc::DT_DIR => true,
            // The file system does not say: ask it, without following a link.
            libc::DT_UNKNOWN => {
                std::fs::symlink_metadata(dir.join(std::ffi::OsStr::from_bytes(name)))
                    .map(|m| m.is_dir())?
            }
            _ => false,
        };
        each(name, is_dir);
    }
}

#[cfg(test)]
mod tests {
    use super::each_name;

    /// Every entry is named once, with whether it is a directory; `.` and `..` are not;
    /// a missing directory is `NotFound`.
    #[test]
    fn names_every_entry_once_and_tells_directories() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("12"), "x").expect("file");
        std::fs::write(dir.path().join("é name"), "x").expect("file");
        std::fs::create_dir(dir.path().join("7")).expect("dir");
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("7"), dir.path().join("link")).expect("link");
        let mut seen = Vec::new();
        each_name(dir.path(), |name, is_dir| {
            seen.push((String::from_utf8_lossy(name).into_owned(), is_dir))
        })
        .expect("read");
        seen.sort();
        let mut want = vec![
            ("12".to_string(), false),
            ("7".to_string(), true),
            ("é name".to_string(), false),
        ];
        if cfg!(unix) {
            want.push(("link".to_string(), false));
        }
        want.sort();
        assert_eq!(seen, want);
        let err = each_name(&dir.path().join("missing"), |_, _| {}).expect_err("missing");
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    }
}

//! What `stat` says of a file as it was read, kept with the bytes so that two later questions
//! cost a `stat` instead of a read: does the file still hold them, and is that the blob the
//! index names?
//!
//! A stamp is kept only when it proves something. The kernel sets a file's ctime to the
//! time of every change to it (a write, a truncation, a rename onto it, a `touch` that sets
//! its times back), and that time never runs behind the coarse clock. So when the ctime a
//! file had before it was read is older than the coarse clock read just before, and `fstat`
//! said the same before and after the read, any change after the read gives the file a new
//! ctime, and a file whose stamp is still the same holds the bytes read. This is git's own
//! trust in stat data, without its racy window. The one change it cannot see is a write
//! through a shared memory map to pages already dirty, which git does not see either.
//!
//! A file system that keeps whole seconds only (ext4 with small inodes, and others) stores a
//! ctime cut down to the second, which may lie behind the clock read before; a second change
//! within that second would keep it. A ctime of exactly zero nanoseconds is taken for such a
//! file system's: trusted only once two whole seconds lie between it and the read ([`settled`]).
//!
//! Linux only: elsewhere no clock is known to match the file system's, and no stamp is kept.

use std::fs::Metadata;

/// A file's identity, size, mode, owner and times, as `stat` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// The device the file is on.
    pub dev: u64,
    /// The inode number.
    pub ino: u64,
    /// The full `st_mode`: type and permission bits.
    pub mode: u32,
    /// The owner.
    pub uid: u32,
    /// The owning group.
    pub gid: u32,
    /// The size in bytes.
    pub size: u64,
    /// Seconds and nanoseconds since the epoch.
    pub mtime: (i64, i64),
    /// When the inode last changed: seconds and nanoseconds since the epoch.
    pub ctime: (i64, i64),
}

impl Stamp {
    /// The stamp of a file's metadata.
    #[cfg(unix)]
    pub fn of(meta: &Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt as _;
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The stamp of a read that `before` and `after` (the open file's `fstat` on either side
    /// of it) bracket, begun at `started` ([`coarse_now`]): kept only when nothing changed
    /// the file during the read and any later change will show (see the module's
    /// documentation).
    #[cfg(unix)]
    pub fn of_read(before: &Metadata, after: &Metadata, started: (i64, i64)) -> Option<Stamp> {
        let (a, b) = (Stamp::of(before), Stamp::of(after));
        (a == b && settled(a.ctime, started)).then_some(a)
    }

    /// Whether `meta` (a fresh `lstat` of the path read) is still this stamp.
    #[cfg(unix)]
    pub fn still(&self, meta: &Metadata) -> bool {
        Stamp::of(meta) == *self
    }
}

/// Whether a file whose ctime is `ctime` was last changed before `started` (the coarse clock
/// read before the file was), so that any later change gives it another ctime: older than
/// `started`, and by two whole seconds where the ctime looks cut down to the second (zero
/// nanoseconds, as a file system that keeps whole seconds stores every time).
pub fn settled(ctime: (i64, i64), started: (i64, i64)) -> bool {
    ctime < started && (ctime.1 != 0 || ctime.0.saturating_add(2) <= started.0)
}

/// The coarse real-time clock, the one the kernel stamps file changes from (a change's time
/// is never earlier than it): `None` where that clock is not known.
pub fn coarse_now() -> Option<(i64, i64)> {
    #[cfg(all(target_os = "linux", not(feature = "portable")))]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call to fill.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
        (rc == 0).then_some((ts.tv_sec, ts.tv_nsec))
    }
    #[cfg(any(not(target_os = "linux"), feature = "portable"))]
    {
        None
    }
}

#[cfg(all(test, target_os = "linux", not(feature = "portable")))]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn settle() {
        // Longer than the coarse clock's tick (at most 10 ms).
        std::thread::sleep(std::time::Duration::from_millis(25));
    }

    #[test]
    fn a_file_left_alone_keeps_its_stamp_and_any_write_changes_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"one\n").expect("write");
        settle();
        let started = coarse_now().expect("clock");
        let file = std::fs::File::open(&path).expect("open");
        let before = file.metadata().expect("stat");
        let after = file.metadata().expect("stat");
        let stamp = Stamp::of_read(&before, &after, started).expect("a settled file");
        assert!(stamp.still(&std::fs::symlink_metadata(&path).expect("lstat")));
        // Same size, same content length, written at once: still a new stamp.
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open");
        w.write_all(b"two\n").expect("write");
        drop(w);
        assert!(!stamp.still(&std::fs::symlink_metadata(&path).expect("lstat")));
    }

    /// A ctime cut down to the second (a file system that keeps whole seconds) may lie
    /// behind the clock read before a change in that same second: trusted only two seconds on.
    #[test]
    fn a_ctime_of_whole_seconds_is_trusted_two_seconds_on() {
        assert!(settled((10, 5), (10, 6)));
        assert!(!settled((10, 5), (10, 5)));
        assert!(!settled((10, 0), (10, 500_000_000)));
        assert!(!settled((10, 0), (11, 999_999_999)));
        assert!(settled((10, 0), (12, 0)));
    }

    #[test]
    fn a_file_changed_since_the_clock_last_ticked_gets_no_stamp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"one\n").expect("write");
        let meta = std::fs::metadata(&path).expect("stat");
        // Read "started" the moment its ctime says: not provably older than the read.
        let stamp = Stamp::of(&meta);
        assert_eq!(Stamp::of_read(&meta, &meta, stamp.ctime), None);
        // A change during the read: the stamps before and after differ.
        settle();
        std::fs::write(&path, b"two\n").expect("write");
        let later = std::fs::metadata(&path).expect("stat");
        assert_eq!(Stamp::of_read(&meta, &later, (i64::MAX, 0)), None);
    }
}

/// Without the coarse clock (every system but Linux, and Linux with the `portable` feature) no
/// read is vouched for by its stamp: nothing is mapped, and no blob id is taken from the index
/// in place of hashing the file.
#[cfg(all(test, any(not(target_os = "linux"), feature = "portable")))]
mod fallback_tests {
    #[test]
    fn without_the_coarse_clock_no_time_is_known() {
        assert_eq!(super::coarse_now(), None);
    }
}

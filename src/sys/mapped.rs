//! A big work-tree file's bytes mapped into memory instead of read: the kernel's page cache
//! is used as it is, so a ten-megabyte file costs no fresh buffer (which the kernel must
//! zero) and no copy into it. A file is mapped only when its stamp proves it unchanged over
//! the mapping ([`crate::repo::Stamp`]); whoever relies on the bytes later checks that the file
//! still has that stamp ([`Mapping::intact`]) before anything is written from them.
//!
//! A mapping shows the file as it is now, not as it was: another program that writes to the
//! file changes the bytes under us (its stamp then changes, which the checks see), and one
//! that shortens it would make a read past the new end raise SIGBUS. The handler installed
//! here turns such a fault inside one of our mappings into a page of zeros and marks the
//! mapping torn, so the run goes on to refuse the write instead of dying; a fault anywhere
//! else goes to the handler that was there before.
//!
//! What a plan reads of a mapping it takes as text checked once (UTF-8 lines borrowed from
//! it); a program that writes the file meanwhile can change those bytes after the check.
//! Nothing made of them is then kept (the stamp refuses it: [`Mapping::unchanged`]), and a
//! byte more than the file is mapped, so a read that runs just past the end stays in our
//! pages; copying the file to be safe from that writer would cost what mapping saves.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// From this size on a work-tree file is mapped rather than read.
pub const MAP_AT_LEAST: usize = 4 << 20;

/// A read-only private mapping of a file's first bytes, unmapped when dropped.
pub struct Mapping {
    ptr: *const u8,
    len: usize,
    /// Its slot in the table the SIGBUS handler looks in.
    slot: usize,
    /// The file mapped, open: `fstat` of it tells whether it changed since.
    file: std::fs::File,
}

// SAFETY: the mapping is read-only, and this value alone unmaps it.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// The first `len` bytes of `file`, mapped and faulted in; `None` where the system
    /// refuses, or where every slot of the handler's table is taken (the caller reads the
    /// file instead).
    #[cfg(all(target_os = "linux", not(feature = "portable")))]
    pub fn of(file: &std::fs::File, len: usize) -> Option<Mapping> {
        use std::os::fd::AsRawFd as _;
        if len == 0 {
            return None;
        }
        install_handler()?;
        let file = file.try_clone().ok()?;
        // A byte more than the file is mapped: a read running one past the end (a text whose
        // bytes changed under it) then lands in a page of ours, which reads as zeros past the
        // file's end, and not in whatever lies beyond.
        // SAFETY: a fresh mapping of `len + 1` bytes at an address the kernel picks; nothing
        // else refers to it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len + 1,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        let start = p as usize;
        match claim_slot(start, start + len + 1) {
            Some(slot) => Some(Mapping {
                ptr: p as *const u8,
                len,
                slot,
                file,
            }),
            None => {
                // SAFETY: the mapping just made, unmapped before anything saw it.
                unsafe { libc::munmap(p, len + 1) };
                None
            }
        }
    }

    /// No mapping where it is not built (off Linux, or the `portable` build): the file is
    /// read instead.
    #[cfg(any(not(target_os = "linux"), feature = "portable"))]
    pub fn of(_file: &std::fs::File, _len: usize) -> Option<Mapping> {
        None
    }

    /// Whether no read of these bytes ran past the file's end (it was shortened meanwhile,
    /// and zeros stood in for what was gone).
    pub fn intact(&self) -> bool {
        !TORN[self.slot].load(Ordering::SeqCst)
    }

    /// Whether the bytes are still the file's as a stamp vouched for them: no read ran past
    /// its end, and `still` says the open file's `fstat` still matches the stamp (any write
    /// to it since would have changed its ctime).
    pub fn unchanged(&self, still: impl FnOnce(&std::fs::Metadata) -> bool) -> bool {
        self.intact() && self.file.metadata().is_ok_and(|m| still(&m))
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // The range leaves the handler's table before it is unmapped (nothing reads it any
        // more), so that a new mapping at the same address is never taken for this one; the
        // slot is free again only after.
        clear_slot(self.slot);
        // SAFETY: the mapping made in `of`, unmapped once.
        #[cfg(unix)]
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.len + 1);
        }
        CLAIMED[self.slot].store(false, Ordering::SeqCst);
    }
}

impl std::ops::Deref for Mapping {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: `len` readable bytes at `ptr`, mapped as long as `self` lives; a page the
        // file no longer backs reads as zeros (see the module's documentation).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// How many mappings can be alive at once (a run maps the few big files it touches).
const SLOTS: usize = 64;

/// Each slot's range: start (0 when free) and end. Written only by the thread that claims
/// or releases the slot; read by the signal handler.
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static TORN: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
/// Set while a slot is being filled in, so that two threads never claim the same one.
static CLAIMED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

#[cfg(all(target_os = "linux", not(feature = "portable")))]
fn claim_slot(start: usize, end: usize) -> Option<usize> {
    let slot = (0..SLOTS).find(|&i| {
        CLAIMED[i]
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })?;
    TORN[slot].store(false, Ordering::SeqCst);
    ENDS[slot].store(end, Ordering::SeqCst);
    STARTS[slot].store(start, Ordering::SeqCst);
    Some(slot)
}

fn clear_slot(slot: usize) {
    STARTS[slot].store(0, Ordering::SeqCst);
    ENDS[slot].store(0, Ordering::SeqCst);
}

#[cfg(all(target_os = "linux", not(feature = "portable")))]
mod handler {
    use super::*;

    /// The action SIGBUS had before ours: faults outside our mappings go back to it.
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::uninit();
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    pub(super) fn install() -> bool {
        static ONCE: std::sync::Once = std::sync::Once::new();
        static OK: AtomicBool = AtomicBool::new(false);
        ONCE.call_once(|| {
            // SAFETY: sysconf has no preconditions; sigaction is given a zeroed action with
            // our handler and an empty mask, and a place for the old one that nothing else
            // touches until the handler is in place.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE.store(page as usize, Ordering::SeqCst);
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let previous = &raw mut PREVIOUS;
                let ok = libc::sigaction(libc::SIGBUS, &action, (*previous).as_mut_ptr()) == 0;
                OK.store(ok, Ordering::SeqCst);
            }
        });
        OK.load(Ordering::SeqCst)
    }

    extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for a handler installed with SA_SIGINFO.
        let addr = unsafe { (*info).si_addr() } as usize;
        for slot in 0..SLOTS {
            let start = STARTS[slot].load(Ordering::SeqCst);
            if start != 0 && start <= addr && addr < ENDS[slot].load(Ordering::SeqCst) {
                let page = PAGE.load(Ordering::SeqCst);
                let at = addr & !(page - 1);
                // SAFETY: the page lies inside a mapping of ours (its slot is claimed until
                // it is unmapped), and is replaced by a private page of zeros; mmap is a
                // plain system call, safe in a signal handler.
                let p = unsafe {
                    libc::mmap(
                        at as *mut libc::c_void,
                        page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    )
                };
                if p != libc::MAP_FAILED {
                    TORN[slot].store(true, Ordering::SeqCst);
                    return;
                }
            }
        }
        // Not ours (or not mendable): the previous action takes the fault when the
        // instruction runs again.
        // SAFETY: PREVIOUS was filled in by the sigaction that installed this handler.
        unsafe {
            let previous = &raw const PREVIOUS;
            libc::sigaction(libc::SIGBUS, (*previous).as_ptr(), std::ptr::null_mut());
        }
    }
}

#[cfg(all(target_os = "linux", not(feature = "portable")))]
fn install_handler() -> Option<()> {
    handler::install().then_some(())
}

#[cfg(all(test, target_os = "linux", not(feature = "portable")))]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn a_mapping_holds_the_file_and_a_shortened_file_reads_as_zeros_and_torn() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let page = 4096;
        let bytes: Vec<u8> = (0..page * 5).map(|i| (i % 251) as u8 + 1).collect();
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let map = Mapping::of(&file, bytes.len()).expect("the file maps");
        assert_eq!(&map[..], &bytes[..]);
        assert!(map.intact());
        // Another program cuts the file to two pages: what lay past them is gone.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(2 * page as u64)
            .unwrap();
        let seen: Vec<u8> = map.to_vec();
        assert_eq!(&seen[..2 * page], &bytes[..2 * page]);
        assert!(seen[2 * page..].iter().all(|&b| b == 0));
        assert!(!map.intact());
        drop(map);
        // A mapping made after that one is intact again (its slot starts clean).
        let again = Mapping::of(&file, 2 * page).expect("the file maps");
        assert!(again.intact());
        assert_eq!(&again[..], &bytes[..2 * page]);
    }

    #[test]
    fn a_big_settled_work_tree_file_is_read_as_a_mapping() {
        use crate::repo::{Entry, Files as _, WorkTree};
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'x'; MAP_AT_LEAST];
        std::fs::write(dir.path().join("big"), &big).unwrap();
        std::fs::write(dir.path().join("small"), &big[1..]).unwrap();
        // Longer than the coarse clock's tick: the files' stamps then vouch for them.
        std::thread::sleep(std::time::Duration::from_millis(40));
        let work = WorkTree::new(dir.path());
        let Ok(Entry::File(f)) = work.read("big") else {
            panic!("big is a file")
        };
        assert_eq!(f.bytes.mapped_intact(), Some(true));
        assert!(f.bytes[..] == big[..]);
        let Ok(Entry::File(f)) = work.read("small") else {
            panic!("small is a file")
        };
        assert_eq!(f.bytes.mapped_intact(), None, "a smaller file is read");
    }

    #[test]
    fn bytes_of_a_mapped_file_that_changed_are_never_kept() {
        use crate::repo::{Content, Entry, Files as _, Part, WorkTree};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let text = b"line\n".repeat(MAP_AT_LEAST / 5 + 1);
        std::fs::write(&path, &text).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(40));
        let Ok(Entry::File(f)) = WorkTree::new(dir.path()).read("big") else {
            panic!("big is a file")
        };
        // The file's first two lines and one of their own: pieces of the mapping.
        let pieces = Content::spliced(&f.bytes, [Part::Base(0..10), Part::Own(b"b\n".to_vec())]);
        assert!(pieces.is_pieces());
        assert!(!f.bytes.source_changed() && !pieces.source_changed());
        assert_eq!(f.bytes.held().unwrap().as_deref(), Some(&text[..]));
        assert_eq!(
            Content::new(b"x".to_vec()).held().unwrap(),
            None,
            "memory is held already"
        );
        // Another program writes one byte in place: the size stays, the stamp does not.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .write_all(b"Z")
            .unwrap();
        assert!(f.bytes.source_changed() && pieces.source_changed());
        assert!(f.bytes.held().is_err() && pieces.held().is_err());
    }

    #[test]
    fn mappings_live_side_by_side_in_their_own_slots() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        std::fs::write(&path, b"one line\n").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let maps: Vec<Mapping> = (0..8).map(|_| Mapping::of(&file, 9).unwrap()).collect();
        let mut slots: Vec<usize> = maps.iter().map(|m| m.slot).collect();
        slots.sort();
        slots.dedup();
        assert_eq!(slots.len(), 8);
        assert!(maps.iter().all(|m| &m[..] == b"one line\n"));
    }
}

/// The fallback every system but Linux gets (and Linux with the `portable` feature): nothing
/// is mapped, big files are read.
#[cfg(all(test, any(not(target_os = "linux"), feature = "portable")))]
mod fallback_tests {
    use super::*;

    #[test]
    fn without_mapping_a_big_work_tree_file_is_read_whole() {
        use crate::repo::{Entry, Files as _, WorkTree};
        let dir = tempfile::tempdir().expect("tempdir");
        let big = b"line\n".repeat(MAP_AT_LEAST / 5 + 1);
        std::fs::write(dir.path().join("big"), &big).expect("write");
        let file = std::fs::File::open(dir.path().join("big")).expect("open");
        assert!(Mapping::of(&file, big.len()).is_none());
        std::thread::sleep(std::time::Duration::from_millis(40));
        let Ok(Entry::File(f)) = WorkTree::new(dir.path()).read("big") else {
            panic!("big is a file")
        };
        assert_eq!(f.bytes.mapped_intact(), None, "read, not mapped");
        assert!(f.bytes[..] == big[..]);
        assert!(!f.bytes.source_changed());
    }
}

//! How the C library's allocator hands out and takes back memory, set once when the process
//! starts.
//!
//! glibc serves every block over 128 KiB (a threshold it raises as big blocks are freed)
//! with a mapping of its own, and gives back the top of its heap once more than twice that
//! is free there. A big apply allocates and frees blocks of megabytes (the lines of a file,
//! their hashes, a diff's tables) one stage after another: each one mapped afresh, each page
//! of it zeroed and faulted in by the kernel, and unmapped again. Kept in the heap and used
//! again, the same work took a fifth less time on a 40,000-change hunk and a seventh less on
//! a 10 MiB file (rows J and A of `scripts/bench.sh`, timed on a memory file system, where
//! the writes' own cost does not drown it). A one-line apply's small blocks are served from
//! the heap either way.
//!
//! Blocks of [`MAPPED_FROM`] or more are still mapped (and given back when freed), and a
//! long-running server keeps at most [`KEPT_FREE`] of free heap at its top between calls.

/// Blocks from this size on get a mapping of their own (glibc's own ceiling for its
/// threshold on 64-bit systems).
pub const MAPPED_FROM: usize = 32 << 20;

/// The free memory at the heap's top that is kept for later blocks rather than given back.
pub const KEPT_FREE: usize = 64 << 20;

/// Set the thresholds (glibc only; elsewhere the allocator is left as it is).
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it is called before any thread
    // is started, and a value it rejects changes nothing.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED_FROM as libc::c_int);
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEPT_FREE as libc::c_int);
    }
}

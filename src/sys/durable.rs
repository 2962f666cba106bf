//! Whether writes are flushed to disk before the run goes on (git config `llm-apply.fsync`):
//! one setting for the whole process, as git's `core.fsync` is.
//!
//! Off (the default), nothing is flushed, as git flushes no work-tree file it writes. The
//! journal still makes every write safe against the process dying at any point (killed,
//! out of memory, a crash): what it wrote is in the operating system's cache, and the next
//! run finishes or takes back the apply. On, each file is flushed before it is renamed into
//! place, the journal before anything it names happens, and the snapshot's objects before
//! its ref: safe against the machine losing power too, at the cost of waiting for the disk.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);

/// Set from config once it is read (the MCP server: for each call).
pub fn set(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether writes are flushed.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Flush `file`'s data and metadata, when writes are flushed.
pub fn file(file: &File) -> io::Result<()> {
    if on() {
        file.sync_all()
    } else {
        Ok(())
    }
}

/// Flush a rename or removal in `dir`, when writes are flushed and the platform allows it:
/// some file systems refuse to sync directories, and are then as durable as they can be.
pub fn dir(dir: &Path) {
    #[cfg(unix)]
    if on() {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

//! Whether writes are flushed to disk before the run goes on (git config `llm-apply.fsync`):
//! a value the run reads from its config and hands to every writer, so two runs in one
//! process (the MCP server's calls, a library user's) each write as their own config says.
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

/// How a run's writes reach the disk: the repository carries it to the snapshot and the
/// journal ([`crate::repo::Repo::durability`]), the gate's token to the work tree
/// ([`crate::gate::Approved::durability`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Durability {
    /// Flush each write before going on (`llm-apply.fsync`).
    pub fsync: bool,
}

impl Durability {
    /// Flush `file`'s data and metadata, when writes are flushed.
    pub fn file(self, file: &File) -> io::Result<()> {
        if self.fsync {
            file.sync_all()
        } else {
            Ok(())
        }
    }

    /// Flush a rename or removal in `dir`, when writes are flushed and the platform allows
    /// it: some file systems refuse to sync directories, and are then as durable as they
    /// can be.
    pub fn dir(self, dir: &Path) {
        #[cfg(unix)]
        if self.fsync {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        #[cfg(not(unix))]
        let _ = dir;
    }
}

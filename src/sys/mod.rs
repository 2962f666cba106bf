//! What the process asks of the system: directory listings, helper threads, whether writes
//! are flushed to disk, big files mapped into memory, and how the allocator keeps memory.

pub mod alloc;
pub mod dir;
pub mod durable;
pub mod mapped;
pub mod threads;

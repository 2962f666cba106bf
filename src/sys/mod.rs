//! What the process asks of the system: helper threads, whether writes are flushed to disk,
//! and big files mapped into memory.

pub mod durable;
pub mod mapped;
pub mod threads;

//! What the process asks of the system: helper threads, and whether writes are flushed to
//! disk.

pub mod durable;
pub mod threads;

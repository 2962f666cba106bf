//! The text layer every stage shares: a file as lines and how to write it back (`file`), the
//! matching passes' keys (`normalize`), bytes that are not UTF-8 (`bytes`), line hashing,
//! scanning and diffs, the rope the sequential planner edits, and git's path quoting.

pub mod bytes;
pub mod file;
pub mod hash;
pub mod normalize;
pub mod quote;
pub mod rope;
pub mod scan;
pub mod textdiff;

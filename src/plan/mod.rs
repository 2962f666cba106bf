//! Planning: where every hunk lands and what every file becomes, in memory.

pub mod merge;

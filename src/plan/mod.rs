//! Planning: where every hunk lands and what every file becomes, in memory.

pub mod git_output;
pub mod three_way;

//! git-llm-apply: apply the patches LLM coding agents write to a git work tree.
//!
//! The pipeline, one module per stage, data flowing one way:
//!
//! ```text
//! input text -> parse (detect + format parsers) -> Patch -> plan (in memory)
//!            -> gate (policy, hooks) -> snapshot (ghost ref) -> write -> report
//! ```
//!
//! Each module uses only modules before it plus the shared ones (`patch`, `git`, `repo`).

pub mod gate;
pub mod git;
pub mod parse;
pub mod patch;
pub mod plan;
pub mod repo;
pub mod report;
pub mod snapshot;
pub mod write;

//! git-llm-apply: apply the patches LLM coding agents write to a git work tree.
//!
//! The pipeline, one module per stage, data flowing one way:
//!
//! ```text
//! input text -> parse (detect + format parsers) -> Patch -> plan (in memory) -> proof
//!            -> gate (policy, hooks) -> snapshot (ghost ref) -> write -> report
//! ```
//!
//! Modules are declared below in that order, and each uses only modules declared before it
//! (`tests/suite/layering.rs` checks it; rustfmt.toml keeps the order): first the helpers
//! every stage shares (`sys`: threads, flushing, mapped files; `text`: lines, keys, diffs),
//! then the model and the views every stage reads (`patch`, `git`, `repo`), then the
//! stages, then the front ends that drive them (`run`, `mcp`, `cli`).

pub mod sys;
pub mod text;
pub mod patch;
pub mod git;
pub mod repo;
pub mod input;
pub mod parse;
pub mod plan;
pub mod proof;
pub mod gate;
pub mod snapshot;
pub mod write;
pub mod report;

pub mod run;
pub mod mcp;
pub mod cli;

//! git-llm-apply: apply the patches LLM coding agents write to a git work tree.
//!
//! The pipeline, one module per stage, data flowing one way:
//!
//! ```text
//! input text -> parse (detect + format parsers) -> Patch -> plan (in memory) -> proof
//!            -> gate (policy, hooks) -> snapshot (ghost ref) -> write -> report
//! ```
//!
//! Each module uses only modules before it plus the shared ones (`patch`, `git`, `repo`).
//! Modules are declared in pipeline order (rustfmt.toml keeps it).

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

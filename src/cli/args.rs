//! What was typed: clap structs only. `resolve` turns them into library options.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "git-llm-apply",
    bin_name = "git llm-apply",
    version,
    about = "Apply the patches LLM coding agents write (unified diffs, Codex patches, SEARCH/REPLACE blocks) to a git work tree",
    args_conflicts_with_subcommands = true
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub apply: ApplyArgs,

    /// Run as if started in DIR (like git -C)
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Patch files; '-' or nothing reads standard input
    #[arg(value_name = "PATCH")]
    pub patches: Vec<String>,

    /// Plan everything, write nothing, report what would happen
    #[arg(long)]
    pub check: bool,

    /// Machine-readable report on standard output
    #[arg(long)]
    pub json: bool,

    /// Keep what applied when other files fail (default: all or nothing)
    #[arg(long)]
    pub partial: bool,

    /// Input format
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,

    /// With PATCH: apply it in reverse
    #[arg(long)]
    pub revert: bool,

    /// Also stage the result (the index is otherwise never touched)
    #[arg(long)]
    pub index: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Auto,
    Unified,
    Codex,
    SearchReplace,
}

#[derive(Debug, Subcommand)]
pub enum Command {}

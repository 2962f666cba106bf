//! What each command is asked to do, every choice named: the CLI builds these from its
//! arguments (`cli::resolve`), the MCP server from a tool call's arguments, and both hand
//! them to the same `run::*`.

use std::path::PathBuf;

use crate::patch::Format;

/// Where the patch text comes from.
#[derive(Debug, Clone)]
pub enum Patches {
    /// Files by name; `-` (or no name at all) is standard input.
    Files(Vec<String>),
    /// Text already in hand (a tool call's argument).
    Text(String),
    /// Structured edits (`edit --json-input`, the MCP `edit` tool), applied all or nothing.
    Edits(Vec<crate::parse::edit::EditOp>),
}

/// `git llm-apply [PATCH]...`.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// Where the patch text comes from.
    pub patches: Patches,
    /// Plan everything, write nothing.
    pub check: bool,
    /// Keep what applied when other files fail.
    pub partial: bool,
    /// The input format; `None` detects it.
    pub format: Option<Format>,
    /// Apply the patch in reverse.
    pub revert: bool,
    /// Also stage the result.
    pub index: bool,
    /// Record no ghost snapshot.
    pub no_snapshot: bool,
    /// Roll back when the post-llm-apply hook fails.
    pub verify: bool,
    /// The snapshot's description, instead of the prose scraped from the patch.
    pub label: Option<String>,
    /// The agent session the apply belongs to (`undo --session` takes them back together).
    pub session: Option<String>,
    /// Run as if started here (`-C DIR`); `None` is the current directory.
    pub dir: Option<PathBuf>,
    /// The git config as the caller reads it there (the CLI starts reading it before
    /// anything else, to check it for every command); `None` reads it.
    pub config: Option<crate::git::config::Pending>,
    /// When the snapshots beyond `llm-apply.keep` are dropped: before the run returns (the
    /// CLI), or after the caller has answered (the MCP server).
    pub prune: crate::write::recorded::Prune,
}

/// `git llm-apply undo [ID]`.
#[derive(Debug, Clone)]
pub struct UndoOptions {
    /// The snapshot as typed (a number or `refs/llm-apply/<n>`); `None` is the newest apply.
    pub id: Option<String>,
    /// Undo every apply of this session, newest first, as one operation.
    pub session: Option<String>,
    /// Restore even paths edited since the apply.
    pub force: bool,
    /// Decide everything, write nothing.
    pub check: bool,
    /// Undo in this linked worktree.
    pub worktree: Option<PathBuf>,
    /// Run as if started here (`-C DIR`); `None` is the current directory.
    pub dir: Option<PathBuf>,
    /// The git config as the caller reads it there; `None` reads it.
    pub config: Option<crate::git::config::Pending>,
}

/// `git llm-apply log`.
#[derive(Debug, Clone)]
pub struct LogOptions {
    /// Run as if started here (`-C DIR`); `None` is the current directory.
    pub dir: Option<PathBuf>,
    /// The git config as the caller reads it there (a recovery writes as it says); `None`
    /// reads it.
    pub config: Option<crate::git::config::Pending>,
}

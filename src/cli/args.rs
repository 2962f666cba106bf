//! What was typed: clap structs only. `resolve` turns them into library options.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "git-llm-apply",
    bin_name = "git llm-apply",
    version,
    about = "Apply the patches LLM coding agents write (unified diffs, Codex patches, SEARCH/REPLACE blocks) to a git work tree"
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub apply: ApplyArgs,

    /// Run as if started in DIR (like git -C)
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,

    /// Colour the human report: auto (on a terminal, unless NO_COLOR is set or git's
    /// color.diff/color.ui say otherwise), always, never
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value_t = ColorArg::Auto,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "always",
        global = true
    )]
    pub color: ColorArg,

    /// Only errors, on standard error; the exit status says the rest (as git apply -q;
    /// --json still prints its document)
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Also say, on standard error, each strategy tried per file and the git commands run
    #[arg(short, long, global = true)]
    pub verbose: bool,

    /// Show the whole diff in the human report (by default each file shows its first 300
    /// diff lines and counts the rest; --json is never cut)
    #[arg(long, global = true)]
    pub full_diff: bool,

    /// Print the JSON Schema of the --json report and exit
    #[arg(long, exclusive = true)]
    pub json_schema: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
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

    /// With PATCH: apply it in reverse; without PATCH: roll back the most recent apply
    #[arg(long)]
    pub revert: bool,

    /// Also stage the result (the index is otherwise never touched)
    #[arg(long)]
    pub index: bool,

    /// Do not record a ghost snapshot (then --revert cannot undo this apply)
    #[arg(long)]
    pub no_snapshot: bool,

    /// With --revert and no PATCH: restore even paths whose later edits overlap the apply's
    /// change (their current content is kept in a new snapshot first)
    #[arg(long, requires = "revert")]
    pub force: bool,

    /// Roll the apply back when the post-llm-apply hook fails (also: llm-apply.verify)
    #[arg(long)]
    pub verify: bool,

    /// Describe the apply in its snapshot (shown by log) with TEXT instead of the prose
    /// found around the patch
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,

    /// Record the apply as part of the agent session ID: undo --session ID takes back every
    /// apply of it at once
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

impl ApplyArgs {
    /// Whether any apply option or PATCH was typed: those do not go with a subcommand. (Clap's
    /// own check would also reject `-C DIR` before a subcommand, so it is done here.)
    pub fn any_given(&self) -> bool {
        let ApplyArgs {
            patches,
            check,
            json,
            partial,
            format,
            revert,
            index,
            no_snapshot,
            force,
            verify,
            label,
            session,
        } = self;
        !patches.is_empty()
            || *check
            || *json
            || *partial
            || *format != FormatArg::Auto
            || *revert
            || *index
            || *no_snapshot
            || *force
            || *verify
            || label.is_some()
            || session.is_some()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Auto,
    Unified,
    Codex,
    SearchReplace,
}

/// Every name the command line takes as a subcommand: each of [`Command`]'s, and clap's own
/// `help` (a test checks the list against clap's).
pub const SUBCOMMANDS: [&str; 9] = [
    "log",
    "undo",
    "hooks",
    "install-man",
    "edit",
    "mcp",
    "tools",
    "completions",
    "help",
];

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The recorded applies, newest first
    Log(LogArgs),
    /// Roll back apply ID (default: the most recent apply)
    Undo(UndoArgs),
    /// List or install the ready-made hooks (path-policy, fetch-missing-blobs, verify)
    #[command(subcommand)]
    Hooks(HooksCommand),
    /// Install the manual where man finds it for this binary (<bin>/../share/man/man1), so
    /// that `git help llm-apply` opens it
    InstallMan(InstallManArgs),
    /// Apply a structured edit read as JSON from standard input, as agents' edit tools send
    /// it: {path, old_string, new_string, replace_all}, a list of them (all or nothing), or a
    /// text-editor command (view, create, str_replace, insert)
    Edit(EditArgs),
    /// Serve the Model Context Protocol on stdin/stdout (tools: apply_patch, edit, view,
    /// undo, log) for the repository it starts in (or -C DIR)
    Mcp(McpArgs),
    /// Print tool definitions for function calling: OpenAI (Responses or Chat Completions,
    /// strict) or Anthropic JSON, Anthropic's text editor tool, or the Lark grammar of the
    /// Codex patch format for a freeform tool
    Tools(ToolsArgs),
    /// Print a shell completion script: for bash it also completes `git llm-apply` through
    /// git's own completion
    Completions(CompletionsArgs),
}

#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Serve where applies are not recorded (outside a repository the server does not start
    /// without it): every result then says that undo cannot take them back
    #[arg(long)]
    pub no_snapshot: bool,
}

#[derive(Debug, clap::Args)]
pub struct EditArgs {
    /// Read the request as JSON from standard input (the only input this command takes)
    #[arg(long, required = true)]
    pub json_input: bool,

    /// Machine-readable report on standard output
    #[arg(long)]
    pub json: bool,

    /// Plan everything, write nothing, report what would happen
    #[arg(long)]
    pub check: bool,

    /// Do not record a ghost snapshot (then undo cannot take the edit back)
    #[arg(long)]
    pub no_snapshot: bool,

    /// Describe the edit in its snapshot (shown by log)
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,

    /// Record the edit as part of the agent session ID (undo --session ID)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    /// Whose function-calling format
    #[arg(long = "for", value_enum, value_name = "API")]
    pub api: ToolsFor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolsFor {
    /// OpenAI's Responses API: function tools, strict mode
    Openai,
    /// OpenAI's Chat Completions API: function tools, strict mode
    OpenaiChat,
    /// Anthropic's Messages API: client tools
    Anthropic,
    /// Anthropic's text editor tool (str_replace_based_edit_tool), whose calls `edit
    /// --json-input` carries out
    AnthropicTextEditor,
    /// A freeform (custom) tool taking a Codex patch, constrained by its Lark grammar
    Codex,
}

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: ShellArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

#[derive(Debug, clap::Args)]
pub struct InstallManArgs {
    /// Install into DIR instead (a man1 directory)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Print the page (roff) on standard output instead of installing it
    #[arg(long, conflicts_with = "dir")]
    pub print: bool,
}

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// Machine-readable listing on standard output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// The snapshot to roll back: its number (as `log` shows it) or refs/llm-apply/<number>
    #[arg(value_name = "ID")]
    pub id: Option<String>,

    /// Undo every apply of session ID (apply --session), newest first, as one undo: refused
    /// as a whole if any of them would be
    #[arg(long, value_name = "ID", conflicts_with = "id")]
    pub session: Option<String>,

    /// Restore even paths whose later edits overlap the apply's change (their current
    /// content is kept in a new snapshot first, so this too can be undone)
    #[arg(long)]
    pub force: bool,

    /// Decide everything, write nothing, report what would happen
    #[arg(long)]
    pub check: bool,

    /// Undo in the linked worktree at PATH (its files, its snapshots), as `-C PATH` would;
    /// another worktree's snapshot is refused without it
    #[arg(long, value_name = "PATH")]
    pub worktree: Option<PathBuf>,

    /// Machine-readable report on standard output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Show the hooks directory, the llm-apply hooks in it, and the ready-made ones
    List,
    /// Install ready-made hooks (default: all) behind a dispatcher that chains them
    Install {
        /// Which hooks: path-policy, fetch-missing-blobs, verify
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Replace an installed copy that differs; keep your own hook by chaining it
        #[arg(long)]
        force: bool,
    },
    /// For hook scripts: print each path a plan or result JSON (on stdin) names, one a line
    PlanPaths,
    /// For hook scripts: print "FILES LINES" (files in the patch, lines added + removed)
    PlanSize,
}

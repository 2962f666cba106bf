//! The tools an agent calls: their arguments as types (the input schemas are generated from
//! them with schemars, as `--json-schema` is from the report's types), their descriptions,
//! and each call turned into the `run::*` options the CLI builds too.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::patch::Format;
use crate::run::{ApplyOptions, LogOptions, Patches, UndoOptions};

/// The formats a patch can be written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FormatName {
    /// Detect the format from the text.
    #[default]
    Auto,
    /// A unified diff (`--- a/x`, `+++ b/x`, `@@` hunks).
    Unified,
    /// A Codex patch (`*** Begin Patch` ... `*** End Patch`).
    Codex,
    /// SEARCH/REPLACE blocks (`<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`).
    SearchReplace,
}

impl FormatName {
    pub fn forced(self) -> Option<Format> {
        match self {
            FormatName::Auto => None,
            FormatName::Unified => Some(Format::Unified),
            FormatName::Codex => Some(Format::Codex),
            FormatName::SearchReplace => Some(Format::SearchReplace),
        }
    }
}

/// The arguments of `apply_patch`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The whole patch text, exactly as written: a unified diff, a Codex `*** Begin Patch`
    /// patch, or SEARCH/REPLACE blocks. Surrounding prose and Markdown fences are fine.
    pub patch: String,
    /// The patch's format; `auto` (the default) detects it.
    #[serde(default)]
    pub format: FormatName,
    /// Only check: plan everything and report what would happen, write nothing.
    #[serde(default)]
    pub check: bool,
    /// Keep the files that apply when others fail (default: all or nothing).
    #[serde(default)]
    pub partial: bool,
    /// A one-line description of the change, recorded with its snapshot (shown by `log`).
    #[serde(default)]
    pub label: Option<String>,
    /// A name for the agent's session: `undo` with the same session takes back every apply
    /// made under it, newest first, as one operation.
    #[serde(default)]
    pub session: Option<String>,
}

/// The arguments of `undo`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// The snapshot number to roll back, as `log` and `apply_patch` report it (default: the
    /// most recent apply).
    #[serde(default)]
    pub id: Option<u64>,
    /// Undo every apply of this session (the `session` given to `apply_patch`), newest first,
    /// as one operation; refused as a whole if any would conflict. Not with `id`.
    #[serde(default)]
    pub session: Option<String>,
    /// Restore even files edited since the apply (their current content is kept in a new
    /// snapshot first, so this too can be undone).
    #[serde(default)]
    pub force: bool,
    /// Only check whether the undo can be done; write nothing.
    #[serde(default)]
    pub check: bool,
}

/// The arguments of `log`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    /// At most this many entries, newest first (default: all).
    #[serde(default)]
    pub limit: Option<u64>,
}

pub const APPLY_PATCH: &str = "apply_patch";
pub const UNDO: &str = "undo";
pub const LOG: &str = "log";

pub const APPLY_PATCH_DESCRIPTION: &str = "Apply a patch to the files of the git work tree this \
server runs in. Accepts a unified diff (`--- a/path` / `+++ b/path` / `@@` hunks), a Codex patch \
(`*** Begin Patch`, `*** Update File: path`, `@@` context, `-`/`+`/space lines, `*** End \
Patch`), or SEARCH/REPLACE blocks (a path line, `<<<<<<< SEARCH`, old text, `=======`, new \
text, `>>>>>>> REPLACE`). Line numbers in `@@` headers are hints: each hunk is placed by its \
context and removed lines, which must match the file (whitespace differences are tolerated). \
It refuses rather than guesses: if a hunk's context is not in the file, or fits in more than \
one place, nothing is written (all or nothing unless `partial`) and the error shows the \
file's actual lines and what differs, so you can resend a corrected patch. Never touches HEAD \
or the index; every apply is recorded and can be taken back with `undo`. The result is the \
JSON report (status, files, snapshot id).";

pub const UNDO_DESCRIPTION: &str = "Take an earlier apply back out of the work tree: the most \
recent one, the snapshot `id`, or every apply of a `session`. Edits made since the apply are \
kept; if a file's later edits overlap the apply's change the undo is refused (nothing \
written) unless `force`. The undo is itself recorded, so it can be undone too.";

pub const LOG_DESCRIPTION: &str = "List the recorded applies and undos of this work tree, newest \
first: snapshot id, time, status (applied or undone), files and lines changed, label.";

/// One tool: its name, description and input schema.
pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: serde_json::Map<String, serde_json::Value>,
}

/// Every tool the server offers, in a stable order.
pub fn all() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: APPLY_PATCH,
            description: APPLY_PATCH_DESCRIPTION,
            input_schema: schema_of::<ApplyPatchArgs>(),
        },
        ToolDef {
            name: UNDO,
            description: UNDO_DESCRIPTION,
            input_schema: schema_of::<UndoArgs>(),
        },
        ToolDef {
            name: LOG,
            description: LOG_DESCRIPTION,
            input_schema: schema_of::<LogArgs>(),
        },
    ]
}

/// A tool's input schema: a self-contained JSON Schema object (no `$ref`, no `$schema`), the
/// shape every function-calling API accepts.
pub fn schema_of<T: JsonSchema>() -> serde_json::Map<String, serde_json::Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(&schema).expect("a schema always serializes");
    let map = value.as_object_mut().expect("a schema is an object");
    map.remove("title");
    map.clone()
}

impl ApplyPatchArgs {
    pub fn options(self, dir: Option<PathBuf>) -> ApplyOptions {
        let ApplyPatchArgs {
            patch,
            format,
            check,
            partial,
            label,
            session,
        } = self;
        ApplyOptions {
            patches: Patches::Text(patch),
            check,
            partial,
            format: format.forced(),
            revert: false,
            index: false,
            no_snapshot: false,
            verify: false,
            label,
            session,
            dir,
            config: None,
            shown_diff: None,
        }
    }
}

impl UndoArgs {
    pub fn options(self, dir: Option<PathBuf>) -> UndoOptions {
        let UndoArgs {
            id,
            session,
            force,
            check,
        } = self;
        UndoOptions {
            id: id.map(|n| n.to_string()),
            session,
            force,
            check,
            worktree: None,
            dir,
        }
    }
}

impl LogArgs {
    pub fn options(&self, dir: Option<PathBuf>) -> LogOptions {
        LogOptions { dir }
    }
}

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
    /// The format to force, or `None` to detect it.
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
    /// The full report (every file, hunk and notice) instead of the brief one, which fits in
    /// a few KB and says what it left out.
    #[serde(default)]
    pub detail: Option<bool>,
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
    /// The full report instead of the brief one.
    #[serde(default)]
    pub detail: Option<bool>,
}

/// The arguments of `log`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    /// At most this many entries, newest first (default: the newest 50).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// One edit of a list (`edits`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditItem {
    /// The file to edit; default: the `path` beside the list.
    #[serde(default)]
    pub path: Option<String>,
    /// The text to replace, exactly as the file has it (whitespace and Unicode look-alikes
    /// are tolerated when it is found nowhere exactly). Empty creates a new file.
    #[serde(default)]
    pub old_string: Option<String>,
    /// The text to put in its place.
    #[serde(default)]
    pub new_string: Option<String>,
    /// Replace every occurrence (otherwise an `old_string` found twice is refused).
    #[serde(default)]
    pub replace_all: Option<bool>,
    /// Instead of `old_string`: the first line to replace as `view` with `hashes` shows it,
    /// `"12:a3f"` (number and hash).
    #[serde(default)]
    pub start: Option<String>,
    /// With `start`: the last line to replace (default: `start`'s line).
    #[serde(default)]
    pub end: Option<String>,
}

/// The arguments of `edit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The file to edit, relative to the top of the work tree (or absolute, inside it).
    #[serde(default)]
    pub path: Option<String>,
    /// The text to replace, exactly as the file has it (whitespace and Unicode look-alikes
    /// are tolerated when it is found nowhere exactly). Empty creates a new file.
    #[serde(default)]
    pub old_string: Option<String>,
    /// The text to put in its place.
    #[serde(default)]
    pub new_string: Option<String>,
    /// Replace every occurrence (otherwise an `old_string` found twice is refused).
    #[serde(default)]
    pub replace_all: Option<bool>,
    /// Instead of `old_string`: the first line to replace as `view` with `hashes` shows it,
    /// `"12:a3f"` (number and hash).
    #[serde(default)]
    pub start: Option<String>,
    /// With `start`: the last line to replace (default: `start`'s line).
    #[serde(default)]
    pub end: Option<String>,
    /// Several edits, applied in order, all or nothing (instead of the single edit above).
    #[serde(default)]
    pub edits: Option<Vec<EditItem>>,
    /// The `view_token` of the `view` this edit was written from: if the file changed since,
    /// the edit is refused.
    #[serde(default)]
    pub view_token: Option<String>,
    /// Only check: report what would happen, write nothing.
    #[serde(default)]
    pub check: Option<bool>,
    /// A one-line description, recorded with the snapshot (shown by `log`).
    #[serde(default)]
    pub label: Option<String>,
    /// A name for the agent's session (`undo` with it takes back all of its edits).
    #[serde(default)]
    pub session: Option<String>,
    /// The full report instead of the brief one.
    #[serde(default)]
    pub detail: Option<bool>,
}

/// The arguments of `view`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewArgs {
    /// The file (or directory) to show, relative to the top of the work tree.
    pub path: String,
    /// The first line to show (1-based; default 1).
    #[serde(default)]
    pub start_line: Option<u64>,
    /// The last line to show (default: the end, at most 2000 lines from the first).
    #[serde(default)]
    pub end_line: Option<u64>,
    /// Show each line as `N:hash|text`: `edit` takes `start`/`end` as `"N:hash"`.
    #[serde(default)]
    pub hashes: Option<bool>,
}

/// The tool that applies a patch.
pub const APPLY_PATCH: &str = "apply_patch";
/// The tool that makes structured edits.
pub const EDIT: &str = "edit";
/// The tool that shows a file.
pub const VIEW: &str = "view";
/// The tool that takes an apply back.
pub const UNDO: &str = "undo";
/// The tool that lists the recorded applies.
pub const LOG: &str = "log";

/// What a model reads about `apply_patch`: which formats, and that it refuses rather than guesses.
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

/// What a model reads about `edit`.
pub const EDIT_DESCRIPTION: &str = "Edit a file of the git work tree by replacing text: \
`old_string` (copied from the file, enough lines to occur once) becomes `new_string`; \
`replace_all` replaces every occurrence; an empty `old_string` creates a new file. Or name the \
lines to replace by `start`/`end` as `view` with `hashes` shows them (`\"12:a3f\"`), without \
retyping them. `edits` takes a list, applied in order, all or nothing. Whitespace, tab/space and \
Unicode look-alike differences are tolerated (the report names the pass used); an \
`old_string` found in several places is refused with their line numbers; with `view_token` \
from `view`, an edit of a file changed since is refused. Line endings, a byte-order mark and \
the file's encoding are kept. Every edit is recorded: `undo` with its id takes it back.";

/// What a model reads about `view`.
pub const VIEW_DESCRIPTION: &str = "Show a file of the git work tree with line numbers (at most \
2000 lines; `start_line`/`end_line` for a range), or a directory's entries. With `hashes`, each \
line is `N:hash|text`, and `edit` can name lines by `\"N:hash\"`. The result's `view_token` \
makes an `edit` refuse a file changed since this view.";

/// What a model reads about `undo`.
pub const UNDO_DESCRIPTION: &str = "Take an earlier apply back out of the work tree: the most \
recent one, the snapshot `id`, or every apply of a `session`. Edits made since the apply are \
kept; if a file's later edits overlap the apply's change the undo is refused (nothing \
written) unless `force`. The undo is itself recorded, so it can be undone too.";

/// What a model reads about `log`.
pub const LOG_DESCRIPTION: &str = "List the recorded applies and undos of this work tree, newest \
first: snapshot id, time, status (applied or undone), files and lines changed, label.";

/// One tool: its name, description, input and output schemas, and what it does to the
/// work tree (MCP's annotations).
#[derive(Clone)]
pub struct ToolDef {
    /// The name a client calls it by.
    pub name: &'static str,
    /// What the model reads about it.
    pub description: &'static str,
    /// The JSON Schema of its arguments.
    pub input_schema: serde_json::Map<String, serde_json::Value>,
    /// The JSON Schema of its result.
    pub output_schema: serde_json::Map<String, serde_json::Value>,
    /// MCP's hints: its title, whether it only reads, whether its writes are destructive.
    pub annotations: rmcp::model::ToolAnnotations,
}

/// Hints for a tool: whether it only reads, and whether what it writes may replace or remove
/// what was there (every write is still recorded and undoable where the server records).
fn hints(title: &str, read_only: bool, destructive: bool) -> rmcp::model::ToolAnnotations {
    rmcp::model::ToolAnnotations::from_raw(
        Some(title.to_string()),
        Some(read_only),
        (!read_only).then_some(destructive),
        None,
        Some(false),
    )
}

/// A description without its promise of `undo`, for a server that records nothing.
pub fn unrecorded(description: &str) -> String {
    description
        .replace(
            "every apply is recorded and can be taken back with `undo`",
            "applies are NOT recorded by this server and cannot be undone",
        )
        .replace(
            "Every edit is recorded: `undo` with its id takes it back.",
            "Edits are NOT recorded by this server and cannot be undone.",
        )
}

/// Arguments sent as strings where the schema wants a boolean or an integer (as some
/// clients send every argument), read as what they unambiguously say: `"true"`, `"false"`,
/// `"2"`; and arguments sent as null, left out. Anything else is left for the schema check
/// to refuse.
pub fn coerce(
    arguments: &mut serde_json::Value,
    schema: &serde_json::Map<String, serde_json::Value>,
) {
    use serde_json::Value;
    let (Some(args), Some(Value::Object(props))) =
        (arguments.as_object_mut(), schema.get("properties"))
    else {
        return;
    };
    // A null is an argument not given: strict-mode function calling sends every optional
    // argument, as null when it has no value.
    args.retain(|_, v| !v.is_null());
    for (key, prop) in props {
        let Some(value) = args.get_mut(key) else {
            continue;
        };
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        match value {
            Value::String(s) if !types.contains(&"string") => {
                let t = s.trim();
                if types.contains(&"boolean") && (t == "true" || t == "false") {
                    *value = Value::Bool(t == "true");
                } else if types.contains(&"integer") {
                    if let Ok(n) = t.parse::<u64>() {
                        *value = Value::from(n);
                    }
                } else if types.contains(&"null") && t == "null" {
                    *value = Value::Null;
                }
            }
            Value::Array(items) => {
                if let Some(Value::Object(item_schema)) = prop.get("items") {
                    for item in items {
                        coerce(item, item_schema);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Every tool the server offers, in a stable order.
pub fn all() -> Vec<ToolDef> {
    defined().to_vec()
}

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    defined().iter().find(|t| t.name == name)
}

/// The definitions, made once per process: their schemas are generated from the report
/// types, which takes longer than a small apply (a server would pay it on every call).
fn defined() -> &'static [ToolDef] {
    static DEFINED: std::sync::OnceLock<Vec<ToolDef>> = std::sync::OnceLock::new();
    DEFINED.get_or_init(generate)
}

fn generate() -> Vec<ToolDef> {
    use crate::report::log::LogReport;
    use crate::report::view::ViewReport;
    use crate::report::Report;
    vec![
        ToolDef {
            name: APPLY_PATCH,
            description: APPLY_PATCH_DESCRIPTION,
            input_schema: schema_of::<ApplyPatchArgs>(),
            output_schema: output_schema_of::<Report>(),
            annotations: hints("Apply a patch", false, true),
        },
        ToolDef {
            name: EDIT,
            description: EDIT_DESCRIPTION,
            input_schema: schema_of::<EditArgs>(),
            output_schema: output_schema_of::<Report>(),
            annotations: hints("Edit a file", false, true),
        },
        ToolDef {
            name: VIEW,
            description: VIEW_DESCRIPTION,
            input_schema: schema_of::<ViewArgs>(),
            output_schema: output_schema_of::<ViewReport>(),
            annotations: hints("View a file", true, false),
        },
        ToolDef {
            name: UNDO,
            description: UNDO_DESCRIPTION,
            input_schema: schema_of::<UndoArgs>(),
            output_schema: output_schema_of::<Report>(),
            annotations: hints("Undo an apply", false, true),
        },
        ToolDef {
            name: LOG,
            description: LOG_DESCRIPTION,
            input_schema: schema_of::<LogArgs>(),
            output_schema: output_schema_of::<LogReport>(),
            annotations: hints("List the recorded applies", true, false),
        },
    ]
}

/// A tool's output schema: what its results' structured content is, as serialized (fields
/// left out when empty are optional), self-contained.
pub fn output_schema_of<T: JsonSchema>() -> serde_json::Map<String, serde_json::Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
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
    /// The apply these arguments ask for, run in `dir`.
    pub fn options(self, dir: Option<PathBuf>) -> ApplyOptions {
        let ApplyPatchArgs {
            patch,
            format,
            check,
            partial,
            label,
            session,
            detail: _,
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
            // The server drops old snapshots once it has answered.
            prune: crate::write::recorded::Prune::Later,
        }
    }
}

impl ViewArgs {
    /// The view these arguments ask for.
    pub fn request(self) -> crate::parse::edit::ViewRequest {
        let ViewArgs {
            path,
            start_line,
            end_line,
            hashes,
        } = self;
        let n = |v: Option<u64>| v.and_then(|n| usize::try_from(n).ok());
        crate::parse::edit::ViewRequest {
            path,
            start: n(start_line),
            end: n(end_line),
            hashes: hashes.unwrap_or(false),
        }
    }
}

impl UndoArgs {
    /// The undo these arguments ask for, run in `dir`.
    pub fn options(self, dir: Option<PathBuf>) -> UndoOptions {
        let UndoArgs {
            id,
            session,
            force,
            check,
            detail: _,
        } = self;
        UndoOptions {
            id: id.map(|n| n.to_string()),
            session,
            force,
            check,
            worktree: None,
            dir,
            config: None,
        }
    }
}

impl LogArgs {
    /// The listing these arguments ask for, run in `dir`.
    pub fn options(
        &self,
        dir: Option<PathBuf>,
        config: Option<crate::git::config::Pending>,
    ) -> LogOptions {
        LogOptions { dir, config }
    }
}

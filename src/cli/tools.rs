//! `git llm-apply tools --for API`: the MCP server's tools as function definitions for an
//! API that calls functions itself (same names, descriptions and input schemas as `mcp`;
//! for OpenAI in strict mode), Anthropic's text editor tool whose calls `edit --json-input`
//! carries out, and for Codex-style freeform tools the Lark grammar of the patch format.

use serde_json::{json, Map, Value};

use super::args::{ToolsArgs, ToolsFor};
use super::Outcome;
use crate::mcp::tools;
use crate::report::RunStatus;

/// The Lark grammar of the Codex `*** Begin Patch` format (canonical form).
pub const CODEX_GRAMMAR: &str = include_str!("../mcp/codex_patch.lark");

/// What the Codex custom tool's input is: the patch format its grammar admits and nothing
/// else (the `apply_patch` function tool also takes unified diffs and SEARCH/REPLACE).
pub const CODEX_DESCRIPTION: &str = "Apply a patch to the files of the git work tree. The \
input is the patch text alone, in this format: a `*** Begin Patch` line; then for each file \
`*** Add File: path` followed by the new file's lines, each starting with `+`; or `*** Delete \
File: path`; or `*** Update File: path`, optionally `*** Move to: new/path`, then the changes: \
`@@` lines (bare, or `@@ ` and a line to find first, such as a function's header), context \
lines starting with a space, removed lines starting with `-`, added lines starting with `+`, \
and `*** End of File` after a change that ends the file; finally a `*** End Patch` line. The \
context and removed lines must match the file (whitespace differences are tolerated); a \
change that fits in several places, or nowhere, is refused and nothing is written, with the \
file's actual lines in the result.";

/// The Anthropic-defined text editor tool's type for Claude 4 models.
pub const ANTHROPIC_TEXT_EDITOR: &str = "text_editor_20250728";

pub fn run(args: ToolsArgs) -> Outcome {
    let value = definitions(args.api);
    let mut text = serde_json::to_string_pretty(&value).expect("definitions serialize");
    text.push('\n');
    Outcome::text(text, String::new(), RunStatus::Applied)
}

/// The definitions for one API, as a JSON array of tools.
pub fn definitions(api: ToolsFor) -> Value {
    let all = tools::all();
    match api {
        // The Responses API takes a function tool flat, with `strict`.
        ToolsFor::Openai => Value::Array(
            all.into_iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "name": t.name,
                        "description": t.description,
                        "parameters": strict(Value::Object(t.input_schema)),
                        "strict": true,
                    })
                })
                .collect(),
        ),
        // Chat Completions wraps it in `function`.
        ToolsFor::OpenaiChat => Value::Array(
            all.into_iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": strict(Value::Object(t.input_schema)),
                            "strict": true,
                        }
                    })
                })
                .collect(),
        ),
        ToolsFor::Anthropic => Value::Array(
            all.into_iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": Value::Object(t.input_schema),
                    })
                })
                .collect(),
        ),
        // A schema-less tool Anthropic defines: the model knows its commands; the harness
        // hands each call's input to `git llm-apply edit --json-input`.
        ToolsFor::AnthropicTextEditor => json!([{
            "type": ANTHROPIC_TEXT_EDITOR,
            "name": "str_replace_based_edit_tool",
        }]),
        // A freeform tool takes the patch as raw text constrained by the grammar; the call's
        // text is what `git llm-apply --format codex` (or `apply_patch`) reads.
        ToolsFor::Codex => json!([{
            "type": "custom",
            "name": tools::APPLY_PATCH,
            "description": CODEX_DESCRIPTION,
            "format": {
                "type": "grammar",
                "syntax": "lark",
                "definition": CODEX_GRAMMAR,
            }
        }]),
    }
}

/// Keywords OpenAI's strict mode does not take; what they said is kept in the description
/// where it matters, or is said there already.
const NOT_IN_STRICT: [&str; 13] = [
    "default",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "$schema",
];

/// A schema as OpenAI's strict mode wants it: every object closed (`additionalProperties:
/// false`) with every property required, an optional one made nullable instead; `oneOf`
/// constants as an `enum`; no keyword strict mode rejects.
pub fn strict(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    for k in NOT_IN_STRICT {
        map.remove(k);
    }
    if let Some(Value::Array(choices)) = map.remove("oneOf") {
        let consts: Option<Vec<Value>> = choices.iter().map(|c| c.get("const").cloned()).collect();
        match consts {
            Some(values) => {
                map.insert("type".into(), json!("string"));
                map.insert("enum".into(), Value::Array(values));
            }
            None => {
                map.insert(
                    "anyOf".into(),
                    Value::Array(choices.into_iter().map(strict).collect()),
                );
            }
        }
    }
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), json!([c]));
    }
    if let Some(items) = map.remove("items") {
        map.insert("items".into(), strict(items));
    }
    if let Some(Value::Object(props)) = map.remove("properties") {
        let required: Vec<String> = match map.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        let mut out = Map::new();
        for (name, prop) in props {
            let mut prop = strict(prop);
            if !required.contains(&name) {
                nullable(&mut prop);
            }
            out.insert(name, prop);
        }
        let names: Vec<Value> = out.keys().map(|k| json!(k)).collect();
        map.insert("properties".into(), Value::Object(out));
        map.insert("required".into(), Value::Array(names));
        map.insert("additionalProperties".into(), json!(false));
    }
    Value::Object(map)
}

/// `prop` also takes `null` (an optional property, in strict mode, is sent as null).
fn nullable(prop: &mut Value) {
    let Some(map) = prop.as_object_mut() else {
        return;
    };
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.contains(&json!("null")) => ts.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

//! `git llm-apply tools --for openai|anthropic|codex`: the MCP server's tools as function
//! definitions for an API that calls functions itself (same names, descriptions and input
//! schemas as `mcp`), and for Codex-style freeform tools the Lark grammar of the patch format.

use serde_json::{json, Value};

use super::args::{ToolsArgs, ToolsFor};
use super::Outcome;
use crate::mcp::tools;
use crate::report::RunStatus;

/// The Lark grammar of the Codex `*** Begin Patch` format (canonical form).
pub const CODEX_GRAMMAR: &str = include_str!("../mcp/codex_patch.lark");

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
        // Chat Completions' `tools` array (the Responses API takes the inner object flat).
        ToolsFor::Openai => Value::Array(
            all.into_iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": Value::Object(t.input_schema),
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
        // A freeform tool takes the patch as raw text constrained by the grammar; the call's
        // text is what `git llm-apply --format codex` (or `apply_patch`) reads.
        ToolsFor::Codex => json!([{
            "type": "custom",
            "name": tools::APPLY_PATCH,
            "description": tools::APPLY_PATCH_DESCRIPTION,
            "format": {
                "type": "grammar",
                "syntax": "lark",
                "definition": CODEX_GRAMMAR,
            }
        }]),
    }
}

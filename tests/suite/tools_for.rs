//! `git llm-apply tools --for API`: each target's output has that API's published shape (a
//! shape schema per API, written from its documentation), the OpenAI ones follow strict
//! mode's rules, and the Codex tool's description says only what its grammar admits.

use serde_json::{json, Value};

use super::mcp::Client;
use crate::common::schema::validate;
use crate::common::TestRepo;

fn tools_for(api: &str) -> Vec<Value> {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    let out = r.cmd(&["tools", "--for", api]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{api}: {out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array().expect("an array of tools").clone()
}

#[track_caller]
fn assert_shape(api: &str, shape: &Value, tools: &[Value]) {
    assert!(!tools.is_empty(), "{api}");
    for t in tools {
        let errors = validate(shape, t);
        assert!(errors.is_empty(), "{api}: {errors:?}\n{t:#}");
    }
}

/// The keywords strict mode does not take (OpenAI's structured outputs guide).
const REJECTED: [&str; 14] = [
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
    "oneOf",
    "$ref",
];

/// Strict mode's rules, everywhere in a schema: each object closed with every property
/// required; no rejected keyword.
fn strict_problems(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for k in REJECTED {
        if map.contains_key(k) {
            out.push(format!("{at}: has {k}"));
        }
    }
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        if map.get("additionalProperties") != Some(&json!(false)) {
            out.push(format!("{at}: additionalProperties is not false"));
        }
        let mut required: Vec<&str> = map["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        required.sort_unstable();
        let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
        names.sort_unstable();
        if required != names {
            out.push(format!(
                "{at}: required {required:?} is not every property {names:?}"
            ));
        }
        for (k, v) in props {
            strict_problems(v, &format!("{at}.{k}"), out);
        }
    }
    if let Some(items) = map.get("items") {
        strict_problems(items, &format!("{at}[]"), out);
    }
    for k in ["anyOf"] {
        for (i, v) in map
            .get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            strict_problems(v, &format!("{at}.{k}[{i}]"), out);
        }
    }
}

/// A call as a strict-mode model makes it: every argument, null where it has no value.
fn strict_call(schema: &Value, given: Value) -> Value {
    let mut call = serde_json::Map::new();
    for k in schema["properties"].as_object().unwrap().keys() {
        call.insert(k.clone(), given.get(k).cloned().unwrap_or(Value::Null));
    }
    Value::Object(call)
}

fn function_shape(wrapped: bool) -> Value {
    let function = json!({
        "type": "object",
        "required": ["name", "description", "parameters", "strict"],
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "parameters": {"type": "object", "additionalProperties": {}},
            "strict": {"const": true},
        }
    });
    if wrapped {
        json!({
            "type": "object",
            "required": ["type", "function"],
            "properties": {"type": {"const": "function"}, "function": function},
        })
    } else {
        let mut flat = function;
        flat["required"].as_array_mut().unwrap().push(json!("type"));
        flat["properties"]["type"] = json!({"const": "function"});
        flat
    }
}

fn check_openai(api: &str, wrapped: bool) {
    let tools = tools_for(api);
    assert_shape(api, &function_shape(wrapped), &tools);
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\n")]);
    let mut c = Client::start(&r, &[]);
    for t in &tools {
        let f = if wrapped { &t["function"] } else { t };
        let name = f["name"].as_str().unwrap();
        let schema = &f["parameters"];
        assert_eq!(schema["type"], "object", "{api} {name}");
        let mut problems = Vec::new();
        strict_problems(schema, name, &mut problems);
        assert!(problems.is_empty(), "{api}: {problems:#?}");
        if name == "apply_patch" {
            let call = strict_call(
                schema,
                json!({"patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"}),
            );
            assert!(validate(schema, &call).is_empty(), "{call}");
            assert!(
                !validate(schema, &json!({"patch": "x"})).is_empty(),
                "all required"
            );
            // The server takes the call as a strict-mode model sends it.
            let result = c.call(name, call);
            assert_eq!(result["isError"], false, "{result}");
            assert_eq!(r.read_str("f.txt"), "a\nB\nc\n");
        }
        if name == "edit" {
            let call = strict_call(
                schema,
                json!({"path": "f.txt", "old_string": "c", "new_string": "C"}),
            );
            assert!(validate(schema, &call).is_empty(), "{call}");
            let result = c.call(name, call);
            assert_eq!(result["isError"], false, "{result}");
        }
    }
    c.finish();
}

#[test]
fn openai_is_the_responses_api_function_tool_in_strict_mode() {
    check_openai("openai", false);
}

#[test]
fn openai_chat_is_the_chat_completions_function_tool_in_strict_mode() {
    check_openai("openai-chat", true);
}

#[test]
fn anthropic_is_the_messages_api_client_tool() {
    let shape = json!({
        "type": "object",
        "required": ["name", "description", "input_schema"],
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "input_schema": {
                "type": "object",
                "required": ["type", "properties"],
                "properties": {"type": {"const": "object"},
                    "properties": {"type": "object", "additionalProperties": {}},
                    "required": {"type": "array"}, "additionalProperties": {"type": "boolean"},
                    "description": {"type": "string"}},
            },
        }
    });
    let tools = tools_for("anthropic");
    assert_shape("anthropic", &shape, &tools);
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["apply_patch", "edit", "view", "undo", "log"]);
}

#[test]
fn anthropic_text_editor_is_the_anthropic_defined_tool_whose_calls_edit_json_input_runs() {
    let shape = json!({
        "type": "object",
        "required": ["type", "name"],
        "properties": {
            "type": {"enum": ["text_editor_20250728"]},
            "name": {"const": "str_replace_based_edit_tool"},
        }
    });
    let tools = tools_for("anthropic-text-editor");
    assert_shape("anthropic-text-editor", &shape, &tools);
    // A call as Claude makes it with that tool runs as is.
    let r = TestRepo::with(&[("f.txt", "a\nb\n")]);
    let call = json!({"command": "str_replace", "path": "f.txt", "old_str": "b", "new_str": "B"});
    r.apply(&["edit", "--json-input"], &call.to_string())
        .code(0);
    assert_eq!(r.read_str("f.txt"), "a\nB\n");
}

#[test]
fn codex_is_a_custom_tool_whose_description_says_only_what_its_grammar_admits() {
    let shape = json!({
        "type": "object",
        "required": ["type", "name", "description", "format"],
        "properties": {
            "type": {"const": "custom"},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "format": {
                "type": "object",
                "required": ["type", "syntax", "definition"],
                "properties": {"type": {"const": "grammar"}, "syntax": {"const": "lark"},
                    "definition": {"type": "string"}},
            },
        }
    });
    let tools = tools_for("codex");
    assert_shape("codex", &shape, &tools);
    let description = tools[0]["description"].as_str().unwrap();
    let grammar = tools[0]["format"]["definition"].as_str().unwrap();
    for other in [
        "unified", "SEARCH", "REPLACE", "<<<<<<<", "--- a/", "+++ b/",
    ] {
        assert!(
            !description.contains(other),
            "the grammar admits no {other}: {description}"
        );
    }
    // Every marker the description names is one the grammar has.
    let markers = regex::Regex::new(r"`(\*\*\* [A-Za-z ]+?)(:|`)").unwrap();
    let named: Vec<&str> = markers
        .captures_iter(description)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert!(named.len() >= 7, "{named:?}");
    for m in named {
        let escaped = m.replace('*', "\\*");
        assert!(grammar.contains(&escaped), "{m} is not in the grammar");
    }
}

//! A small JSON Schema validator for the subset `--json-schema` emits (schemars, draft
//! 2020-12): `type`, `enum`, `const`, `properties`, `required`, `additionalProperties`,
//! `items`, `$ref` into `$defs`, `anyOf`, `oneOf`, `allOf`, `minimum`, `maximum`.
//!
//! Stricter than JSON Schema in one way, on purpose: an object property that the schema does
//! not declare is an error even without `additionalProperties: false`, so a field added to
//! the report but missing from the schema (or renamed in one place only) fails the tests.

use std::sync::OnceLock;

use serde_json::Value;

/// The schema the binary prints, read once per test process.
pub fn report_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        use assert_cmd::cargo::CommandCargoExt;
        let out = std::process::Command::cargo_bin("git-llm-apply")
            .expect("binary built")
            .arg("--json-schema")
            .output()
            .expect("run --json-schema");
        assert!(out.status.success(), "--json-schema failed");
        serde_json::from_slice(&out.stdout).expect("--json-schema prints JSON")
    })
}

/// Every violation of `schema` by `value`, as `path: problem` lines (empty when valid).
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, schema, value, "$", &mut errors);
    errors
}

/// Panics, with the violations and the document, unless `value` is valid `--json` output.
#[track_caller]
pub fn assert_valid_output(value: &Value) {
    let errors = validate(report_schema(), value);
    assert!(
        errors.is_empty(),
        "the --json output does not validate against --json-schema:\n{}\n--- output\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(value).expect("JSON")
    );
}

fn resolve<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let name = reference
        .strip_prefix("#/$defs/")
        .unwrap_or_else(|| panic!("unsupported $ref {reference}"));
    root.get("$defs")
        .and_then(|d| d.get(name))
        .unwrap_or_else(|| panic!("$ref to a missing definition {reference}"))
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        other => panic!("unsupported type {other}"),
    }
}

fn check(root: &Value, schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    let s = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            errors.push(format!("{path}: no value is allowed here"));
            return;
        }
        Value::Object(s) => s,
        other => panic!("a schema must be an object or a boolean, got {other}"),
    };
    const KNOWN: &[&str] = &[
        "$schema",
        "$defs",
        "$ref",
        "title",
        "description",
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "minimum",
        "maximum",
        "format",
        "default",
        "examples",
    ];
    for k in s.keys() {
        assert!(
            KNOWN.contains(&k.as_str()),
            "the schema uses `{k}`, which this validator does not know: extend it"
        );
    }
    if let Some(Value::String(r)) = s.get("$ref") {
        check(root, resolve(root, r), v, path, errors);
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_matches(t, v) => {
            errors.push(format!("{path}: expected {t}, got {v}"));
            return;
        }
        Some(Value::Array(ts)) if !ts.iter().any(|t| type_matches(t.as_str().unwrap_or(""), v)) => {
            errors.push(format!("{path}: expected one of {ts:?}, got {v}"));
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        if !options.contains(v) {
            errors.push(format!("{path}: {v} is not one of {options:?}"));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            errors.push(format!("{path}: expected {c}, got {v}"));
        }
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
            if n < min {
                errors.push(format!("{path}: {n} is below the minimum {min}"));
            }
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
            if n > max {
                errors.push(format!("{path}: {n} is above the maximum {max}"));
            }
        }
    }
    if let (Some(Value::Array(items)), Some(schema)) = (Some(v), s.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check(root, schema, item, &format!("{path}[{i}]"), errors);
        }
    }
    if let Value::Object(obj) = v {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = s.get("required") {
            for r in required {
                let r = r.as_str().expect("required names are strings");
                if !obj.contains_key(r) {
                    errors.push(format!("{path}: required property `{r}` is missing"));
                }
            }
        }
        for (k, val) in obj {
            let p = format!("{path}.{k}");
            match props.and_then(|ps| ps.get(k)) {
                Some(ps) => check(root, ps, val, &p, errors),
                None => match s.get("additionalProperties") {
                    Some(extra @ Value::Object(_)) => check(root, extra, val, &p, errors),
                    // Composite schemas declare the properties in their branches.
                    _ if props.is_none() && !s.contains_key("type") => {}
                    _ => errors.push(format!("{p}: a property the schema does not declare")),
                },
            }
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            check(root, sub, v, path, errors);
        }
    }
    if let Some(Value::Array(any)) = s.get("anyOf") {
        let branches: Vec<Vec<String>> = any
            .iter()
            .map(|sub| validate_in(root, sub, v, path))
            .collect();
        if branches.iter().all(|e| !e.is_empty()) {
            // Say why each branch failed, so a report that broke reads as what broke.
            let why: Vec<String> = branches
                .iter()
                .enumerate()
                .map(|(i, e)| format!("  branch {i}: {}", e.join("; ")))
                .collect();
            errors.push(format!(
                "{path}: matches none of the anyOf schemas:\n{}",
                why.join("\n")
            ));
        }
    }
    if let Some(Value::Array(one)) = s.get("oneOf") {
        let n = one
            .iter()
            .filter(|sub| validate_in(root, sub, v, path).is_empty())
            .count();
        if n != 1 {
            errors.push(format!(
                "{path}: matches {n} of the oneOf schemas (exactly one is required): {v}"
            ));
        }
    }
}

fn validate_in(root: &Value, schema: &Value, v: &Value, path: &str) -> Vec<String> {
    let mut errors = Vec::new();
    check(root, schema, v, path, &mut errors);
    errors
}

#[test]
fn the_validator_catches_what_it_should() {
    let schema: Value = serde_json::json!({
        "type": "object",
        "properties": {
            "n": { "type": "integer", "minimum": 0 },
            "k": { "$ref": "#/$defs/Kind" },
            "o": { "anyOf": [{ "type": "string" }, { "type": "null" }] }
        },
        "required": ["n"],
        "$defs": { "Kind": { "oneOf": [{ "const": "a" }, { "const": "b" }] } }
    });
    assert!(validate(&schema, &serde_json::json!({"n": 1, "k": "a", "o": null})).is_empty());
    assert_eq!(validate(&schema, &serde_json::json!({"k": "a"})).len(), 1);
    assert_eq!(validate(&schema, &serde_json::json!({"n": -1})).len(), 1);
    assert_eq!(
        validate(&schema, &serde_json::json!({"n": 1, "k": "c"})).len(),
        1
    );
    assert_eq!(
        validate(&schema, &serde_json::json!({"n": 1, "x": 2})).len(),
        1
    );
    assert_eq!(
        validate(&schema, &serde_json::json!({"n": 1, "o": 3})).len(),
        1
    );
}

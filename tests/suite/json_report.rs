//! The `--json` contract: `--json-schema` is generated from the report's types, every report
//! of every kind validates against it (`apply_json` checks each one the suite produces), and
//! docs/json.md documents every field and value the schema names.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common::schema::{report_schema, validate};
use crate::common::{numbered, TestRepo};

fn diff(path: &str, body: &str) -> String {
    format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{body}")
}

#[test]
fn the_schema_is_draft_2020_12_for_a_report_or_a_log_listing() {
    let root = report_schema();
    assert_eq!(
        root["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        root["anyOf"],
        serde_json::json!([{"$ref": "#/$defs/Report"}, {"$ref": "#/$defs/LogReport"}])
    );
    let s = &root["$defs"]["Report"];
    assert_eq!(s["properties"]["schema"]["minimum"], 1);
    assert_eq!(s["properties"]["schema"]["maximum"], 1);
    for field in [
        "schema",
        "status",
        "exit_code",
        "files",
        "summary",
        "notices",
        "errors",
    ] {
        assert!(s["properties"][field].is_object(), "{field}");
        assert!(
            s["required"]
                .as_array()
                .expect("required")
                .contains(&Value::from(field)),
            "{field} is always present"
        );
    }
    assert!(
        s["properties"].get("diffs").is_none(),
        "the diff is for people only"
    );
}

#[test]
fn json_schema_is_the_only_thing_it_prints() {
    let r = TestRepo::empty();
    let out = r.cmd(&["--json-schema"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(&printed, report_schema());
    let out = r.cmd(&["--json-schema", "--check"]).output().expect("run");
    assert_eq!(
        out.status.code(),
        Some(2),
        "--json-schema takes no other option"
    );
}

/// One run of each outcome; `apply_json` validates each report against the schema.
#[test]
fn reports_of_every_kind_validate_against_the_schema() {
    let file = numbered("line", 30);
    let good = diff("a.txt", "@@ -2,3 +2,3 @@\n line2\n-line3\n+LINE3\n line4\n");
    let bad = diff("b.txt", "@@ -2,3 +2,3 @@\n line2\n-nope\n+NOPE\n line4\n");
    let mut statuses = BTreeSet::new();
    let mut seen = |v: &Value| {
        statuses.insert(v["status"].as_str().expect("status").to_string());
    };

    let r = TestRepo::with(&[("a.txt", &file), ("b.txt", &file)]);
    let (_, v) = r.apply_json(&["--check"], &good);
    seen(&v);
    let (_, v) = r.apply_json(&[], &format!("{good}{bad}"));
    seen(&v);
    assert!(v["files"][1]["hunks"][0]["diagnostic"]["closest"].is_object());
    let (_, v) = r.apply_json(&["--partial"], &format!("{good}{bad}"));
    seen(&v);
    let (_, v) = r.apply_json(&[], &good);
    seen(&v);
    assert_eq!(v["status"], "already-applied");
    let (_, v) = r.apply_json(&[], "not a patch\n");
    seen(&v);
    let (_, v) = r.apply_json(&[], &diff("missing.txt", "@@ -1 +1 @@\n-a\n+b\n"));
    assert_eq!(v["files"][0]["status"], "refused");

    // Ambiguity, warnings and Codex notices.
    let r = TestRepo::with(&[("c.txt", &"x = 1\ny = 2\nz = 3\n".repeat(2))]);
    let (_, v) = r.apply_json(
        &[],
        &diff("c.txt", "@@ @@\n x = 1\n-y = 2\n+y = 20\n z = 3\n"),
    );
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous");
    let (_, v) = r.apply_json(
        &[],
        "*** Begin Patch\n*** Add File: c.txt\n+new\n*** End Patch\n",
    );
    assert_eq!(v["files"][0]["warnings"][0]["kind"], "overwrote");
    seen(&v);

    // A three-way conflict.
    let r = TestRepo::with(&[("f.txt", &numbered("l", 20))]);
    r.write(
        "f.txt",
        numbered("l", 20).replace("l10\n", "TEN\n").as_bytes(),
    );
    let patch = r.git(&["diff"]);
    r.git(&["checkout", "--", "f.txt"]);
    r.write(
        "f.txt",
        numbered("l", 20).replace("l10\n", "ten!\n").as_bytes(),
    );
    let (_, v) = r.apply_json(&[], &patch);
    assert_eq!(v["files"][0]["status"], "conflicted");
    let (_, v) = r.apply_json(&["--partial"], &patch);
    seen(&v);

    assert_eq!(
        statuses,
        [
            "already-applied",
            "applied",
            "checked",
            "error",
            "partial",
            "refused"
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "every run status was produced"
    );
}

#[test]
fn a_report_that_breaks_the_schema_is_caught() {
    let r = TestRepo::with(&[("a.txt", "a\n")]);
    let (_, mut v) = r.apply_json(&[], &diff("a.txt", "@@ -1 +1 @@\n-a\n+b\n"));
    v["files"][0]["status"] = "done".into();
    v["files"][0]["surprise"] = 1.into();
    v.as_object_mut().expect("object").remove("exit_code");
    let report = serde_json::json!({
        "$ref": "#/$defs/Report",
        "$defs": report_schema()["$defs"].clone(),
    });
    let errors = validate(&report, &v);
    assert_eq!(errors.len(), 3, "{errors:#?}");
}

/// Every property name and every string value the schema names.
fn names(schema: &Value, props: &mut BTreeSet<String>, values: &mut BTreeSet<String>) {
    match schema {
        Value::Object(m) => {
            if let Some(Value::Object(ps)) = m.get("properties") {
                props.extend(ps.keys().cloned());
            }
            if let Some(Value::String(c)) = m.get("const") {
                values.insert(c.clone());
            }
            if let Some(Value::Array(e)) = m.get("enum") {
                values.extend(e.iter().filter_map(|x| x.as_str().map(String::from)));
            }
            for (k, v) in m {
                if k != "description" {
                    names(v, props, values);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| names(v, props, values)),
        _ => {}
    }
}

#[test]
fn docs_json_md_documents_every_field_and_value() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md"))
        .expect("docs/json.md");
    let (mut props, mut values) = (BTreeSet::new(), BTreeSet::new());
    names(report_schema(), &mut props, &mut values);
    let missing: Vec<&String> = props
        .iter()
        .chain(&values)
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/json.md does not mention (in backquotes): {missing:?}"
    );
    assert!(doc.contains("\"schema\": 1"));
}

#[test]
fn the_examples_in_docs_json_md_validate() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md"))
        .expect("docs/json.md");
    let mut examples = 0;
    let mut rest = doc.as_str();
    while let Some(start) = rest.find("```json\n") {
        let body = &rest[start + 8..];
        let end = body.find("```").expect("a closed fence");
        let v: Value = serde_json::from_str(&body[..end])
            .unwrap_or_else(|e| panic!("an example is not JSON ({e}):\n{}", &body[..end]));
        let errors = validate(report_schema(), &v);
        assert!(errors.is_empty(), "{errors:#?}\n{}", &body[..end]);
        examples += 1;
        rest = &body[end..];
    }
    assert!(examples >= 4, "success, refusal, partial and conflict");
}

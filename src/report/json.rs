//! The JSON rendering of a Report, and the JSON Schema of that rendering generated from the
//! report's types (documented in docs/json.md).

use super::Report;

pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("a report always serializes");
    s.push('\n');
    s
}

/// The `log` listing (schema in docs/json.md).
pub fn render_log(log: &super::log::LogReport) -> String {
    let mut s = serde_json::to_string_pretty(log).expect("a listing always serializes");
    s.push('\n');
    s
}

/// The JSON Schema every `--json` report validates against (`--json-schema`).
pub fn schema() -> String {
    // The schema of what we write (serialize contract): fields skipped when empty or absent
    // are optional.
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Report>();
    let mut s = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    s.push('\n');
    s
}

//! The JSON rendering of a Report, and the JSON Schema of that rendering generated from the
//! report's types (documented in docs/json.md).

use schemars::JsonSchema;

use super::log::LogReport;
use super::Report;

/// Everything `--json` prints: the report of an apply, a check or an undo (errors included),
/// or the `log` listing.
#[derive(JsonSchema)]
#[schemars(title = "git llm-apply --json")]
#[serde(untagged)]
#[allow(dead_code)] // Only its schema is used: each document is serialized as itself.
enum Output {
    Report(Report),
    Log(LogReport),
}

/// The `--json` document of a report, pretty-printed, with a final newline.
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

/// The JSON Schema every `--json` output validates against (`--json-schema`): a report or
/// a `log` listing.
pub fn schema() -> String {
    // The schema of what we write (serialize contract): fields skipped when empty or absent
    // are optional.
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Output>();
    let mut s = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    s.push('\n');
    s
}

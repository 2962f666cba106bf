//! The JSON document of a report as clients read it: the fields [`super::Report`] serializes
//! to, in their order, with what follows from others (the exit status, from the run's
//! status) worked out here rather than kept beside them. Its schema is the report's schema.

use schemars::JsonSchema;
use serde::Serialize;

use super::{brief, hooks, ErrorReport, FileReport, RunStatus, Summary};
use crate::patch::{Format, Notice};

/// The report of one run of `git llm-apply` (`--json`).
#[derive(Serialize, JsonSchema)]
pub(super) struct Report<'a> {
    /// The schema version: 1. Bumped on any incompatible change.
    #[schemars(range(min = 1, max = 1))]
    schema: u32,
    status: RunStatus,
    /// The process's exit status: 0 applied or nothing to do, 1 refused, 2 error, 3 partial.
    exit_code: i32,
    /// `--check`: nothing was to be written.
    check: bool,
    /// The patch was applied in reverse (`--revert PATCH`).
    reverse: bool,
    /// The input format, once detected.
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Format>,
    /// Whether any file was changed on disk.
    written: bool,
    files: &'a [FileReport],
    summary: &'a Summary,
    /// Repairs the input needed and facts about the run.
    notices: &'a [Notice],
    errors: &'a [ErrorReport],
    /// The ghost snapshot taken before writing, to undo with.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot: Option<&'a str>,
    /// The `pre-llm-apply` / `post-llm-apply` runs, in order.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    hooks: &'a [hooks::HookReport],
    /// What standard error shows without `--json` (refusals with their diagnostics,
    /// warnings, notices, errors), without colour: one text ready to show a person or a
    /// model. Absent when there is nothing to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    /// A brief report (the MCP server's default) only: what it left out, and how to get the
    /// full report. `--json` is always complete and never has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted: Option<&'a brief::Omitted>,
}

impl<'a> From<&'a super::Report> for Report<'a> {
    fn from(r: &'a super::Report) -> Report<'a> {
        Report {
            schema: r.schema,
            status: r.status,
            exit_code: r.exit_code(),
            check: r.check,
            reverse: r.reverse,
            format: r.format,
            written: r.written,
            files: &r.files,
            summary: &r.summary,
            notices: &r.notices,
            errors: &r.errors,
            snapshot: r.snapshot.as_deref(),
            hooks: &r.hooks,
            message: r.message.as_deref(),
            omitted: r.omitted.as_deref(),
        }
    }
}

impl Serialize for super::Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Report::from(self).serialize(serializer)
    }
}

impl JsonSchema for super::Report {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Report::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Report::json_schema(generator)
    }
}

//! The report's view of a hook run: what ran, how it ended, and its bounded output.

use schemars::JsonSchema;
use serde::Serialize;

use crate::gate::hooks::{Captured, HookRun, HookStatus};

/// One run of a `pre-llm-apply` or `post-llm-apply` hook.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HookReport {
    /// `pre-llm-apply` or `post-llm-apply`.
    pub hook: String,
    pub path: String,
    /// `passed`, `failed`, `crashed`, `timed-out`, `not-executable`, `missing-interpreter`,
    /// `cannot-run`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// One line saying what happened.
    pub message: String,
    pub stdout: String,
    pub stderr: String,
    /// Bytes of output beyond the kept part, dropped (both streams together).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_bytes: u64,
    pub elapsed_ms: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl HookReport {
    /// Whether the hook ran and let the run go on.
    pub fn passed(&self) -> bool {
        self.status == "passed"
    }
}

impl From<&HookRun> for HookReport {
    fn from(run: &HookRun) -> HookReport {
        let (exit_code, signal) = match run.status {
            HookStatus::Passed => (Some(0), None),
            HookStatus::Failed { code } => (Some(code), None),
            HookStatus::Crashed { signal } => (None, Some(signal)),
            _ => (None, None),
        };
        let text = |c: &Captured| {
            let mut t = c.text.clone();
            if c.dropped > 0 {
                if !t.ends_with('\n') && !t.is_empty() {
                    t.push('\n');
                }
                t.push_str(&format!(
                    "[... {} more bytes of output not kept]\n",
                    c.dropped
                ));
            }
            t
        };
        HookReport {
            hook: run.kind.file_name().to_string(),
            path: run.path.display().to_string(),
            status: run.status.as_str().to_string(),
            exit_code,
            signal,
            message: run.describe(),
            stdout: text(&run.stdout),
            stderr: text(&run.stderr),
            dropped_bytes: run.stdout.dropped + run.stderr.dropped,
            elapsed_ms: u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

//! The `log` listing as data: the recorded snapshots, newest first, rendered by
//! `human::render_log` and `json::render_log` only.

use schemars::JsonSchema;
use serde::Serialize;

use crate::patch::Notice;
use crate::snapshot::{SnapshotInfo, Status};

/// The JSON schema version of the listing; bumped on any incompatible change.
pub const LOG_SCHEMA: u32 = 1;

/// Whether a snapshot's change still stands.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LogStatus {
    Applied,
    Undone,
    /// The record an undo took before it wrote (see `undoes`): not an apply, and `undo`
    /// without an id passes over it.
    Undo,
}

/// One snapshot as `log` shows it.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LogEntry {
    /// The number `undo` takes.
    pub id: u64,
    #[serde(rename = "ref")]
    pub ref_name: String,
    /// When the snapshot was taken, ISO 8601 with the local offset.
    pub time: String,
    /// The same instant in seconds since the Unix epoch.
    pub timestamp: i64,
    pub status: LogStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undone_time: Option<String>,
    pub files: u64,
    pub added: u64,
    pub removed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// For the snapshot taken before an undo: the snapshot that undo rolled back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// The session the apply was made in (`--session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub paths: Vec<String>,
    /// The work tree the apply wrote (absolute path); absent for snapshots recorded before
    /// worktrees were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// Whether the snapshot is this worktree's: `undo` without an id picks among these, and
    /// another worktree's is undone only there (`-C`, `--worktree`).
    pub this_worktree: bool,
}

/// The `log --json` listing.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LogReport {
    pub schema: u32,
    pub snapshots: Vec<LogEntry>,
    pub notices: Vec<Notice>,
}

impl LogReport {
    /// The listing of `infos` (newest first, as `snapshot::list` gives them), as seen from
    /// the work tree named `here` ([`crate::snapshot::worktree_name`]).
    pub fn new(infos: &[SnapshotInfo], notices: Vec<Notice>, here: &str) -> LogReport {
        let iso = |t: gix::date::Time| t.format_or_unix(gix::date::time::format::ISO8601_STRICT);
        let snapshots = infos
            .iter()
            .map(|i| LogEntry {
                id: i.id.sequence(),
                ref_name: i.id.ref_name(),
                time: iso(i.time),
                timestamp: i.time.seconds,
                status: match i.status {
                    Status::Applied if i.undoes.is_some() => LogStatus::Undo,
                    Status::Applied => LogStatus::Applied,
                    Status::Undone { .. } => LogStatus::Undone,
                },
                undone_time: match i.status {
                    Status::Applied => None,
                    Status::Undone { time } => Some(iso(time)),
                },
                files: i.files,
                added: i.added,
                removed: i.removed,
                intent: i.intent.clone(),
                undoes: i.undoes.map(|u| u.sequence()),
                session: i.session.clone(),
                paths: i.paths.clone(),
                worktree: i.worktree.clone(),
                this_worktree: crate::snapshot::made_in(i, here),
            })
            .collect();
        LogReport {
            schema: LOG_SCHEMA,
            snapshots,
            notices,
        }
    }
}

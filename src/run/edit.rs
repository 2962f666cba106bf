//! `edit`: a structured edit request (JSON, as agents' edit tools send it) run through the
//! same apply as a patch, or, for a text-editor `view` command, the view. Shared by
//! `edit --json-input` and the MCP `edit` and `view` tools.

use crate::report::kinds::{ErrorKind, Kinded};
use std::path::PathBuf;

use super::options::{ApplyOptions, Patches};
use super::view::{self, ViewOptions};
use crate::parse::edit::{self, Request};
use crate::report::view::ViewReport;
use crate::report::Report;

/// An edit request that does not say what to do.
#[derive(Debug, thiserror::Error)]
#[error("the edit request: {0}")]
pub struct RequestError(#[source] pub crate::parse::ParseError);

impl Kinded for RequestError {
    fn kind(&self) -> ErrorKind {
        // Whatever the parser calls it, a request that is not understood is not parsed.
        ErrorKind::Parse
    }
}

/// What an edit request is asked to do beside its JSON.
pub struct EditOptions {
    /// The request as sent: one edit, a list of edits, or a `view` command.
    pub request: serde_json::Value,
    /// Plan everything, write nothing.
    pub check: bool,
    /// Record no ghost snapshot.
    pub no_snapshot: bool,
    /// The snapshot's description.
    pub label: Option<String>,
    /// The agent session the edit belongs to.
    pub session: Option<String>,
    /// Run as if started here; `None` is the current directory.
    pub dir: Option<PathBuf>,
    /// The git config as the caller reads it; `None` reads it.
    pub config: Option<crate::git::config::Pending>,
    /// When the snapshots beyond `llm-apply.keep` are dropped.
    pub prune: crate::write::recorded::Prune,
}

/// An apply's report, or what a `view` command shows.
pub enum EditOutcome {
    /// The edits went through the apply: its report.
    Applied(Report),
    /// A `view` command: what it shows, or why it could not.
    Viewed(Result<ViewReport, Box<Report>>),
}

/// Parse the request and run it: edits as one all-or-nothing apply, or the view.
pub fn run(options: EditOptions) -> EditOutcome {
    let EditOptions {
        request,
        check,
        no_snapshot,
        label,
        session,
        dir,
        config,
        prune,
    } = options;
    let ops = match edit::request(&request) {
        Ok(Request::View(v)) => {
            return EditOutcome::Viewed(view::run(ViewOptions {
                request: v,
                dir,
                config,
            }))
        }
        Ok(Request::Edits(ops)) => ops,
        Err(e) => {
            let r = Report::failed(&RequestError(e));
            return EditOutcome::Applied(r);
        }
    };
    EditOutcome::Applied(super::apply::run(ApplyOptions {
        patches: Patches::Edits(ops),
        check,
        partial: false,
        format: None,
        revert: false,
        index: false,
        no_snapshot,
        verify: false,
        label,
        session,
        dir,
        config,
        prune,
    }))
}

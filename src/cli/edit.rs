//! `git llm-apply edit --json-input`: the JSON an agent's edit tool sends, read from standard
//! input and run by [`crate::run::edit`], the same as the MCP `edit` tool runs it.

use crate::report::kinds::{ErrorKind, Kinded};
use std::io::Read as _;
use std::path::PathBuf;

use super::args::EditArgs;
use super::{Outcome, Shown};
use crate::report::{Report, RunStatus};
use crate::run::edit::{self, EditOptions, EditOutcome};

/// Why standard input holds no edit request to run.
#[allow(missing_docs)] // each variant's #[error] message says what it is
#[derive(Debug, thiserror::Error)]
pub enum EditInputError {
    #[error("standard input: {0}")]
    Read(#[source] std::io::Error),
    #[error("the edit request is over {0} bytes, the limit of edit --json-input")]
    TooLarge(u64),
    #[error("standard input is not one JSON document: {0}")]
    NotJson(#[source] serde_json::Error),
}

impl Kinded for EditInputError {
    fn kind(&self) -> ErrorKind {
        match self {
            EditInputError::Read(_) | EditInputError::TooLarge(_) => ErrorKind::Input,
            EditInputError::NotJson(_) => ErrorKind::Parse,
        }
    }
}

pub fn run(
    args: EditArgs,
    dir: Option<PathBuf>,
    config: Option<crate::git::config::Pending>,
) -> Outcome {
    let EditArgs {
        json_input: _,
        json,
        check,
        no_snapshot,
        label,
        session,
    } = args;
    let limit = crate::input::DEFAULT_MAX_PATCH_SIZE;
    let mut text = String::new();
    let read = std::io::stdin()
        .lock()
        .take(limit + 1)
        .read_to_string(&mut text);
    let failed = |e: EditInputError| Outcome::run(Report::failed(&e), json);
    if let Err(e) = read {
        return failed(EditInputError::Read(e));
    }
    if text.len() as u64 > limit {
        return failed(EditInputError::TooLarge(limit));
    }
    let request = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => v,
        Err(e) => return failed(EditInputError::NotJson(e)),
    };
    match edit::run(EditOptions {
        request,
        check,
        no_snapshot,
        label,
        session,
        dir,
        config,
        prune: crate::write::recorded::Prune::Now,
    }) {
        EditOutcome::Applied(r) => Outcome::run(r, json),
        EditOutcome::Viewed(Err(r)) => Outcome::run(*r, json),
        EditOutcome::Viewed(Ok(v)) => {
            let stdout = if json {
                let mut t = serde_json::to_string_pretty(&v).expect("a view serializes");
                t.push('\n');
                t
            } else {
                v.text()
            };
            Outcome {
                shown: Shown::Text {
                    stdout,
                    stderr: String::new(),
                    status: RunStatus::Applied,
                    done: false,
                },
                json: false,
            }
        }
    }
}

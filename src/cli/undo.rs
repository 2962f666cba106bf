//! `git llm-apply undo [ID]`: the arguments resolved into [`UndoOptions`], run by
//! [`crate::run::undo`].

use std::path::PathBuf;

use super::args::UndoArgs;
use super::Outcome;
use crate::run::{self, UndoOptions};

pub fn run(
    args: UndoArgs,
    dir: Option<PathBuf>,
    config: Option<crate::git::config::Pending>,
) -> Outcome {
    let UndoArgs {
        id,
        session,
        force,
        check,
        worktree,
        json,
    } = args;
    let options = UndoOptions {
        id,
        session,
        force,
        check,
        worktree,
        dir,
        config,
    };
    Outcome::run(run::undo::run(options), json)
}

//! `git llm-apply [PATCH]...`: the arguments resolved into [`ApplyOptions`], run by
//! [`crate::run::apply`].

use std::path::PathBuf;

use super::args::{ApplyArgs, FormatArg, UndoArgs};
use super::{undo, Outcome, UsageError};
use crate::patch::Format;
use crate::report::Report;
use crate::run::{self, ApplyOptions, Patches};
use crate::write::recorded::Prune;

pub fn run(
    args: ApplyArgs,
    dir: Option<PathBuf>,
    config: Option<crate::git::config::Pending>,
    quiet: bool,
) -> Outcome {
    let ApplyArgs {
        patches,
        check,
        json,
        partial,
        format,
        revert,
        index,
        no_snapshot,
        force,
        verify,
        label,
        session,
    } = args;
    if revert && patches.is_empty() {
        if partial
            || index
            || no_snapshot
            || verify
            || format != FormatArg::Auto
            || label.is_some()
            || session.is_some()
        {
            let report = Report::failed(&UsageError::RevertOptions);
            return Outcome::run(report, json);
        }
        // `--revert` without a patch rolls back the most recent apply: that is `undo`, which
        // writes as git config says, and not at all when the config is invalid.
        let args = UndoArgs {
            id: None,
            session: None,
            force,
            check,
            worktree: None,
            json,
        };
        return undo::run(args, dir, config);
    }
    if force {
        let report = Report::failed(&UsageError::ForceWithoutUndo);
        return Outcome::run(report, json);
    }
    // A patch read from a terminal is being typed or pasted: say so and how to end it, and
    // keep the progress line out of the text until it is read (-q says nothing but errors).
    let from_terminal = {
        use std::io::IsTerminal;
        (patches.is_empty() || patches.iter().any(|p| p == "-")) && std::io::stdin().is_terminal()
    };
    if from_terminal {
        run::progress::hold();
        if !quiet {
            super::write(super::Stream::Stderr, STDIN_HINT);
        }
    }
    let options = ApplyOptions {
        patches: Patches::Files(patches),
        check,
        partial,
        format: format_of(format),
        revert,
        index,
        no_snapshot,
        verify,
        label,
        session,
        dir,
        config,
        prune: Prune::Now,
    };
    Outcome::run(run::apply::run(options), json)
}

/// What a run reading its patch from a terminal says first, on standard error.
const STDIN_HINT: &str = if cfg!(windows) {
    "Reading the patch from standard input: paste or type it, then press Ctrl-Z and Enter \
     at the start of a line (or name a patch file: git llm-apply PATCH)\n"
} else {
    "Reading the patch from standard input: paste or type it, then press Ctrl-D at the start \
     of a line (or name a patch file: git llm-apply PATCH)\n"
};

/// `--format`: `auto` is no format forced.
pub fn format_of(format: FormatArg) -> Option<Format> {
    match format {
        FormatArg::Auto => None,
        FormatArg::Unified => Some(Format::Unified),
        FormatArg::Codex => Some(Format::Codex),
        FormatArg::SearchReplace => Some(Format::SearchReplace),
    }
}

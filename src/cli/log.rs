//! `git llm-apply log`: run by [`crate::run::log`].

use std::path::PathBuf;

use super::args::LogArgs;
use super::{Outcome, Shown};
use crate::run::{self, LogOptions};

pub fn run(
    args: LogArgs,
    dir: Option<PathBuf>,
    config: Option<crate::git::config::Pending>,
) -> Outcome {
    let LogArgs { json } = args;
    let shown = match run::log::run(LogOptions { dir, config }) {
        Ok(l) => Shown::Log(l),
        Err(r) => Shown::Run(*r),
    };
    Outcome { shown, json }
}

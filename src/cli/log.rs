//! `git llm-apply log`: the recorded applies (and undos), newest first.

use std::path::PathBuf;

use super::args::LogArgs;
use super::session::{self, fail};
use super::{Outcome, Shown};
use crate::report::log::LogReport;
use crate::report::Report;
use crate::snapshot;

pub fn run(args: LogArgs, dir: Option<PathBuf>) -> Outcome {
    let LogArgs { json } = args;
    let shown = match log(dir) {
        Ok(l) => Shown::Log(l),
        Err(r) => Shown::Run(*r),
    };
    Outcome { shown, json }
}

fn log(dir: Option<PathBuf>) -> Result<LogReport, Box<Report>> {
    let cwd = session::start_dir(dir)?;
    let repo = session::require_repo(&cwd, "snapshots are kept in a repository")?;
    // Also for a listing: an interrupted apply is put right first, so the listing is true.
    let session = session::open(&repo, false)?;
    let infos = snapshot::list(&repo).map_err(|e| {
        let mut r = fail("snapshot", e.to_string());
        r.notices = session.notices.clone();
        r
    })?;
    Ok(LogReport::new(
        &infos,
        session.notices.clone(),
        &snapshot::worktree_name(&repo),
    ))
}

//! `git llm-apply log`: the recorded applies (and undos), newest first.

use std::path::PathBuf;

use super::options::LogOptions;
use super::session::{self, failed};
use crate::report::log::LogReport;
use crate::report::Report;
use crate::snapshot;

/// The listing, or the report of why there is none.
pub fn run(options: LogOptions) -> Result<LogReport, Box<Report>> {
    let LogOptions { dir } = options;
    log(dir)
}

fn log(dir: Option<PathBuf>) -> Result<LogReport, Box<Report>> {
    let cwd = session::start_dir(dir)?;
    let repo = session::require_repo(&cwd, "snapshots are kept in a repository")?;
    // Also for a listing: an interrupted apply is put right first, so the listing is true.
    let session = session::open(&repo, false)?;
    let infos = snapshot::list(&repo).map_err(|e| {
        let mut r = failed(&e);
        r.notices = session.notices.clone();
        r
    })?;
    Ok(LogReport::new(
        &infos,
        session.notices.clone(),
        &snapshot::worktree_name(&repo),
    ))
}

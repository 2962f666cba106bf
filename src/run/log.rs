//! `git llm-apply log`: the recorded applies (and undos), newest first.

use std::path::PathBuf;

use super::options::LogOptions;
use super::session::{self, failed};
use crate::git::config::Pending;
use crate::report::log::LogReport;
use crate::report::Report;
use crate::snapshot;

/// The listing, or the report of why there is none.
pub fn run(options: LogOptions) -> Result<LogReport, Box<Report>> {
    let LogOptions { dir, config } = options;
    log(dir, config)
}

fn log(dir: Option<PathBuf>, config: Option<Pending>) -> Result<LogReport, Box<Report>> {
    let cwd = session::start_dir(dir)?;
    // A recovery writes as the config says (`llm-apply.fsync`).
    let pending = config.unwrap_or_else(|| Pending::start(&cwd));
    let config = super::checked_config(&pending).map_err(|e| failed(&e))?;
    let mut repo = session::require_repo(&pending, &cwd, "snapshots are kept in a repository")?;
    repo.durability = super::durability(&config);
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

//! Housekeeping a front end runs once it has answered: the MCP server drops the snapshots
//! beyond `llm-apply.keep` after it has sent an apply's result
//! ([`crate::write::recorded::Prune::Later`]), where the CLI drops them before it exits.

use std::path::PathBuf;
use std::time::Duration;

use crate::git::config::Pending;
use crate::snapshot::{self, Lock, LockError};

/// What a deferred prune did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pruned {
    /// Nothing was beyond `llm-apply.keep` (or there is no repository).
    Nothing,
    /// Another run holds this worktree's lock: nothing was dropped now (the next apply's
    /// prune, from either front end, drops them).
    Busy,
    /// These many snapshots were dropped.
    Dropped(usize),
}

/// Drop the snapshots beyond `llm-apply.keep` in the repository around `dir` (read with
/// `config`, else read anew), as an apply does at its end: only when a look at the refs' names
/// finds one to drop, and only when this worktree's lock is free now. The error says why
/// nothing could be dropped (or, once they were, what went wrong after).
pub fn prune(dir: Option<PathBuf>, config: Option<Pending>) -> Result<Pruned, String> {
    let cwd = super::session::start_dir(dir).map_err(|r| {
        r.errors.first().map_or_else(
            || "no directory to run in".to_string(),
            |e| e.message.clone(),
        )
    })?;
    let config = config.unwrap_or_else(|| Pending::start(&cwd));
    let Some(repo) = super::session::repo_of(Some(&config), &cwd).map_err(|e| e.to_string())?
    else {
        return Ok(Pruned::Nothing);
    };
    let keep = snapshot::keep_from_config(&repo).map_err(|e| e.to_string())?;
    if !snapshot::any_beyond(&repo, keep).map_err(|e| e.to_string())? {
        return Ok(Pruned::Nothing);
    }
    let lock = match Lock::acquire(&repo, Duration::ZERO) {
        Ok(lock) => lock,
        Err(LockError::Timeout { .. }) => return Ok(Pruned::Busy),
        Err(e) => return Err(e.to_string()),
    };
    let dropped = snapshot::prune(&repo, keep).map_err(|e| e.to_string())?;
    lock.release().map_err(|e| {
        format!(
            "{} old snapshots were dropped, but the lock was not released: {e}",
            dropped.len()
        )
    })?;
    Ok(Pruned::Dropped(dropped.len()))
}

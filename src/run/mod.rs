//! The pipeline's driver, shared by every front end (`cli/`, `mcp/`): each command is one
//! function taking its [`options`] and returning the report to show.

pub mod options;
pub mod session;
pub mod lines;
pub mod hooks;
pub mod apply;
pub mod undo;
pub mod log;
pub mod view;
pub mod edit;
pub mod progress;
pub mod kept;
pub mod housekeeping;

pub use options::{ApplyOptions, LogOptions, Patches, UndoOptions};

use crate::git::config::{Config, ConfigError, Pending};
use crate::report::color::BadColor;
use crate::report::kinds::{ErrorKind, Kinded};

/// Why git config cannot be used: a value git-llm-apply cannot read, or a colour git would
/// not.
#[allow(missing_docs)] // each variant is its source's error, rendered as that one
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckedConfigError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Color(#[from] BadColor),
}

impl Kinded for CheckedConfigError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Config
    }
}

/// The config once read, checked whole: every `llm-apply.*` value, and the colour values a
/// human report would use (the renderer makes its colours of them; an invalid one is an
/// error for every command and front end alike, shown or not). Every command takes it from
/// here before it acts on it, so an invalid value is one error whichever command meets it.
/// How the run's writes are flushed (`llm-apply.fsync`) goes from the config it returns to
/// the writers as a value: the repository's [`crate::repo::Repo::durability`] (snapshot,
/// journal) and the gate's token (work tree).
pub fn checked_config(pending: &Pending) -> Result<Config, CheckedConfigError> {
    let config = pending.get()?;
    crate::report::color::Colors::from_config(&config.colors)?;
    Ok(config)
}

/// How a run's writes reach the disk, as its checked config says (`llm-apply.fsync`).
fn durability(config: &Config) -> crate::sys::durable::Durability {
    crate::sys::durable::Durability {
        fsync: config.fsync,
    }
}

//! The pipeline's driver, shared by every front end (`cli/`, `mcp/`): each command is one
//! function taking its [`options`] and returning the report to show.

pub mod options;
pub mod session;
pub mod lines;
pub mod hooks;
pub mod apply;
pub mod undo;
pub mod log;
pub mod progress;

pub use options::{ApplyOptions, LogOptions, Patches, UndoOptions};

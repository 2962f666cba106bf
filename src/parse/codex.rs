//! Codex `*** Begin Patch` format (not yet implemented).

use super::{ParseError, PathProbe};
use crate::patch::Patch;

pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| l.trim() == "*** Begin Patch")
}

pub fn parse(_text: &str, _probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    Err(ParseError::Empty {
        hint: Some("the Codex apply_patch format is not supported yet".into()),
    })
}

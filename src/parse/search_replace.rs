//! Aider-style SEARCH/REPLACE blocks (not yet implemented).

use super::{ParseError, PathProbe};
use crate::patch::Patch;

pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_end();
        let n = t.chars().take_while(|&c| c == '<').count();
        (5..=9).contains(&n) && t[n..].trim() == "SEARCH"
    })
}

pub fn parse(_text: &str, _probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    Err(ParseError::Empty {
        hint: Some("SEARCH/REPLACE blocks are not supported yet".into()),
    })
}

//! Input text to one `Patch`: format detection and the three format parsers.

pub mod codex;
pub mod search_replace;
pub mod unified;

use crate::patch::{Format, Patch};

/// The text is not a patch we can apply. `Empty` and `Syntax` are bad input (exit status 2);
/// `Truncated` is a refusal (exit status 1): the patch reads, but the input stopped before
/// it did, and a partial edit is never applied.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("no patch found in the input{}", hint.as_ref().map(|h| format!(": {h}")).unwrap_or_default())]
    Empty { hint: Option<String> },
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("{path}: {what}; the patch looks cut off, so nothing was applied (resend it whole)")]
    Truncated {
        /// The file whose section was cut.
        path: String,
        /// 1-based number of the hunk (or block) in that file, when one was open.
        hunk: Option<usize>,
        /// How many lines the header promised beyond what is there, when it says.
        missing: Option<usize>,
        what: String,
    },
}

/// The largest line number or count a header may carry: numbers are hints from untrusted
/// text, and one beyond any real file is dropped rather than carried into arithmetic.
pub const MAX_LINE_NUMBER: usize = u32::MAX as usize;

/// A decimal line number or count, `None` when it is not one or exceeds [`MAX_LINE_NUMBER`].
pub(crate) fn line_number(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<usize>().ok().filter(|&n| n <= MAX_LINE_NUMBER)
}

/// Answers "does this path exist in the work tree?" so the parser can decide how many
/// leading path components a header carries, without doing I/O itself.
pub trait PathProbe {
    fn exists(&self, path: &str) -> bool;
}

/// A probe that knows no files: every prefix decision falls back to the header's own shape.
pub struct NoFiles;

impl PathProbe for NoFiles {
    fn exists(&self, _path: &str) -> bool {
        false
    }
}

/// Which format the text is written in, by each format's own markers.
pub fn detect(text: &str) -> Format {
    if codex::looks_like(text) {
        Format::Codex
    } else if search_replace::looks_like(text) {
        Format::SearchReplace
    } else {
        Format::Unified
    }
}

/// Parse `text` as `format`, or as the detected format when `format` is None.
pub fn parse(
    text: &str,
    format: Option<Format>,
    probe: &dyn PathProbe,
) -> Result<Patch, ParseError> {
    match format.unwrap_or_else(|| detect(text)) {
        Format::Unified => unified::parse(text, probe),
        Format::Codex => codex::parse(text, probe),
        Format::SearchReplace => search_replace::parse(text, probe),
    }
}

impl PathProbe for crate::repo::WorkTree {
    fn exists(&self, path: &str) -> bool {
        crate::repo::Files::exists(self, path)
    }
}

impl PathProbe for crate::repo::MemFiles {
    fn exists(&self, path: &str) -> bool {
        crate::repo::Files::exists(self, path)
    }
}

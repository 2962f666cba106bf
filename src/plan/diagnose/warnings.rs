//! What a fit that worked should still say: warnings on a placed hunk or a file.

use super::super::locate::{DecidedBy, Located, Placement};
use crate::text::normalize::Pass;

/// A hunk placed this far (in lines) from where its numbers and earlier hunks put it gets a
/// warning: the context may have matched a look-alike place.
pub const FAR_FROM_HINT: usize = 50;

/// What a warning on a successful hunk or file is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// The hunk matched only under a pass looser than exact (see `pass`).
    LoosePass,
    /// The hunk's lines occur in more than one place; a rule decided which.
    RepeatedContext,
    /// The hunk landed far from the line its `@@` numbers (moved by earlier hunks) gave.
    FarFromHint,
    /// The hunk landed before an earlier hunk of the same file.
    OutOfOrder,
    /// A creation replaced a file that existed with other content.
    Overwrote,
    /// The hunk repeats an earlier hunk of the same file verbatim; it was applied once.
    DuplicateHunk,
    /// The hunk's elision lines (`...`) stood for unchanged text: its parts were placed around
    /// them, in order, and the lines between kept.
    Elision,
    /// An undo took out only the apply's change: the file was edited since, and those later
    /// edits are kept.
    KeptLaterEdits,
    /// An undo restored the pre-apply content over later edits (`--force`).
    Forced,
    /// The hunk's Codex `@@` anchor is not in the file; its other lines placed it.
    AnchorMissing,
    /// The file is in conflict in the index (mid-merge): the patch went into the file as it
    /// is, conflict markers and all.
    Unmerged,
    /// Anything else.
    Other,
}

/// Something that applied but deserves a second look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// The hunk it is about (1-based), when it is about one.
    pub hunk: Option<usize>,
    /// The warning as one human sentence.
    pub message: String,
}

impl Warning {
    /// A warning of `kind`, about hunk `hunk` (1-based) when given.
    pub fn new(kind: WarningKind, hunk: Option<usize>, message: impl Into<String>) -> Warning {
        Warning {
            kind,
            hunk,
            message: message.into(),
        }
    }
}

impl From<String> for Warning {
    fn from(message: String) -> Warning {
        Warning::new(WarningKind::Other, None, message)
    }
}

/// The warnings a placed hunk earns. `searched` is where the search started (0-based): the
/// header's numbers moved by the offsets of earlier hunks.
pub fn placement_warnings(hunk: usize, p: &Placement, searched: Option<usize>) -> Vec<Warning> {
    let mut out = Vec::new();
    if p.pass > Pass::Exact {
        out.push(Warning::new(
            WarningKind::LoosePass,
            Some(hunk),
            format!(
                "hunk {hunk} matched only after the {} pass",
                p.pass.as_str()
            ),
        ));
    }
    if p.occurrences > 1 {
        out.push(Warning::new(
            WarningKind::RepeatedContext,
            Some(hunk),
            format!(
                "hunk {hunk}'s context occurs {} times; placed by {}",
                p.occurrences,
                match p.decided_by {
                    DecidedBy::Hint => "its line numbers",
                    DecidedBy::Anchor => "its anchor",
                    DecidedBy::Order => "file order",
                    DecidedBy::Unique => "uniqueness",
                    DecidedBy::Fit => "the closest fit",
                    DecidedBy::Shape =>
                        "its shape (context on one side only: the end of the file it reaches)",
                }
            ),
        ));
    }
    if let Some(s) = searched {
        let d = p.start.abs_diff(s);
        if d >= FAR_FROM_HINT {
            out.push(Warning::new(
                WarningKind::FarFromHint,
                Some(hunk),
                format!(
                    "hunk {hunk} landed at line {}, {d} lines from line {} where its numbers put it",
                    p.start + 1,
                    s + 1
                ),
            ));
        }
    }
    out
}

/// A warning for each placed hunk that lands before the placed hunk preceding it.
pub fn order_warnings(located: &[Located]) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut prev: Option<(usize, usize)> = None;
    for (i, l) in located.iter().enumerate() {
        if let Located::Placed(p) = l {
            if let Some((pi, ps)) = prev {
                if p.start < ps {
                    out.push(Warning::new(
                        WarningKind::OutOfOrder,
                        Some(i + 1),
                        format!(
                            "hunk {} landed at line {}, before hunk {pi} (line {}): the hunks are out of file order",
                            i + 1,
                            p.start + 1,
                            ps + 1
                        ),
                    ));
                }
            }
            prev = Some((i + 1, p.start));
        }
    }
    out
}

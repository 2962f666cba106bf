//! Where a hunk lands: candidate search by pass, the rules that decide between candidates,
//! already-applied detection, and the guarded fuzzy pass. Pure functions over lines.
//!
//! Candidates are found through a per-pass index of the file's lines (line key → positions),
//! starting from the hunk line with the fewest occurrences, so locating a hunk costs time in
//! proportion to the occurrences of its rarest line, not to the file's length. The first few
//! exact searches of a file scan its lines for the hunk's longest line instead, comparing
//! lengths first: that costs less than hashing every line, and a patch of a few hunks never
//! needs the index.

mod decide;
mod fuzzy;
mod index;
mod passes;

use crate::patch::{Hunk, LineKind};
use crate::text::normalize::{key, Pass};
pub use decide::says_nothing;
pub use fuzzy::{insertion_points, Gaps, Shortfall};
pub use index::{names, Census, Haystack, Lack, Layout, Whole, Window};
pub use passes::{anchor_missing_warning, edge_additions, locate};

/// Why a candidate was chosen among several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecidedBy {
    /// The only place the hunk fits.
    Unique,
    /// Nearest to the line-number hint, and clearly nearer than any other.
    Hint,
    /// The first fit after the `@@` section heading or Codex anchor.
    Anchor,
    /// The only fit after the previous hunk (hunks in file order).
    Order,
    /// Of several loose fits, the one that fits far better than the others.
    Fit,
    /// The only fit at the end (or start) of the file, where a numbered hunk with context on
    /// one side only says it goes, as `diff` writes it.
    Shape,
}

/// How far a fuzzy placement strayed from the hunk's own text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fuzz {
    /// Context lines of the hunk that the file does not have there (kept as the file has them).
    pub context_mismatched: usize,
    /// Lines in the file's region that the hunk does not mention (kept).
    pub extra_file_lines: usize,
}

/// A decided location for one hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The file region the hunk covers, `[start, end)`, 0-based.
    pub start: usize,
    /// The region's end, exclusive.
    pub end: usize,
    /// For each old-side line of the hunk (context and removed, in order): its file line.
    pub mapping: Vec<Option<usize>>,
    /// For each run of added lines (in hunk order): the file line it goes before.
    pub inserts: Vec<usize>,
    /// The pass under which the old side matched.
    pub pass: Pass,
    /// How many places fit under that pass.
    pub occurrences: usize,
    /// Which rule chose this place among them.
    pub decided_by: DecidedBy,
    /// For the fuzzy pass: how far the region strays from the hunk.
    pub fuzz: Option<Fuzz>,
}

/// What locating one hunk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// One place decided.
    Placed(Placement),
    /// The hunk's result is already in the file, starting at this line.
    AlreadyApplied {
        /// The 0-based file line where the new side starts.
        start: usize,
        /// The pass under which it matched.
        pass: Pass,
    },
    /// The hunk fits in several places and nothing decides between them.
    Ambiguous {
        /// The pass under which it fits there.
        pass: Pass,
        /// The 0-based start of each fit.
        starts: Vec<usize>,
    },
    /// The hunk fits nowhere; `reason` says what the closest attempt lacked when known.
    NotFound {
        /// One sentence, when a pass found more to say than "not in the file".
        reason: Option<String>,
    },
}

/// Everything about a hunk that locating needs besides the file.
pub struct Query<'h> {
    /// The hunk to place.
    pub hunk: &'h Hunk,
    /// Expected 0-based start, from the header's numbers and earlier hunks' offsets.
    pub hint: Option<usize>,
    /// End of the previous hunk's region (file order), for `ordered` patches.
    pub prev_end: usize,
    /// The hunks come in file order (Codex's rule): a fit after `prev_end` wins over one before.
    pub ordered: bool,
    /// Regions already taken by earlier hunks of this file. Only placements without any
    /// context of their own (bare insertions, end-of-file fits) avoid them; a hunk whose
    /// best place overlaps an earlier one is placed there, and the caller applies the
    /// file's hunks one after another instead.
    pub taken: &'h [(usize, usize)],
    /// The patch's context width (`-U`), at least 3: the widest context side of its hunks.
    pub context_width: usize,
    /// The text is the one earlier hunks of this patch left: a line of it that reads almost
    /// as a context line of the hunk may be one they wrote (the hunk overlapping theirs), so
    /// no line counts as the hunk's with a name misremembered.
    pub in_turn: bool,
    /// The hunk's numbers count lines of the text it is located in: the original, or the
    /// text in turn for a file patch made in turn (`FilePatch::in_turn`). Not so for hunks
    /// of a patch applied in turn only because two of them overlap.
    pub numbers_here: bool,
}

struct Old<'h> {
    texts: Vec<&'h str>,
    kinds: Vec<LineKind>,
}

fn old_side(h: &Hunk) -> Old<'_> {
    let mut texts = Vec::new();
    let mut kinds = Vec::new();
    for l in h.old_lines() {
        texts.push(l.text.as_str());
        kinds.push(l.kind);
    }
    Old { texts, kinds }
}

/// The keys of `lines` for `pass`, borrowing the lines where a key is the line or a part of
/// it (no copy of a hunk's thousands of lines for the exact pass).
fn keys<'l>(pass: Pass, lines: &[&'l str]) -> Vec<std::borrow::Cow<'l, str>> {
    lines.iter().map(|l| key(pass, l)).collect()
}

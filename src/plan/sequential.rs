//! Hunks applied one after another, each located in the text the earlier ones left (as `git
//! apply` does): the way a file whose hunks overlap is patched.
//!
//! Each hunk costs its own size, not the file's. The text is a gap buffer whose gap follows
//! the edits, so hunks in file order move it over the file once in all. A hunk is searched in a
//! window around where its numbers put it, and a census of the whole text (how many lines have
//! each line the patch names, kept up to date as hunks are spliced) shows whether that window
//! held every line the search looked up. When it did not, or the hunk is not placed there, the
//! hunk is searched in the whole text, so the answer is always the whole text's.

use super::locate::{self, Census, Haystack, Located, Placement, Query, Window};
use super::names;
use super::splice::{self, IndentMap};
use super::text::{Eol, Line, TextFile};
use crate::patch::Hunk;

/// Lines a window reaches past a hunk's margin on each side of where its numbers put it.
const REACH: usize = 64;

/// A text being patched hunk after hunk: `left` then `right` reversed, the gap between them
/// where the last edit was.
pub struct InTurn<'a> {
    bom: bool,
    left: Vec<Line<'a>>,
    left_eols: Vec<Eol>,
    right: Vec<Line<'a>>,
    right_eols: Vec<Eol>,
    /// Lines ending in CRLF and in LF, for the ending new lines take.
    crlf: usize,
    lf: usize,
    census: Census,
}

impl<'a> InTurn<'a> {
    /// `text`, to be patched by hunks that look up `wanted` lines (their lines, anchors and
    /// headings).
    pub fn new<'w>(text: &TextFile<'a>, wanted: impl Iterator<Item = &'w str>) -> InTurn<'a> {
        let mut t = InTurn {
            bom: text.bom,
            left: text.lines.clone(),
            left_eols: text.eols.clone(),
            right: Vec::new(),
            right_eols: Vec::new(),
            crlf: 0,
            lf: 0,
            census: Census::new(wanted),
        };
        t.count_eols(&text.eols, true);
        t
    }

    fn len(&self) -> usize {
        self.left.len() + self.right.len()
    }

    fn count_eols(&mut self, eols: &[Eol], up: bool) {
        for e in eols {
            let n = match e {
                Eol::Crlf => &mut self.crlf,
                Eol::Lf => &mut self.lf,
                Eol::None => continue,
            };
            *n = if up { *n + 1 } else { *n - 1 };
        }
    }

    /// The ending new lines take, as [`TextFile::dominant_eol`] has it for the whole text.
    fn dominant_eol(&self) -> Eol {
        if self.crlf > self.lf {
            Eol::Crlf
        } else {
            Eol::Lf
        }
    }

    /// Move the gap to line `at`: lines before it are `left`.
    fn gap_to(&mut self, at: usize) {
        let at = at.min(self.len());
        if self.left.len() > at {
            self.right.extend(self.left.drain(at..).rev());
            self.right_eols.extend(self.left_eols.drain(at..).rev());
        } else if self.left.len() < at {
            let from = self.right.len() - (at - self.left.len());
            self.left.extend(self.right.drain(from..).rev());
            self.left_eols.extend(self.right_eols.drain(from..).rev());
        }
    }

    /// Where `q`'s hunk lands in the text as it is now.
    pub fn locate(&mut self, q: &Query) -> Located {
        let windowed = self.in_window(q);
        #[cfg(debug_assertions)]
        if let Some(found) = &windowed {
            debug_assert_eq!(
                *found,
                self.in_whole(q),
                "a hunk placed in a window is placed there in the whole text"
            );
        }
        windowed.unwrap_or_else(|| self.in_whole(q))
    }

    fn in_whole(&mut self, q: &Query) -> Located {
        self.gap_to(self.len());
        locate::locate(&Haystack::for_lines(&self.left, names(q.hunk)), q)
    }

    /// The hunk placed (or found applied) in a window around its hint, when the census shows
    /// the whole text would say the same; `None` otherwise.
    fn in_window(&mut self, q: &Query) -> Option<Located> {
        let h = q.hunk;
        let hint = q.hint?;
        let len = self.len();
        if !q.taken.is_empty() {
            return None;
        }
        // Far enough from the window's edges that nothing read around a match (its lines,
        // its new side, the fuzzy pass's slack either side) reaches past them.
        let margin = 2 * (h.old_len() + h.new_len()) + REACH;
        let lo = hint.min(len).saturating_sub(margin + REACH);
        let hi = hint.saturating_add(h.old_len() + margin + REACH).min(len);
        if (lo == 0 && hi == len) || (h.at_eof && hi < len) || (h.at_bof && lo > 0) {
            return None;
        }
        self.gap_to(hi);
        let window = Window::new(
            &self.census,
            [&self.left, &self.right],
            lo == 0,
            hi == len,
            margin,
        );
        let hay = Haystack::for_lines(&self.left[lo..hi], names(h)).within(&window);
        let local = Query {
            hunk: h,
            hint: Some(hint - lo),
            prev_end: q.prev_end.saturating_sub(lo),
            ordered: q.ordered,
            taken: &[],
            context_width: q.context_width,
        };
        let found = locate::locate(&hay, &local);
        if window.spilled() {
            return None;
        }
        match found {
            Located::Placed(p) => Some(Located::Placed(moved(&p, lo as isize))),
            Located::AlreadyApplied { start, pass } => Some(Located::AlreadyApplied {
                start: start + lo,
                pass,
            }),
            Located::Ambiguous { .. } | Located::NotFound { .. } => None,
        }
    }

    /// Splice hunk `h`, placed at `p`, into the text; an indentation the hunk cannot be
    /// carried over to is refused, and the text is left as it was.
    pub fn apply(&mut self, h: &Hunk, p: &Placement, patch_eols: bool) -> Result<(), String> {
        let len = self.len();
        let Some(region) = splice::in_place_region(p, len) else {
            // A placement reaching outside its region: the whole text is spliced.
            self.gap_to(len);
            let file = TextFile {
                bom: self.bom,
                lines: std::mem::take(&mut self.left),
                eols: std::mem::take(&mut self.left_eols),
            };
            if let Err(why) = IndentMap::learn(h, p, &file) {
                (self.left, self.left_eols) = (file.lines, file.eols);
                return Err(why);
            }
            let spliced = splice::splice(&file, &[(h, p)], patch_eols);
            self.census.replace(&file.lines, &spliced.lines);
            self.count_eols(&file.eols, false);
            self.count_eols(&spliced.eols, true);
            (self.left, self.left_eols) = (spliced.lines, spliced.eols);
            return Ok(());
        };
        self.gap_to(region.end);
        let part = TextFile {
            bom: false,
            lines: self.left[region.start..].to_vec(),
            eols: self.left_eols[region.start..].to_vec(),
        };
        IndentMap::learn(h, &moved(p, -(region.start as isize)), &part)?;
        let spliced =
            splice::splice_part(&part, region.start, h, p, patch_eols, self.dominant_eol());
        self.census.replace(&part.lines, &spliced.lines);
        self.count_eols(&part.eols, false);
        self.count_eols(&spliced.eols, true);
        self.left.truncate(region.start);
        self.left_eols.truncate(region.start);
        self.left.extend(spliced.lines);
        self.left_eols.extend(spliced.eols);
        Ok(())
    }

    /// The text as the hunks left it.
    pub fn into_text(mut self) -> TextFile<'a> {
        self.gap_to(self.len());
        TextFile {
            bom: self.bom,
            lines: self.left,
            eols: self.left_eols,
        }
    }
}

/// `p` with every line number moved by `by`.
fn moved(p: &Placement, by: isize) -> Placement {
    let at = |i: usize| i.checked_add_signed(by).expect("a line number in the text");
    Placement {
        start: at(p.start),
        end: at(p.end),
        mapping: p.mapping.iter().map(|m| m.map(at)).collect(),
        inserts: p.inserts.iter().map(|&i| at(i)).collect(),
        ..p.clone()
    }
}

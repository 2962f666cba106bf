//! Three-way line merge of base, ours and theirs with `git merge-file`'s rules, in memory.
//!
//! Used to land a patch on a file that moved on (base = the version the patch was written
//! against, ours = the file now, theirs = base with the patch applied) and to undo an
//! earlier apply after later edits (base = the applied content, ours = the file now,
//! theirs = the content before the apply).
//!
//! The rules, as `git merge-file` (xdiff, conflict style "merge") applies them:
//!
//! 1. Each side is diffed against base, line by line; a line keeps its terminator, so
//!    `a\n`, `a\r\n` and a final `a` without newline are three different lines.
//! 2. A change on one side that neither overlaps nor touches a change on the other side
//!    is taken as is. Changes that overlap, or that only touch (no unchanged base line
//!    between them, as with two insertions at the same place), form one region; the same
//!    edit made on both sides is taken once.
//! 3. Every other region is a conflict, then narrowed: the two sides' versions are
//!    diffed against each other, lines they agree on leave the conflict (splitting it
//!    where they agree in the middle), and a region where they agree entirely is clean.
//! 4. Two conflicts separated by three lines or fewer, or only by lines without an ASCII
//!    letter or digit (braces, blank lines), become one, since the markers would take
//!    more room than the lines between them; a one-sided change between them keeps them
//!    apart.
//! 5. A conflict is written as `<<<<<<< ours`, our lines, `=======`, their lines,
//!    `>>>>>>> theirs`: markers of seven characters, no base section. Markers end in CRLF
//!    when the lines before the conflict on both sides and base's first line do, and a
//!    side whose last line lacks a newline gets one inside the conflict.
//!
//! Merging never fails: a conflict is an outcome, reported with its line ranges.
//!
//! Where the result can differ from `git merge-file` (tests/merge.rs measures it):
//! - git refuses texts with a NUL byte in their first 8000 bytes as binary; this merges
//!   any text, so callers that care must check first;
//! - once one stretch of a diff needs more than a few hundred edits (a file largely
//!   rewritten on one side), git and this module both stop looking for the shortest diff
//!   and cut the stretch by heuristics, which differ: conflicts may be cut differently
//!   there, and rarely one side is clean where the other conflicts.

mod diff;

use std::collections::HashMap;
use std::ops::Range;

use diff::{diff, Hunk};

/// Names written after the conflict markers, as `git merge-file -L` takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Labels<'a> {
    /// After `<<<<<<<`: the current content.
    pub ours: &'a str,
    /// The common ancestor; unused by the "merge" conflict style (no base section), kept so
    /// every caller names all three versions.
    pub base: &'a str,
    /// After `>>>>>>>`: the incoming content.
    pub theirs: &'a str,
}

/// Lines of one text: `len` lines starting at 1-based line `start`. An empty range sits
/// just before line `start` (so `start` is one past the last line at the end of a text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    /// The first line, 1-based.
    pub start: usize,
    /// How many lines.
    pub len: usize,
}

impl LineRange {
    fn from_indices(lines: &Range<usize>) -> LineRange {
        LineRange {
            start: lines.start + 1,
            len: lines.len(),
        }
    }

    /// The last line in the range, or `None` for an empty range.
    pub fn end(&self) -> Option<usize> {
        (self.len > 0).then(|| self.start + self.len - 1)
    }
}

/// One conflict in the merged text, with enough coordinates for a report to name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictRegion {
    /// Our lines, written between `<<<<<<<` and `=======`.
    pub ours: LineRange,
    /// Their lines, written between `=======` and `>>>>>>>`.
    pub theirs: LineRange,
    /// The base lines the two sides' overlapping edits replaced: the whole region before
    /// it was narrowed to where the sides disagree, so it can be wider than the conflict,
    /// and conflicts narrowed out of one region share it.
    pub base: LineRange,
    /// The conflict in the merged text, from the `<<<<<<<` line to the `>>>>>>>` line.
    pub merged: LineRange,
}

/// The merged text, and the conflicts in it when the sides could not be reconciled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeOutcome {
    /// The sides reconciled: the merged text.
    Clean(String),
    /// Some changes overlap.
    Conflicted {
        /// The merged text, with conflict markers around each overlap.
        text: String,
        /// The overlaps, in merged-text order.
        conflicts: Vec<ConflictRegion>,
    },
}

impl MergeOutcome {
    /// The merged text, conflict markers included.
    pub fn text(&self) -> &str {
        match self {
            MergeOutcome::Clean(text) | MergeOutcome::Conflicted { text, .. } => text,
        }
    }

    /// Whether no conflict is left.
    pub fn is_clean(&self) -> bool {
        matches!(self, MergeOutcome::Clean(_))
    }

    /// The conflicts, in merged-text order; empty when clean.
    pub fn conflicts(&self) -> &[ConflictRegion] {
        match self {
            MergeOutcome::Clean(_) => &[],
            MergeOutcome::Conflicted { conflicts, .. } => conflicts,
        }
    }
}

/// Merges the change from `base` to `theirs` into `ours` (see the module header for the
/// rules): the same bytes, and clean in the same cases, as
/// `git merge-file -p -L <ours> -L <base> -L <theirs> ours base theirs`, apart from the
/// differences the module header lists.
pub fn merge(base: &str, ours: &str, theirs: &str, labels: &Labels) -> MergeOutcome {
    let texts = Texts::new(base, ours, theirs);
    let mut pieces = align(&texts);
    refine(&texts, &mut pieces);
    join_close_conflicts(&texts, &mut pieces);
    render(&texts, &pieces, labels)
}

/// The three texts cut into lines (terminators kept), each line also as an id that is
/// equal exactly when the lines are.
struct Texts<'t> {
    base: Vec<&'t str>,
    ours: Vec<&'t str>,
    theirs: Vec<&'t str>,
    base_ids: Vec<u32>,
    ours_ids: Vec<u32>,
    theirs_ids: Vec<u32>,
}

impl<'t> Texts<'t> {
    fn new(base: &'t str, ours: &'t str, theirs: &'t str) -> Texts<'t> {
        let mut ids: HashMap<&'t str, u32> = HashMap::new();
        let mut intern = |text: &'t str| -> (Vec<&'t str>, Vec<u32>) {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let line_ids = lines
                .iter()
                .map(|&line| {
                    let next = u32::try_from(ids.len()).expect("fewer than 2^32 distinct lines");
                    *ids.entry(line).or_insert(next)
                })
                .collect();
            (lines, line_ids)
        };
        let (base, base_ids) = intern(base);
        let (ours, ours_ids) = intern(ours);
        let (theirs, theirs_ids) = intern(theirs);
        Texts {
            base,
            ours,
            theirs,
            base_ids,
            ours_ids,
            theirs_ids,
        }
    }
}

/// What the merged text holds for one stretch of ours; lines of ours outside every piece
/// are copied unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Take {
    /// Our change, theirs left those lines alone.
    Ours,
    /// Their change, we left those lines alone.
    Theirs,
    /// Overlapping changes that turned out to write the same lines; ours are kept. Unlike
    /// a plain copy it still keeps neighbouring conflicts apart (git does the same).
    Agreed,
    Conflict,
}

#[derive(Debug, Clone)]
struct Piece {
    take: Take,
    base: Range<usize>,
    ours: Range<usize>,
    theirs: Range<usize>,
}

/// Diffs both sides against base and groups their hunks into pieces, in order.
fn align(texts: &Texts) -> Vec<Piece> {
    let ours_hunks = diff(&texts.base_ids, &texts.ours_ids);
    let theirs_hunks = diff(&texts.base_ids, &texts.theirs_ids);

    let mut pieces = Vec::new();
    let mut ours_at = Cursor::new(&ours_hunks);
    let mut theirs_at = Cursor::new(&theirs_hunks);
    loop {
        // A region starts with the hunk that starts first in base...
        let first = match (ours_at.peek(), theirs_at.peek()) {
            (None, None) => break,
            (Some(o), Some(t)) => o.a.start.min(t.a.start),
            (Some(o), None) => o.a.start,
            (None, Some(t)) => t.a.start,
        };
        let ours_before = ours_at.offset;
        let theirs_before = theirs_at.offset;
        let mut end = first;
        let (mut from_ours, mut from_theirs) = (Vec::new(), Vec::new());
        // ...and takes every hunk that starts before or where the region ends. Hunks of
        // one side never touch each other, so this only ever joins hunks across sides,
        // which is exactly git's "overlapping or adjacent changes conflict".
        loop {
            if let Some(h) = ours_at.peek().filter(|h| h.a.start <= end) {
                end = end.max(h.a.end);
                from_ours.push(h.clone());
                ours_at.advance();
            } else if let Some(h) = theirs_at.peek().filter(|h| h.a.start <= end) {
                end = end.max(h.a.end);
                from_theirs.push(h.clone());
                theirs_at.advance();
            } else {
                break;
            }
        }
        let base = first..end;
        let ours = shift(first, ours_before)..shift(end, ours_at.offset);
        let theirs = shift(first, theirs_before)..shift(end, theirs_at.offset);
        let take = match (from_ours.as_slice(), from_theirs.as_slice()) {
            (_, []) => Take::Ours,
            ([], _) => Take::Theirs,
            ([o], [t])
                if o.a == t.a && texts.ours_ids[o.b.clone()] == texts.theirs_ids[t.b.clone()] =>
            {
                // The same edit on both sides: it is already in ours, and git does not
                // even remember it (it neither splits nor separates conflicts).
                continue;
            }
            _ => Take::Conflict,
        };
        pieces.push(Piece {
            take,
            base,
            ours,
            theirs,
        });
    }
    pieces
}

/// Walks one side's hunks, tracking how far that side's line numbers have drifted from
/// base's.
struct Cursor<'h> {
    hunks: &'h [Hunk],
    next: usize,
    offset: isize,
}

impl<'h> Cursor<'h> {
    fn new(hunks: &'h [Hunk]) -> Cursor<'h> {
        Cursor {
            hunks,
            next: 0,
            offset: 0,
        }
    }

    fn peek(&self) -> Option<&'h Hunk> {
        self.hunks.get(self.next)
    }

    fn advance(&mut self) {
        let h = &self.hunks[self.next];
        self.offset += signed(h.b.len()) - signed(h.a.len());
        self.next += 1;
    }
}

fn signed(n: usize) -> isize {
    isize::try_from(n).expect("line counts fit in isize")
}

/// A base position moved by a side's drift; never negative, since a side cannot lose more
/// lines before a position than base has there.
fn shift(position: usize, offset: isize) -> usize {
    position
        .checked_add_signed(offset)
        .expect("a side's drift never takes a position below zero")
}

/// Narrows every conflict to the lines where the two sides really differ.
fn refine(texts: &Texts, pieces: &mut Vec<Piece>) {
    let mut refined = Vec::with_capacity(pieces.len());
    for piece in pieces.drain(..) {
        // With one side empty there is nothing the sides could agree on.
        if piece.take != Take::Conflict || piece.ours.is_empty() || piece.theirs.is_empty() {
            refined.push(piece);
            continue;
        }
        let hunks = diff(
            &texts.ours_ids[piece.ours.clone()],
            &texts.theirs_ids[piece.theirs.clone()],
        );
        if hunks.is_empty() {
            refined.push(Piece {
                take: Take::Agreed,
                ..piece
            });
            continue;
        }
        for h in hunks {
            refined.push(Piece {
                take: Take::Conflict,
                base: piece.base.clone(),
                ours: piece.ours.start + h.a.start..piece.ours.start + h.a.end,
                theirs: piece.theirs.start + h.b.start..piece.theirs.start + h.b.end,
            });
        }
    }
    *pieces = refined;
}

/// Joins neighbouring conflicts that only a few lines, or only lines without letters and
/// digits, keep apart: one bigger conflict reads better than two with a brace between.
fn join_close_conflicts(texts: &Texts, pieces: &mut Vec<Piece>) {
    let mut joined: Vec<Piece> = Vec::with_capacity(pieces.len());
    for piece in pieces.drain(..) {
        if let Some(last) = joined.last_mut() {
            if last.take == Take::Conflict && piece.take == Take::Conflict {
                // Between two conflicts both sides hold the same lines, so ours decide.
                let between = &texts.ours[last.ours.end..piece.ours.start];
                let worth_keeping = between.len() > 3
                    && between
                        .iter()
                        .any(|line| line.bytes().any(|b| b.is_ascii_alphanumeric()));
                if !worth_keeping {
                    last.ours.end = piece.ours.end;
                    last.theirs.end = piece.theirs.end;
                    last.base.start = last.base.start.min(piece.base.start);
                    last.base.end = last.base.end.max(piece.base.end);
                    continue;
                }
            }
        }
        joined.push(piece);
    }
    *pieces = joined;
}

/// Writes the merged text and records where each conflict landed in it.
fn render(texts: &Texts, pieces: &[Piece], labels: &Labels) -> MergeOutcome {
    let mut out = Output {
        text: String::with_capacity(texts.ours.iter().map(|l| l.len()).sum::<usize>() + 64),
        lines: 0,
    };
    let mut conflicts = Vec::new();
    let mut copied_to = 0;
    for piece in pieces {
        out.copy(&texts.ours[copied_to..piece.ours.start], None);
        match piece.take {
            Take::Ours | Take::Agreed => out.copy(&texts.ours[piece.ours.clone()], None),
            Take::Theirs => out.copy(&texts.theirs[piece.theirs.clone()], None),
            Take::Conflict => {
                let eol = if wants_crlf(texts, piece) {
                    "\r\n"
                } else {
                    "\n"
                };
                let first = out.lines;
                out.marker('<', labels.ours, eol);
                out.copy(&texts.ours[piece.ours.clone()], Some(eol));
                out.marker('=', "", eol);
                out.copy(&texts.theirs[piece.theirs.clone()], Some(eol));
                out.marker('>', labels.theirs, eol);
                conflicts.push(ConflictRegion {
                    ours: LineRange::from_indices(&piece.ours),
                    theirs: LineRange::from_indices(&piece.theirs),
                    base: LineRange::from_indices(&piece.base),
                    merged: LineRange::from_indices(&(first..out.lines)),
                });
            }
        }
        copied_to = piece.ours.end;
    }
    out.copy(&texts.ours[copied_to..], None);
    if conflicts.is_empty() {
        MergeOutcome::Clean(out.text)
    } else {
        MergeOutcome::Conflicted {
            text: out.text,
            conflicts,
        }
    }
}

struct Output {
    text: String,
    /// Lines written so far, counting a last line without newline.
    lines: usize,
}

impl Output {
    /// Appends whole lines; with `close`, a last line without newline gets that ending,
    /// since a marker line follows it.
    fn copy(&mut self, lines: &[&str], close: Option<&str>) {
        for line in lines {
            self.text.push_str(line);
        }
        self.lines += lines.len();
        if let (Some(eol), Some(last)) = (close, lines.last()) {
            if !last.ends_with('\n') {
                self.text.push_str(eol);
            }
        }
    }

    fn marker(&mut self, sign: char, label: &str, eol: &str) {
        self.text.extend(std::iter::repeat_n(sign, 7));
        // `=======` stands alone; the other two always name their side, with a space
        // even before an empty name, as git writes them.
        if sign != '=' {
            self.text.push(' ');
            self.text.push_str(label);
        }
        self.text.push_str(eol);
        self.lines += 1;
    }
}

/// Whether a line ends in CRLF: `None` when the text cannot tell (it is empty, or its only
/// line has no terminator). A last line without newline is judged by the line before it.
fn ends_in_crlf(lines: &[&str], index: usize) -> Option<bool> {
    let line = lines.get(index)?;
    if line.ends_with('\n') {
        return Some(line.ends_with("\r\n"));
    }
    let before = lines.get(index.checked_sub(1)?)?;
    Some(before.ends_with("\r\n"))
}

/// Markers of a conflict follow the file's line endings: CRLF when the line just before
/// the conflict (or the first line) ends in CRLF on both sides, as far as each can tell,
/// and base's first line does. A text that cannot tell does not veto; base must confirm.
fn wants_crlf(texts: &Texts, piece: &Piece) -> bool {
    let line_before = |r: &Range<usize>| r.start.saturating_sub(1);
    ends_in_crlf(&texts.ours, line_before(&piece.ours)) != Some(false)
        && ends_in_crlf(&texts.theirs, line_before(&piece.theirs)) != Some(false)
        && ends_in_crlf(&texts.base, 0) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LABELS: Labels = Labels {
        ours: "ours",
        base: "base",
        theirs: "theirs",
    };

    fn clean(base: &str, ours: &str, theirs: &str) -> String {
        match merge(base, ours, theirs, &LABELS) {
            MergeOutcome::Clean(text) => text,
            other => panic!("expected a clean merge, got {other:?}"),
        }
    }

    fn conflicted(base: &str, ours: &str, theirs: &str) -> (String, Vec<ConflictRegion>) {
        match merge(base, ours, theirs, &LABELS) {
            MergeOutcome::Conflicted { text, conflicts } => (text, conflicts),
            other => panic!("expected a conflict, got {other:?}"),
        }
    }

    fn range(start: usize, len: usize) -> LineRange {
        LineRange { start, len }
    }

    #[test]
    fn case01_changes_far_apart_merge_cleanly() {
        let base = "a\nb\nc\nd\ne\n";
        assert_eq!(
            clean(base, "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n"),
            "A\nb\nc\nd\nE\n"
        );
    }

    #[test]
    fn case02_changes_one_line_apart_merge_cleanly() {
        let base = "a\nb\nc\nd\n";
        assert_eq!(clean(base, "A\nb\nc\nd\n", "a\nb\nC\nd\n"), "A\nb\nC\nd\n");
    }

    #[test]
    fn case03_the_same_change_on_both_sides_is_taken_once() {
        let base = "a\nb\nc\n";
        assert_eq!(clean(base, "a\nB\nc\n", "a\nB\nc\n"), "a\nB\nc\n");
        assert_eq!(clean(base, "a\nc\n", "a\nc\n"), "a\nc\n");
        assert_eq!(clean(base, "a\nb\nx\nc\n", "a\nb\nx\nc\n"), "a\nb\nx\nc\n");
    }

    #[test]
    fn case04_overlapping_changes_conflict() {
        let (text, conflicts) = conflicted("a\nb\nc\n", "a\nB\nc\n", "a\nβ\nc\n");
        assert_eq!(text, "a\n<<<<<<< ours\nB\n=======\nβ\n>>>>>>> theirs\nc\n");
        assert_eq!(
            conflicts,
            vec![ConflictRegion {
                ours: range(2, 1),
                theirs: range(2, 1),
                base: range(2, 1),
                merged: range(2, 5),
            }]
        );
    }

    #[test]
    fn case05_changes_on_adjacent_lines_conflict() {
        // Git treats edits that touch as one region: b and c are next to each other.
        let (text, conflicts) = conflicted("a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nC\nd\n");
        assert_eq!(
            text,
            "a\n<<<<<<< ours\nB\nc\n=======\nb\nC\n>>>>>>> theirs\nd\n"
        );
        assert_eq!(conflicts[0].ours, range(2, 2));
        assert_eq!(conflicts[0].theirs, range(2, 2));
        assert_eq!(conflicts[0].base, range(2, 2));
    }

    #[test]
    fn case06_insertions_at_the_same_place_conflict_unless_equal() {
        let base = "a\nb\n";
        let (text, _) = conflicted(base, "a\nx\nb\n", "a\ny\nb\n");
        assert_eq!(text, "a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\nb\n");
        assert_eq!(clean(base, "a\nx\nb\n", "a\nx\nb\n"), "a\nx\nb\n");
    }

    #[test]
    fn case07_insert_at_start_and_at_end() {
        let base = "a\nb\nc\n";
        assert_eq!(
            clean(base, "top\na\nb\nc\n", "a\nb\nc\nbottom\n"),
            "top\na\nb\nc\nbottom\n"
        );
        let (text, conflicts) = conflicted(base, "x\na\nb\nc\n", "y\na\nb\nc\n");
        assert_eq!(
            text,
            "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\na\nb\nc\n"
        );
        assert_eq!(
            conflicts[0].base,
            range(1, 0),
            "an insertion replaces no base line"
        );
        let (text, _) = conflicted(base, "a\nb\nc\nx\n", "a\nb\nc\ny\n");
        assert_eq!(
            text,
            "a\nb\nc\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n"
        );
    }

    #[test]
    fn case08_deletion_against_an_edit_of_the_same_line_conflicts() {
        let (text, conflicts) = conflicted("a\nb\nc\n", "a\nc\n", "a\nB\nc\n");
        assert_eq!(text, "a\n<<<<<<< ours\n=======\nB\n>>>>>>> theirs\nc\n");
        assert_eq!(conflicts[0].ours, range(2, 0));
        assert_eq!(conflicts[0].theirs, range(2, 1));
        assert_eq!(conflicts[0].merged, range(2, 4));
    }

    #[test]
    fn case09_deletion_far_from_an_edit_merges() {
        let base = "a\nb\nc\nd\ne\n";
        assert_eq!(
            clean(base, "a\nc\nd\ne\n", "a\nb\nc\nd\nE\n"),
            "a\nc\nd\nE\n"
        );
    }

    #[test]
    fn case10_crlf_text_keeps_crlf_in_markers() {
        let base = "a\r\nb\r\nc\r\n";
        let (text, _) = conflicted(base, "a\r\nB\r\nc\r\n", "a\r\nX\r\nc\r\n");
        assert_eq!(
            text,
            "a\r\n<<<<<<< ours\r\nB\r\n=======\r\nX\r\n>>>>>>> theirs\r\nc\r\n"
        );
        assert_eq!(
            clean(base, "A\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n"),
            "A\r\nb\r\nC\r\n"
        );
    }

    #[test]
    fn case11_a_line_ending_change_is_a_change() {
        // `b\n` and `b\r\n` differ, so converting one line's ending is an edit like any other.
        let base = "a\nb\nc\nd\ne\n";
        assert_eq!(
            clean(base, "a\nb\r\nc\nd\ne\n", "a\nb\nc\nd\nE\n"),
            "a\nb\r\nc\nd\nE\n"
        );
        conflicted(base, "a\nb\r\nc\nd\ne\n", "a\nB\nc\nd\ne\n");
    }

    #[test]
    fn case12_no_final_newline_on_ours_is_kept() {
        let base = "a\nb\nc\nd\n";
        assert_eq!(clean(base, "a\nb\nc\nd", "A\nb\nc\nd\n"), "A\nb\nc\nd");
    }

    #[test]
    fn case13_no_final_newline_on_theirs_is_taken() {
        let base = "a\nb\nc\nd\n";
        assert_eq!(clean(base, "A\nb\nc\nd\n", "a\nb\nc\nd"), "A\nb\nc\nd");
    }

    #[test]
    fn case14_no_final_newline_in_base_only() {
        let base = "a\nb\nc\nd";
        assert_eq!(clean(base, "A\nb\nc\nd", "a\nb\nc\nd\n"), "A\nb\nc\nd\n");
    }

    #[test]
    fn case15_conflicting_last_lines_get_a_newline_before_the_marker() {
        let (text, _) = conflicted("a\nb\n", "a\nx", "a\ny");
        assert_eq!(text, "a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n");
        let (text, _) = conflicted("a\r\nb\r\n", "a\r\nx", "a\r\ny");
        assert_eq!(
            text,
            "a\r\n<<<<<<< ours\r\nx\r\n=======\r\ny\r\n>>>>>>> theirs\r\n"
        );
    }

    #[test]
    fn case16_removing_the_final_newline_next_to_an_edit_conflicts() {
        // Dropping the newline rewrites the last line, which touches their edit of `b`.
        let (text, _) = conflicted("a\nb\nc\n", "a\nb\nc", "a\nB\nc\n");
        assert_eq!(
            text,
            "a\n<<<<<<< ours\nb\nc\n=======\nB\nc\n>>>>>>> theirs\n"
        );
    }

    #[test]
    fn case17_empty_files() {
        assert_eq!(clean("", "", ""), "");
        assert_eq!(clean("", "", "new\n"), "new\n");
        assert_eq!(clean("", "new\n", ""), "new\n");
        assert_eq!(clean("", "same\n", "same\n"), "same\n");
        assert_eq!(clean("old\n", "", "old\n"), "");
        assert_eq!(clean("old\n", "", ""), "");
        let (text, conflicts) = conflicted("", "x\n", "y\n");
        assert_eq!(text, "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n");
        assert_eq!(conflicts[0].base, range(1, 0));
        let (text, _) = conflicted("old\n", "", "new\n");
        assert_eq!(text, "<<<<<<< ours\n=======\nnew\n>>>>>>> theirs\n");
    }

    #[test]
    fn case18_empty_base_with_crlf_sides_writes_lf_markers() {
        // Base cannot confirm the line ending, so the markers fall back to LF, as git's do.
        let (text, _) = conflicted("", "a\r\n", "b\r\n");
        assert_eq!(text, "<<<<<<< ours\na\r\n=======\nb\r\n>>>>>>> theirs\n");
    }

    #[test]
    fn case19_common_lines_inside_a_conflict_are_taken_out() {
        let base = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let ours = "1\nX\nc\nd\ne\nf\nY\n8\n9\n";
        let theirs = "1\nx\nc\nd\ne\nf\ny\n8\n9\n";
        let (text, conflicts) = conflicted(base, ours, theirs);
        assert_eq!(
            text,
            "1\n<<<<<<< ours\nX\n=======\nx\n>>>>>>> theirs\nc\nd\ne\nf\n\
             <<<<<<< ours\nY\n=======\ny\n>>>>>>> theirs\n8\n9\n"
        );
        assert_eq!(conflicts.len(), 2);
        assert_eq!(conflicts[1].ours, range(7, 1));
        assert_eq!(conflicts[1].merged, range(11, 5));
        assert_eq!(
            conflicts[0].base, conflicts[1].base,
            "both come from one region"
        );
        assert_eq!(conflicts[0].base, range(2, 6));
    }

    #[test]
    fn case20_conflicts_three_lines_apart_are_joined() {
        let base = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let ours = "1\nX\n3\n4\n5\nY\n7\n8\n9\n";
        let theirs = "1\nx\n3\n4\n5\ny\n7\n8\n9\n";
        let (text, conflicts) = conflicted(base, ours, theirs);
        assert_eq!(
            text,
            "1\n<<<<<<< ours\nX\n3\n4\n5\nY\n=======\nx\n3\n4\n5\ny\n>>>>>>> theirs\n7\n8\n9\n"
        );
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].base, range(2, 5));
    }

    #[test]
    fn case21_conflicts_four_lines_apart_stay_apart() {
        let base = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let ours = "1\nX\n3\n4\n5\n6\nY\n8\n9\n";
        let theirs = "1\nx\n3\n4\n5\n6\ny\n8\n9\n";
        let (_, conflicts) = conflicted(base, ours, theirs);
        assert_eq!(conflicts.len(), 2);
    }

    #[test]
    fn case22_conflicts_apart_only_by_punctuation_are_joined() {
        let base = "1\n2\n{\n}\n;\n\n7\n8\n";
        let ours = "1\nX\n{\n}\n;\n\nY\n8\n";
        let theirs = "1\nx\n{\n}\n;\n\ny\n8\n";
        let (_, conflicts) = conflicted(base, ours, theirs);
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].ours, range(2, 6));
    }

    #[test]
    fn case23_a_clean_change_between_conflicts_keeps_them_apart() {
        let base = "1\n2\n3\n4\n5\n";
        let ours = "X\n2\n3\n4\nY\n";
        let theirs = "x\n2\nT\n4\ny\n";
        let (text, conflicts) = conflicted(base, ours, theirs);
        assert_eq!(conflicts.len(), 2);
        assert_eq!(
            text,
            "<<<<<<< ours\nX\n=======\nx\n>>>>>>> theirs\n2\nT\n4\n\
             <<<<<<< ours\nY\n=======\ny\n>>>>>>> theirs\n"
        );
    }

    #[test]
    fn case24_labels_are_written_after_the_markers() {
        let labels = Labels {
            ours: "src/lib.rs (current)",
            base: "unused",
            theirs: "patch",
        };
        let outcome = merge("a\n", "b\n", "c\n", &labels);
        assert_eq!(
            outcome.text(),
            "<<<<<<< src/lib.rs (current)\nb\n=======\nc\n>>>>>>> patch\n"
        );
        assert!(!outcome.is_clean());
        assert_eq!(outcome.conflicts().len(), 1);
    }

    #[test]
    fn case25_undo_after_a_later_edit_elsewhere() {
        // Undo: base = what the apply wrote, ours = the file now, theirs = before the apply.
        let before = "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\n";
        let applied = "fn a() {}\nfn b() { todo!() }\nfn c() {}\nfn d() {}\n";
        let now = "fn a() {}\nfn b() { todo!() }\nfn c() {}\nfn d() { 1 }\n";
        assert_eq!(
            clean(applied, now, before),
            "fn a() {}\nfn b() {}\nfn c() {}\nfn d() { 1 }\n"
        );
    }

    #[test]
    fn thousands_of_conflicts_in_a_big_file_stay_fast() {
        // Every conflict is re-diffed on its own; each must cost its own size, not the
        // size of the file.
        let line = |i: usize, side: &str| {
            if i % 10 == 5 {
                format!("{side} {i}\n")
            } else {
                format!("line {i}\n")
            }
        };
        let n = 50_000;
        let base: String = (0..n).map(|i| line(i, "base")).collect();
        let ours: String = (0..n).map(|i| line(i, "ours")).collect();
        let theirs: String = (0..n).map(|i| line(i, "theirs")).collect();
        let outcome = merge(&base, &ours, &theirs, &LABELS);
        assert_eq!(outcome.conflicts().len(), n / 10);
    }

    #[test]
    fn big_mostly_equal_files_merge() {
        let base: String = (0..200_000)
            .map(|i| format!("line {}\n", i % 1000))
            .collect();
        let mut ours = base.replacen("line 5\n", "ours 5\n", 1);
        ours.push_str("tail\n");
        let theirs = format!("head\n{}", base.replacen("line 900\n", "theirs 900\n", 1));
        let merged = clean(&base, &ours, &theirs);
        assert!(merged.starts_with("head\nline 0\n"));
        assert!(merged.contains("ours 5\n") && merged.contains("theirs 900\n"));
    }
}

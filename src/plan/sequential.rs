//! Hunks applied one after another, each located in the text the earlier ones left (as `git
//! apply` does): the way a file whose hunks overlap is patched.
//!
//! Each hunk costs its own size and the logarithm of the file's, in any order: the text is a
//! rope, cut and joined where each hunk goes. A hunk is searched in a window around where its
//! numbers put it, and a census of the whole text (how many lines have each line the patch
//! names, kept up to date as hunks are spliced) shows whether that window held every line the
//! search looked up. When it did not, the hunk is searched in the whole text, so the answer is
//! always the whole text's.

use super::locate::{self, Census, Haystack, Located, Placement, Query, Window};
use super::names;
use super::splice::{self, IndentMap};
use super::text::{Eol, Line, TextFile};
use crate::patch::Hunk;
use crate::rope::{Piece, Rope};

/// Lines a window reaches past a hunk's margin on each side of where its numbers put it.
const REACH: usize = 64;

/// A text being patched hunk after hunk: its lines with their endings, in a rope.
pub struct InTurn<'a> {
    bom: bool,
    lines: Rope<(Line<'a>, Eol)>,
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
            lines: Rope::new(
                text.lines
                    .iter()
                    .cloned()
                    .zip(text.eols.iter().copied())
                    .collect(),
            ),
            crlf: 0,
            lf: 0,
            census: Census::new(wanted),
        };
        t.count_eols(&text.eols, true);
        t
    }

    fn len(&self) -> usize {
        self.lines.len()
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
        Eol::dominant(self.crlf, self.lf)
    }

    /// Lines `lo..hi`, as a text of their own (no BOM).
    fn part(&self, lo: usize, hi: usize) -> TextFile<'a> {
        let (lines, eols) = self.lines.get(lo, hi).into_iter().unzip();
        TextFile {
            bom: false,
            lines,
            eols,
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

    fn in_whole(&self, q: &Query) -> Located {
        let whole = self.part(0, self.len());
        locate::locate(&Haystack::for_lines(&whole.lines, names(q.hunk)), q)
    }

    /// Where the hunk lands (or why not), found in a window around its hint, when the census
    /// shows the whole text would say the same; `None` otherwise.
    fn in_window(&self, q: &Query) -> Option<Located> {
        #[cfg(test)]
        if tests::REFERENCE.get() {
            return None;
        }
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
        let part = self.part(lo, hi);
        let each_line = |f: &mut dyn FnMut(&str)| self.lines.for_each(|(l, _)| f(l));
        let window = Window::new(&self.census, &each_line, lo == 0, hi == len, margin);
        let hay = Haystack::for_lines(&part.lines, names(h)).within(&window);
        let local = Query {
            hunk: h,
            hint: Some(hint - lo),
            prev_end: q.prev_end.saturating_sub(lo),
            ordered: q.ordered,
            taken: &[],
            context_width: q.context_width,
            base: q.base + lo,
        };
        let found = locate::locate(&hay, &local);
        if window.spilled() {
            return None;
        }
        #[cfg(test)]
        tests::WINDOWED.set(tests::WINDOWED.get() + 1);
        // Every search saw what the whole text holds, so every answer is the whole text's,
        // refusals too: their line numbers are the file's (`base`).
        Some(match found {
            Located::Placed(p) => Located::Placed(moved(&p, lo as isize)),
            Located::AlreadyApplied { start, pass } => Located::AlreadyApplied {
                start: start + lo,
                pass,
            },
            Located::Ambiguous { pass, starts } => Located::Ambiguous {
                pass,
                starts: starts.into_iter().map(|s| s + lo).collect(),
            },
            found @ Located::NotFound { .. } => found,
        })
    }

    /// Splice hunk `h`, placed at `p`, into the text; an indentation the hunk cannot be
    /// carried over to is refused, and the text is left as it was.
    pub fn apply(&mut self, h: &Hunk, p: &Placement, patch_eols: bool) -> Result<(), String> {
        let len = self.len();
        let region = splice::in_place_region(p, len);
        #[cfg(test)]
        let region = region.filter(|_| !tests::REFERENCE.get());
        let (lo, hi, spliced) = match region {
            Some(region) => {
                let part = self.part(region.start, region.end);
                IndentMap::learn(h, &moved(p, -(region.start as isize)), &part)?;
                let spliced =
                    splice::splice_part(&part, region.start, h, p, patch_eols, self.dominant_eol());
                self.census.replace(&part.lines, &spliced.lines);
                self.count_eols(&part.eols, false);
                (region.start, region.end, spliced)
            }
            // A placement reaching outside its region: the whole text is spliced.
            None => {
                let mut file = self.part(0, len);
                file.bom = self.bom;
                IndentMap::learn(h, p, &file)?;
                let spliced = splice::splice(&file, &[(h, p)], patch_eols);
                self.census.replace(&file.lines, &spliced.lines);
                self.count_eols(&file.eols, false);
                (0, len, spliced)
            }
        };
        self.count_eols(&spliced.eols, true);
        self.lines.replace(
            lo,
            hi,
            spliced.lines.into_iter().zip(spliced.eols).collect(),
        );
        Ok(())
    }

    /// The text as the hunks left it.
    pub fn into_text(self) -> TextFile<'a> {
        let (lines, eols) = self.lines.into_vec().into_iter().unzip();
        TextFile {
            bom: self.bom,
            lines,
            eols,
        }
    }
}

impl Piece for (Line<'_>, Eol) {
    fn weight(&self) -> usize {
        1
    }

    fn cut(&self, _: usize) -> (Self, Self) {
        unreachable!("a line is never cut")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::{FilePatch, LineKind};
    use crate::plan::locate_hunks;
    use proptest::prelude::*;
    use std::cell::Cell;

    thread_local! {
        /// Every hunk searched in the whole text and spliced into the whole text, as before
        /// windows and the rope: the reference the fast path must equal.
        pub static REFERENCE: Cell<bool> = const { Cell::new(false) };
        /// Hunks answered from a window.
        pub static WINDOWED: Cell<usize> = const { Cell::new(0) };
    }

    /// A hunk of `text` (as it is now): `lead` lines of context before line `at`, `gone` lines
    /// removed, `added` put in, `trail` lines of context after, stated at `stated` (1-based).
    fn hunk_of(
        text: &[String],
        at: usize,
        (lead, gone, trail): (usize, usize, usize),
        added: &[String],
        stated: Option<usize>,
    ) -> Hunk {
        let lo = at.saturating_sub(lead);
        let mid = (at + gone).min(text.len());
        let hi = (mid + trail).min(text.len());
        let runs = [
            (LineKind::Context, &text[lo..at]),
            (LineKind::Remove, &text[at..mid]),
            (LineKind::Add, added),
            (LineKind::Context, &text[mid..hi]),
        ];
        let lines = runs
            .iter()
            .flat_map(|(kind, run)| {
                run.iter()
                    .map(|t| crate::patch::Line::new(*kind, t.clone()))
            })
            .collect();
        Hunk {
            old_start: stated,
            new_start: stated,
            lines,
            ..Hunk::default()
        }
    }

    /// One hunk to write: where (a pick, or next to the last), its shape (lead, removed,
    /// trail), its added lines and how far its numbers are off.
    type Edit = (usize, bool, (usize, usize, usize), Vec<String>, i64);

    /// Hunks written one after another against the text each leaves (so later ones may hold
    /// earlier ones' lines), every other one next to the one before it.
    fn patch_of(file: &[String], edits: &[Edit]) -> FilePatch {
        let mut text = file.to_vec();
        let mut hunks = Vec::new();
        let mut last = 0usize;
        for (pick, near, shape, added, noise) in edits {
            if text.is_empty() {
                break;
            }
            let at = if *near {
                (last + pick % 4).min(text.len() - 1)
            } else {
                pick % text.len()
            };
            let lead = shape.0.min(at);
            let stated = (at - lead) as i64 + 1 + noise;
            let h = hunk_of(
                &text,
                at,
                (lead, shape.1, shape.2),
                added,
                (stated >= 1).then_some(stated as usize),
            );
            let mid = (at + shape.1).min(text.len());
            text.splice(at..mid, added.iter().cloned());
            last = at;
            hunks.push(h);
        }
        FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks,
            ordered: true,
            ..FilePatch::default()
        }
    }

    fn run(fp: &FilePatch, text: &TextFile, reference: bool) -> (Vec<Located>, Option<Vec<u8>>) {
        REFERENCE.set(reference);
        let (located, _, after) = locate_hunks(fp, text, true);
        REFERENCE.set(false);
        (located, after.map(|t| t.encode()))
    }

    fn file_line() -> impl Strategy<Value = Option<&'static str>> {
        prop_oneof![
            6 => Just(None),
            2 => Just(Some("dup")),
            1 => Just(Some("}")),
            1 => Just(Some("")),
            1 => Just(Some("    return x;")),
            1 => Just(Some("    x += 1;")),
            1 => Just(Some("  return   x;")),
        ]
    }

    fn added_line() -> impl Strategy<Value = String> {
        prop_oneof![
            (0..1000u32).prop_map(|i| format!("new {i}")),
            (0..400u32).prop_map(|i| format!("line {i}")),
            Just("}".to_string()),
            Just("    return x;".to_string()),
            Just(String::new()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Hunks located and spliced one after another land where, and leave what, a search
        /// of the whole text and a splice of the whole text do.
        #[test]
        fn windows_and_the_rope_change_nothing(
            lines in prop::collection::vec(file_line(), 200..1400),
            crlf in prop::collection::vec(any::<bool>(), 8),
            edits in prop::collection::vec(
                (any::<usize>(), any::<bool>(), (0..4usize, 0..3usize, 0..4usize),
                 prop::collection::vec(added_line(), 0..4),
                 prop_oneof![4 => -3..4i64, 1 => 100..250i64, 1 => -250..-100i64]),
                2..14,
            ),
        ) {
            let text: Vec<String> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| match l {
                    None => format!("line {i}"),
                    Some("dup") => format!("dup {}", i % 13),
                    Some(l) => l.to_string(),
                })
                .collect();
            let mut bytes = String::new();
            for (i, l) in text.iter().enumerate() {
                bytes.push_str(l);
                bytes.push_str(if crlf[i % 8] { "\r\n" } else { "\n" });
            }
            let file = TextFile::decode(bytes.as_bytes()).expect("text");
            let fp = patch_of(&text, &edits);
            prop_assert_eq!(run(&fp, &file, false), run(&fp, &file, true));
        }
    }

    /// The overlapping pairs the window is for: every hunk but those near the ends of the file
    /// is answered from its window, and the result is the reference's.
    #[test]
    fn overlapping_pairs_are_answered_from_windows() {
        let text: Vec<String> = (0..3000).map(|i| format!("line {i}")).collect();
        let bytes: String = text.iter().map(|l| format!("{l}\n")).collect();
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut hunks = Vec::new();
        let mut now = text.clone();
        for r in 0..20 {
            let at = 140 * r + 70;
            hunks.push(hunk_of(
                &now,
                at,
                (2, 1, 2),
                &[format!("{} A", now[at])],
                Some(at - 1),
            ));
            now[at] = format!("{} A", now[at]);
            hunks.push(hunk_of(
                &now,
                at + 1,
                (2, 1, 2),
                &[format!("{} B", now[at + 1])],
                Some(at),
            ));
            now[at + 1] = format!("{} B", now[at + 1]);
        }
        let fp = FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks,
            ..FilePatch::default()
        };
        WINDOWED.set(0);
        let (located, after) = run(&fp, &file, false);
        let windowed = WINDOWED.get();
        assert!(
            located.iter().all(|l| matches!(l, Located::Placed(_))),
            "{located:?}"
        );
        let want: String = now.iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(after.as_deref(), Some(want.as_bytes()));
        assert_eq!((located, after), run(&fp, &file, true));
        assert!(
            windowed >= 36,
            "only {windowed} of 40 hunks were answered from a window"
        );
    }

    /// A hunk whose numbers are off by more and more lines slides out of its window, across
    /// the window's edge: answered from the window or not, it lands where the whole text puts it.
    #[test]
    fn a_hunk_far_from_its_numbers_lands_as_in_the_whole_text() {
        let text: Vec<String> = (0..2000).map(|i| format!("line {i}")).collect();
        let bytes: String = text.iter().map(|l| format!("{l}\n")).collect();
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut windowed = 0;
        for off in -400..400isize {
            let at = 1000;
            let stated = |at: usize| Some(at.checked_add_signed(off).expect("a line"));
            let mut now = text.clone();
            let first = hunk_of(&now, at, (3, 1, 3), &["first".into()], stated(at - 2));
            now[at] = "first".into();
            let second = hunk_of(&now, at + 1, (3, 1, 3), &["second".into()], stated(at - 1));
            now[at + 1] = "second".into();
            let fp = FilePatch {
                old_path: Some("f".into()),
                new_path: Some("f".into()),
                hunks: vec![first, second],
                ..FilePatch::default()
            };
            WINDOWED.set(0);
            let got = run(&fp, &file, false);
            windowed += WINDOWED.get();
            assert_eq!(got, run(&fp, &file, true), "numbers {off} lines off");
            let want: String = now.iter().map(|l| format!("{l}\n")).collect();
            assert_eq!(
                got.1.as_deref(),
                Some(want.as_bytes()),
                "numbers {off} lines off"
            );
        }
        assert!(
            windowed > 100,
            "only {windowed} hunks were answered from a window"
        );
    }

    /// A hunk that fits two places inside its window is refused from the window, with the
    /// file's line numbers, as the whole text refuses it.
    #[test]
    fn a_hunk_ambiguous_in_its_window_is_refused_as_in_the_whole_text() {
        let mut text: Vec<String> = (0..3000).map(|i| format!("line {i}")).collect();
        for k in 0..4 {
            text[1520 + k] = text[1500 + k].clone();
        }
        let bytes: String = text.iter().map(|l| format!("{l}\n")).collect();
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut now = text.clone();
        let first = hunk_of(&now, 1000, (2, 1, 2), &["first".into()], Some(999));
        now[1000] = "first".into();
        let second = hunk_of(&now, 1001, (2, 1, 2), &["second".into()], Some(1000));
        now[1001] = "second".into();
        // The block at 1500 and its copy at 1520; numbers halfway between them.
        let third = hunk_of(&now, 1501, (1, 2, 1), &["third".into()], Some(1511));
        let fp = FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks: vec![first, second, third],
            ..FilePatch::default()
        };
        WINDOWED.set(0);
        let got = run(&fp, &file, false);
        let windowed = WINDOWED.get();
        assert_eq!(got, run(&fp, &file, true));
        match &got.0[2] {
            Located::Ambiguous { starts, .. } => assert_eq!(starts, &[1500, 1520]),
            other => panic!("the third hunk fits twice: {other:?}"),
        }
        assert_eq!(windowed, 3, "every hunk was answered from its window");
    }
}

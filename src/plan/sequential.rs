//! Hunks applied one after another, each located in the text the earlier ones left (as `git
//! apply` does): the way a file whose hunks overlap is patched.
//!
//! Each hunk costs its own size, the occurrences of the lines it looks up, and the logarithm
//! of the file's length, in any order: the text is a rope, cut and joined where each hunk
//! goes. A hunk is searched in a window around where its numbers put it, and a census of the
//! whole text (how many lines have each line the patch names, kept up to date as hunks are
//! spliced) shows whether that window held every line the search looked up. When it did not,
//! the census also says which lines have that key: each line carries a tag that ascends
//! through the text, so the rope finds where each is now in one descent, and the search runs
//! again over the window and parts of the text around those lines. Only a search that needs
//! the whole text (or parts near its size) reads it all. Either way the answer is always the
//! whole text's.

use super::locate::{
    self, names, Census, Haystack, Lack, Layout, Located, Placement, Query, Window,
};
use super::splice::{self, IndentMap};
use crate::patch::Hunk;
use crate::text::file::{Eol, Line, TextFile};
use crate::text::rope::{Piece, Rope};

/// Lines a window reaches past a hunk's margin on each side of where its numbers put it.
const REACH: usize = 64;

/// Times a window grows to take in the lines a search lacked before the whole text is
/// searched instead.
const ROUNDS: usize = 8;

/// A line of the text in turn, with its tag: a number that ascends through the text and that
/// the line keeps while it stays, so the census can say where each line it counts is now.
#[derive(Clone)]
struct Item<'a> {
    line: Line<'a>,
    eol: Eol,
    tag: u64,
}

impl Piece for Item<'_> {
    fn weight(&self) -> usize {
        1
    }

    fn cut(&self, _: usize) -> (Self, Self) {
        unreachable!("a line is never cut")
    }
}

/// Tags for `n` lines spread evenly over the whole range.
fn spread(n: usize) -> impl Iterator<Item = u64> {
    let step = u64::MAX / (n as u64 + 2);
    (1..=n as u64).map(move |i| i * step)
}

/// A text being patched hunk after hunk: its lines with their endings, in a rope.
pub struct InTurn<'a> {
    bom: bool,
    lines: Rope<Item<'a>>,
    /// Lines ending in CRLF and in LF, for the ending new lines take.
    crlf: usize,
    lf: usize,
    /// The ending the text had at first: new lines take it while no line has one (the hunks
    /// so far left the text without an ending for a moment).
    first_eol: Eol,
    census: Census,
}

impl<'a> InTurn<'a> {
    /// `text`, to be patched by hunks that look up `wanted` lines (their lines, anchors and
    /// headings).
    pub fn new<'w>(
        text: &TextFile<'a>,
        wanted: impl Iterator<Item = &'w str> + Clone,
    ) -> InTurn<'a> {
        let mut t = InTurn {
            bom: text.bom,
            lines: Rope::new(
                text.lines
                    .iter()
                    .zip(&text.eols)
                    .zip(spread(text.len()))
                    .map(|((line, &eol), tag)| Item {
                        line: line.clone(),
                        eol,
                        tag,
                    })
                    .collect(),
            ),
            crlf: 0,
            lf: 0,
            first_eol: Eol::Lf,
            census: Census::new(wanted),
        };
        t.count_eols(&text.eols, true);
        t.first_eol = t.dominant_eol();
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
        if self.crlf + self.lf == 0 {
            return self.first_eol;
        }
        Eol::dominant(self.crlf, self.lf)
    }

    /// Lines `lo..hi`, as a text of their own (no BOM), and their tags.
    fn part(&self, lo: usize, hi: usize) -> (TextFile<'a>, Vec<u64>) {
        let mut text = TextFile {
            bom: false,
            lines: Vec::new(),
            eols: Vec::new(),
        };
        let mut tags = Vec::new();
        for it in self.lines.get(lo, hi) {
            text.lines.push(it.line);
            text.eols.push(it.eol);
            tags.push(it.tag);
        }
        (text, tags)
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
        let (whole, _) = self.part(0, self.len());
        locate::locate(&Haystack::for_lines(&whole.lines, names(q.hunk)), q)
    }

    /// Where the hunk lands (or why not), found in parts of the text around its hint and
    /// around every line the search looked up, when the census shows the whole text would say
    /// the same; `None` otherwise.
    fn in_window(&self, q: &Query) -> Option<Located> {
        #[cfg(test)]
        if tests::REFERENCE.get() {
            return None;
        }
        let h = q.hunk;
        let len = self.len();
        if !q.taken.is_empty() {
            return None;
        }
        // Far enough from the parts' edges that nothing read around a match (its lines, its
        // new side, the fuzzy pass's slack either side) reaches past them.
        let margin = 2 * (h.old_len() + h.new_len()) + REACH;
        let reach = h.old_len() + margin + REACH;
        let around = |at: usize| (at.saturating_sub(reach), at.saturating_add(reach).min(len));
        // Without numbers, the parts are only those around the lines the search looks up.
        let mut parts: Vec<(usize, usize)> = q
            .hint
            .map(|hint| {
                (
                    hint.min(len).saturating_sub(margin + REACH),
                    hint.saturating_add(h.old_len() + margin + REACH).min(len),
                )
            })
            .into_iter()
            .collect();
        if h.at_eof {
            parts.push(around(len));
        }
        if h.at_bof {
            parts.push(around(0));
        }
        let each_line =
            |f: &mut dyn FnMut(&str, u64)| self.lines.for_each(|it| f(&it.line, it.tag));
        let mut covered = merge(&mut parts);
        for _ in 0..ROUNDS {
            // Parts that come near the whole text's size cost what the whole text does.
            if covered.saturating_mul(3) > len {
                return None;
            }
            let mut text = Vec::with_capacity(covered);
            for &(lo, hi) in &parts {
                text.extend(self.lines.get(lo, hi).into_iter().map(|it| it.line));
            }
            let window = Window::new(&self.census, &each_line, Layout::new(len, &parts), margin);
            let hay = Haystack::for_lines(&text, names(h)).within(&window);
            let found = locate::locate(&hay, q);
            if !window.spilled() {
                #[cfg(test)]
                tests::WINDOWED.set(tests::WINDOWED.get() + 1);
                // Every search saw what the whole text holds, so every answer is the whole
                // text's, refusals too.
                return Some(found);
            }
            // Take in what the search lacked: every line of each key, wherever it is now
            // (unless a key has so many that the parts would near the whole text), and lines
            // read past a part.
            let lacking = window.lacking()?;
            for lack in &lacking {
                if let Lack::Key(pass, hash) = *lack {
                    // (One of them may be in the parts already.)
                    let more = window.count(pass, hash)?.saturating_sub(1) * 2 * reach;
                    if covered.saturating_add(more).saturating_mul(3) > len {
                        return None;
                    }
                }
            }
            for lack in lacking {
                match lack {
                    Lack::Key(pass, hash) => {
                        for tag in self.census.tags(pass, hash, &each_line)? {
                            let at = self.lines.position_by(|it| it.tag, &tag);
                            debug_assert!(
                                at.is_some(),
                                "every tag the census keeps is in the text"
                            );
                            parts.push(around(at?));
                        }
                    }
                    Lack::Lines(lo, hi) => parts.push((lo, hi)),
                }
            }
            let grown = merge(&mut parts);
            if grown == covered {
                return None;
            }
            covered = grown;
        }
        None
    }

    /// Tags for `n` lines to replace lines `lo..hi`: between the tags of the lines either side.
    /// When no room is left there, every line is tagged afresh.
    fn fresh_tags(&mut self, lo: usize, hi: usize, n: usize) -> Vec<u64> {
        for _ in 0..2 {
            let below = match lo {
                0 => 0,
                _ => self.lines.get(lo - 1, lo)[0].tag,
            };
            let above = self
                .lines
                .get(hi, hi + 1)
                .first()
                .map_or(u64::MAX, |it| it.tag);
            let gap = above - below;
            if gap > n as u64 {
                let step = gap / (n as u64 + 1);
                return (1..=n as u64).map(|j| below + j * step).collect();
            }
            let items = std::mem::replace(&mut self.lines, Rope::new(Vec::new())).into_vec();
            let n = items.len();
            self.lines = Rope::new(
                items
                    .into_iter()
                    .zip(spread(n))
                    .map(|(it, tag)| Item { tag, ..it })
                    .collect(),
            );
            self.census.forget_tags();
            #[cfg(test)]
            tests::RETAGGED.set(tests::RETAGGED.get() + 1);
        }
        unreachable!("tags spread evenly leave room between any two lines")
    }

    /// Splice hunk `h`, placed at `p`, into the text; an indentation the hunk cannot be
    /// carried over to is refused, and the text is left as it was.
    pub fn apply(
        &mut self,
        h: &Hunk,
        p: &Placement,
        patch_eols: bool,
    ) -> Result<(), splice::IndentError> {
        let len = self.len();
        let region = splice::in_place_region(p, len);
        #[cfg(test)]
        let region = region.filter(|_| !tests::REFERENCE.get());
        // A placement reaching outside its region: the whole text is spliced.
        let (lo, hi) = region.as_ref().map_or((0, len), |r| (r.start, r.end));
        let (mut part, gone) = self.part(lo, hi);
        let spliced = if region.is_some() {
            IndentMap::learn(h, &moved(p, -(lo as isize)), &part)?;
            splice::splice_part(&part, lo, h, p, patch_eols, self.dominant_eol())
        } else {
            part.bom = self.bom;
            IndentMap::learn(h, p, &part)?;
            splice::splice(&part, &[(h, p)], patch_eols)
        };
        // (Were every line tagged afresh, the census forgot the old tags, `gone` among them.)
        let tags = self.fresh_tags(lo, hi, spliced.len());
        self.census.replace(
            part.lines.iter().map(|l| &**l).zip(gone.iter().copied()),
            spliced.lines.iter().map(|l| &**l).zip(tags.iter().copied()),
        );
        self.count_eols(&part.eols, false);
        self.count_eols(&spliced.eols, true);
        let items = spliced
            .lines
            .into_iter()
            .zip(spliced.eols)
            .zip(tags)
            .map(|((line, eol), tag)| Item { line, eol, tag })
            .collect();
        self.lines.replace(lo, hi, items);
        Ok(())
    }

    /// The text as the hunks left it.
    pub fn into_text(self) -> TextFile<'a> {
        let mut text = TextFile {
            bom: self.bom,
            lines: Vec::with_capacity(self.lines.len()),
            eols: Vec::with_capacity(self.lines.len()),
        };
        self.lines.drain(|it| {
            text.lines.push(it.line);
            text.eols.push(it.eol);
        });
        text
    }
}

/// `parts` sorted and merged where they overlap or touch; the lines they cover.
fn merge(parts: &mut Vec<(usize, usize)>) -> usize {
    parts.retain(|&(lo, hi)| lo < hi);
    parts.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(parts.len());
    for &(lo, hi) in parts.iter() {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    *parts = out;
    parts.iter().map(|(lo, hi)| hi - lo).sum()
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
    use crate::plan::modify::locate_hunks;
    use proptest::prelude::*;
    use std::cell::Cell;

    thread_local! {
        /// Every hunk searched in the whole text and spliced into the whole text, as before
        /// windows and the rope: the reference the fast path must equal.
        pub static REFERENCE: Cell<bool> = const { Cell::new(false) };
        /// Hunks answered from a window.
        pub static WINDOWED: Cell<usize> = const { Cell::new(0) };
        /// Times every line was tagged afresh.
        pub static RETAGGED: Cell<usize> = const { Cell::new(0) };
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
    /// A hunk's kind beyond its lines: plain; under a unified `@@` heading or a Codex anchor
    /// (the nearest `fn` line above it, or one the text may lack); pinned to the end or the
    /// start of the file.
    #[derive(Debug, Clone, Copy)]
    enum Flavour {
        Plain,
        Heading,
        Anchor,
        AtEof,
        AtBof,
    }

    fn flavour() -> impl Strategy<Value = Flavour> {
        prop_oneof![
            6 => Just(Flavour::Plain),
            1 => Just(Flavour::Heading),
            1 => Just(Flavour::Anchor),
            1 => Just(Flavour::AtEof),
            1 => Just(Flavour::AtBof),
        ]
    }

    type Edit = (
        usize,
        bool,
        (usize, usize, usize),
        Vec<String>,
        i64,
        Flavour,
    );

    /// Hunks written one after another against the text each leaves (so later ones may hold
    /// earlier ones' lines), every other one next to the one before it.
    fn patch_of(file: &[String], edits: &[Edit]) -> FilePatch {
        let mut text = file.to_vec();
        let mut hunks = Vec::new();
        let mut last = 0usize;
        for (pick, near, shape, added, noise, flavour) in edits {
            if text.is_empty() {
                break;
            }
            let mut shape = *shape;
            let at = match flavour {
                Flavour::AtEof => {
                    shape.2 = 0;
                    text.len() - shape.1.min(text.len())
                }
                Flavour::AtBof => {
                    shape.0 = 0;
                    0
                }
                _ if *near => (last + pick % 4).min(text.len() - 1),
                _ => pick % text.len(),
            };
            let lead = shape.0.min(at);
            let stated = (at - lead) as i64 + 1 + noise;
            let mut h = hunk_of(
                &text,
                at,
                (lead, shape.1, shape.2),
                added,
                (stated >= 1).then_some(stated as usize),
            );
            let heading = || {
                text[..at - lead]
                    .iter()
                    .rev()
                    .find(|l| l.starts_with("fn "))
                    .cloned()
                    .unwrap_or_else(|| format!("fn f{}() {{", pick % 7))
            };
            match flavour {
                Flavour::Plain => {}
                Flavour::Heading => h.section = Some(heading()),
                Flavour::Anchor => h.anchors = vec![heading()],
                Flavour::AtEof => h.at_eof = true,
                Flavour::AtBof => h.at_bof = true,
            }
            let mid = (at + shape.1).min(text.len());
            text.splice(at..mid, added.iter().cloned());
            last = at;
            hunks.push(h);
        }
        FilePatch {
            ordered: true,
            ..one_file(hunks)
        }
    }

    /// `fp` run on `file`: every hunk is placed, the text left is `want`, as the reference
    /// has it. Gives the hunks answered from windows.
    fn all_placed(fp: &FilePatch, file: &TextFile, want: &[String]) -> usize {
        WINDOWED.set(0);
        let (located, after) = run(fp, file, false);
        let windowed = WINDOWED.get();
        assert!(
            located.iter().all(|l| matches!(l, Located::Placed(_))),
            "{located:?}"
        );
        assert_eq!(after.as_deref(), Some(joined(want).as_bytes()));
        assert_eq!((located, after), run(fp, file, true));
        windowed
    }

    /// A patch of file `f` made of `hunks`.
    fn one_file(hunks: Vec<Hunk>) -> FilePatch {
        FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks,
            ..FilePatch::default()
        }
    }

    /// The text's lines, each ended by a newline.
    fn joined(text: &[String]) -> String {
        text.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Two overlapping hunks at line `at` of `now` (which they change): the first changes the
    /// line, the second the next one, and its context holds the first one's new line.
    fn pair(now: &mut [String], at: usize, numbered: bool) -> [Hunk; 2] {
        let first = hunk_of(
            now,
            at,
            (2, 1, 2),
            &[format!("{} A", now[at])],
            numbered.then(|| at - 1),
        );
        now[at] = format!("{} A", now[at]);
        let second = hunk_of(
            now,
            at + 1,
            (2, 1, 2),
            &[format!("{} B", now[at + 1])],
            numbered.then_some(at),
        );
        now[at + 1] = format!("{} B", now[at + 1]);
        [first, second]
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
            1 => Just(Some("fn")),
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

    /// The lines [`file_line`] picked, spelled out: a line of its own, or one of a few that
    /// repeat.
    fn spelled(picked: &[Option<&str>]) -> Vec<String> {
        picked
            .iter()
            .enumerate()
            .map(|(i, l)| match l {
                None => format!("line {i}"),
                Some("dup") => format!("dup {}", i % 13),
                Some("fn") => format!("fn f{}() {{", i % 5),
                Some(l) => l.to_string(),
            })
            .collect()
    }

    /// 2 to 13 edits, their numbers off by a little, or by 100 to 250 lines ahead, or by 100
    /// to `back` lines behind.
    fn edits(back: i64) -> impl Strategy<Value = Vec<Edit>> {
        prop::collection::vec(
            (
                any::<usize>(),
                any::<bool>(),
                (0..4usize, 0..3usize, 0..4usize),
                prop::collection::vec(added_line(), 0..4),
                prop_oneof![4 => -3..4i64, 1 => 100..250i64, 1 => -back..-100i64],
                flavour(),
            ),
            2..14,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Hunks located and spliced one after another land where, and leave what, a search
        /// of the whole text and a splice of the whole text do.
        #[test]
        fn windows_and_the_rope_change_nothing(
            lines in prop::collection::vec(file_line(), 200..1400),
            crlf in prop::collection::vec(any::<bool>(), 8),
            edits in edits(250),
        ) {
            let text = spelled(&lines);
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// In a text made of copies of one block, where every line a hunk looks up is also
        /// a block away, hunks land where, and leave what, the whole text puts them.
        #[test]
        fn parts_far_apart_change_nothing(
            block in prop::collection::vec(file_line(), 500..1100),
            copies in 2..4usize,
            numbered in any::<bool>(),
            edits in edits(600),
        ) {
            let block = spelled(&block);
            let text: Vec<String> = (0..copies).flat_map(|_| block.iter().cloned()).collect();
            let bytes = joined(&text);
            let file = TextFile::decode(bytes.as_bytes()).expect("text");
            let mut fp = patch_of(&text, &edits);
            if !numbered {
                for h in &mut fp.hunks {
                    (h.old_start, h.new_start) = (None, None);
                }
            }
            prop_assert_eq!(run(&fp, &file, false), run(&fp, &file, true));
        }
    }

    /// Overlapping pairs in a text whose second half repeats its first: every line a hunk
    /// looks up is also half the text away, and the search takes in that part too instead of
    /// the whole text; both copies of a block in the parts make a hunk whose numbers fall
    /// between them two places, as in the whole text.
    #[test]
    fn lines_far_away_are_taken_in_as_parts() {
        let half: Vec<String> = (0..4000).map(|i| format!("line {i}")).collect();
        let text: Vec<String> = half.iter().chain(&half).cloned().collect();
        let bytes = joined(&text);
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut hunks = Vec::new();
        let mut now = text.clone();
        for r in 0..30 {
            hunks.extend(pair(&mut now, 260 * r + 100, true));
        }
        let fp = one_file(hunks.clone());
        let windowed = all_placed(&fp, &file, &now);
        assert!(
            windowed >= 56,
            "only {windowed} of 60 hunks were answered from parts"
        );

        // Numbers halfway between a block and its copy: two places.
        let mut between = hunk_of(&text, 3000, (2, 1, 2), &["x".into()], Some(5000));
        between.new_start = Some(5000);
        let fp = FilePatch {
            hunks: vec![hunks[0].clone(), hunks[1].clone(), between],
            ..fp
        };
        WINDOWED.set(0);
        let got = run(&fp, &file, false);
        assert_eq!(WINDOWED.get(), 3, "every hunk was answered from parts");
        assert_eq!(got, run(&fp, &file, true));
        match &got.0[2] {
            Located::Ambiguous { starts, .. } => assert_eq!(starts, &[2998, 6998]),
            other => panic!("the hunk fits twice: {other:?}"),
        }
    }

    /// Hunks without numbers (a Codex patch's) are searched in parts around the lines they
    /// look up, and land where the whole text puts them.
    #[test]
    fn hunks_without_numbers_are_answered_from_parts() {
        let text: Vec<String> = (0..5000).map(|i| format!("line {i}")).collect();
        let bytes = joined(&text);
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut hunks = Vec::new();
        let mut now = text.clone();
        for r in 0..20 {
            hunks.extend(pair(&mut now, 240 * r + 100, false));
        }
        let fp = FilePatch {
            ordered: true,
            ..one_file(hunks)
        };
        assert_eq!(
            all_placed(&fp, &file, &now),
            40,
            "every hunk was answered from parts"
        );
    }

    /// A heading or anchor line far from a hunk, and the block it opens running past the
    /// parts, are taken in as parts too: the heading decides between two copies of the
    /// hunk's lines, and an anchored insertion without numbers lands under its anchor, as in
    /// the whole text.
    #[test]
    fn headings_and_their_blocks_are_taken_in_as_parts() {
        let mut text: Vec<String> = (0..8000).map(|i| format!("line {i}")).collect();
        for (at, name) in [(3000, "target"), (6000, "other")] {
            text[at] = format!("fn {name}() {{");
            for (j, l) in text[at + 1..at + 600].iter_mut().enumerate() {
                *l = format!("    body {} {j}", at / 1000);
            }
            text[at + 600] = "}".into();
        }
        for k in 0..5 {
            text[6100 + k] = text[3100 + k].clone();
        }
        let bytes = joined(&text);
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut now = text.clone();
        let [first, second] = pair(&mut now, 1000, true);
        // Numbers halfway between the copies: the heading decides.
        let mut headed = hunk_of(&now, 3102, (2, 1, 2), &["headed".into()], Some(4600));
        headed.section = Some("fn target() {".into());
        now[3102] = "headed".into();
        // A context line both functions have: the anchor decides.
        let mut anchored = hunk_of(&now, 6100, (0, 0, 1), &["    anchored".into()], None);
        anchored.anchors = vec!["fn other() {".into()];
        now.insert(6100, "    anchored".into());
        let fp = FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks: vec![first, second, headed, anchored],
            ..FilePatch::default()
        };
        assert_eq!(
            all_placed(&fp, &file, &now),
            4,
            "every hunk was answered from parts"
        );
    }

    /// Hunk after hunk rewriting the middle of the lines the one before put in leaves less
    /// and less room between tags, until every line is tagged afresh; lines that repeat far
    /// away are then still found where they are.
    #[test]
    fn a_text_rewritten_inside_itself_is_tagged_afresh() {
        let half: Vec<String> = (0..1500).map(|i| format!("line {i}")).collect();
        let text: Vec<String> = half.iter().chain(&half).cloned().collect();
        let bytes = joined(&text);
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut now = text.clone();
        let mut hunks = Vec::new();
        let mut at = 700;
        for k in 0..40 {
            let added: Vec<String> = (0..20).map(|j| format!("k{k} {j}")).collect();
            hunks.push(hunk_of(&now, at, (2, 1, 2), &added, Some(at - 1)));
            now.splice(at..at + 1, added);
            at += 11;
        }
        for r in 0..4 {
            hunks.extend(pair(&mut now, 1000 + 40 * r, true));
        }
        let fp = one_file(hunks);
        RETAGGED.set(0);
        WINDOWED.set(0);
        let got = run(&fp, &file, false);
        assert!(RETAGGED.get() >= 1, "the tags ran out at least once");
        assert_eq!(WINDOWED.get(), 48, "every hunk was answered from parts");
        let want = joined(&now);
        assert_eq!(got.1.as_deref(), Some(want.as_bytes()));
        assert_eq!(got, run(&fp, &file, true));
    }

    /// The overlapping pairs the window is for: every hunk but those near the ends of the file
    /// is answered from its window, and the result is the reference's.
    #[test]
    fn overlapping_pairs_are_answered_from_windows() {
        let text: Vec<String> = (0..3000).map(|i| format!("line {i}")).collect();
        let bytes = joined(&text);
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut hunks = Vec::new();
        let mut now = text.clone();
        for r in 0..20 {
            hunks.extend(pair(&mut now, 140 * r + 70, true));
        }
        let fp = one_file(hunks);
        let windowed = all_placed(&fp, &file, &now);
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
        let bytes = joined(&text);
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
            let want = joined(&now);
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
        let bytes = joined(&text);
        let file = TextFile::decode(bytes.as_bytes()).expect("text");
        let mut now = text.clone();
        let [first, second] = pair(&mut now, 1000, true);
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

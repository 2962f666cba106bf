//! The result the proof derives from the claims, as runs: stretches of the original's lines
//! kept as they are, and runs of a hunk's added lines. Its size follows the hunks, not the
//! file: a placement splits at most the run it lands in, and only its region is walked line
//! by line.

use std::borrow::Cow;

use super::lines::Index;
use crate::patch::Line as PatchLine;
use crate::plan::normalize::Pass;

/// A run of the derived result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg<'a> {
    /// Lines `from..from + len` of the original, kept.
    Kept { from: usize, len: usize },
    /// Added lines of a hunk, compared modulo `loose` when it is set.
    Added {
        lines: &'a [PatchLine],
        /// Patch order, 0-based (u32 keeps a run small).
        hunk: u32,
        loose: Option<Pass>,
    },
}

impl<'a> Seg<'a> {
    pub fn len(&self) -> usize {
        match self {
            Seg::Kept { len, .. } => *len,
            Seg::Added { lines, .. } => lines.len(),
        }
    }

    /// Its lines `a..b`.
    fn slice(&self, a: usize, b: usize) -> Seg<'a> {
        match *self {
            Seg::Kept { from, .. } => Seg::Kept {
                from: from + a,
                len: b - a,
            },
            Seg::Added { lines, hunk, loose } => Seg::Added {
                lines: &lines[a..b],
                hunk,
                loose,
            },
        }
    }
}

/// One line of the derived result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'a> {
    /// Line `k` of the original, kept.
    Kept(usize),
    Added {
        text: &'a str,
        hunk: u32,
        loose: Option<Pass>,
    },
}

/// The derived result: its runs, and where each starts, for finding line `k`.
///
/// Hunks proved one after another (overlapping hunks) each replace a region of it in place
/// ([`Derived::replace`]): a gap sits at the last region replaced, the runs after it kept last
/// first, each with its distance from the end, which a change before it does not move. Hunks in
/// file order then move the gap over the runs once in all, instead of copying every run per
/// hunk.
#[derive(Debug, Clone)]
pub struct Derived<'a> {
    orig: &'a Index<'a>,
    /// The runs before the gap.
    segs: Vec<Seg<'a>>,
    /// The first line of each run before the gap.
    starts: Vec<usize>,
    /// Lines before the gap.
    front: usize,
    /// The runs after the gap, the last run first.
    back: Vec<Seg<'a>>,
    /// For each run after the gap: lines from its first line to the end.
    tails: Vec<usize>,
    /// Lines after the gap.
    back_len: usize,
}

impl<'a> Derived<'a> {
    /// Nothing yet, over the original `orig`.
    pub fn empty(orig: &'a Index<'a>) -> Derived<'a> {
        Derived {
            orig,
            segs: Vec::new(),
            starts: Vec::new(),
            front: 0,
            back: Vec::new(),
            tails: Vec::new(),
            back_len: 0,
        }
    }

    /// The original, every line kept.
    pub fn original(orig: &'a Index<'a>) -> Derived<'a> {
        let mut d = Derived::empty(orig);
        d.push(Seg::Kept {
            from: 0,
            len: orig.len(),
        });
        d
    }

    pub fn orig(&self) -> &'a Index<'a> {
        self.orig
    }

    /// The number of lines.
    pub fn len(&self) -> usize {
        self.front + self.back_len
    }

    /// The runs, in order (the gap closed first: see [`Derived::close`]).
    pub fn segs(&self) -> &[Seg<'a>] {
        assert!(
            self.back.is_empty(),
            "the runs are read with the gap closed"
        );
        &self.segs
    }

    /// Append a run at the end; a kept run that continues the last one joins it.
    pub fn push(&mut self, seg: Seg<'a>) {
        assert!(
            self.back.is_empty(),
            "runs are appended with the gap closed"
        );
        self.push_front(seg);
    }

    /// Append a run before the gap.
    fn push_front(&mut self, seg: Seg<'a>) {
        let n = seg.len();
        if n == 0 {
            return;
        }
        if let (
            Some(Seg::Kept { from, len }),
            Seg::Kept {
                from: next_from,
                len: next_len,
            },
        ) = (self.segs.last_mut(), seg)
        {
            if *from + *len == next_from {
                *len += next_len;
                self.front += n;
                return;
            }
        }
        self.segs.push(seg);
        self.starts.push(self.front);
        self.front += n;
    }

    /// Put a run right after the gap.
    fn push_back(&mut self, seg: Seg<'a>) {
        let n = seg.len();
        if n == 0 {
            return;
        }
        self.back_len += n;
        self.back.push(seg);
        self.tails.push(self.back_len);
    }

    /// Take the run right before the gap.
    fn pop_front(&mut self) -> Option<Seg<'a>> {
        let seg = self.segs.pop()?;
        self.starts.pop();
        self.front -= seg.len();
        Some(seg)
    }

    /// Take the run right after the gap.
    fn pop_back(&mut self) -> Option<Seg<'a>> {
        let seg = self.back.pop()?;
        self.tails.pop();
        self.back_len -= seg.len();
        Some(seg)
    }

    /// Move the gap to line `at` (at most the length).
    fn gap_to(&mut self, at: usize) {
        let at = at.min(self.len());
        while self.front > at {
            let seg = self.pop_front().expect("lines before the gap are in runs");
            if self.front < at {
                let keep = at - self.front;
                self.push_front(seg.slice(0, keep));
                self.push_back(seg.slice(keep, seg.len()));
            } else {
                self.push_back(seg);
            }
        }
        while self.front < at {
            let seg = self.pop_back().expect("lines after the gap are in runs");
            let take = at - self.front;
            if take < seg.len() {
                self.push_back(seg.slice(take, seg.len()));
                self.push_front(seg.slice(0, take));
            } else {
                self.push_front(seg);
            }
        }
    }

    /// Close the gap: every run before it, in order.
    pub fn close(&mut self) {
        self.gap_to(self.len());
    }

    /// Lines `lo..hi` replaced by the lines of `with` (`lo <= hi <= len`), in place: the
    /// runs around them are not copied.
    pub fn replace(&mut self, lo: usize, hi: usize, with: &Derived<'a>) {
        assert!(lo <= hi && hi <= self.len(), "a region of the text");
        self.gap_to(lo);
        let mut gone = hi - lo;
        while gone > 0 {
            let seg = self.pop_back().expect("the region is in runs");
            if seg.len() > gone {
                self.push_back(seg.slice(gone, seg.len()));
                gone = 0;
            } else {
                gone -= seg.len();
            }
        }
        for (seg, a, b) in with.runs(0, with.len()) {
            self.push_front(seg.slice(a, b));
        }
    }

    /// The runs holding lines `from..to`, each as (run, first, end) of its own lines.
    fn runs(&self, from: usize, to: usize) -> impl Iterator<Item = (Seg<'a>, usize, usize)> + '_ {
        let to = to.min(self.len());
        let front_to = to.min(self.front);
        let first = if from < front_to {
            self.seg_at(from)
        } else {
            self.segs.len()
        };
        let front = self.segs[first..]
            .iter()
            .zip(&self.starts[first..])
            .take_while(move |(_, &s)| s < front_to)
            .map(move |(seg, &s)| (*seg, from.saturating_sub(s), (front_to - s).min(seg.len())));
        let total = self.len();
        let back_from = from.max(self.front);
        // The run after the gap holding line `back_from`: the first from the end whose tail
        // reaches it.
        let last = if back_from < to {
            self.tails.partition_point(|&t| t < total - back_from) + 1
        } else {
            0
        };
        let back = self.back[..last]
            .iter()
            .zip(&self.tails[..last])
            .rev()
            .map(move |(seg, &t)| (*seg, total - t))
            .take_while(move |&(_, s)| s < to)
            .map(move |(seg, s)| (seg, back_from.saturating_sub(s), (to - s).min(seg.len())));
        front.chain(back)
    }

    /// Append lines `from..to` of `other`, run by run.
    pub fn extend_from(&mut self, other: &Derived<'a>, from: usize, to: usize) {
        if from >= to.min(other.len()) {
            return;
        }
        for (seg, a, b) in other.runs(from, to) {
            self.push(seg.slice(a, b));
        }
    }

    /// The index of the run before the gap holding line `k` (`k < front`).
    fn seg_at(&self, k: usize) -> usize {
        self.starts.partition_point(|&s| s <= k) - 1
    }

    /// Line `k` (`k < len`).
    pub fn at(&self, k: usize) -> Item<'a> {
        if k < self.front {
            let i = self.seg_at(k);
            return item(self.segs[i], k - self.starts[i]);
        }
        let t = self.len() - k;
        let i = self.tails.partition_point(|&e| e < t);
        item(self.back[i], self.tails[i] - t)
    }

    /// Lines `from..to`, as far as there are lines.
    pub fn items(&self, from: usize, to: usize) -> impl Iterator<Item = Item<'a>> + '_ {
        self.runs(from, to)
            .flat_map(|(seg, a, b)| (a..b).map(move |k| item(seg, k)))
    }

    /// A line's text, as the planner reads it.
    pub fn text(&self, item: Item<'a>) -> Cow<'a, str> {
        match item {
            Item::Kept(k) => self.orig.line(k).text(),
            Item::Added { text, .. } => Cow::Borrowed(text),
        }
    }
}

/// Line `k` of a run.
fn item(seg: Seg<'_>, k: usize) -> Item<'_> {
    match seg {
        Seg::Kept { from, .. } => Item::Kept(from + k),
        Seg::Added { lines, hunk, loose } => Item::Added {
            text: &lines[k].text,
            hunk,
            loose,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::LineKind;

    fn added(n: usize) -> Vec<PatchLine> {
        (0..n)
            .map(|k| PatchLine::new(LineKind::Add, format!("new {k}")))
            .collect()
    }

    #[test]
    fn runs_split_at_the_boundaries_of_what_is_taken() {
        let bytes = b"0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let orig = Index::new(bytes);
        let cur = Derived::original(&orig);
        assert_eq!(cur.segs(), &[Seg::Kept { from: 0, len: 10 }]);
        let new = added(2);
        let mut out = Derived::empty(&orig);
        out.extend_from(&cur, 0, 3);
        out.push(Seg::Added {
            lines: &new,
            hunk: 0,
            loose: None,
        });
        out.extend_from(&cur, 5, 10);
        assert_eq!(out.len(), 10);
        assert_eq!(out.segs().len(), 3);
        assert_eq!(out.segs()[0], Seg::Kept { from: 0, len: 3 });
        assert_eq!(out.segs()[2], Seg::Kept { from: 5, len: 5 });
        // A second state taken across all three runs keeps their pieces, not their lines.
        let mut again = Derived::empty(&orig);
        again.extend_from(&out, 2, 4);
        again.extend_from(&out, 6, 8);
        assert_eq!(again.len(), 4);
        assert_eq!(again.segs()[0], Seg::Kept { from: 2, len: 1 });
        assert!(
            matches!(again.segs()[1], Seg::Added { lines, .. } if lines.len() == 1 && lines[0].text == "new 0")
        );
        assert_eq!(again.segs()[2], Seg::Kept { from: 6, len: 2 });
    }

    #[test]
    fn adjacent_kept_runs_join_and_lines_are_found_through_the_runs() {
        let bytes = b"a\nb\nc\nd\n";
        let orig = Index::new(bytes);
        let cur = Derived::original(&orig);
        let new = added(3);
        let mut out = Derived::empty(&orig);
        out.extend_from(&cur, 0, 1);
        out.extend_from(&cur, 1, 2);
        assert_eq!(out.segs(), &[Seg::Kept { from: 0, len: 2 }]);
        out.push(Seg::Added {
            lines: &new,
            hunk: 4,
            loose: None,
        });
        out.extend_from(&cur, 3, 4);
        let texts: Vec<String> = out
            .items(0, out.len())
            .map(|i| out.text(i).into_owned())
            .collect();
        assert_eq!(texts, ["a", "b", "new 0", "new 1", "new 2", "d"]);
        for (k, it) in out.items(0, out.len()).enumerate() {
            assert_eq!(out.at(k), it);
        }
        assert_eq!(out.items(3, 5).count(), 2);
        assert_eq!(
            out.items(4, 99).count(),
            2,
            "clipped to the lines there are"
        );
        assert_eq!(out.items(6, 9).count(), 0);
        assert!(matches!(out.at(2), Item::Added { hunk: 4, .. }));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Regions replaced in place, anywhere and in any order, leave the lines a plain list
        /// of lines gets from the same replacements; every line is found where it is, every
        /// range of lines reads as the list's, and the runs read in order once the gap closes.
        #[test]
        fn replacing_in_place_is_replacing_in_a_list(
            n in 0..60usize,
            ops in proptest::collection::vec(
                (0..80usize, 0..6usize, proptest::collection::vec((proptest::bool::ANY, 0..60usize, 0..5usize), 0..4)),
                1..24,
            ),
        ) {
            let bytes: String = (0..n).map(|k| format!("{k}\n")).collect();
            let orig = Index::new(bytes.as_bytes());
            let new = added(5);
            let mut cur = Derived::original(&orig);
            let mut model: Vec<Item> = cur.items(0, cur.len()).collect();
            for (at, width, parts) in &ops {
                let lo = at % (model.len() + 1);
                let hi = (lo + width).min(model.len());
                let mut with = Derived::empty(&orig);
                for &(kept, from, len) in parts {
                    if kept && n > 0 {
                        let from = from % n;
                        with.push(Seg::Kept { from, len: len.min(n - from) });
                    } else {
                        with.push(Seg::Added { lines: &new[..len], hunk: from as u32, loose: None });
                    }
                }
                let put: Vec<Item> = with.items(0, with.len()).collect();
                model.splice(lo..hi, put);
                cur.replace(lo, hi, &with);
                proptest::prop_assert_eq!(cur.len(), model.len());
                for (k, it) in model.iter().enumerate() {
                    proptest::prop_assert_eq!(cur.at(k), *it);
                }
                let a = at % (model.len() + 1);
                let b = (a + width * 3).min(model.len() + 2);
                let got: Vec<Item> = cur.items(a, b).collect();
                proptest::prop_assert_eq!(&got[..], &model[a..b.min(model.len())]);
            }
            let mut out = Derived::empty(&orig);
            out.extend_from(&cur, 0, cur.len());
            proptest::prop_assert!(out.items(0, out.len()).eq(model.iter().copied()));
            cur.close();
            let runs: Vec<Item> = cur
                .segs()
                .iter()
                .flat_map(|seg| (0..seg.len()).map(move |k| item(*seg, k)))
                .collect();
            proptest::prop_assert_eq!(runs, model);
        }
    }
}

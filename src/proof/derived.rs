//! The result the proof derives from the claims, as runs: stretches of the original's lines
//! kept as they are, and runs of a hunk's added lines. Its size follows the hunks, not the
//! file: a placement splits at most the run it lands in, and only its region is walked line
//! by line.

use std::borrow::Cow;

use super::lines::Index;
use crate::patch::Line as PatchLine;
use crate::text::normalize::Pass;

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

impl crate::text::rope::Piece for Seg<'_> {
    fn weight(&self) -> usize {
        self.len()
    }

    fn cut(&self, at: usize) -> (Self, Self) {
        (self.slice(0, at), self.slice(at, self.len()))
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
#[derive(Debug, Clone)]
pub struct Derived<'a> {
    orig: &'a Index<'a>,
    segs: Vec<Seg<'a>>,
    /// The first line of each run.
    starts: Vec<usize>,
    len: usize,
}

impl<'a> Derived<'a> {
    /// Nothing yet, over the original `orig`.
    pub fn empty(orig: &'a Index<'a>) -> Derived<'a> {
        Derived {
            orig,
            segs: Vec::new(),
            starts: Vec::new(),
            len: 0,
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
        self.len
    }

    pub fn segs(&self) -> &[Seg<'a>] {
        &self.segs
    }

    /// Append a run; a kept run that continues the last one joins it.
    pub fn push(&mut self, seg: Seg<'a>) {
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
                self.len += n;
                return;
            }
        }
        self.segs.push(seg);
        self.starts.push(self.len);
        self.len += n;
    }

    /// Append lines `from..to` of `other`, run by run.
    pub fn extend_from(&mut self, other: &Derived<'a>, from: usize, to: usize) {
        let to = to.min(other.len);
        if from >= to {
            return;
        }
        let first = other.seg_at(from);
        for (seg, &s) in other.segs[first..].iter().zip(&other.starts[first..]) {
            if s >= to {
                break;
            }
            let a = from.saturating_sub(s);
            let b = (to - s).min(seg.len());
            self.push(seg.slice(a, b));
        }
    }

    /// The index of the run holding line `k` (`k < len`).
    fn seg_at(&self, k: usize) -> usize {
        self.starts.partition_point(|&s| s <= k) - 1
    }

    /// Line `k` (`k < len`).
    pub fn at(&self, k: usize) -> Item<'a> {
        let i = self.seg_at(k);
        item(self.segs[i], k - self.starts[i])
    }

    /// Lines `from..to`, as far as there are lines.
    pub fn items(&self, from: usize, to: usize) -> impl Iterator<Item = Item<'a>> + '_ {
        let to = to.min(self.len);
        let first = if from < to { self.seg_at(from) } else { 0 };
        let segs = if from < to { &self.segs[first..] } else { &[] };
        segs.iter()
            .zip(&self.starts[first..])
            .take_while(move |(_, &s)| s < to)
            .flat_map(move |(seg, &s)| {
                let a = from.saturating_sub(s);
                let b = (to - s).min(seg.len());
                (a..b).map(move |k| item(*seg, k))
            })
    }

    /// Whether a line reads as `text`: a kept line whose bytes are `text`'s does without
    /// being decoded (decoding bytes that are UTF-8 gives them back as they are).
    pub fn reads_as(&self, item: Item<'a>, text: &str) -> bool {
        match item {
            Item::Kept(k) if self.orig.line(k).content == text.as_bytes() => true,
            item => self.text(item) == text,
        }
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
}

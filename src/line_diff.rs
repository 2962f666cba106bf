//! Line diffs that stay fast on any input: the edit script between two sequences of lines,
//! and the added/removed counts a report shows. Pure, over slices.
//!
//! A whole-file Myers diff costs O((N+M)·D): on a million-line file with a hundred thousand
//! scattered edits that is minutes. Here the common prefix and suffix are trimmed first and
//! lines are interned to integers. A small middle (up to [`MYERS_MAX_LINES`]) gets Myers, as
//! it always did: a minimal diff. A larger one is split by patience anchors (lines that occur
//! once on each side, kept in order by a longest increasing subsequence, O(k log k)),
//! recursively; only the gaps between anchors, which hold no line unique to both sides, go to
//! Myers. A deadline bounds the whole: once it has passed, every region still open counts as
//! removed and re-added, so the script stays valid but coarser.
//!
//! The counts are those of this script: a minimal diff's for small changes, `git diff
//! --patience`'s in ordinary large ones, and never fewer lines than a minimal diff has. Past
//! the deadline they are an upper bound.

use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::Hash;
use std::ops::Range;
use std::time::Instant;

use similar::algorithms::{myers, Capture, DiffHook, NoFinishHook, Replace};
pub use similar::DiffOp;

/// The largest middle (old and new lines, after the common prefix and suffix) diffed by
/// Myers alone: O((N+M)·D) stays within milliseconds there.
pub const MYERS_MAX_LINES: usize = 4096;

/// Lines added and removed, as a diff counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub added: usize,
    pub removed: usize,
}

impl LineCounts {
    pub fn new(added: usize, removed: usize) -> LineCounts {
        LineCounts { added, removed }
    }

    /// The counts of the opposite change (what undoing it adds and removes).
    pub fn reversed(self) -> LineCounts {
        LineCounts {
            added: self.removed,
            removed: self.added,
        }
    }

    /// The counts of `ops`.
    pub fn of_ops(ops: &[DiffOp]) -> LineCounts {
        let mut c = LineCounts::default();
        for op in ops {
            match *op {
                DiffOp::Equal { .. } => {}
                DiffOp::Delete { old_len, .. } => c.removed += old_len,
                DiffOp::Insert { new_len, .. } => c.added += new_len,
                DiffOp::Replace {
                    old_len, new_len, ..
                } => {
                    c.removed += old_len;
                    c.added += new_len;
                }
            }
        }
        c
    }
}

impl std::ops::Add for LineCounts {
    type Output = LineCounts;

    fn add(self, other: LineCounts) -> LineCounts {
        LineCounts {
            added: self.added + other.added,
            removed: self.removed + other.removed,
        }
    }
}

/// `text` split into lines as diffs count them: each keeps its `\n`; a last line without one
/// is a line too. Empty text has no lines.
pub fn split_lines(text: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::with_capacity(line_count(text));
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            lines.push(&text[start..=i]);
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// How many lines [`split_lines`] finds in `text`, without splitting it.
pub fn line_count(text: &[u8]) -> usize {
    let newlines = text.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(text.last().is_some_and(|&b| b != b'\n'))
}

/// How many lines a file holds as a report counts them: `None` (no file) holds none, and
/// content that is not UTF-8 is binary, which has no lines (`None`).
pub fn text_lines(file: Option<&[u8]>) -> Option<usize> {
    match file {
        None => Some(0),
        Some(bytes) => std::str::from_utf8(bytes)
            .ok()
            .map(|t| line_count(t.as_bytes())),
    }
}

/// The lines added and removed going from file `old` to file `new` (`None`: no file), as a
/// report counts them: where either side is binary (not UTF-8), none.
pub fn count_change(old: Option<&[u8]>, new: Option<&[u8]>, deadline: Instant) -> LineCounts {
    fn text(f: Option<&[u8]>) -> Option<&[u8]> {
        match f {
            None => Some(&[]),
            Some(bytes) => std::str::from_utf8(bytes).is_ok().then_some(bytes),
        }
    }
    match (text(old), text(new)) {
        (Some(a), Some(b)) => count_lines(a, b, deadline),
        _ => LineCounts::default(),
    }
}

/// The lines added and removed going from `old` to `new` (texts, split by [`split_lines`]).
pub fn count_lines(old: &[u8], new: &[u8], deadline: Instant) -> LineCounts {
    if old.is_empty() || new.is_empty() {
        return LineCounts::new(line_count(new), line_count(old));
    }
    LineCounts::of_ops(&diff(&split_lines(old), &split_lines(new), deadline))
}

/// The edit script from `old` to `new`: ops in order, covering both sides, a change written
/// as `Replace` (or `Delete`/`Insert`) the way similar's own diffs write it.
pub fn diff<T: Hash + Eq>(old: &[T], new: &[T], deadline: Instant) -> Vec<DiffOp> {
    diff_with(old, new, deadline, MYERS_MAX_LINES)
}

/// [`diff`], with Myers alone for a middle of up to `myers_max` lines (tests force the
/// patience split with 0).
fn diff_with<T: Hash + Eq>(
    old: &[T],
    new: &[T],
    deadline: Instant,
    myers_max: usize,
) -> Vec<DiffOp> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_mid, new_mid) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    // Interned, the middle compares as integers; ids are dense, so per-line bookkeeping is
    // a vector, not a map.
    let mut ids: HashMap<&T, u32, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(old_mid.len() + new_mid.len(), Default::default());
    let mut intern = |line| {
        let next = u32::try_from(ids.len()).expect("fewer than 2^32 distinct lines");
        *ids.entry(line).or_insert(next)
    };
    let a: Vec<u32> = old_mid.iter().map(&mut intern).collect();
    let b: Vec<u32> = new_mid.iter().map(&mut intern).collect();
    let distinct = ids.len();
    drop(ids);

    let mut out = Replace::new(Capture::new());
    let mut emit = Shifted {
        d: &mut out,
        old: prefix,
        new: prefix,
    };
    if prefix > 0 {
        emit.d.equal(0, 0, prefix).expect("capturing cannot fail");
    }
    if a.len() + b.len() <= myers_max {
        let mut hook = NoFinishHook::new(&mut emit);
        myers::diff_deadline(&mut hook, &a, 0..a.len(), &b, 0..b.len(), Some(deadline))
            .expect("capturing cannot fail");
    } else {
        Engine {
            a: &a,
            b: &b,
            slots: vec![Slot::default(); distinct],
            deadline,
        }
        .run(&mut emit);
    }
    if suffix > 0 {
        emit.d
            .equal(old.len() - suffix, new.len() - suffix, suffix)
            .expect("capturing cannot fail");
    }
    out.finish().expect("capturing cannot fail");
    out.into_inner().into_ops()
}

/// A hook that moves indices of the trimmed middle back to the whole texts'.
struct Shifted<'d, D> {
    d: &'d mut D,
    old: usize,
    new: usize,
}

impl<D: DiffHook> DiffHook for Shifted<'_, D> {
    type Error = D::Error;

    fn equal(&mut self, old: usize, new: usize, len: usize) -> Result<(), D::Error> {
        self.d.equal(old + self.old, new + self.new, len)
    }

    fn delete(&mut self, old: usize, len: usize, new: usize) -> Result<(), D::Error> {
        self.d.delete(old + self.old, len, new + self.new)
    }

    fn insert(&mut self, old: usize, new: usize, len: usize) -> Result<(), D::Error> {
        self.d.insert(old + self.old, new + self.new, len)
    }

    fn replace(
        &mut self,
        old: usize,
        old_len: usize,
        new: usize,
        new_len: usize,
    ) -> Result<(), D::Error> {
        self.d
            .replace(old + self.old, old_len, new + self.new, new_len)
    }

    fn finish(&mut self) -> Result<(), D::Error> {
        // The caller finishes once, after the common suffix.
        Ok(())
    }
}

/// How often one line id occurs on each side of the region being split (counting stops at
/// 255: only 1 matters), and where on the new side (the last place).
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    in_a: u8,
    in_b: u8,
    at_b: usize,
}

/// What is left to emit, in order: the top of the stack comes next.
enum Work {
    Equal { a: usize, b: usize, len: usize },
    Region { a: Range<usize>, b: Range<usize> },
}

struct Engine<'x> {
    a: &'x [u32],
    b: &'x [u32],
    slots: Vec<Slot>,
    deadline: Instant,
}

impl Engine<'_> {
    fn run<D: DiffHook<Error = Infallible>>(mut self, d: &mut D) {
        let mut stack = vec![Work::Region {
            a: 0..self.a.len(),
            b: 0..self.b.len(),
        }];
        let mut late = false;
        let mut steps = 0u32;
        while let Some(work) = stack.pop() {
            let (mut ra, mut rb) = match work {
                Work::Equal { a, b, len } => {
                    d.equal(a, b, len).expect("capturing cannot fail");
                    continue;
                }
                Work::Region { a, b } => (a, b),
            };
            let (a, b) = (self.a, self.b);
            let prefix = a[ra.clone()]
                .iter()
                .zip(&b[rb.clone()])
                .take_while(|(x, y)| x == y)
                .count();
            if prefix > 0 {
                d.equal(ra.start, rb.start, prefix)
                    .expect("capturing cannot fail");
                ra.start += prefix;
                rb.start += prefix;
            }
            let mut suffix = 0;
            while ra.len() > suffix
                && rb.len() > suffix
                && a[ra.end - 1 - suffix] == b[rb.end - 1 - suffix]
            {
                suffix += 1;
            }
            if suffix > 0 {
                stack.push(Work::Equal {
                    a: ra.end - suffix,
                    b: rb.end - suffix,
                    len: suffix,
                });
                ra.end -= suffix;
                rb.end -= suffix;
            }
            // The clock is read now and then: a region is often a line or two.
            if !late && steps % 64 == 0 {
                late = Instant::now() > self.deadline;
            }
            steps = steps.wrapping_add(1);
            if ra.is_empty() || rb.is_empty() || late {
                coarse(d, &ra, &rb);
                continue;
            }
            let anchors = self.anchors(&ra, &rb);
            if anchors.is_empty() {
                // No line is unique to both sides here: Myers, which honours the deadline too.
                let mut hook = NoFinishHook::new(&mut *d);
                myers::diff_deadline(&mut hook, a, ra, b, rb, Some(self.deadline))
                    .expect("capturing cannot fail");
                continue;
            }
            // Gaps and anchors, pushed last first so they pop in order.
            let (mut end_a, mut end_b) = (ra.end, rb.end);
            for &(i, j) in anchors.iter().rev() {
                stack.push(Work::Region {
                    a: i + 1..end_a,
                    b: j + 1..end_b,
                });
                stack.push(Work::Equal { a: i, b: j, len: 1 });
                (end_a, end_b) = (i, j);
            }
            stack.push(Work::Region {
                a: ra.start..end_a,
                b: rb.start..end_b,
            });
        }
    }

    /// The lines that occur exactly once in each of `ra` and `rb`, the longest run of them
    /// in the same order on both sides: `(index in a, index in b)`, increasing.
    fn anchors(&mut self, ra: &Range<usize>, rb: &Range<usize>) -> Vec<(usize, usize)> {
        let (a, b) = (self.a, self.b);
        for i in ra.clone() {
            let s = &mut self.slots[a[i] as usize];
            s.in_a = s.in_a.saturating_add(1);
        }
        for j in rb.clone() {
            let s = &mut self.slots[b[j] as usize];
            s.in_b = s.in_b.saturating_add(1);
            s.at_b = j;
        }
        let unique: Vec<(usize, usize)> = ra
            .clone()
            .filter_map(|i| {
                let s = self.slots[a[i] as usize];
                (s.in_a == 1 && s.in_b == 1).then_some((i, s.at_b))
            })
            .collect();
        for &id in a[ra.clone()].iter().chain(&b[rb.clone()]) {
            self.slots[id as usize] = Slot::default();
        }
        longest_increasing(&unique)
    }
}

/// The longest subsequence of `pairs` (increasing in `.0`) whose `.1` increases too:
/// patience sorting, O(k log k).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tops[k]: index in `pairs` of the smallest tail of an increasing run of length k + 1.
    let mut tops: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (n, &(_, j)) in pairs.iter().enumerate() {
        let k = tops.partition_point(|&t| pairs[t].1 < j);
        back[n] = k.checked_sub(1).map(|p| tops[p]);
        if k == tops.len() {
            tops.push(n);
        } else {
            tops[k] = n;
        }
    }
    let mut run = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(n) = at {
        run.push(pairs[n]);
        at = back[n];
    }
    run.reverse();
    run
}

/// A region given up on: all of it removed, all of it added.
fn coarse<D: DiffHook<Error = Infallible>>(d: &mut D, ra: &Range<usize>, rb: &Range<usize>) {
    if !ra.is_empty() {
        d.delete(ra.start, ra.len(), rb.start)
            .expect("capturing cannot fail");
    }
    if !rb.is_empty() {
        d.insert(ra.end, rb.start, rb.len())
            .expect("capturing cannot fail");
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    fn counts(old: &str, new: &str) -> (usize, usize) {
        let c = count_lines(old.as_bytes(), new.as_bytes(), later());
        (c.added, c.removed)
    }

    /// Apply `ops` to `old`, taking inserted lines from `new`: must give `new` back.
    fn replay<'x>(ops: &[DiffOp], old: &[&'x str], new: &[&'x str]) -> Vec<&'x str> {
        let mut out = Vec::new();
        let (mut at_old, mut at_new) = (0, 0);
        for op in ops {
            assert_eq!(
                op.old_range().start,
                at_old,
                "ops cover the old side in order"
            );
            assert_eq!(
                op.new_range().start,
                at_new,
                "ops cover the new side in order"
            );
            if let DiffOp::Equal { .. } = op {
                assert_eq!(&old[op.old_range()], &new[op.new_range()]);
            }
            out.extend(&new[op.new_range()]);
            (at_old, at_new) = (op.old_range().end, op.new_range().end);
        }
        assert_eq!(
            (at_old, at_new),
            (old.len(), new.len()),
            "ops cover both sides"
        );
        out
    }

    #[test]
    fn counts_follow_the_lines_that_differ() {
        assert_eq!(counts("a\nb\nc\n", "a\nB\nc\nd\n"), (2, 1));
        assert_eq!(counts("", "x\ny\n"), (2, 0));
        assert_eq!(counts("x\n", ""), (0, 1));
        assert_eq!(counts("same\n", "same\n"), (0, 0));
        assert_eq!(
            counts("a\nb", "a\nb\n"),
            (1, 1),
            "a missing newline is a change"
        );
        assert_eq!(
            counts("x", ""),
            (0, 1),
            "a last line without newline counts"
        );
    }

    #[test]
    fn binary_content_counts_no_lines() {
        let binary: &[u8] = b"\xff\xfe\n";
        assert_eq!(text_lines(Some(binary)), None);
        assert_eq!(text_lines(None), Some(0));
        assert_eq!(text_lines(Some(b"a\nb")), Some(2));
        let c = |old, new| count_change(old, new, later());
        assert_eq!(c(None, Some(binary)), LineCounts::default());
        assert_eq!(c(Some(b"a\n"), Some(binary)), LineCounts::default());
        assert_eq!(c(None, Some(b"a\nb\n")), LineCounts::new(2, 0));
        assert_eq!(c(Some(b"a\nb\n"), None), LineCounts::new(0, 2));
    }

    #[test]
    fn lines_split_after_each_newline() {
        assert_eq!(split_lines(b"a\nb"), [&b"a\n"[..], b"b"]);
        assert_eq!(split_lines(b"a\n\n"), [&b"a\n"[..], b"\n"]);
        assert!(split_lines(b"").is_empty());
        for text in ["", "a", "a\n", "a\nb", "\n\n\n"] {
            assert_eq!(
                line_count(text.as_bytes()),
                split_lines(text.as_bytes()).len()
            );
        }
    }

    /// The patience split, whatever the size.
    fn split(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
        diff_with(old, new, later(), 0)
    }

    #[test]
    fn repeated_lines_without_anchors_still_diff_minimally() {
        // Nothing here is unique to both sides: the gap goes to Myers.
        let old = ["}", "", "}", "", "}"];
        let new = ["}", "", "", "}", "", "}", "}"];
        let ops = split(&old, &new);
        assert_eq!(replay(&ops, &old, &new), new);
        assert_eq!(LineCounts::of_ops(&ops), LineCounts::new(2, 0));
    }

    #[test]
    fn moved_blocks_are_one_removal_and_one_addition() {
        let old = ["a", "b", "c", "d", "e"];
        let new = ["d", "e", "a", "b", "c"];
        let ops = split(&old, &new);
        assert_eq!(replay(&ops, &old, &new), new);
        assert_eq!(LineCounts::of_ops(&ops), LineCounts::new(2, 2));
    }

    #[test]
    fn past_the_deadline_the_open_middle_is_removed_and_added() {
        let old: Vec<String> = (0..1000).map(|i| format!("line {i}")).collect();
        let mut new = old.clone();
        new[10] = "changed".into();
        new[990] = "changed too".into();
        let ops = diff(&old, &new, Instant::now() - Duration::from_secs(1));
        let c = LineCounts::of_ops(&ops);
        assert_eq!(
            c,
            LineCounts::new(981, 981),
            "prefix and suffix still trimmed"
        );
        let (old_ref, new_ref): (Vec<&str>, Vec<&str>) = (
            old.iter().map(String::as_str).collect(),
            new.iter().map(String::as_str).collect(),
        );
        assert_eq!(replay(&ops, &old_ref, &new_ref), new_ref);
    }

    #[test]
    fn scattered_edits_in_a_large_file_diff_fast_and_exactly() {
        let line = |i: usize| match i {
            _ if i % 10 == 0 => String::new(),
            _ if i % 25 == 0 => "}".to_string(),
            _ => format!("    let value_{i} = compute(input);"),
        };
        let old: Vec<String> = (1..=200_000).map(line).collect();
        let mut new = old.clone();
        for k in (4..new.len()).step_by(10) {
            new[k].push_str(" // changed");
        }
        let started = Instant::now();
        let ops = diff(&old, &new, later());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "linear-ish, not minutes"
        );
        assert_eq!(LineCounts::of_ops(&ops), LineCounts::new(20_000, 20_000));
    }

    #[test]
    fn the_script_rebuilds_the_new_side() {
        let cases: [(&[&str], &[&str]); 6] = [
            (&["a", "b", "c"], &["a", "x", "c", "b"]),
            (&[], &["a"]),
            (&["a"], &[]),
            (&["x", "a", "x", "b", "x"], &["b", "x", "a", "x"]),
            (&["a", "a", "a"], &["a", "b", "a"]),
            (
                &["1", "2", "3", "4", "5", "6"],
                &["6", "5", "4", "3", "2", "1"],
            ),
        ];
        for (old, new) in cases {
            for ops in [diff(old, new, later()), split(old, new)] {
                assert_eq!(replay(&ops, old, new), new, "{old:?} -> {new:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_script_is_valid_and_never_beats_a_minimal_diff(
            old in proptest::collection::vec("[a-e]", 0..40),
            new in proptest::collection::vec("[a-e]", 0..40),
        ) {
            let (old, new): (Vec<&str>, Vec<&str>) = (
                old.iter().map(String::as_str).collect(),
                new.iter().map(String::as_str).collect(),
            );
            let minimal = LineCounts::of_ops(&similar::capture_diff_slices(
                similar::Algorithm::Myers,
                &old,
                &new,
            ));
            let small = diff(&old, &new, later());
            proptest::prop_assert_eq!(replay(&small, &old, &new), new.clone());
            proptest::prop_assert_eq!(LineCounts::of_ops(&small), minimal, "Myers below the limit");
            let large = split(&old, &new);
            proptest::prop_assert_eq!(replay(&large, &old, &new), new.clone());
            let c = LineCounts::of_ops(&large);
            proptest::prop_assert!(c.added >= minimal.added && c.removed >= minimal.removed);
            proptest::prop_assert_eq!(c.added - minimal.added, c.removed - minimal.removed);
        }
    }

    #[test]
    fn longest_increasing_keeps_the_order_of_both_sides() {
        let pairs = [(0, 3), (1, 0), (2, 1), (3, 4), (4, 2), (5, 5)];
        assert_eq!(longest_increasing(&pairs), [(1, 0), (2, 1), (4, 2), (5, 5)]);
        assert!(longest_increasing(&[]).is_empty());
    }
}

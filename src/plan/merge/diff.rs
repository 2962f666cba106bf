//! The line diff under the three-way merge: Myers' O(ND) search plus git's hunk placement.
//!
//! Lines arrive already interned as `u32` ids, so comparing two lines is one integer compare.
//! The result is a list of [`Hunk`]s, the places where `a` and `b` differ.
//!
//! Where several diffs are equally short, the one chosen is the one git's default diff
//! (which `git merge-file` uses) chooses, so that merges match git's byte for byte:
//!
//! - the common prefix and suffix are matched first;
//! - a line that occurs nowhere in the other text is marked changed before the search,
//!   and so is a frequent line stranded among such lines (see [`searched`]);
//! - the search cuts each range where its forward and backward halves first meet, trying
//!   diagonals from the highest (see [`Search`]);
//! - every run of changed lines is finally slid to where git shows it (see [`slide`]).
//!
//! The diff is minimal apart from the stranded frequent lines, up to a cost limit: past a
//! few hundred edits in one stretch it cuts heuristically, which keeps pathological inputs
//! (long texts sharing lines in scrambled order) near-linear. git cuts such stretches by
//! heuristics of its own, so there the two can differ.

use std::collections::HashMap;
use std::ops::Range;

/// One place where the texts differ: lines `a` of the old text became lines `b` of the new.
/// Either range may be empty (a pure insertion or deletion); both are never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub a: Range<usize>,
    pub b: Range<usize>,
}

/// The differences between `a` and `b`, in order, with git's placement of ambiguous hunks.
pub(crate) fn diff(a: &[u32], b: &[u32]) -> Vec<Hunk> {
    let (mut changed_a, mut changed_b) = changed_lines(a, b);
    // Slide `a`'s runs against `b`'s, then `b`'s against the result: the same order git
    // uses, which matters when both sides have runs that could line up.
    slide(a, &mut changed_a, &gaps(&changed_b));
    slide(b, &mut changed_b, &gaps(&changed_a));
    hunks(&changed_a, &changed_b)
}

/// Marks the lines of `a` and `b` outside one common subsequence, minimal unless the cost
/// limit was hit or a frequent line was set aside (see [`searched`]).
fn changed_lines(a: &[u32], b: &[u32]) -> (Vec<bool>, Vec<bool>) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let a_mid = prefix..a.len() - suffix;
    let b_mid = prefix..b.len() - suffix;

    // Occurrences are counted over the whole texts, as git does, so a line that also sits
    // in the other side's common prefix counts there. A map rather than a table indexed by
    // id: conflicts are re-diffed piece by piece, and each piece must cost its own size,
    // not the number of distinct lines in the files.
    let mut counts: HashMap<u32, [usize; 2]> = HashMap::with_capacity(a.len() + b.len());
    for &id in a {
        counts.entry(id).or_default()[0] += 1;
    }
    for &id in b {
        counts.entry(id).or_default()[1] += 1;
    }
    let in_a = |id: u32| counts.get(&id).map_or(0, |c| c[0]);
    let in_b = |id: u32| counts.get(&id).map_or(0, |c| c[1]);

    // Lines set aside are changed; `kept_*` map the searched lines back to text indices.
    let mut changed_a = vec![false; a.len()];
    let mut changed_b = vec![false; b.len()];
    let kept_a = searched(a, a_mid, in_b, &mut changed_a);
    let kept_b = searched(b, b_mid, in_a, &mut changed_b);

    let seq_a: Vec<u32> = kept_a.iter().map(|&i| a[i]).collect();
    let seq_b: Vec<u32> = kept_b.iter().map(|&j| b[j]).collect();
    let mut search = Search::new(&seq_a, &seq_b);
    search.compare(0..seq_a.len(), 0..seq_b.len());
    for (k, &i) in kept_a.iter().enumerate() {
        changed_a[i] = search.changed_a[k];
    }
    for (k, &j) in kept_b.iter().enumerate() {
        changed_b[j] = search.changed_b[k];
    }
    (changed_a, changed_b)
}

/// How often a line of one text occurs in the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Occurs {
    Nowhere,
    Sometimes,
    /// At least about the square root of the line's own text length: blank lines, lone
    /// braces, `else`.
    Often,
}

/// The lines of `text[middle]` worth handing to the search; the others are marked changed.
///
/// A line that occurs nowhere in the other text cannot match, so it is set aside (this is
/// what keeps a big rewrite cheap). A line that occurs often there (a blank line, a `}`)
/// is set aside too when it sits in a stretch made mostly of lines that occur nowhere:
/// inside a rewritten block, matching it would only pin the block to some unrelated
/// blank line and cut the change in pieces. git's diff does both, with these thresholds.
fn searched(
    text: &[u32],
    middle: Range<usize>,
    count_in_other: impl Fn(u32) -> usize,
    changed: &mut [bool],
) -> Vec<usize> {
    // A power of two close to the square root, capped, as git computes its limit.
    let mut often = 1usize;
    let mut rest = text.len();
    while rest > 0 {
        often <<= 1;
        rest >>= 2;
    }
    let often = often.min(1024);
    let occurs: Vec<Occurs> = text[middle.clone()]
        .iter()
        .map(|&id| match count_in_other(id) {
            0 => Occurs::Nowhere,
            n if n >= often => Occurs::Often,
            _ => Occurs::Sometimes,
        })
        .collect();

    let mut kept = Vec::with_capacity(middle.len());
    for (i, &o) in occurs.iter().enumerate() {
        let keep = match o {
            Occurs::Nowhere => false,
            Occurs::Sometimes => true,
            Occurs::Often => !among_unmatched(&occurs, i),
        };
        if keep {
            kept.push(middle.start + i);
        } else {
            changed[middle.start + i] = true;
        }
    }
    kept
}

/// Whether the frequent line `occurs[i]` is surrounded, on both sides, by a stretch (up to
/// the nearest ordinary line, at most 100 lines away) where lines that occur nowhere
/// outnumber frequent ones more than three to one. The line itself is counted as frequent
/// once for each side, as git counts it.
fn among_unmatched(occurs: &[Occurs], i: usize) -> bool {
    const WINDOW: usize = 100;
    let tally = |stretch: &mut dyn Iterator<Item = &Occurs>| {
        let (mut nowhere, mut often) = (0usize, 1usize);
        for o in stretch {
            match o {
                Occurs::Nowhere => nowhere += 1,
                Occurs::Often => often += 1,
                Occurs::Sometimes => break,
            }
        }
        (nowhere, often)
    };
    let (nowhere_before, often_before) =
        tally(&mut occurs[i.saturating_sub(WINDOW)..i].iter().rev());
    if nowhere_before == 0 {
        return false;
    }
    let (nowhere_after, often_after) =
        tally(&mut occurs[i + 1..occurs.len().min(i + 1 + WINDOW)].iter());
    if nowhere_after == 0 {
        return false;
    }
    3 * (often_before + often_after) < nowhere_before + nowhere_after
}

/// Myers' linear-space search over two sequences of ids.
///
/// Which of several equally short diffs comes out depends on small choices (the order in
/// which diagonals are tried, where a range is cut); they are made the way git's diff
/// makes them, since merges are expected to match `git merge-file`.
struct Search<'s> {
    a: &'s [u32],
    b: &'s [u32],
    changed_a: Vec<bool>,
    changed_b: Vec<bool>,
    /// Furthest x reached on forward diagonal `k` (x - y = k), stored at `center + k`.
    fwd: Vec<isize>,
    /// Smallest x reached on backward diagonal `delta + j`, stored at `center + j`.
    bwd: Vec<isize>,
    center: isize,
    /// Edit cost after which a search stops looking for the optimum and cuts heuristically.
    max_cost: isize,
}

impl<'s> Search<'s> {
    fn new(a: &'s [u32], b: &'s [u32]) -> Self {
        // Below a few hundred edits the diff is always minimal; on big inputs the limit grows
        // with the square root of their size, which keeps the work near-linear.
        let size = a.len() + b.len();
        let max_cost = (size.isqrt()).max(256).min(size / 2 + 2);
        let max_cost = isize::try_from(max_cost).expect("line counts fit in isize");
        // Both diagonal arrays are indexed relative to their own centre, so they need room
        // for the cost limit only, not for the length of the texts.
        let width = usize::try_from(2 * max_cost + 5).expect("a positive array width");
        Search {
            a,
            b,
            changed_a: vec![false; a.len()],
            changed_b: vec![false; b.len()],
            fwd: vec![0; width],
            bwd: vec![0; width],
            center: max_cost + 2,
            max_cost,
        }
    }

    /// Diffs `a[xs]` against `b[ys]`, recording the changed lines.
    fn compare(&mut self, mut xs: Range<usize>, mut ys: Range<usize>) {
        // The part after a cut is handled by this loop rather than by recursion, so the
        // depth stays small even when the cost limit cuts a long text into many pieces.
        loop {
            while xs.start < xs.end && ys.start < ys.end && self.a[xs.start] == self.b[ys.start] {
                xs.start += 1;
                ys.start += 1;
            }
            while xs.start < xs.end && ys.start < ys.end && self.a[xs.end - 1] == self.b[ys.end - 1]
            {
                xs.end -= 1;
                ys.end -= 1;
            }
            if xs.is_empty() || ys.is_empty() {
                // With the common ends gone, a cost-one difference always lands here too,
                // so `cut` only ever sees costs of two and more.
                self.changed_a[xs].fill(true);
                self.changed_b[ys].fill(true);
                return;
            }
            match self.cut(xs.clone(), ys.clone()) {
                Some((x, y)) => {
                    self.compare(xs.start..x, ys.start..y);
                    xs.start = x;
                    ys.start = y;
                }
                None => {
                    self.changed_a[xs].fill(true);
                    self.changed_b[ys].fill(true);
                    return;
                }
            }
        }
    }

    /// A point `(x, y)` of the range, strictly between its corners, that an optimal path
    /// goes through: where the forward search from the top-left corner and the backward
    /// search from the bottom-right corner first meet. `None` only when no cut that makes
    /// progress exists (then the whole range is marked changed).
    fn cut(&mut self, xs: Range<usize>, ys: Range<usize>) -> Option<(usize, usize)> {
        let (a, b) = (&self.a[xs.clone()], &self.b[ys.clone()]);
        let n = to_isize(a.len());
        let m = to_isize(b.len());
        let delta = n - m;
        let odd = delta % 2 != 0;
        let c = self.center;
        let at = |k: isize| usize::try_from(c + k).expect("diagonal within the array");
        let absolute = |x: isize, y: isize| (xs.start + to_usize(x), ys.start + to_usize(y));
        // Diagonals outside the box (-m..=n) hold no point of the grid; they are skipped,
        // and a move is only taken from a diagonal the previous step computed.
        let in_box = |k: isize| -m <= k && k <= n;
        self.fwd[at(0)] = 0;
        self.bwd[at(0)] = n;

        let max_d = (n + m + 1) / 2 + 1;
        for d in 1..=max_d {
            if d > self.max_cost {
                return self.heuristic_cut(n, m, d - 1).map(|(x, y)| absolute(x, y));
            }
            // Forward: the furthest x on each diagonal after d edits, highest diagonal first.
            for k in (-d..=d).rev().step_by(2).filter(|&k| in_box(k)) {
                let down_ok = k < d && in_box(k + 1);
                let right_ok = k > -d && in_box(k - 1);
                let x = if down_ok && (!right_ok || self.fwd[at(k - 1)] < self.fwd[at(k + 1)]) {
                    self.fwd[at(k + 1)]
                } else {
                    self.fwd[at(k - 1)] + 1
                };
                let (mut x, mut y) = (x, x - k);
                while x < n && y < m && a[to_usize(x)] == b[to_usize(y)] {
                    x += 1;
                    y += 1;
                }
                self.fwd[at(k)] = x;
                // An odd total cost is found here, meeting a backward path of the previous
                // step on the same diagonal; the cut is where this forward snake ends.
                if odd && (k - delta).abs() < d && x <= n && y <= m && self.bwd[at(k - delta)] <= x
                {
                    return Some(absolute(x, y));
                }
            }
            // Backward: the smallest x on each diagonal after d edits from the far corner.
            for j in (-d..=d).rev().step_by(2).filter(|&j| in_box(delta + j)) {
                let k = delta + j;
                let up_ok = j > -d && in_box(k - 1);
                let left_ok = j < d && in_box(k + 1);
                let x = if up_ok && (!left_ok || self.bwd[at(j - 1)] < self.bwd[at(j + 1)]) {
                    self.bwd[at(j - 1)]
                } else {
                    self.bwd[at(j + 1)] - 1
                };
                let (mut x, mut y) = (x, x - k);
                while x > 0 && y > 0 && a[to_usize(x - 1)] == b[to_usize(y - 1)] {
                    x -= 1;
                    y -= 1;
                }
                self.bwd[at(j)] = x;
                if !odd && k.abs() <= d && x >= 0 && y >= 0 && self.fwd[at(k)] >= x {
                    return Some(absolute(x, y));
                }
            }
        }
        // The two searches always meet by `max_d`; reaching this means a bug, and marking
        // the range changed is still a correct (if poor) diff.
        debug_assert!(false, "forward and backward searches never met");
        None
    }

    /// Past the cost limit: cut at the point either search has pushed furthest from its
    /// corner, so both parts are strictly smaller than the range.
    fn heuristic_cut(&self, n: isize, m: isize, d: isize) -> Option<(isize, isize)> {
        let c = self.center;
        let at = |k: isize| usize::try_from(c + k).expect("diagonal within the array");
        let delta = n - m;
        let inside = |x: isize, y: isize| {
            (0..=n).contains(&x) && (0..=m).contains(&y) && x + y > 0 && x + y < n + m
        };
        let mut best: Option<(isize, isize, isize)> = None;
        for k in (-d..=d).step_by(2).filter(|&k| -m <= k && k <= n) {
            let x = self.fwd[at(k)];
            let y = x - k;
            if inside(x, y) && best.is_none_or(|(_, _, p)| x + y > p) {
                best = Some((x, y, x + y));
            }
        }
        for j in (-d..=d)
            .step_by(2)
            .filter(|&j| -m <= delta + j && delta + j <= n)
        {
            let x = self.bwd[at(j)];
            let y = x - (delta + j);
            let progress = n + m - x - y;
            if inside(x, y) && best.is_none_or(|(_, _, p)| progress > p) {
                best = Some((x, y, progress));
            }
        }
        best.map(|(x, y, _)| (x, y))
    }
}

fn to_isize(n: usize) -> isize {
    isize::try_from(n).expect("line counts fit in isize")
}

fn to_usize(n: isize) -> usize {
    usize::try_from(n).expect("a position inside the grid is not negative")
}

/// For each unchanged line of a text, how many changed lines come right before it; the
/// last entry counts the changed lines after the final unchanged one.
fn gaps(changed: &[bool]) -> Vec<usize> {
    let mut gaps = Vec::with_capacity(changed.len() / 2 + 1);
    let mut run = 0;
    for &c in changed {
        if c {
            run += 1;
        } else {
            gaps.push(run);
            run = 0;
        }
    }
    gaps.push(run);
    gaps
}

/// Moves each run of changed lines of `text` to the place git shows it.
///
/// A run `text[s..e]` can move down one line when `text[s] == text[e]` (and up when
/// `text[s-1] == text[e-1]`) without changing the diff's meaning; runs that meet while
/// moving join. Of all reachable places git takes the lowest one where the run sits
/// opposite a change of the other text (so the two read as one replacement), and failing
/// that the lowest one overall. `other_gaps` is [`gaps`] of the other text: both texts
/// have the same number of unchanged lines, so a run after the `g`-th unchanged line faces
/// `other_gaps[g]` changed lines there.
fn slide(text: &[u32], changed: &mut [bool], other_gaps: &[usize]) {
    let n = text.len();
    // `g` counts the unchanged lines before position `i`, i.e. which gap we are in.
    let mut g = 0;
    let mut i = 0;
    while i < n {
        if !changed[i] {
            g += 1;
            i += 1;
            continue;
        }
        let mut start = i;
        let mut end = i;
        while end < n && changed[end] {
            end += 1;
        }
        let mut highest_end;
        let mut facing_change;
        loop {
            let size = end - start;
            while start > 0 && text[start - 1] == text[end - 1] {
                start -= 1;
                end -= 1;
                changed[start] = true;
                changed[end] = false;
                g -= 1;
                while start > 0 && changed[start - 1] {
                    start -= 1;
                }
            }
            highest_end = end;
            facing_change = (other_gaps[g] > 0).then_some(end);
            while end < n && text[start] == text[end] {
                changed[start] = false;
                changed[end] = true;
                start += 1;
                end += 1;
                g += 1;
                while end < n && changed[end] {
                    end += 1;
                }
                if other_gaps[g] > 0 {
                    facing_change = Some(end);
                }
            }
            // Joining a neighbour grows the run, which may open new moves: go again until
            // a full pass leaves its size alone.
            if end - start == size {
                break;
            }
        }
        if end != highest_end {
            if let Some(target) = facing_change {
                while end > target {
                    start -= 1;
                    end -= 1;
                    changed[start] = true;
                    changed[end] = false;
                    g -= 1;
                }
            }
        }
        i = end;
    }
}

/// Pairs up the changed runs of the two texts into hunks.
fn hunks(changed_a: &[bool], changed_b: &[bool]) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < changed_a.len() || j < changed_b.len() {
        let (i0, j0) = (i, j);
        while i < changed_a.len() && changed_a[i] {
            i += 1;
        }
        while j < changed_b.len() && changed_b[j] {
            j += 1;
        }
        if i > i0 || j > j0 {
            hunks.push(Hunk { a: i0..i, b: j0..j });
        }
        // Both sides are now at an unchanged line (or their end); those pair up.
        if i < changed_a.len() && j < changed_b.len() {
            i += 1;
            j += 1;
        } else {
            debug_assert!(
                i == changed_a.len() && j == changed_b.len(),
                "unchanged lines pair up"
            );
            break;
        }
    }
    hunks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Length of a longest common subsequence, by the quadratic table: the reference the
    /// Myers search must meet (below the cost limit its diffs are minimal).
    fn lcs_len(a: &[u32], b: &[u32]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for &x in a {
            let mut diag = 0;
            for (j, &y) in b.iter().enumerate() {
                let up = row[j + 1];
                row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
                diag = up;
            }
        }
        row[b.len()]
    }

    /// Checks that `hunks` turn `a` into `b` and returns how many lines they leave alone.
    fn apply_and_count_kept(a: &[u32], b: &[u32], hunks: &[Hunk]) -> usize {
        let mut rebuilt = Vec::new();
        let mut at = 0;
        let mut kept = 0;
        for h in hunks {
            assert!(h.a.start >= at, "hunks are ordered and disjoint");
            kept += h.a.start - at;
            rebuilt.extend_from_slice(&a[at..h.a.start]);
            rebuilt.extend_from_slice(&b[h.b.clone()]);
            at = h.a.end;
        }
        kept += a.len() - at;
        rebuilt.extend_from_slice(&a[at..]);
        assert_eq!(rebuilt, b, "the hunks rebuild the new text");
        kept
    }

    fn ids(s: &str) -> Vec<u32> {
        s.bytes().map(u32::from).collect()
    }

    #[test]
    fn equal_texts_have_no_hunks() {
        assert!(diff(&ids("abc"), &ids("abc")).is_empty());
        assert!(diff(&[], &[]).is_empty());
    }

    #[test]
    fn one_side_empty_is_one_hunk() {
        assert_eq!(diff(&[], &ids("ab")), vec![Hunk { a: 0..0, b: 0..2 }]);
        assert_eq!(diff(&ids("ab"), &[]), vec![Hunk { a: 0..2, b: 0..0 }]);
    }

    #[test]
    fn an_inserted_repeat_is_shown_lowest() {
        // "ab" + "ab": the new pair could be the first or the second; git shows the last.
        assert_eq!(
            diff(&ids("xaby"), &ids("xababy")),
            vec![Hunk { a: 3..3, b: 3..5 }]
        );
    }

    #[test]
    fn a_run_that_can_face_a_change_is_kept_there() {
        // Deleting one of two `a` lines next to a replaced line: git pairs the deletion
        // with the replacement rather than sliding it to the bottom.
        let h = diff(&ids("qaab"), &ids("Xab"));
        assert_eq!(h, vec![Hunk { a: 0..2, b: 0..1 }]);
    }

    #[test]
    fn a_blank_line_inside_a_rewritten_block_is_not_matched() {
        // 0 is a blank line, frequent in the new text; everything else differs. With more
        // than three unmatched lines per frequent one around it, the blank line is not
        // used to cut the rewrite in two (`git diff` shows one hunk as well).
        let old = [1, 2, 3, 4, 0, 5, 6, 7, 8];
        let new = [9, 0, 10, 0, 11, 0, 12, 0];
        assert_eq!(diff(&old, &new), vec![Hunk { a: 0..9, b: 0..8 }]);
        // With fewer unmatched lines around it, it is matched as usual.
        let old = [1, 2, 3, 0, 5, 6, 7];
        assert_eq!(
            diff(&old, &new),
            vec![Hunk { a: 0..3, b: 0..7 }, Hunk { a: 4..7, b: 8..8 }]
        );
    }

    #[test]
    fn diffs_are_correct_and_minimal_on_random_small_texts() {
        // A fixed xorshift stream: the same cases every run.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let mut checked_minimal = 0;
        for _ in 0..3000 {
            let alphabet = 2 + next(5);
            let a: Vec<u32> = (0..next(14)).map(|_| next(alphabet) as u32).collect();
            let b: Vec<u32> = (0..next(14)).map(|_| next(alphabet) as u32).collect();
            let hunks = diff(&a, &b);
            let kept = apply_and_count_kept(&a, &b, &hunks);
            // Setting frequent lines aside among unmatched ones gives up minimality on
            // purpose; without unmatched lines nothing is set aside.
            if a.iter().all(|x| b.contains(x)) && b.iter().all(|y| a.contains(y)) {
                assert_eq!(kept, lcs_len(&a, &b), "minimal diff for {a:?} -> {b:?}");
                checked_minimal += 1;
            }
            for pair in hunks.windows(2) {
                assert!(pair[0].a.end < pair[1].a.start, "hunks are separated");
            }
        }
        assert!(
            checked_minimal > 500,
            "only {checked_minimal} minimality checks"
        );
    }

    #[test]
    fn scrambled_big_texts_finish_quickly_with_a_correct_diff() {
        // Every line of one text occurs in the other, in a different order: the worst case
        // for the search, where the cost limit must cut.
        let n = 20_000u32;
        let a: Vec<u32> = (0..n).collect();
        let b: Vec<u32> = (0..n).map(|i| (i * 7919) % n).collect();
        let hunks = diff(&a, &b);
        apply_and_count_kept(&a, &b, &hunks);
    }
}

//! Line diffs that stay linear on the changes patches make.
//!
//! A whole-file Myers diff costs the file's length times the number of differing lines, which
//! is minutes for a big file with many hunks, and a block of lines replaced wholesale costs
//! its length squared. Both go away before Myers runs: the common prefix and suffix are cut,
//! and, inside what is left, a line that does not occur at all on the other side cannot be part
//! of any match, so it is set aside as removed or added (git's xdiff does the same). What
//! Myers then sees is only the lines both sides share, which for a patch's edits is the
//! unchanged text between hunks, matched in one pass. A deadline bounds what remains of the
//! worst case (many lines that occur on both sides but in another order): the diff stays
//! correct, only less minimal.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

/// How long the matching part of one diff may take before it settles for a coarser result.
pub const TIMEOUT: Duration = Duration::from_millis(500);

/// The part of two files a diff needs to read: everything but their common leading and
/// trailing whole lines, with up to `margin` of those kept on each side (a diff's context).
/// Found on bytes, so a one-line change to a gigabyte file splits a few lines, not all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window<'a> {
    /// The old file's part.
    pub old: &'a [u8],
    /// The new file's part.
    pub new: &'a [u8],
    /// Lines before the window (the same number in both files).
    pub line: usize,
}

/// The window of `old` and `new` with `margin` common lines kept on each side.
pub fn window<'a>(old: &'a [u8], new: &'a [u8], margin: usize) -> Window<'a> {
    // One piece: the window is found one way, whether the new file is in pieces or not.
    let w = window_of_pieces(old, &Pieces::new([new]), margin);
    let start = w
        .new
        .chunks
        .first()
        .map_or(new.len(), |c| c.as_ptr() as usize - new.as_ptr() as usize);
    Window {
        old: w.old,
        new: &new[start..start + w.new.len()],
        line: w.line,
    }
}

/// [`Window`] of a file and pieces of another (a spliced file's chunks, read in place).
#[derive(Debug, Clone)]
pub struct PiecesWindow<'a> {
    /// The old file's part.
    pub old: &'a [u8],
    /// The new file's part.
    pub new: Pieces<'a>,
    /// Lines before the window (the same number in both files).
    pub line: usize,
}

/// The window of `old` and `new` with `margin` common lines kept on each side ([`window`]),
/// the new file read in its pieces: where they are runs of `old`'s own bytes, what they share
/// with it is known without comparing.
pub fn window_of_pieces<'a>(old: &'a [u8], new: &Pieces<'a>, margin: usize) -> PiecesWindow<'a> {
    // Whole lines in common at the start, then `margin` of them given back.
    let same = new.common_prefix(old);
    let mut start = memchr::memrchr(b'\n', &old[..same]).map_or(0, |i| i + 1);
    let whole = start;
    for _ in 0..margin {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &old[..start - 1]).map_or(0, |i| i + 1);
    }
    // Whole lines in common at the end, not reaching into the common start.
    let room = old.len().min(new.len()) - whole;
    let tail = new.common_suffix(&old[whole..], whole).min(room);
    let mut cut = old.len() - tail;
    let new_cut = new.len() - tail;
    let mid_line = |at: usize, byte: &dyn Fn(usize) -> u8| at > whole && byte(at - 1) != b'\n';
    if mid_line(cut, &|i| old[i]) || mid_line(new_cut, &|i| new.byte(i)) {
        // Inside a line of either file: the rest of that line is not a whole common line.
        cut = memchr::memchr(b'\n', &old[cut..]).map_or(old.len(), |i| cut + i + 1);
    }
    for _ in 0..margin {
        if cut == old.len() {
            break;
        }
        cut = memchr::memchr(b'\n', &old[cut..]).map_or(old.len(), |i| cut + i + 1);
    }
    let kept = old.len() - cut;
    PiecesWindow {
        old: &old[start..cut],
        new: new.range(start..new.len() - kept),
        line: memchr::memchr_iter(b'\n', &old[..start]).count(),
    }
}

/// Bytes in pieces, read where they lie: each piece but the last ends with a newline (as a
/// spliced file's chunks do), so that no line straddles two.
#[derive(Debug, Clone, Default)]
pub struct Pieces<'a> {
    chunks: Vec<&'a [u8]>,
    /// Where each chunk ends, in bytes from the start.
    ends: Vec<usize>,
    /// How many lines, once counted.
    lines: std::cell::OnceCell<usize>,
}

impl<'a> Pieces<'a> {
    /// `chunks` in order (empty ones are left out).
    pub fn new(chunks: impl IntoIterator<Item = &'a [u8]>) -> Pieces<'a> {
        let chunks: Vec<&'a [u8]> = chunks.into_iter().filter(|c| !c.is_empty()).collect();
        debug_assert!(
            chunks.iter().rev().skip(1).all(|c| c.ends_with(b"\n")),
            "a line straddles two pieces"
        );
        let mut at = 0;
        let ends = chunks
            .iter()
            .map(|c| {
                at += c.len();
                at
            })
            .collect();
        Pieces {
            chunks,
            ends,
            lines: Default::default(),
        }
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The pieces, in order, none empty.
    pub fn chunks(&self) -> &[&'a [u8]] {
        &self.chunks
    }

    /// How many lines they hold (a last one without its newline counts).
    pub fn count_lines(&self) -> usize {
        *self
            .lines
            .get_or_init(|| self.chunks.iter().map(|c| count_lines(c)).sum())
    }

    /// The byte at `at` (less than the length).
    fn byte(&self, at: usize) -> u8 {
        let k = self.ends.partition_point(|&e| e <= at);
        self.chunks[k][at - (self.ends[k] - self.chunks[k].len())]
    }

    /// The bytes in `range`, still in their pieces. A range that starts or ends inside a
    /// line breaks the rule that pieces end with a newline: ranges here are whole lines.
    fn range(&self, range: Range<usize>) -> Pieces<'a> {
        let mut out = Vec::new();
        for (c, &end) in self.chunks.iter().zip(&self.ends) {
            let start = end - c.len();
            if end <= range.start {
                continue;
            }
            if start >= range.end {
                break;
            }
            out.push(&c[range.start.max(start) - start..range.end.min(end) - start]);
        }
        Pieces::new(out)
    }

    /// Bytes in common with `old` at the start. A piece that is `old`'s own bytes at the same
    /// place (a run of the file it was spliced from) is taken whole without comparing.
    pub fn common_prefix(&self, old: &[u8]) -> usize {
        let mut at = 0;
        for c in &self.chunks {
            let o = &old[at.min(old.len())..];
            let n = if c.as_ptr() == o.as_ptr() {
                c.len().min(o.len())
            } else {
                common_prefix(o, c)
            };
            at += n;
            if n < c.len() {
                break;
            }
        }
        at
    }

    /// Bytes in common with `old` at the end, as [`Pieces::common_prefix`] finds them, not
    /// reaching below byte `floor` of the pieces.
    fn common_suffix(&self, old: &[u8], floor: usize) -> usize {
        let mut n = 0;
        for (&c, &end) in self.chunks.iter().zip(&self.ends).rev() {
            let c = &c[floor.saturating_sub(end - c.len()).min(c.len())..];
            let o = &old[..old.len() - n.min(old.len())];
            let same = if c.as_ptr_range().end == o.as_ptr_range().end {
                c.len().min(o.len())
            } else {
                common_suffix(o, c)
            };
            n += same;
            if same < c.len() || end - c.len() <= floor {
                break;
            }
        }
        n
    }
}

/// Bytes in common at the start: compared a page at a time, then byte by byte.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Bytes in common at the end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 4096;
    let n = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[ea - i - CHUNK..ea - i] == b[eb - i - CHUNK..eb - i] {
        i += CHUNK;
    }
    while i < n && a[ea - i - 1] == b[eb - i - 1] {
        i += 1;
    }
    i
}

/// `bytes` as lines, each with its terminator (the last one may have none).
pub fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    first_lines(bytes, usize::MAX)
}

/// The first `n` lines of `bytes` (all of them when it has fewer).
pub fn first_lines(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    line_iter(bytes).take(n).collect()
}

/// How many lines `bytes` has (a last one without its newline counts).
pub fn count_lines(bytes: &[u8]) -> usize {
    crate::text::scan::count_newlines(bytes)
        + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// The operations turning `old` into `new` (lines compared with their terminators), in order;
/// adjacent operations of one kind are merged and a change shows its removed lines before
/// its added ones.
pub fn diff<'l>(old: &[&'l [u8]], new: &[&'l [u8]], timeout: Duration) -> Vec<DiffOp> {
    diff_until(old, new, Instant::now() + timeout)
}

/// [`diff`], the matching done by `deadline`.
pub fn diff_until<'l>(old: &[&'l [u8]], new: &[&'l [u8]], deadline: Instant) -> Vec<DiffOp> {
    diff_sides(&mut Slice(old), &mut Slice(new), deadline)
}

/// [`diff`] of the lines of `old` and `new`, read in their pieces and never gathered: lines
/// are split as the diff reaches them, runs of a file's own bytes at the same place on both
/// sides (what a splice left as it was) are stepped over whole, and only the lines around a
/// change are held at once. The operations are [`diff`]'s on the same lines, but for one
/// case: where the two sides together reach [`SPARSE_FROM`] lines, some of the new pieces
/// are runs of the old side's own bytes (what a splice kept, read in place) and no removed
/// line reads as an added one, those runs are the diff's unchanged lines and the lines
/// between them are changed ([`diff_spliced`]): as short a diff, found in a walk.
pub fn diff_pieces<'l>(old: &Pieces<'l>, new: &Pieces<'l>, deadline: Instant) -> Vec<DiffOp> {
    let (n, m) = (old.count_lines(), new.count_lines());
    if let [whole] = old.chunks() {
        if n + m >= SPARSE_FROM {
            if let Some(ops) = diff_spliced(whole, new) {
                return ops;
            }
        }
    }
    let mut a = LineReader::new(old, n);
    let mut b = LineReader::new(new, m);
    diff_sides(&mut a, &mut b, deadline)
}

/// The diff of `old` and the pieces `new`, going by the pieces that are runs of `old`'s own
/// bytes, in place and in order (what a splice kept): their lines are unchanged, and the
/// lines between two of them are removed and added. A splice's diff so costs a walk over its
/// pieces and one hash of each line it removed or added, however many changes it made and
/// however near together (a hunk that changes every other line has no run of unchanged
/// lines long enough for [`sparse`] to step by).
///
/// That diff is a shortest one when no removed line reads as an added one: every line the
/// two files have in common in order then stands for a kept line of its own (a pair of a
/// removed and a kept line, and one of the same kept line and an added one, would make the
/// removed and the added line alike), so no diff keeps more lines. An added line equal to
/// a kept one beside it shows as added where the splice put it, where [`middle`] might
/// have shown the other one. Where a removed line reads as an added one (lines moved across
/// a kept one), `None`, as when no piece is a kept run: the general diff then finds the
/// move.
fn diff_spliced<'l>(old: &'l [u8], new: &Pieces<'l>) -> Option<Vec<DiffOp>> {
    let base = old.as_ptr() as usize;
    // Where piece `c` lies in `old`, when it is whole lines of it at or after byte `from`.
    let kept = |c: &[u8], from: usize| {
        let at = (c.as_ptr() as usize).checked_sub(base)?;
        let end = at.checked_add(c.len())?;
        let within = at >= from && end <= old.len();
        let whole_lines =
            within && (at == 0 || old[at - 1] == b'\n') && (c.ends_with(b"\n") || end == old.len());
        whole_lines.then_some(at)
    };
    // Each kept run: its lines, and the removed and added lines before it.
    let (mut removed, mut added): (Vec<&[u8]>, Vec<&[u8]>) = (Vec::new(), Vec::new());
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    let mut from = 0;
    for &c in new.chunks() {
        match kept(c, from) {
            Some(start) => {
                removed.extend(line_iter(&old[from..start]));
                runs.push((count_lines(c), removed.len(), added.len()));
                from = start + c.len();
            }
            None => added.extend(line_iter(c)),
        }
    }
    removed.extend(line_iter(&old[from..]));
    if runs.is_empty() {
        return None;
    }
    let mut ids = Interner::with_room(removed.len() + added.len());
    ids.ids(removed.iter().copied());
    let distinct = ids.lines.len();
    if ids
        .ids(added.iter().copied())
        .into_iter()
        .any(|id| (id as usize) < distinct)
    {
        return None;
    }
    let mut ops = Ops::default();
    // Lines (old, new) before the next change, and removed and added lines used so far.
    let (mut at, mut r, mut a) = ((0, 0), 0, 0);
    for (same, r_to, a_to) in runs.into_iter().chain([(0, removed.len(), added.len())]) {
        ops.change(at.0, r_to - r, at.1, a_to - a);
        at = (at.0 + r_to - r + same, at.1 + a_to - a + same);
        ops.equal(at.0 - same, at.1 - same, same);
        (r, a) = (r_to, a_to);
    }
    Some(ops.0)
}

/// The lines of `bytes`, each with its terminator (the last one may have none).
fn line_iter(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    std::iter::from_fn(move || {
        let rest = &bytes[start..];
        let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        start += len;
        (len > 0).then(|| &rest[..len])
    })
}

/// The common start and end taken off, the rest walked ([`sparse`]): one diff, whether its
/// lines are split already or read from pieces as it goes.
fn diff_sides<'l, S: Side<'l>>(a: &mut S, b: &mut S, deadline: Instant) -> Vec<DiffOp> {
    let (n, m) = (a.len(), b.len());
    let prefix = same_run(a, 0, b, 0, (n, m));
    let room = n.min(m) - prefix;
    let suffix = a
        .rev()
        .zip(b.rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let mut ops = Ops::default();
    ops.equal(0, 0, prefix);
    sparse(
        a,
        b,
        (prefix, prefix),
        (n - suffix, m - suffix),
        deadline,
        &mut ops,
    );
    ops.equal(n - suffix, m - suffix, suffix);
    ops.0
}

/// One side of a diff, as lines (each with its terminator) asked for by number, front to
/// back: once `release(k)` is said, no line before `k` is asked for again.
trait Side<'l> {
    /// How many lines.
    fn len(&self) -> usize;
    /// Line `k`.
    fn line(&mut self, k: usize) -> &'l [u8];
    /// Lines `r`; no line before `r.end` is asked for again.
    fn lines(&mut self, r: Range<usize>) -> Cow<'_, [&'l [u8]]>;
    /// No line before `k` is asked for again.
    fn release(&mut self, k: usize);
    /// When line `k` is the next line not yet split out: the bytes from its start to the end
    /// of its piece, in place (for runs both sides share in memory).
    fn rest(&self, k: usize) -> Option<&'l [u8]>;
    /// Step over lines `k` and on, `lines` of them in `bytes` bytes, after [`Side::rest`].
    fn skip(&mut self, lines: usize, bytes: usize);
    /// The lines from the last to the first.
    fn rev(&self) -> Box<dyn Iterator<Item = &'l [u8]> + '_>;
}

/// Lines already split.
struct Slice<'s, 'l>(&'s [&'l [u8]]);

impl<'l> Side<'l> for Slice<'_, 'l> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn line(&mut self, k: usize) -> &'l [u8] {
        self.0[k]
    }

    fn lines(&mut self, r: Range<usize>) -> Cow<'_, [&'l [u8]]> {
        Cow::Borrowed(&self.0[r])
    }

    fn release(&mut self, _: usize) {}

    fn rest(&self, _: usize) -> Option<&'l [u8]> {
        None
    }

    fn skip(&mut self, _: usize, _: usize) {
        unreachable!("lines already split are never stepped over in bytes")
    }

    fn rev(&self) -> Box<dyn Iterator<Item = &'l [u8]> + '_> {
        Box::new(self.0.iter().rev().copied())
    }
}

/// The lines of [`Pieces`], split as they are asked for, front to back; those asked for and
/// not yet released are kept.
pub struct LineReader<'p, 'l> {
    pieces: &'p [&'l [u8]],
    /// The next byte not yet split into a line: its piece and place in it.
    chunk: usize,
    at: usize,
    /// Lines split and not yet released, from line `first` on.
    ahead: VecDeque<&'l [u8]>,
    first: usize,
    len: usize,
}

impl<'p, 'l> LineReader<'p, 'l> {
    /// The lines of `pieces`, `len` of them.
    pub fn new(pieces: &'p Pieces<'l>, len: usize) -> LineReader<'p, 'l> {
        LineReader {
            pieces: &pieces.chunks,
            chunk: 0,
            at: 0,
            ahead: VecDeque::new(),
            first: 0,
            len,
        }
    }

    /// Line `k` (with its terminator), no line before it being asked for again.
    pub fn get(&mut self, k: usize) -> &'l [u8] {
        self.release(k);
        self.line(k)
    }

    /// Split out the next line (pieces end with a newline, so none straddles two).
    fn split(&mut self) -> &'l [u8] {
        let c = self.pieces[self.chunk];
        let end = memchr::memchr(b'\n', &c[self.at..]).map_or(c.len(), |i| self.at + i + 1);
        let line = &c[self.at..end];
        self.at = end;
        if self.at == c.len() {
            (self.chunk, self.at) = (self.chunk + 1, 0);
        }
        line
    }
}

impl<'l> Side<'l> for LineReader<'_, 'l> {
    fn len(&self) -> usize {
        self.len
    }

    fn line(&mut self, k: usize) -> &'l [u8] {
        debug_assert!(k >= self.first, "line {k} was released");
        while self.first + self.ahead.len() <= k {
            let l = self.split();
            self.ahead.push_back(l);
        }
        self.ahead[k - self.first]
    }

    fn lines(&mut self, r: Range<usize>) -> Cow<'_, [&'l [u8]]> {
        self.release(r.start);
        if r.is_empty() {
            return Cow::Borrowed(&[]);
        }
        // Split out and kept until released, read in place: a diff walked in step asks
        // for a few lines at a time, and a copy of them each time would cost an allocation.
        self.line(r.end - 1);
        Cow::Borrowed(&self.ahead.make_contiguous()[..r.len()])
    }

    fn release(&mut self, k: usize) {
        while self.first < k && self.ahead.pop_front().is_some() {
            self.first += 1;
        }
        while self.first < k {
            self.split();
            self.first += 1;
        }
    }

    fn rest(&self, k: usize) -> Option<&'l [u8]> {
        (self.ahead.is_empty() && self.first == k && self.chunk < self.pieces.len())
            .then(|| &self.pieces[self.chunk][self.at..])
    }

    fn skip(&mut self, lines: usize, bytes: usize) {
        debug_assert!(self.ahead.is_empty());
        self.first += lines;
        self.at += bytes;
        if self.at == self.pieces[self.chunk].len() {
            (self.chunk, self.at) = (self.chunk + 1, 0);
        }
    }

    fn rev(&self) -> Box<dyn Iterator<Item = &'l [u8]> + '_> {
        Box::new(self.pieces.iter().rev().flat_map(|&c| {
            let mut end = c.len();
            std::iter::from_fn(move || {
                (end > 0).then(|| {
                    let start = memchr::memrchr(b'\n', &c[..end - 1]).map_or(0, |i| i + 1);
                    let line = &c[start..end];
                    end = start;
                    line
                })
            })
        }))
    }
}

/// How many lines from `i` in `a` and `j` in `b` are the same, up to `to` on each side;
/// the lines before where the run ends are released. Where both sides are the same bytes in
/// memory (a run a splice kept, read on both sides at the same place), whole lines of it are
/// stepped over without splitting or comparing them.
fn same_run<'l, S: Side<'l>>(
    a: &mut S,
    i: usize,
    b: &mut S,
    j: usize,
    to: (usize, usize),
) -> usize {
    let mut n = 0;
    while i + n < to.0 && j + n < to.1 {
        if let (Some(x), Some(y)) = (a.rest(i + n), b.rest(j + n)) {
            if x.as_ptr() == y.as_ptr() {
                let most = (to.0 - i - n).min(to.1 - j - n);
                let shared = &x[..x.len().min(y.len())];
                // Counted a page at a time; only a run that reaches past `to` finds its end
                // newline by newline.
                let ends = memchr::memchr_iter(b'\n', shared).count();
                let (lines, bytes) = if ends <= most {
                    let end = memchr::memrchr(b'\n', shared).map_or(0, |e| e + 1);
                    (ends, end)
                } else {
                    let end = memchr::memchr_iter(b'\n', shared).nth(most - 1);
                    (most, end.map_or(0, |e| e + 1))
                };
                if lines > 0 {
                    a.skip(lines, bytes);
                    b.skip(lines, bytes);
                    n += lines;
                    continue;
                }
            }
        }
        if a.line(i + n) != b.line(j + n) {
            break;
        }
        n += 1;
        a.release(i + n);
        b.release(j + n);
    }
    n
}

/// Whether `a` from `x` and `b` from `y` run on together for [`RESYNC_RUN`] lines (near the
/// end of the part `to` bounds, only the whole rest of both sides counts).
fn in_step<'l, S: Side<'l>>(a: &mut S, x: usize, b: &mut S, y: usize, to: (usize, usize)) -> bool {
    let run = RESYNC_RUN.min(to.0 - x).min(to.1 - y);
    let whole = run == RESYNC_RUN || (to.0 - x == to.1 - y);
    run > 0 && whole && (0..run).all(|k| a.line(x + k) == b.line(y + k))
}

/// Lines added and removed going from `old` to `new`, as [`diff`] counts them, the matching
/// done by `deadline` (past it, the counts are an upper bound).
pub fn counts_until(old: &[u8], new: &[u8], deadline: Instant) -> LineCounts {
    let w = window(old, new, 0);
    if w.old.is_empty() || w.new.is_empty() {
        return LineCounts::new(count_lines(w.new), count_lines(w.old));
    }
    let (a, b) = (lines(w.old), lines(w.new));
    LineCounts::of_ops(&diff_until(&a, &b, deadline))
}

/// Lines added and removed, as a diff counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Lines on the new side only.
    pub added: usize,
    /// Lines on the old side only.
    pub removed: usize,
}

impl LineCounts {
    /// Counts as given.
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
            if !matches!(op, DiffOp::Equal { .. }) {
                c.removed += op.old_range().len();
                c.added += op.new_range().len();
            }
        }
        c
    }
}

impl std::ops::Add for LineCounts {
    type Output = LineCounts;

    fn add(self, other: LineCounts) -> LineCounts {
        LineCounts::new(self.added + other.added, self.removed + other.removed)
    }
}

/// How many lines a file's bytes (in chunks, each but the last ending with a newline) hold
/// as a report counts them: content that is not UTF-8 is binary, which has no lines (`None`).
pub fn text_lines<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Option<usize> {
    // Chunks split after a newline, so each is UTF-8 exactly when the whole is.
    let mut n = 0;
    for c in chunks {
        n += count_lines(std::str::from_utf8(c).ok()?.as_bytes());
    }
    Some(n)
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
        (Some(a), Some(b)) => counts_until(a, b, deadline),
        _ => LineCounts::default(),
    }
}

/// Below this many lines on its two sides together, the middle of a diff goes to [`middle`]
/// whole.
const SPARSE_FROM: usize = 2_000;
/// How far apart, in lines of both sides together, two runs of common lines may be for
/// [`sparse`] to step from one to the next.
const RESYNC_WITHIN: usize = 32;
/// Common lines in a row that [`sparse`] takes as the two sides being in step again.
const RESYNC_RUN: usize = 4;
/// Up to this many pairs of lines, [`middle`] compares every pair to learn that the two sides
/// share no line, rather than building its table.
const SMALL_PAIRS: usize = 64;

/// The middle of a big diff (lines `from` to `to` of each side), walked in step: runs of
/// common lines are taken as they come, and each difference between them (the nearest place
/// where both sides run on together for [`RESYNC_RUN`] lines, within [`RESYNC_WITHIN`] lines)
/// goes to [`middle`] alone. A file with thousands of scattered one-line hunks so costs its
/// length, not a table of all its lines. Where the sides do not fall back in step soon (a
/// block rewritten), the rest goes to [`middle`]. Small middles go there whole, so small
/// diffs read as they always did.
fn sparse<'l, S: Side<'l>>(
    a: &mut S,
    b: &mut S,
    from: (usize, usize),
    to: (usize, usize),
    deadline: Instant,
    ops: &mut Ops,
) {
    if (to.0 - from.0) + (to.1 - from.1) < SPARSE_FROM {
        let (x, y) = (a.lines(from.0..to.0), b.lines(from.1..to.1));
        return middle(&x, &y, from, deadline, ops);
    }
    let (mut i, mut j) = from;
    'walk: while i < to.0 && j < to.1 {
        let same = same_run(a, i, b, j, to);
        if same > 0 {
            ops.equal(i, j, same);
            (i, j) = (i + same, j + same);
            continue;
        }
        for d in 1..=RESYNC_WITHIN {
            for di in 0..=d {
                let (x, y) = (i + di, j + d - di);
                if x < to.0 && y < to.1 && in_step(a, x, b, y, to) {
                    let (p, q) = (a.lines(i..x), b.lines(j..y));
                    middle(&p, &q, (i, j), deadline, ops);
                    a.release(x);
                    b.release(y);
                    (i, j) = (x, y);
                    continue 'walk;
                }
            }
        }
        break;
    }
    if i >= to.0 || j >= to.1 {
        ops.change(i, to.0 - i, j, to.1 - j);
    } else {
        let (p, q) = (a.lines(i..to.0), b.lines(j..to.1));
        middle(&p, &q, (i, j), deadline, ops);
    }
}

/// `a` starts at line `at.0` of the old file, `b` at line `at.1` of the new one.
fn middle<'l>(
    a: &[&'l [u8]],
    b: &[&'l [u8]],
    at: (usize, usize),
    deadline: Instant,
    ops: &mut Ops,
) {
    // A few lines that share none (a one-line change, the commonest) are one change: what
    // the matching below finds too, without its table of ids, which a hunk of many such
    // changes would otherwise build once each.
    if a.is_empty() || b.is_empty() || plainly_distinct(a, b) {
        ops.change(at.0, a.len(), at.1, b.len());
        return;
    }
    matched(a, b, at, deadline, ops);
}

/// Whether two short sides are known to share no line (pair by pair, so without a table):
/// their diff is then one change of all of both. `false` says nothing for longer sides.
pub fn plainly_distinct(a: &[&[u8]], b: &[&[u8]]) -> bool {
    a.len() * b.len() <= SMALL_PAIRS && a.iter().all(|x| b.iter().all(|y| x != y))
}

/// [`middle`] of two non-empty sides: the lines both have, matched by Myers.
fn matched<'l>(
    a: &[&'l [u8]],
    b: &[&'l [u8]],
    at: (usize, usize),
    deadline: Instant,
    ops: &mut Ops,
) {
    // A line of `b` that is one of `a`'s own lines in memory (a run a splice kept, read in
    // place on both sides) takes that line's id: it is neither hashed nor compared again.
    let mut in_a = SameBytes::new(a);
    let place: Vec<Option<usize>> = b.iter().map(|l| in_a.find(l)).collect();
    let hashed = place.iter().filter(|p| p.is_none()).count();
    let mut ids = Interner::with_room(a.len() + hashed);
    // Which sides each id was seen on.
    let mut seen: Vec<(bool, bool)> = Vec::new();
    let ia: Vec<u32> = ids
        .ids(a.iter().copied())
        .into_iter()
        .map(|id| seen_on(&mut seen, id, true))
        .collect();
    let unplaced = b.iter().zip(&place).filter(|(_, p)| p.is_none());
    let mut hashed_ids = ids.ids(unplaced.map(|(l, _)| *l)).into_iter();
    let ib: Vec<u32> = place
        .iter()
        .map(|p| {
            let id = match p {
                Some(i) => ia[*i],
                None => hashed_ids.next().expect("an id for each line not placed"),
            };
            seen_on(&mut seen, id, false)
        })
        .collect();
    let shared = |id: u32| {
        let (x, y) = seen[id as usize];
        x && y
    };
    let ka: Vec<usize> = (0..a.len()).filter(|&i| shared(ia[i])).collect();
    let kb: Vec<usize> = (0..b.len()).filter(|&i| shared(ib[i])).collect();
    let ra: Vec<u32> = ka.iter().map(|&i| ia[i]).collect();
    let rb: Vec<u32> = kb.iter().map(|&i| ib[i]).collect();
    let reduced = similar::capture_diff_slices_deadline(Algorithm::Myers, &ra, &rb, Some(deadline));
    let (mut x, mut y) = (0, 0);
    for op in reduced {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                let (i, j) = (ka[old_index + k], kb[new_index + k]);
                ops.change(at.0 + x, i - x, at.1 + y, j - y);
                ops.equal(at.0 + i, at.1 + j, 1);
                (x, y) = (i + 1, j + 1);
            }
        }
    }
    ops.change(at.0 + x, a.len() - x, at.1 + y, b.len() - y);
}

/// Note that line `id` (new when it is the next one) was seen on side a (`on_a`) or b;
/// returns `id`.
fn seen_on(seen: &mut Vec<(bool, bool)>, id: u32, on_a: bool) -> u32 {
    if id as usize == seen.len() {
        seen.push((false, false));
    }
    let s = &mut seen[id as usize];
    if on_a {
        s.0 = true;
    } else {
        s.1 = true;
    }
    id
}

/// Numbers lines by their content, in the order first seen: an open-addressing table of
/// 8-byte slots (the hash's high half beside the id), so that a line new to it costs one
/// random read, and a line's bytes are compared only when the halves agree.
struct Interner<'l> {
    /// `hash >> 32 << 32 | id + 1`; 0 is an empty slot.
    slots: Vec<u64>,
    /// The first line of each id.
    lines: Vec<&'l [u8]>,
}

impl<'l> Interner<'l> {
    /// Room for `n` distinct lines, the table at most half full.
    fn with_room(n: usize) -> Interner<'l> {
        Interner {
            slots: vec![0; (2 * n).next_power_of_two().max(16)],
            lines: Vec::with_capacity(n),
        }
    }

    /// The ids of `lines`' contents, numbered in the order first seen. Lines go a
    /// few at a time: their hashes first, and the table slots they start at read together,
    /// so that the processor waits for those (scattered over a table of megabytes) at once
    /// rather than one after another. An id is new for content not seen before.
    fn ids(&mut self, lines: impl Iterator<Item = &'l [u8]>) -> Vec<u32> {
        const BATCH: usize = 16;
        let mut out = Vec::with_capacity(lines.size_hint().0);
        let mut batch: Vec<(&'l [u8], u64)> = Vec::with_capacity(BATCH);
        let mut lines = lines.peekable();
        while lines.peek().is_some() {
            batch.clear();
            batch.extend(
                lines
                    .by_ref()
                    .take(BATCH)
                    .map(|l| (l, crate::text::hash::of(l))),
            );
            let mask = self.slots.len() - 1;
            let first: u64 = batch
                .iter()
                .map(|&(_, h)| self.slots[h as usize & mask])
                .fold(0, |acc, s| acc ^ s);
            std::hint::black_box(first);
            out.extend(batch.iter().map(|&(l, h)| self.id_hashed(l, h)));
        }
        out
    }

    /// The id of `line`'s content (a new one when it was not seen before), `h` its hash.
    fn id_hashed(&mut self, line: &'l [u8], h: u64) -> u32 {
        let mask = self.slots.len() - 1;
        let tag = h >> 32 << 32;
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                break;
            }
            let id = (s as u32 - 1) as usize;
            if s >> 32 << 32 == tag && self.lines[id] == line {
                return id as u32;
            }
            i = (i + 1) & mask;
        }
        if 2 * (self.lines.len() + 1) > self.slots.len() {
            // Fuller than planned for: a table twice the size, built again.
            self.grow();
            return self.id_hashed(line, h);
        }
        let id = self.lines.len() as u32;
        self.lines.push(line);
        self.slots[i] = tag | u64::from(id + 1);
        id
    }

    fn grow(&mut self) {
        let mut slots = vec![0u64; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for &s in self.slots.iter().filter(|&&s| s != 0) {
            let line = self.lines[(s as u32 - 1) as usize];
            let mut i = crate::text::hash::of(line) as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = s;
        }
        self.slots = slots;
    }
}

/// Finds which of a side's lines a line is by its place in memory, where that side's lines lie
/// back to back in one buffer (as a window of a file does); asked in rising order of place, as
/// a splice's kept runs come, each answer costs a step.
struct SameBytes<'s, 'l> {
    lines: &'s [&'l [u8]],
    /// The bytes the lines cover, when they lie back to back (otherwise nothing is found).
    span: Option<std::ops::Range<usize>>,
    /// Where the last search ended.
    at: usize,
}

impl<'s, 'l> SameBytes<'s, 'l> {
    fn new(lines: &'s [&'l [u8]]) -> SameBytes<'s, 'l> {
        let end = |l: &[u8]| l.as_ptr() as usize + l.len();
        let back_to_back = lines
            .windows(2)
            .all(|w| end(w[0]) == w[1].as_ptr() as usize);
        let span = match (lines.first(), lines.last()) {
            (Some(f), Some(l)) if back_to_back => Some(f.as_ptr() as usize..end(l)),
            _ => None,
        };
        SameBytes { lines, span, at: 0 }
    }

    /// The index of the line that is `line`'s very bytes (same place, same length).
    fn find(&mut self, line: &[u8]) -> Option<usize> {
        let span = self.span.as_ref()?;
        let p = line.as_ptr() as usize;
        if !span.contains(&p) {
            return None;
        }
        let start = |l: &&[u8]| l.as_ptr() as usize;
        let near = |k: usize| self.lines.get(k).is_none_or(|l| start(l) > p);
        if start(&self.lines[self.at]) > p || !near(self.at + 8) {
            // Behind, or far ahead: searched for.
            self.at = self.lines.partition_point(|l| start(l) <= p) - 1;
        } else {
            while !near(self.at + 1) {
                self.at += 1;
            }
        }
        let k = self.at;
        (start(&self.lines[k]) == p && self.lines[k].len() == line.len()).then_some(k)
    }
}

/// Operations being built, merging neighbours of one kind.
#[derive(Default)]
struct Ops(Vec<DiffOp>);

impl Ops {
    fn equal(&mut self, old_index: usize, new_index: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(DiffOp::Equal {
            old_index: o,
            new_index: n,
            len: l,
        }) = self.0.last_mut()
        {
            if *o + *l == old_index && *n + *l == new_index {
                *l += len;
                return;
            }
        }
        self.0.push(DiffOp::Equal {
            old_index,
            new_index,
            len,
        });
    }

    /// `old_len` lines at `old_index` replaced by `new_len` at `new_index` (either may be 0).
    fn change(&mut self, old_index: usize, old_len: usize, new_index: usize, new_len: usize) {
        if old_len == 0 && new_len == 0 {
            return;
        }
        // Merge with a change just before (lines set aside meet lines Myers changed).
        let (old_index, old_len, new_index, new_len) = match self.0.last() {
            Some(&DiffOp::Delete {
                old_index: o,
                old_len: ol,
                new_index: n,
            }) if o + ol == old_index && n == new_index => {
                self.0.pop();
                (o, ol + old_len, n, new_len)
            }
            Some(&DiffOp::Insert {
                old_index: o,
                new_index: n,
                new_len: nl,
            }) if o == old_index && n + nl == new_index => {
                self.0.pop();
                (o, old_len, n, nl + new_len)
            }
            Some(&DiffOp::Replace {
                old_index: o,
                old_len: ol,
                new_index: n,
                new_len: nl,
            }) if o + ol == old_index && n + nl == new_index => {
                self.0.pop();
                (o, ol + old_len, n, nl + new_len)
            }
            _ => (old_index, old_len, new_index, new_len),
        };
        self.0.push(match (old_len, new_len) {
            (_, 0) => DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            },
            (0, _) => DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            },
            _ => DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The diff as it was written over lines already split (before it read pieces too): what
    /// [`diff_pieces`] and [`diff_until`] are held to.
    mod split {
        use super::super::{middle, Ops, RESYNC_RUN, RESYNC_WITHIN, SPARSE_FROM};
        use similar::DiffOp;
        use std::time::Instant;

        pub fn diff_until<'l>(
            old: &[&'l [u8]],
            new: &[&'l [u8]],
            deadline: Instant,
        ) -> Vec<DiffOp> {
            let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
            let room = old.len().min(new.len()) - prefix;
            let suffix = old
                .iter()
                .rev()
                .zip(new.iter().rev())
                .take(room)
                .take_while(|(a, b)| a == b)
                .count();
            let mut ops = Ops::default();
            ops.equal(0, 0, prefix);
            sparse(
                &old[prefix..old.len() - suffix],
                &new[prefix..new.len() - suffix],
                prefix,
                deadline,
                &mut ops,
            );
            ops.equal(old.len() - suffix, new.len() - suffix, suffix);
            ops.0
        }
        fn sparse<'l>(a: &[&'l [u8]], b: &[&'l [u8]], at: usize, deadline: Instant, ops: &mut Ops) {
            if a.len() + b.len() < SPARSE_FROM {
                return middle(a, b, (at, at), deadline, ops);
            }
            let in_step = |i: usize, j: usize| {
                let run = RESYNC_RUN.min(a.len() - i).min(b.len() - j);
                // Near the end only the whole rest of both sides counts.
                let whole = run == RESYNC_RUN || (a.len() - i == b.len() - j);
                run > 0 && whole && a[i..i + run] == b[j..j + run]
            };
            let (mut i, mut j) = (0usize, 0usize);
            while i < a.len() && j < b.len() {
                let same = a[i..]
                    .iter()
                    .zip(&b[j..])
                    .take_while(|(x, y)| x == y)
                    .count();
                if same > 0 {
                    ops.equal(at + i, at + j, same);
                    (i, j) = (i + same, j + same);
                    continue;
                }
                let next = (1..=RESYNC_WITHIN).find_map(|d| {
                    (0..=d)
                        .map(|di| (i + di, j + d - di))
                        .find(|&(x, y)| x < a.len() && y < b.len() && in_step(x, y))
                });
                match next {
                    Some((x, y)) => {
                        middle(&a[i..x], &b[j..y], (at + i, at + j), deadline, ops);
                        (i, j) = (x, y);
                    }
                    None => break,
                }
            }
            middle(&a[i..], &b[j..], (at + i, at + j), deadline, ops);
        }
    }

    /// A deadline no test meets: the diff is never cut short.
    fn far() -> Instant {
        Instant::now() + Duration::from_secs(600)
    }

    /// `new`'s lines as pieces: each line of `old` kept where it was (`Some(index)`) is read
    /// in place, runs of them as one piece; the others are bytes of their own.
    fn pieces_of<'a>(
        old: &'a [u8],
        starts: &[usize],
        new: &'a [(Option<usize>, Vec<u8>)],
    ) -> Pieces<'a> {
        let mut chunks: Vec<&'a [u8]> = Vec::new();
        let mut run: Option<(usize, usize)> = None;
        for (from, line) in new {
            match from {
                Some(i) => {
                    run = match run {
                        Some((s, e)) if e == starts[*i] => Some((s, starts[*i + 1])),
                        Some((s, e)) => {
                            chunks.push(&old[s..e]);
                            Some((starts[*i], starts[*i + 1]))
                        }
                        None => Some((starts[*i], starts[*i + 1])),
                    };
                }
                None => {
                    if let Some((s, e)) = run.take() {
                        chunks.push(&old[s..e]);
                    }
                    chunks.push(line);
                }
            }
        }
        if let Some((s, e)) = run {
            chunks.push(&old[s..e]);
        }
        Pieces::new(chunks)
    }

    /// (added, removed) with time to spare.
    fn counts(old: &[u8], new: &[u8]) -> (usize, usize) {
        let c = counts_until(old, new, Instant::now() + TIMEOUT);
        (c.added, c.removed)
    }

    /// Two neighbouring operations of one kind (both equal, or both changes), which a diff
    /// merges into one.
    fn unmerged(ops: &[DiffOp]) -> Option<(DiffOp, DiffOp)> {
        ops.windows(2)
            .find(|w| {
                let equal = |op: &DiffOp| matches!(op, DiffOp::Equal { .. });
                equal(&w[0]) == equal(&w[1])
            })
            .map(|w| (w[0], w[1]))
    }

    /// `new` rebuilt from `old` and the operations, checking they cover both sides in order.
    fn replay(old: &[&[u8]], new: &[&[u8]], ops: &[DiffOp]) -> Vec<Vec<u8>> {
        let (mut x, mut y) = (0, 0);
        let mut out = Vec::new();
        for op in ops {
            let (o, ol, n, nl) = match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        assert_eq!(old[old_index + k], new[new_index + k]);
                    }
                    (old_index, len, new_index, len)
                }
                DiffOp::Delete {
                    old_index,
                    old_len,
                    new_index,
                } => (old_index, old_len, new_index, 0),
                DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => (old_index, 0, new_index, new_len),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => (old_index, old_len, new_index, new_len),
            };
            assert_eq!((o, n), (x, y), "operations are contiguous");
            out.extend(new[n..n + nl].iter().map(|l| l.to_vec()));
            (x, y) = (o + ol, n + nl);
        }
        assert_eq!((x, y), (old.len(), new.len()));
        out
    }

    #[test]
    fn a_block_replaced_wholesale_is_one_change() {
        let old: Vec<Vec<u8>> = (0..3000)
            .map(|i| format!("old {i}\n").into_bytes())
            .collect();
        let mut new = old.clone();
        for (k, l) in new[1000..2000].iter_mut().enumerate() {
            *l = format!("new {k}\n").into_bytes();
        }
        let (a, b): (Vec<&[u8]>, Vec<&[u8]>) = (
            old.iter().map(|l| &l[..]).collect(),
            new.iter().map(|l| &l[..]).collect(),
        );
        let ops = diff(&a, &b, TIMEOUT);
        assert_eq!(
            ops,
            [
                DiffOp::Equal {
                    old_index: 0,
                    new_index: 0,
                    len: 1000
                },
                DiffOp::Replace {
                    old_index: 1000,
                    old_len: 1000,
                    new_index: 1000,
                    new_len: 1000
                },
                DiffOp::Equal {
                    old_index: 2000,
                    new_index: 2000,
                    len: 1000
                },
            ]
        );
    }

    #[test]
    fn scattered_one_line_changes_in_a_big_file_count_one_line_each() {
        let old: Vec<Vec<u8>> = (0..10_000)
            .map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let mut new = old.clone();
        for i in (5..10_000).step_by(50) {
            new[i] = format!("line {i} edited\n").into_bytes();
        }
        let (o, n) = (old.concat(), new.concat());
        assert_eq!(counts(&o, &n), (200, 200));
        let a: Vec<&[u8]> = old.iter().map(|l| &l[..]).collect();
        let b: Vec<&[u8]> = new.iter().map(|l| &l[..]).collect();
        let ops = diff(&a, &b, TIMEOUT);
        assert_eq!(
            ops.len(),
            401,
            "200 one-line replacements between 201 common runs"
        );
        assert_eq!(replay(&a, &b, &ops), new);
    }

    #[test]
    fn counts_follow_the_lines_and_their_terminators() {
        assert_eq!(counts(b"a\nb\nc\n", b"a\nB\nc\n"), (1, 1));
        assert_eq!(counts(b"", b"x\ny"), (2, 0));
        assert_eq!(counts(b"a\nb", b"a\nb\n"), (1, 1));
        assert_eq!(counts(b"a\r\n", b"a\n"), (1, 1));
        assert_eq!(counts(b"same\n", b"same\n"), (0, 0));
        assert!(lines(b"").is_empty());
        assert_eq!(first_lines(b"a\nb\nc", 2), [&b"a\n"[..], &b"b\n"[..]]);
        assert_eq!(first_lines(b"a\nb\nc", 5).len(), 3);
        assert_eq!(
            (
                count_lines(b"a\nb\nc"),
                count_lines(b"a\n"),
                count_lines(b"")
            ),
            (3, 1, 0)
        );
    }

    #[test]
    fn the_window_keeps_the_changed_lines_and_their_margin() {
        let w = window(b"a\nb\nc\nd\ne\n", b"a\nb\nC\nd\ne\n", 1);
        assert_eq!(
            (w.old, w.new, w.line),
            (&b"b\nc\nd\n"[..], &b"b\nC\nd\n"[..], 1)
        );
        // A change inside a line: the whole line is in the window.
        let w = window(b"one\ntwo\n", b"one\ntwa\n", 0);
        assert_eq!((w.old, w.new, w.line), (&b"two\n"[..], &b"twa\n"[..], 1));
        let w = window(b"x\n", b"x\n", 3);
        assert_eq!((w.old, w.new), (&b"x\n"[..], &b"x\n"[..]));
        // A final newline added: the last line differs.
        let w = window(b"a\nb", b"a\nb\n", 0);
        assert_eq!((w.old, w.new, w.line), (&b"b"[..], &b"b\n"[..], 1));
    }

    proptest! {
        #[test]
        fn a_window_diff_counts_as_the_whole_diff(
            old in proptest::collection::vec(0u8..4, 0..30),
            new in proptest::collection::vec(0u8..4, 0..30),
            margin in 0usize..4,
        ) {
            let text = |v: &[u8]| -> Vec<u8> {
                v.iter().flat_map(|&c| if c == 3 { b"x".to_vec() } else { vec![b'a' + c, b'\n'] }).collect()
            };
            let (o, n) = (text(&old), text(&new));
            let w = window(&o, &n, margin);
            // The window cuts both files at the same lines, and only common lines are cut.
            let (ol, nl) = (lines(&o), lines(&n));
            let (wo, wn) = (lines(w.old), lines(w.new));
            prop_assert_eq!(&ol[..w.line], &nl[..w.line]);
            let (to, tn) = (ol.len() - w.line - wo.len(), nl.len() - w.line - wn.len());
            prop_assert_eq!(to, tn);
            prop_assert_eq!(&ol[ol.len() - to..], &nl[nl.len() - tn..]);
            prop_assert_eq!(&ol[w.line..w.line + wo.len()], &wo[..]);
            let full = {
                let mut c = (0, 0);
                for op in diff(&ol, &nl, TIMEOUT) {
                    match op {
                        DiffOp::Equal { .. } => {}
                        other => { c.0 += other.new_range().len(); c.1 += other.old_range().len(); }
                    }
                }
                c
            };
            prop_assert_eq!(counts(&o, &n), full);
        }

        /// Big files with scattered edits go through the in-step walk: its operations
        /// rebuild the new side too, and a lone changed line costs one line each way.
        #[test]
        fn a_big_sparse_diff_rebuilds_the_new_side(
            seed in 0u64..1_000,
            edits in proptest::collection::vec((0usize..3_000, 0u8..4, 0usize..40), 1..30),
        ) {
            // Lines with repeats (blank lines, braces) among distinct ones.
            let base: Vec<Vec<u8>> = (0..3_000u64)
                .map(|i| match (i * 7 + seed) % 11 {
                    0 => b"\n".to_vec(),
                    1 => b"}\n".to_vec(),
                    _ => format!("line {}\n", (i * 31 + seed) % 2_000).into_bytes(),
                })
                .collect();
            // Each new line with the old line it is, where it is one kept.
            let mut new: Vec<(Option<usize>, Vec<u8>)> =
                base.iter().cloned().enumerate().map(|(i, l)| (Some(i), l)).collect();
            for &(at, kind, n) in &edits {
                let at = at.min(new.len());
                match kind {
                    0 => { new.insert(at, (None, format!("added {n}\n").into_bytes())); }
                    1 => { if at < new.len() { new.remove(at); } }
                    2 => { if at < new.len() { new[at] = (None, format!("changed {n}\n").into_bytes()); } }
                    _ => {
                        for k in 0..n { new.insert(at, (None, format!("block {k}\n").into_bytes())); }
                    }
                }
            }
            let a: Vec<&[u8]> = base.iter().map(|l| &l[..]).collect();
            let b: Vec<&[u8]> = new.iter().map(|(_, l)| &l[..]).collect();
            let ops = diff(&a, &b, TIMEOUT);
            let lines: Vec<Vec<u8>> = new.iter().map(|(_, l)| l.clone()).collect();
            prop_assert_eq!(replay(&a, &b, &ops), lines);
            prop_assert_eq!(unmerged(&ops), None);
            // Read in pieces (the kept lines in place, which the diff goes by), and as it was
            // over split lines: the same operations, the new lines here being unlike any old
            // one.
            let old = base.concat();
            let mut starts = vec![0];
            for l in &base {
                starts.push(starts.last().unwrap() + l.len());
            }
            let pieces = diff_pieces(&Pieces::new([&old[..]]), &pieces_of(&old, &starts, &new), far());
            prop_assert_eq!(&pieces, &ops);
            prop_assert_eq!(split::diff_until(&a, &b, far()), ops);
        }

        /// Sides that share no line are one change, whether compared pair by pair or
        /// matched through the table.
        #[test]
        fn a_small_middle_sharing_nothing_is_what_matching_finds(
            old in proptest::collection::vec(0u8..3, 1..9),
            new in proptest::collection::vec(3u8..6, 1..9),
            at in (0usize..5, 0usize..5),
        ) {
            let text = |v: &[u8]| -> Vec<Vec<u8>> { v.iter().map(|&c| vec![b'a' + c]).collect() };
            let (o, n) = (text(&old), text(&new));
            let a: Vec<&[u8]> = o.iter().map(|l| &l[..]).collect();
            let b: Vec<&[u8]> = n.iter().map(|l| &l[..]).collect();
            let deadline = Instant::now() + TIMEOUT;
            let (mut quick, mut slow) = (Ops::default(), Ops::default());
            middle(&a, &b, at, deadline, &mut quick);
            matched(&a, &b, at, deadline, &mut slow);
            prop_assert_eq!(quick.0, slow.0);
        }

        /// Ids follow content, numbered in the order first seen, however full the table
        /// gets (room for one line forces it to grow).
        #[test]
        fn the_interner_numbers_contents_in_the_order_first_seen(
            picks in proptest::collection::vec(0u16..300, 0..400),
            room in 1usize..64,
        ) {
            let texts: Vec<Vec<u8>> = picks.iter().map(|p| format!("line {p}\n").into_bytes()).collect();
            let mut first: std::collections::HashMap<&[u8], u32> = Default::default();
            let mut want = Vec::new();
            for t in &texts {
                let next = first.len() as u32;
                want.push(*first.entry(&t[..]).or_insert(next));
            }
            // Given in two calls (split where `room` says), numbered as one run.
            let mut ids = Interner::with_room(room);
            let cut = room.min(texts.len());
            let mut got = ids.ids(texts[..cut].iter().map(|t| &t[..]));
            got.extend(ids.ids(texts[cut..].iter().map(|t| &t[..])));
            prop_assert_eq!(got, want);
        }

        /// A new side whose lines are partly the old side's own bytes (taken in place, in
        /// any order, as runs a splice kept) is matched as the same lines copied are.
        #[test]
        fn lines_shared_in_memory_match_as_their_copies_do(
            old in proptest::collection::vec(0u8..6, 1..60),
            picks in proptest::collection::vec((any::<bool>(), 0usize..60, 0u8..8), 1..60),
        ) {
            let text: Vec<u8> = old.iter().flat_map(|&c| vec![b'a' + c, b'\n']).collect();
            let a = lines(&text);
            // Each new line either one of the old lines in place or a line of its own.
            let own: Vec<Vec<u8>> = picks.iter().map(|&(_, _, c)| vec![b'a' + c, b'\n']).collect();
            let b: Vec<&[u8]> = picks
                .iter()
                .zip(&own)
                .map(|(&(kept, k, _), o)| if kept { a[k % a.len()] } else { &o[..] })
                .collect();
            let copies: Vec<Vec<u8>> = b.iter().map(|l| l.to_vec()).collect();
            let b_copied: Vec<&[u8]> = copies.iter().map(|l| &l[..]).collect();
            let deadline = far();
            let (mut in_place, mut copied) = (Ops::default(), Ops::default());
            matched(&a, &b, (3, 5), deadline, &mut in_place);
            matched(&a, &b_copied, (3, 5), deadline, &mut copied);
            prop_assert_eq!(in_place.0, copied.0);
        }

        #[test]
        fn operations_rebuild_the_new_side(
            old in proptest::collection::vec(0u8..6, 0..40),
            new in proptest::collection::vec(0u8..6, 0..40),
        ) {
            let text = |v: &[u8]| -> Vec<Vec<u8>> {
                v.iter().map(|&c| if c == 5 { b"x".to_vec() } else { vec![b'a' + c, b'\n'] }).collect()
            };
            let (o, n) = (text(&old), text(&new));
            let a: Vec<&[u8]> = o.iter().map(|l| &l[..]).collect();
            let b: Vec<&[u8]> = n.iter().map(|l| &l[..]).collect();
            let ops = diff(&a, &b, TIMEOUT);
            prop_assert_eq!(replay(&a, &b, &ops), n.clone());
            // Neighbouring operations of one kind are merged.
            prop_assert_eq!(unmerged(&ops), None);
            prop_assert_eq!(split::diff_until(&a, &b, far()), ops);
            // The same lines as bytes (a line without its newline ends the text).
            let (ob, nb) = (o.concat(), n.concat());
            let (la, lb) = (lines(&ob), lines(&nb));
            prop_assert_eq!(
                diff_pieces(&Pieces::new([&ob[..]]), &Pieces::new([&nb[..]]), far()),
                split::diff_until(&la, &lb, far())
            );
        }
    }
}

//! Where a hunk lands: candidate search by pass, the rules that decide between candidates,
//! already-applied detection, and the guarded fuzzy pass. Pure functions over lines.
//!
//! Candidates are found through a per-pass index of the file's lines (line key → positions),
//! starting from the hunk line with the fewest occurrences, so locating a hunk costs time in
//! proportion to the occurrences of its rarest line, not to the file's length. The first few
//! exact searches of a file scan its lines for the hunk's longest line instead, comparing
//! lengths first: that costs less than hashing every line, and a patch of a few hunks never
//! needs the index.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::BuildHasherDefault;

use schemars::JsonSchema;
use serde::Serialize;

use super::normalize::{is_trivial, key, Pass};
use super::text::Line;
use crate::patch::{Hunk, LineKind};

/// The lines of one file with lazily built per-pass keys and indexes.
///
/// Made for a patch ([`Haystack::for_lines`]), the index holds only the file lines whose
/// key is one of the patch's lines, which is what a search asks for; a key from anywhere
/// else builds the whole index once and is answered from it, so the answer never depends
/// on which index was built.
pub struct Haystack<'a> {
    lines: &'a [Line<'a>],
    /// Per pass but the exact one, whose keys are the lines themselves (borrowed where a
    /// key is its line).
    keys: [OnceCell<Vec<Line<'a>>>; 4],
    index: [OnceCell<LineIndex>; 4],
    /// The lines searches will ask for (None: any), and per pass the hashes of their keys.
    wanted: Option<Wanted>,
    /// The index of every line, for a key outside `wanted`.
    full: [OnceCell<LineIndex>; 4],
    /// Exact searches answered by a scan of the lines, up to [`SCANS`].
    scans: Cell<usize>,
    /// Set when the lines are a window of a bigger text: what it knows of the rest.
    window: Option<&'a Window<'a>>,
}

/// Where a haystack's lines sit in a bigger text: runs of the text's lines, in order and
/// apart, one after another in the haystack; the text's other lines are not in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The text's length.
    total: usize,
    /// (first line in the text, length) of each run.
    runs: Vec<(usize, usize)>,
    /// Where each run starts among the haystack's lines.
    starts: Vec<usize>,
}

impl Layout {
    /// Runs `(lo, hi)` of a text of `total` lines, ascending and apart, clipped to the text.
    pub fn new(total: usize, runs: &[(usize, usize)]) -> Layout {
        let mut layout = Layout {
            total,
            runs: Vec::with_capacity(runs.len()),
            starts: Vec::with_capacity(runs.len()),
        };
        let mut own = 0;
        for &(lo, hi) in runs {
            let hi = hi.min(total);
            if lo < hi {
                debug_assert!(
                    layout.runs.last().is_none_or(|&(a, n)| a + n < lo),
                    "runs ascend and are apart"
                );
                layout.runs.push((lo, hi - lo));
                layout.starts.push(own);
                own += hi - lo;
            }
        }
        layout
    }

    /// The run holding text line `i`.
    fn run_of(&self, i: usize) -> Option<usize> {
        let r = self
            .runs
            .partition_point(|&(lo, _)| lo <= i)
            .checked_sub(1)?;
        let (lo, n) = self.runs[r];
        (i < lo + n).then_some(r)
    }

    /// Text lines `lo..hi` as haystack lines, when one run holds them all.
    fn own(&self, lo: usize, hi: usize) -> Option<(usize, usize)> {
        if lo >= hi {
            return Some((0, 0));
        }
        let r = self.run_of(lo)?;
        let (at, n) = self.runs[r];
        (hi <= at + n).then(|| (self.starts[r] + lo - at, self.starts[r] + hi - at))
    }

    /// The text line that haystack line `j` is.
    fn text_line(&self, j: usize) -> usize {
        let r = self.starts.partition_point(|&s| s <= j) - 1;
        self.runs[r].0 + j - self.starts[r]
    }

    /// Whether text line `i` is within `margin` lines of an edge of its run that is not an
    /// end of the text (or in no run at all).
    fn near_edge(&self, i: usize, margin: usize) -> bool {
        let Some(r) = self.run_of(i) else { return true };
        let (lo, n) = self.runs[r];
        (lo > 0 && i < lo + margin) || (lo + n < self.total && i + margin >= lo + n)
    }
}

/// A haystack over parts of a text that changes (a file patched hunk after hunk), with a
/// census of the whole text: a search answers from the parts only when the census shows that
/// every line it looked up occurs in them, and it read no line outside them (a read outside
/// them finds nothing and spills the window; lines looked up are also to be far from the
/// parts' inner edges, so that a match's surroundings are in them). A spilled window's answer
/// must not be used: the caller takes in what it lacked ([`Window::lacking`]) and searches
/// again, or searches the whole text.
pub struct Window<'w> {
    census: &'w Census,
    /// The whole text's lines with their tags, in any order, for the census on first use.
    whole: &'w Whole<'w>,
    layout: Layout,
    margin: usize,
    /// What a search lacked: keys some of whose lines are outside the parts, or near their
    /// edges; lines it read past a part.
    lacking: RefCell<Vec<Lack>>,
    /// A search only the whole text answers.
    lost: Cell<bool>,
}

impl<'w> Window<'w> {
    /// A window of `whole` (which calls its function on every line of the text and its tag,
    /// in any order) made of the parts `layout` names; matches within `margin` lines of an
    /// edge of a part that is not the text's own spill it.
    pub fn new(census: &'w Census, whole: &'w Whole<'w>, layout: Layout, margin: usize) -> Self {
        Window {
            census,
            whole,
            layout,
            margin,
            lacking: RefCell::new(Vec::new()),
            lost: Cell::new(false),
        }
    }

    /// Whether a search needed more than the window.
    pub fn spilled(&self) -> bool {
        self.lost.get() || !self.lacking.borrow().is_empty()
    }

    /// What the searches lacked, each once; `None` when only the whole text answers them.
    pub fn lacking(&self) -> Option<Vec<Lack>> {
        if self.lost.get() {
            return None;
        }
        let mut lacks = self.lacking.borrow().clone();
        lacks.sort_by_key(|l| match *l {
            Lack::Key(pass, h) => (0, pass.index() as u64, h),
            Lack::Lines(lo, hi) => (1, lo as u64, hi as u64),
        });
        lacks.dedup();
        Some(lacks)
    }

    /// Lines read past a part, from `at` on: they are to be in the next window.
    fn lack_lines(&self, at: usize) {
        let hi = at.saturating_add(4 * self.margin).min(self.layout.total);
        self.lacking.borrow_mut().push(Lack::Lines(at, hi));
    }

    fn lose(&self) {
        self.lost.set(true);
    }

    /// Lines of the whole text whose key for `pass` hashes to `hash`; `None` for a hash the
    /// census does not count.
    pub fn count(&self, pass: Pass, hash: u64) -> Option<usize> {
        self.census.count(pass, hash, self.whole)
    }

    /// Check that `found` (the window's lines hashing to `hash`, as lines of the text) are
    /// all the text's, and far from the parts' inner edges.
    fn check(&self, pass: Pass, hash: u64, found: &[u32]) {
        match self.count(pass, hash) {
            None => self.lose(),
            Some(n) => {
                if n != found.len()
                    || found
                        .iter()
                        .any(|&p| self.layout.near_edge(p as usize, self.margin))
                {
                    self.lacking.borrow_mut().push(Lack::Key(pass, hash));
                }
            }
        }
    }
}

/// What a search in a window lacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lack {
    /// Lines whose key for the pass hashes to this: wherever they are, they are to be in.
    Key(Pass, u64),
    /// Lines `lo..hi` of the text.
    Lines(usize, usize),
}

/// A text's lines, each handed to the function given with its tag, in any order.
pub type Whole<'w> = dyn Fn(&mut dyn FnMut(&str, u64)) + 'w;

type Counts = HashMap<u64, u32, BuildHasherDefault<crate::hash::Prehashed>>;

/// How many lines of a text have each wanted key, per pass, kept up to date as the text
/// changes: counting is free of positions, so an edit costs its own lines, not the text's.
/// On demand it also keeps which lines (by tag: a number each line of the text keeps while it
/// stays, ascending through the text) have each wanted key, so a search can take in all of
/// them wherever they are.
pub struct Census {
    wanted: Wanted,
    counts: [OnceCell<Counts>; 4],
    tags: [OnceCell<BTreeSet<(u64, u64)>>; 4],
}

impl Census {
    /// A census of `wanted` lines (a patch's lines, anchors and headings) in any pass.
    pub fn new<'w>(wanted: impl Iterator<Item = &'w str>) -> Census {
        Census {
            wanted: Wanted::new(wanted),
            counts: Default::default(),
            tags: Default::default(),
        }
    }

    fn count(&self, pass: Pass, hash: u64, whole: &Whole) -> Option<usize> {
        let set = self.wanted.set(pass);
        if !set.contains(hash) {
            return None;
        }
        let counts = self.counts[pass.index()].get_or_init(|| {
            let mut counts = HashMap::with_hasher(Default::default());
            whole(&mut |l, _| {
                let h = hash_str(&key(pass, l));
                if set.contains(h) {
                    *counts.entry(h).or_insert(0u32) += 1;
                }
            });
            counts
        });
        Some(counts.get(&hash).copied().unwrap_or(0) as usize)
    }

    /// The tags of the lines whose key for `pass` hashes to `hash`, ascending; `None` for a
    /// hash the census does not keep.
    pub fn tags(&self, pass: Pass, hash: u64, whole: &Whole) -> Option<Vec<u64>> {
        let set = self.wanted.set(pass);
        if !set.contains(hash) {
            return None;
        }
        let tags = self.tags[pass.index()].get_or_init(|| {
            let mut tags = BTreeSet::new();
            whole(&mut |l, tag| {
                let h = hash_str(&key(pass, l));
                if set.contains(h) {
                    tags.insert((h, tag));
                }
            });
            tags
        });
        Some(
            tags.range((hash, 0)..=(hash, u64::MAX))
                .map(|&(_, t)| t)
                .collect(),
        )
    }

    /// Forget the tags kept (the text's lines were tagged afresh): they are taken anew when
    /// next asked for.
    pub fn forget_tags(&mut self) {
        self.tags = Default::default();
    }

    /// Lines `gone` replaced by lines `new` (each with its tag) in the text counted.
    pub fn replace<'l>(
        &mut self,
        gone: impl Iterator<Item = (&'l str, u64)> + Clone,
        new: impl Iterator<Item = (&'l str, u64)> + Clone,
    ) {
        for pass in [
            Pass::Exact,
            Pass::TrailingWhitespace,
            Pass::Whitespace,
            Pass::Unicode,
        ] {
            let i = pass.index();
            if self.counts[i].get().is_none() && self.tags[i].get().is_none() {
                continue;
            }
            let set = self.wanted.set(pass);
            let changes = gone
                .clone()
                .map(|g| (g, false))
                .chain(new.clone().map(|n| (n, true)));
            for ((l, tag), up) in changes {
                let h = hash_str(&key(pass, l));
                if !set.contains(h) {
                    continue;
                }
                if let Some(counts) = self.counts[i].get_mut() {
                    let c = counts.entry(h).or_insert(0);
                    // A line leaving the text was counted when it came in: a count below the
                    // truth would make a window look complete when it is not.
                    debug_assert!(up || *c > 0, "the census counts every line it loses");
                    *c = if up { *c + 1 } else { c.saturating_sub(1) };
                }
                if let Some(tags) = self.tags[i].get_mut() {
                    let known = if up {
                        tags.insert((h, tag))
                    } else {
                        tags.remove(&(h, tag))
                    };
                    debug_assert!(known, "each line is in the census once");
                }
            }
        }
    }
}

/// Exact searches that scan the lines before the index is built instead: a patch of many
/// hunks pays for at most this many scans of the file on top of its index.
const SCANS: usize = 4;
/// A needle line shorter than this would match too often for a scan to pay.
const SCAN_MIN_LINE: usize = 4;

/// The lines a haystack is searched for: their keys' hashes are taken per pass, on the
/// pass's first search (most patches are placed by the exact pass alone).
struct Wanted {
    /// The lines one after another in one buffer (a patch's lines number in the thousands),
    /// each ending where `ends` says.
    text: String,
    ends: Vec<usize>,
    sets: [OnceCell<WantedSet>; 4],
}

/// Hashes of wanted keys, with a bit per hash bucket in front: most file lines are not
/// wanted, and the bits say so without a lookup.
struct WantedSet {
    hashes: HashSet<u64, BuildHasherDefault<crate::hash::Prehashed>>,
    bits: Vec<u64>,
}

const WANTED_BITS: u64 = 1 << 17;

impl WantedSet {
    fn new<'k>(keys: impl Iterator<Item = std::borrow::Cow<'k, str>>) -> WantedSet {
        let mut set = WantedSet {
            hashes: HashSet::with_hasher(Default::default()),
            bits: vec![0; (WANTED_BITS / 64) as usize],
        };
        for k in keys {
            let h = hash_str(&k);
            let b = (h >> 7) % WANTED_BITS;
            set.bits[(b / 64) as usize] |= 1 << (b % 64);
            set.hashes.insert(h);
        }
        set
    }

    fn contains(&self, h: u64) -> bool {
        let b = (h >> 7) % WANTED_BITS;
        self.bits[(b / 64) as usize] & (1 << (b % 64)) != 0 && self.hashes.contains(&h)
    }
}

impl Wanted {
    fn new<'w>(lines: impl Iterator<Item = &'w str>) -> Wanted {
        let (mut text, mut ends) = (String::new(), Vec::new());
        for l in lines {
            text.push_str(l);
            ends.push(text.len());
        }
        Wanted {
            text,
            ends,
            sets: Default::default(),
        }
    }

    fn lines(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.text[a..b])
    }

    fn set(&self, pass: Pass) -> &WantedSet {
        self.sets[pass.index()].get_or_init(|| WantedSet::new(self.lines().map(|w| key(pass, w))))
    }
}

/// Line key → the positions holding it, ascending: one table of (first, count) per distinct
/// hash into one array of positions, so building it allocates twice, not once per line.
struct LineIndex {
    slots: HashMap<u64, (u32, u32), BuildHasherDefault<crate::hash::Prehashed>>,
    positions: Vec<u32>,
}

impl LineIndex {
    /// The positions of the keys whose hash `keep` accepts, each as `place` has it.
    fn new<'k>(
        keys: impl ExactSizeIterator<Item = &'k str>,
        keep: impl Fn(u64) -> bool,
        place: impl Fn(usize) -> usize,
    ) -> LineIndex {
        let mut slots: HashMap<u64, (u32, u32), BuildHasherDefault<crate::hash::Prehashed>> =
            HashMap::with_hasher(Default::default());
        // (hash, line) of the lines kept.
        let hashes: Vec<(u64, u32)> = keys
            .enumerate()
            .map(|(i, k)| (hash_str(k), i))
            .filter(|&(h, _)| keep(h))
            .map(|(h, i)| (h, place(i) as u32))
            .collect();
        for &(h, _) in &hashes {
            slots.entry(h).or_default().1 += 1;
        }
        // Each slot's positions follow the previous slot's; then they are filled in line
        // order, so they come out ascending.
        let mut next = 0;
        for slot in slots.values_mut() {
            let count = slot.1;
            *slot = (next, 0);
            next += count;
        }
        let mut positions = vec![0u32; hashes.len()];
        for (h, i) in &hashes {
            let slot = slots.get_mut(h).expect("every hash was counted");
            positions[(slot.0 + slot.1) as usize] = *i;
            slot.1 += 1;
        }
        LineIndex { slots, positions }
    }

    fn get(&self, hash: u64) -> &[u32] {
        match self.slots.get(&hash) {
            Some(&(first, count)) => &self.positions[first as usize..(first + count) as usize],
            None => &[],
        }
    }
}

fn hash_str(s: &str) -> u64 {
    crate::hash::of(s.as_bytes())
}

impl<'a> Haystack<'a> {
    pub fn new(lines: &'a [Line<'a>]) -> Haystack<'a> {
        Haystack {
            lines,
            keys: Default::default(),
            index: Default::default(),
            wanted: None,
            full: Default::default(),
            scans: Cell::new(0),
            window: None,
        }
    }

    /// This haystack as `window` of a bigger text.
    pub fn within(self, window: &'a Window<'a>) -> Haystack<'a> {
        Haystack {
            window: Some(window),
            ..self
        }
    }

    /// Whether the lines are the whole text: a search that must see all of it (a scan for a
    /// prefix, a block running to the end) marks a window spilled otherwise.
    fn whole(&self) -> bool {
        match self.window {
            // A window that lacks lines already is searched again with them: what the
            // search needs of the whole text is asked then.
            Some(w) if w.spilled() => false,
            Some(w) => {
                w.lose();
                false
            }
            None => true,
        }
    }

    /// Text lines `lo..hi` as lines of the haystack; a range that is not all in it loses
    /// the window (and reads as no lines).
    fn own(&self, lo: usize, hi: usize) -> (usize, usize) {
        match self.window {
            None => (lo, hi),
            Some(w) => w.layout.own(lo, hi).unwrap_or_else(|| {
                w.lose();
                (0, 0)
            }),
        }
    }

    /// How many lines of the whole text have key `k` (a superset on hash collisions): the
    /// census's figure in a window, where the window's own would undercount.
    pub fn count(&self, pass: Pass, k: &str) -> usize {
        match self.window {
            Some(w) => w.count(pass, hash_str(k)).unwrap_or_else(|| {
                w.lose();
                0
            }),
            None => self.positions(pass, k).len(),
        }
    }

    /// An exact search answered by a scan of the lines for the needle's longest line (the
    /// likeliest to be rare), each candidate then checked whole; `None` when the index is to
    /// answer (built already, the scans spent, or a needle of short lines only).
    fn scan_exact<S: AsRef<str>>(&self, needle: &[S]) -> Option<Vec<usize>> {
        if self.scans.get() >= SCANS
            || self.window.is_some()
            || self.index[0].get().is_some()
            || self.full[0].get().is_some()
        {
            return None;
        }
        let (j, line) = needle
            .iter()
            .enumerate()
            .rev()
            .max_by_key(|(_, l)| l.as_ref().len())
            .expect("needle is not empty");
        let line = line.as_ref();
        if line.len() < SCAN_MIN_LINE {
            return None;
        }
        self.scans.set(self.scans.get() + 1);
        Some(
            self.lines
                .iter()
                .enumerate()
                .skip(j)
                .filter(|(_, l)| l.len() == line.len() && **l == *line)
                .map(|(k, _)| k - j)
                .filter(|&start| self.matches_at(Pass::Exact, needle, start))
                .collect(),
        )
    }

    /// A haystack searched for `wanted` lines (a patch's lines and anchors), in any pass.
    pub fn for_lines<'w>(
        lines: &'a [Line<'a>],
        wanted: impl Iterator<Item = &'w str>,
    ) -> Haystack<'a> {
        Haystack {
            wanted: Some(Wanted::new(wanted)),
            ..Haystack::new(lines)
        }
    }

    /// The text's length (a window's text's, not the window's).
    pub fn len(&self) -> usize {
        match self.window {
            Some(w) => w.layout.total,
            None => self.lines.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The lines, of a haystack that is a whole text.
    pub fn lines(&self) -> &'a [Line<'a>] {
        assert!(self.window.is_none(), "a window's lines are read by range");
        self.lines
    }

    /// Line `i` of the text; in a window, `None` for a line outside it (which loses it).
    pub fn line_at(&self, i: usize) -> Option<&str> {
        let (lo, hi) = self.own(i, i + 1);
        (lo < hi).then(|| &*self.lines[lo])
    }

    /// Line `i` of the text; in a window, `None` for a line outside it, which the window is
    /// then to take in (the search's answer is not used).
    pub fn line_or_lack(&self, i: usize) -> Option<&str> {
        match self.window {
            Some(w) => match w.layout.own(i, i + 1) {
                Some((lo, hi)) if lo < hi => Some(&*self.lines[lo]),
                _ => {
                    w.lack_lines(i);
                    None
                }
            },
            None => Some(&*self.lines[i]),
        }
    }

    /// Line `i` of the text (in a window, a line outside it reads as empty, and loses it).
    pub fn line(&self, i: usize) -> &str {
        self.line_at(i).unwrap_or("")
    }

    /// Lines `lo..hi` of the text (in a window, a range outside it reads as no lines, and
    /// loses it).
    pub fn line_span(&self, lo: usize, hi: usize) -> &'a [Line<'a>] {
        let (lo, hi) = self.own(lo, hi);
        &self.lines[lo..hi]
    }

    /// Keys for `pass` of lines `lo..hi` of the text, as [`Haystack::line_span`] reads them.
    pub fn key_span(&self, pass: Pass, lo: usize, hi: usize) -> &[Line<'a>] {
        let (lo, hi) = self.own(lo, hi);
        &self.own_keys(pass)[lo..hi]
    }

    /// Keys for `pass` of every line, of a haystack that is a whole text.
    pub fn keys(&self, pass: Pass) -> &[Line<'a>] {
        assert!(self.window.is_none(), "a window's keys are read by range");
        self.own_keys(pass)
    }

    fn own_keys(&self, pass: Pass) -> &[Line<'a>] {
        if pass == Pass::Exact {
            return self.lines;
        }
        let lines: &'a [Line<'a>] = self.lines;
        self.keys[pass.index()].get_or_init(|| lines.iter().map(|l| key(pass, l)).collect())
    }

    /// Positions (lines of the text) of lines whose key equals `k`, ascending (a superset on
    /// hash collisions; verify).
    pub fn positions(&self, pass: Pass, k: &str) -> &[u32] {
        let h = hash_str(k);
        let found = self.positions_of(pass, h);
        if let Some(w) = self.window {
            w.check(pass, h, found);
        }
        found
    }

    fn positions_of(&self, pass: Pass, h: u64) -> &[u32] {
        let i = pass.index();
        let keys = || self.own_keys(pass).iter().map(|k| &**k);
        let place = |j: usize| match self.window {
            Some(w) => w.layout.text_line(j),
            None => j,
        };
        match &self.wanted {
            Some(w) if w.set(pass).contains(h) => self.index[i]
                .get_or_init(|| LineIndex::new(keys(), |h| w.set(pass).contains(h), place))
                .get(h),
            Some(_) => self.full[i]
                .get_or_init(|| LineIndex::new(keys(), |_| true, place))
                .get(h),
            None => self.index[i]
                .get_or_init(|| LineIndex::new(keys(), |_| true, place))
                .get(h),
        }
    }

    /// Whether `needle` (keyed for `pass`) is at line `at` of the text.
    pub fn matches_at<S: AsRef<str>>(&self, pass: Pass, needle: &[S], at: usize) -> bool {
        let Some(end) = at.checked_add(needle.len()).filter(|&e| e <= self.len()) else {
            return false;
        };
        let (lo, hi) = self.own(at, end);
        hi - lo == needle.len()
            && self.own_keys(pass)[lo..hi]
                .iter()
                .zip(needle)
                .all(|(k, n)| **k == *n.as_ref())
    }

    /// Every start where `needle` (already keyed for `pass`) occurs contiguously.
    pub fn find_all<S: AsRef<str>>(&self, pass: Pass, needle: &[S]) -> Vec<usize> {
        if needle.is_empty() {
            return Vec::new();
        }
        if pass == Pass::Exact {
            if let Some(found) = self.scan_exact(needle) {
                return found;
            }
        }
        let (rarest, _) = needle
            .iter()
            .enumerate()
            .map(|(j, k)| (j, self.count(pass, k.as_ref())))
            .min_by_key(|&(_, n)| n)
            .expect("needle is not empty");
        let occ = self.positions(pass, needle[rarest].as_ref());
        let mut out = Vec::new();
        for &f in occ {
            let f = f as usize;
            if f < rarest {
                continue;
            }
            let start = f - rarest;
            if self.matches_at(pass, needle, start) {
                out.push(start);
            }
        }
        out
    }
}

/// Why a candidate was chosen among several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
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
    pub end: usize,
    /// For each old-side line of the hunk (context and removed, in order): its file line.
    pub mapping: Vec<Option<usize>>,
    /// For each run of added lines (in hunk order): the file line it goes before.
    pub inserts: Vec<usize>,
    pub pass: Pass,
    pub occurrences: usize,
    pub decided_by: DecidedBy,
    pub fuzz: Option<Fuzz>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    Placed(Placement),
    /// The hunk's result is already in the file, starting at this line.
    AlreadyApplied {
        start: usize,
        pass: Pass,
    },
    /// The hunk fits in several places and nothing decides between them.
    Ambiguous {
        pass: Pass,
        starts: Vec<usize>,
    },
    /// The hunk fits nowhere; `reason` says what the closest attempt lacked when known.
    NotFound {
        reason: Option<String>,
    },
}

/// Everything about a hunk that locating needs besides the file.
pub struct Query<'h> {
    pub hunk: &'h Hunk,
    /// Expected 0-based start, from the header's numbers and earlier hunks' offsets.
    pub hint: Option<usize>,
    /// End of the previous hunk's region (file order), for `ordered` patches.
    pub prev_end: usize,
    pub ordered: bool,
    /// Regions already taken by earlier hunks of this file. Only placements without any
    /// context of their own (bare insertions, end-of-file fits) avoid them; a hunk whose
    /// best place overlaps an earlier one is placed there, and the caller applies the
    /// file's hunks one after another instead.
    pub taken: &'h [(usize, usize)],
    /// The patch's context width (`-U`), at least 3: the widest context side of its hunks.
    pub context_width: usize,
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

pub fn locate(hay: &Haystack, q: &Query) -> Located {
    let old = old_side(q.hunk);
    let new_texts: Vec<&str> = q.hunk.new_lines().map(|l| l.text.as_str()).collect();

    if old.texts.is_empty() {
        return locate_bare_insertion(hay, q, &new_texts);
    }
    let anchor_gone = anchor_missing(hay, q);

    for pass in Pass::LINE_PASSES {
        if let Some(found) = at_pass(hay, q, &old, &new_texts, pass, anchor_gone) {
            return found;
        }
    }

    if let Some(found) = blank_lines_past_eof(hay, q, &old, &new_texts) {
        return found;
    }
    if let Some(found) = new_side_there(hay, q, &old, &new_texts) {
        return found;
    }
    fuzzy(hay, q, &old)
}

/// The hunk's old side looked up under one line pass: `None` when it fits nowhere under it
/// (the next pass is tried), else what its fits decide.
fn at_pass(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    new_texts: &[&str],
    pass: Pass,
    anchor_gone: Option<&str>,
) -> Option<Located> {
    let needle = keys(pass, &old.texts);
    let (starts, above_anchor) = pinned_fits(hay, q, pass, &needle);
    if starts.is_empty() {
        return None;
    }
    // The anchor was the author's word on where the hunk goes; without it, lines that
    // say nothing of their own, or fit in several places, do not place the hunk.
    if let Some(anchor) = anchor_gone {
        if starts.len() > 1 || says_nothing(q.hunk) {
            return Some(Located::NotFound {
                reason: Some(anchor_missing_refusal(anchor, &starts)),
            });
        }
    }
    // Braces and blank lines alone that fit only with their indentation changed say
    // nothing of where they belong: a run of `}` at other depths is found almost
    // anywhere. Nor may a looser pass pick among such fits.
    let punctuation = |t: &&str| !t.chars().any(char::is_alphanumeric);
    if pass.ignores_indentation() && old.texts.iter().all(punctuation) {
        if let [one] = starts.as_slice() {
            return Some(Located::NotFound {
                reason: Some(format!(
                    "the hunk's lines are braces and blank lines alone, which fit (at line \
                     {}) only with their indentation changed: too little to place it by; \
                     resend it with a line that says more, exactly as the file has it",
                    one + 1
                )),
            });
        }
        return Some(Located::Ambiguous { pass, starts });
    }
    match decide(hay, q, &starts) {
        Some((start, decided_by)) => {
            // The anchors told this fit from those above them.
            let decided_by = match decided_by {
                DecidedBy::Unique if above_anchor => DecidedBy::Anchor,
                other => other,
            };
            let fit = Fit {
                pass,
                start,
                end: start + needle.len(),
                occurrences: starts.len(),
                decided_by,
            };
            Some(at_fit(hay, q, old, new_texts, fit))
        }
        // A looser pass only adds candidates; it must not pick one of them over the
        // stricter matches that were already undecidable.
        None => Some(Located::Ambiguous { pass, starts }),
    }
}

/// The one fit a line pass decided on: the old side matched at `start..end`.
struct Fit {
    pass: Pass,
    start: usize,
    end: usize,
    occurrences: usize,
    decided_by: DecidedBy,
}

/// What a decided fit is: the hunk placed there, already applied there, or refused because
/// another reading of the hunk (a nearer loose fit, additions at an edge) fits as well.
fn at_fit(hay: &Haystack, q: &Query, old: &Old, new_texts: &[&str], fit: Fit) -> Located {
    let Fit {
        pass,
        start,
        end,
        occurrences,
        decided_by,
    } = fit;
    if already_at(hay, q.hunk, pass, start, old.texts.len(), new_texts) {
        if q.hunk.short_by > 0 {
            return short_body_refusal(q.hunk, start, true);
        }
        // `diff`'s shape says the hunk reaches that end of the file, and its new
        // side does: as git reads it, applied already.
        let (n_old, n_new) = (old.texts.len(), new_texts.len());
        let ends = q.hunk.eof_by_shape && start + n_new == hay.len();
        let starts = q.hunk.bof_by_shape && start + n_old == n_new;
        if ends || starts {
            return Located::AlreadyApplied {
                start: if ends { start } else { 0 },
                pass,
            };
        }
        return repeat_or_applied_refusal(q.hunk, start);
    }
    // The old side matched only loosely where the new side is there more strictly:
    // a change of whitespace or punctuation that has already been made. Only a
    // new side that covers the very region the old side matched says so: a
    // shorter one (a deletion's context) is there whether or not it was applied.
    if let Some(stricter) = Pass::LINE_PASSES.into_iter().find(|p| *p < pass) {
        if new_texts.len() == old.texts.len()
            && hay.matches_at(stricter, &keys(stricter, new_texts), start)
        {
            return Located::AlreadyApplied {
                start,
                pass: stricter,
            };
        }
    }
    if let Some(rival) = nearer_loose_fit(hay, q, old, pass, start, decided_by) {
        let mut starts = vec![start, rival];
        starts.sort();
        return Located::Ambiguous {
            pass: Pass::Fuzzy,
            starts,
        };
    }
    if let Some(refusal) = edge_additions_unsure(hay, q, start, end) {
        return refusal;
    }
    match edge_by_shape(hay, q, start, end) {
        EdgeReading::BesideContext => {}
        EdgeReading::AtEdge(pinned) => {
            let pq = Query {
                hunk: &pinned,
                ..*q
            };
            return match fuzzy(hay, &pq, old) {
                placed @ Located::Placed(_) => placed,
                _ => two_edge_readings(hay, &pinned, start, end),
            };
        }
        EdgeReading::Both(pinned) => {
            return two_edge_readings(hay, &pinned, start, end);
        }
    }
    let mapping: Vec<Option<usize>> = (start..end).map(Some).collect();
    let inserts = insertion_points(q.hunk, &old.kinds, &mapping, hay.len(), None)
        .expect("a contiguous match always has insertion points");
    Located::Placed(Placement {
        start,
        end,
        mapping,
        inserts,
        pass,
        occurrences,
        decided_by,
        fuzz: None,
    })
}

/// The old side is nowhere: maybe the new side is already there — where the hunk would
/// land, by the same rules that place it. Loosely matched, it counts only when the added
/// lines say something (a lone `}` matches too easily). `None`: the fuzzy pass decides.
fn new_side_there(hay: &Haystack, q: &Query, old: &Old, new_texts: &[&str]) -> Option<Located> {
    if !q.hunk.has_changes() {
        return None;
    }
    let distinctive = q
        .hunk
        .lines
        .iter()
        .any(|l| l.kind == LineKind::Add && !is_trivial(&l.text));
    for pass in Pass::LINE_PASSES {
        if pass > Pass::Exact && !distinctive {
            break;
        }
        let needle = keys(pass, new_texts);
        if needle.is_empty() {
            break;
        }
        let (starts, _) = pinned_fits(hay, q, pass, &needle);
        if starts.is_empty() {
            continue;
        }
        let Some((start, _)) = decide(hay, q, &starts) else {
            // In several places: no evidence of this hunk's place. The fuzzy pass may
            // still find the old side.
            break;
        };
        // The old side may still fit loosely elsewhere — the same lines in a sibling
        // function the patch does not mean. Nearer the hint, that is the place; with no
        // hint to tell them apart, it is two places.
        let end = start + needle.len();
        let old_fit = fuzzy(hay, q, old);
        if let Located::Placed(p) = &old_fit {
            let elsewhere = p.end <= start || p.start >= end;
            match q.hint {
                Some(h) if elsewhere && p.start.abs_diff(h) + 3 <= start.abs_diff(h) => {
                    return Some(old_fit);
                }
                None if elsewhere => {
                    let mut starts = vec![start, p.start];
                    starts.sort();
                    return Some(Located::Ambiguous {
                        pass: Pass::Fuzzy,
                        starts,
                    });
                }
                _ => {}
            }
        }
        // The old side fits loosely too, perhaps with the line the body lacks in a gap:
        // then "not yet applied" explains the file as well as "already applied". A body
        // without counts (a Codex or SEARCH/REPLACE hunk, a numberless header) may lack
        // lines as well as one whose header says so. And where the added lines say
        // nothing (a blank line, a brace), the line the body may lack is as likely the
        // one that shows the change is not made: such lines are beside most lines.
        let maybe_short = q.hunk.short_by > 0 || q.hunk.old_start.is_none();
        let old_fits = !matches!(old_fit, Located::NotFound { .. });
        if maybe_short && (old_fits || !distinctive) {
            return Some(short_body_refusal(q.hunk, start, old_fits));
        }
        return Some(Located::AlreadyApplied { start, pass });
    }
    None
}

/// A body short of its header (lines dropped, or counts wrong) matched the file at
/// `start..end`, and lines it adds come first or last, beside a context line, with no line
/// of the file's after (or before) them in the hunk. The lines the header counts and the
/// body lacks may sit between those additions and the rest of the body, that is, the
/// additions may belong up to that many lines further out. Where that gives a different
/// file, nothing tells the two readings apart, and the hunk is refused.
///
/// The numbers rule out one side when they pin the body: a body at exactly the header's
/// start lacks no line before it, and one exactly `short_by` lines after it lacks none
/// after it.
fn edge_additions_unsure(hay: &Haystack, q: &Query, start: usize, end: usize) -> Option<Located> {
    let (h, k) = (q.hunk, q.hunk.short_by);
    let n = h.lines.len();
    let is_add = |l: &&crate::patch::Line| l.kind == LineKind::Add;
    let lead = h.lines.iter().take_while(is_add).count();
    let trail = h.lines.iter().rev().take_while(is_add).count();
    // An all-additions body is placed by other rules.
    if k == 0 || trail == n {
        return None;
    }
    // Only additions beside a context line: those right after (or before) removed lines
    // replace them, wherever a dropped line was.
    let beside_context = |i: usize| h.lines[i].kind == LineKind::Context;
    let texts = |r: std::ops::Range<usize>| -> Vec<&str> {
        h.lines[r].iter().map(|l| l.text.as_str()).collect()
    };
    let last = (trail > 0 && beside_context(n - trail - 1)).then(|| texts(n - trail..n));
    let first = (lead > 0 && beside_context(lead)).then(|| texts(0..lead));
    let differs = |block: &[&str], lo: usize, hi: usize| reads_differently(hay, block, lo, hi);
    let after_ruled_out = q.hint.is_some_and(|s| start == s + k);
    let before_ruled_out = q.hint.is_some_and(|s| start == s);
    let hi = (end + k).min(hay.len());
    let lo = start.saturating_sub(k);
    let unsure = match (&last, &first) {
        (Some(block), _) if !after_ruled_out && hi > end && differs(block, end, hi) => {
            Some((end, hi, "last"))
        }
        (_, Some(block)) if !before_ruled_out && lo < start && differs(block, lo, start) => {
            Some((lo, start, "first"))
        }
        _ => None,
    };
    let (lo, hi, which) = unsure?;
    Some(Located::NotFound {
        reason: Some(format!(
            "the hunk's header counts {k} more line(s) than its body has, and the lines it adds \
             come {which} with no line of the file beyond them: the missing line(s) may be {}, \
             which would put the additions on the other side of them, a different file; resend \
             the hunk with all its lines (or with counts that match them)",
            if hi - lo == 1 {
                format!("line {hi}")
            } else {
                format!("lines {}-{hi}", lo + 1)
            }
        )),
    })
}

/// Where `diff`'s one-sided shape (see [`Hunk::eof_by_shape`]) puts the additions of a hunk
/// that matches `start..end` a few lines short of that end of the file.
enum EdgeReading {
    /// No other reading: the additions go beside the context, as a model writes them.
    BesideContext,
    /// At the end of the file, past lines the patch lost from its context (the hunk pinned).
    AtEdge(Hunk),
    /// Either; the hunk pinned, for the refusal's words.
    Both(Hunk),
}

/// The additions come last (first), after (before) a context line, and the file has a few
/// more lines there, no more than the patch's context width leaves room for beside the
/// hunk's context. Then the hunk may be `diff`'s, at the end of the file with those lines
/// lost from its context (the corpus's interior context line dropped, counts recomputed), as
/// git reads it, or a model's, with the additions right beside the context. With the context
/// whole, no lost line explains the file's extra lines: beside the context it is. Between
/// the two, one thing tells them apart: additions that would land before a line indented
/// deeper than any of them cut the block that line belongs to (a top-level `def` between a
/// function's last two lines), which no model means, so the end of the file it is; otherwise
/// the hunk is refused.
fn edge_by_shape(hay: &Haystack, q: &Query, start: usize, end: usize) -> EdgeReading {
    let h = q.hunk;
    let n = h.lines.len();
    let is_add = |l: &&crate::patch::Line| l.kind == LineKind::Add;
    let lead_adds = h.lines.iter().take_while(is_add).count();
    let trail_adds = h.lines.iter().rev().take_while(is_add).count();
    if trail_adds == n {
        return EdgeReading::BesideContext;
    }
    let texts = |r: std::ops::Range<usize>| -> Vec<&str> {
        h.lines[r].iter().map(|l| l.text.as_str()).collect()
    };
    let differs = |block: &[&str], lo: usize, hi: usize| reads_differently(hay, block, lo, hi);
    let beside_context = |i: usize| h.lines[i].kind == LineKind::Context;
    let lost = |context: usize| q.context_width.saturating_sub(context);
    let len = hay.len();
    let mut pinned = h.clone();
    if h.eof_by_shape
        && trail_adds > 0
        && beside_context(n - trail_adds - 1)
        && end < len
        && len - end <= lost(h.leading_context())
    {
        let block = texts(n - trail_adds..n);
        if !differs(&block, end, len) {
            return EdgeReading::BesideContext;
        }
        pinned.at_eof = true;
        let depth = |t: &str| super::normalize::indentation(t).len();
        let shallowest = block
            .iter()
            .filter(|t| !t.trim().is_empty())
            .map(|t| depth(t))
            .min();
        let next = hay
            .key_span(Pass::Exact, end, len)
            .iter()
            .find(|t| !t.trim().is_empty())
            .map(|t| depth(t));
        return match (shallowest, next) {
            (Some(s), Some(g)) if g > s => EdgeReading::AtEdge(pinned),
            _ => EdgeReading::Both(pinned),
        };
    }
    if h.bof_by_shape
        && lead_adds > 0
        && beside_context(lead_adds)
        && start > 0
        && start <= lost(h.trailing_context())
        && differs(&texts(0..lead_adds), 0, start)
    {
        pinned.at_bof = true;
        return EdgeReading::Both(pinned);
    }
    EdgeReading::BesideContext
}

/// The first of the hunk's Codex `@@` anchors that is not in the file (or not after the one
/// before it), when the whole file is searched.
fn anchor_missing<'h>(hay: &Haystack, q: &Query<'h>) -> Option<&'h str> {
    // In a window of the text, an anchor outside it is not missing: only a search of the
    // whole text (which a window that lacks lines asks for anyway) can say.
    if q.hunk.anchors.is_empty()
        || hay.window.is_some()
        || !anchor_positions(hay, q, None).is_empty()
    {
        return None;
    }
    let (mut known, mut found) = (Vec::new(), None);
    for a in &q.hunk.anchors {
        known.push(a.clone());
        let part = Hunk {
            anchors: known.clone(),
            ..Hunk::default()
        };
        if anchor_positions(hay, &Query { hunk: &part, ..*q }, None).is_empty() {
            found = Some(a.as_str());
            break;
        }
    }
    found.or(q.hunk.anchors.last().map(String::as_str))
}

/// Whether a placed hunk's `@@` anchor is missing from the file: a warning in the report.
pub fn anchor_missing_warning(lines: &Haystack, hunk: &Hunk) -> Option<String> {
    let q = Query {
        hunk,
        hint: None,
        prev_end: 0,
        ordered: false,
        taken: &[],
        context_width: 3,
    };
    anchor_missing(lines, &q).map(|a| {
        format!(
            "its @@ anchor {a:?} is not in the file; placed by its other lines alone (check that \
             the edit is where you meant it)"
        )
    })
}

fn anchor_missing_refusal(anchor: &str, starts: &[usize]) -> String {
    let fits = match starts {
        [one] => format!("fit once (line {}) but say nothing of their own", one + 1),
        many => format!(
            "fit at {} places (lines {})",
            many.len(),
            many.iter()
                .take(8)
                .map(|s| (s + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "the hunk's @@ anchor {anchor:?} is not in the file, and its other lines {fits}: \
         without the anchor nothing says where it goes; re-read the file and resend the hunk \
         with its anchor as the file has it"
    )
}

/// The refusal of a hunk whose additions [`edge_by_shape`] would put at an end of the file
/// that lines the hunk does not mention keep from them: beside the context, as a model means
/// it, or at the end, as `diff`'s shape says — two files.
fn two_edge_readings(hay: &Haystack, pinned: &Hunk, start: usize, end: usize) -> Located {
    let (lo, hi, before, side, edge) = if pinned.at_eof {
        (end, hay.len(), "before", "after", "end")
    } else {
        (0, start, "after", "before", "start")
    };
    let lines = if hi - lo == 1 {
        format!("line {hi} of the file is")
    } else {
        format!("lines {}-{hi} of the file are", lo + 1)
    };
    Located::NotFound {
        reason: Some(format!(
            "the hunk has context {before} its added lines only, which diff writes only at the \
             {edge} of a file, but {lines} {side} that context: the additions go either right \
             {side} the context, or {side} those lines if the patch lost them from its context \
             (two different files); resend the hunk with a context line {side} the addition to \
             say which"
        )),
    }
}

/// Whether `block` put beside the file's lines `lo..hi` reads differently on their other
/// side: where it does, which side the block goes is a choice that matters.
fn reads_differently(hay: &Haystack, block: &[&str], lo: usize, hi: usize) -> bool {
    let span = hay.key_span(Pass::Exact, lo, hi);
    let others = || span.iter().map(|l| &**l);
    let a = block.iter().copied().chain(others());
    let b = others().chain(block.iter().copied());
    span.len() != hi - lo || !a.eq(b)
}

/// A hunk whose body is short of its header looks already applied at `start`. The lines it
/// lacks may be the ones that, put back, show the change is not there yet (a line the
/// change duplicates, dropped from the context, leaves a body whose new side the unchanged
/// file already has). Neither reading is safe, so the hunk is refused. A body without counts
/// (Codex, SEARCH/REPLACE, a numberless header) is refused the same way where its old side
/// fits there too around a line it does not mention (`old_fits`), or where the lines it adds
/// say nothing (blank, punctuation).
fn short_body_refusal(hunk: &Hunk, start: usize, old_fits: bool) -> Located {
    let why = if hunk.short_by > 0 {
        "its header counts more lines than its body has, and a missing line may be what shows \
         the change is not there yet; resend the hunk with all its lines (or with counts that \
         match them)"
    } else if old_fits {
        "its old side fits there too with a line of the file between (perhaps a line the hunk \
         lost), so whether the change is already made is uncertain; resend the hunk with all its \
         context lines"
    } else {
        "the lines it adds are blank or punctuation alone, and a context line the hunk may have \
         lost could be what shows the change is not made yet; resend the hunk with all its \
         context lines"
    };
    Located::NotFound {
        reason: Some(format!(
            "the hunk's new side is already at line {}, but {why}",
            start + 1
        )),
    }
}

/// A hunk with context on one side only whose old side is in the file with its added
/// lines already beside it, on the side without context: the file reads the same whether
/// the hunk was applied already or is meant to add those lines a second time (a repeated
/// line, a copied block). Neither reading is safe, so the hunk is refused.
fn repeat_or_applied_refusal(hunk: &Hunk, start: usize) -> Located {
    let side = if hunk.trailing_context() == 0 {
        "after"
    } else {
        "before"
    };
    Located::NotFound {
        reason: Some(format!(
            "the hunk's context is at line {}, with its added lines already {side} it: either \
             the hunk is already applied, or it adds those lines a second time; resend it with \
             a context line {side} the addition to say which",
            start + 1
        )),
    }
}

/// Where `needle` (keyed for `pass`) occurs, keeping only ends of the file the hunk is
/// pinned to, and, for a Codex hunk whose `@@` anchors are in the file, only places from the
/// first line they lead to on: Codex looks for the hunk's lines after its anchors, so a fit
/// above them is not the hunk's (fuzz seed 72282: a blank line and `/**` near the top of the
/// file, the anchor's class further down). The anchor line itself may be the first line.
/// Also whether the anchors ruled out a fit.
fn pinned_fits<S: AsRef<str>>(
    hay: &Haystack,
    q: &Query,
    pass: Pass,
    needle: &[S],
) -> (Vec<usize>, bool) {
    let mut starts = hay.find_all(pass, needle);
    if q.hunk.at_eof {
        starts.retain(|&s| s + needle.len() == hay.len());
    }
    if q.hunk.at_bof {
        starts.retain(|&s| s == 0);
    }
    let found = starts.len();
    if !q.hunk.anchors.is_empty() && found > 0 {
        if let Some(&first) = anchor_positions(hay, q, None).iter().min() {
            starts.retain(|&s| s >= first);
        }
    }
    let ruled_out = starts.len() < found;
    (starts, ruled_out)
}

/// A hunk whose trailing context ends in blank lines the file does not have, because the
/// file ends right before them (its last blank line lost with its final newline, or trimmed
/// by an editor): blank lines at the end of a file are whitespace. The rest must match once,
/// ending exactly at the end of the file.
fn blank_lines_past_eof(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    new_texts: &[&str],
) -> Option<Located> {
    let k = q
        .hunk
        .lines
        .iter()
        .rev()
        .take_while(|l| l.kind == LineKind::Context && l.text.trim().is_empty())
        .count();
    if k == 0 || k >= old.texts.len() {
        return None;
    }
    let keep = old.texts.len() - k;
    for pass in Pass::LINE_PASSES {
        let needle = keys(pass, &old.texts[..keep]);
        let starts: Vec<usize> = hay
            .find_all(pass, &needle)
            .into_iter()
            .filter(|&s| s + keep == hay.len() && free(q.taken, s, hay.len()))
            .collect();
        match starts.as_slice() {
            [] => continue,
            [start] => {
                let start = *start;
                let new_keep = new_texts.len().saturating_sub(k);
                if new_keep > 0
                    && hay.len() >= new_keep
                    && hay.matches_at(
                        pass,
                        &keys(pass, &new_texts[..new_keep]),
                        hay.len() - new_keep,
                    )
                {
                    return Some(Located::AlreadyApplied {
                        start: hay.len() - new_keep,
                        pass,
                    });
                }
                let mut mapping: Vec<Option<usize>> = (start..hay.len()).map(Some).collect();
                mapping.extend(std::iter::repeat_n(None, k));
                // Added lines next to the missing blank lines go at the end of the file.
                let inserts = match insertion_points(q.hunk, &old.kinds, &mapping, hay.len(), None)
                {
                    Ok(i) => i,
                    Err(_) => return None,
                };
                return Some(Located::Placed(Placement {
                    start,
                    end: hay.len(),
                    mapping,
                    inserts,
                    pass: pass.max(Pass::Whitespace),
                    occurrences: 1,
                    decided_by: DecidedBy::Unique,
                    fuzz: None,
                }));
            }
            _ => return None,
        }
    }
    None
}

/// Lines between a match and its hint beyond which a looser fit near the hint competes.
const FAR_FROM_HINT: usize = 20;

/// A unique match far from the hint, while the text near the hint still fits loosely: the
/// block may have been copied elsewhere while the intended place drifted. That is two places,
/// not one. Returns the nearer loose start.
fn nearer_loose_fit(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    pass: Pass,
    start: usize,
    decided_by: DecidedBy,
) -> Option<usize> {
    let hint = q.hint?;
    let dist = start.abs_diff(hint);
    // A fit picked from several by its numbers or heading is a weaker choice than the only
    // one: a looser fit nearer the numbers (within NEAR) contests it. Damage to the
    // indentation of a whole hunk moves its true place to a looser pass, while a short
    // context (`}` lines) still fits exactly somewhere else nearby.
    let contested = matches!(decided_by, DecidedBy::Hint | DecidedBy::Anchor);
    if dist <= FAR_FROM_HINT && !(contested && dist > 0) {
        return None;
    }
    let nearer = |s: usize| {
        let d = s.abs_diff(hint);
        s != start && (d * 2 < dist || (contested && d < dist && d <= NEAR))
    };
    for looser in Pass::LINE_PASSES.into_iter().filter(|p| *p > pass) {
        let needle = keys(looser, &old.texts);
        if let Some(s) = hay
            .find_all(looser, &needle)
            .into_iter()
            .find(|&s| nearer(s))
        {
            return Some(s);
        }
    }
    match fuzzy(hay, q, old) {
        Located::Placed(p) if nearer(p.start) => Some(p.start),
        Located::Ambiguous { starts, .. } => starts.into_iter().find(|&s| nearer(s)),
        _ => None,
    }
}

/// A hunk with no old lines at all: only its numbers (or end-of-file) can place it.
fn locate_bare_insertion(hay: &Haystack, q: &Query, new_texts: &[&str]) -> Located {
    let at = if hay.is_empty() {
        Some(0)
    } else if !q.hunk.anchors.is_empty() {
        // Lines added under `@@ anchor` with no other line: Codex's own apply_patch appends
        // them at the end of the file, while the anchor suggests right after it (the
        // innermost anchor line, searched after the previous hunk first, then anywhere). Only
        // where the two are one place is that place certain.
        let mut found = anchor_positions(hay, q, Some(q.prev_end));
        if found.is_empty() {
            found = anchor_positions(hay, q, None);
        }
        match found.as_slice() {
            [] => {
                return Located::NotFound {
                    reason: Some("the hunk's @@ anchor line is not in the file".into()),
                }
            }
            [p] if p + 1 == hay.len() => Some(p + 1),
            [p] => {
                return Located::NotFound {
                    reason: Some(format!(
                        "the hunk adds lines under its @@ anchor (line {}) with no context or \
                         removed line: right after the anchor, or at the end of the file as \
                         Codex's apply_patch puts them? Resend it with a context line from \
                         where they go",
                        p + 1
                    )),
                }
            }
            many => {
                return Located::Ambiguous {
                    pass: Pass::Whitespace,
                    starts: many.iter().map(|p| p + 1).collect(),
                }
            }
        }
    } else if q.hunk.at_eof {
        Some(hay.len())
    } else {
        // Only a line number would place it, and line numbers are never trusted.
        None
    };
    let Some(at) = at else {
        return Located::NotFound {
            reason: Some(
                "the hunk has no context or removed lines, and a line number alone does not place it; resend it with a few lines of context"
                    .into(),
            ),
        };
    };
    // Already there? At the end of the file the added lines would precede `at`; elsewhere
    // they would follow it. Only a block that says something counts as evidence.
    let needle = keys(Pass::Exact, new_texts);
    let already = !needle.is_empty()
        && new_texts.iter().any(|t| !is_trivial(t))
        && if at == hay.len() && at >= needle.len() {
            hay.matches_at(Pass::Exact, &needle, at - needle.len())
        } else {
            hay.matches_at(Pass::Exact, &needle, at)
        };
    if already {
        let start = if at == hay.len() {
            at - needle.len()
        } else {
            at
        };
        return Located::AlreadyApplied {
            start,
            pass: Pass::Exact,
        };
    }
    Located::Placed(Placement {
        start: at,
        end: at,
        mapping: Vec::new(),
        inserts: vec![at],
        pass: Pass::Exact,
        occurrences: 1,
        decided_by: if q.hunk.anchors.is_empty() {
            DecidedBy::Hint
        } else {
            DecidedBy::Anchor
        },
        fuzz: None,
    })
}

fn free(taken: &[(usize, usize)], s: usize, e: usize) -> bool {
    taken.iter().all(|&(a, b)| e <= a || s >= b)
}

/// A hunk with no trailing (or leading) context that matched where its added lines already
/// follow (or precede) the old block: applying it again would duplicate them.
fn already_at(
    hay: &Haystack,
    hunk: &Hunk,
    pass: Pass,
    start: usize,
    old_len: usize,
    new_texts: &[&str],
) -> bool {
    if new_texts.len() <= old_len {
        return false;
    }
    let needle = keys(pass, new_texts);
    (hunk.trailing_context() == 0 && hay.matches_at(pass, &needle, start))
        || (hunk.leading_context() == 0
            && start + old_len >= needle.len()
            && hay.matches_at(pass, &needle, start + old_len - needle.len()))
}

/// Choose among candidate starts, or `None` when nothing decides (ambiguous).
fn decide(hay: &Haystack, q: &Query, starts: &[usize]) -> Option<(usize, DecidedBy)> {
    if starts.len() == 1 {
        return Some((starts[0], DecidedBy::Unique));
    }
    let mut pool: Vec<usize> = starts.to_vec();
    if q.ordered {
        let after: Vec<usize> = starts
            .iter()
            .copied()
            .filter(|&s| s >= q.prev_end)
            .collect();
        if !q.hunk.anchors.is_empty() {
            if let Some(c) = by_anchor(
                hay,
                &after,
                &anchor_positions(hay, q, Some(q.prev_end)),
                true,
            ) {
                return Some((c, DecidedBy::Anchor));
            }
            if let Some(c) = by_anchor(hay, starts, &anchor_positions(hay, q, None), true) {
                // A fit before the previous hunk, chosen by an anchor above both, while the
                // order of the patch leaves fits after it: two readings, neither decides.
                if c < q.prev_end && !after.is_empty() {
                    return None;
                }
                return Some((c, DecidedBy::Anchor));
            }
        }
        if after.len() == 1 {
            return Some((after[0], DecidedBy::Order));
        }
        if !after.is_empty() {
            pool = after;
        }
    } else {
        // Line numbers first: a heading decides only what the numbers cannot, but one that
        // is only below where they point says they are off.
        if let Some(c) = by_hint(&pool, q.hint, q.hunk.short_by) {
            if heading_only_below(hay, q, c) || numbers_alone_unsure(q) {
                return None;
            }
            // Numbers a little off that point away from where the shape says: two opinions.
            if q.hint != Some(c) && by_shape(hay, q, &pool).is_some_and(|s| s != c) {
                return None;
            }
            return Some((c, DecidedBy::Hint));
        }
        if q.hunk.section.is_some() || !q.hunk.anchors.is_empty() {
            if let Some(c) = by_anchor(hay, starts, &anchor_positions(hay, q, None), false) {
                // Numbers that are near another fit than the heading's are a second opinion
                // against it: then nothing decides.
                if nearest_near(&pool, q.hint).is_some_and(|n| n != c) {
                    return None;
                }
                if by_shape(hay, q, &pool).is_some_and(|s| s != c) {
                    return None;
                }
                return Some((c, DecidedBy::Anchor));
            }
        }
        // Last, the shape: git's reading of context on one side only, as weak as a heading.
        let c = by_shape(hay, q, &pool)?;
        if nearest_near(&pool, q.hint).is_some_and(|n| n != c) {
            return None;
        }
        return Some((c, DecidedBy::Shape));
    }
    by_hint(&pool, q.hint, q.hunk.short_by)
        .filter(|&c| !heading_only_below(hay, q, c) && !numbers_alone_unsure(q))
        .map(|c| (c, DecidedBy::Hint))
}

/// The one fit at the end (or start) of the file that the hunk's shape points to (see
/// [`Hunk::eof_by_shape`]). Old lines that say nothing of their own (a `}` at the end of
/// the file) are too weak for the shape to place them by.
fn by_shape(hay: &Haystack, q: &Query, starts: &[usize]) -> Option<usize> {
    let h = q.hunk;
    if says_nothing(h) {
        return None;
    }
    let n = h.old_len();
    let at_end = |s: &usize| h.eof_by_shape && s + n == hay.len();
    let at_start = |s: &usize| h.bof_by_shape && *s == 0;
    let mut fits = starts.iter().filter(|s| at_end(s) || at_start(s));
    match (fits.next(), fits.next()) {
        (Some(&one), None) => Some(one),
        _ => None,
    }
}

/// Numbers are all that tell apart the fits of a hunk whose old lines say nothing of their
/// own (braces, blank lines, `*`). A body short of its header lost lines, and where they were
/// (before it or inside) moves its start off the numbers by an unknown amount: the fit the
/// numbers then point at is a guess (fuzz seed 52920: a lone ` *` of a doc comment, its line
/// before lost and the numbers stale, with a ` *` one line off them).
fn numbers_alone_unsure(q: &Query) -> bool {
    q.hunk.short_by > 0 && says_nothing(q.hunk)
}

/// Whether every old line of `hunk` says nothing of its own (braces, blank lines, a lone
/// `*`): such lines fit in many places, so they are weak evidence of where the hunk goes.
pub fn says_nothing(hunk: &Hunk) -> bool {
    hunk.old_lines().all(|l| is_trivial(&l.text))
}

/// The hunk's `@@ … @@` heading is in the file, but nowhere above the lines it would cover
/// from `start`, only below them: git writes the heading that comes before a hunk (a model
/// may name one its first lines hold), so numbers pointing there are off.
fn heading_only_below(hay: &Haystack, q: &Query, start: usize) -> bool {
    if q.hunk.section.is_none() || !q.hunk.anchors.is_empty() {
        return false;
    }
    let end = start + q.hunk.old_len();
    let at = anchor_positions(hay, q, None);
    !at.is_empty() && at.iter().all(|&p| p >= end)
}

/// How far from the hint a fit may be for the numbers to point at it.
const NEAR: usize = 20;

/// The candidates as (distance from the hint, start), nearest first.
fn by_distance(starts: &[usize], hint: usize) -> Vec<(usize, usize)> {
    let mut by_dist: Vec<(usize, usize)> = starts.iter().map(|&s| (s.abs_diff(hint), s)).collect();
    by_dist.sort();
    by_dist
}

/// The nearest candidate to the hint, when the hint is close to it (numbers a model got a
/// little wrong) and every other fit is many times further away. A hint midway between
/// two fits, or far from all of them, decides nothing: numbers that are off by much may be
/// off towards the wrong copy. A body `short_by` lines short of its header may start that many
/// lines off its numbers (its dropped leading lines): fits that much nearer or further are
/// as near as each other.
fn by_hint(starts: &[usize], hint: Option<usize>, short_by: usize) -> Option<usize> {
    let by = by_distance(starts, hint?);
    if let [(d1, _), (d2, _), ..] = by.as_slice() {
        if short_by > 0 && *d2 <= d1 + short_by {
            return None;
        }
    }
    match by.as_slice() {
        [(_, s)] => Some(*s),
        // Exactly at the numbers (git's own rule): any other fit a few lines off loses.
        [(0, s), (d2, _), ..] if *d2 >= 3 => Some(*s),
        // Off by some lines: another fit ten times as far is needed to trust them.
        [(d1, s), (d2, _), ..] if *d1 <= NEAR && *d2 >= 10 * d1 => Some(*s),
        _ => None,
    }
}

/// The one candidate nearest the hint, when it is within [`NEAR`]: the fit the numbers
/// point at, even where they do not decide alone.
fn nearest_near(starts: &[usize], hint: Option<usize>) -> Option<usize> {
    match by_distance(starts, hint?).as_slice() {
        [(d1, s), (d2, _), ..] if d1 < d2 && *d1 <= NEAR => Some(*s),
        [(d1, s)] if *d1 <= NEAR => Some(*s),
        _ => None,
    }
}

/// The single candidate inside the block an anchor line opens (the lines after it that are
/// indented deeper, up to the first line that is not): a heading such as `class Foo:` owns
/// both copies of a block inside the class, so it decides nothing there, while `def b():`
/// does decide between a copy in `a` and one in `b`. With `first_after` (Codex's rule) an
/// anchor that opens no block still picks the first fit after it.
fn by_anchor(
    hay: &Haystack,
    starts: &[usize],
    anchors: &[usize],
    first_after: bool,
) -> Option<usize> {
    if anchors.is_empty() || starts.is_empty() {
        return None;
    }
    // A candidate is an anchor's when that anchor is the nearest one above it and it lies
    // inside the block the anchor opens.
    let owner = |s: usize| anchors.iter().copied().filter(|&a| a <= s).max();
    let inside: Vec<usize> = starts
        .iter()
        .copied()
        .filter(|&s| owner(s).is_some_and(|a| s < block_end(hay, a)))
        .collect();
    match inside.as_slice() {
        [one] => return Some(*one),
        // Two fits in one anchor's block (a class heading over two methods): undecided.
        [_, _, ..] => return None,
        [] => {}
    }
    if !first_after {
        return None;
    }
    // No fit inside an anchor's block: the first one after an anchor is taken (Codex's own
    // rule), but only where it is the only one after it (up to the next anchor): a second
    // one there (a copy of the lines further down) is as much "after the anchor".
    let mut chosen: Vec<usize> = anchors
        .iter()
        .filter_map(|&a| {
            let next = anchors.iter().copied().filter(|&b| b > a).min();
            let after: Vec<usize> = starts
                .iter()
                .copied()
                .filter(|&s| s >= a && next.is_none_or(|b| s < b))
                .collect();
            match after.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        })
        .collect();
    chosen.sort();
    chosen.dedup();
    match chosen.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The end of the block that line `a` opens: the first later line, indented no deeper than
/// `a`, that closes it (`}`, `end`, `)`…, itself included) or opens a sibling (it starts with
/// the anchor's own first word, or a declaration keyword). Other shallow lines — the inside
/// of a string literal, a preprocessor line, a label — do not end it.
fn block_end(hay: &Haystack, a: usize) -> usize {
    const OPENERS: &[&str] = &[
        "def",
        "class",
        "async",
        "fn",
        "pub",
        "impl",
        "trait",
        "struct",
        "enum",
        "mod",
        "function",
        "export",
        "func",
        "type",
        "interface",
        "module",
        "package",
        "public",
        "private",
        "protected",
        "static",
        "@",
        "#[",
        "sub",
        "proc",
        "describe(",
        "it(",
        "test(",
    ];
    let width = |l: &str| {
        crate::plan::normalize::indentation(l)
            .chars()
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum::<usize>()
    };
    let first_word = |l: &str| l.split_whitespace().next().unwrap_or("").to_string();
    let own = width(hay.line(a));
    let own_word = first_word(hay.line(a));
    for i in a + 1..hay.len() {
        // Past a window's part: the window is to take in the lines from here.
        let Some(l) = hay.line_or_lack(i) else {
            return hay.len();
        };
        let t = l.trim();
        if t.is_empty() || width(l) > own {
            continue;
        }
        if t.starts_with(['}', ')', ']']) || t == "end" || t.starts_with("end ") {
            return i + 1;
        }
        let w = first_word(l);
        if w == own_word || OPENERS.iter().any(|o| t.starts_with(o)) {
            return i;
        }
    }
    hay.len()
}

/// Lines of the file that the hunk's anchors name: Codex `@@ x` lines (each narrowing the
/// next), else the unified `@@ … @@ section` heading (which git may have truncated).
fn anchor_positions(hay: &Haystack, q: &Query, from: Option<usize>) -> Vec<usize> {
    let find = |text: &str, prefix_ok: bool| -> Vec<usize> {
        for pass in [Pass::Whitespace, Pass::Unicode] {
            let k = key(pass, text).into_owned();
            if k.is_empty() {
                return Vec::new();
            }
            let mut v: Vec<usize> = hay
                .positions(pass, &k)
                .iter()
                .map(|&p| p as usize)
                .filter(|&p| {
                    hay.key_span(pass, p, p + 1)
                        .first()
                        .is_some_and(|l| **l == *k)
                })
                .collect();
            if v.is_empty() && prefix_ok && hay.whole() {
                let keys = hay.keys(pass);
                v = (0..hay.len())
                    .filter(|&p| keys[p].starts_with(&k))
                    .collect();
            }
            if !v.is_empty() {
                return v;
            }
        }
        Vec::new()
    };
    if !q.hunk.anchors.is_empty() {
        let mut current: Vec<usize> = vec![from.unwrap_or(0)];
        let mut first = true;
        for a in &q.hunk.anchors {
            let pos = find(a, true);
            // Each anchor must follow the previous one; keep the nearest follower of each.
            let mut next: Vec<usize> = current
                .iter()
                .filter_map(|&c| {
                    pos.iter()
                        .copied()
                        .filter(|&p| if first { p >= c } else { p > c })
                        .min()
                })
                .collect();
            if first {
                next = pos.iter().copied().filter(|&p| p >= current[0]).collect();
            }
            next.sort();
            next.dedup();
            current = next;
            first = false;
            if current.is_empty() {
                break;
            }
        }
        return current;
    }
    match &q.hunk.section {
        Some(s) => find(s, true),
        None => Vec::new(),
    }
}

/// How many context lines a fuzzy-matched hunk lacks on each side, judged against the
/// patch's context width: a side with fewer lines than the width, where the file has more
/// lines beyond it, lost some. This tells on which side of an insertion a dropped line was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shortfall {
    pub lead: usize,
    pub trail: usize,
}

/// Where each run of added lines goes, given where the old lines matched. `Err` when the
/// file's own lines around an insertion make its place uncertain. `shortfall` is None for a
/// contiguous match, where no insertion can have a gap.
pub fn insertion_points(
    hunk: &Hunk,
    kinds: &[LineKind],
    mapping: &[Option<usize>],
    file_len: usize,
    gaps: Option<Gaps>,
) -> Result<Vec<usize>, String> {
    let groups = group_bounds(hunk, kinds.len());
    let texts = group_texts(hunk);
    let n = groups.len();
    let sf = gaps.as_ref().map(|g| g.shortfall).unwrap_or_default();
    let m = |i: Option<usize>| i.and_then(|i| mapping[i]);
    let mut out = Vec::with_capacity(n);
    for (gi, &(prev, next)) in groups.iter().enumerate() {
        let first_change =
            gi == 0 && !kinds[..next.unwrap_or(kinds.len())].contains(&LineKind::Remove);
        let last_change =
            gi + 1 == n && !kinds[next.unwrap_or(kinds.len())..].contains(&LineKind::Remove);
        let gap_err = |gap: usize| {
            format!(
                "the file has {gap} line(s) next to where lines are inserted that the hunk does not mention, so where they go is uncertain"
            )
        };
        let at = match (prev, next) {
            // A hunk pinned to an end of the file inserts at that end; lines between its
            // context and that end are acceptable only as context the patch dropped.
            (_, None) if hunk.at_eof => {
                let gap = m(prev).map_or(0, |a| file_len.saturating_sub(a + 1));
                if gap > 0
                    && !(sf.lead >= gap && prev.is_some_and(|p| kinds[p] == LineKind::Context))
                {
                    return Err(gap_err(gap));
                }
                file_len
            }
            (None, _) if hunk.at_bof => {
                let gap = m(next).unwrap_or(0);
                if gap > 0
                    && !(sf.trail >= gap && next.is_some_and(|x| kinds[x] == LineKind::Context))
                {
                    return Err(gap_err(gap));
                }
                0
            }
            _ => match insertion_point(prev, next, kinds, mapping, hunk.short_by > 0) {
                Ok(at) => at,
                // A neighbour of the insertion is not in the file: no count of lines says
                // where the added lines go.
                Err(None) => {
                    return Err(
                        "a context line next to where lines are inserted is not in the file, so where they go is uncertain"
                            .into(),
                    )
                }
                Err(Some(Gap { after, before })) => {
                    let gap = before.saturating_sub(after + 1);
                    // Lines that read the same on either side of the gap (a blank line added
                    // next to a blank line) leave nothing to decide.
                    let commutes = gaps.as_ref().is_some_and(|g| {
                        before <= g.file.len() && {
                            let between: Vec<&str> =
                                g.file.line_span(after + 1, before).iter().map(|l| &**l).collect();
                            let added = &texts[gi];
                            let mut one = between.clone();
                            one.extend(added.iter().copied());
                            let mut other: Vec<&str> = added.clone();
                            other.extend(between.iter().copied());
                            // The gap being exactly the added lines, with anything distinctive
                            // in them, looks like the hunk already applied: not a free choice.
                            let already = between == *added && added.iter().any(|t| !is_trivial(t));
                            one == other && !already
                        }
                    });
                    if commutes || (first_change && sf.lead >= gap && sf.trail == 0) {
                        before
                    } else if last_change && sf.trail >= gap && sf.lead == 0 {
                        after + 1
                    } else {
                        return Err(gap_err(gap));
                    }
                }
            },
        };
        out.push(at);
    }
    Ok(out)
}

/// What the fuzzy pass knows about gaps around insertions: which side lost context lines,
/// and the file's lines, to see whether an insertion's side of a gap matters at all.
pub struct Gaps<'h, 'a> {
    pub shortfall: Shortfall,
    pub file: &'h Haystack<'a>,
}

/// The text of each run of added lines.
fn group_texts(hunk: &Hunk) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut in_group = false;
    for l in &hunk.lines {
        if l.kind == LineKind::Add {
            if !in_group {
                out.push(Vec::new());
                in_group = true;
            }
            out.last_mut()
                .expect("a group was just pushed")
                .push(&l.text);
        } else {
            in_group = false;
        }
    }
    out
}

/// For each run of added lines: the old-line index before it and after it.
fn group_bounds(hunk: &Hunk, n_old: usize) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::new();
    let mut oi = 0usize;
    let mut in_group = false;
    for l in &hunk.lines {
        if l.kind == LineKind::Add {
            if !in_group {
                in_group = true;
                out.push((oi.checked_sub(1), (oi < n_old).then_some(oi)));
            }
        } else {
            in_group = false;
            oi += 1;
        }
    }
    out
}

/// Two matched context lines around an insertion with file lines between them. Where an
/// insertion cannot go, `insertion_point` gives one of these, or `None` when a neighbour of
/// the insertion is not in the file at all.
struct Gap {
    after: usize,
    before: usize,
}

///
/// `short`: the hunk's body lacks lines its header counts. Added lines right after removed
/// ones replace them in place, even with file lines between them and the next line (the
/// file grew there since the patch was made), unless the body is short: then those lines
/// may be the context it lost, on either side of the additions.
fn insertion_point(
    prev: Option<usize>,
    next: Option<usize>,
    kinds: &[LineKind],
    mapping: &[Option<usize>],
    short: bool,
) -> Result<usize, Option<Gap>> {
    let m = |i: Option<usize>| i.and_then(|i| mapping[i]);
    let kind = |i: Option<usize>| i.map(|i| kinds[i]);
    if kind(prev) == Some(LineKind::Remove) {
        if let Some(f) = m(prev) {
            return match m(next) {
                Some(b) if short && b > f + 1 => Err(Some(Gap {
                    after: f,
                    before: b,
                })),
                _ => Ok(f + 1),
            };
        }
    }
    if kind(next) == Some(LineKind::Remove) {
        if let Some(f) = m(next) {
            // Added lines before removed ones is not how a diff writes a replacement, so
            // they are two changes; if the file has lines between the context before and
            // the removed lines, the patch dropped one, and which side it was on is unknown.
            match (prev, m(prev)) {
                (Some(_), Some(a)) if a + 1 < f => {
                    return Err(Some(Gap {
                        after: a,
                        before: f,
                    }))
                }
                _ => return Ok(f),
            }
        }
    }
    match (prev, next, m(prev), m(next)) {
        (Some(_), Some(_), Some(a), Some(b)) if b == a + 1 => Ok(b),
        (Some(_), None, Some(a), _) => Ok(a + 1),
        (None, Some(_), _, Some(b)) => Ok(b),
        (Some(_), Some(_), Some(a), Some(b)) => Err(Some(Gap {
            after: a,
            before: b,
        })),
        // A neighbour that did not match: the place is unknown.
        _ => Err(None),
    }
}

/// The guarded last pass: removed lines must match (folded), drifted or missing context is
/// tolerated, and the result must be one place.
fn fuzzy(hay: &Haystack, q: &Query, old: &Old) -> Located {
    let pass = Pass::Fuzzy;
    let ok = keys(pass, &old.texts);
    let n_old = ok.len();
    if !q.hunk.has_changes() {
        return Located::NotFound { reason: None };
    }
    // The anchor: the longest run of removed lines; for a pure insertion, the end of the file
    // it is pinned to, or else the two context lines around the first insertion, which must
    // still be adjacent in the file.
    let slack = 8 + n_old / 2;
    let runs = removed_runs(q.hunk);
    if runs.is_empty() && (q.hunk.at_eof || q.hunk.at_bof) {
        return fuzzy_at_edge(hay, q, old, &ok, slack);
    }
    let anchors = match fuzzy_anchors(q, runs, n_old) {
        Ok(anchors) => anchors,
        Err(refusal) => return refusal,
    };
    let found = fuzzy_placements(hay, q, old, &ok, anchors, slack);
    if found.placements.is_empty() {
        return Located::NotFound {
            reason: found.last_reason,
        };
    }
    choose_fuzzy(hay, q, found)
}

/// A pure insertion pinned to the end (or start) of the file: its context aligned with the
/// file's last (or first) lines.
fn fuzzy_at_edge(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    ok: &[std::borrow::Cow<str>],
    slack: usize,
) -> Located {
    let pass = Pass::Fuzzy;
    let n_old = ok.len();
    let mut mapping: Vec<Option<usize>> = vec![None; n_old];
    if q.hunk.at_eof {
        let lo = hay.len().saturating_sub(n_old + slack);
        let keys = hay.key_span(pass, lo, hay.len());
        align(ok, keys, 0, lo, &mut mapping, true);
    } else {
        let hi = (n_old + slack).min(hay.len());
        align(ok, hay.key_span(pass, 0, hi), 0, 0, &mut mapping, false);
    }
    match validate(q.hunk, old, &mapping, hay, false, q.context_width) {
        Ok((start, end, inserts, fuzz)) if free(q.taken, start, end) => {
            Located::Placed(Placement {
                start,
                end,
                mapping,
                inserts,
                pass,
                occurrences: 1,
                decided_by: DecidedBy::Unique,
                fuzz: Some(fuzz),
            })
        }
        Ok(_) => Located::NotFound { reason: None },
        Err(r) => Located::NotFound {
            reason: Some(r.reason()),
        },
    }
}

/// Anchors to try, best first, as (offset in the old side, length). A pure insertion tries
/// its two neighbours (still adjacent), then its whole leading context, then its whole
/// trailing context. `Err`: an insertion without context on both sides, refused.
fn fuzzy_anchors(
    q: &Query,
    runs: Vec<(usize, usize)>,
    n_old: usize,
) -> Result<Vec<(usize, usize)>, Located> {
    Ok(match runs.into_iter().max_by_key(|&(s, l)| (l, std::cmp::Reverse(s))) {
        Some(run) => vec![run],
        None => match first_insertion(q.hunk) {
            Some(oi) if oi > 0 && oi < n_old => {
                // A side with fewer context lines than the patch's width lost one; anchor on
                // the intact side first, so the gap is looked for where the loss was.
                let (pair, lead, trail) = ((oi - 1, 2), (0, oi), (oi, n_old - oi));
                let width = q.context_width;
                let lead_short = q.hunk.leading_context() < width && q.hunk.old_start.is_none_or(|s| s > 1);
                let trail_short = q.hunk.trailing_context() < width;
                match (lead_short, trail_short) {
                    (false, true) => vec![lead, pair, trail],
                    (true, false) => vec![trail, pair, lead],
                    _ => vec![pair, lead, trail],
                }
            }
            _ => {
                return Err(Located::NotFound {
                    reason: Some(
                        "an insertion needs context lines on both sides to be placed without an exact match"
                            .into(),
                    ),
                })
            }
        },
    })
}

/// The loose fits the first anchor that has any gives.
struct FuzzyFits {
    placements: Vec<Placement>,
    /// For each placement, why its insertion is uncertain, if it is: a place where the lines
    /// fit is still a place (with another fit it makes two), but one the hunk cannot be put in.
    uncertain: Vec<Option<String>>,
    /// Why the last fit tried was not one.
    last_reason: Option<String>,
}

/// Every loose fit around each occurrence of an anchor, the anchors tried in turn until one
/// gives a fit.
fn fuzzy_placements(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    ok: &[std::borrow::Cow<str>],
    anchors: Vec<(usize, usize)>,
    slack: usize,
) -> FuzzyFits {
    let pass = Pass::Fuzzy;
    let n_old = ok.len();
    let mut out = FuzzyFits {
        placements: Vec::new(),
        uncertain: Vec::new(),
        last_reason: None,
    };
    for (anchor_off, anchor_len) in anchors {
        let needle = &ok[anchor_off..anchor_off + anchor_len];
        let occurrences = hay.find_all(pass, needle);
        const MAX_ANCHORS: usize = 512;
        if occurrences.len() > MAX_ANCHORS {
            out.last_reason =
                Some("the hunk's lines are too common in the file to place it by them".into());
            continue;
        }
        let strong_anchor = occurrences.len() == 1
            && old.kinds[anchor_off] == LineKind::Remove
            && old.texts[anchor_off..anchor_off + anchor_len]
                .iter()
                .any(|t| !is_trivial(t));
        for a in occurrences {
            let mut mapping: Vec<Option<usize>> = vec![None; n_old];
            for j in 0..anchor_len {
                mapping[anchor_off + j] = Some(a + j);
            }
            // Left of the anchor.
            let left_lo = a.saturating_sub(anchor_off + slack);
            align(
                &ok[..anchor_off],
                hay.key_span(pass, left_lo, a),
                0,
                left_lo,
                &mut mapping,
                true,
            );
            // Right of the anchor.
            let r_old = anchor_off + anchor_len;
            let r_file = a + anchor_len;
            let r_hi = (r_file + (n_old - r_old) + slack).min(hay.len());
            align(
                &ok[r_old..],
                hay.key_span(pass, r_file, r_hi),
                r_old,
                r_file,
                &mut mapping,
                false,
            );
            keep_compact(&mut mapping, anchor_off, anchor_len);

            let (validated, why) =
                match validate(q.hunk, old, &mapping, hay, strong_anchor, q.context_width) {
                    Ok(v) => (v, None),
                    Err(Unfit::Insertion { place, reason }) => (place, Some(reason)),
                    Err(Unfit::Lines(r)) => {
                        out.last_reason = Some(r);
                        continue;
                    }
                };
            let (start, end, inserts, fuzz) = validated;
            if q.hunk.at_eof && end != hay.len() {
                continue;
            }
            if !out.placements.iter().any(|p| p.mapping == mapping) {
                out.uncertain.push(why);
                out.placements.push(Placement {
                    start,
                    end,
                    mapping,
                    inserts,
                    pass,
                    occurrences: 0,
                    decided_by: DecidedBy::Unique,
                    fuzz: Some(fuzz),
                });
            }
        }
        if !out.placements.is_empty() {
            break;
        }
    }
    out
}

/// One of the loose fits, where the rules and the fit agree on it, or an ambiguity.
fn choose_fuzzy(hay: &Haystack, q: &Query, found: FuzzyFits) -> Located {
    let pass = Pass::Fuzzy;
    let FuzzyFits {
        mut placements,
        mut uncertain,
        ..
    } = found;
    let n = placements.len();
    let starts: Vec<usize> = placements.iter().map(|p| p.start).collect();
    // The rules (hint, anchor, order) and the fit must not point at different places: a
    // loose fit is already a guess, and two guesses that disagree are two places.
    let choice = match (decide(hay, q, &starts), by_fit(&placements)) {
        (Some(a), Some(b)) if a.0 != b.0 => None,
        (Some(a), _) => Some(a),
        (None, b) => b,
    };
    match choice {
        // Two different alignments from the same first line are still two places.
        Some((start, _)) if placements.iter().filter(|p| p.start == start).count() > 1 => {
            Located::Ambiguous { pass, starts }
        }
        Some((start, decided_by)) => {
            let at = placements
                .iter()
                .position(|p| p.start == start)
                .expect("decide picks one of the starts");
            if let Some(reason) = uncertain.swap_remove(at) {
                return Located::NotFound {
                    reason: Some(reason),
                };
            }
            let mut p = placements.swap_remove(at);
            p.occurrences = n;
            p.decided_by = decided_by;
            // Far from where the numbers point, a loose fit needs removed lines that are
            // found nowhere else; a lone `}` or blank line there proves nothing.
            let far = q.hint.is_some_and(|h| p.start.abs_diff(h) > FAR_FROM_HINT);
            if far && !distinctive_removal(hay, q.hunk) {
                return Located::NotFound {
                    reason: Some(format!(
                        "the only loose fit is {} lines from the hunk's line numbers and its removed lines are too common to vouch for it",
                        p.start.abs_diff(q.hint.unwrap_or(p.start))
                    )),
                };
            }
            Located::Placed(p)
        }
        None => Located::Ambiguous { pass, starts },
    }
}

/// Whether the hunk removes a line that says something and occurs once in the file.
fn distinctive_removal(hay: &Haystack, hunk: &Hunk) -> bool {
    hunk.lines.iter().any(|l| {
        l.kind == LineKind::Remove && !is_trivial(&l.text) && {
            let k = key(Pass::Fuzzy, &l.text);
            hay.count(Pass::Fuzzy, &k) == 1
        }
    })
}

/// Among loose placements, the one that fits far better than every other: fewer of the
/// hunk's context lines missing and fewer unmentioned file lines inside it. A close second
/// decides nothing.
fn by_fit(placements: &[Placement]) -> Option<(usize, DecidedBy)> {
    let cost = |p: &Placement| {
        p.fuzz
            .map_or(0, |f| 2 * f.context_mismatched + f.extra_file_lines)
    };
    let mut ranked: Vec<(usize, usize)> = placements.iter().map(|p| (cost(p), p.start)).collect();
    ranked.sort();
    match ranked.as_slice() {
        [(c1, s), (c2, _), ..] if *c2 >= 2 * c1 + 2 => Some((*s, DecidedBy::Fit)),
        _ => None,
    }
}

/// Runs of removed lines as (old-line index, length). Added lines end a run: removed lines
/// on either side of an addition belong to different changes, between which the file may
/// have a line the patch dropped.
fn removed_runs(hunk: &Hunk) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut oi = 0usize;
    let mut open = false;
    for l in &hunk.lines {
        match l.kind {
            LineKind::Remove => {
                match runs.last_mut() {
                    Some(r) if open => r.1 += 1,
                    _ => runs.push((oi, 1)),
                }
                open = true;
                oi += 1;
            }
            LineKind::Add => open = false,
            LineKind::Context => {
                open = false;
                oi += 1;
            }
        }
    }
    runs
}

/// The old-line index before which the hunk's first added line sits.
fn first_insertion(h: &Hunk) -> Option<usize> {
    let mut oi = 0;
    for l in &h.lines {
        match l.kind {
            LineKind::Add => return Some(oi),
            _ => oi += 1,
        }
    }
    None
}

/// Align `old` against `file` (an LCS) and record matches into `mapping`.
/// Most lines a fuzzy placement may skip between two of its matched lines. Beyond that, a
/// match is a look-alike elsewhere (the same `total = 0` in the function above), and it and
/// everything further from the anchor are left unmatched.
const MAX_GAP: usize = 5;

fn keep_compact(mapping: &mut [Option<usize>], anchor_off: usize, anchor_len: usize) {
    let mut edge = mapping[anchor_off];
    let mut broken = false;
    for m in mapping[..anchor_off].iter_mut().rev() {
        match (*m, edge) {
            (Some(f), Some(e)) if !broken && e > f && e - f - 1 <= MAX_GAP => edge = Some(f),
            (Some(_), _) => {
                *m = None;
                broken = true;
            }
            (None, _) => {}
        }
    }
    let mut edge = mapping[anchor_off + anchor_len - 1];
    let mut broken = false;
    for m in mapping[anchor_off + anchor_len..].iter_mut() {
        match (*m, edge) {
            (Some(f), Some(e)) if !broken && f > e && f - e - 1 <= MAX_GAP => edge = Some(f),
            (Some(_), _) => {
                *m = None;
                broken = true;
            }
            (None, _) => {}
        }
    }
}

/// `toward_end`: among equally long alignments prefer matches near the end of both slices
/// (the left side of an anchor), so repeated lines pair with the copy next to the anchor.
fn align<S: AsRef<str>>(
    old: &[S],
    file: &[Line],
    old_base: usize,
    file_base: usize,
    mapping: &mut [Option<usize>],
    toward_end: bool,
) {
    if old.is_empty() || file.is_empty() {
        return;
    }
    let (o, f): (Vec<&str>, Vec<&str>) = if toward_end {
        (
            old.iter().rev().map(AsRef::as_ref).collect(),
            file.iter().rev().map(|l| &**l).collect(),
        )
    } else {
        (
            old.iter().map(AsRef::as_ref).collect(),
            file.iter().map(|l| &**l).collect(),
        )
    };
    for (a, b) in lcs_pairs(&o, &f) {
        let (oi, fi) = if toward_end {
            (old.len() - 1 - a, file.len() - 1 - b)
        } else {
            (a, b)
        };
        mapping[old_base + oi] = Some(file_base + fi);
    }
}

/// A longest common subsequence of `a` and `b` as index pairs, choosing among equally long
/// ones the one whose matches come earliest in `b` (so repeated lines such as blanks pair
/// with the copy nearest the start). Quadratic in the slice lengths, which the fuzzy pass
/// keeps to a hunk's size; very large inputs fall back to Myers.
fn lcs_pairs<T: PartialEq + std::hash::Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        let mut out = Vec::new();
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, a, b) {
            if let similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = op
            {
                out.extend((0..len).map(|k| (old_index + k, new_index + k)));
            }
        }
        return out;
    }
    // suffix[i][j] = LCS length of a[i..] and b[j..]
    let w = m + 1;
    let mut suffix = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            suffix[i * w + j] = if a[i] == b[j] {
                suffix[(i + 1) * w + j + 1] + 1
            } else {
                suffix[(i + 1) * w + j].max(suffix[i * w + j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] && suffix[i * w + j] == suffix[(i + 1) * w + j + 1] + 1 {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if suffix[(i + 1) * w + j] == suffix[i * w + j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

type Validated = (usize, usize, Vec<usize>, Fuzz);

/// Why a fuzzy mapping gives no placement.
enum Unfit {
    /// Too few of the hunk's lines are in the file there: not a place it fits.
    Lines(String),
    /// The lines fit there (the place, without insertion points), but where the added lines
    /// go among the file's is uncertain: a place the hunk fits, which must still count
    /// against any other.
    Insertion { place: Validated, reason: String },
}

impl Unfit {
    fn reason(self) -> String {
        match self {
            Unfit::Lines(r) | Unfit::Insertion { reason: r, .. } => r,
        }
    }
}

fn shortfall(hunk: &Hunk, mapping: &[Option<usize>], file_len: usize, width: usize) -> Shortfall {
    let first = mapping.iter().flatten().min().copied().unwrap_or(0);
    let last = mapping.iter().flatten().max().copied().unwrap_or(0);
    let lead = hunk.leading_context();
    let trail = hunk.trailing_context();
    Shortfall {
        lead: if first > 0 && !hunk.at_bof {
            width.saturating_sub(lead)
        } else {
            0
        },
        trail: if last + 1 < file_len && !hunk.at_eof {
            width.saturating_sub(trail)
        } else {
            0
        },
    }
}

/// The guards of the fuzzy pass: every removed line matched and each run of them contiguous;
/// at least half the context, and some on each side of the change, still there; enough
/// meaningful lines matched; every insertion point certain.
/// `strong_anchor`: the hunk's removed lines occur once in the file and say something, so
/// one more meaningful line of context is enough corroboration.
fn validate(
    hunk: &Hunk,
    old: &Old,
    mapping: &[Option<usize>],
    file: &Haystack,
    strong_anchor: bool,
    context_width: usize,
) -> Result<Validated, Unfit> {
    let file_len = file.len();
    let kinds = &old.kinds;
    for (i, k) in kinds.iter().enumerate() {
        if *k == LineKind::Remove {
            let Some(f) = mapping[i] else {
                return Err(Unfit::Lines(
                    "a removed line is not in the file near the others".into(),
                ));
            };
            // The next removed line may sit a line or two further on (a dropped context
            // line that stays), never far away.
            if i + 1 < kinds.len() && kinds[i + 1] == LineKind::Remove {
                match mapping[i + 1] {
                    Some(g) if g > f && g - f <= 3 => {}
                    _ => {
                        return Err(Unfit::Lines(
                            "the removed lines are not together in the file".into(),
                        ))
                    }
                }
            }
        }
    }
    let ctx_total = kinds.iter().filter(|k| **k == LineKind::Context).count();
    let ctx_matched = kinds
        .iter()
        .zip(mapping)
        .filter(|(k, m)| **k == LineKind::Context && m.is_some())
        .count();
    if ctx_matched * 2 < ctx_total {
        return Err(Unfit::Lines(format!(
            "only {ctx_matched} of {ctx_total} context lines are in the file"
        )));
    }
    let first_change = kinds.iter().position(|k| *k == LineKind::Remove);
    let last_change = kinds.iter().rposition(|k| *k == LineKind::Remove);
    let (lead, trail) = match (first_change, last_change) {
        (Some(f), Some(l)) => (f, kinds.len() - 1 - l),
        _ => {
            let oi = first_insertion(hunk).unwrap_or(0);
            (oi, kinds.len() - oi)
        }
    };
    let side_ok = |range: std::ops::Range<usize>| {
        range.is_empty() || range.into_iter().any(|i| mapping[i].is_some())
    };
    if !side_ok(0..lead) || !side_ok(kinds.len() - trail..kinds.len()) {
        return Err(Unfit::Lines(
            "no context line on one side of the change is in the file".into(),
        ));
    }
    let meaningful_total = old.texts.iter().filter(|t| !is_trivial(t)).count();
    let meaningful = old
        .texts
        .iter()
        .zip(mapping)
        .filter(|(t, m)| m.is_some() && !is_trivial(t))
        .count();
    let needed = if strong_anchor { 2 } else { 3 };
    if meaningful < meaningful_total.min(needed) {
        return Err(Unfit::Lines(
            "too few distinctive lines of the hunk are in the file".into(),
        ));
    }
    let shortfall = shortfall(hunk, mapping, file_len, context_width);
    let matched: Vec<usize> = mapping.iter().flatten().copied().collect();
    let inserts = insertion_points(
        hunk,
        kinds,
        mapping,
        file_len,
        Some(Gaps { shortfall, file }),
    );
    // Where the insertion is uncertain, the place is the lines' alone.
    let at: &[usize] = inserts.as_deref().unwrap_or_default();
    let start = matched
        .iter()
        .chain(at)
        .copied()
        .min()
        .expect("removed or context lines matched");
    let end = matched
        .iter()
        .map(|f| f + 1)
        .chain(at.iter().copied())
        .max()
        .expect("removed or context lines matched");
    let fuzz = Fuzz {
        context_mismatched: ctx_total - ctx_matched,
        extra_file_lines: (end - start) - matched.len(),
    };
    match inserts {
        Ok(inserts) => Ok((start, end, inserts, fuzz)),
        // The lines fit here: a place the hunk may be meant for, only not one it can be
        // put in.
        Err(reason) => Err(Unfit::Insertion {
            place: (start, end, Vec::new(), fuzz),
            reason,
        }),
    }
}

/// The lines a hunk may look up in a file: its own, its anchors and its section heading.
pub fn names(h: &Hunk) -> impl Iterator<Item = &str> {
    h.lines
        .iter()
        .map(|l| l.text.as_str())
        .chain(h.anchors.iter().map(String::as_str))
        .chain(h.section.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::text::TextFile;
    use proptest::prelude::*;

    /// The exact searches a haystack answers by scanning, and by its index (the scans
    /// spent up front): both must find the same starts, in the same order.
    fn both(text: &str, needles: &[Vec<String>]) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let file = TextFile::decode(text.as_bytes()).expect("text");
        let a = needles
            .iter()
            .map(|n| Haystack::new(&file.lines).find_all(Pass::Exact, n))
            .collect();
        let indexed = Haystack::new(&file.lines);
        indexed.scans.set(SCANS);
        let b = needles
            .iter()
            .map(|n| indexed.find_all(Pass::Exact, n))
            .collect();
        (a, b)
    }

    proptest! {
        /// Lines from a small alphabet (so needles repeat, and lines are prefixes of one
        /// another), with CRLF, LF, a missing final newline and a BOM; needles cut from the
        /// file or made up.
        #[test]
        fn a_scan_finds_what_the_index_finds(
            lines in proptest::collection::vec(
                prop_oneof![Just("fn a()"), Just("fn a() {"), Just("}"), Just(""), Just("x = 1;"), Just("fn a() {x")],
                0..40,
            ),
            crlf in proptest::collection::vec(any::<bool>(), 40),
            final_newline in any::<bool>(),
            bom in any::<bool>(),
            cuts in proptest::collection::vec((0usize..40, 1usize..5), 1..8),
        ) {
            let mut text = String::from(if bom { "\u{feff}" } else { "" });
            for (i, l) in lines.iter().enumerate() {
                text.push_str(l);
                if i + 1 < lines.len() || final_newline {
                    text.push_str(if crlf[i] { "\r\n" } else { "\n" });
                }
            }
            let needles: Vec<Vec<String>> = cuts
                .iter()
                .map(|&(at, n)| {
                    if lines.is_empty() {
                        return vec!["fn a() {".to_string()];
                    }
                    let at = at % lines.len();
                    lines[at..(at + n).min(lines.len())].iter().map(|l| l.to_string()).collect()
                })
                .collect();
            let (scanned, indexed) = both(&text, &needles);
            prop_assert_eq!(scanned, indexed);
        }
    }

    #[test]
    fn a_few_searches_scan_and_the_rest_use_the_index() {
        let text = "fn a() {\n  body();\n}\nfn a() {\n  body();\n}\n";
        let mut file = TextFile::decode(text.as_bytes()).expect("text");
        // A line changed after decoding is what is searched.
        file.lines[3] = std::borrow::Cow::Owned("fn b() {".to_string());
        let hay = Haystack::new(&file.lines);
        let needle: Vec<String> = vec!["fn b() {".into(), "  body();".into()];
        assert_eq!(hay.find_all(Pass::Exact, &needle), vec![3]);
        let needle: Vec<String> = vec!["fn a() {".into(), "  body();".into()];
        assert_eq!(hay.find_all(Pass::Exact, &needle), vec![0]);
        assert_eq!(hay.scans.get(), 2);
        assert!(hay.index[0].get().is_none(), "no index was built");
        for _ in 0..SCANS {
            assert_eq!(hay.find_all(Pass::Exact, &needle), vec![0]);
        }
        assert_eq!(hay.scans.get(), SCANS);
        assert!(
            hay.index[0].get().is_some(),
            "past the budget, the index answers"
        );
    }
}

//! The file's lines as the passes search them: per-pass keys and indexes built lazily, the
//! census of the lines a patch names, and windows of a long text.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::patch::Hunk;
use crate::text::file::Line;
use crate::text::normalize::{key, Pass};

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
    wanted: Option<Wanted<'a>>,
    /// The index of every line, for a key outside `wanted`.
    full: [OnceCell<LineIndex>; 4],
    /// Exact searches answered by a scan of the lines, up to [`SCANS`].
    scans: Cell<usize>,
    /// Set when the lines are a window of a bigger text: what it knows of the rest.
    pub(super) window: Option<&'a Window<'a>>,
    /// Every name (word) of the text, once asked for ([`Haystack::has_name`]).
    names: OnceCell<HashSet<&'a str>>,
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

type Counts = HashMap<u64, u32, BuildHasherDefault<crate::text::hash::Prehashed>>;

/// How many lines of a text have each wanted key, per pass, kept up to date as the text
/// changes: counting is free of positions, so an edit costs its own lines, not the text's.
/// On demand it also keeps which lines (by tag: a number each line of the text keeps while it
/// stays, ascending through the text) have each wanted key, so a search can take in all of
/// them wherever they are.
pub struct Census {
    wanted: Wanted<'static>,
    counts: [OnceCell<Counts>; 4],
    tags: [OnceCell<BTreeSet<(u64, u64)>>; 4],
}

impl Census {
    /// A census of `wanted` lines (a patch's lines, anchors and headings) in any pass.
    pub fn new<'w>(wanted: impl Iterator<Item = &'w str> + Clone) -> Census {
        Census {
            wanted: Wanted::owned(wanted),
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
struct Wanted<'w> {
    lines: WantedLines<'w>,
    sets: [OnceCell<WantedSet>; 4],
}

/// The lines wanted: borrowed where they outlive the search (a haystack's), else copied.
enum WantedLines<'w> {
    Borrowed(Vec<&'w str>),
    /// The lines one after another in one buffer (a patch's lines number in the thousands),
    /// each ending where `ends` says.
    Owned {
        text: String,
        ends: Vec<usize>,
    },
}

/// Hashes of wanted keys, with a bit per hash bucket in front: most file lines are not
/// wanted, and the bits say so without a lookup.
struct WantedSet {
    hashes: HashSet<u64, BuildHasherDefault<crate::text::hash::Prehashed>>,
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

impl<'w> Wanted<'w> {
    /// The lines, borrowed.
    fn borrowed(lines: impl Iterator<Item = &'w str>) -> Wanted<'w> {
        Wanted {
            lines: WantedLines::Borrowed(lines.collect()),
            sets: Default::default(),
        }
    }

    /// The lines, copied.
    fn owned<'l>(lines: impl Iterator<Item = &'l str> + Clone) -> Wanted<'w> {
        // Sized first: a hunk of a whole file's lines is not copied again at each doubling.
        let (mut bytes, mut count) = (0, 0);
        for l in lines.clone() {
            bytes += l.len();
            count += 1;
        }
        let (mut text, mut ends) = (String::with_capacity(bytes), Vec::with_capacity(count));
        for l in lines {
            text.push_str(l);
            ends.push(text.len());
        }
        Wanted {
            lines: WantedLines::Owned { text, ends },
            sets: Default::default(),
        }
    }

    fn set(&self, pass: Pass) -> &WantedSet {
        self.sets[pass.index()].get_or_init(|| match &self.lines {
            WantedLines::Borrowed(lines) => WantedSet::new(lines.iter().map(|w| key(pass, w))),
            WantedLines::Owned { text, ends } => {
                let starts = std::iter::once(0).chain(ends.iter().copied());
                let lines = starts.zip(ends).map(|(a, &b)| &text[a..b]);
                WantedSet::new(lines.map(|w| key(pass, w)))
            }
        })
    }
}

/// Line key → the positions holding it, ascending: one table of (first, count) per distinct
/// hash into one array of positions, so building it allocates twice, not once per line.
struct LineIndex {
    slots: HashMap<u64, (u32, u32), BuildHasherDefault<crate::text::hash::Prehashed>>,
    positions: Vec<u32>,
}

impl LineIndex {
    /// The positions of the keys whose hash `keep` accepts, each as `place` has it.
    fn new<'k>(
        keys: impl ExactSizeIterator<Item = &'k str>,
        keep: impl Fn(u64) -> bool,
        place: impl Fn(usize) -> usize,
    ) -> LineIndex {
        let mut slots: HashMap<u64, (u32, u32), BuildHasherDefault<crate::text::hash::Prehashed>> =
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
    crate::text::hash::of(s.as_bytes())
}

impl<'a> Haystack<'a> {
    /// A haystack searched for any line: each pass's index, when built, covers every line.
    pub fn new(lines: &'a [Line<'a>]) -> Haystack<'a> {
        Haystack {
            lines,
            keys: Default::default(),
            index: Default::default(),
            wanted: None,
            full: Default::default(),
            scans: Cell::new(0),
            window: None,
            names: OnceCell::new(),
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
    pub(super) fn whole(&self) -> bool {
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
    pub fn for_lines(lines: &'a [Line<'a>], wanted: impl Iterator<Item = &'a str>) -> Haystack<'a> {
        Haystack {
            wanted: Some(Wanted::borrowed(wanted)),
            ..Haystack::new(lines)
        }
    }

    /// Whether `name` is a word of the text (a run of letters, digits and `_`, as
    /// [`crate::text::normalize::words`] reads them). A window cannot say: it answers yes.
    pub fn has_name(&self, name: &str) -> bool {
        if self.window.is_some() {
            return true;
        }
        self.names
            .get_or_init(|| {
                self.lines
                    .iter()
                    .flat_map(|l| crate::text::normalize::words(l))
                    .collect()
            })
            .contains(name)
    }

    /// The text's length (a window's text's, not the window's).
    pub fn len(&self) -> usize {
        match self.window {
            Some(w) => w.layout.total,
            None => self.lines.len(),
        }
    }

    /// Whether the text has no lines.
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

/// The lines a hunk may look up in a file: its own, its anchors and its section heading.
pub fn names(h: &Hunk) -> impl Iterator<Item = &str> + Clone {
    h.lines
        .iter()
        .map(|l| l.text.as_str())
        .chain(h.anchors.iter().map(String::as_str))
        .chain(h.section.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::file::TextFile;
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

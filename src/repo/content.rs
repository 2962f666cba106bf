//! A file's bytes, shared. A file as read is one buffer (a big one, the file mapped into
//! memory: see `mapped`); a file the plan spliced is kept as
//! pieces of the file it was made from (runs of its bytes, as ranges, and the new text), so a
//! one-line change to a big file costs the new line, not a second copy of the file. The
//! stages that pass the bytes on (the proof, the snapshot's blobs, the writer, the report's
//! counts) read them in chunks; anything else that asks for one slice gets the pieces joined
//! once, on first use.

use std::io::{self, Read, Write};
use std::ops::{Deref, Range};
use std::sync::{Arc, OnceLock};

use super::stamp::Stamp;

/// A file's bytes: cheap to clone, compared by value.
#[derive(Clone)]
pub struct Content(Arc<Inner>);

struct Inner {
    repr: Repr,
    /// A spliced content's bytes in one buffer, made when something asks for a slice.
    joined: OnceLock<Vec<u8>>,
    /// The blob id, once hashed (`None`: the hash failed, and is tried again to say why).
    id: OnceLock<(gix::hash::Kind, Option<gix::ObjectId>)>,
    /// Its lines, once counted (`None`: not UTF-8, so binary to a report).
    lines: OnceLock<Option<usize>>,
    /// Set once a thread works out the id and lines ahead ([`Content::hash_ahead`]).
    ahead: std::sync::atomic::AtomicBool,
    /// The file these bytes were read from, as `stat` saw it then, when that proves what it
    /// holds while the stamp is unchanged ([`Stamp`]).
    stamp: Option<Stamp>,
}

enum Repr {
    Flat(Vec<u8>),
    /// A big file mapped into memory, with the stamp that vouches for it.
    Mapped(super::mapped::Mapping),
    Spliced {
        base: Content,
        parts: Vec<Part>,
        len: usize,
    },
}

/// A way to know a content's blob id without hashing it, tried on the thread that would.
pub type Known = Box<dyn FnOnce(&Content) -> Option<gix::ObjectId> + Send>;

/// One piece of a spliced file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// These bytes of the file it was spliced from.
    Base(Range<usize>),
    /// Bytes of its own.
    Own(Vec<u8>),
}

impl Content {
    /// Bytes read from a file that `stamp` describes (see [`Content::stamp`]).
    pub fn read_from(bytes: Vec<u8>, stamp: Option<Stamp>) -> Content {
        let mut c = Content::new(bytes);
        if let Some(inner) = Arc::get_mut(&mut c.0) {
            inner.stamp = stamp;
        }
        c
    }

    /// The stamp of the file these bytes were read from, when it proves that a file with the
    /// same stamp still holds them; `None` for bytes made any other way.
    pub fn stamp(&self) -> Option<&Stamp> {
        self.0.stamp.as_ref()
    }

    /// The bytes of a file mapped into memory, which `stamp` vouches for as long as the
    /// file keeps it (see [`super::mapped`]).
    pub(super) fn mapped(map: super::mapped::Mapping, stamp: Stamp) -> Content {
        Content(Arc::new(Inner {
            repr: Repr::Mapped(map),
            joined: OnceLock::new(),
            id: OnceLock::new(),
            lines: OnceLock::new(),
            ahead: Default::default(),
            stamp: Some(stamp),
        }))
    }

    /// For the bytes of a mapped file (or pieces of them): whether every read of them found
    /// the file's bytes (none ran past a shortened file's end). `None` for bytes held in
    /// memory, which cannot change under us.
    pub fn mapped_intact(&self) -> Option<bool> {
        match &self.0.repr {
            Repr::Mapped(m) => Some(m.intact()),
            Repr::Spliced { base, .. } => base.mapped_intact(),
            Repr::Flat(_) => None,
        }
    }

    /// The error for bytes whose mapped file changed under them ([`Content::source_changed`]).
    pub fn changed_error() -> io::Error {
        io::Error::other(
            "the file changed while the patch was being applied (another program wrote to it)",
        )
    }

    /// These bytes in memory of their own when they are a mapped file's (or pieces of one),
    /// checked to be the bytes the file's stamp vouched for: what is made of them can then
    /// no longer change under the maker. `None` for bytes held in memory already.
    pub fn held(&self) -> io::Result<Option<Vec<u8>>> {
        if self.mapped_intact().is_none() {
            return Ok(None);
        }
        let copy = self.to_vec();
        if self.source_changed() {
            return Err(Content::changed_error());
        }
        Ok(Some(copy))
    }

    /// Whether these bytes are (or are pieces of) a mapped file that changed since it was
    /// mapped: what was read of them may be some of the old bytes and some of the new, so
    /// nothing made of them may be kept (a file written, a blob stored). Bytes held in memory
    /// never change.
    pub fn source_changed(&self) -> bool {
        match &self.0.repr {
            Repr::Mapped(m) => !self
                .0
                .stamp
                .as_ref()
                .is_some_and(|s| m.unchanged(|meta| s.still(meta))),
            Repr::Spliced { base, .. } => base.source_changed(),
            Repr::Flat(_) => false,
        }
    }

    /// Bytes held in memory.
    pub fn new(bytes: Vec<u8>) -> Content {
        Content(Arc::new(Inner {
            repr: Repr::Flat(bytes),
            joined: OnceLock::new(),
            id: OnceLock::new(),
            lines: OnceLock::new(),
            ahead: Default::default(),
            stamp: None,
        }))
    }

    /// `parts` in order, ranges of `base` and bytes of their own. The pieces are regrouped
    /// so that every chunk but the last ends with a newline: a line never straddles two
    /// chunks, and chunks can be walked line by line.
    pub fn spliced(base: &Content, parts: impl IntoIterator<Item = Part>) -> Content {
        // Pieces of pieces are pieces of the first base: nothing is joined, and the result
        // shares its ends with the file first read.
        if let Repr::Spliced { base: root, .. } = &base.0.repr {
            let mapped: Vec<Part> = parts
                .into_iter()
                .flat_map(|p| match p {
                    Part::Base(r) => base.parts_of(r),
                    own => vec![own],
                })
                .collect();
            return Content::spliced(root, mapped);
        }
        let whole: &[u8] = base;
        let mut out = Regroup {
            whole,
            parts: Vec::new(),
            carry: Carry::Nothing,
        };
        for p in parts {
            match p {
                Part::Base(r) => out.base(r),
                Part::Own(v) => out.own(v),
            }
        }
        let mut parts = out.finish();
        if let [Part::Base(r)] = parts.as_slice() {
            if r.start == 0 && r.end == whole.len() {
                return base.clone();
            }
        }
        if parts.is_empty() {
            return Content::new(Vec::new());
        }
        if let [Part::Own(_)] = parts.as_slice() {
            let Some(Part::Own(v)) = parts.pop() else {
                unreachable!("one part, of its own")
            };
            return Content::new(v);
        }
        let len = parts
            .iter()
            .map(|p| match p {
                Part::Base(r) => r.len(),
                Part::Own(v) => v.len(),
            })
            .sum();
        Content(Arc::new(Inner {
            repr: Repr::Spliced {
                base: base.clone(),
                parts,
                len,
            },
            joined: OnceLock::new(),
            id: OnceLock::new(),
            lines: OnceLock::new(),
            ahead: Default::default(),
            stamp: None,
        }))
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        match &self.0.repr {
            Repr::Flat(v) => v.len(),
            Repr::Mapped(m) => m.len(),
            Repr::Spliced { len, .. } => *len,
        }
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the bytes are held in pieces and were never joined.
    pub fn is_pieces(&self) -> bool {
        matches!(self.0.repr, Repr::Spliced { .. }) && self.0.joined.get().is_none()
    }

    /// The bytes, in order, as slices: none empty, each but the last ending with a newline.
    pub fn chunks(&self) -> Vec<&[u8]> {
        match &self.0.repr {
            Repr::Flat(v) if v.is_empty() => Vec::new(),
            Repr::Flat(v) => vec![v.as_slice()],
            Repr::Mapped(m) if m.is_empty() => Vec::new(),
            Repr::Mapped(m) => vec![&m[..]],
            Repr::Spliced { .. } if self.0.joined.get().is_some() => {
                vec![self.0.joined.get().expect("joined").as_slice()]
            }
            // Many small pieces (a hunk that changes every other line has two per changed
            // line) cost every reader a call per piece (the hash, the blob's write, the work
            // tree's): they are joined once, which costs a copy.
            Repr::Spliced { parts, len, .. } if fragmented(parts.len(), *len) => vec![&**self],
            Repr::Spliced { .. } => self.pieces(),
        }
    }

    /// The bytes as [`Content::chunks`] gives them, except that a spliced content always
    /// comes in its pieces, joined or not: runs of the file it was spliced from, read where
    /// they lie, so that a reader comparing the two files can tell them by their place.
    pub fn chunks_in_place(&self) -> Vec<&[u8]> {
        match &self.0.repr {
            Repr::Spliced { .. } => self.pieces(),
            _ => self.chunks(),
        }
    }

    /// A spliced content's pieces, as slices (none empty).
    fn pieces(&self) -> Vec<&[u8]> {
        let Repr::Spliced { base, parts, .. } = &self.0.repr else {
            unreachable!("only a spliced content has pieces")
        };
        parts
            .iter()
            .map(|p| match p {
                Part::Base(r) => &base[r.clone()],
                Part::Own(v) => v.as_slice(),
            })
            .collect()
    }

    /// Write the bytes to `w`.
    pub fn write_to(&self, w: &mut dyn Write) -> io::Result<()> {
        // Spliced bytes may be many small pieces (a hunk that changes every other line has
        // two per changed line): they are gathered into large writes, not one call each.
        let mut w = io::BufWriter::with_capacity(1 << 16, w);
        for c in self.chunks() {
            w.write_all(c)?;
        }
        w.flush()
    }

    /// The bytes as a reader, chunk by chunk, that can also compare what comes next.
    pub fn reader(&self) -> Cursor<'_> {
        Cursor {
            chunks: self.chunks(),
            at: 0,
        }
    }

    /// The bytes to change in place: a private buffer (joined, and no longer shared).
    pub fn make_mut(&mut self) -> &mut Vec<u8> {
        let unique_flat =
            Arc::get_mut(&mut self.0).is_some_and(|i| matches!(i.repr, Repr::Flat(_)));
        if !unique_flat {
            *self = Content::new(self.to_vec());
        }
        let inner = Arc::get_mut(&mut self.0).expect("a buffer of its own");
        inner.id = OnceLock::new();
        inner.lines = OnceLock::new();
        inner.stamp = None;
        match &mut inner.repr {
            Repr::Flat(v) => v,
            Repr::Mapped(_) | Repr::Spliced { .. } => unreachable!("made flat above"),
        }
    }

    /// The bytes in `range` of a spliced content, as parts of its base.
    fn parts_of(&self, range: Range<usize>) -> Vec<Part> {
        let Repr::Spliced { parts, .. } = &self.0.repr else {
            return vec![Part::Base(range)];
        };
        let mut out = Vec::new();
        let mut at = 0usize;
        for p in parts {
            let len = match p {
                Part::Base(r) => r.len(),
                Part::Own(v) => v.len(),
            };
            let (from, to) = (at, at + len);
            at = to;
            if to <= range.start || from >= range.end {
                continue;
            }
            let (a, b) = (range.start.max(from) - from, range.end.min(to) - from);
            out.push(match p {
                Part::Base(r) => Part::Base(r.start + a..r.start + b),
                Part::Own(v) => Part::Own(v[a..b].to_vec()),
            });
        }
        out
    }

    /// Git's blob id of these bytes, hashed chunk by chunk once and then remembered (a
    /// second caller waits for a hash under way). It fails only when SHA-1's collision
    /// detection fires.
    /// The blob id, if it was hashed already (nothing waits for a thread hashing it).
    pub fn known_blob_id(&self, kind: gix::hash::Kind) -> Option<gix::ObjectId> {
        match self.0.id.get() {
            Some((k, Some(id))) if *k == kind => Some(*id),
            _ => None,
        }
    }

    /// The git blob id of these bytes; the first one worked out is kept (clones share it).
    pub fn blob_id(&self, kind: gix::hash::Kind) -> io::Result<gix::ObjectId> {
        match self.0.id.get_or_init(|| (kind, self.hash(kind).ok())) {
            (k, Some(id)) if *k == kind => Ok(*id),
            _ => self.hash(kind),
        }
    }

    /// How many lines the bytes hold as a report counts them, counted once (chunk by chunk)
    /// and then remembered: `None` when they are not UTF-8.
    pub fn text_lines(&self) -> Option<usize> {
        *self.0.lines.get_or_init(|| {
            self.spliced_lines()
                .unwrap_or_else(|| crate::text::textdiff::text_lines(self.chunks()))
        })
    }

    /// Tell [`Content::text_lines`] its answer, counted elsewhere (the plan's decoding of a
    /// big file), unless it is known or being counted already.
    pub fn know_text_lines(&self, n: usize) {
        debug_assert_eq!(
            Some(n),
            self.spliced_lines()
                .unwrap_or_else(|| crate::text::textdiff::text_lines(self.chunks()))
        );
        let _ = self.0.lines.set(Some(n));
    }

    /// [`Content::text_lines`] of pieces of a UTF-8 base, from the base's count: its newlines
    /// less those in the stretches no piece keeps, plus those of the bytes of their own. The
    /// work is in proportion to what changed, not to the file. `None` when this does not
    /// apply (not pieces, a base that is not text, ranges out of order).
    fn spliced_lines(&self) -> Option<Option<usize>> {
        let Repr::Spliced { base, parts, len } = &self.0.repr else {
            return None;
        };
        let whole: &[u8] = base;
        let base_lines = base.text_lines()?;
        let partial = |b: &[u8]| usize::from(b.last().is_some_and(|&c| c != b'\n'));
        let newlines_in = crate::text::scan::count_newlines;
        // A stretch of valid UTF-8 is valid itself exactly when it starts and ends on a
        // character's first byte (or the end).
        let boundary = |at: usize| whole.get(at).is_none_or(|&b| (b as i8) >= -0x40);
        let mut newlines = base_lines - partial(whole);
        let mut kept_to = 0usize;
        let mut utf8 = true;
        for p in parts {
            match p {
                Part::Base(r) => {
                    if r.start < kept_to || r.end > whole.len() || r.start > r.end {
                        return None;
                    }
                    newlines -= newlines_in(&whole[kept_to..r.start]);
                    kept_to = r.end;
                    utf8 &= boundary(r.start) && boundary(r.end);
                }
                Part::Own(v) => {
                    newlines += newlines_in(v);
                    utf8 &= std::str::from_utf8(v).is_ok();
                }
            }
        }
        newlines -= newlines_in(&whole[kept_to..]);
        let last = parts.last().map(|p| match p {
            Part::Base(r) => &whole[r.clone()],
            Part::Own(v) => v.as_slice(),
        });
        debug_assert!(*len == 0 || last.is_some_and(|l| !l.is_empty()));
        Some(utf8.then(|| newlines + last.map_or(0, partial)))
    }

    /// Hash big contents' blob ids and count their lines on other threads (one each), so
    /// that both are known by the time a snapshot asks (the threads are not waited for:
    /// what is asked for sooner waits for its thread).
    /// A content given twice (or already being hashed) gets one thread.
    pub fn hash_ahead(contents: Vec<Content>, kind: gix::hash::Kind) {
        for c in contents {
            c.ahead(kind, false, None);
        }
    }

    /// [`Content::hash_ahead`] of one file just read (whose lines the plan counts as it
    /// decodes them), its id taken from `known` instead of hashed where that knows it.
    pub fn hash_read_ahead(&self, kind: gix::hash::Kind, known: Option<Known>) {
        self.clone().ahead(kind, true, known);
    }

    /// Whether another thread is hashing these bytes now (it keeps a core busy).
    pub fn hashing_ahead(&self) -> bool {
        self.0.ahead.load(std::sync::atomic::Ordering::Relaxed) && self.0.id.get().is_none()
    }

    fn ahead(self, kind: gix::hash::Kind, read: bool, known: Option<Known>) {
        use std::sync::atomic::Ordering;
        if self.len() < 1 << 20 || self.0.ahead.swap(true, Ordering::Relaxed) {
            return;
        }
        // Without a thread, each is worked out when asked for.
        // A post-state's lines are asked for first (before the proof), the id after it; a
        // file just read has its lines counted by the plan's decoding while it is hashed
        // here, so they are counted here (after the id) only if that did not count them.
        let _ = crate::sys::threads::spawn(move || {
            if !read {
                self.text_lines();
            }
            // Inside the cell's initialiser, so that whoever asks meanwhile waits for it.
            self.0.id.get_or_init(|| {
                let id = known
                    .and_then(|k| k(&self))
                    .or_else(|| self.hash(kind).ok());
                (kind, id)
            });
            self.text_lines();
        });
    }

    fn hash(&self, kind: gix::hash::Kind) -> io::Result<gix::ObjectId> {
        let mut h = gix::hash::hasher(kind);
        h.update(&gix::objs::encode::loose_header(
            gix::objs::Kind::Blob,
            self.len() as u64,
        ));
        for c in self.chunks() {
            h.update(c);
        }
        h.try_finalize().map_err(io::Error::other)
    }
}

/// Write `content` as a blob unless the repository has it, streamed into the object
/// database chunk by chunk (pieces are never joined).
pub fn write_blob(
    r: &gix::Repository,
    content: &Content,
) -> Result<gix::ObjectId, Box<dyn std::error::Error + Send + Sync>> {
    use gix::objs::Write as _;
    // The id is the one remembered (hashed ahead, or for the record of the state before).
    let id = content.blob_id(r.object_hash())?;
    if r.has_object(id) {
        return Ok(id);
    }
    // A mapped file's bytes are written from a copy checked to be what was hashed: the
    // object store renames what it writes into place itself.
    let held = content.held()?.map(Content::new);
    let mut from = held.as_ref().unwrap_or(content).reader();
    Ok(r.objects.write_stream_with_known_id(
        gix::objs::Kind::Blob,
        content.len() as u64,
        &mut from,
        id,
    )?)
}

/// Whether `parts` pieces holding `len` bytes are so many and so small that a reader's call per
/// piece costs more than copying them into one buffer (a call costs about what copying a few
/// hundred bytes does: measured on row J of `scripts/bench.sh`).
fn fragmented(parts: usize, len: usize) -> bool {
    parts >= FRAGMENTED_PARTS && len < parts * FRAGMENTED_AVERAGE
}

/// See [`fragmented`].
const FRAGMENTED_PARTS: usize = 1024;
/// See [`fragmented`].
const FRAGMENTED_AVERAGE: usize = 512;

impl Deref for Content {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0.repr {
            Repr::Flat(v) => v,
            Repr::Mapped(m) => m,
            Repr::Spliced { len, .. } => self.0.joined.get_or_init(|| {
                let mut out = Vec::with_capacity(*len);
                for c in self.pieces() {
                    out.extend_from_slice(c);
                }
                out
            }),
        }
    }
}

impl AsRef<[u8]> for Content {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for Content {
    fn from(v: Vec<u8>) -> Content {
        Content::new(v)
    }
}

impl PartialEq for Content {
    fn eq(&self, other: &Content) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        if self.len() != other.len() {
            return false;
        }
        let mut b = other.reader();
        self.chunks().into_iter().all(|c| b.eat(c)) && b.is_done()
    }
}

impl Eq for Content {}

impl std::fmt::Debug for Content {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.len() <= 1024 {
            write!(f, "{:?}", String::from_utf8_lossy(self))
        } else {
            write!(f, "<{} bytes>", self.len())
        }
    }
}

/// A walk through a content's bytes: read like a file, or compared as it goes.
pub struct Cursor<'a> {
    /// What is left of each chunk; those before `at` are read.
    chunks: Vec<&'a [u8]>,
    at: usize,
}

impl Cursor<'_> {
    /// Whether the bytes that come next are `bytes`; steps over them (a mismatch leaves the
    /// cursor anywhere).
    pub fn eat(&mut self, mut bytes: &[u8]) -> bool {
        while !bytes.is_empty() {
            let Some(c) = self.chunks.get(self.at) else {
                return false;
            };
            let n = c.len().min(bytes.len());
            if c[..n] != bytes[..n] {
                return false;
            }
            self.chunks[self.at] = &c[n..];
            if self.chunks[self.at].is_empty() {
                self.at += 1;
            }
            bytes = &bytes[n..];
        }
        true
    }

    /// Whether every byte was read or eaten.
    pub fn is_done(&self) -> bool {
        self.chunks[self.at..].iter().all(|c| c.is_empty())
    }
}

impl Read for Cursor<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while let Some(c) = self.chunks.get(self.at) {
            if c.is_empty() {
                self.at += 1;
                continue;
            }
            let n = c.len().min(buf.len());
            buf[..n].copy_from_slice(&c[..n]);
            self.chunks[self.at] = &c[n..];
            return Ok(n);
        }
        Ok(0)
    }
}

/// Regrouping pieces so that only the last one may end inside a line: a partial line at a
/// piece's end is carried into the next piece (still a range of the base while it is one).
struct Regroup<'a> {
    whole: &'a [u8],
    parts: Vec<Part>,
    carry: Carry,
}

enum Carry {
    Nothing,
    Base(Range<usize>),
    Own(Vec<u8>),
}

impl Regroup<'_> {
    fn base(&mut self, mut r: Range<usize>) {
        let bytes = &self.whole[r.clone()];
        match std::mem::replace(&mut self.carry, Carry::Nothing) {
            Carry::Nothing => {}
            Carry::Base(c) if c.end == r.start => match memchr::memchr(b'\n', bytes) {
                Some(i) => {
                    self.push_base(c.start..r.start + i + 1);
                    r.start += i + 1;
                }
                None => {
                    self.carry = Carry::Base(c.start..r.end);
                    return;
                }
            },
            other => {
                let mut line = match other {
                    Carry::Base(c) => self.whole[c].to_vec(),
                    Carry::Own(v) => v,
                    Carry::Nothing => unreachable!("matched above"),
                };
                match memchr::memchr(b'\n', bytes) {
                    Some(i) => {
                        line.extend_from_slice(&bytes[..=i]);
                        self.push_own(line);
                        r.start += i + 1;
                    }
                    None => {
                        line.extend_from_slice(bytes);
                        self.carry = Carry::Own(line);
                        return;
                    }
                }
            }
        }
        if r.is_empty() {
            return;
        }
        let end =
            memchr::memrchr(b'\n', &self.whole[r.clone()]).map_or(r.start, |i| r.start + i + 1);
        if end > r.start {
            self.push_base(r.start..end);
        }
        if end < r.end {
            self.carry = Carry::Base(end..r.end);
        }
    }

    fn own(&mut self, bytes: Vec<u8>) {
        // With nothing carried the bytes are kept as they came, not copied.
        let mut v = match std::mem::replace(&mut self.carry, Carry::Nothing) {
            Carry::Nothing => bytes,
            Carry::Base(c) => [&self.whole[c], &bytes[..]].concat(),
            Carry::Own(mut v) => {
                v.extend_from_slice(&bytes);
                v
            }
        };
        match memchr::memrchr(b'\n', &v) {
            Some(i) => {
                let rest = v.split_off(i + 1);
                self.push_own(v);
                if !rest.is_empty() {
                    self.carry = Carry::Own(rest);
                }
            }
            None if v.is_empty() => {}
            None => self.carry = Carry::Own(v),
        }
    }

    fn push_base(&mut self, r: Range<usize>) {
        match self.parts.last_mut() {
            Some(Part::Base(last)) if last.end == r.start => last.end = r.end,
            _ => self.parts.push(Part::Base(r)),
        }
    }

    fn push_own(&mut self, bytes: Vec<u8>) {
        match self.parts.last_mut() {
            Some(Part::Own(last)) => last.extend_from_slice(&bytes),
            _ => self.parts.push(Part::Own(bytes)),
        }
    }

    fn finish(mut self) -> Vec<Part> {
        match std::mem::replace(&mut self.carry, Carry::Nothing) {
            Carry::Nothing => {}
            Carry::Base(r) => self.push_base(r),
            Carry::Own(v) => self.push_own(v),
        }
        self.parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn base() -> Content {
        Content::new(b"one\ntwo\nthree\nfour".to_vec())
    }

    #[test]
    fn pieces_are_regrouped_at_line_ends() {
        let b = base();
        let c = Content::spliced(
            &b,
            [
                Part::Base(0..6),
                Part::Own(b"X\nY".to_vec()),
                Part::Base(8..18),
            ],
        );
        // The pieces, read before anything joins them.
        let chunks = c.chunks();
        assert!(chunks.len() > 1);
        for piece in &chunks[..chunks.len() - 1] {
            assert_eq!(piece.last(), Some(&b'\n'), "{chunks:?}");
        }
        assert_eq!(chunks.concat(), b"one\ntwX\nYthree\nfour");
        assert_eq!(&c[..], b"one\ntwX\nYthree\nfour");
    }

    /// Many small pieces (a hunk changing every other line) are read as one buffer, joined
    /// once: the same bytes, the same id.
    #[test]
    fn many_small_pieces_are_read_joined() {
        let text: Vec<u8> = (0..4000)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let b = Content::new(text.clone());
        let mut parts = Vec::new();
        let mut want = Vec::new();
        let mut at = 0;
        for (i, line) in text.split_inclusive(|&c| c == b'\n').enumerate() {
            if i % 2 == 0 {
                parts.push(Part::Base(at..at + line.len()));
                want.extend_from_slice(line);
            } else {
                parts.push(Part::Own(b"x\n".to_vec()));
                want.extend_from_slice(b"x\n");
            }
            at += line.len();
        }
        let c = Content::spliced(&b, parts);
        assert!(c.is_pieces(), "nothing read it yet");
        assert_eq!(c.chunks(), vec![&want[..]]);
        assert!(!c.is_pieces(), "joined");
        let kind = gix::hash::Kind::Sha1;
        assert_eq!(
            c.blob_id(kind).unwrap(),
            Content::new(want).blob_id(kind).unwrap()
        );
    }

    #[test]
    fn the_whole_base_is_the_base_and_joining_happens_once() {
        let b = base();
        let same = Content::spliced(&b, [Part::Base(0..8), Part::Base(8..18)]);
        assert!(Arc::ptr_eq(&same.0, &b.0));
        let c = Content::spliced(
            &b,
            [
                Part::Base(0..4),
                Part::Own(b"2\n".to_vec()),
                Part::Base(8..18),
            ],
        );
        assert!(c.is_pieces());
        assert_eq!(c.len(), 16);
        assert_eq!(c, Content::new(b"one\n2\nthree\nfour".to_vec()));
        assert!(c.is_pieces(), "comparing reads the pieces");
        assert_eq!(&c[..], b"one\n2\nthree\nfour");
        assert!(!c.is_pieces());
        let mut m = c.clone();
        m.make_mut().push(b'!');
        assert_eq!(&m[..], b"one\n2\nthree\nfour!");
        assert_eq!(&c[..], b"one\n2\nthree\nfour");
    }

    #[test]
    fn pieces_of_pieces_are_pieces_of_the_first_base() {
        let b = base();
        let first = Content::spliced(
            &b,
            [
                Part::Base(0..4),
                Part::Own(b"2\n".to_vec()),
                Part::Base(8..18),
            ],
        );
        // "one\n2\nthree\nfour": keep "one\n2\n", replace "three\n", keep "four".
        let second = Content::spliced(
            &first,
            [
                Part::Base(0..6),
                Part::Own(b"3\n".to_vec()),
                Part::Base(12..16),
            ],
        );
        assert_eq!(second.chunks().concat(), b"one\n2\n3\nfour");
        assert!(first.is_pieces(), "the first is not joined");
    }

    proptest! {
        #[test]
        fn any_pieces_read_back_alike(
            text in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\n')], 0..60),
            cuts in proptest::collection::vec((0usize..60, 0usize..60, proptest::collection::vec(prop_oneof![Just(b'b'), Just(b'\n')], 0..5)), 0..6),
        ) {
            let b = Content::new(text.clone());
            let mut parts = Vec::new();
            let mut want = Vec::new();
            for (x, y, own) in cuts {
                let (x, y) = (x.min(text.len()), y.min(text.len()));
                let r = x.min(y)..x.max(y);
                want.extend_from_slice(&text[r.clone()]);
                parts.push(Part::Base(r));
                want.extend_from_slice(&own);
                parts.push(Part::Own(own));
            }
            let c = Content::spliced(&b, parts);
            let chunks = c.chunks();
            prop_assert_eq!(chunks.concat(), want.clone());
            prop_assert!(chunks.iter().all(|c| !c.is_empty()));
            for c in chunks.iter().rev().skip(1) {
                prop_assert_eq!(c.last(), Some(&b'\n'));
            }
            prop_assert_eq!(c.len(), want.len());
            let mut read = Vec::new();
            c.reader().read_to_end(&mut read).unwrap();
            prop_assert_eq!(&read, &want);
            prop_assert_eq!(
                c.blob_id(gix::hash::Kind::Sha1).unwrap(),
                gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &want).unwrap()
            );
            prop_assert!(c == Content::new(want.clone()));
            let mut longer = want.clone();
            longer.push(b'a');
            prop_assert!(c != Content::new(longer));
            if let Some(last) = want.len().checked_sub(1) {
                let mut other = want.clone();
                other[last] ^= 1;
                prop_assert!(c != Content::new(other));
            }
            // Pieces of these pieces: the same bytes as pieces of the joined copy.
            let (x, y) = (want.len() / 4, want.len() / 2);
            let again = [Part::Base(0..x), Part::Own(b"z\n".to_vec()), Part::Base(y..want.len())];
            let twice = Content::spliced(&c, again.clone());
            let flat = Content::spliced(&Content::new(want.clone()), again);
            prop_assert_eq!(twice.chunks().concat(), flat.chunks().concat());
            for c in twice.chunks().iter().rev().skip(1) {
                prop_assert_eq!(c.last(), Some(&b'\n'));
            }
            prop_assert_eq!(&c[..], &want[..]);
        }

        /// The line count of pieces, worked out from the base's, is the count of their
        /// bytes: over multibyte characters cut anywhere and bytes of their own that are not
        /// UTF-8, for ranges in order (the shortcut) and out of order (counted whole).
        #[test]
        fn pieces_count_their_lines_as_their_bytes_do(
            text in proptest::collection::vec(prop_oneof![Just("a"), Just("\n"), Just("é"), Just("€")], 0..40),
            cuts in proptest::collection::vec((0usize..90, 0usize..90, proptest::collection::vec(prop_oneof![Just(b'b'), Just(b'\n'), Just(0xc3_u8)], 0..4)), 0..6),
            in_order in any::<bool>(),
        ) {
            let text = text.concat().into_bytes();
            let b = Content::new(text.clone());
            let mut cuts: Vec<_> = cuts
                .into_iter()
                .map(|(x, y, own)| {
                    let (x, y) = (x.min(text.len()), y.min(text.len()));
                    (x.min(y), x.max(y), own)
                })
                .collect();
            if in_order {
                cuts.sort_by_key(|c| c.0);
                let mut at = 0;
                for c in &mut cuts {
                    c.0 = c.0.max(at);
                    c.1 = c.1.max(c.0);
                    at = c.1;
                }
            }
            let mut parts = Vec::new();
            let mut want = Vec::new();
            for (x, y, own) in cuts {
                want.extend_from_slice(&text[x..y]);
                parts.push(Part::Base(x..y));
                want.extend_from_slice(&own);
                parts.push(Part::Own(own));
            }
            let c = Content::spliced(&b, parts);
            prop_assert_eq!(c.text_lines(), crate::text::textdiff::text_lines([want.as_slice()]));
        }
    }
}

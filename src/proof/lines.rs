//! Lines as byte ranges of a file, with their terminators: the proof compares bytes, so it
//! reads files itself rather than through the planner's decoding. A file is either walked
//! ([`Lines`]) or, for the original a proof indexes into, given a compact index of line
//! starts ([`Index`]); no file is held as a vector of lines.

use std::borrow::Cow;
use std::cell::Cell;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// One line: its content without the terminator, and the terminator (`\n`, `\r\n` or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub content: &'a [u8],
    pub eol: &'a [u8],
}

impl<'a> Line<'a> {
    /// The line as the planner reads it: bytes that are not UTF-8 mapped as
    /// [`crate::text::bytes`] maps them.
    pub fn text(&self) -> Cow<'a, str> {
        crate::text::bytes::decode(self.content)
            .unwrap_or_else(|| String::from_utf8_lossy(self.content))
    }

    /// Split a line's bytes, terminator included, into content and terminator.
    fn of(raw: &'a [u8]) -> Line<'a> {
        let cut = match raw {
            [.., b'\r', b'\n'] => raw.len() - 2,
            [.., b'\n'] => raw.len() - 1,
            _ => raw.len(),
        };
        Line {
            content: &raw[..cut],
            eol: &raw[cut..],
        }
    }
}

/// Take a leading byte-order mark off `bytes`, unless `keep_bom` (the patch shows it, so it
/// stays part of the first line). Says whether one was taken.
pub fn strip_bom(bytes: &[u8], keep_bom: bool) -> (bool, &[u8]) {
    match bytes.strip_prefix(BOM) {
        Some(r) if !keep_bom => (true, r),
        _ => (false, bytes),
    }
}

/// The number of lines of `bytes` (a last line without a terminator counts).
pub fn count(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
        + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// A file held as chunks (see [`crate::repo::Content::chunks`]): every chunk but the last
/// ends with a newline, so no line straddles two.
pub type Chunks<'a> = [&'a [u8]];

/// Take a leading byte-order mark off a file's first chunk, as [`strip_bom`] does.
pub fn strip_bom_chunks(chunks: &mut [&[u8]], keep_bom: bool) -> bool {
    match chunks.first_mut() {
        Some(first) => {
            let (bom, rest) = strip_bom(first, keep_bom);
            *first = rest;
            bom
        }
        None => false,
    }
}

/// The lines of some bytes, one after another.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
    /// The chunks after `rest`.
    more: &'a Chunks<'a>,
}

impl<'a> Lines<'a> {
    pub fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            rest: bytes,
            more: &[],
        }
    }

    /// The lines of a file held as chunks.
    pub fn chunked(chunks: &'a Chunks<'a>) -> Lines<'a> {
        match chunks.split_first() {
            Some((first, more)) => Lines { rest: first, more },
            None => Lines::new(&[]),
        }
    }

    /// When the bytes not walked yet start with `span` (whole lines), step over it and say
    /// so; otherwise stay.
    pub fn skip_prefix(&mut self, span: &[u8]) -> bool {
        let mut at = self.clone();
        let mut left = span;
        while !left.is_empty() {
            if at.rest.is_empty() {
                match at.more.split_first() {
                    Some((c, more)) => (at.rest, at.more) = (c, more),
                    None => return false,
                }
            }
            let n = left.len().min(at.rest.len());
            // Pieces of the original are the original's own bytes: one place, equal.
            let same_place = std::ptr::eq(at.rest.as_ptr(), left.as_ptr());
            if !same_place && at.rest[..n] != left[..n] {
                return false;
            }
            at.rest = &at.rest[n..];
            left = &left[n..];
        }
        *self = at;
        true
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        while self.rest.is_empty() {
            let (c, more) = self.more.split_first()?;
            (self.rest, self.more) = (c, more);
        }
        let end = memchr::memchr(b'\n', self.rest).map_or(self.rest.len(), |i| i + 1);
        let (raw, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(Line::of(raw))
    }
}

/// Random access to a file's lines for well under a byte a line: how many newlines come
/// before each [`BLOCK`] of bytes, the lines last asked for, and a scan for the newlines in
/// between. Lines are mostly asked for in order (a run of kept lines, then the next), so the
/// scan from the last one is short; a jump scans at most one block. Counting a block's
/// newlines is one vectorised pass, so the index costs about as much as counting the lines.
#[derive(Debug, Clone)]
pub struct Index<'a> {
    bytes: &'a [u8],
    /// The number of lines (a last line without a terminator counts).
    len: usize,
    /// For each block, the newlines in the bytes before it.
    before: Vec<usize>,
    /// The lines last found, where they start and, once a line was read, where it ends
    /// (else [`UNREAD`]): two, so that two walks through the file taken in turns (the proof's
    /// reverse check reads the planned and the original side of a hunk alternately) each go
    /// on from where it was, the next line's start known without a second scan.
    last: [Cell<(usize, usize, usize)>; 2],
}

/// Bytes a block: 4 KiB keeps the index at 8 bytes per 4 KiB and a jump's scan short.
const BLOCK: usize = 4096;

/// How far on from a remembered line a scan goes rather than start from a block.
const NEAR: usize = 64;

/// A remembered line's end, not yet found.
const UNREAD: usize = usize::MAX;

impl<'a> Index<'a> {
    pub fn new(bytes: &'a [u8]) -> Index<'a> {
        let mut before = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut newlines = 0usize;
        for block in bytes.chunks(BLOCK) {
            before.push(newlines);
            newlines += memchr::memchr_iter(b'\n', block).count();
        }
        let len = newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
        Index {
            bytes,
            len,
            before,
            last: [Cell::new((0, 0, UNREAD)), Cell::new((0, 0, UNREAD))],
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The byte offset where line `k` starts (`len()` gives the end of the bytes).
    fn start(&self, k: usize) -> usize {
        self.find(k).0
    }

    /// Where line `k` starts, and the slot that remembers it (none past the last line).
    fn find(&self, k: usize) -> (usize, Option<usize>) {
        if k >= self.len {
            return (self.bytes.len(), None);
        }
        // A remembered line shortly before `k`, else the block holding the newline that
        // ends line `k - 1`; the slot taken (or the one further from `k`) then remembers `k`.
        let near = |(l, _, _): (usize, usize, usize)| l <= k && k - l < NEAR;
        let slot = match (near(self.last[0].get()), near(self.last[1].get())) {
            (true, true) => usize::from(self.last[1].get().0 > self.last[0].get().0),
            (true, false) => 0,
            (false, true) => 1,
            (false, false) => {
                usize::from(self.last[1].get().0.abs_diff(k) > self.last[0].get().0.abs_diff(k))
            }
        };
        let at = if near(self.last[slot].get()) {
            let (mut line, mut at, end) = self.last[slot].get();
            if line < k && end != UNREAD {
                // The remembered line was read: the next one starts where it ends.
                (line, at) = (line + 1, end);
            }
            while line < k {
                at = self.end_of(at);
                line += 1;
            }
            at
        } else if k == 0 {
            0
        } else {
            // Newline number `k - 1` (0-based) ends line `k - 1`.
            let n = k - 1;
            let b = self.before.partition_point(|&c| c <= n) - 1;
            let from = b * BLOCK;
            let i = memchr::memchr_iter(b'\n', &self.bytes[from..])
                .nth(n - self.before[b])
                .expect("the line is counted, so its newline is there");
            from + i + 1
        };
        self.last[slot].set((k, at, UNREAD));
        (at, Some(slot))
    }

    /// Where the line starting at `at` ends, its terminator included.
    fn end_of(&self, at: usize) -> usize {
        memchr::memchr(b'\n', &self.bytes[at..]).map_or(self.bytes.len(), |i| at + i + 1)
    }

    /// Line `k`, 0-based.
    pub fn line(&self, k: usize) -> Line<'a> {
        let (at, slot) = self.find(k);
        let end = self.end_of(at);
        if let Some(slot) = slot {
            self.last[slot].set((k, at, end));
        }
        Line::of(&self.bytes[at..end])
    }

    /// The bytes of lines `from..to`, terminators included.
    pub fn span(&self, from: usize, to: usize) -> &'a [u8] {
        let a = self.start(from);
        let b = self.start(to);
        &self.bytes[a..b]
    }

    /// The lines of `part` as [`count`] counts them, when `part` lies within the indexed
    /// bytes (by address: a piece of a planned file that is a stretch of the original), from
    /// the blocks' counts and at most two partial blocks; `None` for bytes elsewhere.
    pub fn count_part(&self, part: &[u8]) -> Option<usize> {
        let base = self.bytes.as_ptr() as usize;
        let from = (part.as_ptr() as usize).checked_sub(base)?;
        let to = from.checked_add(part.len())?;
        if to > self.bytes.len() {
            return None;
        }
        // The blocks' counts save a scan only of a part longer than the two partial blocks
        // they leave to scan; a short part (a kept line between changed ones) is cheaper
        // counted itself.
        if part.len() <= 2 * BLOCK {
            return Some(count(part));
        }
        let newlines = self.newlines_before(to) - self.newlines_before(from);
        Some(newlines + usize::from(part.last().is_some_and(|&b| b != b'\n')))
    }

    /// The newlines in the bytes before offset `at` (at most the bytes' length).
    fn newlines_before(&self, at: usize) -> usize {
        if self.before.is_empty() {
            return 0;
        }
        let b = (at / BLOCK).min(self.before.len() - 1);
        self.before[b] + memchr::memchr_iter(b'\n', &self.bytes[b * BLOCK..at]).count()
    }
}

/// The number of lines of a planned file held as chunks, as [`count`] counts each: chunks
/// that are stretches of the original `orig` indexes are counted from its blocks, the rest
/// byte by byte.
pub fn count_chunks_in(chunks: &Chunks, orig: &Index) -> usize {
    chunks
        .iter()
        .map(|c| orig.count_part(c).unwrap_or_else(|| count(c)))
        .sum()
}

/// A file's lines walked from the start, after its byte-order mark unless `keep_bom`; says
/// whether a mark was set aside.
#[cfg(test)]
pub fn split(bytes: &[u8], keep_bom: bool) -> (bool, Vec<Line<'_>>) {
    let (bom, rest) = strip_bom(bytes, keep_bom);
    (bom, Lines::new(rest).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_terminators_and_the_bom_is_set_aside() {
        let (bom, lines) = split(b"\xef\xbb\xbfa\r\nb\nc", false);
        assert!(bom);
        let got: Vec<(&[u8], &[u8])> = lines.iter().map(|l| (l.content, l.eol)).collect();
        assert_eq!(
            got,
            vec![
                (&b"a"[..], &b"\r\n"[..]),
                (&b"b"[..], &b"\n"[..]),
                (&b"c"[..], &b""[..])
            ]
        );
        let (bom, kept) = split(b"\xef\xbb\xbfa\n", true);
        assert!(!bom);
        assert_eq!(kept[0].content, b"\xef\xbb\xbfa");
    }

    #[test]
    fn invalid_utf8_is_compared_as_bytes() {
        let (_, lines) = split(b"caf\xe9\n", false);
        assert_eq!(lines[0].content, b"caf\xe9");
    }

    #[test]
    fn the_index_reads_the_lines_the_walk_reads() {
        for bytes in [
            &b""[..],
            b"\n",
            b"\r\n",
            b"a",
            b"a\r",
            b"a\nb",
            b"a\r\n\r\nb\n",
            b"\n\nx\r\ny",
        ] {
            let walked: Vec<Line> = Lines::new(bytes).collect();
            let index = Index::new(bytes);
            assert_eq!(index.len(), walked.len(), "{bytes:?}");
            assert_eq!(count(bytes), walked.len(), "{bytes:?}");
            let indexed: Vec<Line> = (0..index.len()).map(|k| index.line(k)).collect();
            assert_eq!(indexed, walked, "{bytes:?}");
            assert_eq!(index.span(0, index.len()), bytes);
        }
    }

    proptest::proptest! {
        /// Lines asked for in any order (runs, two walks in turns, jumps) read as the walk
        /// reads them, across many strides.
        #[test]
        fn the_index_reads_any_line_in_any_order(
            // Short lines, and now and then one longer than an index block.
            lens in proptest::collection::vec(proptest::prop_oneof![30 => 0usize..60, 1 => 4000usize..4200], 0..300),
            crlf in proptest::collection::vec(proptest::bool::ANY, 300),
            unterminated in proptest::bool::ANY,
            order in proptest::collection::vec(0usize..100_000, 0..120),
        ) {
            let mut bytes = Vec::new();
            for (i, n) in lens.iter().enumerate() {
                bytes.extend(std::iter::repeat_n(b'x', *n));
                bytes.extend_from_slice(if crlf[i] { b"\r\n" } else { b"\n" });
            }
            if unterminated {
                bytes.extend_from_slice(b"tail");
            }
            let walked: Vec<Line> = Lines::new(&bytes).collect();
            let index = Index::new(&bytes);
            proptest::prop_assert_eq!(index.len(), walked.len());
            let n = walked.len().max(1);
            for (j, r) in order.iter().enumerate() {
                // In turns: a forward walk, a second forward walk elsewhere, and jumps.
                let k = match j % 3 {
                    0 => (j / 3) % n,
                    1 => (r % 7 + j) % n,
                    _ => r % n,
                };
                if k < walked.len() {
                    proptest::prop_assert_eq!(index.line(k), walked[k]);
                    let to = (k + r % 90).min(walked.len());
                    let expected: Vec<u8> = walked[k..to]
                        .iter()
                        .flat_map(|l| l.content.iter().chain(l.eol).copied())
                        .collect();
                    proptest::prop_assert_eq!(index.span(k, to), &expected[..]);
                }
            }
            proptest::prop_assert_eq!(index.span(0, index.len()), &bytes[..]);
            // Any stretch of the bytes counts as `count` counts it; bytes elsewhere are not
            // the index's to count.
            for r in &order {
                let from = r % (bytes.len() + 1);
                let to = from + (r / 7) % (bytes.len() - from + 1);
                let part = &bytes[from..to];
                proptest::prop_assert_eq!(index.count_part(part), Some(count(part)));
            }
            if !bytes.is_empty() {
                let elsewhere = bytes.clone();
                proptest::prop_assert_eq!(index.count_part(&elsewhere), None);
            }
        }
    }

    #[test]
    fn a_carriage_return_alone_is_content() {
        let lines: Vec<Line> = Lines::new(b"a\rb\r").collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].content, b"a\rb\r");
        assert!(lines[0].eol.is_empty());
    }
}

//! Lines as byte ranges of a file, with their terminators: the proof compares bytes, so it
//! reads files itself rather than through the planner's decoding. A file is either walked
//! ([`Lines`]) or, for the original a proof indexes into, given a compact index of line
//! starts ([`Index`]); no file is held as a vector of lines.

use std::borrow::Cow;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// One line: its content without the terminator, and the terminator (`\n`, `\r\n` or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub content: &'a [u8],
    pub eol: &'a [u8],
}

impl<'a> Line<'a> {
    /// The line as the planner reads it: bytes that are not UTF-8 mapped as
    /// [`crate::bytes`] maps them.
    pub fn text(&self) -> Cow<'a, str> {
        crate::bytes::decode(self.content).unwrap_or_else(|| String::from_utf8_lossy(self.content))
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

/// The lines of some bytes, one after another.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
}

impl<'a> Lines<'a> {
    pub fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines { rest: bytes }
    }

    /// The bytes not walked yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Step over `n` bytes, which must end at a line start.
    pub fn skip_bytes(&mut self, n: usize) {
        self.rest = &self.rest[n..];
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', self.rest).map_or(self.rest.len(), |i| i + 1);
        let (raw, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(Line::of(raw))
    }
}

/// Where each line of a file starts: random access to its lines for 4 bytes a line (8 for
/// a file over 4 GiB).
#[derive(Debug, Clone)]
pub struct Index<'a> {
    bytes: &'a [u8],
    /// Line starts and, last, the end of the bytes.
    starts: Starts,
}

#[derive(Debug, Clone)]
enum Starts {
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl<'a> Index<'a> {
    pub fn new(bytes: &'a [u8]) -> Index<'a> {
        let n = count(bytes);
        let ends = memchr::memchr_iter(b'\n', bytes).map(|i| i + 1);
        let tail = (bytes.last().is_some_and(|&b| b != b'\n')).then_some(bytes.len());
        let starts = match u32::try_from(bytes.len()) {
            Ok(_) => {
                let mut v = Vec::with_capacity(n + 1);
                v.push(0);
                // Every offset is at most `bytes.len()`, which fits.
                v.extend(ends.chain(tail).map(|e| e as u32));
                Starts::Narrow(v)
            }
            Err(_) => {
                let mut v = Vec::with_capacity(n + 1);
                v.push(0);
                v.extend(ends.chain(tail));
                Starts::Wide(v)
            }
        };
        Index { bytes, starts }
    }

    pub fn len(&self) -> usize {
        match &self.starts {
            Starts::Narrow(v) => v.len() - 1,
            Starts::Wide(v) => v.len() - 1,
        }
    }

    /// The byte offset where line `k` starts (`len()` gives the end of the bytes).
    fn start(&self, k: usize) -> usize {
        match &self.starts {
            Starts::Narrow(v) => v[k] as usize,
            Starts::Wide(v) => v[k],
        }
    }

    /// Line `k`, 0-based.
    pub fn line(&self, k: usize) -> Line<'a> {
        Line::of(&self.bytes[self.start(k)..self.start(k + 1)])
    }

    /// The bytes of lines `from..to`, terminators included.
    pub fn span(&self, from: usize, to: usize) -> &'a [u8] {
        &self.bytes[self.start(from)..self.start(to)]
    }
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

    #[test]
    fn a_carriage_return_alone_is_content() {
        let lines: Vec<Line> = Lines::new(b"a\rb\r").collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].content, b"a\rb\r");
        assert!(lines[0].eol.is_empty());
    }
}

//! Lines as byte ranges of a file, with their terminators: the proof compares bytes, so it
//! reads files itself rather than through the planner's decoding.

use std::borrow::Cow;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// One line: its content without the terminator, and the terminator (`\n`, `\r\n` or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub content: &'a [u8],
    pub eol: &'a [u8],
}

impl Line<'_> {
    /// The line as the planner reads it: bytes that are not UTF-8 mapped as
    /// [`crate::bytes`] maps them.
    pub fn text(&self) -> Cow<'_, str> {
        crate::bytes::decode(self.content).unwrap_or_else(|| String::from_utf8_lossy(self.content))
    }
}

/// A file split into lines; `bom` when a byte-order mark was taken off the front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    pub bom: bool,
    pub lines: Vec<Line<'a>>,
}

/// Split `bytes` into lines. With `keep_bom` a leading byte-order mark stays part of the
/// first line (the patch shows it); otherwise it is set aside.
pub fn split(bytes: &[u8], keep_bom: bool) -> Split<'_> {
    let (bom, mut rest) = match bytes.strip_prefix(BOM) {
        Some(r) if !keep_bom => (true, r),
        _ => (false, bytes),
    };
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', rest).count() + 1);
    while !rest.is_empty() {
        match memchr::memchr(b'\n', rest) {
            Some(i) => {
                let (content, eol) = if i > 0 && rest[i - 1] == b'\r' {
                    (&rest[..i - 1], &rest[i - 1..=i])
                } else {
                    (&rest[..i], &rest[i..=i])
                };
                lines.push(Line { content, eol });
                rest = &rest[i + 1..];
            }
            None => {
                lines.push(Line {
                    content: rest,
                    eol: &rest[rest.len()..],
                });
                rest = &[];
            }
        }
    }
    Split { bom, lines }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_terminators_and_the_bom_is_set_aside() {
        let s = split(b"\xef\xbb\xbfa\r\nb\nc", false);
        assert!(s.bom);
        let got: Vec<(&[u8], &[u8])> = s.lines.iter().map(|l| (l.content, l.eol)).collect();
        assert_eq!(
            got,
            vec![
                (&b"a"[..], &b"\r\n"[..]),
                (&b"b"[..], &b"\n"[..]),
                (&b"c"[..], &b""[..])
            ]
        );
        let kept = split(b"\xef\xbb\xbfa\n", true);
        assert!(!kept.bom);
        assert_eq!(kept.lines[0].content, b"\xef\xbb\xbfa");
    }

    #[test]
    fn invalid_utf8_is_compared_as_bytes() {
        let s = split(b"caf\xe9\n", false);
        assert_eq!(s.lines[0].content, b"caf\xe9");
    }
}

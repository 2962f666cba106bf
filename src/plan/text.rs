//! A text file as lines plus the conventions to write it back: BOM, per-line endings, final newline.
//!
//! The lines borrow the bytes they were decoded from (UTF-8 text, the common case, is not
//! copied): a file costs a slice per line, not an allocation per line.

use std::borrow::Cow;

/// A line terminator as the file has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    Lf,
    Crlf,
    /// The last line of a file that does not end with a newline.
    None,
}

impl Eol {
    /// The terminator new lines get in a text of `crlf` lines ending in CRLF and `lf` in LF.
    pub fn dominant(crlf: usize, lf: usize) -> Eol {
        if crlf > lf {
            Eol::Crlf
        } else {
            Eol::Lf
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::Crlf => "\r\n",
            Eol::None => "",
        }
    }
}

const BOM: char = '\u{feff}';

/// One line of a [`TextFile`]: borrowed from the decoded bytes, owned only where the
/// planner changed it (or where the bytes were not UTF-8).
pub type Line<'a> = Cow<'a, str>;

/// A decoded text file. `lines[i]` never contains its terminator; `eols[i]` is it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextFile<'a> {
    pub bom: bool,
    pub lines: Vec<Line<'a>>,
    pub eols: Vec<Eol>,
}

impl<'a> TextFile<'a> {
    /// Decode a text file's bytes, UTF-8 or not (bytes that are not UTF-8 are kept through
    /// [`crate::bytes`]); `None` for binary content (a NUL byte).
    pub fn decode(bytes: &'a [u8]) -> Option<TextFile<'a>> {
        // One scan for both bytes that need a closer look: NUL (binary) and 0xF4 (the first
        // byte of the characters that stand for raw bytes). Without 0xF4, valid UTF-8 is
        // the text itself.
        let mut escapes = false;
        for at in memchr::memchr2_iter(0, 0xF4, bytes) {
            if bytes[at] == 0 {
                return None;
            }
            escapes = true;
        }
        if !escapes {
            if let Ok(text) = std::str::from_utf8(bytes) {
                return Some(TextFile::split(text, Cow::Borrowed));
            }
        }
        match crate::bytes::decode(bytes)? {
            Cow::Borrowed(text) => Some(TextFile::split(text, Cow::Borrowed)),
            Cow::Owned(text) => Some(TextFile::split(&text, |l| Cow::Owned(l.to_string()))),
        }
    }

    /// Split decoded text into lines made by `line`.
    fn split<'t>(text: &'t str, line: impl Fn(&'t str) -> Line<'a>) -> TextFile<'a> {
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let bytes = text.as_bytes();
        // Room for the lines at a guess (a line of source is rarely shorter than 16 bytes on
        // average): a big file's line table is faulted in only as it fills, and a file of
        // shorter lines grows it.
        let guess = bytes.len() / 16 + 16;
        let mut lines = Vec::with_capacity(guess);
        crate::scan::advise_huge(&mut lines);
        let mut eols = Vec::with_capacity(guess);
        let mut start = 0usize;
        for end in crate::scan::newlines(bytes) {
            if end > start && bytes[end - 1] == b'\r' {
                lines.push(line(&text[start..end - 1]));
                eols.push(Eol::Crlf);
            } else {
                lines.push(line(&text[start..end]));
                eols.push(Eol::Lf);
            }
            start = end + 1;
        }
        if start < text.len() {
            lines.push(line(&text[start..]));
            eols.push(Eol::None);
        }
        TextFile { bom, lines, eols }
    }

    pub fn encode(&self) -> Vec<u8> {
        TextFile::encode_lines(self.bom, self.lines.iter().map(|l| &**l), &self.eols)
    }

    /// The bytes of a file made of `lines` ending in `eols`, after a BOM when `bom`.
    pub fn encode_lines<'l>(
        bom: bool,
        lines: impl Iterator<Item = &'l str> + Clone,
        eols: &[Eol],
    ) -> Vec<u8> {
        let mut out = String::with_capacity(lines.clone().map(|l| l.len() + 2).sum());
        if bom {
            out.push(BOM);
        }
        for (l, e) in lines.zip(eols) {
            out.push_str(l);
            out.push_str(e.as_str());
        }
        match crate::bytes::encode(&out) {
            std::borrow::Cow::Borrowed(_) => out.into_bytes(),
            std::borrow::Cow::Owned(b) => b,
        }
    }

    /// The terminator new lines get: CRLF when most lines use it, else LF.
    pub fn dominant_eol(&self) -> Eol {
        let crlf = self.eols.iter().filter(|e| **e == Eol::Crlf).count();
        let lf = self.eols.iter().filter(|e| **e == Eol::Lf).count();
        Eol::dominant(crlf, lf)
    }

    /// True for an empty file too: there is no last line lacking a newline.
    pub fn ends_with_newline(&self) -> bool {
        self.eols.last().is_none_or(|e| *e != Eol::None)
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_encode_round_trips_every_convention() {
        for s in [
            "",
            "a",
            "a\n",
            "a\r\nb\r\n",
            "a\nb\r\nc",
            "\u{feff}x\r\ny",
            "\n\n",
            "a\rb\n",
        ] {
            let f = TextFile::decode(s.as_bytes()).expect("utf-8");
            assert_eq!(f.encode(), s.as_bytes(), "round trip of {s:?}");
        }
    }

    #[test]
    fn binary_is_not_text_but_latin1_is_kept_byte_for_byte() {
        assert!(TextFile::decode(b"a\0b").is_none());
        let latin1 = TextFile::decode(b"caf\xe9\r\nna\xefve").expect("text");
        assert_eq!(latin1.lines.len(), 2);
        assert_eq!(latin1.encode(), b"caf\xe9\r\nna\xefve");
    }

    #[test]
    fn dominant_eol_follows_the_majority() {
        let f = TextFile::decode(b"a\r\nb\r\nc\n").expect("utf-8");
        assert_eq!(f.dominant_eol(), Eol::Crlf);
        assert!(f.ends_with_newline());
        let g = TextFile::decode(b"a\nb").expect("utf-8");
        assert_eq!(g.dominant_eol(), Eol::Lf);
        assert!(!g.ends_with_newline());
    }
}

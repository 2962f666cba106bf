//! A text file as lines plus the conventions to write it back: BOM, per-line endings, final newline.
//!
//! The lines borrow the bytes they were decoded from (UTF-8 text, the common case, is not
//! copied): a file costs a slice per line, not an allocation per line.

use std::borrow::Cow;

/// A line terminator as the file has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    /// `\n`.
    Lf,
    /// `\r\n`.
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

    /// The terminator's bytes, empty for [`Eol::None`].
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::Crlf => "\r\n",
            Eol::None => "",
        }
    }
}

const BOM: char = '\u{feff}';
const BOM_BYTES: &[u8] = "\u{feff}".as_bytes();

/// From this size on a text's lines are split out in two halves at once ([`split_in_two`]).
const SPLIT_IN_TWO_AT_LEAST: usize = 4 << 20;

/// The lines and endings of `text` (no BOM), made by `line`, split out by two threads: one
/// for the lines up to the first newline past the middle, one for the rest. Most of the
/// time of a big text's split is the kernel faulting in its line table's fresh pages, which
/// two cores do in half the time. Each half's lines are counted first, so that each thread
/// fills its own part of one table. `None` where a second thread cannot be started (or the
/// text has no newline past the middle): the caller splits it in one piece.
#[allow(clippy::type_complexity)]
fn split_in_two<'t, 'a>(
    text: &'t str,
    line: &(impl Fn(&'t str) -> Line<'a> + Sync),
) -> Option<(Vec<Line<'a>>, Vec<Eol>)> {
    let (first, second) = text.split_at(middle_cut(text.as_bytes())?);
    let count = |t: &str| memchr::memchr_iter(b'\n', t.as_bytes()).count();
    let (n1, n2) = both(|| count(first), || count(second))?;
    fill_two(first, second, n1, n2, line)
}

/// Where a big text is cut in two: just after the first newline past its middle.
fn middle_cut(bytes: &[u8]) -> Option<usize> {
    let half = bytes.len() / 2;
    Some(memchr::memchr(b'\n', &bytes[half..])? + half + 1)
}

/// `a()` here and `b()` on a second thread, at once; `None` when no thread can be started.
fn both<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> Option<(A, B)> {
    match crate::sys::threads::join(a, b) {
        (mine, Some(theirs)) => Some((mine, theirs)),
        (_, None) => None,
    }
}

/// What one half of a big file's bytes holds, as [`TextFile::decode_counted`] tells it.
enum Survey<'t> {
    /// Plain UTF-8 (no byte that stands for a raw one), with this many newlines.
    Text(&'t str, usize),
    /// Bytes that need the closer look of [`crate::text::bytes::decode`].
    Other,
}

fn survey(b: &[u8]) -> Survey<'_> {
    // 0xF4 is the first byte of the characters that stand for raw bytes: without it, valid
    // UTF-8 is the text itself.
    match std::str::from_utf8(b) {
        Ok(t) if memchr::memchr(0xF4, b).is_none() => {
            Survey::Text(t, memchr::memchr_iter(b'\n', b).count())
        }
        _ => Survey::Other,
    }
}

/// [`TextFile::decode_counted`] of a big file by two threads, each checking and counting its
/// half and then filling its part of the line table. `None` when it cannot tell (no thread,
/// no newline past the middle, bytes that are not plain UTF-8): the caller decodes it in one
/// piece. With the file, its lines as [`crate::repo::Content::text_lines`] counts them, which
/// the survey has counted on the way.
fn decode_in_two(bytes: &[u8]) -> Option<(TextFile<'_>, usize)> {
    let bom = bytes.starts_with(BOM_BYTES);
    let body = if bom {
        &bytes[BOM_BYTES.len()..]
    } else {
        bytes
    };
    let (first, second) = body.split_at(middle_cut(body)?);
    match both(|| survey(first), || survey(second))? {
        (Survey::Text(t1, n1), Survey::Text(t2, n2)) => {
            let (lines, eols) = fill_two(t1, t2, n1, n2, &Cow::Borrowed)?;
            // The byte-order mark holds no newline; a last line without one counts too.
            let counted = n1 + n2 + usize::from(bytes.last() != Some(&b'\n'));
            Some((TextFile { bom, lines, eols }, counted))
        }
        _ => None,
    }
}

/// The lines of `first` (which ends with a newline and holds `n1`) and of `second` (`n2`
/// newlines, a line more when it does not end with one), filled in by two threads into one
/// table.
#[allow(clippy::type_complexity)]
fn fill_two<'t, 'a>(
    first: &'t str,
    second: &'t str,
    n1: usize,
    n2: usize,
    line: &(impl Fn(&'t str) -> Line<'a> + Sync),
) -> Option<(Vec<Line<'a>>, Vec<Eol>)> {
    use std::mem::MaybeUninit;
    let n2 = n2 + usize::from(!second.is_empty() && !second.ends_with('\n'));
    let mut lines: Vec<Line<'a>> = Vec::with_capacity(n1 + n2);
    crate::text::scan::advise_huge(&mut lines);
    let mut eols: Vec<Eol> = Vec::with_capacity(n1 + n2);
    // Writes the lines of `t` into `slots` (as many as there are, at most), their endings
    // into `ends`: how many it wrote.
    let fill = |t: &'t str, slots: &mut [MaybeUninit<Line<'a>>], ends: &mut [MaybeUninit<Eol>]| {
        let b = t.as_bytes();
        let mut start = 0usize;
        let mut k = 0usize;
        let ends_of = crate::text::scan::newlines(b)
            .map(Some)
            .chain(std::iter::once(None));
        for (end, (slot, e)) in ends_of.zip(slots.iter_mut().zip(ends.iter_mut())) {
            let (l, eol) = match end {
                Some(end) if end > start && b[end - 1] == b'\r' => (&t[start..end - 1], Eol::Crlf),
                Some(end) => (&t[start..end], Eol::Lf),
                None if start < t.len() => (&t[start..], Eol::None),
                None => break,
            };
            slot.write(line(l));
            e.write(eol);
            k += 1;
            start = end.map_or(t.len(), |end| end + 1);
        }
        k
    };
    let (slots1, slots2) = lines.spare_capacity_mut()[..n1 + n2].split_at_mut(n1);
    let (ends1, ends2) = eols.spare_capacity_mut()[..n1 + n2].split_at_mut(n1);
    let written = crate::sys::threads::join(
        || fill(first, slots1, ends1),
        || fill(second, slots2, ends2),
    );
    match written {
        (w1, Some(w2)) if w1 == n1 && w2 == n2 => {
            // SAFETY: the first n1 slots of each table were written by the first fill and
            // the next n2 by the second (each counted what it wrote, and the counts are the
            // tables' lengths).
            unsafe {
                lines.set_len(n1 + n2);
                eols.set_len(n1 + n2);
            }
            Some((lines, eols))
        }
        // The lines written are left unreleased (owned ones leak): this does not happen
        // unless a thread could not be started or panicked.
        _ => None,
    }
}

/// One line of a [`TextFile`]: borrowed from the decoded bytes, owned only where the
/// planner changed it (or where the bytes were not UTF-8).
pub type Line<'a> = Cow<'a, str>;

/// A decoded text file. `lines[i]` never contains its terminator; `eols[i]` is it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextFile<'a> {
    /// Whether the text starts with a UTF-8 byte-order mark, kept out of the first line.
    pub bom: bool,
    /// The lines, without their terminators.
    pub lines: Vec<Line<'a>>,
    /// One terminator per line; only the last may be [`Eol::None`].
    pub eols: Vec<Eol>,
}

impl<'a> TextFile<'a> {
    /// Decode a text file's bytes, UTF-8 or not (bytes that are not UTF-8 are kept through
    /// [`crate::text::bytes`]); `None` for a file git takes for binary (a NUL among its first
    /// [`crate::text::bytes::BINARY_SNIFF`] bytes: one further on is text, as in git's own
    /// diffs), or for text that already holds the characters standing for raw bytes.
    pub fn decode(bytes: &'a [u8]) -> Option<TextFile<'a>> {
        if crate::text::bytes::looks_binary([bytes]) {
            return None;
        }
        TextFile::decode_counted(bytes, true).map(|(t, _)| t)
    }

    /// The text of any bytes, a NUL being a character like another (whether a file is binary
    /// is its reader's to judge, by [`crate::text::bytes::looks_binary`], as
    /// [`TextFile::decode`] does), and where the decoding has counted them on the way (UTF-8
    /// text), the bytes' lines as [`crate::repo::Content::text_lines`] counts them. `None`
    /// only for text that already holds the characters standing for raw bytes. `two`: a big
    /// file may be decoded by two threads at once (not when another thread keeps the other
    /// core busy: the two halves would then wait for each other).
    pub fn decode_counted(bytes: &'a [u8], two: bool) -> Option<(TextFile<'a>, Option<usize>)> {
        if two && bytes.len() >= SPLIT_IN_TWO_AT_LEAST {
            if let Some((t, n)) = decode_in_two(bytes) {
                return Some((t, Some(n)));
            }
        }
        TextFile::decode_in_one(bytes, two)
    }

    /// [`TextFile::decode_counted`] by one thread (the lines may still be split by two where
    /// `two` allows it).
    fn decode_in_one(bytes: &'a [u8], two: bool) -> Option<(TextFile<'a>, Option<usize>)> {
        // 0xF4 is the first byte of the characters that stand for raw bytes: without it,
        // valid UTF-8 is the text itself.
        if memchr::memchr(0xF4, bytes).is_none() {
            if let Ok(text) = std::str::from_utf8(bytes) {
                // Plain UTF-8: its lines are the lines a report counts, and a byte-order mark
                // with nothing after it is one more.
                let t = TextFile::split(text, Cow::Borrowed, two);
                let counted = t.lines.len() + usize::from(t.bom && t.lines.is_empty());
                return Some((t, Some(counted)));
            }
        }
        let t = match crate::text::bytes::decode(bytes)? {
            Cow::Borrowed(text) => TextFile::split(text, Cow::Borrowed, two),
            Cow::Owned(text) => TextFile::split(&text, |l| Cow::Owned(l.to_string()), two),
        };
        Some((t, None))
    }

    /// Split decoded text into lines made by `line` (a big one by two threads where `two`
    /// allows it).
    fn split<'t>(
        text: &'t str,
        line: impl Fn(&'t str) -> Line<'a> + Sync,
        two: bool,
    ) -> TextFile<'a> {
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if two && text.len() >= SPLIT_IN_TWO_AT_LEAST {
            if let Some((lines, eols)) = split_in_two(text, &line) {
                return TextFile { bom, lines, eols };
            }
        }
        let bytes = text.as_bytes();
        // Room for the lines at a guess (a line of source is rarely shorter than 16 bytes on
        // average): a big file's line table is faulted in only as it fills, and a file of
        // shorter lines grows it.
        let guess = bytes.len() / 16 + 16;
        let mut lines = Vec::with_capacity(guess);
        crate::text::scan::advise_huge(&mut lines);
        let mut eols = Vec::with_capacity(guess);
        let mut start = 0usize;
        for end in crate::text::scan::newlines(bytes) {
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

    /// The file's bytes: BOM, lines and terminators as they are, raw bytes restored.
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
        match crate::text::bytes::encode(&out) {
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

    /// How many lines, the last one counted whether or not it ends in a newline.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// No lines: an empty file, or one holding only a BOM.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file is binary, and has no text, as git judges it: by a NUL among its first 8000
    /// bytes (a byte-order mark counts among them). A NUL further on is a character of the
    /// text, which comes back byte for byte, whether the file is decoded in one piece or, big,
    /// in two halves at once.
    #[test]
    fn a_nul_makes_a_file_binary_only_among_its_first_8000_bytes() {
        use crate::text::bytes::BINARY_SNIFF;
        let with_nul_at = |at: usize, len: usize, bom: bool| {
            let mut b: Vec<u8> = (0..len)
                .map(|i| {
                    if i % 40 == 39 {
                        b'\n'
                    } else {
                        b'a' + (i % 7) as u8
                    }
                })
                .collect();
            if bom {
                b.splice(0..3, BOM_BYTES.iter().copied());
            }
            b[at] = 0;
            b
        };
        for bom in [false, true] {
            for (at, binary) in [(3, true), (BINARY_SNIFF - 1, true), (BINARY_SNIFF, false)] {
                let bytes = with_nul_at(at, 20_000, bom);
                match TextFile::decode(&bytes) {
                    None => assert!(binary, "NUL at {at}, bom {bom}: taken for binary"),
                    Some(t) => {
                        assert!(!binary, "NUL at {at}, bom {bom}: taken for text");
                        assert_eq!(t.encode(), bytes, "NUL at {at}, bom {bom}");
                    }
                }
            }
        }
        // Big enough to be decoded in two halves: a NUL in either half past the first 8000
        // bytes is text, one among them is not.
        let big = SPLIT_IN_TWO_AT_LEAST + 4096;
        for (at, binary) in [(10, true), (BINARY_SNIFF + 7, false), (big - 100, false)] {
            let bytes = with_nul_at(at, big, false);
            match TextFile::decode(&bytes) {
                None => assert!(binary, "NUL at {at} of a big file: taken for binary"),
                Some(t) => {
                    assert!(!binary, "NUL at {at} of a big file: taken for text");
                    assert!(t.encode() == bytes, "NUL at {at} of a big file");
                }
            }
        }
    }

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

    proptest::proptest! {
        /// Split in two halves at once, a text has the lines and endings it has split in one
        /// piece, borrowed or owned, wherever the middle falls.
        #[test]
        fn a_text_split_in_two_is_the_text_split_in_one(
            parts in proptest::collection::vec(
                proptest::prop_oneof!["[a-c]{0,3}", proptest::strategy::Just("\n".to_string()),
                                      proptest::strategy::Just("\r\n".to_string()),
                                      proptest::strategy::Just("\r".to_string())],
                0..60,
            )
        ) {
            let text: String = parts.concat();
            let whole = TextFile::split(&text, Cow::Borrowed, false);
            match split_in_two(&text, &Cow::Borrowed) {
                Some((lines, eols)) => {
                    proptest::prop_assert_eq!(&lines, &whole.lines);
                    proptest::prop_assert_eq!(&eols, &whole.eols);
                }
                // Only a text without a newline from its middle on is left whole.
                None => proptest::prop_assert!(!text[text.len() / 2..].contains('\n')),
            }
            let owned = |l: &str| Cow::Owned(l.to_string());
            if let Some((lines, _)) = split_in_two(&text, &owned) {
                proptest::prop_assert_eq!(&lines, &whole.lines);
            }
        }
    }

    proptest::proptest! {
        /// Decoded by two threads, bytes of any kind (binary, raw bytes, a BOM, characters of
        /// several bytes) give what one thread gives, or are left to it; the lines counted
        /// on the way are the bytes' lines.
        #[test]
        fn bytes_decoded_in_two_are_the_bytes_decoded_in_one(
            bom in proptest::bool::ANY,
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b"ab".to_vec()),
                    proptest::strategy::Just(b"\n".to_vec()),
                    proptest::strategy::Just(b"\r\n".to_vec()),
                    proptest::strategy::Just("\u{e9}\u{20ac}".as_bytes().to_vec()),
                    proptest::strategy::Just(vec![0u8]),
                    proptest::strategy::Just(vec![0xF4, 0x8F, 0xBF, 0xBF]),
                    proptest::strategy::Just(vec![0xFF]),
                    proptest::strategy::Just(vec![0xC3]),
                ],
                0..60,
            )
        ) {
            let mut bytes = if bom { BOM_BYTES.to_vec() } else { Vec::new() };
            bytes.extend(parts.concat());
            let one = TextFile::decode_in_one(&bytes, false);
            // What one thread counted on the way is what the content would count, too.
            if let Some((_, Some(counted))) = &one {
                let lines = crate::text::textdiff::text_lines([&bytes[..]]);
                proptest::prop_assert_eq!(Some(*counted), lines);
            }
            let one = one.map(|(t, _)| t);
            let plain = std::str::from_utf8(&bytes).is_ok() && !bytes.contains(&0xF4);
            let body = if bom { &bytes[3..] } else { &bytes[..] };
            match decode_in_two(&bytes) {
                Some((two, counted)) => {
                    // What the survey counted on the way is what the content would count.
                    let lines = crate::text::textdiff::text_lines([&bytes[..]]);
                    proptest::prop_assert_eq!(Some(counted), lines);
                    proptest::prop_assert_eq!(Some(two), one)
                }
                None => proptest::prop_assert!(
                    !plain || !body[body.len() / 2..].contains(&b'\n'),
                    "plain text with a newline past the middle is decoded in two"
                ),
            }
        }
    }

    #[test]
    fn a_big_text_is_split_as_a_small_one_is() {
        let text: String = (0..(SPLIT_IN_TWO_AT_LEAST / 7))
            .map(|i| {
                if i % 7 == 0 {
                    format!("{i}\r\n")
                } else {
                    format!("{i:07}\n")
                }
            })
            .collect::<String>()
            + "last";
        let f = TextFile::decode(text.as_bytes()).expect("text");
        assert!(text.len() >= SPLIT_IN_TWO_AT_LEAST);
        assert_eq!(f.lines.len(), SPLIT_IN_TWO_AT_LEAST / 7 + 1);
        assert_eq!(f.eols.last(), Some(&Eol::None));
        assert_eq!(f.eols[7], Eol::Crlf);
        assert_eq!(f.lines[8], "0000008");
        assert_eq!(f.encode(), text.as_bytes());
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

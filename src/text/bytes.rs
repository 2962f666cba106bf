//! Text that is not UTF-8, kept byte for byte. A file or patch in Latin-1 or Shift-JIS, or
//! with a stray invalid sequence, is patched as git patches it: by bytes. Decoding maps each
//! byte that is not part of valid UTF-8 to one private-use character (U+10FF00 + the byte),
//! so every text pass works on it unchanged, and encoding maps those characters back. Valid
//! UTF-8 decodes to itself; Unicode folding leaves the mapped characters alone, so it applies
//! only where both sides are valid UTF-8.

use std::borrow::Cow;

const FIRST: u32 = 0x10FF00;

/// How many of a file's first bytes git reads to judge it binary: a NUL among them makes it
/// so (git's `FIRST_FEW_BYTES`).
pub const BINARY_SNIFF: usize = 8000;

/// Whether git takes a file whose bytes are `chunks`, in order, for binary: a NUL among its
/// first [`BINARY_SNIFF`] bytes. Only those are read.
pub fn looks_binary<'c>(chunks: impl IntoIterator<Item = &'c [u8]>) -> bool {
    let mut left = BINARY_SNIFF;
    for c in chunks {
        if left == 0 {
            break;
        }
        let part = &c[..c.len().min(left)];
        if memchr::memchr(0, part).is_some() {
            return true;
        }
        left -= part.len();
    }
    false
}

/// Whether `c` stands for a raw byte.
fn is_escape(c: char) -> bool {
    (FIRST..=FIRST + 0xFF).contains(&(c as u32))
}

/// Whether UTF-8 text may hold an escape character: they all encode with a first byte of
/// 0xF4, which ordinary text rarely has, so one fast scan usually settles it.
fn may_escape(s: &str) -> bool {
    memchr::memchr(0xF4, s.as_bytes()).is_some() && s.chars().any(is_escape)
}

/// The text of `bytes`, losslessly: `None` only when valid UTF-8 in it already uses the
/// characters that stand for raw bytes (it could not be told apart on the way back).
pub fn decode(bytes: &[u8]) -> Option<Cow<'_, str>> {
    match std::str::from_utf8(bytes) {
        Ok(s) if !may_escape(s) => return Some(Cow::Borrowed(s)),
        Ok(_) => return None,
        Err(_) => {}
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        if may_escape(valid) {
            return None;
        }
        out.push_str(valid);
        for &b in chunk.invalid() {
            out.push(char::from_u32(FIRST + u32::from(b)).expect("U+10FF00..U+10FFFF are chars"));
        }
    }
    Some(Cow::Owned(out))
}

/// The bytes `text` stands for: the inverse of [`decode`].
pub fn encode(text: &str) -> Cow<'_, [u8]> {
    if !may_escape(text) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if is_escape(c) {
            out.push((c as u32 - FIRST) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_is_a_nul_among_the_first_8000_bytes_whatever_the_chunks() {
        let text = vec![b'a'; 9_000];
        for (at, binary) in [(0, true), (7_999, true), (8_000, false), (8_999, false)] {
            let mut bytes = text.clone();
            bytes[at] = 0;
            assert_eq!(looks_binary([&bytes[..]]), binary, "NUL at {at}");
            // Cut anywhere, the same answer.
            for cut in [1, 4_000, 7_999, 8_000, 8_500] {
                let (a, b) = bytes.split_at(cut);
                assert_eq!(looks_binary([a, b]), binary, "NUL at {at}, cut at {cut}");
            }
        }
        assert!(!looks_binary([]));
        assert!(!looks_binary([&b""[..], b"abc"]));
    }

    #[test]
    fn every_byte_string_round_trips() {
        for bytes in [
            &b"plain\n"[..],
            b"caf\xe9\n",
            b"\x82\xa0\x82\xa2 shift-jis\n",
            b"\xff\xfe\x00x",
            b"half \xe2\x82 of a euro",
            "caf\u{e9} in utf-8".as_bytes(),
        ] {
            let text = decode(bytes).expect("decodes");
            assert_eq!(encode(&text), bytes, "round trip of {bytes:?}");
        }
    }

    #[test]
    fn valid_utf8_decodes_to_itself() {
        assert!(matches!(
            decode("na\u{ef}ve".as_bytes()),
            Some(Cow::Borrowed(_))
        ));
    }

    #[test]
    fn text_already_using_the_escape_characters_is_not_decoded() {
        assert!(decode("\u{10FF41}".as_bytes()).is_none());
        assert!(decode(b"\xe9 and \xf4\x8f\xbd\x81").is_none());
    }
}

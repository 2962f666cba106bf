//! The text of a hunk line, or of a file's section of a patch: a stretch of the patch text
//! it was read from, shared with everything else read from that text, or a string of its own
//! (a line a repair rewrote, one a parser made up). A parser of a big patch shares its input
//! instead of copying it into a string per line: a hunk of 120,000 lines was 120,000
//! allocations, each freed again with the patch.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// Text read from a patch, used as a `str`.
#[derive(Clone)]
pub struct PatchText(Repr);

#[derive(Clone)]
enum Repr {
    /// `len` bytes at `start` of a text the lines share.
    Shared {
        text: Arc<String>,
        start: u32,
        len: u32,
    },
    Own(Box<str>),
}

impl PatchText {
    /// `part` of `text`, sharing `text`'s bytes when `part` lies within them (a slice of
    /// it), else copied.
    pub fn within(text: &Arc<String>, part: &str) -> PatchText {
        let (whole, p) = (
            text.as_bytes().as_ptr_range(),
            part.as_bytes().as_ptr_range(),
        );
        let inside = whole.start <= p.start && p.end <= whole.end;
        let start = (p.start as usize).wrapping_sub(whole.start as usize);
        match (u32::try_from(start), u32::try_from(part.len())) {
            (Ok(start), Ok(len)) if inside => PatchText(Repr::Shared {
                text: Arc::clone(text),
                start,
                len,
            }),
            _ => PatchText::from(part),
        }
    }

    /// The text as a `str`.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Shared { text, start, len } => {
                let start = *start as usize;
                &text[start..start + *len as usize]
            }
            Repr::Own(s) => s,
        }
    }
}

impl Deref for PatchText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Default for PatchText {
    fn default() -> PatchText {
        PatchText(Repr::Own(Box::from("")))
    }
}

impl From<&str> for PatchText {
    fn from(s: &str) -> PatchText {
        PatchText(Repr::Own(Box::from(s)))
    }
}

impl From<String> for PatchText {
    fn from(s: String) -> PatchText {
        PatchText(Repr::Own(s.into_boxed_str()))
    }
}

impl From<std::borrow::Cow<'_, str>> for PatchText {
    fn from(s: std::borrow::Cow<'_, str>) -> PatchText {
        PatchText::from(s.into_owned())
    }
}

impl PartialEq for PatchText {
    fn eq(&self, other: &PatchText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for PatchText {}

impl PartialEq<str> for PatchText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for PatchText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Hashed as its `str` is, as `Eq` compares it.
impl Hash for PatchText {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl fmt::Debug for PatchText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for PatchText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_of_the_text_is_shared_and_anything_else_copied() {
        let text = Arc::new(String::from("one\ntwo\nthree\n"));
        let two = PatchText::within(&text, &text[4..7]);
        assert_eq!(two, "two");
        assert!(matches!(
            two.0,
            Repr::Shared {
                start: 4,
                len: 3,
                ..
            }
        ));
        assert_eq!(Arc::strong_count(&text), 2);
        let empty_at_end = PatchText::within(&text, &text[14..]);
        assert_eq!(empty_at_end, "");
        assert!(matches!(empty_at_end.0, Repr::Shared { .. }));
        // Equal bytes elsewhere are not the text's: copied.
        let elsewhere = String::from("two");
        let copied = PatchText::within(&text, &elsewhere);
        assert!(matches!(copied.0, Repr::Own(_)));
        assert_eq!(copied, two);
        drop((two, empty_at_end));
        assert_eq!(Arc::strong_count(&text), 1);
    }

    #[test]
    fn it_compares_hashes_and_prints_as_its_str() {
        use std::collections::HashSet;
        let text = Arc::new(String::from("a\tb"));
        let shared = PatchText::within(&text, &text[..]);
        let own = PatchText::from("a\tb");
        let set: HashSet<PatchText> = [shared.clone()].into_iter().collect();
        assert!(set.contains(&own));
        assert_eq!(format!("{shared}|{own:?}"), "a\tb|\"a\\tb\"");
    }
}

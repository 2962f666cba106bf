//! The matching passes: how loosely a patch line may match a file line, from exact to folded.

use std::borrow::Cow;

/// A matching pass, strictest first. Every looser match is reported with its pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pass {
    /// Byte for byte.
    Exact,
    /// Whitespace at the end of the line ignored.
    TrailingWhitespace,
    /// Whitespace at both ends ignored, so indentation may differ.
    Whitespace,
    /// Both lines [`fold`]ed: typographic look-alikes and runs of spaces and dashes count as one.
    Unicode,
    /// The guarded last pass: removed lines match, context drifted or lost lines.
    Fuzzy,
}

impl Pass {
    /// The passes that compare lines one to one, in the order they are tried.
    pub const LINE_PASSES: [Pass; 4] = [
        Pass::Exact,
        Pass::TrailingWhitespace,
        Pass::Whitespace,
        Pass::Unicode,
    ];

    /// Its kebab-case name, as the report shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Pass::Exact => "exact",
            Pass::TrailingWhitespace => "trailing-whitespace",
            Pass::Whitespace => "whitespace",
            Pass::Unicode => "unicode",
            Pass::Fuzzy => "fuzzy",
        }
    }

    /// Its slot in per-pass tables: fuzzy shares the unicode pass's keys, so both have 3.
    pub fn index(self) -> usize {
        match self {
            Pass::Exact => 0,
            Pass::TrailingWhitespace => 1,
            Pass::Whitespace => 2,
            Pass::Unicode | Pass::Fuzzy => 3,
        }
    }

    /// Whether lines matched under this pass may differ in their indentation.
    pub fn ignores_indentation(self) -> bool {
        self >= Pass::Whitespace
    }
}

/// The comparison key of `line` under `pass`: two lines match when their keys are equal.
pub fn key(pass: Pass, line: &str) -> Cow<'_, str> {
    match pass {
        Pass::Exact => Cow::Borrowed(line),
        Pass::TrailingWhitespace => Cow::Borrowed(line.trim_end()),
        Pass::Whitespace => Cow::Borrowed(line.trim()),
        Pass::Unicode | Pass::Fuzzy => Cow::Owned(fold(line)),
    }
}

/// Fold what models and editors substitute: typographic quotes, dashes, ellipses, exotic
/// spaces and zero-width characters; then collapse runs of dashes and of spaces, and trim.
pub fn fold(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last_space = true; // trims leading spaces
    let mut last_dash = false;
    let mut push = |c: char, out: &mut String| {
        if c == ' ' {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
            last_dash = false;
        } else if c == '-' {
            if !last_dash {
                out.push('-');
            }
            last_dash = true;
            last_space = false;
        } else {
            out.push(c);
            last_space = false;
            last_dash = false;
        }
    };
    for c in line.chars() {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' | '\u{2032}' | '\u{2035}' => {
                push('\'', &mut out)
            }
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' | '\u{2036}'
            | '\u{00ab}' | '\u{00bb}' => push('"', &mut out),
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' | '\u{fe58}' | '\u{fe63}' | '\u{ff0d}' => push('-', &mut out),
            '\u{2026}' => {
                for _ in 0..3 {
                    push('.', &mut out);
                }
            }
            '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' => {}
            c if c.is_whitespace() => push(' ', &mut out),
            c => push(c, &mut out),
        }
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// A line that says little about where it is: blank, or only punctuation, or very short.
/// Such lines count for less when deciding whether loose context really places a hunk.
pub fn is_trivial(line: &str) -> bool {
    let t = line.trim();
    t.chars().filter(|c| c.is_alphanumeric()).count() < 3
}

/// The leading whitespace of a line.
pub fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_maps_typographic_substitutions_to_ascii() {
        assert_eq!(fold("say \u{201c}hi\u{201d}"), fold("say \"hi\""));
        assert_eq!(fold("it\u{2019}s"), fold("it's"));
        assert_eq!(fold("a \u{2013} b"), fold("a - b"));
        assert_eq!(fold("x\u{2014}y"), fold("x--y"));
        assert_eq!(fold("wait\u{2026}"), fold("wait..."));
        assert_eq!(fold("a\u{00a0}b"), fold("a b"));
        assert_eq!(fold("  a  b\t"), "a b");
        assert_eq!(fold("a\u{200b}b"), "ab");
    }

    #[test]
    fn keys_loosen_pass_by_pass() {
        assert_ne!(key(Pass::Exact, "a "), key(Pass::Exact, "a"));
        assert_eq!(
            key(Pass::TrailingWhitespace, "a "),
            key(Pass::TrailingWhitespace, "a")
        );
        assert_ne!(
            key(Pass::TrailingWhitespace, "\ta"),
            key(Pass::TrailingWhitespace, "    a")
        );
        assert_eq!(key(Pass::Whitespace, "\ta"), key(Pass::Whitespace, "    a"));
    }

    #[test]
    fn trivial_lines_are_blank_or_punctuation() {
        assert!(is_trivial(""));
        assert!(is_trivial("    });"));
        assert!(!is_trivial("return value;"));
    }
}

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

/// The name `written` has where it reads as `actual` with one name misremembered: the same
/// words and punctuation in the same order (whitespace aside, [`fold`]ed), except that one
/// name, and only that one (wherever it recurs), is written another way: with other
/// separators and the case to match (`testCargo` for `test_cargo`), or with one letter more
/// or less (a plural, a dropped letter). A name another letter or digit replaced (`get_x`
/// and `get_y`, `case_1` and `case_2`) is a sibling, not a slip, and names of fewer than
/// four characters are too easily another one: neither counts. Lines that say little never
/// do. Whether the name written is one of the file's own (then it is no slip either) is the
/// caller's to ask.
pub fn misremembered(written: &str, actual: &str) -> Option<String> {
    if written == actual || is_trivial(written) || is_trivial(actual) {
        return None;
    }
    let (w, a) = (fold(written), fold(actual));
    let (tw, ta) = (tokens(&w), tokens(&a));
    if tw.len() != ta.len() {
        return None;
    }
    let mut pair: Option<(&str, &str)> = None;
    for (x, y) in tw.iter().zip(&ta) {
        if x == y {
            continue;
        }
        match pair {
            Some(p) if p != (*x, *y) => return None,
            _ => pair = Some((x, y)),
        }
    }
    let (x, y) = pair?;
    let name = |t: &str| {
        t.chars().count() >= 4
            && t.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
    };
    (name(x) && name(y) && (same_but_style(x, y) || one_letter_apart(x, y))).then(|| x.to_string())
}

/// The words of a line: its runs of letters, digits and `_`.
pub fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Words (runs of letters, digits and `_`) and single other characters, whitespace left out.
fn tokens(line: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if word(c) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(&line[s..i]);
        }
        if !c.is_whitespace() {
            out.push(&line[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
    out
}

/// The same name with other separators, its case to match: `fooBar` and `foo_bar`. A name
/// only in another case (`line5` and `LINE5`) is as often a change made on purpose.
fn same_but_style(x: &str, y: &str) -> bool {
    let separators = |t: &str| t.matches('_').count();
    if separators(x) == separators(y) {
        return false;
    }
    let canon = |t: &str| -> String {
        t.chars()
            .filter(|c| *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    canon(x) == canon(y)
}

/// One name is the other with one letter more (not a digit, not `_`).
fn one_letter_apart(x: &str, y: &str) -> bool {
    let (short, long): (Vec<char>, Vec<char>) = if x.len() < y.len() {
        (x.chars().collect(), y.chars().collect())
    } else {
        (y.chars().collect(), x.chars().collect())
    };
    if long.len() != short.len() + 1 {
        return false;
    }
    let at = short
        .iter()
        .zip(&long)
        .position(|(a, b)| a != b)
        .unwrap_or(short.len());
    long[at].is_alphabetic() && short[at..] == long[at + 1..]
}

/// The leading whitespace of a line.
pub fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slip(written: &str, actual: &str) -> bool {
        misremembered(written, actual).is_some()
    }

    #[test]
    fn a_name_in_another_style_or_one_letter_off_is_slip() {
        assert!(slip("fn testCargo3202() {", "fn test_cargo3202() {"));
        assert!(slip(
            "    pub fn parses(text: &str) {",
            "    pub fn parse(text: &str) {"
        ));
        assert!(slip(
            "from .encoding import want_byte as want_byte",
            "from .encoding import want_bytes as want_bytes"
        ));
        assert!(slip(
            "\treadonly pendingCounts: number;",
            "  readonly pendingCount:number;"
        ));
    }

    #[test]
    fn siblings_short_names_and_other_changes_are_not_slip() {
        // Another letter or digit in place of one: a sibling.
        assert!(!slip(
            "fn get_x(&self) -> f64 {",
            "fn get_y(&self) -> f64 {"
        ));
        assert!(!slip("fn case_1() {", "fn case_2() {"));
        // Short names.
        assert!(!slip("let abc = compute(a);", "let abcd = compute(a);"));
        // Two names changed, or one changed two ways.
        assert!(!slip("call(alpha, betas)", "call(alphas, beta)"));
        assert!(!slip("alpha = alphas", "alphas = alpha"));
        // Punctuation or a word more.
        assert!(!slip("call(alpha, beta)", "call(alpha, beta, gamma)"));
        assert!(!slip("if (ready) {", "if (!ready) {"));
        // Another word altogether, and lines that say little.
        assert!(!slip("time and space", "time or space"));
        assert!(!slip("}", "};"));
        // Only the case changed: as often a change made on purpose.
        assert!(!slip("let line5 = read();", "let LINE5 = read();"));
        assert!(!slip("same line", "same line"));
    }

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

//! Roo Code's multi-search-replace blocks, as its `apply_diff` tool documents them:
//!
//! ```text
//! <<<<<<< SEARCH
//! :start_line:12
//! -------
//! old lines
//! =======
//! new lines
//! >>>>>>> REPLACE
//! ```
//!
//! `:start_line:N` (and the older `:end_line:N`) open the SEARCH side, a line of dashes
//! ends those headers; the numbers are hints, like a unified header's. Content copied from
//! a numbered file listing carries `N | ` before every line: it is stripped only when every
//! line of the side has it, and the first number is a hint too.

/// The headers at the top of a SEARCH side: the start line they give, and how many lines
/// they take (the dash separator included). No header, nothing taken.
pub(super) fn headers(search: &[&str]) -> (Option<usize>, usize) {
    let mut start = None;
    let mut taken = 0;
    for line in search {
        let t = line.trim();
        if let Some(n) = t.strip_prefix(":start_line:") {
            start = crate::parse::line_number(n.trim()).or(start);
        } else if t.strip_prefix(":end_line:").is_some() {
        } else {
            break;
        }
        taken += 1;
    }
    if taken > 0 && search.get(taken).is_some_and(|l| is_separator(l)) {
        taken += 1;
    }
    (start, taken)
}

/// `-------`: three or more dashes alone on the line.
fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.chars().all(|c| c == '-')
}

/// `12 | text` → (12, `text`); `12 |` for an empty line.
fn numbered(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let n = crate::parse::line_number(&t[..digits])?;
    let rest = &t[digits..];
    let text = rest
        .strip_prefix(" | ")
        .or_else(|| (rest == " |").then_some(""))?;
    Some((n, text))
}

/// The lines without their `N | ` prefixes, and the first number, when every line has one.
pub(super) fn strip_numbers<'t>(lines: &[&'t str]) -> Option<(Vec<&'t str>, usize)> {
    let parsed: Vec<(usize, &str)> = lines.iter().map(|l| numbered(l)).collect::<Option<_>>()?;
    let first = parsed.first()?.0;
    Some((parsed.into_iter().map(|(_, t)| t).collect(), first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_line_headers_and_their_separator_are_taken() {
        assert_eq!(headers(&[":start_line:12", "-------", "x"]), (Some(12), 2));
        assert_eq!(
            headers(&[":start_line:3", ":end_line:4", "-------", "x"]),
            (Some(3), 3)
        );
        assert_eq!(headers(&[":start_line:3", "x"]), (Some(3), 1));
        assert_eq!(
            headers(&["-------", "x"]),
            (None, 0),
            "dashes alone are content"
        );
        assert_eq!(headers(&["x"]), (None, 0));
    }

    #[test]
    fn line_numbers_are_stripped_only_when_every_line_has_one() {
        assert_eq!(
            strip_numbers(&["10 | def f():", "11 |", "12 |     return 1"]),
            Some((vec!["def f():", "", "    return 1"], 10))
        );
        assert_eq!(strip_numbers(&["10 | def f():", "    return 1"]), None);
        assert_eq!(strip_numbers(&["a | b"]), None);
        assert_eq!(strip_numbers(&[]), None);
    }
}

//! cline's SEARCH/REPLACE markers, as its `replace_in_file` tool documents them:
//!
//! ```text
//! ------- SEARCH
//! old lines
//! =======
//! new lines
//! +++++++ REPLACE
//! ```
//!
//! Three or more of each marker character, an optional `>` after the word, and the legacy
//! `<<<` / `>>>` forms with three or more characters as well. The tool call around the
//! blocks is read in `envelope.rs`.

use super::{REPLACE, SEARCH};

/// `mark` three or more times, then `word` (with an optional `>` after it).
fn is_marker(line: &str, mark: char, word: &str) -> bool {
    let t = line.trim();
    let n = t.chars().take_while(|&c| c == mark).count();
    if n < 3 {
        return false;
    }
    let rest = t[n..].trim_start();
    rest == word || (!word.is_empty() && rest.strip_suffix('>') == Some(word))
}

pub(super) fn is_search(line: &str) -> bool {
    is_marker(line, '-', SEARCH) || is_marker(line, '<', SEARCH)
}

pub(super) fn is_divider(line: &str) -> bool {
    is_marker(line, '=', "")
}

pub(super) fn is_replace(line: &str) -> bool {
    is_marker(line, '+', REPLACE) || is_marker(line, '>', REPLACE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_or_more_marker_characters_and_an_optional_closing_bracket() {
        assert!(is_search("------- SEARCH"));
        assert!(is_search("--- SEARCH"));
        assert!(is_search("------- SEARCH>"));
        assert!(is_search("<<< SEARCH"));
        assert!(!is_search("-- SEARCH"));
        assert!(!is_search("------- SEARCHING"));
        assert!(is_divider("==="));
        assert!(!is_divider("=="));
        assert!(is_replace("+++++++ REPLACE"));
        assert!(is_replace("+++ REPLACE>"));
        assert!(is_replace(">>> REPLACE"));
        assert!(!is_replace("++ REPLACE"));
    }
}

//! Input text to one `Patch`: format detection and the three format parsers.

pub mod codex;
pub mod edit;
pub mod repair;
pub mod search_replace;
pub mod unified;
pub mod whole_file;

use crate::patch::kinds::ErrorKind;
use crate::patch::{Format, Patch};
use std::sync::Arc;

/// The text is not a patch we can apply. `Empty` and `Syntax` are bad input (exit status 2);
/// `Truncated` is a refusal (exit status 1): the patch reads, but the input stopped before
/// it did, and a partial edit is never applied.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("no patch found in the input{}", hint.as_ref().map(|h| format!(": {h}")).unwrap_or_default())]
    Empty { hint: Option<String> },
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    /// The text does not say which file an edit is for, and more than one file could be
    /// meant: a refusal (exit status 1), naming the candidates.
    #[error("{what}")]
    Ambiguous {
        what: String,
        candidates: Vec<String>,
    },
    /// A structured edit that cannot be made as sent (its text is in several places, the
    /// file changed since it was viewed, a file to create exists): a refusal (exit status 1).
    #[error(transparent)]
    Refused(edit::EditRefused),
    #[error("{path}: {what}; the patch looks cut off, so nothing was applied (resend it whole)")]
    Truncated {
        /// The file whose section was cut.
        path: String,
        /// 1-based number of the hunk (or block) in that file, when one was open.
        hunk: Option<usize>,
        /// How many lines the header promised beyond what is there, when it says.
        missing: Option<usize>,
        what: String,
    },
}

impl ParseError {
    /// A syntax error at the input's 0-based line index `i`, reported 1-based.
    pub fn syntax_at(i: usize, message: String) -> ParseError {
        ParseError::Syntax {
            line: i + 1,
            message,
        }
    }

    /// Whether the text was understood and is refused as it stands (exit status 1), rather
    /// than not understood (exit status 2).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ParseError::Truncated { .. } | ParseError::Ambiguous { .. } | ParseError::Refused(_)
        )
    }
}

impl crate::patch::kinds::Kinded for ParseError {
    fn kind(&self) -> ErrorKind {
        match self {
            // The patch reads but the input stopped before it did: a refusal, not bad input.
            ParseError::Truncated { .. } => ErrorKind::Truncated,
            // The text does not say which file it edits and several could be meant.
            ParseError::Ambiguous { .. } => ErrorKind::AmbiguousPath,
            ParseError::Refused(r) => r.kind(),
            ParseError::Empty { .. } | ParseError::Syntax { .. } => ErrorKind::Parse,
        }
    }
}

/// The largest line number or count a header may carry: numbers are hints from untrusted
/// text, and one beyond any real file is dropped rather than carried into arithmetic.
pub const MAX_LINE_NUMBER: usize = u32::MAX as usize;

/// `text` cut at each `\n`, as `str::split('\n')` cuts it (a final newline leaves an empty
/// last piece), found with a vectorised byte search: the parsers' first pass over a patch
/// of any size.
pub(crate) fn split_at_newlines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    // Room for the lines at a guess, as for a file's lines (`TextFile`): one pass, not a
    // count and then a split, and a patch of shorter lines grows it.
    let mut out = Vec::with_capacity(bytes.len() / 16 + 16);
    crate::text::scan::advise_huge(&mut out);
    let mut start = 0;
    for end in crate::text::scan::newlines(bytes) {
        out.push(&text[start..end]);
        start = end + 1;
    }
    out.push(&text[start..]);
    out
}

/// A decimal line number or count, `None` when it is not one or exceeds [`MAX_LINE_NUMBER`].
pub(crate) fn line_number(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<usize>().ok().filter(|&n| n <= MAX_LINE_NUMBER)
}

/// Answers questions about the work tree so the parser can decide what the text means
/// without doing I/O itself: whether a path exists (how many leading path components a
/// header carries), what a file holds (whether an unprefixed line is one of its lines), and
/// which files are tracked (which file a SEARCH block without a path is about).
pub trait PathProbe {
    /// Whether anything exists at this repository-relative path.
    fn exists(&self, path: &str) -> bool;
    /// The bytes of the regular file at `path`, when there is one.
    fn content(&self, _path: &str) -> Option<Vec<u8>> {
        None
    }
    /// The tracked paths (bounded in number); empty when unknown.
    fn tracked(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A probe that knows no files: every prefix decision falls back to the header's own shape.
pub struct NoFiles;

impl PathProbe for NoFiles {
    fn exists(&self, _path: &str) -> bool {
        false
    }
}

/// Which format the text is written in, by each format's own markers.
pub fn detect(text: &str) -> Format {
    if codex::looks_like(text) {
        Format::Codex
    } else if search_replace::looks_like(text) {
        Format::SearchReplace
    } else {
        Format::Unified
    }
}

/// Parse `text` as `format`, or as the detected format when `format` is None.
pub fn parse(
    text: &str,
    format: Option<Format>,
    probe: &dyn PathProbe,
) -> Result<Patch, ParseError> {
    parse_shared(&Arc::new(text.to_string()), format, probe)
}

/// [`parse`] of a text the patch shares: its hunk lines are stretches of it, not copies.
pub fn parse_shared(
    shared: &Arc<String>,
    format: Option<Format>,
    probe: &dyn PathProbe,
) -> Result<Patch, ParseError> {
    let parsed = match format.unwrap_or_else(|| detect(shared)) {
        Format::Unified => unified::parse(shared, probe),
        Format::Codex => codex::parse(shared, probe),
        Format::SearchReplace => search_replace::parse(shared, probe),
    };
    // Nothing else in it is a patch: perhaps aider's whole-file reply.
    match parsed {
        Err(ParseError::Empty { hint }) if format.is_none() => {
            whole_file::parse(shared, probe)?.ok_or(ParseError::Empty { hint })
        }
        other => other,
    }
}

/// The bytes of a regular file through the planner's read-only view. The parser only looks
/// inside the work tree: a path that climbs out of it, or leads there through a symlink,
/// reads as no file.
fn file_bytes(files: &dyn crate::repo::Files, path: &str) -> Option<Vec<u8>> {
    let outside = path.starts_with('/')
        || path
            .split('/')
            .any(|c| c == ".." || c.eq_ignore_ascii_case(".git"));
    if outside || files.escapes(path) {
        return None;
    }
    match files.read(path) {
        Ok(crate::repo::Entry::File(f)) => Some(f.bytes.to_vec()),
        _ => None,
    }
}

impl PathProbe for crate::repo::WorkTree {
    fn exists(&self, path: &str) -> bool {
        crate::repo::Files::exists(self, path)
    }
    fn content(&self, path: &str) -> Option<Vec<u8>> {
        file_bytes(self, path)
    }
    fn tracked(&self) -> Vec<String> {
        crate::repo::Files::known_paths(self)
    }
}

impl PathProbe for crate::repo::MemFiles {
    fn exists(&self, path: &str) -> bool {
        crate::repo::Files::exists(self, path)
    }
    fn content(&self, path: &str) -> Option<Vec<u8>> {
        file_bytes(self, path)
    }
    fn tracked(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }
}

/// A fixture's `before/` tree as the work tree the parser may look at (parser tests).
#[cfg(test)]
pub(crate) struct BeforeDir(pub std::path::PathBuf);

#[cfg(test)]
impl BeforeDir {
    /// The fixture case's `before/` tree, or `None` when its `expect` file wants a refusal.
    pub(crate) fn of_case(case: &std::path::Path) -> Option<BeforeDir> {
        let expect = std::fs::read_to_string(case.join("expect")).unwrap_or_default();
        let refused = expect
            .lines()
            .any(|l| l.trim().starts_with("exit ") && l.trim() != "exit 0");
        (!refused).then(|| BeforeDir(case.join("before")))
    }

    fn files(&self, dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                self.files(&p, out);
            } else if let Ok(rel) = p.strip_prefix(&self.0) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

#[cfg(test)]
impl PathProbe for BeforeDir {
    fn exists(&self, path: &str) -> bool {
        self.0.join(path).exists()
    }
    fn content(&self, path: &str) -> Option<Vec<u8>> {
        std::fs::read(self.0.join(path)).ok()
    }
    fn tracked(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.files(&self.0, &mut out);
        out
    }
}

#[cfg(test)]
mod error_tests {
    use super::*;
    use crate::patch::kinds::Kinded;

    /// What the report calls a parse failure, and whether it refuses (exit 1) or rejects
    /// (exit 2), follows from the failure itself: the driver asks the error.
    #[test]
    fn a_cut_off_or_ambiguous_patch_is_refused_under_its_own_kind_and_bad_text_is_a_parse_error() {
        let truncated = ParseError::Truncated {
            path: "a.txt".into(),
            hunk: Some(1),
            missing: Some(2),
            what: "the hunk ends early".into(),
        };
        let ambiguous = ParseError::Ambiguous {
            what: "several files could be meant".into(),
            candidates: vec!["a".into(), "b".into()],
        };
        let refused = ParseError::Refused(edit::EditRefused {
            which: String::new(),
            path: "a.txt".into(),
            why: edit::EditRefusal::CreateExists,
        });
        let syntax = ParseError::Syntax {
            line: 3,
            message: "a hunk header without numbers".into(),
        };
        let empty = ParseError::Empty { hint: None };
        let seen: Vec<(ErrorKind, bool)> = [&truncated, &ambiguous, &refused, &syntax, &empty]
            .iter()
            .map(|e| (e.kind(), e.is_refusal()))
            .collect();
        assert_eq!(
            seen,
            [
                (ErrorKind::Truncated, true),
                (ErrorKind::AmbiguousPath, true),
                (ErrorKind::Exists, true),
                (ErrorKind::Parse, false),
                (ErrorKind::Parse, false),
            ]
        );
    }
}

#[cfg(test)]
mod shared_tests {
    use super::*;

    /// Whether `part` lies inside `text`'s bytes.
    fn inside(text: &str, part: &str) -> bool {
        let (t, p) = (
            text.as_bytes().as_ptr_range(),
            part.as_bytes().as_ptr_range(),
        );
        t.start <= p.start && p.end <= t.end
    }

    /// Every format's hunk lines are read in place: stretches of the text parsed, not a
    /// string each (a patch of a hundred thousand lines would otherwise be as many
    /// allocations). A unified diff's section for `git apply` is one stretch of it too.
    #[test]
    fn hunk_lines_are_stretches_of_the_text_parsed() {
        let texts = [
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n",
            "*** Begin Patch\n*** Update File: a.txt\n@@\n keep\n-old\n+new\n*** End Patch\n",
            "a.txt\n<<<<<<< SEARCH\nkeep\nold\n=======\nkeep\nnew\n>>>>>>> REPLACE\n",
        ];
        for text in texts {
            let shared = Arc::new(text.to_string());
            let p = parse_shared(&shared, None, &NoFiles).expect("parses");
            let lines: Vec<&str> = (p.files.iter().flat_map(|f| &f.hunks))
                .flat_map(|h| h.lines.iter().map(|l| l.text.as_str()))
                .collect();
            assert!(lines.len() >= 3, "{text}: {lines:?}");
            for l in lines {
                assert!(inside(&shared, l), "{text}: {l:?} was copied");
            }
        }
        // aider's whole-file reply: its added lines are the reply's (its removed ones the
        // file's, read for it).
        let reply = Arc::new("a.txt\n```\nkeep\nnew\n```\n".to_string());
        let files = crate::repo::MemFiles::default().with("a.txt", "keep\nold\n");
        let p = parse_shared(&reply, None, &files).expect("parses");
        let added: Vec<&str> = (p.files[0].hunks[0].new_lines())
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(added, ["keep", "new"]);
        for l in added {
            assert!(inside(&reply, l), "{l:?} was copied");
        }
        let unified = Arc::new(texts[0].to_string());
        let p = parse_shared(&unified, None, &NoFiles).expect("parses");
        assert_eq!(p.files[0].raw, *texts[0]);
        assert!(inside(&unified, &p.files[0].raw), "the section was copied");
    }
}

//! aider's "whole file" replies: a path alone on a line, then a fenced block holding the
//! whole new file. Read only where nothing else in the input is a patch, as the file's full
//! replacement (a diff of the file as it is against the block) or its creation.

use super::{ParseError, PathProbe};
use crate::patch::kinds::NoticeKind;
use crate::patch::{CreateMode, FilePatch, Format, Hunk, Line, LineKind, Notice, Patch, PatchText};
use std::sync::Arc;

/// The notice every whole-file reply gets.
pub const NOTICE: NoticeKind = NoticeKind::WholeFileReply;

/// The whole-file blocks of `text`, when its only fenced blocks are such blocks (each right
/// after a line that is a path alone) and there is at least one; `Ok(None)` when the text is
/// not such a reply. A path that does not exist while files of the same name do elsewhere
/// is ambiguous: refused, naming them.
pub fn parse(shared: &Arc<String>, probe: &dyn PathProbe) -> Result<Option<Patch>, ParseError> {
    let lines: Vec<&str> = shared.lines().collect();
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(fence) = fence_open(lines[i]) else {
            i += 1;
            continue;
        };
        // A fence with no path right above it: not this dialect (a snippet in prose).
        let path = i.checked_sub(1).and_then(|p| path_line(lines[p]));
        let Some(path) = path else {
            return Ok(None);
        };
        let Some(close) = (i + 1..lines.len()).find(|&j| lines[j].trim_end() == fence) else {
            // An open fence: the reply stopped inside the file.
            return Err(ParseError::Truncated {
                path,
                hunk: None,
                missing: None,
                what: "the fenced block holding the whole file has no closing fence".into(),
            });
        };
        blocks.push((path, lines[i + 1..close].to_vec()));
        i = close + 1;
    }
    if blocks.is_empty() {
        return Ok(None);
    }
    let mut files = Vec::new();
    let mut notices = Vec::new();
    for (path, body) in blocks {
        if !probe.exists(&path) {
            let name = path.rsplit('/').next().unwrap_or(&path);
            let same: Vec<String> = probe
                .tracked()
                .into_iter()
                .filter(|t| t.rsplit('/').next() == Some(name))
                .collect();
            if !same.is_empty() {
                return Err(ParseError::Ambiguous {
                    what: format!(
                        "{path}: a whole-file reply for a path that does not exist, while {} \
                         of that name does ({}): resend it with the path of the file meant, \
                         from the top of the work tree",
                        if same.len() == 1 { "a file" } else { "files" },
                        same.join(", ")
                    ),
                    candidates: same,
                });
            }
        }
        match probe.content(&path) {
            Some(bytes) => {
                let Ok(old) = String::from_utf8(bytes) else {
                    return Err(ParseError::Syntax {
                        line: 1,
                        message: format!(
                            "{path}: a whole-file reply for a file that is not UTF-8 text"
                        ),
                    });
                };
                notices.push(Notice::for_path(
                    NOTICE,
                    &path,
                    "a path followed by a fenced block was read as the whole new file (aider's whole-file format): it replaces the file",
                ));
                files.push(replacement(&path, &Arc::new(old), shared, &body));
            }
            None => {
                let mut content = String::new();
                for l in &body {
                    content.push_str(l);
                    content.push('\n');
                }
                notices.push(Notice::for_path(
                    NOTICE,
                    &path,
                    "a path followed by a fenced block was read as a whole new file (aider's whole-file format): it creates the file",
                ));
                files.push(FilePatch {
                    new_path: Some(path),
                    create_mode: CreateMode::MustNotExist,
                    full_content: Some(content),
                    ..FilePatch::default()
                });
            }
        }
    }
    Ok(Some(Patch {
        format: Format::SearchReplace,
        files,
        notices,
    }))
}

/// The file as it is, every line removed, and the block's lines added: one hunk from line
/// 1, so it applies only to exactly those bytes. The file keeps its own final newline (or
/// its lack). The lines share the file's text and the reply's (`new` are lines of `text`).
fn replacement(path: &str, old: &Arc<String>, text: &Arc<String>, new: &[&str]) -> FilePatch {
    let mut lines: Vec<Line> = old
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .map(|l| Line::new(LineKind::Remove, PatchText::within(old, l)))
        .collect();
    lines.extend(
        new.iter()
            .map(|l| Line::new(LineKind::Add, PatchText::within(text, l))),
    );
    let no_newline = !old.is_empty() && !old.ends_with('\n');
    FilePatch {
        old_path: Some(path.to_string()),
        new_path: Some(path.to_string()),
        hunks: vec![Hunk {
            old_start: Some(1),
            new_start: Some(1),
            lines,
            old_no_newline: no_newline,
            new_no_newline: no_newline && !new.is_empty(),
            at_eof: true,
            at_bof: true,
            ..Hunk::default()
        }],
        ..FilePatch::default()
    }
}

/// The closing fence for an opening fence line (```` ``` ````, ```` ```python ````).
fn fence_open(line: &str) -> Option<&'static str> {
    let t = line.trim_end();
    let rest = t.strip_prefix("```")?;
    (!rest.starts_with('`') && !rest.contains(' ')).then_some("```")
}

/// A line that is a relative path alone (aider writes the path on the line before the
/// fence), possibly in backticks or bold: no spaces, a `.` or `/` in it, no markup.
fn path_line(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t.trim_matches('`').trim_matches('*').trim_end_matches(':');
    let plausible = !t.is_empty()
        && !t.contains(char::is_whitespace)
        && (t.contains('.') || t.contains('/'))
        && !t.starts_with(['#', '-', '+', '>', '<', '/', '.'])
        && !t.contains("..")
        && !t.ends_with('/')
        && t.chars()
            .all(|c| c.is_alphanumeric() || "._-/+@".contains(c));
    plausible.then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parser on a text of the test's own (the shared copy is made here).
    fn parse(text: &str, probe: &dyn PathProbe) -> Result<Option<Patch>, ParseError> {
        super::parse(&Arc::new(text.to_string()), probe)
    }

    struct Probe(Vec<(&'static str, &'static str)>);

    impl PathProbe for Probe {
        fn exists(&self, path: &str) -> bool {
            self.0.iter().any(|(p, _)| *p == path)
        }
        fn content(&self, path: &str) -> Option<Vec<u8>> {
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, c)| c.as_bytes().to_vec())
        }
        fn tracked(&self) -> Vec<String> {
            self.0.iter().map(|(p, _)| p.to_string()).collect()
        }
    }

    #[test]
    fn a_path_and_a_fence_replace_an_existing_file() {
        let probe = Probe(vec![("src/a.py", "x = 1\n")]);
        let p = parse("Here it is:\n\nsrc/a.py\n```python\nx = 2\n```\n", &probe)
            .expect("parses")
            .expect("a whole-file reply");
        let h = &p.files[0].hunks[0];
        assert_eq!(h.lines.len(), 2);
        assert_eq!(p.notices[0].kind, NOTICE);
    }

    #[test]
    fn a_snippet_in_prose_is_not_a_reply() {
        let probe = Probe(vec![]);
        assert_eq!(
            parse("Try this:\n```\nx = 2\n```\n", &probe).expect("no error"),
            None
        );
        assert_eq!(
            parse(
                "Use a loop, e.g.\n```python\nfor x in y: pass\n```\n",
                &probe
            )
            .expect("no error"),
            None
        );
    }

    #[test]
    fn a_new_path_with_a_namesake_elsewhere_is_ambiguous() {
        let probe = Probe(vec![("src/a.py", "x = 1\n")]);
        let e = parse("a.py\n```\nx = 2\n```\n", &probe).expect_err("ambiguous");
        assert!(matches!(e, ParseError::Ambiguous { .. }), "{e:?}");
    }
}

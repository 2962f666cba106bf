//! Reading patch text: files, `-` or stdin, with a size limit and a clear error for
//! anything that is not UTF-8 text.

use std::io::Read;
use std::path::Path;

/// Larger inputs are refused: no agent writes a 64 MiB patch on purpose.
pub const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// One patch text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file name, or `<stdin>`.
    pub name: String,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {name}: {source}")]
    Io {
        name: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{name} is larger than {MAX_INPUT} bytes")]
    TooLarge { name: String },
    #[error("{name} is not UTF-8 text (byte {offset})")]
    NotUtf8 { name: String, offset: usize },
}

/// Read each source (`-` is stdin); no sources means stdin. Relative paths are taken
/// relative to `base` (the `-C` directory).
pub fn read(sources: &[String], base: &Path) -> Result<Vec<Input>, InputError> {
    if sources.is_empty() {
        return Ok(vec![read_stdin()?]);
    }
    sources
        .iter()
        .map(|s| {
            if s == "-" {
                read_stdin()
            } else {
                read_file(&base.join(s), s)
            }
        })
        .collect()
}

fn read_stdin() -> Result<Input, InputError> {
    let name = "<stdin>".to_string();
    let mut buf = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut buf)
        .map_err(|source| InputError::Io {
            name: name.clone(),
            source,
        })?;
    decode(name, buf)
}

fn read_file(path: &Path, name: &str) -> Result<Input, InputError> {
    let f = std::fs::File::open(path).map_err(|source| InputError::Io {
        name: name.to_string(),
        source,
    })?;
    let mut buf = Vec::new();
    f.take(MAX_INPUT + 1)
        .read_to_end(&mut buf)
        .map_err(|source| InputError::Io {
            name: name.to_string(),
            source,
        })?;
    decode(name.to_string(), buf)
}

fn decode(name: String, buf: Vec<u8>) -> Result<Input, InputError> {
    if buf.len() as u64 > MAX_INPUT {
        return Err(InputError::TooLarge { name });
    }
    // A patch to a Latin-1 or Shift-JIS file carries those bytes: they are kept, byte for
    // byte, through the same mapping the files get (crate::bytes).
    match String::from_utf8(buf) {
        Ok(text) => Ok(Input { name, text }),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            match crate::bytes::decode(e.as_bytes()) {
                Some(text) => Ok(Input {
                    name,
                    text: text.into_owned(),
                }),
                None => Err(InputError::NotUtf8 { name, offset }),
            }
        }
    }
}

/// The first line of prose before the patch, if the sender wrote any: what the change is
/// meant to do, as `log` shows it. A line right before a fence or a SEARCH block that has no
/// spaces is the block's path, not prose; markdown heading marks are dropped. A
/// `git format-patch` mail says it in its `Subject:` (without the `[PATCH n/m]` tag); the
/// tags of a tool call (`<replace_in_file>`, `<path>…</path>`) are not prose.
pub fn intent(text: &str) -> Option<String> {
    if let Some(subject) = mail_subject(text) {
        return Some(subject);
    }
    const STARTS: [&str; 10] = [
        "```",
        "~~~",
        "diff ",
        "--- ",
        "+++ ",
        "*** Begin Patch",
        "Index: ",
        "@@",
        "<<<<<<<",
        "------- SEARCH",
    ];
    let mut prose: Vec<&str> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if STARTS.iter().any(|s| trimmed.starts_with(s)) {
            let block = ["```", "~~~", "<<<<<<<"]
                .iter()
                .any(|s| trimmed.starts_with(s));
            if block
                && prose
                    .last()
                    .is_some_and(|l| !l.contains(char::is_whitespace))
            {
                prose.pop();
            }
            break;
        }
        let tag = trimmed.starts_with('<') && trimmed.ends_with('>');
        if !trimmed.is_empty() && !tag {
            prose.push(trimmed);
        }
    }
    prose
        .iter()
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// The `Subject:` of the first mail of a `git format-patch` mailbox, without its
/// `[PATCH …]` tag.
fn mail_subject(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let first = lines.next()?;
    let from_line = first
        .strip_prefix("From ")
        .is_some_and(|r| r.ends_with(" 2001"));
    if !from_line {
        return None;
    }
    let subject = lines
        .take_while(|l| !l.is_empty())
        .find_map(|l| l.strip_prefix("Subject: "))?
        .trim();
    let subject = match subject.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or(subject, |(_, rest)| rest.trim()),
        None => subject,
    };
    (!subject.is_empty()).then(|| subject.to_string())
}

#[cfg(test)]
mod tests {
    use super::intent;

    #[test]
    fn intent_is_the_first_prose_line_before_the_patch() {
        assert_eq!(
            intent("## Fix the parser\n\nIt was off by one.\n```diff\n--- a/x\n"),
            Some("Fix the parser".to_string())
        );
        assert_eq!(intent("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), None);
        assert_eq!(intent("*** Begin Patch\n*** Update File: a\n"), None);
        assert_eq!(
            intent("src/a.py\n```python\n<<<<<<< SEARCH\n"),
            None,
            "a path line before a block is not prose"
        );
        assert_eq!(
            intent("Rename the helper.\nsrc/a.py\n<<<<<<< SEARCH\n"),
            Some("Rename the helper.".to_string())
        );
        assert_eq!(intent(""), None);
        assert_eq!(
            intent("From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\nSubject: [PATCH 1/2] build: warn about everything\n\nbody\n---\n"),
            Some("build: warn about everything".to_string())
        );
        assert_eq!(
            intent("<replace_in_file>\n<path>src/a.ts</path>\n<diff>\n------- SEARCH\n"),
            None,
            "a tool call's tags are not prose"
        );
    }
}

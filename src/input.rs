//! Reading patch text: files, `-` or stdin, with a size limit and a clear error for
//! anything that is not UTF-8 text.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

pub use crate::git::config::{DEFAULT_MAX_PATCH_SIZE, MAX_PATCH_SIZE_KEY};

/// One patch text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file name, or `<stdin>`.
    pub name: String,
    /// The patch text, which the parsed patch's lines share.
    pub text: Arc<String>,
    /// How many bytes were read.
    pub size: u64,
}

/// Why a patch text could not be read.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {name}: {source}")]
    Io {
        name: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{name} is {}larger than the patch size limit of {} that git config \
         {MAX_PATCH_SIZE_KEY} sets; nothing was written. To apply it, raise the limit \
         (git's k, m and g suffixes), e.g. git -c {MAX_PATCH_SIZE_KEY}={} llm-apply ...",
        size.map(|n| format!("{}, ", with_bytes(n))).unwrap_or_default(),
        with_bytes(*limit),
        config_spelling(size.unwrap_or(limit.saturating_mul(2)).max(1))
    )]
    TooLarge {
        name: String,
        /// The input's size, when known before reading it (a regular file); stdin is read
        /// only up to the limit.
        size: Option<u64>,
        limit: u64,
    },
    #[error("{name} is not UTF-8 text (byte {offset})")]
    NotUtf8 { name: String, offset: usize },
}

impl crate::patch::kinds::Kinded for InputError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Input
    }
}

const UNITS: [(char, &str, u64); 3] = [
    ('g', "GiB", 1 << 30),
    ('m', "MiB", 1 << 20),
    ('k', "KiB", 1 << 10),
];

/// `n` bytes as people read sizes: `512 bytes`, `1 KiB (1024 bytes)`, `1.5 MiB (… bytes)`.
fn with_bytes(n: u64) -> String {
    for (_, unit, size) in UNITS {
        if n >= size {
            return if n % size == 0 {
                format!("{} {unit} ({n} bytes)", n / size)
            } else {
                format!("{:.1} {unit} ({n} bytes)", n as f64 / size as f64)
            };
        }
    }
    format!("{n} bytes")
}

/// The shortest git config spelling of a size of at least `n` bytes: `3m` for 2.5 MiB.
fn config_spelling(n: u64) -> String {
    for (suffix, _, size) in UNITS {
        if n >= size {
            return format!("{}{suffix}", n.div_ceil(size));
        }
    }
    n.to_string()
}

/// Read each source (`-` is stdin); no sources means stdin. Relative paths are taken
/// relative to `base` (the `-C` directory). An input of more than `limit` bytes is refused
/// ([`MAX_PATCH_SIZE_KEY`]).
pub fn read(sources: &[String], base: &Path, limit: u64) -> Result<Vec<Input>, InputError> {
    if sources.is_empty() {
        return Ok(vec![read_stdin(limit)?]);
    }
    sources
        .iter()
        .map(|s| {
            if s == "-" {
                read_stdin(limit)
            } else {
                read_file(&base.join(s), s, limit)
            }
        })
        .collect()
}

/// The first of `inputs` over `limit` bytes, as the error [`read`] gives for it: for inputs
/// read under a larger limit than the one that holds.
pub fn over_limit(inputs: &[Input], limit: u64) -> Option<InputError> {
    inputs
        .iter()
        .find(|i| i.size > limit)
        .map(|i| InputError::TooLarge {
            name: i.name.clone(),
            size: (i.name != "<stdin>").then_some(i.size),
            limit,
        })
}

fn read_stdin(limit: u64) -> Result<Input, InputError> {
    let name = "<stdin>".to_string();
    let buf = read_at_most(std::io::stdin(), &name, limit, 0)?;
    decode(name, buf)
}

fn read_file(path: &Path, name: &str, limit: u64) -> Result<Input, InputError> {
    let f = std::fs::File::open(path).map_err(|source| InputError::Io {
        name: name.to_string(),
        source,
    })?;
    // A regular file says its size: refused before reading any of it, else read into a
    // buffer of that size (not one doubled past it).
    let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if let Some(size) = size.filter(|&s| s > limit) {
        return Err(InputError::TooLarge {
            name: name.to_string(),
            size: Some(size),
            limit,
        });
    }
    let buf = match size {
        // A regular file is read whole, as a work-tree file is (one of 4 MiB or more on two
        // cores, into a buffer advised for the kernel's big pages: most of a big read is
        // faulting in fresh memory); one that grew past the limit meanwhile is refused after.
        Some(size) => held_to(
            crate::text::scan::read_at_most(&f, size, limit),
            name,
            limit,
        )?,
        None => read_at_most(f, name, limit, 0)?,
    };
    decode(name.to_string(), buf)
}

/// Everything `from` gives (`expected` bytes, if known), refused once it passes `limit` bytes
/// (a pipe, or a file that grew: read one byte past the limit to know).
fn read_at_most(
    from: impl Read,
    name: &str,
    limit: u64,
    expected: usize,
) -> Result<Vec<u8>, InputError> {
    let mut buf = Vec::with_capacity(expected);
    let read = from
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map(|_| buf);
    held_to(read, name, limit)
}

/// The bytes a read gave, refused when it failed or gave more than `limit` of them.
fn held_to(read: std::io::Result<Vec<u8>>, name: &str, limit: u64) -> Result<Vec<u8>, InputError> {
    let buf = read.map_err(|source| InputError::Io {
        name: name.to_string(),
        source,
    })?;
    if buf.len() as u64 > limit {
        return Err(InputError::TooLarge {
            name: name.to_string(),
            size: None,
            limit,
        });
    }
    Ok(buf)
}

fn decode(name: String, buf: Vec<u8>) -> Result<Input, InputError> {
    // A patch to a Latin-1 or Shift-JIS file carries those bytes: they are kept, byte for
    // byte, through the same mapping the files get (crate::text::bytes).
    let size = buf.len() as u64;
    match String::from_utf8(buf) {
        Ok(text) => Ok(Input {
            name,
            text: Arc::new(text),
            size,
        }),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            match crate::text::bytes::decode(e.as_bytes()) {
                Some(text) => Ok(Input {
                    name,
                    text: Arc::new(text.into_owned()),
                    size,
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
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(with_bytes(512), "512 bytes");
        assert_eq!(with_bytes(1024), "1 KiB (1024 bytes)");
        assert_eq!(with_bytes(1536), "1.5 KiB (1536 bytes)");
        assert_eq!(
            with_bytes(DEFAULT_MAX_PATCH_SIZE),
            "256 MiB (268435456 bytes)"
        );
        assert_eq!(with_bytes(1 << 30), "1 GiB (1073741824 bytes)");
        assert_eq!(config_spelling(2_500_000), "3m");
        assert_eq!(config_spelling(1024), "1k");
        assert_eq!(config_spelling(100), "100");
    }

    #[test]
    fn an_input_over_the_limit_is_refused_naming_the_limit_and_the_key() {
        let err = read_at_most(&b"0123456789"[..], "<stdin>", 4, 0).expect_err("too large");
        assert_eq!(
            err.to_string(),
            "<stdin> is larger than the patch size limit of 4 bytes that git config \
             llm-apply.maxPatchSize sets; nothing was written. To apply it, raise the limit \
             (git's k, m and g suffixes), e.g. git -c llm-apply.maxPatchSize=8 llm-apply ..."
        );
        assert_eq!(
            read_at_most(&b"0123"[..], "<stdin>", 4, 4).expect("at the limit"),
            b"0123"
        );
    }

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

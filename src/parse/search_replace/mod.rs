//! Aider-style SEARCH/REPLACE blocks, any number of them among chat prose.
//!
//! ````text
//! path/to/file.py
//! ```python
//! <<<<<<< SEARCH
//! old lines
//! =======
//! new lines
//! >>>>>>> REPLACE
//! ```
//! ````
//!
//! Markers carry 5 to 9 marker characters. Each block becomes one hunk whose old side is
//! the SEARCH text (all `Remove`) and whose new side is the REPLACE text (all `Add`), so
//! every SEARCH line must be found; `reindent` lets the planner match it with less
//! indentation than the file has. Elision lines (`...`, `// ... existing code ...`), the same number in
//! SEARCH and REPLACE, split a block into pieces that are located one by one.
//!
//! An empty SEARCH creates the file when it does not exist and appends to it when it does
//! (aider's rule); the append is reported because a model rarely means it.

mod cline;
mod envelope;
mod roo;

use crate::patch::kinds::NoticeKind;
use std::collections::HashMap;
use std::sync::Arc;

use super::{ParseError, PathProbe};
use crate::patch::{FilePatch, Format, Hunk, Line, LineKind, Notice, Patch, PatchText};

const SEARCH: &str = "SEARCH";
const REPLACE: &str = "REPLACE";

/// True when a SEARCH marker is followed by a divider and a REPLACE marker, and no unified
/// file header comes first (a diff of a document about this format carries the markers as
/// context lines) unless the marker stands at column 0, where no hunk line can: a reply
/// that quotes a diff in its prose and then gives SEARCH/REPLACE blocks edits with the blocks.
pub fn looks_like(text: &str) -> bool {
    // Most input has no SEARCH line at all: a marker line holds the word, so one substring
    // search (memchr's, vectorised) says so before any line is kept.
    if memchr::memmem::find(text.as_bytes(), SEARCH.as_bytes()).is_none() {
        return false;
    }
    let lines: Vec<&str> = text.lines().collect();
    let Some(search) = lines.iter().position(|l| is_search(l)) else {
        return false;
    };
    if unified_header_before(&lines, search)
        && !(lines[search].starts_with('<') && is_marker(lines[search], '<', SEARCH))
    {
        return false;
    }
    let rest = &lines[search + 1..];
    // A block still open at the end of the text is one whose stream stopped: it is read
    // as SEARCH/REPLACE, so that the parser can refuse it as cut off.
    let open_at_end = !rest.iter().any(|l| is_replace(l) || is_search(l));
    open_at_end
        || rest
            .iter()
            .position(|l| is_divider(l))
            .is_some_and(|d| rest[d + 1..].iter().any(|l| is_replace(l)))
}

fn unified_header_before(lines: &[&str], at: usize) -> bool {
    lines[..at].iter().enumerate().any(|(i, l)| {
        l.starts_with("diff --git ")
            || (l.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
    })
}

/// aider's `<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE` with 5 to 9 marker characters;
/// surrounding whitespace is tolerated (and reported by the parser).
fn is_marker(line: &str, mark: char, word: &str) -> bool {
    let t = line.trim();
    let n = t.chars().take_while(|&c| c == mark).count();
    (5..=9).contains(&n) && t[n..].trim_start() == word
}

fn is_search(line: &str) -> bool {
    is_marker(line, '<', SEARCH) || cline::is_search(line)
}

fn is_divider(line: &str) -> bool {
    is_marker(line, '=', "") || cline::is_divider(line)
}

fn is_replace(line: &str) -> bool {
    is_marker(line, '>', REPLACE) || cline::is_replace(line)
}

/// Parse SEARCH/REPLACE blocks (with their paths, fences and dialects) into the patch model;
/// its hunk lines share the text (stretches of it, not a string each).
pub fn parse(shared: &Arc<String>, probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    let text: &str = shared;
    let lines = split_lines(text);
    let mut notes = Notes::default();
    if text.contains("\r\n") {
        notes.add(
            NoticeKind::CrlfInput,
            None,
            None,
            "the text has CRLF line endings; read as LF",
        );
    }
    let mut p = Parser {
        lines: &lines,
        shared,
        probe,
        files: Vec::new(),
        by_path: HashMap::new(),
        notes,
        ends_mid_line: !text.is_empty() && !text.ends_with('\n'),
        tracked: None,
    };
    p.run()?;
    Ok(Patch {
        format: Format::SearchReplace,
        files: p.files,
        notices: p.notes.finish(),
    })
}

/// Input lines without terminators; a CR before the LF is transport, not content.
fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<&str> = super::split_at_newlines(text);
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// One block as written: the 0-based index of its SEARCH marker and its two texts.
struct Block<'a> {
    at: usize,
    search: Vec<&'a str>,
    replace: Vec<&'a str>,
    /// Where the SEARCH text starts, when the block says (Roo Code's hints).
    hint: Option<usize>,
}

struct Parser<'a, 'p> {
    lines: &'a [&'a str],
    /// The text `lines` are slices of, for hunk lines to share ([`PatchText::within`]).
    shared: &'p Arc<String>,
    probe: &'p dyn PathProbe,
    files: Vec<FilePatch>,
    by_path: HashMap<String, usize>,
    notes: Notes,
    /// The text's last line has no terminator.
    ends_mid_line: bool,
    /// The tracked text files and their lines, read when a block names no file (`None`
    /// inside: too many to read).
    tracked: Option<Option<Vec<TrackedFile>>>,
}

/// A tracked file's path and lines.
type TrackedFile = (String, Vec<String>);

/// A tree whose text files hold more than this, or whose listing may be cut short, is too
/// large to tell that only one file holds a SEARCH text: such a block is refused.
const SEARCHED_TOTAL_LIMIT: usize = 256 * 1024 * 1024;
const SEARCHED_PATHS_LIMIT: usize = 100_000;

impl<'a> Parser<'a, '_> {
    fn run(&mut self) -> Result<(), ParseError> {
        let mut i = 0;
        // Where the text after the previous block starts, and that block's path.
        let mut after_prev = 0;
        let mut prev_path: Option<String> = None;
        let mut blocks = 0;
        while i < self.lines.len() {
            let line = self.lines[i];
            if is_replace(line) {
                return Err(ParseError::syntax_at(
                    i,
                    format!("'{}' without an opening '<<<<<<< {SEARCH}'", line.trim()),
                ));
            }
            if !is_search(line) {
                i += 1;
                continue;
            }
            let named = match self.path_before(after_prev, i) {
                Some(p) => Some(p),
                None => self.reused_path(prev_path.as_deref(), after_prev, i),
            };
            let (divider, end) = self.block_bounds(i, named.as_deref().unwrap_or("(no path)"))?;
            let block = self.block(i, divider, end);
            let path = match named {
                Some(p) => p,
                None => self.path_by_content(&block, prev_path.as_deref())?,
            };
            self.add_block(&path, &block)?;
            blocks += 1;
            prev_path = Some(path);
            i = end + 1;
            after_prev = i;
        }
        if blocks == 0 {
            return Err(ParseError::Empty {
                hint: Some(format!(
                    "no '<<<<<<< {SEARCH}' / '=======' / '>>>>>>> {REPLACE}' block found"
                )),
            });
        }
        self.cut_before_next_block(after_prev, prev_path.as_deref())
    }

    /// After the last block, a text that stops mid-line in a word (a path, a fence, a marker
    /// being written) was cut as the next block began: prose ends in a sentence or a newline.
    fn cut_before_next_block(&self, after: usize, prev: Option<&str>) -> Result<(), ParseError> {
        let rest = &self.lines[after.min(self.lines.len())..];
        let Some(last) = rest.last().map(|l| l.trim()) else {
            return Ok(());
        };
        let word = !last.contains(char::is_whitespace);
        let path_like = word
            && (last.contains('/')
                || last.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty() && ext.chars().all(char::is_alphanumeric) && !ext.is_empty()
                }));
        let starting = path_like
            || (last.starts_with("```") && !is_bare_fence(last))
            || last.starts_with("<<<<<");
        if !self.ends_mid_line || !starting {
            return Ok(());
        }
        Err(ParseError::Truncated {
            path: prev.unwrap_or_default().to_string(),
            hunk: None,
            missing: None,
            what: format!(
                "the input ends in the middle of '{last}' after the last complete block, where \
                 another block was beginning"
            ),
        })
    }

    /// The path named right before the block: on the line before `<<<<<<< SEARCH`, or on
    /// the line before the opening fence, or in the fence's info string (```` ```src/a.py ````),
    /// or in a fence of its own just before the block's (aider's fence styles); `<source>`
    /// tags count as fences.
    fn path_before(&self, lo: usize, search: usize) -> Option<String> {
        const LOOK_BACK: usize = 6;
        let mut j = search;
        for _ in 0..LOOK_BACK {
            j = j.checked_sub(1).filter(|&j| j >= lo)?;
            let t = self.lines[j].trim();
            if t.is_empty() {
                continue;
            }
            if is_fence(t) {
                match fence_info_path(t) {
                    Some(p) => return Some(p),
                    None => continue,
                }
            }
            return clean_path(self.lines[j], self.probe);
        }
        None
    }

    /// A block without its own path continues the previous block's file when nothing but
    /// fences and blank lines separates them; after prose, only when that file holds its
    /// SEARCH text ([`Self::path_by_content`]).
    fn reused_path(&mut self, prev: Option<&str>, lo: usize, search: usize) -> Option<String> {
        let glue = self.lines[lo..search]
            .iter()
            .all(|l| l.trim().is_empty() || is_fence(l.trim()));
        match prev {
            Some(p) if glue => {
                self.notes.add(
                    NoticeKind::PathReused,
                    Some(p),
                    Some(search),
                    "a block without a file path was taken to continue the block before it",
                );
                Some(p.to_string())
            }
            _ => None,
        }
    }

    /// A block that names no file is for the one tracked file that holds its SEARCH text
    /// (every piece of it, when `...` lines split it), as written or, when no file has it
    /// so, with each line's indentation and trailing whitespace aside. Two or more files
    /// is a refusal that names them; a file that holds the text twice is left to the
    /// planner, which refuses the ambiguity with its places.
    fn path_by_content(
        &mut self,
        block: &Block<'_>,
        prev: Option<&str>,
    ) -> Result<String, ParseError> {
        let no_path = format!(
            "no file path before '<<<<<<< {SEARCH}' (line {}); put the path alone on the line before the block or its opening fence",
            block.at + 1
        );
        let pieces: Vec<Vec<&str>> = match pieces(&block.search, &block.replace) {
            Ok(p) => (changed(p).into_iter())
                .map(|p| trim_blank(p.search).to_vec())
                .collect(),
            Err(_) => vec![trim_blank(&block.search).to_vec()],
        };
        if pieces.iter().all(|p| p.is_empty()) {
            return Err(ParseError::syntax_at(block.at, no_path));
        }
        let Some(files) = self.tracked_files() else {
            return Err(ParseError::syntax_at(
                block.at,
                format!("{no_path}; the work tree is too large to tell which file holds its SEARCH text"),
            ));
        };
        let mut found: Vec<String> = Vec::new();
        for norm in [str::trim_end as fn(&str) -> &str, str::trim] {
            found = files
                .iter()
                .filter(|(_, lines)| {
                    pieces
                        .iter()
                        .all(|p| p.is_empty() || occurs(lines, p, norm))
                })
                .map(|(path, _)| path.clone())
                .collect();
            if !found.is_empty() {
                break;
            }
        }
        // After prose, a block that holds text of the previous block's file continues it,
        // as aider reads such a reply.
        if let Some(p) = prev.filter(|p| found.iter().any(|f| f == p)) {
            self.notes.add(
                NoticeKind::PathReused,
                Some(p),
                Some(block.at),
                "a block without a file path was taken to continue the block before it",
            );
            return Ok(p.to_string());
        }
        match &found[..] {
            [one] => {
                self.notes.add(
                    NoticeKind::PathFromContent,
                    Some(one),
                    Some(block.at),
                    "a block that names no file was applied to the only tracked file that holds its SEARCH text",
                );
                Ok(one.clone())
            }
            [] => Err(ParseError::syntax_at(
                block.at,
                format!("{no_path}; no tracked file holds its SEARCH text"),
            )),
            many => {
                const SHOWN: usize = 10;
                let mut names: Vec<String> =
                    many.iter().take(SHOWN).map(|p| format!("'{p}'")).collect();
                if many.len() > SHOWN {
                    names.push(format!("and {} more", many.len() - SHOWN));
                }
                Err(ParseError::Ambiguous {
                    what: format!(
                        "the SEARCH/REPLACE block at line {} names no file, and its SEARCH text is in {} tracked files: {}; put the path alone on the line before the block",
                        block.at + 1,
                        many.len(),
                        names.join(", ")
                    ),
                    candidates: many.to_vec(),
                })
            }
        }
    }

    /// The tracked text files (no NUL byte) with their lines, read once;
    /// `None` when the tree is too large to read them all.
    fn tracked_files(&mut self) -> Option<&[TrackedFile]> {
        let probe = self.probe;
        self.tracked
            .get_or_insert_with(|| {
                let mut paths = probe.tracked();
                if paths.len() >= SEARCHED_PATHS_LIMIT {
                    return None;
                }
                paths.sort();
                let mut total = 0usize;
                let mut out = Vec::new();
                for p in paths {
                    let Some(bytes) = probe.content(&p) else {
                        continue;
                    };
                    total += bytes.len();
                    if total > SEARCHED_TOTAL_LIMIT {
                        return None;
                    }
                    // A binary file is never the one a SEARCH text edits; binary as the
                    // planner judges it (git's rule), so that every file it would patch is
                    // looked in, and one that holds the text too makes the block ambiguous.
                    if crate::text::bytes::looks_binary([&bytes[..]]) {
                        continue;
                    }
                    let lines = String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_string)
                        .collect();
                    out.push((p, lines));
                }
                Some(out)
            })
            .as_deref()
    }

    /// The block's two texts, once Roo Code's `:start_line:` headers and `N | ` line numbers
    /// are read off them.
    fn block(&mut self, at: usize, divider: usize, end: usize) -> Block<'a> {
        let lines = self.lines;
        let (mut hint, taken) = roo::headers(&lines[at + 1..divider]);
        let mut search: Vec<&'a str> = lines[at + 1 + taken..divider].to_vec();
        let mut replace: Vec<&'a str> = lines[divider + 1..end].to_vec();
        if let Some((stripped, first)) = roo::strip_numbers(&search) {
            search = stripped;
            hint = hint.or(Some(first));
            if let Some((r, _)) = roo::strip_numbers(&replace) {
                replace = r;
            }
            self.notes.add(
                NoticeKind::LineNumbersStripped,
                None,
                Some(at),
                "every SEARCH line began with a 'N | ' line number; the numbers were stripped and used as a hint",
            );
        }
        Block {
            at,
            search,
            replace,
            hint,
        }
    }

    /// The divider and the REPLACE marker of the block opened at `search`.
    fn block_bounds(&mut self, search: usize, path: &str) -> Result<(usize, usize), ParseError> {
        let mut dividers = Vec::new();
        let mut end = None;
        for j in search + 1..self.lines.len() {
            let line = self.lines[j];
            if is_search(line) {
                return Err(ParseError::syntax_at(
                    j,
                    format!(
                        "'<<<<<<< {SEARCH}' before the block opened at line {} was closed with '>>>>>>> {REPLACE}'",
                        search + 1
                    ),
                ));
            }
            if is_replace(line) {
                end = Some(j);
                break;
            }
            if is_divider(line) {
                dividers.push(j);
            }
        }
        let Some(end) = end else {
            // A fence closing after the block shows the sender finished writing and only
            // forgot the marker; without one the text stopped inside the block.
            let closed = self.lines[search + 1..].iter().any(|l| is_bare_fence(l));
            if closed {
                return Err(ParseError::syntax_at(
                    search,
                    format!("'<<<<<<< {SEARCH}' has no closing '>>>>>>> {REPLACE}' before the fence closes"),
                ));
            }
            let number = self
                .by_path
                .get(path)
                .map_or(0, |&i| self.files[i].hunks.len())
                + 1;
            let part = if dividers.is_empty() { SEARCH } else { REPLACE };
            return Err(ParseError::Truncated {
                path: path.to_string(),
                hunk: Some(number),
                missing: None,
                what: format!(
                    "block {number} (opened at line {}) has no closing '>>>>>>> {REPLACE}': \
                     the input ends inside its {part} text",
                    search + 1
                ),
            });
        };
        let divider = match dividers[..] {
            [] => {
                return Err(ParseError::syntax_at(
                    search,
                    "the block has no '=======' line between SEARCH and REPLACE".to_string(),
                ))
            }
            [one] => one,
            // Setext headings and conflict markers in the code look like dividers; only
            // the canonical seven '=' at column 0 decides among several.
            _ => match dividers
                .iter()
                .filter(|&&d| self.lines[d].trim_end() == "=======")
                .collect::<Vec<_>>()[..]
            {
                [&one] => one,
                _ => {
                    let at: Vec<String> = dividers.iter().map(|d| (d + 1).to_string()).collect();
                    return Err(ParseError::syntax_at(
                        search,
                        format!(
                            "the block has {} lines that could be its '=======' divider (lines {}); cannot tell SEARCH from REPLACE",
                            dividers.len(),
                            at.join(", ")
                        ),
                    ));
                }
            },
        };
        for m in [search, divider, end] {
            if self.lines[m].trim() != self.lines[m] {
                self.notes.add(
                    NoticeKind::MarkerPadding,
                    None,
                    Some(m),
                    "whitespace around a SEARCH/REPLACE marker was ignored",
                );
            }
        }
        Ok((divider, end))
    }

    fn add_block(&mut self, path: &str, block: &Block<'_>) -> Result<(), ParseError> {
        let blank = |ls: &[&str]| ls.iter().all(|l| l.trim().is_empty());
        if blank(&block.search) {
            return self.add_unanchored(path, block, blank(&block.replace));
        }
        let idx = self.file_index(path, false);
        let fp = &mut self.files[idx];
        if fp.full_content.is_some() {
            return Err(ParseError::syntax_at(
                block.at,
                format!("'{path}' is created by an earlier block; put this change in that block"),
            ));
        }
        let pieces = pieces(&block.search, &block.replace)
            .map_err(|e| ParseError::syntax_at(block.at, e.to_string()))?;
        let line = |kind, t: &&str| Line::new(kind, PatchText::within(self.shared, t));
        let mut lines: Vec<Line> = Vec::new();
        if let [whole] = &pieces[..] {
            if whole.search.len() == block.search.len() {
                lines.extend(whole.search.iter().map(|t| line(LineKind::Remove, t)));
                lines.extend(whole.replace.iter().map(|t| line(LineKind::Add, t)));
            }
        }
        if lines.is_empty() {
            // Split at its elision lines: one hunk whose pieces stand around them as context,
            // as a unified hunk's parts stand around its `...`; the planner places them in
            // order, the pieces that change nothing too (they say where the others go).
            self.notes.add(
                NoticeKind::ElisionSplit,
                Some(path),
                Some(block.at),
                "elision lines ('...', '// ... existing code ...') split a block into pieces placed in order around them",
            );
            let mut at = 0;
            for p in &pieces {
                let marks = &block.search[at..p.at];
                lines.extend(marks.iter().map(|t| line(LineKind::Context, t)));
                // The lines a piece keeps at either end are context, as in a unified hunk.
                let (old, new) = (p.search, p.replace);
                let (head, tail) = crate::patch::shared_ends(old, new);
                lines.extend(old[..head].iter().map(|t| line(LineKind::Context, t)));
                let removed = &old[head..old.len() - tail];
                lines.extend(removed.iter().map(|t| line(LineKind::Remove, t)));
                let added = &new[head..new.len() - tail];
                lines.extend(added.iter().map(|t| line(LineKind::Add, t)));
                lines.extend(
                    old[old.len() - tail..]
                        .iter()
                        .map(|t| line(LineKind::Context, t)),
                );
                at = p.at + p.search.len();
            }
            let marks = &block.search[at..];
            lines.extend(marks.iter().map(|t| line(LineKind::Context, t)));
        }
        let fp = &mut self.files[idx];
        fp.hunks.push(Hunk {
            lines,
            reindent: true,
            old_start: block.hint,
            new_start: block.hint,
            ..Hunk::default()
        });
        Ok(())
    }

    /// An empty SEARCH: create the file, or append to it when it exists.
    fn add_unanchored(
        &mut self,
        path: &str,
        block: &Block<'_>,
        empty_replace: bool,
    ) -> Result<(), ParseError> {
        if empty_replace {
            self.notes.add(
                NoticeKind::EmptyBlockIgnored,
                Some(path),
                Some(block.at),
                "a block with empty SEARCH and REPLACE changes nothing and was ignored",
            );
            return Ok(());
        }
        let known = self.by_path.get(path).copied();
        let exists = self.probe.exists(path);
        let creating = match known {
            Some(i) => self.files[i].full_content.is_some(),
            None => !exists,
        };
        if creating {
            let idx = self.file_index(path, true);
            let content = self.files[idx].full_content.get_or_insert_with(String::new);
            for l in &block.replace {
                content.push_str(l);
                content.push('\n');
            }
            return Ok(());
        }
        let idx = self.file_index(path, false);
        self.files[idx].hunks.push(Hunk {
            lines: block
                .replace
                .iter()
                .map(|t| Line::new(LineKind::Add, PatchText::within(self.shared, t)))
                .collect(),
            at_eof: true,
            ..Hunk::default()
        });
        self.notes.add(
            NoticeKind::EmptySearchAppends,
            Some(path),
            Some(block.at),
            "an empty SEARCH on an existing file appends the REPLACE text at its end",
        );
        Ok(())
    }

    /// The file patch for `path`, made on first use: a creation or a modification.
    fn file_index(&mut self, path: &str, create: bool) -> usize {
        if let Some(&i) = self.by_path.get(path) {
            return i;
        }
        let fp = if create {
            FilePatch {
                new_path: Some(path.to_string()),
                full_content: Some(String::new()),
                ..FilePatch::default()
            }
        } else {
            FilePatch {
                old_path: Some(path.to_string()),
                new_path: Some(path.to_string()),
                ..FilePatch::default()
            }
        };
        self.files.push(fp);
        self.by_path.insert(path.to_string(), self.files.len() - 1);
        self.files.len() - 1
    }
}

/// `lines` without leading and trailing blank lines.
fn trim_blank<'t>(mut lines: &'t [&'t str]) -> &'t [&'t str] {
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines = &lines[1..];
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines = &lines[..lines.len() - 1];
    }
    lines
}

/// Whether `run` occurs as consecutive lines of `lines`, each compared after `norm`.
fn occurs(lines: &[String], run: &[&str], norm: fn(&str) -> &str) -> bool {
    lines.len() >= run.len()
        && lines
            .windows(run.len())
            .any(|w| w.iter().zip(run).all(|(a, b)| norm(a) == norm(b)))
}

/// A piece of a block: SEARCH lines from line `at` of the SEARCH text, and their REPLACE lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece<'t> {
    at: usize,
    search: &'t [&'t str],
    replace: &'t [&'t str],
}

/// Why a block's elision lines cannot split it into pieces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum PiecesError {
    /// REPLACE text beside an elision with no SEARCH lines of its own: nothing says where it
    /// goes. Holds the text's first line.
    #[error("REPLACE text next to '...' ('{0}') has no SEARCH lines to say where it goes")]
    UnanchoredReplace(String),
    /// REPLACE indents an elision line otherwise than SEARCH does (a body wrapped in `try:`):
    /// the lines it stands for would have to move with it, and are not written out. Holds
    /// the REPLACE line.
    #[error(
        "REPLACE indents the elision line '{0}' otherwise than SEARCH does: the lines it stands \
         for would move with it; write them out"
    )]
    Reindented(String),
}

/// Split SEARCH and REPLACE at their elision lines (`...`, `// ... existing code ...`) when both
/// have the same number of them; otherwise such a line is ordinary text (Python's `...` body, or
/// REPLACE filling one in).
fn pieces<'t>(
    search: &'t [&'t str],
    replace: &'t [&'t str],
) -> Result<Vec<Piece<'t>>, PiecesError> {
    let elided = |ls: &[&str]| -> Vec<usize> {
        ls.iter()
            .enumerate()
            .filter(|(_, l)| crate::patch::is_elision(l))
            .map(|(i, _)| i)
            .collect()
    };
    let (se, re) = (elided(search), elided(replace));
    if se.is_empty() || se.len() != re.len() {
        return Ok(vec![Piece {
            at: 0,
            search,
            replace,
        }]);
    }
    let indent = crate::text::normalize::indentation;
    if let Some(&r) = (se.iter().zip(&re))
        .find_map(|(&s, r)| (indent(search[s]) != indent(replace[*r])).then_some(r))
    {
        return Err(PiecesError::Reindented(replace[r].trim().to_string()));
    }
    // Each part with the line it starts at.
    let split = |ls: &'t [&'t str], at: &[usize]| -> Vec<(usize, &'t [&'t str])> {
        let mut out = Vec::new();
        let mut from = 0;
        for &i in at {
            out.push((from, &ls[from..i]));
            from = i + 1;
        }
        out.push((from, &ls[from..]));
        out
    };
    let all: Vec<Piece<'t>> = split(search, &se)
        .into_iter()
        .zip(split(replace, &re))
        .map(|((at, search), (_, replace))| Piece {
            at,
            search,
            replace,
        })
        .filter(|p| !(p.search.is_empty() && p.replace.is_empty()))
        .collect();
    if let Some(p) = all.iter().find(|p| p.search.is_empty()) {
        return Err(PiecesError::UnanchoredReplace(
            p.replace.first().copied().unwrap_or_default().to_string(),
        ));
    }
    Ok(all)
}

/// The pieces that change something; all of them when none does.
fn changed<'t>(pieces: Vec<Piece<'t>>) -> Vec<Piece<'t>> {
    let changed: Vec<Piece<'t>> = (pieces.iter().copied())
        .filter(|p| p.search != p.replace)
        .collect();
    if changed.is_empty() {
        pieces
    } else {
        changed
    }
}

/// A markdown fence, or aider's `<source>` / `<source>python` / `</source>` tags used as one.
fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```")
        || trimmed.starts_with("~~~")
        || source_tag(trimmed).is_some()
        || envelope::wrapper_tag(trimmed).is_some()
}

/// The info string of a `<source…>` opening tag (empty for none), or `""` for `</source>`.
fn source_tag(t: &str) -> Option<&str> {
    if t == "</source>" {
        return Some("");
    }
    let rest = t.strip_prefix("<source")?;
    let info = rest.strip_prefix('>').or_else(|| {
        rest.strip_prefix(char::is_whitespace)
            .and_then(|r| r.strip_suffix('>'))
    })?;
    (!info.contains(['<', '>'])).then_some(info.trim())
}

/// A fence line without an info string: one that closes a fence.
fn is_bare_fence(line: &str) -> bool {
    let t = line.trim();
    t == "</source>"
        || envelope::wrapper_tag(t) == Some(true)
        || (t.len() >= 3 && (t.chars().all(|c| c == '`') || t.chars().all(|c| c == '~')))
}

/// ```` ```src/a.py ```` or ```` ```python src/a.py ````: a path in the info string, told
/// from a language name by its `.` or `/`.
fn fence_info_path(fence: &str) -> Option<String> {
    if envelope::wrapper_tag(fence).is_some() {
        return None;
    }
    let info = source_tag(fence).unwrap_or_else(|| fence.trim_start_matches(['`', '~']).trim());
    let last = info.split_whitespace().last()?;
    (last.contains('.') || last.contains('/')).then(|| normalise(last))
}

/// The path a line names, once markdown decoration is removed: `### a.py`, `**a.py**`,
/// `` `a.py`: ``, `File: a.py`. A line with spaces is prose unless it names an existing
/// file, holds exactly one `code` span that looks like a path, or mentions exactly one
/// existing file among its words; a bare word is a path only when it exists, so a stray
/// `python` line is never taken for a file name.
fn clean_path(line: &str, probe: &dyn PathProbe) -> Option<String> {
    if let Some(p) = envelope::path_tag(line.trim()) {
        return Some(normalise(p));
    }
    let mut t = line.trim().trim_start_matches('#').trim();
    for prefix in ["File:", "file:", "Filename:", "filename:", "Path:", "path:"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest.trim();
        }
    }
    t = strip_decoration(t);
    if t.is_empty() || t == "..." || t.contains('`') {
        return code_span_path(line);
    }
    let path_like = t.contains('.') || t.contains('/');
    if t.contains(char::is_whitespace) {
        if probe.exists(t) {
            return Some(normalise(t));
        }
        return code_span_path(line).or_else(|| existing_word(t, probe));
    }
    if t.starts_with(['<', '=', '>']) || !(path_like || probe.exists(t)) {
        return None;
    }
    Some(normalise(t))
}

fn strip_decoration(mut t: &str) -> &str {
    loop {
        let before = t;
        t = t.trim_end_matches(':').trim();
        for d in ["**", "__", "*", "`"] {
            if let Some(inner) = t.strip_prefix(d).and_then(|s| s.strip_suffix(d)) {
                t = inner.trim();
            }
        }
        if t == before {
            return t;
        }
    }
}

/// The content of the only `code` span of a prose line, when it looks like a path.
fn code_span_path(line: &str) -> Option<String> {
    let parts: Vec<&str> = line.split('`').collect();
    // One span gives exactly three parts: before, inside, after.
    match parts[..] {
        [_, inside, _] => {
            let inside = inside.trim();
            let ok = !inside.is_empty()
                && !inside.contains(char::is_whitespace)
                && (inside.contains('.') || inside.contains('/'));
            ok.then(|| normalise(inside))
        }
        _ => None,
    }
}

/// `Update src/a.py:` names a file only through the work tree: exactly one of its words,
/// stripped of punctuation, must be an existing file.
fn existing_word(line: &str, probe: &dyn PathProbe) -> Option<String> {
    let mut found = line
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "*_:,;()'\"".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| (w.contains('.') || w.contains('/')) && probe.exists(normalise(w).as_str()));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(normalise(one)),
        _ => None,
    }
}

fn normalise(path: &str) -> String {
    path.strip_prefix("./").unwrap_or(path).to_string()
}

/// Notices gathered while parsing: one per kind and path, listing the lines it happened on.
#[derive(Default)]
struct Notes {
    items: Vec<(NoticeKind, Option<String>, String, Vec<usize>)>,
}

impl Notes {
    /// `line` is a 0-based index into the input lines.
    fn add(&mut self, kind: NoticeKind, path: Option<&str>, line: Option<usize>, message: &str) {
        let pos = self
            .items
            .iter()
            .position(|(k, p, _, _)| *k == kind && p.as_deref() == path);
        let pos = pos.unwrap_or_else(|| {
            self.items.push((
                kind,
                path.map(str::to_string),
                message.to_string(),
                Vec::new(),
            ));
            self.items.len() - 1
        });
        if let Some(l) = line {
            self.items[pos].3.push(l + 1);
        }
    }

    fn finish(self) -> Vec<Notice> {
        self.items
            .into_iter()
            .map(|(kind, path, message, lines)| {
                let at: Vec<String> = lines.iter().map(usize::to_string).collect();
                let message = match at.len() {
                    0 => message,
                    1 => format!("{message} (line {})", at[0]),
                    _ => format!("{message} (lines {})", at.join(", ")),
                };
                match path {
                    Some(p) => Notice::for_path(kind, &p, message),
                    None => Notice::new(kind, message),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;

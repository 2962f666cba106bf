//! Codex `*** Begin Patch` / `*** End Patch` patches, with the lenient variants models send.
//!
//! The grammar (one operation per file, hunks introduced by `@@`):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: <path>          then every line `+text`
//! *** Delete File: <path>
//! *** Update File: <path>
//! [*** Move to: <path>]
//! @@ [anchor]                   repeated `@@ x` lines narrow step by step, outermost first
//! ' '/'-'/'+' lines
//! [*** End of File]             the hunk ends at the end of the file
//! *** End Patch
//! ```
//!
//! Every repair the input needed becomes a [`Notice`]; anything that would need a guess
//! (an unknown `***` marker, a hunk line without a prefix) is a [`ParseError::Syntax`].

use crate::patch::kinds::NoticeKind;
use std::ops::Range;
use std::sync::Arc;

use super::repair::unprefixed::{self, FileLines};
use super::{ParseError, PathProbe};
use crate::patch::{CreateMode, FilePatch, Format, Hunk, Line, LineKind, Notice, Patch, PatchText};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const END_OF_FILE: &str = "*** End of File";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";

/// True when the text carries a `*** Begin Patch` line that is not itself the content of
/// another format: a unified diff or a SEARCH block that edits a document about this one.
pub fn looks_like(text: &str) -> bool {
    // Most input has no begin marker at all: one substring search says so, before any line
    // is looked at (a marker line holds the marker's text). memchr's is vectorised, where
    // `str::contains` is not, and it runs over every patch.
    if memchr::memmem::find(text.as_bytes(), BEGIN.as_bytes()).is_none() {
        return false;
    }
    let Some(at) = text.lines().position(|l| l.trim() == BEGIN) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().take(at + 1).collect();
    !unified_header_before(&lines, at) && !search_block_before(&lines, at)
}

/// A `<<<<<<< SEARCH` line (5 to 9 `<`) before line `at`.
fn search_block_before(lines: &[&str], at: usize) -> bool {
    lines[..at].iter().any(|l| {
        let t = l.trim();
        let n = t.chars().take_while(|&c| c == '<').count();
        (5..=9).contains(&n) && t[n..].trim_start() == "SEARCH"
    })
}

/// A `diff --git` line, or a `--- ` line directly followed by `+++ `, before line `at`.
fn unified_header_before(lines: &[&str], at: usize) -> bool {
    lines[..at].iter().enumerate().any(|(i, l)| {
        l.starts_with("diff --git ")
            || (l.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
    })
}

/// Parse a Codex `*** Begin Patch` text into the patch model; its hunk lines share the text
/// (stretches of it, not a string each).
pub fn parse(shared: &Arc<String>, probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    let text: &str = shared;
    let mut notes = Notes::default();
    let lines = split_lines(text, &mut notes);
    let segments = find_segments(&lines, &mut notes, probe)?;
    if segments.is_empty() {
        return Err(ParseError::Empty {
            hint: Some(format!("a Codex patch starts with a '{BEGIN}' line")),
        });
    }
    let mut files = Vec::new();
    for seg in segments {
        let before = files.len();
        Body {
            lines: &lines,
            shared,
            end: seg.end,
            notes: &mut notes,
            probe,
            file: None,
        }
        .parse(seg.start, &mut files)?;
        if files.len() == before {
            return Err(ParseError::Empty {
                hint: Some(format!(
                    "the patch starting at line {} has no file operation",
                    seg.start
                )),
            });
        }
    }
    Ok(Patch {
        format: Format::Codex,
        files,
        notices: notes.finish(),
    })
}

/// Input lines without terminators. A CR before the LF is transport damage, not content:
/// the writer keeps each file's own line endings.
fn split_lines<'t>(text: &'t str, notes: &mut Notes) -> Vec<&'t str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<&str> = super::split_at_newlines(text);
    if text.ends_with('\n') {
        lines.pop();
    }
    let mut crlf = false;
    for l in &mut lines {
        if let Some(stripped) = l.strip_suffix('\r') {
            *l = stripped;
            crlf = true;
        }
    }
    if crlf {
        notes.add(
            NoticeKind::CrlfInput,
            None,
            None,
            "the patch text has CRLF line endings; read as LF",
        );
    }
    lines
}

/// Locate every `*** Begin Patch` … `*** End Patch` body; report what wraps them.
/// Returned ranges hold the body lines only, as 0-based indices into `lines`.
fn find_segments(
    lines: &[&str],
    notes: &mut Notes,
    probe: &dyn PathProbe,
) -> Result<Vec<Range<usize>>, ParseError> {
    let is_begin = |l: &&str| l.trim() == BEGIN;
    let mut segments = Vec::new();
    let mut wrapper = Wrapper::default();
    let mut from = 0;
    while let Some(begin) = lines[from..].iter().position(is_begin).map(|p| p + from) {
        wrapper.outside(&lines[from..begin]);
        if lines[begin] != BEGIN {
            notes.add(NoticeKind::MarkerPadding, None, Some(begin), PADDING_MSG);
        }
        let limit = lines[begin + 1..]
            .iter()
            .position(is_begin)
            .map_or(lines.len(), |p| p + begin + 1);
        let window = begin + 1..limit;
        // Prefer an unpadded end marker: a padded one may be a context line of a patch
        // that edits a document about this very format.
        let end = window
            .clone()
            .find(|&i| lines[i].trim_end() == END)
            .or_else(|| window.clone().rev().find(|&i| lines[i].trim() == END));
        let (body_end, resume) = match end {
            Some(e) => {
                if lines[e] != END {
                    notes.add(NoticeKind::MarkerPadding, None, Some(e), PADDING_MSG);
                }
                (e, e + 1)
            }
            None => {
                // Only a closing fence or heredoc delimiter shows the sender finished; at
                // the end of the text the patch may be cut short, so it is refused. A fence
                // indented past the begin marker is a context line of the patch (` ```` in a
                // file's doc comment), not the end of the wrapper around it.
                let depth = |l: &str| l.len() - l.trim_start().len();
                let close = window.clone().find(|&i| {
                    (is_bare_fence(lines[i]) && depth(lines[i]) <= depth(lines[begin]))
                        || wrapper.closes_heredoc(lines[i])
                });
                let prose = || trailing_prose(lines, window.clone(), probe);
                let close = match close {
                    Some(close) => close,
                    None if limit == lines.len() => match prose() {
                        Some(p) => {
                            notes.add(
                                NoticeKind::EndMarkerMissing,
                                None,
                                Some(p),
                                format!("'{END}' is missing; the patch was taken to end where the prose after it starts"),
                            );
                            segments.push(begin + 1..p);
                            wrapper.outside(&lines[p..]);
                            from = lines.len();
                            break;
                        }
                        None => return Err(cut_off(lines, begin)),
                    },
                    None => {
                        return Err(ParseError::Syntax {
                            line: limit,
                            message: format!(
                                "'{BEGIN}' at line {} has no '{END}' before the next '{BEGIN}'",
                                begin + 1
                            ),
                        })
                    }
                };
                // A file operation after that close says the patch went on past it: where it
                // ends is not known, and a patch cut short there is not applied.
                let goes_on = (close + 1..limit).find(|&i| {
                    matches!(
                        marker(lines[i]),
                        Some(Marker::Add(_) | Marker::Delete(_) | Marker::Update(_))
                    )
                });
                if let Some(on) = goes_on {
                    return Err(ParseError::Syntax {
                        line: on + 1,
                        message: format!(
                            "'{BEGIN}' at line {} has no '{END}', and the wrapper's close at line {} taken as its end is followed by more of the patch: where it ends is unclear, so nothing was applied (resend it whole, with '{END}')",
                            begin + 1,
                            close + 1
                        ),
                    });
                }
                notes.add(
                    NoticeKind::EndMarkerMissing,
                    None,
                    Some(close),
                    format!("'{END}' is missing; the patch was taken to end at the wrapper that closes it"),
                );
                (close, close)
            }
        };
        segments.push(begin + 1..body_end);
        from = resume;
    }
    wrapper.outside(&lines[from.min(lines.len())..]);
    wrapper.report(notes);
    Ok(segments)
}

/// Where the prose after a patch without `*** End Patch` starts, when the patch is visibly
/// finished: its last operation is an Update or a Delete (an Add takes unprefixed lines as
/// content), and from a line that fits no hunk grammar and is no line of a file the patch
/// updates (so not a context line that lost its space), nothing to the end of the input
/// could be part of a patch: no `***` marker, no `@@`, no `+` or `-` line. A stream cut
/// off inside the patch ends in patch lines, never in such prose.
fn trailing_prose(lines: &[&str], window: Range<usize>, probe: &dyn PathProbe) -> Option<usize> {
    let last_op = window.clone().rev().find_map(|i| match marker(lines[i]) {
        Some(m @ (Marker::Add(_) | Marker::Delete(_) | Marker::Update(_))) => Some((i, m)),
        _ => None,
    })?;
    if matches!(last_op.1, Marker::Add(_)) {
        return None;
    }
    let files: Vec<FileLines> = window
        .clone()
        .filter_map(|i| match marker(lines[i]) {
            Some(Marker::Update(p)) => probe.content(p).map(|b| FileLines::new(&b)),
            _ => None,
        })
        .collect();
    let patch_like = |l: &str| {
        l.starts_with(['+', '-']) || l.trim_start().starts_with("@@") || marker(l).is_some()
    };
    let start = (last_op.0 + 1..window.end).find(|&i| {
        let l = lines[i];
        !l.trim().is_empty()
            && !l.starts_with([' ', '\t', '\\'])
            && !patch_like(l)
            && !files.iter().any(|f| f.has(l))
    })?;
    (start..window.end)
        .all(|i| !patch_like(lines[i]))
        .then_some(start)
}

/// The patch opened at `begin` runs to the end of the input without `*** End Patch`: a
/// stream that stopped. Names the last file operation begun and its last hunk.
fn cut_off(lines: &[&str], begin: usize) -> ParseError {
    let body = &lines[begin + 1..];
    let op = body.iter().rposition(|l| {
        let t = l.trim_start();
        [ADD, DELETE, UPDATE].iter().any(|m| t.starts_with(m))
    });
    let (path, hunk) = match op {
        Some(i) => {
            let t = body[i].trim();
            let path = t[t.find(':').map_or(0, |c| c + 1)..].trim().to_string();
            let hunks = body[i + 1..]
                .iter()
                .filter(|l| l.trim_start().starts_with("@@"))
                .count();
            (path, (hunks > 0).then_some(hunks))
        }
        None => ("(no file yet)".to_string(), None),
    };
    let at = hunk.map(|h| format!(" in hunk {h}")).unwrap_or_default();
    ParseError::Truncated {
        path,
        hunk,
        missing: None,
        what: format!(
            "'{BEGIN}' at line {} has no '{END}': the input ends{at}",
            begin + 1
        ),
    }
}

const PADDING_MSG: &str = "whitespace around a '***' marker was ignored";

/// What surrounds the patch bodies: markdown fences, a shell heredoc, chat prose.
#[derive(Default)]
struct Wrapper {
    fence: bool,
    heredoc: Option<String>,
    heredoc_closed: bool,
    prose: usize,
}

impl Wrapper {
    /// Lines outside every patch body: before, between or after them.
    fn outside(&mut self, lines: &[&str]) {
        for l in lines {
            let t = l.trim();
            if t.is_empty() {
                continue;
            }
            if is_fence(t) {
                self.fence = true;
            } else if self.closes_heredoc(t) {
                self.heredoc_closed = true;
            } else if let Some(delim) = heredoc_delimiter(t) {
                self.heredoc = Some(delim);
            } else {
                self.prose += 1;
            }
        }
    }

    /// `EOF`, also `EOF'` / `EOF"` when the heredoc sat inside a quoted `bash -lc '…'`.
    fn closes_heredoc(&self, line: &str) -> bool {
        self.heredoc
            .as_deref()
            .is_some_and(|d| line.trim().trim_end_matches(['\'', '"']) == d)
    }

    fn report(&self, notes: &mut Notes) {
        if self.fence {
            notes.add(
                NoticeKind::FenceStripped,
                None,
                None,
                "the patch was wrapped in a markdown code fence",
            );
        }
        if let Some(d) = &self.heredoc {
            let state = if self.heredoc_closed {
                ""
            } else {
                " (never closed)"
            };
            notes.add(
                NoticeKind::HeredocStripped,
                None,
                None,
                format!("the patch was wrapped in a shell heredoc <<{d}{state}"),
            );
        }
        if self.prose > 0 {
            notes.add(
                NoticeKind::ProseIgnored,
                None,
                None,
                format!(
                    "{} line(s) of text outside '{BEGIN}' … '{END}' were ignored",
                    self.prose
                ),
            );
        }
    }
}

fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

fn is_bare_fence(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && (t.chars().all(|c| c == '`') || t.chars().all(|c| c == '~'))
}

/// The delimiter word of a heredoc opener: `<<EOF`, `<<'EOF'`, `<<"EOF"`, `<<-EOF`.
fn heredoc_delimiter(line: &str) -> Option<String> {
    let at = line.find("<<")?;
    let rest = line[at + 2..].trim_start_matches('-').trim_start();
    let (quote, rest) = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => (Some(q), &rest[1..]),
        _ => (None, rest),
    };
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if !word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    match quote {
        Some(q) if !rest[word.len()..].starts_with(q) => None,
        _ => Some(word),
    }
}

/// A `***` line, classified. Only known markers may be padded with whitespace; an unknown
/// one is recognised at column 0 only, so a context line such as ` *** note` stays content.
#[derive(Debug, PartialEq, Eq)]
enum Marker<'t> {
    Add(&'t str),
    Delete(&'t str),
    Update(&'t str),
    Move(&'t str),
    EndOfFile,
    Begin,
    End,
    Unknown,
}

fn marker(line: &str) -> Option<Marker<'_>> {
    let t = line.trim();
    let known = if t == BEGIN {
        Some(Marker::Begin)
    } else if t == END {
        Some(Marker::End)
    } else if t == END_OF_FILE {
        Some(Marker::EndOfFile)
    } else if let Some(p) = t.strip_prefix(ADD) {
        Some(Marker::Add(p.trim()))
    } else if let Some(p) = t.strip_prefix(DELETE) {
        Some(Marker::Delete(p.trim()))
    } else if let Some(p) = t.strip_prefix(UPDATE) {
        Some(Marker::Update(p.trim()))
    } else {
        t.strip_prefix(MOVE).map(|p| Marker::Move(p.trim()))
    };
    match known {
        Some(m) => Some(m),
        None if line.starts_with("***") => Some(Marker::Unknown),
        None => None,
    }
}

/// The body of one `*** Begin Patch` segment.
struct Body<'a, 't> {
    lines: &'a [&'t str],
    /// The text `lines` are slices of, for hunk lines to share ([`PatchText::within`]).
    shared: &'a Arc<String>,
    end: usize,
    notes: &'a mut Notes,
    probe: &'a dyn PathProbe,
    /// The lines of the file being updated, read when a hunk line has no prefix.
    file: Option<(String, Option<FileLines>)>,
}

impl Body<'_, '_> {
    /// The lines of `path` in the work tree, when it is a file there.
    fn file_lines(&mut self, path: &str) -> Option<&FileLines> {
        if self.file.as_ref().is_none_or(|(p, _)| p != path) {
            let lines = self.probe.content(path).map(|b| FileLines::new(&b));
            self.file = Some((path.to_string(), lines));
        }
        self.file.as_ref().and_then(|(_, f)| f.as_ref())
    }

    fn parse(&mut self, start: usize, files: &mut Vec<FilePatch>) -> Result<(), ParseError> {
        let mut i = start;
        while i < self.end {
            let line = self.lines[i];
            if line.trim().is_empty() {
                i += 1;
                continue;
            }
            let m = marker(line).ok_or_else(|| {
                ParseError::syntax_at(
                    i,
                    format!(
                        "expected '{ADD} <path>', '{DELETE} <path>' or '{UPDATE} <path>', found '{line}'"
                    ),
                )
            })?;
            self.note_padding(line, i);
            i = match m {
                Marker::Add(path) => self.add_file(checked_path(path, i)?, i, files)?,
                Marker::Delete(path) => {
                    files.push(FilePatch {
                        old_path: Some(checked_path(path, i)?.to_string()),
                        ordered: true,
                        ..FilePatch::default()
                    });
                    i + 1
                }
                Marker::Update(path) => self.update_file(checked_path(path, i)?, i, files)?,
                Marker::Move(_) => {
                    return Err(ParseError::syntax_at(
                        i,
                        format!("'{MOVE}' must directly follow '{UPDATE}'"),
                    ))
                }
                Marker::EndOfFile => {
                    return Err(ParseError::syntax_at(
                        i,
                        format!("'{END_OF_FILE}' outside a hunk"),
                    ))
                }
                Marker::Begin => {
                    return Err(ParseError::syntax_at(
                        i,
                        format!("'{BEGIN}' inside a patch"),
                    ))
                }
                Marker::End => return Err(ParseError::syntax_at(i, format!("unexpected '{END}'"))),
                Marker::Unknown => return Err(unknown_marker(i, line)),
            };
        }
        Ok(())
    }

    fn note_padding(&mut self, line: &str, i: usize) {
        if line.trim() != line {
            self.notes
                .add(NoticeKind::MarkerPadding, None, Some(i), PADDING_MSG);
        }
    }

    /// `*** Add File:`: the content follows as `+` lines. Lines without the `+` are taken
    /// verbatim (models drop it), and blank lines before the next marker separate operations.
    fn add_file(
        &mut self,
        path: &str,
        at: usize,
        files: &mut Vec<FilePatch>,
    ) -> Result<usize, ParseError> {
        let mut i = at + 1;
        let mut body: Vec<(usize, &str)> = Vec::new();
        while i < self.end {
            let line = self.lines[i];
            match marker(line) {
                Some(Marker::EndOfFile) => {
                    self.notes.add(
                        NoticeKind::StrayEndOfFile,
                        Some(path),
                        Some(i),
                        format!("'{END_OF_FILE}' after '{ADD}' means nothing and was ignored"),
                    );
                    i += 1;
                    break;
                }
                Some(Marker::Unknown) => return Err(unknown_marker(i, line)),
                Some(_) => break,
                None => {}
            }
            if line.starts_with("@@") {
                return Err(ParseError::syntax_at(
                    i,
                    format!(
                        "'@@' hunk header inside '{ADD} {path}': new files carry '+' lines only"
                    ),
                ));
            }
            body.push((i, line));
            i += 1;
        }
        while body
            .last()
            .is_some_and(|(_, l)| !l.starts_with('+') && l.trim().is_empty())
        {
            body.pop();
        }
        let mut content = String::new();
        for (n, line) in &body {
            match line.strip_prefix('+') {
                Some(text) => content.push_str(text),
                None => {
                    self.notes.add(
                        NoticeKind::AddLineMissingPlus,
                        Some(path),
                        Some(*n),
                        "lines of a new file lacked their leading '+' and were taken as written",
                    );
                    content.push_str(line);
                }
            }
            content.push('\n');
        }
        files.push(FilePatch {
            new_path: Some(path.to_string()),
            create_mode: CreateMode::MayReplace,
            ordered: true,
            full_content: Some(content),
            ..FilePatch::default()
        });
        Ok(i)
    }

    fn update_file(
        &mut self,
        path: &str,
        at: usize,
        files: &mut Vec<FilePatch>,
    ) -> Result<usize, ParseError> {
        let mut i = self.skip_blank(at + 1);
        let mut new_path = path.to_string();
        if i < self.end {
            if let Some(Marker::Move(dest)) = marker(self.lines[i]) {
                self.note_padding(self.lines[i], i);
                new_path = checked_path(dest, i)?.to_string();
                i += 1;
            }
        }
        let mut hunks = Vec::new();
        loop {
            i = self.skip_blank(i);
            // Any marker ends the file's hunks; the operation loop reports misplaced ones.
            if i >= self.end || marker(self.lines[i]).is_some() {
                break;
            }
            let (hunk, next) = self.hunk(path, i, hunks.is_empty())?;
            hunks.push(hunk);
            i = next;
        }
        // A pure move is unambiguous, so it is accepted; an update that changes nothing is
        // a patch the sender did not finish.
        if hunks.is_empty() && new_path == path {
            return Err(ParseError::syntax_at(
                at,
                format!("'{UPDATE} {path}' has no hunks; each change starts with '@@'"),
            ));
        }
        // Codex's rule for a move onto an existing file, as for an Add onto one: the
        // destination is replaced (the planner warns, and the snapshot keeps it).
        let create_mode = if new_path != path {
            CreateMode::MayReplace
        } else {
            CreateMode::MustNotExist
        };
        files.push(FilePatch {
            old_path: Some(path.to_string()),
            new_path: Some(new_path),
            hunks,
            ordered: true,
            create_mode,
            ..FilePatch::default()
        });
        Ok(i)
    }

    fn skip_blank(&self, mut i: usize) -> usize {
        while i < self.end && self.lines[i].trim().is_empty() {
            i += 1;
        }
        i
    }

    /// One hunk: its `@@` header lines, then its body up to the next header or marker.
    fn hunk(&mut self, path: &str, start: usize, first: bool) -> Result<(Hunk, usize), ParseError> {
        let mut hunk = Hunk::default();
        let mut i = start;
        // Headers may be padded; inside the body only column 0 counts, where ` @@` is a
        // context line.
        while i < self.end {
            let line = self.lines[i];
            let padded = line.trim_start();
            if !padded.starts_with("@@") || (i > start && padded.len() != line.len()) {
                break;
            }
            if padded.len() != line.len() {
                self.notes.add(
                    NoticeKind::MarkerPadding,
                    Some(path),
                    Some(i),
                    "whitespace before '@@' was ignored",
                );
            }
            self.header(path, padded.trim_end(), i, &mut hunk);
            i += 1;
        }
        if i == start {
            if !first {
                return Err(ParseError::syntax_at(
                    i,
                    format!(
                        "expected an '@@' hunk header in '{UPDATE} {path}', found '{}'",
                        self.lines[i]
                    ),
                ));
            }
            self.notes.add(
                NoticeKind::HunkHeaderMissing,
                Some(path),
                Some(i),
                "the first hunk had no '@@' line",
            );
        }
        // Blank lines without a prefix, kept as context unless they turn out to be trailing.
        let mut blanks: Vec<(usize, usize)> = Vec::new();
        // Context lines written without their space (input line, hunk index), and context
        // lines written with one (hunk indices).
        let mut unprefixed_at: Vec<(usize, usize)> = Vec::new();
        let mut spaced_at: Vec<usize> = Vec::new();
        while i < self.end {
            let line = self.lines[i];
            if line.starts_with("@@") {
                break;
            }
            match marker(line) {
                Some(Marker::EndOfFile) => {
                    self.note_padding(line, i);
                    hunk.at_eof = true;
                    i += 1;
                    break;
                }
                // The segment's end is already known, so a padded begin/end marker here is
                // a context line of a patch that edits text about this format.
                Some(Marker::Begin | Marker::End) if line.starts_with(' ') => {}
                Some(_) => break,
                None => {}
            }
            let kind = match line.as_bytes().first() {
                Some(b' ') => Some(LineKind::Context),
                Some(b'-') => Some(LineKind::Remove),
                Some(b'+') => Some(LineKind::Add),
                _ => None,
            };
            if let Some(kind) = kind {
                if kind != LineKind::Add {
                    spaced_at.push(hunk.lines.len());
                }
                let text = PatchText::within(self.shared, &line[1..]);
                hunk.lines.push(Line::new(kind, text));
            } else if line.trim().is_empty() {
                blanks.push((i, hunk.lines.len()));
                hunk.lines.push(Line::new(LineKind::Context, line));
            } else if line.starts_with("\\ No newline") {
                self.no_newline(path, i, &mut hunk)?;
            } else if self.file_lines(path).is_some_and(|f| f.has(line)) {
                unprefixed_at.push((i, hunk.lines.len()));
                hunk.lines.push(Line::new(LineKind::Context, line));
            } else {
                return Err(ParseError::syntax_at(
                    i,
                    format!(
                        "a hunk line starts with ' ' (context), '-' (removed) or '+' (added), found '{line}'"
                    ),
                ));
            }
            i += 1;
        }
        if !hunk.at_eof {
            // Blank lines at the end of a hunk separate it from what follows.
            while blanks
                .last()
                .is_some_and(|&(_, idx)| idx + 1 == hunk.lines.len())
            {
                if let Some((n, _)) = blanks.pop() {
                    hunk.lines.pop();
                    self.notes.add(
                        NoticeKind::TrailingBlankDropped,
                        Some(path),
                        Some(n),
                        "blank lines after the last line of a hunk were read as separators",
                    );
                }
            }
        }
        if !unprefixed_at.is_empty() {
            let at: Vec<usize> = unprefixed_at.iter().map(|&(_, h)| h).collect();
            if let Some(file) = self.file_lines(path) {
                let mut lines: Vec<&mut Line> = hunk.lines.iter_mut().collect();
                unprefixed::settle(&mut lines, &at, &spaced_at, file);
            }
            for (n, _) in unprefixed_at {
                self.notes.add(
                    unprefixed::NOTICE,
                    Some(path),
                    Some(n),
                    "hunk lines without a leading ' ', '-' or '+' are lines of the file as written; read as context",
                );
            }
        }
        for (n, _) in blanks {
            self.notes.add(
                NoticeKind::BlankContextLine,
                Some(path),
                Some(n),
                "blank lines inside a hunk had no leading space; read as empty context lines",
            );
        }
        if hunk.lines.is_empty() {
            return Err(ParseError::syntax_at(
                start,
                format!("hunk in '{UPDATE} {path}' has no lines"),
            ));
        }
        // Codex appends a hunk without old lines at the end of the file, unless something
        // says where it goes (an anchor, or a line number from a unified-style header).
        if hunk.old_len() == 0
            && hunk.anchors.is_empty()
            && hunk.section.is_none()
            && hunk.old_start.is_none()
        {
            hunk.at_eof = true;
        }
        Ok((hunk, i))
    }

    /// One `@@…` line: bare, `@@ anchor`, `@@anchor`, or a unified `@@ -a,b +c,d @@` header.
    fn header(&mut self, path: &str, line: &str, i: usize, hunk: &mut Hunk) {
        let rest = &line[2..];
        if rest.is_empty() {
            return;
        }
        if let Some(u) = unified_header(line) {
            self.notes.add(
                NoticeKind::UnifiedHunkHeader,
                Some(path),
                Some(i),
                "a unified-diff '@@ -a,b +c,d @@' header was read as a hunk start; its numbers are hints",
            );
            hunk.old_start = hunk.old_start.or(u.old_start);
            hunk.new_start = hunk.new_start.or(u.new_start);
            hunk.section = hunk.section.take().or(u.section.map(str::to_string));
            return;
        }
        match rest.strip_prefix(' ') {
            Some(anchor) => hunk.anchors.push(anchor.to_string()),
            None => {
                self.notes.add(
                    NoticeKind::AnchorMissingSpace,
                    Some(path),
                    Some(i),
                    "'@@' was not followed by a space before its anchor",
                );
                hunk.anchors.push(rest.to_string());
            }
        }
    }

    /// `\ No newline at end of file` (unified syntax) after the line it qualifies.
    fn no_newline(&mut self, path: &str, i: usize, hunk: &mut Hunk) -> Result<(), ParseError> {
        let last = hunk.lines.last().map(|l| l.kind).ok_or_else(|| {
            ParseError::syntax_at(
                i,
                "'\\ No newline at end of file' before any hunk line".to_string(),
            )
        })?;
        match last {
            LineKind::Remove => hunk.old_no_newline = true,
            LineKind::Add => hunk.new_no_newline = true,
            LineKind::Context => {
                hunk.old_no_newline = true;
                hunk.new_no_newline = true;
            }
        }
        self.notes.add(
            NoticeKind::NoNewlineMarker,
            Some(path),
            Some(i),
            "a unified-diff '\\ No newline at end of file' line was honoured",
        );
        Ok(())
    }
}

struct UnifiedHeader<'t> {
    old_start: Option<usize>,
    new_start: Option<usize>,
    section: Option<&'t str>,
}

/// `@@ -12,5 +12,6 @@ section`, `@@ -12 +12 @@`, and the number-less `@@ @@` / `@@ ... @@`.
fn unified_header(line: &str) -> Option<UnifiedHeader<'_>> {
    let inner = line.strip_prefix("@@ ")?;
    let close = inner.find("@@")?;
    let ranges = inner[..close].trim();
    let section = inner[close + 2..].trim();
    let section = (!section.is_empty()).then_some(section);
    if ranges.is_empty() || ranges == "..." {
        return Some(UnifiedHeader {
            old_start: None,
            new_start: None,
            section,
        });
    }
    let mut parts = ranges.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    if parts.next().is_some() {
        return None;
    }
    // Digits make it a header; digits too many for a line number leave it one without
    // numbers (not an anchor to look for).
    let start = |r: &str| -> Option<Option<usize>> {
        let (s, count) = r.split_once(',').unwrap_or((r, "0"));
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(s) || !digits(count) {
            return None;
        }
        Some(super::line_number(count).and(super::line_number(s)))
    };
    let (old_start, new_start) = (start(old)?, start(new)?);
    Some(UnifiedHeader {
        old_start: old_start.zip(new_start).map(|(o, _)| o),
        new_start: old_start.zip(new_start).map(|(_, n)| n),
        section,
    })
}

/// The path of a file operation; `./a` and `a` are one file.
fn checked_path(path: &str, i: usize) -> Result<&str, ParseError> {
    match path.strip_prefix("./").unwrap_or(path) {
        "" => Err(ParseError::syntax_at(
            i,
            "the file operation names no path".to_string(),
        )),
        p => Ok(p),
    }
}

fn unknown_marker(i: usize, line: &str) -> ParseError {
    ParseError::syntax_at(
        i,
        format!(
            "unknown marker '{}'; known: '{ADD}', '{DELETE}', '{UPDATE}', '{MOVE}', '{END_OF_FILE}', '{END}'",
            line.trim()
        ),
    )
}

/// Notices gathered while parsing: one per kind and path, listing the lines it happened on,
/// so a patch with forty blank lines does not bury the report.
#[derive(Default)]
struct Notes {
    items: Vec<Note>,
}

struct Note {
    kind: NoticeKind,
    path: Option<String>,
    message: String,
    lines: Vec<usize>,
}

impl Notes {
    /// `line` is a 0-based index into the input lines.
    fn add(
        &mut self,
        kind: NoticeKind,
        path: Option<&str>,
        line: Option<usize>,
        message: impl Into<String>,
    ) {
        let existing = self
            .items
            .iter_mut()
            .find(|n| n.kind == kind && n.path.as_deref() == path);
        let note = match existing {
            Some(n) => n,
            None => {
                self.items.push(Note {
                    kind,
                    path: path.map(str::to_string),
                    message: message.into(),
                    lines: Vec::new(),
                });
                let last = self.items.len() - 1;
                &mut self.items[last]
            }
        };
        if let Some(l) = line {
            note.lines.push(l + 1);
        }
    }

    fn finish(self) -> Vec<Notice> {
        self.items
            .into_iter()
            .map(|n| {
                let message = format!("{}{}", n.message, line_list(&n.lines));
                match n.path {
                    Some(p) => Notice::for_path(n.kind, &p, message),
                    None => Notice::new(n.kind, message),
                }
            })
            .collect()
    }
}

/// ` (line 4)`, ` (lines 4, 9)`, or the first five and a count of the rest.
fn line_list(lines: &[usize]) -> String {
    const SHOWN: usize = 5;
    match lines {
        [] => String::new(),
        [one] => format!(" (line {one})"),
        _ => {
            let shown: Vec<String> = lines.iter().take(SHOWN).map(usize::to_string).collect();
            let more = lines.len().saturating_sub(SHOWN);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(" (lines {}{tail})", shown.join(", "))
        }
    }
}

#[cfg(test)]
mod tests;

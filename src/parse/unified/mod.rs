//! Unified diffs as `git diff` and `diff -u` write them, and as models mangle them.
//!
//! Anything outside a diff's structure (prose, markdown fences) is skipped, the way
//! `git apply` skips leading garbage. Hunk counts are read only as a hint for where a hunk
//! ends; the real counts are recomputed from the lines.

use super::repair::unprefixed::{self, FileLines};
use super::{ParseError, PathProbe};
use crate::patch::kinds::NoticeKind;
use crate::patch::{
    CreateMode, FilePatch, Format, Hunk, IndexLine, Line, LineKind, Notice, Patch, PatchText,
};
use crate::text::quote::{quoted_end, unquote};
use std::sync::Arc;

/// Parse a unified diff (git's or plain `diff -u`'s) into the patch model; its hunk lines
/// share the text (stretches of it, not a string each).
pub fn parse(shared: &Arc<String>, probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    let text: &str = shared;
    let mut notices = Vec::new();
    // CRLF on the diff's own header lines means the whole text was converted in transit:
    // its CRs say nothing about the files. CRs only on body lines are the files' own.
    let mut lines: Vec<&str> = super::split_at_newlines(text);
    // The text's final newline ends the last line; it does not start an empty one.
    if text.ends_with('\n') {
        lines.pop();
    }
    let mut crs: Vec<bool> = lines.iter().map(|l| l.ends_with('\r')).collect();
    for l in lines.iter_mut() {
        if let Some(s) = l.strip_suffix('\r') {
            *l = s;
        }
    }
    let header_cr = lines.iter().zip(&crs).any(|(l, cr)| {
        *cr && (l.starts_with("diff --git ")
            || l.starts_with("--- ")
            || l.starts_with("+++ ")
            || l.starts_with("@@"))
    });
    if header_cr {
        notices.push(Notice::new(
            NoticeKind::CrlfPatch,
            "the patch text had CRLF line endings; read as LF (each file keeps its own line endings)",
        ));
        crs.iter_mut().for_each(|c| *c = false);
    }
    let mut p = Parser {
        text: shared,
        lines: &lines,
        crs: &crs,
        pos: 0,
        notices,
        files: Vec::new(),
        probe,
        saw_fence: false,
        prose_lines: 0,
        open_fence: None,
        file_starts: Vec::new(),
        last_hunk: None,
        hunkless_end: None,
        target: Target::default(),
        cut_at_fence: None,
    };
    p.run()?;
    if let Some(cut) = p.truncation(text.ends_with('\n')) {
        return Err(cut);
    }
    if p.files.is_empty() {
        return Err(ParseError::Empty {
            hint: Some(
                "expected a unified diff ('--- a/path' and '+++ b/path' followed by '@@' hunks), \
                 a Codex '*** Begin Patch' block or SEARCH/REPLACE blocks"
                    .into(),
            ),
        });
    }
    let mails = lines.iter().filter(|l| is_mbox_from(l)).count();
    if mails > 0 {
        p.notices.push(Notice::new(
            NoticeKind::MailboxRead,
            format!(
                "read {mails} mail(s) of a 'git format-patch' mailbox: mail headers, commit messages, diffstats and signatures were ignored; the patches apply in order"
            ),
        ));
    }
    if p.saw_fence {
        p.notices.push(Notice::new(
            NoticeKind::FenceStripped,
            "the diff was inside a markdown fence; the fence was ignored",
        ));
    }
    if p.prose_lines > 0 {
        p.notices.push(Notice::new(
            NoticeKind::ProseIgnored,
            format!(
                "{} line(s) of text around the diff were ignored",
                p.prose_lines
            ),
        ));
    }
    Ok(Patch {
        format: Format::Unified,
        files: p.files,
        notices: p.notices,
    })
}

struct Parser<'a> {
    /// The text `lines` are slices of, which lines and sections share
    /// ([`PatchText::within`]).
    text: &'a Arc<String>,
    lines: &'a [&'a str],
    crs: &'a [bool],
    pos: usize,
    notices: Vec<Notice>,
    files: Vec<FilePatch>,
    probe: &'a dyn PathProbe,
    saw_fence: bool,
    prose_lines: usize,
    /// The line (0-based) of the markdown fence that is open outside every file section.
    open_fence: Option<usize>,
    /// Where each parsed file's section starts (0-based), parallel to `files`.
    file_starts: Vec<usize>,
    /// The last hunk read, when it was the last thing of its file: where a stream that was
    /// cut off shows it.
    last_hunk: Option<HunkTail>,
    /// Where the last file section ended, when it is a header that promises hunks (or says
    /// nothing) and has none.
    hunkless_end: Option<usize>,
    /// The file the section being read is about, for telling its unprefixed context lines
    /// from prose.
    target: Target,
    /// A fence (0-based line) that ended the hunk being read while its header counted more
    /// lines and added lines follow it: where that hunk ends is unclear.
    cut_at_fence: Option<usize>,
}

/// The work-tree file a section's hunks are about, read only when a hunk needs it.
#[derive(Default)]
struct Target {
    /// The paths the header could mean, most likely first.
    paths: Vec<String>,
    lines: Option<Option<FileLines>>,
}

impl Target {
    fn of(h: &Header) -> Target {
        let mut paths: Vec<String> = Vec::new();
        let mut push = |p: &str| {
            if p != "/dev/null" && !p.is_empty() && !paths.iter().any(|q| q == p) {
                paths.push(p.to_string());
            }
        };
        for side in [&h.rename_from, &h.copy_from].into_iter().flatten() {
            push(side);
        }
        if let Some((a, b)) = &h.git_line {
            push(&strip_one(a));
            push(&strip_one(b));
        }
        for side in [&h.minus, &h.plus].into_iter().flatten() {
            push(&strip_one(side));
            push(side);
        }
        Target { paths, lines: None }
    }

    fn lines(&mut self, probe: &dyn PathProbe) -> Option<&FileLines> {
        let paths = &self.paths;
        self.lines
            .get_or_insert_with(|| {
                paths
                    .iter()
                    .find_map(|p| probe.content(p))
                    .map(|b| FileLines::new(&b))
            })
            .as_ref()
    }

    /// Whether `line` is one of the file's lines, as written.
    fn has(&mut self, probe: &dyn PathProbe, line: &str) -> bool {
        self.lines(probe).is_some_and(|f| f.has(line))
    }
}

/// What the end of a hunk's body looked like, for telling a miscount from a cut-off stream.
struct HunkTail {
    /// 1-based number of the hunk in its file.
    number: usize,
    header: String,
    /// The header's counts (old, new), when it has them.
    want: Option<(usize, usize)>,
    /// The lines the body has as written (old side, new side), trailing blank lines included.
    seen: (usize, usize),
    /// The lines the hunk keeps (trailing blank lines only when the counts want them).
    kept: (usize, usize),
    /// The first line (0-based) after the body.
    end: usize,
    /// A line of the body stands for lines left out (`...`): the counts cannot be compared.
    elided: bool,
}

/// Models miscount hunks by a few lines; a body shorter than its header by more than this,
/// at the end of the input, is a stream that stopped.
const MISCOUNT: usize = 3;

/// What the extended header lines of one file said, before paths are resolved.
#[derive(Default)]
struct Header {
    git_line: Option<(String, String)>,
    minus: Option<String>,
    plus: Option<String>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    copy_from: Option<String>,
    copy_to: Option<String>,
    old_mode: Option<u32>,
    new_mode: Option<u32>,
    new_file: bool,
    deleted: bool,
    index: Option<IndexLine>,
    binary: bool,
    start: usize,
}

impl Header {
    /// Whether the header says nothing but the paths (no mode, creation, deletion, rename
    /// or copy).
    fn says_nothing(&self) -> bool {
        self.old_mode.is_none()
            && self.new_mode.is_none()
            && !self.new_file
            && !self.deleted
            && self.rename_from.is_none()
            && self.rename_to.is_none()
            && self.copy_from.is_none()
            && self.copy_to.is_none()
    }
}

/// The hunks of one file's section as read, and what reading them noticed.
struct SectionBody {
    hunks: Vec<Hunk>,
    /// The hunks' notices, given the file's path once it is resolved.
    notices: Vec<Notice>,
    /// How the last hunk ended.
    tail: Option<HunkTail>,
    /// Input lines that are not the section's (junk between hunks, empty hunks): left out
    /// of the text handed to `git apply`.
    left_out: Vec<std::ops::Range<usize>>,
    /// Hunks that said they change nothing (`@@ -0,0 +0,0 @@`), ignored.
    empty_hunks: usize,
}

/// `-- ` (or `--` once a mailer dropped its space) alone on line `i`: a mail's signature
/// separator.
fn is_mail_signature(lines: &[&str], i: usize) -> bool {
    matches!(lines.get(i), Some(&"-- ") | Some(&"--"))
}

/// The version line `git format-patch` writes under the signature: `2.47.3`,
/// `2.39.2.windows.1`, `2.44.0-rc1`.
fn is_git_version(line: &str) -> bool {
    let t = line.trim();
    let mut parts = t.split(['.', '-']);
    let numeric =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numeric(parts.next()) && numeric(parts.next()) && !t.contains(char::is_whitespace)
}

/// `From <40 hex digits> Mon Sep 17 00:00:00 2001`: the line that opens each mail of a
/// `git format-patch` mailbox.
fn is_mbox_from(line: &str) -> bool {
    line.strip_prefix("From ")
        .and_then(|r| r.split_once(' '))
        .is_some_and(|(id, date)| {
            id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit()) && date.ends_with(" 2001")
        })
}

/// A markdown fence line. Inside a hunk a fence must start in column 0: ` ```` ` with a
/// leading space is a context line of a markdown file.
fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

fn is_fence_in_hunk(line: &str) -> bool {
    line.starts_with("```") || line.starts_with("~~~")
}

fn is_file_start(lines: &[&str], i: usize) -> bool {
    let l = lines[i];
    l.starts_with("diff --git ")
        || (l.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
        || gnu_header(lines, i).is_some()
}

/// The file headers GNU patch also takes, outside any hunk: `+++` before `---`, or only one
/// of them, then a hunk header. The paths (old, new) and how many lines they take.
fn gnu_header(lines: &[&str], i: usize) -> Option<(String, String, usize, &'static str)> {
    let at = |k: usize| lines.get(i + k).copied().unwrap_or("");
    let path = |l: &str| header_path(&l[4..]);
    if at(0).starts_with("+++ ") && at(1).starts_with("--- ") && at(2).starts_with("@@") {
        return Some((path(at(1)), path(at(0)), 2, "'+++' came before '---'"));
    }
    if at(1).starts_with("@@") {
        if at(0).starts_with("--- ") {
            let p = path(at(0));
            return Some((p.clone(), p, 1, "only a '---' line named the file"));
        }
        if at(0).starts_with("+++ ") {
            let p = path(at(0));
            return Some((p.clone(), p, 1, "only a '+++' line named the file"));
        }
    }
    None
}

impl<'a> Parser<'a> {
    fn run(&mut self) -> Result<(), ParseError> {
        while self.pos < self.lines.len() {
            let l = self.lines[self.pos];
            if is_file_start(self.lines, self.pos) {
                self.file()?;
                continue;
            }
            if is_fence(l) {
                self.saw_fence = true;
                self.open_fence = match self.open_fence {
                    Some(_) => None,
                    None => Some(self.pos),
                };
            } else if l.starts_with("@@") {
                return Err(ParseError::Syntax {
                    line: self.pos + 1,
                    message:
                        "hunk header '@@' before any file header ('--- a/path' / '+++ b/path')"
                            .into(),
                });
            } else if !l.trim().is_empty() && !l.starts_with("diff ") && !l.starts_with("index ") {
                self.prose_lines += 1;
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn file(&mut self) -> Result<(), ParseError> {
        let mut h = Header {
            start: self.pos,
            ..Header::default()
        };
        if let Some(rest) = self.lines[self.pos].strip_prefix("diff --git ") {
            h.git_line = split_git_line(rest);
            self.pos += 1;
            self.extended_header(&mut h)?;
        }
        self.minus_plus_lines(&mut h);
        self.target = Target::of(&h);
        let body = self.hunks()?;
        self.last_hunk = body.tail;
        // `---`/`+++` lines always lead to hunks, and a `diff --git` line alone says nothing:
        // such a section with no hunk is complete only when more of the patch follows it.
        self.hunkless_end = (body.hunks.is_empty()
            && body.empty_hunks == 0
            && !h.binary
            && (h.minus.is_some() || h.says_nothing()))
        .then_some(self.pos);
        if body.hunks.is_empty() && h.git_line.is_none() && !h.binary && body.empty_hunks == 0 {
            return Err(ParseError::Syntax {
                line: h.start + 1,
                message: format!(
                    "the file header for {} is followed by no '@@' hunk",
                    h.plus.as_deref().or(h.minus.as_deref()).unwrap_or("?")
                ),
            });
        }
        let (start, end) = (h.start, self.pos);
        let mut fp = self.resolve(h, body.hunks)?;
        fp.raw = self.section_text(start..end, &body.left_out);
        for mut n in body.notices {
            n.path = Some(fp.display_path().to_string());
            self.notices.push(n);
        }
        self.files.push(fp);
        self.file_starts.push(start);
        Ok(())
    }

    /// The extended header lines after `diff --git` (modes, index, renames, copies, binary),
    /// read into `h` up to the first hunk, the `---` line or the next file.
    fn extended_header(&mut self, h: &mut Header) -> Result<(), ParseError> {
        while self.pos < self.lines.len() {
            let l = self.lines[self.pos];
            if l.starts_with("diff --git ") || l.starts_with("@@") {
                break;
            }
            if l.starts_with("--- ") {
                break;
            }
            let line_no = self.pos + 1;
            if let Some(v) = l.strip_prefix("old mode ") {
                h.old_mode = Some(parse_mode(v, line_no)?);
            } else if let Some(v) = l.strip_prefix("new mode ") {
                h.new_mode = Some(parse_mode(v, line_no)?);
            } else if let Some(v) = l.strip_prefix("new file mode ") {
                h.new_file = true;
                h.new_mode = Some(parse_mode(v, line_no)?);
            } else if let Some(v) = l.strip_prefix("deleted file mode ") {
                h.deleted = true;
                h.old_mode = Some(parse_mode(v, line_no)?);
            } else if let Some(v) = l.strip_prefix("index ") {
                h.index = parse_index(v);
                if let Some(mode) = v.split_whitespace().nth(1) {
                    let m = parse_mode(mode, line_no)?;
                    h.old_mode.get_or_insert(m);
                    h.new_mode.get_or_insert(m);
                }
            } else if let Some(v) = l.strip_prefix("rename from ") {
                h.rename_from = Some(unquote(v.trim_end()));
            } else if let Some(v) = l.strip_prefix("rename to ") {
                h.rename_to = Some(unquote(v.trim_end()));
            } else if let Some(v) = l.strip_prefix("copy from ") {
                h.copy_from = Some(unquote(v.trim_end()));
            } else if let Some(v) = l.strip_prefix("copy to ") {
                h.copy_to = Some(unquote(v.trim_end()));
            } else if l.starts_with("similarity index ") || l.starts_with("dissimilarity index ") {
            } else if l.starts_with("GIT binary patch") || l.starts_with("Binary files ") {
                h.binary = true;
            } else if h.binary || l.trim().is_empty() || is_fence(l) {
                // Binary payload lines, or the blank line / fence closing a header-only diff.
                // In a `GIT binary patch` a blank line separates the forward data from the
                // reverse data (`literal N` / `delta N` after it): it belongs to the patch.
                let next_is_data = self
                    .lines
                    .get(self.pos + 1)
                    .is_some_and(|n| n.starts_with("literal ") || n.starts_with("delta "));
                if is_fence(l) || (l.trim().is_empty() && !(h.binary && next_is_data)) {
                    // The blank line that ends the binary data is part of it for git.
                    if h.binary && l.trim().is_empty() {
                        self.pos += 1;
                    }
                    break;
                }
            } else {
                break;
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// The `---`/`+++` pair (or a header GNU patch would read as one) into `h`, when there.
    fn minus_plus_lines(&mut self, h: &mut Header) {
        if self.pos + 1 < self.lines.len()
            && self.lines[self.pos].starts_with("--- ")
            && self.lines[self.pos + 1].starts_with("+++ ")
        {
            h.minus = Some(header_path(&self.lines[self.pos][4..]));
            h.plus = Some(header_path(&self.lines[self.pos + 1][4..]));
            self.pos += 2;
        } else if let Some((minus, plus, taken, what)) = gnu_header(self.lines, self.pos) {
            self.notices.push(Notice::new(
                NoticeKind::FileHeaderRepaired,
                format!(
                    "line {}: {what}; read as GNU patch reads it ('{minus}' to '{plus}')",
                    self.pos + 1
                ),
            ));
            h.minus = Some(minus);
            h.plus = Some(plus);
            self.pos += taken;
        }
    }

    /// A section's hunks, up to the next file: junk between hunks skipped and empty hunks
    /// dropped, each with its notice.
    fn hunks(&mut self) -> Result<SectionBody, ParseError> {
        let mut hunks = Vec::new();
        let mut notices = Vec::new();
        let mut tail: Option<HunkTail> = None;
        let mut left_out: Vec<std::ops::Range<usize>> = Vec::new();
        let mut empty_hunks = 0;
        loop {
            if let Some(t) = &tail {
                if let Some(next) = self.junk_then_hunk(t) {
                    let at = if next == self.pos + 1 {
                        format!("line {next}")
                    } else {
                        format!("lines {}-{next}", self.pos + 1)
                    };
                    notices.push(Notice::new(
                        NoticeKind::JunkBetweenHunks,
                        format!(
                            "{at}: text between two hunks was skipped, and the hunks after it \
                             read as well (GNU patch stops reading there and leaves them out)"
                        ),
                    ));
                    left_out.push(self.pos..next);
                    self.pos = next;
                }
            }
            if !(self.pos < self.lines.len() && self.lines[self.pos].starts_with("@@")) {
                break;
            }
            let at = self.pos;
            let (hunk, t) = self.hunk(&mut notices, hunks.len() + 1)?;
            if hunk.lines.is_empty() {
                // `@@ -0,0 +0,0 @@` and nothing: a hunk that says it changes nothing.
                empty_hunks += 1;
                left_out.push(at..self.pos);
                notices.push(Notice::new(
                    NoticeKind::EmptyHunkIgnored,
                    format!("line {}: a hunk '@@ -0,0 +0,0 @@' without lines changes nothing and was ignored", at + 1),
                ));
                continue;
            }
            hunks.push(hunk);
            tail = Some(t);
        }
        Ok(SectionBody {
            hunks,
            notices,
            tail,
            left_out,
            empty_hunks,
        })
    }

    /// The input lines `range`, less those `left_out`, as the text handed to `git apply`: a
    /// stretch of the text itself when those lines are one (each ended by a newline there).
    fn section_text(
        &self,
        range: std::ops::Range<usize>,
        left_out: &[std::ops::Range<usize>],
    ) -> PatchText {
        // Where a line of the text is, as a range of its bytes.
        let base = self.text.as_ptr() as usize;
        let at = |i: usize| {
            let start = self.lines[i].as_ptr() as usize - base;
            start..start + self.lines[i].len()
        };
        // Lines one newline apart in the text are one stretch (a hunk of a whole file's
        // lines is one copy, not one per line); a line that lost a CR stands apart.
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        for i in range {
            if left_out.iter().any(|r| r.contains(&i)) {
                continue;
            }
            let line = at(i);
            match runs.last_mut() {
                Some(r) if r.end + 1 == line.start => r.end = line.end,
                _ => runs.push(line),
            }
        }
        if let [r] = runs.as_slice() {
            if self.text.as_bytes().get(r.end) == Some(&b'\n') {
                return PatchText::within(self.text, &self.text[r.start..r.end + 1]);
            }
        }
        let mut raw = String::with_capacity(runs.iter().map(|r| r.len() + 1).sum());
        for r in runs {
            raw.push_str(&self.text[r]);
            raw.push('\n');
        }
        raw.into()
    }

    /// Turn the header into paths and modes; decides how many leading components to strip.
    fn resolve(&mut self, h: Header, hunks: Vec<Hunk>) -> Result<FilePatch, ParseError> {
        let line = h.start + 1;
        let (mut old, mut new);
        if let Some((a, b)) = &h.git_line {
            old = Some(strip_one(a));
            new = Some(strip_one(b));
        } else {
            old = None;
            new = None;
        }
        let minus_null = h.minus.as_deref() == Some("/dev/null");
        let plus_null = h.plus.as_deref() == Some("/dev/null");
        if h.git_line.is_some() {
            // With `diff --git`, `---`/`+++` are authoritative when present (they handle
            // spaces in names), and always strip one component, like `git apply -p1`.
            if let Some(m) = &h.minus {
                if !minus_null {
                    old = Some(strip_one(m));
                }
            }
            if let Some(p) = &h.plus {
                if !plus_null {
                    new = Some(strip_one(p));
                }
            }
        } else {
            let (m, p) = match (&h.minus, &h.plus) {
                (Some(m), Some(p)) => (m.clone(), p.clone()),
                _ => {
                    return Err(ParseError::Syntax {
                        line,
                        message: "file header without '---'/'+++' lines".into(),
                    })
                }
            };
            let (o, n, stripped) = self.guess_strip(&m, &p);
            old = o;
            new = n;
            if let Some(note) = stripped {
                self.notices.push(note);
            }
        }
        if let Some(r) = h.rename_from.clone().or(h.copy_from.clone()) {
            old = Some(r);
        }
        if let Some(r) = h.rename_to.clone().or(h.copy_to.clone()) {
            new = Some(r);
        }
        if h.new_file || minus_null {
            old = None;
        }
        if h.deleted || plus_null {
            new = None;
        }
        if old.is_none() && new.is_none() {
            return Err(ParseError::Syntax {
                line,
                message: "a file header where both sides are /dev/null".into(),
            });
        }
        for p in old.iter().chain(new.iter()) {
            if p.is_empty() {
                return Err(ParseError::Syntax {
                    line,
                    message: "a file header with an empty path".into(),
                });
            }
        }
        let patch_eols = hunks.iter().flat_map(|h| &h.lines).any(|l| l.crlf);
        Ok(FilePatch {
            old_path: old,
            new_path: new,
            old_mode: h.old_mode,
            new_mode: h.new_mode,
            index: h.index,
            hunks,
            binary: h.binary,
            raw: PatchText::default(),
            create_mode: CreateMode::MustNotExist,
            ordered: false,
            full_content: None,
            patch_eols,
            in_turn: false,
        })
    }

    /// `--- x` / `+++ y` without `diff --git`: strip `a/`/`b/` when both carry them, else
    /// decide from what exists in the work tree.
    fn guess_strip(&self, m: &str, p: &str) -> (Option<String>, Option<String>, Option<Notice>) {
        // `diff -u ./f.txt …` names `f.txt`, as git reads it.
        let side = |s: &str| (s != "/dev/null").then(|| s.trim_start_matches("./").to_string());
        let (o, n) = (side(m), side(p));
        let prefixed =
            |s: &Option<String>, pre: &str| s.as_ref().is_none_or(|s| s.starts_with(pre));
        if prefixed(&o, "a/") && prefixed(&n, "b/") {
            return (o.map(|s| strip_one(&s)), n.map(|s| strip_one(&s)), None);
        }
        // No a/ b/ prefixes: keep the paths as written when they exist (`diff -u x x.new`
        // style); strip one component only when that names an existing file.
        let exists = |s: &Option<String>| s.as_ref().is_some_and(|s| self.probe.exists(s));
        if exists(&o)
            || (o.is_none() && !n.as_ref().is_some_and(|s| self.probe.exists(&strip_one(s))))
        {
            return (o, n, None);
        }
        let so = o.as_ref().map(|s| strip_one(s));
        if exists(&so) {
            let note = Notice::new(
                NoticeKind::PrefixStripped,
                format!(
                    "'{}' does not exist but '{}' does; stripped the first path component",
                    o.as_deref().unwrap_or(""),
                    so.as_deref().unwrap_or("")
                ),
            );
            return (so, n.map(|s| strip_one(&s)), Some(note));
        }
        (o, n, None)
    }

    fn hunk(
        &mut self,
        notices: &mut Vec<Notice>,
        number: usize,
    ) -> Result<(Hunk, HunkTail), ParseError> {
        let header_line = self.pos + 1;
        let header = self.lines[self.pos];
        let parsed = parse_hunk_header(header);
        let mut hunk = Hunk {
            old_start: parsed.old_start,
            new_start: parsed.new_start,
            section: parsed.section.clone(),
            ..Hunk::default()
        };
        header_notices(&parsed, header, header_line, notices);
        self.pos += 1;
        self.cut_at_fence = None;
        let mut body = self.hunk_body(&parsed, &mut hunk);
        if let Some(at) = self.cut_at_fence.take() {
            return Err(ParseError::Syntax {
                line: at + 1,
                message: format!(
                    "a fence ends hunk {number} (line {header_line}) before the lines its header \
                     counts, and lines shaped as the hunk's follow the fence: whether they are \
                     the hunk's is unclear, so nothing was applied (resend the patch without a \
                     fence inside the hunk)"
                ),
            });
        }
        // For telling a miscount from a cut: the body as written, blank lines included.
        let written = body.seen;
        body.drop_trailing_empty(&parsed);
        let rewritten =
            self.settle_unprefixed(&mut body.lines, &body.unprefixed_at, &body.spaced_at);
        body.repair_notices(header_line, rewritten, notices);
        let (old_seen, new_seen) = body.seen;
        let mut lines = body.lines;
        // An honest header reserves at most twice the body (context counts on both sides);
        // one that overstates its counts must not keep the rest of the input reserved.
        if lines.capacity() > 2 * lines.len() + 16 {
            lines.shrink_to_fit();
        }
        hunk.lines = lines;
        place_by_shape(&mut hunk, &parsed);
        let says_nothing = parsed.old_start == Some(0)
            && parsed.old_count == Some(0)
            && parsed.new_start == Some(0)
            && parsed.new_count == Some(0);
        if hunk.lines.is_empty() && !says_nothing {
            return Err(ParseError::Syntax {
                line: header_line,
                message: "hunk has no lines".into(),
            });
        }
        let tail = HunkTail {
            number,
            header: header.to_string(),
            want: parsed.old_count.zip(parsed.new_count),
            seen: written,
            kept: (old_seen, new_seen),
            end: self.pos,
            elided: hunk
                .lines
                .iter()
                .any(|l| l.kind == LineKind::Context && stands_for_lines(&l.text)),
        };
        if let (Some(oc), Some(nc)) = (parsed.old_count, parsed.new_count) {
            if oc != old_seen || nc != new_seen {
                notices.push(Notice::new(
                    NoticeKind::CountsRecomputed,
                    format!(
                        "hunk at line {header_line}: header says -{oc} +{nc} lines, the hunk has -{old_seen} +{new_seen}; used the lines"
                    ),
                ));
            }
        }
        Ok((hunk, tail))
    }

    /// A hunk's body lines, read up to what ends the hunk; `\ No newline` markers go on
    /// `hunk` as they are met.
    fn hunk_body(&mut self, parsed: &HunkHeader, hunk: &mut Hunk) -> HunkBody {
        // Sized by the header's counts (a hint from untrusted text: never past the input).
        let stated = parsed
            .old_count
            .unwrap_or(0)
            .saturating_add(parsed.new_count.unwrap_or(0))
            .min(self.lines.len() - self.pos)
            .min(1 << 12);
        let mut body = HunkBody::with_capacity(stated);
        let mut last_kind: Option<LineKind> = None;
        while self.pos < self.lines.len() {
            let l = self.lines[self.pos];
            if self.ends_hunk(parsed, body.seen) {
                break;
            }
            if l.starts_with('\\') {
                match last_kind {
                    Some(LineKind::Remove) => hunk.old_no_newline = true,
                    Some(LineKind::Add) => hunk.new_no_newline = true,
                    Some(LineKind::Context) => {
                        hunk.old_no_newline = true;
                        hunk.new_no_newline = true;
                    }
                    None => {}
                }
                self.pos += 1;
                continue;
            }
            let Some((kind, text, from_empty)) = self.body_line(parsed, &mut body) else {
                break;
            };
            if (kind == LineKind::Context && l.starts_with(' ')) || kind == LineKind::Remove {
                body.spaced_at.push(body.lines.len());
            }
            match kind {
                LineKind::Context => {
                    body.seen.0 += 1;
                    body.seen.1 += 1;
                }
                LineKind::Remove => body.seen.0 += 1,
                LineKind::Add => body.seen.1 += 1,
            }
            last_kind = Some(kind);
            body.lines.push(Line {
                kind,
                text: PatchText::within(self.text, text),
                crlf: self.crs[self.pos],
            });
            body.empty.push(from_empty);
            self.pos += 1;
        }
        body
    }

    /// Whether the lines from `pos` (a fence: a context line, or an added one with
    /// `fence_added`) on, read as the hunk's (` `, `-` and `+` by their prefix, blank and
    /// unprefixed lines the file has as context), meet the header's counts exactly after at
    /// least one line past the fence. `seen`: the body's (old, new) lines before `pos`.
    fn reads_on(&mut self, parsed: &HunkHeader, seen: (usize, usize), fence_added: bool) -> bool {
        let (Some(oc), Some(nc)) = (parsed.old_count, parsed.new_count) else {
            return false;
        };
        let (mut o, mut n) = seen;
        if fence_added {
            n += 1;
        } else {
            o += 1;
            n += 1;
        }
        for i in self.pos + 1..self.lines.len() {
            if o > oc || n > nc {
                return false;
            }
            let l = self.lines[i];
            match l.as_bytes().first() {
                _ if l.starts_with("+++ ") || l.starts_with("--- ") || l.starts_with("@@") => {
                    return false
                }
                Some(b'+') => n += 1,
                Some(b'-') => o += 1,
                Some(b' ') | None => {
                    o += 1;
                    n += 1;
                }
                _ if !is_fence(l) && self.target.has(self.probe, l) => {
                    o += 1;
                    n += 1;
                }
                _ => return false,
            }
            if (o, n) == (oc, nc) {
                return true;
            }
        }
        false
    }

    /// Whether the line at `pos` ends the hunk before it: the next file or hunk, a fence, or
    /// a mail's signature; `seen` is the body's (old, new) lines so far.
    fn ends_hunk(&mut self, parsed: &HunkHeader, seen: (usize, usize)) -> bool {
        let l = self.lines[self.pos];
        // Most lines are context or added lines, and those end nothing: every line that does
        // (below) starts with another character.
        if matches!(l.as_bytes().first(), Some(b' ' | b'+')) {
            return false;
        }
        let (old_seen, new_seen) = seen;
        let counts_need_more = match (parsed.old_count, parsed.new_count) {
            (Some(oc), Some(nc)) => old_seen < oc && new_seen < nc,
            _ => false,
        };
        if l.starts_with("diff --git ") || l.starts_with("@@") {
            return true;
        }
        // A fence in column 0 closes the markdown around the patch, unless the hunk's counts
        // need more lines, the file has that very line, and the hunk goes on after it: then
        // it is a context line of a file with markdown in it (a Rust doc comment's ```toml)
        // whose leading space was dropped.
        if is_fence_in_hunk(l) {
            // Blank lines (blank context that lost its space, or the space after a closing
            // fence) say nothing: the first line after them does.
            let after = (self.pos + 1..self.lines.len())
                .find(|&i| !self.lines[i].is_empty())
                .unwrap_or(self.lines.len());
            // The hunk goes on with a line the file has: unprefixed, or after a ` ` or `-`
            // (a markdown bullet after a closing fence, `- Added …`, is not one).
            let next = self.lines.get(after).copied().filter(|n| !is_fence(n));
            let goes_on = next.is_some_and(|n| {
                let text = match n.as_bytes().first() {
                    Some(b' ' | b'-') => &n[1..],
                    _ => n,
                };
                self.target.has(self.probe, text)
            });
            let has_fence = self.target.has(self.probe, l);
            // (A file header after the fence starts the next file, not more of this hunk.)
            let body_next = next.is_some_and(|n| {
                matches!(n.as_bytes().first(), Some(b'+' | b'-' | b' '))
                    && !n.starts_with("--- ")
                    && !n.starts_with("+++ ")
            });
            let wrapped = self.open_fence.is_some();
            // Without a fence open around the patch, the fence cannot close one: with the
            // counts short and lines of the hunk's shape after it, it is a line of the hunk, a
            // context line where the file has it (alt corpus execa-f169dacb: a JSDoc example's
            // closing fence, then the 28 lines the hunk adds), else one the hunk does not
            // describe: where the hunk ends is unclear.
            if !wrapped && counts_need_more && body_next {
                if !has_fence {
                    self.cut_at_fence = Some(self.pos);
                }
                return !has_fence;
            }
            let context = counts_need_more && has_fence && goes_on;
            // Inside a fence, the fence may be the wrapper's close, and a `+ bullet` after it
            // prose (the header overcounting). Only where reading on from it as the hunk's
            // meets the header's counts exactly are both readings whole: unclear.
            if !context
                && body_next
                && (self.reads_on(parsed, seen, false) || self.reads_on(parsed, seen, true))
            {
                self.cut_at_fence = Some(self.pos);
            }
            return !context;
        }
        // A `---`/`+++` pair starts the next file once the counts are met, and whatever
        // they say when a hunk header follows it: a count one too large must not read
        // the next file's header as a removed and an added line.
        if l.starts_with("--- ")
            && self
                .lines
                .get(self.pos + 1)
                .is_some_and(|n| n.starts_with("+++ "))
            && (!counts_need_more
                || self
                    .lines
                    .get(self.pos + 2)
                    .is_some_and(|n| n.starts_with("@@")))
        {
            return true;
        }
        // `git format-patch` ends each mail with a `-- ` signature and git's
        // version: when the counts are met or the version follows, not a removed line.
        is_mail_signature(self.lines, self.pos)
            && (self
                .lines
                .get(self.pos + 1)
                .is_some_and(|n| is_git_version(n))
                || matches!((parsed.old_count, parsed.new_count),
                    (Some(oc), Some(nc)) if old_seen == oc && new_seen == nc))
    }

    /// The body line at `pos` as (kind, text, whether it was an empty input line), repairs
    /// counted in `body`; `None` when the line is not the hunk's.
    fn body_line(
        &mut self,
        parsed: &HunkHeader,
        body: &mut HunkBody,
    ) -> Option<(LineKind, &'a str, bool)> {
        let l = self.lines[self.pos];
        let counts_done = match (parsed.old_count, parsed.new_count) {
            (Some(oc), Some(nc)) => body.seen == (oc, nc),
            _ => false,
        };
        Some(match l.chars().next() {
            Some(' ') => (LineKind::Context, &l[1..], false),
            Some('-') => (LineKind::Remove, &l[1..], false),
            Some('+') => (LineKind::Add, &l[1..], false),
            None => {
                // An empty line: a blank context line whose leading space was lost, or
                // the end of the diff (the counts decide, once the body is read).
                if counts_done {
                    return None;
                }
                (LineKind::Context, "", true)
            }
            Some('\t') if self.continues_hunk(self.pos + 1) => {
                body.repaired_tabs += 1;
                (LineKind::Context, l, false)
            }
            // A line of the file as written, inside a hunk the counts say goes on (or
            // that has none): a context line whose space was dropped.
            _ if !counts_done && self.target.has(self.probe, l) => {
                body.unprefixed_at.push(body.lines.len());
                (LineKind::Context, l, false)
            }
            _ => return None,
        })
    }

    /// Whether the input stopped before the patch did. Only the end of the input can show
    /// it: the last file's header is all there is of it; the last hunk's body runs into the
    /// end (nothing but blank lines and fences after it) short of its header by more than a
    /// miscount, or ends mid-line short of its header at all; or a fence opened before the
    /// last file is never closed.
    fn truncation(&self, ends_with_newline: bool) -> Option<ParseError> {
        let path = self.files.last()?.display_path().to_string();
        let file_start = *self.file_starts.last()?;
        let after_only_headers = |from: usize| {
            self.lines[from.min(self.lines.len())..].iter().all(|l| {
                l.trim().is_empty() || is_fence(l) || l.starts_with("--- ") || l.starts_with("+++ ")
            })
        };
        if let Some(end) = self.hunkless_end {
            if after_only_headers(end) {
                return Some(ParseError::Truncated {
                    path,
                    hunk: None,
                    missing: None,
                    what: "the input ends in the file's header, before any hunk".to_string(),
                });
            }
        }
        if let Some(t) = &self.last_hunk {
            let rest = &self.lines[t.end.min(self.lines.len())..];
            let at_end = rest.iter().all(|l| l.trim().is_empty() || is_fence(l));
            // A cut body is a prefix of the one its header counted: a side longer than its
            // count says the header is wrong, not that lines are missing.
            let missing = t
                .want
                .filter(|&(oc, nc)| t.kept.0 <= oc && t.kept.1 <= nc)
                .map(|(oc, nc)| oc.saturating_sub(t.seen.0).max(nc.saturating_sub(t.seen.1)))
                .filter(|_| !t.elided)
                .unwrap_or(0);
            let mid_line = !ends_with_newline && t.end == self.lines.len();
            if at_end && (missing > MISCOUNT || (mid_line && missing > 0)) {
                let (oc, nc) = t.want.expect("a count shortfall needs the header's counts");
                let how = if mid_line {
                    "the input ends in the middle of a line"
                } else {
                    "the input ends there"
                };
                return Some(ParseError::Truncated {
                    path,
                    hunk: Some(t.number),
                    missing: Some(missing),
                    what: format!(
                        "hunk {} ('{}') promises {oc} old and {nc} new lines but has {} and {}, \
                         {missing} line(s) missing, and {how}",
                        t.number, t.header, t.seen.0, t.seen.1
                    ),
                });
            }
        }
        match self.open_fence {
            Some(open) if open < file_start => Some(ParseError::Truncated {
                path,
                hunk: self.last_hunk.as_ref().map(|t| t.number),
                missing: None,
                what: format!(
                    "the markdown fence opened at line {} around the patch is never closed, \
                     so the rest of the patch may be missing",
                    open + 1
                ),
            }),
            _ => None,
        }
    }

    /// After a hunk, lines that belong to no hunk and start no file, then another hunk header
    /// for the same file: junk, skipped (GNU patch ends the file's hunks there instead, and
    /// silently drops the rest). The junk may not hold a line that could be a
    /// hunk line (` `, `-`, `+`), nor follow a hunk shorter than its header's counts (a line
    /// it lost could be among them). Where the next hunk header is.
    fn junk_then_hunk(&self, prev: &HunkTail) -> Option<usize> {
        if prev.want.is_some_and(|w| w != prev.kept) {
            return None;
        }
        let mut i = self.pos;
        while i < self.lines.len() {
            let l = self.lines[i];
            if l.starts_with("@@") {
                return (i > self.pos).then_some(i);
            }
            if l.starts_with([' ', '-', '+', '\\'])
                || is_file_start(self.lines, i)
                || l.starts_with("diff ")
                || l.starts_with("Index: ")
                || is_fence(l)
                || is_mbox_from(l)
            {
                return None;
            }
            i += 1;
        }
        None
    }

    /// In a hunk whose context lines came without their prefix, read each space-led context
    /// line the way the file has it; how many were read as written.
    fn settle_unprefixed(
        &mut self,
        body: &mut [Line],
        unprefixed_at: &[usize],
        spaced_at: &[usize],
    ) -> usize {
        if unprefixed_at.is_empty() {
            return 0;
        }
        let Some(file) = self.target.lines(self.probe) else {
            return 0;
        };
        let mut lines: Vec<&mut Line> = body.iter_mut().collect();
        unprefixed::settle(&mut lines, unprefixed_at, spaced_at, file)
    }

    /// Whether hunk body lines go on after `i` (used to accept a context line that lost its
    /// leading space only when it sits inside a hunk).
    fn continues_hunk(&self, i: usize) -> bool {
        self.lines.get(i).is_some_and(|l| {
            matches!(l.chars().next(), Some(' ' | '-' | '+' | '\t')) && !l.starts_with("--- ")
        })
    }
}

struct HunkHeader {
    old_start: Option<usize>,
    old_count: Option<usize>,
    new_start: Option<usize>,
    new_count: Option<usize>,
    section: Option<String>,
    /// The header had numbers, but too large to be line numbers of any file.
    unusable: bool,
}

/// A hunk's body as read, and what reading it repaired.
struct HunkBody {
    lines: Vec<Line>,
    /// For each line, whether it came from an empty input line.
    empty: Vec<bool>,
    /// The lines on the old side and on the new side.
    seen: (usize, usize),
    /// Lines led by a tab read as context.
    repaired_tabs: usize,
    /// Context lines written without a prefix, and context lines written with a space
    /// (which may be indentation once the hunk shows the first kind): body indices.
    unprefixed_at: Vec<usize>,
    spaced_at: Vec<usize>,
}

impl HunkBody {
    fn with_capacity(n: usize) -> HunkBody {
        HunkBody {
            lines: Vec::with_capacity(n),
            empty: Vec::with_capacity(n),
            seen: (0, 0),
            repaired_tabs: 0,
            unprefixed_at: Vec::new(),
            spaced_at: Vec::new(),
        }
    }

    /// Trailing empty lines belong to the hunk only when the header's counts say so.
    fn drop_trailing_empty(&mut self, parsed: &HunkHeader) {
        let trailing_empty = self.empty.iter().rev().take_while(|e| **e).count();
        if trailing_empty == 0 {
            return;
        }
        let (old_seen, new_seen) = self.seen;
        let keep = match (parsed.old_count, parsed.new_count) {
            (Some(oc), Some(nc)) => {
                let o = old_seen - trailing_empty;
                let n = new_seen - trailing_empty;
                (0..=trailing_empty)
                    .rev()
                    .find(|k| o + k == oc && n + k == nc)
                    .unwrap_or(0)
            }
            _ => 0,
        };
        let drop = trailing_empty - keep;
        self.lines.truncate(self.lines.len() - drop);
        self.empty.truncate(self.lines.len());
        self.seen = (old_seen - drop, new_seen - drop);
    }

    /// A notice for each kind of prefix the body's lines lacked and were read without;
    /// `rewritten`: space-led context lines read as the file has them.
    fn repair_notices(&self, header_line: usize, rewritten: usize, notices: &mut Vec<Notice>) {
        if !self.unprefixed_at.is_empty() {
            notices.push(Notice::new(
                unprefixed::NOTICE,
                format!(
                    "hunk at line {header_line}: {} context line(s) had no leading ' ' and were read as context (they are lines of the file as written)",
                    self.unprefixed_at.len() + rewritten
                ),
            ));
        }
        let empties = self.empty.iter().filter(|e| **e).count();
        if empties > 0 {
            notices.push(Notice::new(
                NoticeKind::BlankContextRepaired,
                format!("hunk at line {header_line}: {empties} empty line(s) read as blank context lines (the leading space was missing)"),
            ));
        }
        if self.repaired_tabs > 0 {
            notices.push(Notice::new(
                NoticeKind::ContextPrefixRepaired,
                format!(
                    "hunk at line {header_line}: {} line(s) without a leading ' ' read as context",
                    self.repaired_tabs
                ),
            ));
        }
    }
}

/// The notice a hunk header without usable line numbers gets.
fn header_notices(
    parsed: &HunkHeader,
    header: &str,
    header_line: usize,
    notices: &mut Vec<Notice>,
) {
    if parsed.unusable {
        notices.push(Notice::new(
            NoticeKind::LineNumbersIgnored,
            format!(
                "line {header_line}: hunk header '{header}' has a number beyond {}; its numbers were ignored and the hunk is located by its content",
                super::MAX_LINE_NUMBER
            ),
        ));
    } else if parsed.old_start.is_none() {
        notices.push(Notice::new(
            NoticeKind::NoLineNumbers,
            format!("line {header_line}: hunk header '{header}' has no line numbers; the hunk is located by its content"),
        ));
    }
}

/// Where the hunk's lines say it sits: its `short_by`, and whether it is at the end or the
/// start of the file.
fn place_by_shape(hunk: &mut Hunk, parsed: &HunkHeader) {
    // git's rule, context on one side only pins the hunk to that end of the file, holds
    // for what `diff` writes; models write that shape anywhere (DESIGN §3). So the shape
    // is evidence (`*_by_shape`), and only a `\ No newline` marker, which speaks of the
    // end of the file itself, pins the hunk there. A header that promises more old lines
    // than the body has lost a context line, perhaps the one on the missing side: then
    // the shape says nothing.
    let (lead, trail) = (hunk.leading_context(), hunk.trailing_context());
    let short = |want: Option<usize>, have: usize| want.map_or(0, |w| w.saturating_sub(have));
    let old_missing = short(parsed.old_count, hunk.old_len());
    let old_short = old_missing > 0;
    hunk.short_by = old_missing.max(short(parsed.new_count, hunk.new_len()));
    hunk.old_short_by = old_missing;
    if hunk.has_changes() {
        let numbered = hunk.old_start.is_some();
        hunk.at_eof = hunk.old_no_newline || hunk.new_no_newline;
        hunk.eof_by_shape = numbered && trail == 0 && lead > 0 && !old_short;
        hunk.bof_by_shape =
            lead == 0 && trail > 0 && !old_short && hunk.old_start.is_some_and(|s| s <= 1);
    }
}

/// `@@ -a,b +c,d @@ section`, tolerating missing parts: `@@`, `@@ @@`, `@@ ... @@`, `@@ -a +c @@`.
fn parse_hunk_header(line: &str) -> HunkHeader {
    let mut out = HunkHeader {
        old_start: None,
        old_count: None,
        new_start: None,
        new_count: None,
        section: None,
        unusable: false,
    };
    let rest = line.trim_start_matches('@');
    let (inner, section) = match rest.find("@@") {
        Some(i) => (&rest[..i], Some(rest[i..].trim_start_matches('@'))),
        None => (rest, None),
    };
    for tok in inner.split_whitespace() {
        if let Some(r) = tok.strip_prefix('-') {
            let (s, c, _) = range(r);
            out.old_start = s;
            out.old_count = c.or(s.map(|_| 1));
        } else if let Some(r) = tok.strip_prefix('+') {
            let (s, c, _) = range(r);
            out.new_start = s;
            out.new_count = c.or(s.map(|_| 1));
        }
        // A number past any real file makes every number of the header untrustworthy: the
        // hunk is located by its content alone.
        if range(tok.get(1..).unwrap_or("")).2 {
            out.old_start = None;
            out.new_start = None;
            out.unusable = true;
            break;
        }
    }
    if out.old_start.is_none() {
        out.old_count = None;
        out.new_count = None;
    }
    if out.new_start.is_none() {
        out.new_count = None;
    }
    if let Some(s) = section {
        let s = s.trim();
        if !s.is_empty() {
            out.section = Some(s.to_string());
        }
    }
    out
}

/// `a,b` as start and count, and whether a number was there but unusable (too large).
fn range(r: &str) -> (Option<usize>, Option<usize>, bool) {
    let mut it = r.splitn(2, ',');
    let (s, c) = (it.next(), it.next());
    let num = |v: Option<&str>| v.and_then(super::line_number);
    let bad = |v: Option<&str>| {
        v.is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            && num(v).is_none()
    };
    (num(s), num(c), bad(s) || bad(c))
}

fn parse_mode(v: &str, line: usize) -> Result<u32, ParseError> {
    let v = v.trim();
    u32::from_str_radix(v, 8).map_err(|_| ParseError::Syntax {
        line,
        message: format!("invalid file mode '{v}'"),
    })
}

fn parse_index(v: &str) -> Option<IndexLine> {
    let ids = v.split_whitespace().next()?;
    let (a, b) = ids.split_once("..")?;
    let hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
    (hex(a) && hex(b)).then(|| IndexLine {
        old: a.to_string(),
        new: b.to_string(),
    })
}

/// The path in a `---`/`+++` line: unquoted, without a trailing tab + timestamp.
fn header_path(v: &str) -> String {
    let v = v.trim_end();
    if v.starts_with('"') {
        return unquote(v);
    }
    let v = v.split('\t').next().unwrap_or(v);
    without_timestamp(v).trim_end().to_string()
}

/// `v` without the timestamp `diff -u` may put after a name with spaces and no tab, at the
/// very end: ` +YYYY-MM-DD HH:MM:SS(.fraction)?( [+-]HHMM)?`. (Matched by hand: compiling
/// a regex costs more than the rest of parsing a patch of thousands of lines.)
fn without_timestamp(v: &str) -> &str {
    fn digits(b: &[u8]) -> bool {
        b.iter().all(u8::is_ascii_digit)
    }
    let b = v.as_bytes();
    // Where the date and time end, if they end at `end`: where they start.
    let stamp_at = |end: usize| -> Option<usize> {
        // A fraction of a second: digits after a dot.
        let mut end = end;
        let frac = b[..end]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if frac > 0 && frac < end && b[end - frac - 1] == b'.' && end - frac > 19 {
            end -= frac + 1;
        }
        let start = end.checked_sub(19)?;
        let s = &b[start..end];
        let shape = digits(&s[0..4])
            && s[4] == b'-'
            && digits(&s[5..7])
            && s[7] == b'-'
            && digits(&s[8..10])
            && s[10] == b' '
            && digits(&s[11..13])
            && s[13] == b':'
            && digits(&s[14..16])
            && s[16] == b':'
            && digits(&s[17..19]);
        // At least one space before it; all of them go.
        (shape && start > 0 && b[start - 1] == b' ').then(|| {
            b[..start]
                .iter()
                .rposition(|&c| c != b' ')
                .map_or(0, |i| i + 1)
        })
    };
    let n = b.len();
    let zoned =
        n >= 6 && b[n - 6] == b' ' && matches!(b[n - 5], b'+' | b'-') && digits(&b[n - 4..]);
    let cut = zoned
        .then(|| stamp_at(n - 6))
        .flatten()
        .or_else(|| stamp_at(n));
    match cut {
        Some(at) => &v[..at],
        None => v,
    }
}

/// Split `a/x b/y` from a `diff --git` line, honouring quotes; for unquoted names with
/// spaces, the two halves are equal for non-renames, so split in the middle.
fn split_git_line(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_end();
    if rest.starts_with('"') {
        let end = quoted_end(rest)?;
        let a = unquote(&rest[..end]);
        let b = unquote(rest[end..].trim_start());
        return Some((a, b));
    }
    if let Some(i) = rest.find(" \"") {
        return Some((rest[..i].to_string(), unquote(&rest[i + 1..])));
    }
    if let Some(halves) = equal_halves(rest) {
        return Some(halves);
    }
    // Try every " b/" split and prefer the one whose halves name the same file.
    let candidates: Vec<usize> = rest.match_indices(" b/").map(|(i, _)| i).collect();
    for &i in &candidates {
        let (a, b) = (&rest[..i], &rest[i + 1..]);
        if a.get(2..) == b.get(2..) {
            return Some((a.to_string(), b.to_string()));
        }
    }
    if let Some(&i) = candidates.first() {
        return Some((rest[..i].to_string(), rest[i + 1..].to_string()));
    }
    let mut it = rest.splitn(2, ' ');
    Some((it.next()?.to_string(), it.next()?.to_string()))
}

/// git's reading of an unquoted `diff --git` line: the split, at a space or a tab, whose two
/// halves name the same path once each loses its first component (`a/`, `b/` or any other
/// prefix). Names with spaces and custom prefixes split as git splits them; a rename has
/// no such split and is left to the other rules.
fn equal_halves(rest: &str) -> Option<(String, String)> {
    let prefix = rest.find('/').filter(|&i| i > 0)? + 1;
    let name = &rest[prefix..];
    for (len, c) in name.char_indices() {
        if c != ' ' && c != '\t' {
            continue;
        }
        let second = &name[len + 1..];
        let slash = second.find('/').filter(|&i| i > 0)?;
        if second[slash + 1..] == name[..len] {
            return Some((rest[..prefix + len].to_string(), second.to_string()));
        }
    }
    None
}

/// A line that stands for lines the writer left out (`...`, `// ... existing code ...`,
/// `# …`): an ellipsis with at most a comment marker and a few words around it.
fn stands_for_lines(text: &str) -> bool {
    let t = text.trim();
    // Asked of every context line: a search for a byte costs less than setting up a
    // substring search each time (the ellipsis is found by its first byte).
    let b = t.as_bytes();
    let found =
        |first: u8, what: &[u8]| memchr::memchr_iter(first, b).any(|i| b[i..].starts_with(what));
    if !(found(b'.', b"...") || found("…".as_bytes()[0], "…".as_bytes())) {
        return false;
    }
    let rest = t.replace("...", " ").replace('…', " ");
    let rest = rest.trim_matches(|c: char| "/#*-;<!>[]".contains(c) || c.is_whitespace());
    rest.chars().all(|c| c.is_alphabetic() || c == ' ')
}

/// Drop the first path component (`a/x/y` → `x/y`), as `-p1` does.
fn strip_one(s: &str) -> String {
    match s.split_once('/') {
        Some((_, rest)) if !rest.is_empty() => rest.to_string(),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests;

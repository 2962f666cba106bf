//! The one patch model every input format parses into; pure data, no I/O.

pub mod kinds;
mod patch_text;

pub use patch_text::PatchText;

use kinds::NoticeKind;
use schemars::JsonSchema;
use serde::Serialize;

/// Which input syntax a patch was written in.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Unified,
    Codex,
    SearchReplace,
}

impl Format {
    /// The name the report and the command line use for this format.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Unified => "unified",
            Format::Codex => "codex",
            Format::SearchReplace => "search-replace",
        }
    }
}

/// A whole parsed patch: the file changes in input order plus what had to be repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The dialect the input was written in, reported back to the sender.
    pub format: Format,
    /// The file changes, in the order the patch gives them.
    pub files: Vec<FilePatch>,
    /// Repairs made while reading, in the order they were made.
    pub notices: Vec<Notice>,
}

/// A repair the input needed, reported so the sender learns what it got wrong.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Notice {
    /// Stable machine name, e.g. `fence-stripped`, `counts-recomputed`.
    pub kind: NoticeKind,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Notice {
    /// A notice about the patch as a whole.
    pub fn new(kind: NoticeKind, message: impl Into<String>) -> Notice {
        Notice {
            kind,
            message: message.into(),
            path: None,
        }
    }

    /// A notice about one file of the patch.
    pub fn for_path(kind: NoticeKind, path: &str, message: impl Into<String>) -> Notice {
        Notice {
            kind,
            message: message.into(),
            path: Some(path.to_string()),
        }
    }
}

/// What happens to a file as a whole.
#[allow(missing_docs)] // documented in docs/json.md (the schema's description)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileOp {
    Modify,
    Create,
    Delete,
    Rename,
    Copy,
}

/// How SEARCH/REPLACE and Codex semantics differ from unified diffs where it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CreateMode {
    /// A creation fails when the file already exists (unified diff: `new file`).
    #[default]
    MustNotExist,
    /// A creation may replace an existing file, with a warning (Codex `Add File`).
    MayReplace,
}

/// The change to one file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilePatch {
    /// Path before (None for a creation), already stripped of `a/` and resolved.
    pub old_path: Option<String>,
    /// Path after (None for a deletion).
    pub new_path: Option<String>,
    /// File mode before (`old mode`, `deleted file mode`), when the patch states it.
    pub old_mode: Option<u32>,
    /// File mode after (`new mode`, `new file mode`), when the patch states it.
    pub new_mode: Option<u32>,
    /// `index <old>..<new>` abbreviated blob ids, when the patch carries them.
    pub index: Option<IndexLine>,
    /// The text changes, in patch order.
    pub hunks: Vec<Hunk>,
    /// `GIT binary patch` / `Binary files differ`: cannot be applied at text level.
    pub binary: bool,
    /// The exact text of this file's section of the patch, for handing to `git apply`.
    pub raw: PatchText,
    /// Whether a creation may replace a file that already exists.
    pub create_mode: CreateMode,
    /// Hunks must be located in file order (Codex rule).
    pub ordered: bool,
    /// The whole file's new content, for formats that replace rather than patch.
    pub full_content: Option<String>,
    /// The patch's own line endings are authoritative for added lines (a `git diff` of a
    /// file with CRLF lines); otherwise added lines take the file's dominant ending.
    pub patch_eols: bool,
    /// Each hunk was made against the text the hunks before it leave (a list of structured
    /// edits to one file, applied in order): the hunks are located in turn, and their
    /// numbers count the lines of that text, not of the file as it is.
    pub in_turn: bool,
}

/// The blob ids of a `index <old>..<new>` line, abbreviated as the patch wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexLine {
    /// The id of the file before the change.
    pub old: String,
    /// The id of the file after the change.
    pub new: String,
}

impl FilePatch {
    /// Create, delete, rename or modify, from which of the two paths are present.
    pub fn op(&self) -> FileOp {
        match (&self.old_path, &self.new_path) {
            (None, Some(_)) => FileOp::Create,
            (Some(_), None) => FileOp::Delete,
            (Some(a), Some(b)) if a != b => FileOp::Rename,
            _ => FileOp::Modify,
        }
    }

    /// The path this change is known by in reports: the new path, else the old one.
    pub fn display_path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .expect("a file patch has at least one path")
    }

    /// Lines added and removed, as `git diff --numstat` counts the change: a line a
    /// SEARCH/REPLACE block (or any hunk) removes and adds back unchanged counts as neither.
    pub fn added_removed(&self) -> (usize, usize) {
        let mut add = 0;
        let mut rem = 0;
        for h in &self.hunks {
            let (a, r) = h.added_removed();
            add += a;
            rem += r;
        }
        if let Some(c) = &self.full_content {
            add += c.lines().count();
        }
        (add, rem)
    }
}

/// Which side of the change a hunk line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineKind {
    /// On both sides: must be found, and is kept.
    Context,
    /// On the old side only: must be found, and goes.
    Remove,
    /// On the new side only: written.
    Add,
}

/// One line of a hunk, without its line terminator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    /// Whether the line is kept, removed or added.
    pub kind: LineKind,
    /// The line's text, without prefix or terminator.
    pub text: PatchText,
    /// The patch line ended in CRLF (meaningful only when `FilePatch::patch_eols`).
    pub crlf: bool,
}

impl Line {
    /// A line that ends in LF (the common case; a parser sets `crlf` itself).
    pub fn new(kind: LineKind, text: impl Into<PatchText>) -> Line {
        Line {
            kind,
            text: text.into(),
            crlf: false,
        }
    }
}

/// One hunk. Line numbers are hints (1-based, as in the header), never trusted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The old side's start line from the header, when the patch gave one.
    pub old_start: Option<usize>,
    /// The new side's start line from the header, when the patch gave one.
    pub new_start: Option<usize>,
    /// Text after the closing `@@` of a unified header: a section heading, used as an anchor.
    pub section: Option<String>,
    /// Codex `@@ anchor` lines, outermost first: each narrows where the hunk may start.
    pub anchors: Vec<String>,
    /// The body, in order: context, removed and added lines.
    pub lines: Vec<Line>,
    /// `\ No newline at end of file` after the last old-side line.
    pub old_no_newline: bool,
    /// `\ No newline at end of file` after the last new-side line.
    pub new_no_newline: bool,
    /// The hunk must end at the end of the file: an explicit marker says so (Codex's
    /// `*** End of File`, a `\ No newline at end of file`, an empty SEARCH that appends).
    pub at_eof: bool,
    /// The hunk must start at the beginning of the file (an explicit marker says so).
    pub at_bof: bool,
    /// The hunk's shape suggests it ends the file: numbered, with leading but no trailing
    /// context, which `diff` writes only at the end of a file. Models write that shape
    /// anywhere, so it is evidence that may choose among several fits, never a requirement.
    pub eof_by_shape: bool,
    /// Likewise for the start of the file: numbered at line 1, with trailing but no leading
    /// context.
    pub bof_by_shape: bool,
    /// SEARCH/REPLACE: the old block may match with less indentation than the file has.
    pub reindent: bool,
    /// How many lines the header counts beyond the body (on the side short of more): lines
    /// were dropped, or the counts are wrong. A missing context line may be the very line
    /// that tells an applied hunk from one not yet applied, so such a body is no proof of
    /// either; and a dropped leading line moves the body's start off the numbers.
    pub short_by: usize,
    /// Of `short_by`, the lines the old side lacks (context or removed lines lost). Only a
    /// lost old line can stand between the body's lines and the file's, beside an addition;
    /// a new side that alone is short is most often a miscount.
    pub old_short_by: usize,
    /// Made from a structured edit whose old text was found exactly, at `old_start`, in the
    /// file as it was read, which does not read there as the edit made already: the place
    /// is known, not guessed. Found there exactly, the hunk is placed there; the rules that
    /// weigh a guess (added lines beside their twin: applied already, or a repeat?) are for
    /// hunks whose place is inferred.
    pub known_place: bool,
}

/// How many lines `old` and `new` share at their start, and then at their end (not counting
/// those again): what a hunk from one to the other keeps as context.
pub fn shared_ends<T: PartialEq>(old: &[T], new: &[T]) -> (usize, usize) {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = (old[head..].iter().rev())
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (head, tail)
}

/// How long pairing a hunk's unchanged lines may take; past it the diff gives up on finer
/// pairs, which only leaves more lines written as the patch has them.
pub const PAIRING_TIME: std::time::Duration = std::time::Duration::from_millis(200);

impl Hunk {
    /// For each run of added lines, for each of its lines: the old-line index of the removed line
    /// of the run right before it that it repeats word for word, paired as a line diff of the two
    /// runs pairs its unchanged lines (in order; a SEARCH block's REPLACE repeats most of it).
    pub fn unchanged_partners(&self) -> Vec<Vec<Option<usize>>> {
        let mut out = Vec::new();
        let mut oi = 0usize;
        let mut removed: Vec<(usize, &Line)> = Vec::new();
        let lines = &self.lines;
        let mut i = 0;
        while i < lines.len() {
            match lines[i].kind {
                LineKind::Add => {
                    let start = i;
                    while i < lines.len() && lines[i].kind == LineKind::Add {
                        i += 1;
                    }
                    let added = &lines[start..i];
                    let mut pairs = vec![None; added.len()];
                    if !removed.is_empty() {
                        let old: Vec<&[u8]> =
                            removed.iter().map(|(_, l)| l.text.as_bytes()).collect();
                        let new: Vec<&[u8]> = added.iter().map(|l| l.text.as_bytes()).collect();
                        for op in crate::text::textdiff::diff(&old, &new, PAIRING_TIME) {
                            if let similar::DiffOp::Equal {
                                old_index,
                                new_index,
                                len,
                            } = op
                            {
                                for k in 0..len {
                                    let (oi, r) = removed[old_index + k];
                                    // `-x` then `+x` with another ending changes the ending.
                                    if r.crlf == added[new_index + k].crlf {
                                        pairs[new_index + k] = Some(oi);
                                    }
                                }
                            }
                        }
                    }
                    out.push(pairs);
                    removed.clear();
                }
                LineKind::Remove => {
                    removed.push((oi, &lines[i]));
                    oi += 1;
                    i += 1;
                }
                LineKind::Context => {
                    removed.clear();
                    oi += 1;
                    i += 1;
                }
            }
        }
        out
    }

    /// The lines the file must hold before the hunk: context and removed lines.
    pub fn old_lines(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| l.kind != LineKind::Add)
    }

    /// The lines the file holds after the hunk: context and added lines.
    pub fn new_lines(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| l.kind != LineKind::Remove)
    }

    /// How many lines the hunk expects to find.
    pub fn old_len(&self) -> usize {
        self.old_lines().count()
    }

    /// How many lines the hunk leaves in their place.
    pub fn new_len(&self) -> usize {
        self.new_lines().count()
    }

    /// Context lines before the first change.
    pub fn leading_context(&self) -> usize {
        self.lines
            .iter()
            .take_while(|l| l.kind == LineKind::Context)
            .count()
    }

    /// Context lines after the last change.
    pub fn trailing_context(&self) -> usize {
        self.lines
            .iter()
            .rev()
            .take_while(|l| l.kind == LineKind::Context)
            .count()
    }

    /// Whether the body changes nothing while its header counts more lines than it has:
    /// what it was to change is what it lost (a hunk cut where its text looked like its end).
    pub fn lost_its_changes(&self) -> bool {
        !self.has_changes() && self.short_by > 0
    }

    /// Whether the hunk adds or removes anything (a context-only hunk changes nothing).
    pub fn has_changes(&self) -> bool {
        self.lines.iter().any(|l| l.kind != LineKind::Context)
    }

    /// Lines added and removed: in each run of changed lines, a line diff of what it removes
    /// against what it adds, so that lines removed and added back unchanged count as neither.
    pub fn added_removed(&self) -> (usize, usize) {
        let (mut add, mut rem) = (0, 0);
        // The two sides of each run, in vectors the runs share (a hunk may have many runs).
        let (mut old, mut new): (Vec<&[u8]>, Vec<&[u8]>) = (Vec::new(), Vec::new());
        for run in self.lines.split(|l| l.kind == LineKind::Context) {
            old.clear();
            new.clear();
            for l in run {
                match l.kind {
                    LineKind::Remove => old.push(l.text.as_bytes()),
                    LineKind::Add => new.push(l.text.as_bytes()),
                    LineKind::Context => {}
                }
            }
            // Lines that share nothing are all added and removed: no diff to run (nor its
            // deadline to read from the clock, for each of a hunk's many changes).
            if old.is_empty()
                || new.is_empty()
                || crate::text::textdiff::plainly_distinct(&old, &new)
            {
                add += new.len();
                rem += old.len();
                continue;
            }
            let same: usize = crate::text::textdiff::diff(&old, &new, COUNTING_TIME)
                .iter()
                .map(|op| match *op {
                    similar::DiffOp::Equal { len, .. } => len,
                    _ => 0,
                })
                .sum();
            add += new.len() - same;
            rem += old.len() - same;
        }
        (add, rem)
    }
}

/// How long counting one run of changed lines may take (a coarser diff only counts more).
const COUNTING_TIME: std::time::Duration = std::time::Duration::from_millis(50);

impl Patch {
    /// The patch that undoes this one: sides swapped, file by file and line by line.
    pub fn reversed(&self) -> Patch {
        Patch {
            format: self.format,
            notices: self.notices.clone(),
            files: self.files.iter().map(FilePatch::reversed).collect(),
        }
    }
}

impl FilePatch {
    /// The change that undoes this one: paths, modes and ids swapped; a whole-file creation
    /// becomes a deletion of exactly that content.
    pub fn reversed(&self) -> FilePatch {
        let mut hunks: Vec<Hunk> = self.hunks.iter().map(Hunk::reversed).collect();
        // Hunks made in turn are undone in turn: the last one first.
        if self.in_turn {
            hunks.reverse();
        }
        if let Some(content) = &self.full_content {
            // A whole-file creation becomes a deletion that must find exactly this content.
            hunks = vec![Hunk {
                lines: content
                    .lines()
                    .map(|l| Line::new(LineKind::Remove, l))
                    .collect(),
                old_start: Some(1),
                old_no_newline: !content.ends_with('\n') && !content.is_empty(),
                ..Hunk::default()
            }];
        }
        FilePatch {
            old_path: self.new_path.clone(),
            new_path: self.old_path.clone(),
            old_mode: self.new_mode,
            new_mode: self.old_mode,
            index: self.index.as_ref().map(|i| IndexLine {
                old: i.new.clone(),
                new: i.old.clone(),
            }),
            hunks,
            binary: self.binary,
            raw: self.raw.clone(),
            create_mode: CreateMode::MustNotExist,
            ordered: self.ordered,
            full_content: None,
            patch_eols: self.patch_eols,
            in_turn: self.in_turn,
        }
    }
}

impl Hunk {
    /// The hunk that undoes this one: removed and added lines swapped, and the end-of-file
    /// markers with them.
    pub fn reversed(&self) -> Hunk {
        Hunk {
            old_start: self.new_start.or(self.old_start),
            new_start: self.old_start,
            section: self.section.clone(),
            anchors: self.anchors.clone(),
            lines: self
                .lines
                .iter()
                .map(|l| Line {
                    kind: match l.kind {
                        LineKind::Add => LineKind::Remove,
                        LineKind::Remove => LineKind::Add,
                        LineKind::Context => LineKind::Context,
                    },
                    text: l.text.clone(),
                    crlf: l.crlf,
                })
                .collect(),
            old_no_newline: self.new_no_newline,
            new_no_newline: self.old_no_newline,
            at_eof: self.at_eof,
            at_bof: self.at_bof,
            eof_by_shape: self.eof_by_shape,
            bof_by_shape: self.bof_by_shape,
            reindent: self.reindent,
            short_by: self.short_by,
            // The old side's shortfall is not known apart: as much as the body's.
            old_short_by: self.short_by,
            // The new side was never found where the numbers say.
            known_place: false,
        }
    }
}

/// Whether a line stands for unchanged text the sender left out: `...`, `…`, or a comment
/// made of an ellipsis and a few words (`# ... existing code ...`, `// ... rest unchanged`,
/// `/* ... */`, `<!-- ... -->`). Such a line is read as an elision only where the hunk does
/// not fit as written (Python's `...` is code too).
pub fn is_elision(line: &str) -> bool {
    let t = line.trim();
    let opened = ["<!--", "/*", "//", "--", "#", ";", "%", "*"]
        .iter()
        .find_map(|open| t.strip_prefix(open));
    let commented = opened.is_some();
    let t = opened.unwrap_or(t).trim();
    // Outside a comment, `...name` is code: a spread or rest parameter (`...options,`,
    // `...args)`), not an elision, unless it closes with dots too (`...existing code...`)
    // or reads on as words (`...rest unchanged`).
    if !commented {
        let after = t.strip_prefix("...").or_else(|| t.strip_prefix('\u{2026}'));
        let word = after
            .and_then(|r| r.chars().next())
            .is_some_and(|c| !c.is_whitespace() && c != '.' && c != '\u{2026}');
        let words = after.is_some_and(|r| r.trim().contains(char::is_whitespace));
        let closed = t.len() > 3 && (t.ends_with("...") || t.ends_with('\u{2026}'));
        if word && !closed && !words {
            return false;
        }
    }
    let t = ["-->", "*/"]
        .iter()
        .find_map(|close| t.strip_suffix(close))
        .unwrap_or(t)
        .trim();
    let Some(rest) = t.strip_prefix("...").or_else(|| t.strip_prefix('\u{2026}')) else {
        return false;
    };
    let rest = rest.trim();
    let rest = rest
        .strip_suffix("...")
        .or_else(|| rest.strip_suffix('\u{2026}'))
        .unwrap_or(rest)
        .trim();
    // A few plain words at most ("existing code", "rest of the file unchanged").
    rest.len() <= 40
        && rest.split_whitespace().count() <= 6
        && rest
            .chars()
            .all(|c| c.is_alphanumeric() || c.is_whitespace() || "'-_,()".contains(c))
}

#[cfg(test)]
mod elision_tests {
    use super::is_elision;

    #[test]
    fn elision_lines_in_every_comment_style_are_recognised() {
        for l in [
            "...",
            "    ...",
            "\u{2026}",
            "# ... existing code ...",
            "    // ... rest unchanged ...",
            "/* ... */",
            "<!-- ... -->",
            "-- ... unchanged",
            "  # ... (omitted) ...",
            "// ...existing code...",
            "...existing code...",
            "  ...rest unchanged",
            "\u{2026}existing code",
        ] {
            assert!(is_elision(l), "{l:?}");
        }
    }

    #[test]
    fn code_that_merely_contains_an_ellipsis_is_not_an_elision() {
        for l in [
            "print('...')",
            "args = [...]",
            "fn f(x: ...) {}",
            "... = compute(a, b) + c * d / e",
            "// see ... for details: https://example.com/x?y=1",
            "",
            "\t\t...options,",
            "...rest",
            "  ...addProperties,",
        ] {
            assert!(!is_elision(l), "{l:?}");
        }
    }
}

#[cfg(test)]
mod reversed_tests {
    use super::*;

    /// Hunks made in turn (each against the text the one before it leaves) are undone in
    /// turn: the last first, each with its sides swapped; other hunks keep their order.
    #[test]
    fn hunks_made_in_turn_are_reversed_last_first() {
        let hunk = |at: usize, old: &str, new: &str| Hunk {
            old_start: Some(at),
            new_start: Some(at),
            lines: vec![
                Line::new(LineKind::Remove, old),
                Line::new(LineKind::Add, new),
            ],
            ..Hunk::default()
        };
        let mut fp = FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks: vec![hunk(1, "a", "b"), hunk(1, "b", "c")],
            in_turn: true,
            ..FilePatch::default()
        };
        let back = fp.reversed();
        assert!(back.in_turn);
        // What each reversed hunk removes: the text its forward hunk wrote.
        let removed = |p: &FilePatch| -> Vec<String> {
            p.hunks
                .iter()
                .flat_map(|h| h.lines.iter().filter(|l| l.kind == LineKind::Remove))
                .map(|l| l.text.to_string())
                .collect()
        };
        assert_eq!(removed(&back), ["c", "b"]);
        fp.in_turn = false;
        assert_eq!(removed(&fp.reversed()), ["b", "c"]);
    }
}

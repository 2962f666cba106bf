//! The JSON document of a report as clients read it: the fields [`super::Report`] serializes
//! to, in their order, with what follows from others (the exit status, from the run's
//! status) worked out here rather than kept beside them. Its schema is the report's schema.
//!
//! The planner's types that a report shows (a hunk's result, a diagnostic, a warning, the
//! strategy and pass) have their wire twins here, converted field by field: a change inside
//! the planner changes the JSON only where a conversion below is changed with it.

use schemars::JsonSchema;
use serde::Serialize;

use super::{
    brief, conflict, hooks, ErrorReport, FileOp, FileOutcome, ModeChange, RunStatus, Summary,
};
use crate::patch::{Format, Notice};

/// The report of one run of `git llm-apply` (`--json`).
#[derive(Serialize, JsonSchema)]
pub(super) struct Report<'a> {
    /// The schema version: 1. Bumped on any incompatible change.
    #[schemars(range(min = 1, max = 1))]
    schema: u32,
    status: RunStatus,
    /// The process's exit status: 0 applied or nothing to do, 1 refused, 2 error, 3 partial.
    exit_code: i32,
    /// `--check`: nothing was to be written.
    check: bool,
    /// The patch was applied in reverse (`--revert PATCH`).
    reverse: bool,
    /// The input format, once detected.
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Format>,
    /// Whether any file was changed on disk.
    written: bool,
    files: Vec<FileReport<'a>>,
    summary: &'a Summary,
    /// Repairs the input needed and facts about the run.
    notices: &'a [Notice],
    errors: &'a [ErrorReport],
    /// The ghost snapshot taken before writing, to undo with.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot: Option<&'a str>,
    /// The `pre-llm-apply` / `post-llm-apply` runs, in order.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    hooks: &'a [hooks::HookReport],
    /// What standard error shows without `--json` (refusals with their diagnostics,
    /// warnings, notices, errors), without colour: one text ready to show a person or a
    /// model. Absent when there is nothing to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    /// A brief report (the MCP server's default) only: what it left out, and how to get the
    /// full report. `--json` is always complete and never has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted: Option<&'a brief::Omitted>,
}

impl<'a> From<&'a super::Report> for Report<'a> {
    fn from(r: &'a super::Report) -> Report<'a> {
        Report {
            schema: r.schema,
            status: r.status,
            exit_code: r.exit_code(),
            check: r.check,
            reverse: r.reverse,
            format: r.format,
            written: r.written,
            files: r.files.iter().map(FileReport::from).collect(),
            summary: &r.summary,
            notices: &r.notices,
            errors: &r.errors,
            snapshot: r.snapshot.as_deref(),
            hooks: &r.hooks,
            message: r.message.as_deref(),
            omitted: r.omitted.as_deref(),
        }
    }
}

/// What happened to one file of the patch.
#[derive(Serialize, JsonSchema)]
pub(super) struct FileReport<'a> {
    /// The path after the change (the old path for a deletion), relative to the top level.
    path: &'a str,
    /// The path before a rename or copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    old_path: Option<&'a str>,
    op: FileOp,
    status: FileOutcome,
    strategy: Strategy,
    /// The loosest matching pass any hunk needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pass: Option<Pass>,
    /// The base of a three-way merge, when one was used.
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<Base>,
    /// Lines the patch adds to this file.
    added: usize,
    /// Lines the patch removes from this file.
    removed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode_change: Option<&'a ModeChange>,
    hunks: Vec<HunkResult>,
    /// Why the file was refused or skipped, one sentence each.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    problems: &'a [String],
    /// For a path that does not exist: the closest existing path.
    #[serde(skip_serializing_if = "Option::is_none")]
    suggested_path: Option<&'a str>,
    /// What applied but deserves a second look.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<Warning>,
    /// For a conflicted file: the conflicting regions as the merge named them.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    conflicts: &'a [String],
    /// For a conflicted file: both sides of each conflicting region.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    conflict_regions: &'a [conflict::ConflictRegion],
}

impl<'a> From<&'a super::FileReport> for FileReport<'a> {
    fn from(f: &'a super::FileReport) -> FileReport<'a> {
        FileReport {
            path: &f.path,
            old_path: f.old_path.as_deref(),
            op: f.op,
            status: f.status,
            strategy: (&f.strategy).into(),
            pass: f.pass.as_ref().map(Into::into),
            base: f.base.as_ref().map(Into::into),
            added: f.added,
            removed: f.removed,
            mode_change: f.mode_change.as_ref(),
            hunks: f.hunks.iter().map(Into::into).collect(),
            problems: &f.problems,
            suggested_path: f.suggested_path.as_deref(),
            warnings: f.warnings.iter().map(Into::into).collect(),
            conflicts: &f.conflicts,
            conflict_regions: &f.conflict_regions,
        }
    }
}

/// What a warning on a successful hunk or file is about.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// The hunk matched only under a pass looser than exact (see `pass`).
    LoosePass,
    /// The hunk's lines occur in more than one place; a rule decided which.
    RepeatedContext,
    /// The hunk landed far from the line its `@@` numbers (moved by earlier hunks) gave.
    FarFromHint,
    /// The hunk landed before an earlier hunk of the same file.
    OutOfOrder,
    /// A creation replaced a file that existed with other content.
    Overwrote,
    /// The hunk repeats an earlier hunk of the same file verbatim; it was applied once.
    DuplicateHunk,
    /// The hunk's elision lines (`...`) stood for unchanged text: its parts were placed around
    /// them, in order, and the lines between kept.
    Elision,
    /// An undo took out only the apply's change: the file was edited since, and those later
    /// edits are kept.
    KeptLaterEdits,
    /// An undo restored the pre-apply content over later edits (`--force`).
    Forced,
    /// The hunk's Codex `@@` anchor is not in the file; its other lines placed it.
    AnchorMissing,
    /// The file is in conflict in the index (mid-merge): the patch went into the file as it
    /// is, conflict markers and all.
    Unmerged,
    /// Anything else.
    Other,
}

/// Something that applied but deserves a second look.
#[derive(Serialize, JsonSchema)]
pub struct Warning {
    kind: WarningKind,
    /// The hunk it is about (1-based), when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    hunk: Option<usize>,
    /// The warning as one human sentence.
    message: String,
}

/// Why one hunk could not be placed, and what the file has instead.
#[derive(Serialize, JsonSchema)]
pub struct Diagnostic {
    /// The line (1-based) the search started from: the `@@` numbers moved by the offsets of
    /// earlier hunks. Absent when the hunk has no numbers (the whole file was searched).
    #[serde(skip_serializing_if = "Option::is_none")]
    searched_from: Option<usize>,
    /// The hunk's `@@` section heading or Codex `@@` anchors (outermost first, joined by ` > `).
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor: Option<String>,
    /// How many old-side lines (context and removed) the hunk has.
    expected_lines: usize,
    /// The hunk's old side as the patch has it, numbered from 1; long hunks keep their first
    /// and last lines only.
    expected: Vec<NumberedLine>,
    /// What was found, most telling first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    findings: Vec<Finding>,
    /// The file region that looks most like the hunk's old side.
    #[serde(skip_serializing_if = "Option::is_none")]
    closest: Option<Closest>,
    /// One sentence saying what to do.
    advice: String,
}

/// A line of the hunk (numbered within its old side) or of the file (numbered in the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NumberedLine {
    /// 1-based.
    pub line: usize,
    /// The text without its line terminator (cut at 300 characters, ending in `…`).
    pub text: String,
}

/// A fact about a failed hunk.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Finding {
    /// The hunk fits at several places (1-based first lines) and nothing decides.
    Ambiguous { lines: Vec<usize> },
    /// The hunk's result is mostly in the file already, starting at `line`.
    AlreadyApplied {
        line: usize,
        /// Lines of the hunk's new side found there.
        matched: usize,
        /// Lines of the hunk's new side.
        total: usize,
    },
    /// The hunk belongs before an earlier hunk of the file: hunks must come in file order.
    OutOfOrder {
        line: usize,
        previous_hunk: usize,
        previous_line: usize,
    },
    /// The hunk fits at `line`, but an earlier hunk (`hunk`) already changes those lines.
    Overlaps { line: usize, hunk: usize },
    /// The hunk fits at `line`, but it must end at the end of the file and does not there.
    NotAtEnd { line: usize },
    /// The hunk fits at `line`, but it must start at the top of the file and does not there.
    NotAtStart { line: usize },
    /// None of the hunk's distinctive lines is anywhere in the file.
    NoLines,
    /// The hunk's lines are in another file of the patch, from `line` on: it was sent
    /// for the wrong file.
    InOtherFile { path: String, line: usize },
}

/// The region of the file most like the hunk's old side, and how they differ.
#[derive(Serialize, JsonSchema)]
pub struct Closest {
    /// First line of the region (1-based).
    start: usize,
    /// Last line of the region (1-based, inclusive).
    end: usize,
    /// Old-side lines of the hunk found in the region, ignoring whitespace and typographic
    /// substitutions.
    matched: usize,
    /// The region as the file has it; long regions keep the lines around the differences.
    lines: Vec<NumberedLine>,
    /// How many differing lines there are in all.
    difference_count: usize,
    /// The first differences (at most three), those that prevent a match first.
    differences: Vec<Difference>,
}

/// How one line of the hunk differs from the file.
#[derive(Serialize, JsonSchema)]
pub struct Difference {
    kind: DifferenceKind,
    /// Position in the hunk's old side (1-based), when a hunk line is involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    hunk_line: Option<usize>,
    /// Line in the file (1-based), when a file line is involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    file_line: Option<usize>,
    /// The hunk's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    /// The file's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    actual: Option<String>,
    /// The first column (1-based, in characters) where the two lines differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
}

/// What kind of difference a line shows.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DifferenceKind {
    /// Different text (the file changed, or the patch misremembers it).
    Content,
    /// The patch has `...` or `…` where the file has more text or more lines.
    Truncated,
    /// The patch has a line the file does not have there.
    MissingLine,
    /// The file has a line the patch does not have there.
    ExtraLine,
    /// The patch has a blank line the file does not have there.
    MissingBlankLine,
    /// The file has a blank line the patch does not have there.
    ExtraBlankLine,
    /// Only spaces and tabs differ (indentation, trailing or inner whitespace).
    Whitespace,
    /// Typographic quotes or dashes, ellipses, non-breaking or zero-width characters.
    Unicode,
}

/// Why a candidate was chosen among several.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DecidedBy {
    /// The only place the hunk fits.
    Unique,
    /// Nearest to the line-number hint, and clearly nearer than any other.
    Hint,
    /// The first fit after the `@@` section heading or Codex anchor.
    Anchor,
    /// The only fit after the previous hunk (hunks in file order).
    Order,
    /// Of several loose fits, the one that fits far better than the others.
    Fit,
    /// The only fit at the end (or start) of the file, where a numbered hunk with context on
    /// one side only says it goes, as `diff` writes it.
    Shape,
}

/// How far a fuzzy placement strayed from the hunk's own text.
#[derive(Serialize, JsonSchema)]
pub struct Fuzz {
    /// Context lines of the hunk that the file does not have there (kept as the file has them).
    context_mismatched: usize,
    /// Lines in the file's region that the hunk does not mention (kept).
    extra_file_lines: usize,
}

/// A matching pass, strictest first. Every looser match is reported with its pass.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Pass {
    Exact,
    TrailingWhitespace,
    Whitespace,
    Unicode,
    /// The guarded last pass: removed lines match, context drifted or lost lines.
    Fuzzy,
}

/// Where a three-way base came from. `kind` is `blob` (strategy 2: `id` is the `index` line's
/// blob id), or for strategy 3 `index` (`id`: the staged blob), `commit` or `snapshot` (`id`:
/// a commit whose tree holds the base at `path` — for a snapshot, its pre- or post-apply
/// commit).
#[derive(Serialize, JsonSchema)]
pub struct Base {
    kind: String,
    id: String,
    path: String,
}

/// How a file's change was computed.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Every hunk applied exactly where its numbers say.
    Exact,
    /// `git apply --3way` with the preimage blob named by the `index` line.
    #[serde(rename = "3way")]
    ThreeWay,
    /// A three-way merge against a base found in history or a snapshot.
    #[serde(rename = "history-3way")]
    HistoryThreeWay,
    /// Located by the text passes (offsets, whitespace, Unicode, fuzzy).
    Text,
    /// Whole-file operations: create, delete, rename without content changes, mode changes.
    File,
    /// A binary patch, applied by `git apply` to the bytes it was made from.
    #[serde(rename = "git-apply")]
    GitApply,
    /// None: the file was refused before any strategy was tried (a missing file, a path
    /// outside the work tree…).
    None,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HunkStatus {
    Applied,
    AlreadyApplied,
    Ambiguous,
    NotFound,
    Conflicted,
}

/// One hunk's outcome.
#[derive(Serialize, JsonSchema)]
pub struct HunkResult {
    /// 1-based, in patch order.
    index: usize,
    status: HunkStatus,
    /// 1-based first line of the matched region in the file as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    /// The line the hunk's numbers pointed at (1-based), when it had numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<usize>,
    /// `line` minus the stated line: how far the hunk moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<i64>,
    /// The matching pass that placed (or looked for) the hunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pass: Option<Pass>,
    /// How many places fit under the pass that decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    occurrences: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decided_by: Option<DecidedBy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fuzz: Option<Fuzz>,
    /// For an ambiguous hunk: every 1-based line where it fits.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    candidates: Vec<usize>,
    /// For a hunk that was not placed: why, in one sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// For a hunk that could not be placed: why, and what the file has instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostic: Option<Box<Diagnostic>>,
}

impl From<&crate::plan::diagnose::WarningKind> for WarningKind {
    fn from(x: &crate::plan::diagnose::WarningKind) -> WarningKind {
        match x {
            crate::plan::diagnose::WarningKind::LoosePass => WarningKind::LoosePass,
            crate::plan::diagnose::WarningKind::RepeatedContext => WarningKind::RepeatedContext,
            crate::plan::diagnose::WarningKind::FarFromHint => WarningKind::FarFromHint,
            crate::plan::diagnose::WarningKind::OutOfOrder => WarningKind::OutOfOrder,
            crate::plan::diagnose::WarningKind::Overwrote => WarningKind::Overwrote,
            crate::plan::diagnose::WarningKind::DuplicateHunk => WarningKind::DuplicateHunk,
            crate::plan::diagnose::WarningKind::Elision => WarningKind::Elision,
            crate::plan::diagnose::WarningKind::KeptLaterEdits => WarningKind::KeptLaterEdits,
            crate::plan::diagnose::WarningKind::Forced => WarningKind::Forced,
            crate::plan::diagnose::WarningKind::AnchorMissing => WarningKind::AnchorMissing,
            crate::plan::diagnose::WarningKind::Unmerged => WarningKind::Unmerged,
            crate::plan::diagnose::WarningKind::Other => WarningKind::Other,
        }
    }
}

impl From<&crate::plan::diagnose::Warning> for Warning {
    fn from(x: &crate::plan::diagnose::Warning) -> Warning {
        Warning {
            kind: (&x.kind).into(),
            hunk: x.hunk,
            message: x.message.clone(),
        }
    }
}

impl From<&crate::plan::diagnose::Diagnostic> for Diagnostic {
    fn from(x: &crate::plan::diagnose::Diagnostic) -> Diagnostic {
        Diagnostic {
            searched_from: x.searched_from,
            anchor: x.anchor.clone(),
            expected_lines: x.expected_lines,
            expected: x.expected.iter().map(Into::into).collect(),
            findings: x.findings.iter().map(Into::into).collect(),
            closest: x.closest.as_ref().map(Into::into),
            advice: x.advice.clone(),
        }
    }
}

impl From<&crate::plan::diagnose::NumberedLine> for NumberedLine {
    fn from(x: &crate::plan::diagnose::NumberedLine) -> NumberedLine {
        NumberedLine {
            line: x.line,
            text: x.text.clone(),
        }
    }
}

impl From<&crate::plan::diagnose::Finding> for Finding {
    fn from(x: &crate::plan::diagnose::Finding) -> Finding {
        match x {
            crate::plan::diagnose::Finding::Ambiguous { lines } => Finding::Ambiguous {
                lines: lines.clone(),
            },
            crate::plan::diagnose::Finding::AlreadyApplied {
                line,
                matched,
                total,
            } => Finding::AlreadyApplied {
                line: *line,
                matched: *matched,
                total: *total,
            },
            crate::plan::diagnose::Finding::OutOfOrder {
                line,
                previous_hunk,
                previous_line,
            } => Finding::OutOfOrder {
                line: *line,
                previous_hunk: *previous_hunk,
                previous_line: *previous_line,
            },
            crate::plan::diagnose::Finding::Overlaps { line, hunk } => Finding::Overlaps {
                line: *line,
                hunk: *hunk,
            },
            crate::plan::diagnose::Finding::NotAtEnd { line } => Finding::NotAtEnd { line: *line },
            crate::plan::diagnose::Finding::NotAtStart { line } => {
                Finding::NotAtStart { line: *line }
            }
            crate::plan::diagnose::Finding::NoLines => Finding::NoLines,
            crate::plan::diagnose::Finding::InOtherFile { path, line } => Finding::InOtherFile {
                path: path.clone(),
                line: *line,
            },
        }
    }
}

impl From<&crate::plan::diagnose::Closest> for Closest {
    fn from(x: &crate::plan::diagnose::Closest) -> Closest {
        Closest {
            start: x.start,
            end: x.end,
            matched: x.matched,
            lines: x.lines.iter().map(Into::into).collect(),
            difference_count: x.difference_count,
            differences: x.differences.iter().map(Into::into).collect(),
        }
    }
}

impl From<&crate::plan::diagnose::Difference> for Difference {
    fn from(x: &crate::plan::diagnose::Difference) -> Difference {
        Difference {
            kind: (&x.kind).into(),
            hunk_line: x.hunk_line,
            file_line: x.file_line,
            expected: x.expected.clone(),
            actual: x.actual.clone(),
            column: x.column,
        }
    }
}

impl From<&crate::plan::diagnose::DifferenceKind> for DifferenceKind {
    fn from(x: &crate::plan::diagnose::DifferenceKind) -> DifferenceKind {
        match x {
            crate::plan::diagnose::DifferenceKind::Content => DifferenceKind::Content,
            crate::plan::diagnose::DifferenceKind::Truncated => DifferenceKind::Truncated,
            crate::plan::diagnose::DifferenceKind::MissingLine => DifferenceKind::MissingLine,
            crate::plan::diagnose::DifferenceKind::ExtraLine => DifferenceKind::ExtraLine,
            crate::plan::diagnose::DifferenceKind::MissingBlankLine => {
                DifferenceKind::MissingBlankLine
            }
            crate::plan::diagnose::DifferenceKind::ExtraBlankLine => DifferenceKind::ExtraBlankLine,
            crate::plan::diagnose::DifferenceKind::Whitespace => DifferenceKind::Whitespace,
            crate::plan::diagnose::DifferenceKind::Unicode => DifferenceKind::Unicode,
        }
    }
}

impl From<&crate::plan::locate::DecidedBy> for DecidedBy {
    fn from(x: &crate::plan::locate::DecidedBy) -> DecidedBy {
        match x {
            crate::plan::locate::DecidedBy::Unique => DecidedBy::Unique,
            crate::plan::locate::DecidedBy::Hint => DecidedBy::Hint,
            crate::plan::locate::DecidedBy::Anchor => DecidedBy::Anchor,
            crate::plan::locate::DecidedBy::Order => DecidedBy::Order,
            crate::plan::locate::DecidedBy::Fit => DecidedBy::Fit,
            crate::plan::locate::DecidedBy::Shape => DecidedBy::Shape,
        }
    }
}

impl From<&crate::plan::locate::Fuzz> for Fuzz {
    fn from(x: &crate::plan::locate::Fuzz) -> Fuzz {
        Fuzz {
            context_mismatched: x.context_mismatched,
            extra_file_lines: x.extra_file_lines,
        }
    }
}

impl From<&crate::text::normalize::Pass> for Pass {
    fn from(x: &crate::text::normalize::Pass) -> Pass {
        match x {
            crate::text::normalize::Pass::Exact => Pass::Exact,
            crate::text::normalize::Pass::TrailingWhitespace => Pass::TrailingWhitespace,
            crate::text::normalize::Pass::Whitespace => Pass::Whitespace,
            crate::text::normalize::Pass::Unicode => Pass::Unicode,
            crate::text::normalize::Pass::Fuzzy => Pass::Fuzzy,
        }
    }
}

impl From<&crate::plan::Base> for Base {
    fn from(x: &crate::plan::Base) -> Base {
        Base {
            kind: x.kind.clone(),
            id: x.id.clone(),
            path: x.path.clone(),
        }
    }
}

impl From<&crate::plan::Strategy> for Strategy {
    fn from(x: &crate::plan::Strategy) -> Strategy {
        match x {
            crate::plan::Strategy::Exact => Strategy::Exact,
            crate::plan::Strategy::ThreeWay => Strategy::ThreeWay,
            crate::plan::Strategy::HistoryThreeWay => Strategy::HistoryThreeWay,
            crate::plan::Strategy::Text => Strategy::Text,
            crate::plan::Strategy::File => Strategy::File,
            crate::plan::Strategy::GitApply => Strategy::GitApply,
            crate::plan::Strategy::None => Strategy::None,
        }
    }
}

impl From<&crate::plan::HunkStatus> for HunkStatus {
    fn from(x: &crate::plan::HunkStatus) -> HunkStatus {
        match x {
            crate::plan::HunkStatus::Applied => HunkStatus::Applied,
            crate::plan::HunkStatus::AlreadyApplied => HunkStatus::AlreadyApplied,
            crate::plan::HunkStatus::Ambiguous => HunkStatus::Ambiguous,
            crate::plan::HunkStatus::NotFound => HunkStatus::NotFound,
            crate::plan::HunkStatus::Conflicted => HunkStatus::Conflicted,
        }
    }
}

impl From<&crate::plan::HunkResult> for HunkResult {
    fn from(x: &crate::plan::HunkResult) -> HunkResult {
        HunkResult {
            index: x.index,
            status: (&x.status).into(),
            line: x.line,
            hint: x.hint,
            offset: x.offset,
            pass: x.pass.as_ref().map(Into::into),
            occurrences: x.occurrences,
            decided_by: x.decided_by.as_ref().map(Into::into),
            fuzz: x.fuzz.as_ref().map(Into::into),
            candidates: x.candidates.clone(),
            reason: x.reason.clone(),
            diagnostic: x.diagnostic.as_deref().map(|v| Box::new(v.into())),
        }
    }
}

impl Serialize for super::Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Report::from(self).serialize(serializer)
    }
}

impl JsonSchema for super::Report {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Report::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Report::json_schema(generator)
    }
}

//! The human rendering of a Report, split as git splits its output: the diff that was written
//! (coloured like git's) and one line per applied file on stdout; refusals with their
//! diagnostics, warnings, notices and errors on stderr; `-q` and `-v` say less or more.

use super::kinds::NoticeKind;
use std::fmt::Write as _;

use super::advice::Advice;
use super::color::{Palette, Style};
use super::diff::{self, FileDiff, LineKind};
use super::hooks::HookReport;
use super::{FileOutcome, FileReport, Report, RunStatus};
use crate::patch::FileOp;
use crate::plan::diagnose::{visible, Diagnostic, Difference, DifferenceKind, Finding};
use crate::plan::{HunkResult, HunkStatus};

/// Line numbers listed for an ambiguous hunk before the rest are counted.
const MAX_LISTED: usize = 12;

/// How much the human report says (`-q`, default, `-v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Verbosity {
    /// Only what went wrong, on standard error; the exit status says the rest.
    Quiet,
    /// The diff, the outcome per file and what went wrong.
    #[default]
    Normal,
    /// Also each file's strategies and the git commands run.
    Verbose,
}

/// How to render: each stream's colours, and how much to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options<'c> {
    /// Colours for what goes to standard output.
    pub stdout: Palette<'c>,
    /// Colours for what goes to standard error.
    pub stderr: Palette<'c>,
    /// How much to say.
    pub verbosity: Verbosity,
    /// How much of the diff of what was written to show.
    pub diff: ShownDiff,
    /// Whose words the advice is in (what the report quotes is shown as it is).
    pub advice: Advice,
}

/// How much of the diff of what was written the report shows: a display choice, made by the
/// front end (`--full-diff`, `--json`) and worked out here when the report is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownDiff {
    /// None of it (the text beside a `--json` report says only what standard error would).
    Hidden,
    /// At most this many lines of each file's diff; what is left out is counted.
    Cut(usize),
    /// Every line.
    Whole,
}

impl Options<'static> {
    /// No colour, normal verbosity, diffs cut at the usual length: for tests and for text
    /// that is not shown on a terminal.
    pub const PLAIN: Options<'static> = Options {
        stdout: Palette::PLAIN,
        stderr: Palette::PLAIN,
        verbosity: Verbosity::Normal,
        diff: ShownDiff::Cut(diff::SHOWN_LINES),
        advice: Advice::Cli,
    };
}

/// The report split as git splits its output: what was written (the diff, the files that
/// applied, the snapshot, the total of a success) on standard output; refusals, warnings,
/// notices, hook output and errors on standard error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// The diff, the files that applied and the snapshot.
    pub stdout: String,
    /// Refusals, warnings, notices, hook output and errors.
    pub stderr: String,
}

/// Notices that are the result itself rather than a remark about the run.
const RESULT_NOTICES: [NoticeKind; 2] = [NoticeKind::Undone, NoticeKind::UndoChecked];

/// The report without colour, both streams in one text (stdout's part first), the advice in
/// `advice`'s words.
pub fn render_plain(r: &Report, advice: Advice) -> String {
    let both = render_with(
        r,
        &Options {
            advice,
            ..Options::PLAIN
        },
    );
    format!("{}{}", both.stdout, both.stderr)
}

/// The report as git would split it between the two streams, in the given colours.
pub fn render_with(r: &Report, o: &Options<'_>) -> Rendered {
    let quiet = o.verbosity == Verbosity::Quiet;
    let (po, pe) = (o.stdout, o.stderr);
    let mut out = String::new();
    let mut err = String::new();
    if o.verbosity == Verbosity::Verbose {
        strategies(&mut err, r);
    }
    for e in &r.errors {
        let _ = writeln!(
            err,
            "{}",
            pe.paint(Style::Bad, &format!("error: {}", o.advice.word(&e.message)))
        );
    }
    let limit = match o.diff {
        ShownDiff::Hidden => None,
        ShownDiff::Cut(lines) => Some(Some(lines)),
        ShownDiff::Whole => Some(None),
    };
    if let Some(limit) = limit.filter(|_| shows_diff(r) && !quiet) {
        for d in diffs(r, limit) {
            file_diff(&mut out, &d, po, o.advice);
        }
    }
    for f in &r.files {
        let good = matches!(f.status, FileOutcome::Applied | FileOutcome::AlreadyApplied);
        if good {
            if !quiet {
                file_line(&mut out, f, r, po);
            }
        } else {
            file_line(&mut err, f, r, pe);
        }
        // Under a failed file, its reasons; an applied file's remarks name it.
        if !good {
            for pr in &f.problems {
                let _ = writeln!(err, "    {}", o.advice.word(pr));
            }
            if let Some(s) = &f.suggested_path {
                let _ = writeln!(err, "    closest existing path: {s}");
                let _ = writeln!(
                    err,
                    "    advice: if {s} is the file you meant, resend the patch with that path"
                );
            }
        }
        let failed: Vec<_> = f
            .hunks
            .iter()
            .filter(|h| matches!(h.status, HunkStatus::Ambiguous | HunkStatus::NotFound))
            .collect();
        for h in failed.iter().take(MAX_FAILED_HUNKS) {
            failed_hunk(&mut err, h, pe, o.advice);
        }
        if failed.len() > MAX_FAILED_HUNKS {
            let _ = writeln!(
                err,
                "    ({} more hunks could not be placed; --json lists them all)",
                failed.len() - MAX_FAILED_HUNKS
            );
        }
        // Conflicts once per file, with their count: the lines they are at are lines of the
        // merged result, named only when it was written.
        for c in super::brief::conflict_summary(&f.conflicts, r.written) {
            let _ = writeln!(
                err,
                "    {}",
                pe.paint(Style::Bad, &format!("conflict: {}", o.advice.word(&c)))
            );
        }
        conflict_regions(&mut err, f, pe, o.advice);
        if quiet {
            continue;
        }
        for wa in &super::brief::fold_warnings(&f.warnings) {
            let text = if good {
                format!("warning: {}: {}", f.path, o.advice.word(&wa.message))
            } else {
                format!("    warning: {}", o.advice.word(&wa.message))
            };
            let _ = writeln!(err, "{}", pe.paint(Style::Warn, &text));
        }
    }
    for n in super::brief::fold_notices(&r.notices)
        .iter()
        .filter(|_| !quiet)
    {
        if RESULT_NOTICES.contains(&n.kind) {
            let _ = writeln!(out, "{}", o.advice.word(&n.message));
        } else {
            let _ = writeln!(err, "notice: {}", o.advice.word(&n.message));
        }
    }
    for h in &r.hooks {
        if !quiet || !h.passed() {
            hook(&mut err, h);
        }
    }
    if let Some(o) = &r.omitted {
        let mut parts = Vec::new();
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if o.files > 0 {
            parts.push(plural(o.files, "more file", "more files"));
        }
        if o.hunks > 0 {
            parts.push(plural(o.hunks, "hunk", "hunks"));
        }
        if o.folded > 0 {
            parts.push(format!(
                "{} folded into others",
                plural(o.folded, "notice or warning", "notices and warnings")
            ));
        }
        let _ = writeln!(
            out,
            "brief report: {} left out; {}",
            parts.join(", "),
            o.full
        );
    }
    if let Some(s) = &r.snapshot {
        if !quiet {
            let id = s.rsplit('/').next().unwrap_or(s);
            let advice = if r.undo {
                format!("to take this undo back: git llm-apply undo {id}")
            } else {
                format!("undo with: git llm-apply undo {id}")
            };
            let _ = writeln!(out, "snapshot: {s} ({})", o.advice.word(&advice));
        }
    }
    if r.status == RunStatus::Refused {
        total(&mut err, r, pe);
    } else if !quiet {
        total(&mut out, r, po);
    }
    Rendered {
        stdout: out,
        stderr: err,
    }
}

/// `-v`: per file, the strategies in the order the planner tries them (DESIGN §4) and
/// where each hunk landed.
fn strategies(out: &mut String, r: &Report) {
    use crate::plan::Strategy;
    for f in &r.files {
        if f.status == FileOutcome::Refused {
            let _ = writeln!(
                out,
                "verbose: {}: tried exact, 3way, history-3way, text: none fits",
                f.path
            );
            continue;
        }
        let exact = f.hunks.iter().all(|h| {
            h.status == HunkStatus::Applied
                && h.offset.unwrap_or(0) == 0
                && h.pass
                    .is_none_or(|p| p == crate::text::normalize::Pass::Exact)
        });
        let tried: Vec<String> = match f.strategy {
            Strategy::File => vec!["file: a whole-file operation".into()],
            Strategy::None => vec!["none: refused before any strategy was tried".into()],
            Strategy::GitApply => vec!["git-apply: a binary patch, applied by git".into()],
            Strategy::Exact => vec!["exact: every hunk at its line numbers".into()],
            Strategy::ThreeWay | Strategy::HistoryThreeWay => {
                let base = f
                    .base
                    .as_ref()
                    .map(|b| format!(" against {} {} ({})", b.kind, short(&b.id), b.path))
                    .unwrap_or_default();
                let mut v = vec!["exact: not every hunk at its line numbers".to_string()];
                if f.strategy == Strategy::HistoryThreeWay {
                    v.push("3way: no usable preimage blob".into());
                }
                v.push(format!(
                    "{}: {}{base}",
                    f.strategy.as_str(),
                    if f.status == FileOutcome::Conflicted {
                        "merged with conflicts"
                    } else {
                        "merged cleanly"
                    }
                ));
                v
            }
            Strategy::Text => {
                let mut v = Vec::new();
                if !exact {
                    v.push("exact: not every hunk at its line numbers".to_string());
                    v.push("3way, history-3way: no clean merge (or not needed)".to_string());
                }
                v.push(format!(
                    "text: {}",
                    match f.status {
                        FileOutcome::Refused => "not every hunk placed",
                        _ => "every hunk placed",
                    }
                ));
                v
            }
        };
        let _ = writeln!(out, "verbose: {}: tried {}", f.path, tried.join("; then "));
        for h in &f.hunks {
            let mut bits = vec![match h.status {
                HunkStatus::Applied => "applied",
                HunkStatus::AlreadyApplied => "already applied",
                HunkStatus::Ambiguous => "ambiguous",
                HunkStatus::NotFound => "not found",
                HunkStatus::Conflicted => "conflicted",
            }
            .to_string()];
            if let Some(l) = h.line {
                bits.push(format!("at line {l}"));
            }
            if let Some(p) = h.pass {
                bits.push(format!("pass {}", p.as_str()));
            }
            if let Some(off) = h.offset.filter(|o| *o != 0) {
                bits.push(format!("{off:+} lines from its hint"));
            }
            if let Some(n) = h.occurrences.filter(|n| *n > 1) {
                bits.push(format!("{n} candidate places"));
            }
            let _ = writeln!(out, "verbose:     hunk {}: {}", h.index, bits.join(", "));
        }
    }
}

/// `-v`: the git commands the run started, in order.
pub fn render_commands(commands: &[String]) -> String {
    let mut out = String::new();
    for c in commands {
        let _ = writeln!(out, "verbose: ran {c}");
    }
    out
}

/// An object id as git abbreviates it by default.
fn short(id: &str) -> &str {
    id.get(..7).unwrap_or(id)
}

/// The diff is shown for what was written, and for what `--check` says would be.
/// The diffs the rendering shows, at most `limit` lines per file: one per path written, a
/// rename the plan made as one.
pub fn diffs(r: &Report, limit: Option<usize>) -> Vec<diff::FileDiff> {
    let renames: Vec<(&str, &str)> = r
        .files
        .iter()
        .filter(|f| f.status == FileOutcome::Applied)
        .filter_map(|f| f.old_path.as_deref().map(|o| (o, f.path.as_str())))
        .collect();
    diff::diffs(&r.changes, &renames, limit)
}

fn shows_diff(r: &Report) -> bool {
    r.written || (r.check && matches!(r.status, RunStatus::Checked | RunStatus::Partial))
}

fn file_diff(out: &mut String, d: &FileDiff, p: Palette, advice: Advice) {
    for h in &d.header {
        let _ = writeln!(out, "{}", p.paint(Style::FileHeader, h));
    }
    for h in &d.hunks {
        // `@@ -a,b +c,d @@` in one colour, a function name after it in another, as git does.
        let (frag, func) = match h.header.get(2..).and_then(|t| t.find("@@")) {
            Some(i) => h.header.split_at(i + 4),
            None => (h.header.as_str(), ""),
        };
        // git paints the space before the heading as context, the heading as `func`.
        let heading = match func.strip_prefix(' ') {
            Some(name) => format!(
                "{}{}",
                p.paint(Style::Context, " "),
                p.paint(Style::Func, name)
            ),
            None => p.paint(Style::Func, func).to_string(),
        };
        let _ = writeln!(out, "{}{heading}", p.paint(Style::HunkHeader, frag));
        for l in &h.lines {
            let text = visible_cr(&l.text);
            let line = match l.kind {
                LineKind::Added => {
                    // Trailing whitespace an added line brings is shown, as git shows it.
                    let keep = text.trim_end_matches([' ', '\t']).len().max(1);
                    let (body, tail) = text.split_at(keep.min(text.len()));
                    if p.enabled() && !tail.is_empty() {
                        format!(
                            "{}{}",
                            p.paint(Style::Added, body),
                            p.paint(Style::Whitespace, tail)
                        )
                    } else {
                        p.paint(Style::Added, &text)
                    }
                }
                LineKind::Removed => p.paint(Style::Removed, &text),
                LineKind::Context | LineKind::NoNewline => p.paint(Style::Context, &text),
            };
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(o) = d.omitted {
        let hunks = if o.hunks == 1 { "hunk" } else { "hunks" };
        let _ = writeln!(
            out,
            "{}",
            p.paint(
                Style::Context,
                &format!(
                    "... {} more diff lines in {} {hunks} not shown ({})",
                    o.lines,
                    o.hunks,
                    advice.word("--full-diff shows them")
                )
            )
        );
    }
}

/// A lone CR inside a line would move the terminal's cursor; show it instead.
fn visible_cr(s: &str) -> String {
    if s.contains('\r') {
        s.replace('\r', "\\r")
    } else {
        s.to_string()
    }
}

fn file_line(out: &mut String, f: &FileReport, r: &Report, p: Palette) {
    let (check, undo, reverse) = (r.check, r.undo, r.reverse);
    let (letter, style) = match f.status {
        FileOutcome::Refused => ("!", Style::Bad),
        FileOutcome::Skipped => ("-", Style::Dim),
        FileOutcome::AlreadyApplied => ("=", Style::Dim),
        FileOutcome::Conflicted => ("U", Style::Bad),
        FileOutcome::Applied => (
            match f.op {
                FileOp::Create => "A",
                FileOp::Delete => "D",
                FileOp::Rename => "R",
                FileOp::Copy => "C",
                FileOp::Modify => "M",
            },
            Style::Good,
        ),
    };
    let path = match &f.old_path {
        Some(o) => format!("{o} -> {}", f.path),
        None => f.path.clone(),
    };
    let counts = format!(" (+{} -{})", f.added, f.removed);
    let how = match f.pass {
        Some(ps) if ps != crate::text::normalize::Pass::Exact => {
            format!("{}:{}", f.strategy.as_str(), ps.as_str())
        }
        _ => f.strategy.as_str().to_string(),
    };
    let mode = f
        .mode_change
        .as_ref()
        .map(|m| format!(" mode {} -> {}", m.old, m.new))
        .unwrap_or_default();
    // An undo's paths are restored from its snapshot; only a merge that kept later edits
    // says how.
    let restored = match f.strategy {
        crate::plan::Strategy::File => "restored".to_string(),
        _ => format!("restored via {how}"),
    };
    let tail = match f.status {
        FileOutcome::Applied if undo && check => format!("{counts}{mode} would be {restored}"),
        FileOutcome::Applied if undo => format!("{counts}{mode} {restored}"),
        FileOutcome::AlreadyApplied if undo => " already restored".to_string(),
        FileOutcome::Applied if check => format!("{counts}{mode} would apply via {how}"),
        FileOutcome::Applied => format!("{counts}{mode} via {how}"),
        FileOutcome::AlreadyApplied if reverse => " already reverted".to_string(),
        FileOutcome::AlreadyApplied => " already applied".to_string(),
        FileOutcome::Conflicted => format!("{counts} conflicted via {how}"),
        FileOutcome::Refused => " refused".to_string(),
        FileOutcome::Skipped => " skipped".to_string(),
    };
    let _ = writeln!(out, "{} {path}{tail}", p.paint(style, letter));
}

/// A hook's verdict and what it printed (stdout, then stderr), indented under it; a hook
/// that passed quietly is not mentioned.
fn hook(out: &mut String, h: &HookReport) {
    let quiet = h.stdout.trim().is_empty() && h.stderr.trim().is_empty();
    if h.passed() && quiet {
        return;
    }
    let _ = writeln!(out, "{}{}", h.message, if quiet { "" } else { ":" });
    for line in h.stdout.lines().chain(h.stderr.lines()) {
        let _ = writeln!(out, "    {line}");
    }
}

/// Line numbers, the first few of them, and how many more.
fn listed(lines: &[usize]) -> String {
    let mut s = lines
        .iter()
        .take(MAX_LISTED)
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if lines.len() > MAX_LISTED {
        let _ = write!(s, " and {} more", lines.len() - MAX_LISTED);
    }
    s
}

/// A failed hunk: its one-line verdict, then its diagnostic (at most 40 lines in all).
fn failed_hunk(out: &mut String, h: &HunkResult, p: Palette, advice: Advice) {
    let at = h
        .hint
        .map(|l| format!(" (@@ hint: line {l})"))
        .unwrap_or_default();
    let verdict = match h.status {
        HunkStatus::Ambiguous => format!(
            "ambiguous: the hunk fits at {} places (lines {}) and nothing decides between them",
            h.candidates.len(),
            listed(&h.candidates)
        ),
        _ => format!("not found: {}", h.reason.as_deref().unwrap_or("")),
    };
    let _ = writeln!(
        out,
        "    {}",
        p.paint(Style::Bad, &format!("hunk {}{at}: {verdict}", h.index))
    );
    if let Some(d) = &h.diagnostic {
        diagnostic(out, h, d, p, advice);
    }
}

const IN: &str = "      ";

fn diagnostic(out: &mut String, h: &HunkResult, d: &Diagnostic, p: Palette, advice: Advice) {
    // Where the search started, unless the verdict's `@@ hint` already says it all.
    let mut searched = match (d.searched_from, h.hint) {
        (Some(s), Some(hint)) if s != hint => Some(format!(
            "searched from line {s} (the @@ hint moved by earlier hunks' offsets)"
        )),
        (Some(s), None) => Some(format!("searched from line {s}")),
        (Some(_), Some(_)) => None,
        (None, _) => Some("no line numbers: searched the whole file".to_string()),
    };
    if let Some(a) = &d.anchor {
        let s = searched.get_or_insert_with(String::new);
        if !s.is_empty() {
            s.push_str(", ");
        }
        let _ = write!(s, "anchor: {}", visible(a, false));
    }
    if let Some(s) = searched {
        let _ = writeln!(out, "{IN}{}", p.paint(Style::Dim, &s));
    }

    if !d.expected.is_empty() {
        let _ = writeln!(out, "{IN}expected ({} lines):", d.expected_lines);
        numbered(out, d.expected.iter().map(|l| (l.line, l.text.as_str())), p);
    }
    if let Some(c) = &d.closest {
        let _ = writeln!(
            out,
            "{IN}closest in the file: lines {}-{} ({} of {} lines alike)",
            c.start, c.end, c.matched, d.expected_lines
        );
        numbered(out, c.lines.iter().map(|l| (l.line, l.text.as_str())), p);
        for x in &c.differences {
            difference(out, x, p);
        }
        let more = c.difference_count.saturating_sub(c.differences.len());
        if more > 0 {
            let _ = writeln!(out, "{IN}({more} more differing lines)");
        }
    }
    for f in d.findings.iter().take(3) {
        let line = match f {
            // The verdict line already lists the places.
            Finding::Ambiguous { .. } => continue,
            Finding::AlreadyApplied {
                line,
                matched,
                total,
            } => format!(
                "looks already applied: {matched} of the {total} lines of its result are at line {line}"
            ),
            Finding::OutOfOrder {
                line,
                previous_hunk,
                previous_line,
            } => format!(
                "out of file order: it belongs at line {line}, before hunk {previous_hunk} (line {previous_line}); send hunks in file order"
            ),
            Finding::Overlaps { line, hunk } => {
                format!("its lines are at line {line}, which hunk {hunk} already changes")
            }
            Finding::NotAtEnd { line } => format!(
                "its lines are at line {line}, but the hunk must end at the end of the file"
            ),
            Finding::NotAtStart { line } => format!(
                "its lines are at line {line}, but the hunk must start at the top of the file"
            ),
            Finding::NoLines => "none of its distinctive lines is anywhere in the file".into(),
            Finding::InOtherFile { path, line } => {
                format!("none of its lines is in this file, but they are in {path} at line {line}")
            }
        };
        let _ = writeln!(out, "{IN}{}", p.paint(Style::Warn, &line));
    }
    let _ = writeln!(out, "{IN}advice: {}", advice.word(&d.advice));
}

/// Failed hunks whose diagnostics a file shows; the rest are counted.
const MAX_FAILED_HUNKS: usize = 10;

/// Regions shown in full; the rest are counted.
const MAX_REGIONS: usize = 2;

/// Both sides of the first conflicting regions, then one line of advice.
fn conflict_regions(out: &mut String, f: &FileReport, p: Palette, advice: Advice) {
    if f.conflict_regions.is_empty() {
        return;
    }
    let count = |n: usize| match n {
        0 => "nothing".to_string(),
        1 => "1 line".to_string(),
        n => format!("{n} lines"),
    };
    for c in f.conflict_regions.iter().take(MAX_REGIONS) {
        let colon = if c.ours.is_empty() { "" } else { ":" };
        let _ = writeln!(out, "{IN}the file has {} there{colon}", count(c.ours_lines));
        numbered(out, c.ours.iter().map(|l| (l.line, l.text.as_str())), p);
        let _ = writeln!(
            out,
            "{IN}the patch wants {} instead:",
            count(c.theirs_lines)
        );
        numbered(out, c.theirs.iter().map(|l| (l.line, l.text.as_str())), p);
    }
    let more = f.conflict_regions.len().saturating_sub(MAX_REGIONS);
    if more > 0 {
        let _ = writeln!(out, "{IN}({more} more conflicting regions)");
    }
    let _ = writeln!(
        out,
        "{IN}advice: the file changed these lines since the patch was made: re-read {} there and resend the change against what it has now ({})",
        f.path,
        advice.word("--partial writes the markers")
    );
}

fn numbered<'a>(out: &mut String, lines: impl Iterator<Item = (usize, &'a str)>, p: Palette) {
    let lines: Vec<(usize, &str)> = lines.collect();
    let width = lines
        .iter()
        .map(|(n, _)| n.to_string().len())
        .max()
        .unwrap_or(1);
    let mut prev: Option<usize> = None;
    for (n, text) in lines {
        // A gap in the numbering is a cut; the numbers say where.
        let gap = prev.is_some_and(|q| n > q + 1);
        let mark = if gap { ":" } else { "|" };
        prev = Some(n);
        let number = p.paint(Style::Dim, &format!("{n:>width$} {mark}"));
        let text = visible(text, false);
        if text.is_empty() {
            let _ = writeln!(out, "{IN}  {number}");
        } else {
            let _ = writeln!(out, "{IN}  {number} {text}");
        }
    }
}

fn difference(out: &mut String, x: &Difference, p: Palette) {
    let mut at = Vec::new();
    if let Some(h) = x.hunk_line {
        at.push(format!("hunk line {h}"));
    }
    if let Some(f) = x.file_line {
        at.push(format!("file line {f}"));
    }
    let column = x
        .column
        .map(|c| format!(" from column {c}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{IN}{}: {}{column}",
        at.join(", "),
        p.paint(Style::Warn, x.kind.describe())
    );
    let blank = matches!(
        x.kind,
        DifferenceKind::MissingBlankLine | DifferenceKind::ExtraBlankLine
    );
    if blank {
        return;
    }
    if let Some(e) = &x.expected {
        let _ = writeln!(
            out,
            "{IN}  expected: {}",
            p.paint(Style::Removed, &format!("\"{}\"", visible(e, true)))
        );
    }
    if let Some(a) = &x.actual {
        let _ = writeln!(
            out,
            "{IN}  actual:   {}",
            p.paint(Style::Added, &format!("\"{}\"", visible(a, true)))
        );
    }
}

fn total(out: &mut String, r: &Report, p: Palette) {
    let s = &r.summary;
    let files = |n: usize| {
        if n == 1 {
            "1 file".to_string()
        } else {
            format!("{n} files")
        }
    };
    let line = match r.status {
        RunStatus::Applied if r.undo => {
            format!("Restored {} (+{} -{})", files(s.files), s.added, s.removed)
        }
        RunStatus::AlreadyApplied if r.undo => {
            "Nothing to undo: every path already holds its pre-apply content".to_string()
        }
        RunStatus::Checked if r.undo => format!(
            "Check passed: would restore {} (+{} -{}); nothing written",
            files(s.files),
            s.added,
            s.removed
        ),
        RunStatus::Applied => format!("Applied {} (+{} -{})", files(s.files), s.added, s.removed),
        RunStatus::AlreadyApplied if r.reverse => "Already reverted: nothing to do".to_string(),
        RunStatus::AlreadyApplied => "Already applied: nothing to do".to_string(),
        // Every file was there already: the check found nothing to write.
        RunStatus::Checked
            if !r.files.is_empty()
                && r.files
                    .iter()
                    .all(|f| f.status == FileOutcome::AlreadyApplied) =>
        {
            format!(
                "Check passed: already {}, nothing to do; nothing written",
                if r.reverse { "reverted" } else { "applied" }
            )
        }
        RunStatus::Checked => format!(
            "Check passed: would apply {} (+{} -{}); nothing written",
            files(s.files),
            s.added,
            s.removed
        ),
        RunStatus::Partial => format!(
            "Partially applied {} (+{} -{}); the others were not",
            files(s.files),
            s.added,
            s.removed
        ),
        RunStatus::Refused => {
            let bad = r
                .files
                .iter()
                .filter(|f| matches!(f.status, FileOutcome::Refused | FileOutcome::Conflicted))
                .count();
            if bad == 0 && !r.errors.is_empty() {
                // Every file fit: the refusal is the gate's or a hook's, said above.
                if r.check {
                    "Check failed: the apply would be refused (see above)".to_string()
                } else {
                    "Refused: nothing was written (see above)".to_string()
                }
            } else if r.check {
                format!(
                    "Check failed: {bad} of {} file(s) would not apply",
                    r.files.len()
                )
            } else {
                format!(
                    "Refused: nothing was written ({bad} of {} file(s) could not be applied)",
                    r.files.len()
                )
            }
        }
        RunStatus::Error | RunStatus::Busy | RunStatus::Planned => return,
    };
    let _ = writeln!(out, "{}", p.paint(Style::Strong, &line));
}

/// The `log` listing: one line per snapshot, newest first —
/// `<id>  <time>  <status>  <files> (+a -r)  <intent>`.
/// Its notices (a recovered apply) go to standard error, as the apply report's do.
pub fn render_log(log: &super::log::LogReport, verbosity: Verbosity, advice: Advice) -> Rendered {
    use super::log::LogStatus;
    let mut out = String::new();
    let mut err = String::new();
    for n in log.notices.iter().filter(|_| verbosity != Verbosity::Quiet) {
        let _ = writeln!(err, "notice: {}", advice.word(&n.message));
    }
    if log.snapshots.is_empty() {
        if verbosity != Verbosity::Quiet {
            let _ = writeln!(
                out,
                "No applies recorded (every apply records one unless --no-snapshot is given)"
            );
        }
        return Rendered {
            stdout: out,
            stderr: err,
        };
    }
    let width = log
        .snapshots
        .iter()
        .map(|e| e.id.to_string().len())
        .max()
        .unwrap_or(1);
    for e in &log.snapshots {
        let status = match e.status {
            LogStatus::Applied => "applied",
            LogStatus::Undone => "undone",
            LogStatus::Undo => "undo",
        };
        let files = if e.files == 1 {
            "1 file".to_string()
        } else {
            format!("{} files", e.files)
        };
        let what = match (e.undoes, &e.intent) {
            (_, Some(i)) => i.clone(),
            (Some(u), None) => format!("undo of {u}"),
            (None, None) => format!("({})", e.paths.join(", ")),
        };
        // Another worktree's snapshot says whose it is: it is undone there.
        let whose = match (&e.worktree, e.this_worktree) {
            (Some(w), false) => format!("  [worktree {w}]"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{id:>width$}  {time}  {status:<7}  {files} (+{added} -{removed})  {what}{whose}",
            id = e.id,
            time = e.time.replacen('T', " ", 1),
            added = e.added,
            removed = e.removed,
        );
    }
    Rendered {
        stdout: out,
        stderr: err,
    }
}

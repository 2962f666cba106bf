//! Bounded reports: notices and warnings of one kind folded into one with a count, and the
//! brief form of a report (the MCP server's default) that fits in a few KB whatever the
//! patch's size, with what it left out counted and the way to the full report named.

use schemars::JsonSchema;
use serde::Serialize;

use super::{FileOutcome, Report};
use crate::patch::Notice;
use crate::plan::diagnose::Warning;
use crate::plan::HunkStatus;

/// What a brief report left out, and how to get the full one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Omitted {
    /// Files of the run not listed.
    pub files: usize,
    /// Hunks not listed (of the files listed): applied ones, and failed ones past the first.
    pub hunks: usize,
    /// Notices and warnings folded into others of their kind.
    pub folded: usize,
    /// How to get the full report.
    pub full: String,
}

/// Notices of one kind (and path) as one: the first's message, with how many more there were.
pub fn fold_notices(notices: &[Notice]) -> Vec<Notice> {
    let mut out: Vec<(Notice, usize)> = Vec::new();
    for n in notices {
        match out
            .iter_mut()
            .find(|(o, _)| o.kind == n.kind && o.path == n.path)
        {
            Some((_, count)) => *count += 1,
            None => out.push((n.clone(), 1)),
        }
    }
    out.into_iter()
        .map(|(mut n, count)| {
            if count > 1 {
                n.message = format!("{} (and {} more like it)", n.message, count - 1);
            }
            n
        })
        .collect()
}

/// Warnings of one kind as one, the same way.
pub fn fold_warnings(warnings: &[Warning]) -> Vec<Warning> {
    let mut out: Vec<(Warning, usize)> = Vec::new();
    for w in warnings {
        match out.iter_mut().find(|(o, _)| o.kind == w.kind) {
            Some((_, count)) => *count += 1,
            None => out.push((w.clone(), 1)),
        }
    }
    out.into_iter()
        .map(|(mut w, count)| {
            if count > 1 {
                w.message = format!("{} (and {} more hunks like it)", w.message, count - 1);
                w.hunk = None;
            }
            w
        })
        .collect()
}

/// What the merge says of each conflict region: the lines of the merged result it is at.
const MARKERS: &str = "conflict markers at lines";

/// The conflicts of a file, once per file with their count: the regions of a merge as one
/// line, naming where they are only when the merge was written (they are lines of its
/// result); other conflicts (an undo's reasons) as they are, the first few.
pub fn conflict_summary(conflicts: &[String], written: bool) -> Vec<String> {
    const SHOWN: usize = 3;
    let (regions, other): (Vec<&String>, Vec<&String>) =
        conflicts.iter().partition(|c| c.starts_with(MARKERS));
    let mut out: Vec<String> = other.iter().take(SHOWN).map(|c| c.to_string()).collect();
    if other.len() > SHOWN {
        out.push(format!("and {} more conflicts", other.len() - SHOWN));
    }
    let n = regions.len();
    match n {
        0 => {}
        1 if written => out.push(regions[0].clone()),
        _ if written => {
            let at: Vec<&str> = regions
                .iter()
                .take(SHOWN)
                .map(|c| c[MARKERS.len()..].trim())
                .collect();
            let mut s = format!("{n} conflicting regions, marked at lines {}", at.join(", "));
            if n > SHOWN {
                s.push_str(&format!(" and {} more", n - SHOWN));
            }
            out.push(s);
        }
        1 => out.push(
            "1 region where the file and the patch change the same lines (nothing written)".into(),
        ),
        _ => out.push(format!(
            "{n} regions where the file and the patch change the same lines (nothing written)"
        )),
    }
    out
}

/// How much a brief report keeps, loosest first: files, failed hunks per file, notices and
/// warnings per kind, and whether the diff of the files kept is shown.
const LEVELS: [(usize, usize, usize, bool); 5] = [
    (10, 3, 3, true),
    (10, 3, 3, false),
    (5, 1, 2, false),
    (3, 1, 1, false),
    (1, 0, 1, false),
];
/// Characters kept of one message.
const MAX_MESSAGE: usize = 600;

/// The brief form of `r` whose rendering fits in `budget` bytes, or the tightest form there
/// is, with that form's rendering: `render` renders a form and says how many bytes it comes
/// to, so that the form returned is rendered once. `full` names the call for the full report.
pub fn brief<T>(
    r: &Report,
    budget: usize,
    full: &str,
    render: impl Fn(&Report) -> (usize, T),
) -> (Report, T) {
    let mut last = None;
    for (files, hunks, items, diff) in LEVELS {
        let mut b = cut(r, files, hunks, items, full);
        // The diff is shown from the changes, of the files kept only.
        if diff {
            b.changes
                .retain(|c| b.files.iter().any(|f| f.path == c.path));
        } else {
            b.changes.clear();
        }
        let (size, rendered) = render(&b);
        if size <= budget {
            return (b, rendered);
        }
        last = Some((b, rendered));
    }
    last.expect("there is at least one level")
}

fn short(s: &str) -> String {
    match s.char_indices().nth(MAX_MESSAGE) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_string(),
    }
}

fn cut(r: &Report, max_files: usize, max_hunks: usize, max_items: usize, full: &str) -> Report {
    let mut b = r.clone();
    let mut folded = 0;
    let mut omitted_hunks = 0;
    // Failed files first, then the others, each group in the run's order.
    let failed = |s: FileOutcome| !matches!(s, FileOutcome::Applied | FileOutcome::AlreadyApplied);
    let mut order: Vec<usize> = (0..r.files.len())
        .filter(|&i| failed(r.files[i].status))
        .collect();
    order.extend((0..r.files.len()).filter(|&i| !failed(r.files[i].status)));
    let mut keep: Vec<usize> = order.into_iter().take(max_files).collect();
    keep.sort_unstable();
    let omitted_files = r.files.len() - keep.len();
    b.files = keep.into_iter().map(|i| r.files[i].clone()).collect();
    for f in &mut b.files {
        let total = f.hunks.len();
        f.hunks
            .retain(|h| !matches!(h.status, HunkStatus::Applied | HunkStatus::AlreadyApplied));
        f.hunks.truncate(max_hunks);
        omitted_hunks += total - f.hunks.len();
        let warnings = fold_warnings(&f.warnings);
        folded += f.warnings.len() - warnings.len();
        f.warnings = warnings;
        f.warnings.truncate(max_items);
        for w in &mut f.warnings {
            w.message = short(&w.message);
        }
        f.problems.truncate(max_items);
        f.conflicts = conflict_summary(&f.conflicts, r.written);
        // Their `start`/`end` are lines of the merged result: kept only when it was written.
        if !r.written {
            f.conflict_regions.clear();
        }
        f.conflict_regions.truncate(1);
    }
    let notices = fold_notices(&r.notices);
    folded += r.notices.len() - notices.len();
    b.notices = notices;
    b.notices.truncate(max_items.max(1) * 3);
    for n in &mut b.notices {
        n.message = short(&n.message);
    }
    b.errors.truncate(max_items.max(1) * 2);
    for e in &mut b.errors {
        e.message = short(&e.message);
    }
    if omitted_files + omitted_hunks + folded > 0 {
        b.omitted = Some(Box::new(Omitted {
            files: omitted_files,
            hunks: omitted_hunks,
            folded,
            full: full.to_string(),
        }));
    }
    b
}

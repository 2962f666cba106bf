//! The human rendering of a Report: one line per file, its problems, then a total.

use std::fmt::Write as _;

use super::hooks::HookReport;
use super::{FileOutcome, FileReport, Report, RunStatus};
use crate::patch::FileOp;
use crate::plan::HunkStatus;

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    for e in &r.errors {
        let _ = writeln!(out, "error: {}", e.message);
    }
    for f in &r.files {
        file_line(&mut out, f, r.check);
        for p in &f.problems {
            let _ = writeln!(out, "    {p}");
        }
        for h in &f.hunks {
            if matches!(h.status, HunkStatus::Ambiguous | HunkStatus::NotFound) {
                let what = match h.status {
                    HunkStatus::Ambiguous => "ambiguous",
                    _ => "not found",
                };
                let at = h
                    .hint
                    .map(|l| format!(" (@@ hint: line {l})"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "    hunk {}{at}: {what}: {}",
                    h.index,
                    h.reason.as_deref().unwrap_or("")
                );
            }
        }
        for c in &f.conflicts {
            let _ = writeln!(out, "    conflict: {c}");
        }
        for w in &f.warnings {
            let _ = writeln!(out, "    warning: {w}");
        }
    }
    for n in &r.notices {
        let _ = writeln!(out, "notice: {}", n.message);
    }
    for h in &r.hooks {
        hook(&mut out, h);
    }
    if let Some(s) = &r.snapshot {
        let id = s.rsplit('/').next().unwrap_or(s);
        let _ = writeln!(out, "snapshot: {s} (undo with: git llm-apply undo {id})");
    }
    total(&mut out, r);
    out
}

fn file_line(out: &mut String, f: &FileReport, check: bool) {
    let letter = match f.status {
        FileOutcome::Refused => "!",
        FileOutcome::Skipped => "-",
        FileOutcome::AlreadyApplied => "=",
        FileOutcome::Conflicted => "U",
        FileOutcome::Applied => match f.op {
            FileOp::Create => "A",
            FileOp::Delete => "D",
            FileOp::Rename => "R",
            FileOp::Copy => "C",
            FileOp::Modify => "M",
        },
    };
    let path = match &f.old_path {
        Some(o) => format!("{o} -> {}", f.path),
        None => f.path.clone(),
    };
    let counts = format!(" (+{} -{})", f.added, f.removed);
    let how = match f.pass {
        Some(p) if p != crate::plan::normalize::Pass::Exact => {
            format!("{}:{}", f.strategy.as_str(), p.as_str())
        }
        _ => f.strategy.as_str().to_string(),
    };
    let mode = f
        .mode_change
        .as_ref()
        .map(|m| format!(" mode {} -> {}", m.old, m.new))
        .unwrap_or_default();
    let tail = match f.status {
        FileOutcome::Applied if check => format!("{counts}{mode} would apply via {how}"),
        FileOutcome::Applied => format!("{counts}{mode} via {how}"),
        FileOutcome::AlreadyApplied => " already applied".to_string(),
        FileOutcome::Conflicted => format!("{counts} conflicted via {how}"),
        FileOutcome::Refused => " refused".to_string(),
        FileOutcome::Skipped => " skipped".to_string(),
    };
    let _ = writeln!(out, "{letter} {path}{tail}");
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

fn total(out: &mut String, r: &Report) {
    let s = &r.summary;
    let files = |n: usize| {
        if n == 1 {
            "1 file".to_string()
        } else {
            format!("{n} files")
        }
    };
    let line = match r.status {
        RunStatus::Applied => format!("Applied {} (+{} -{})", files(s.files), s.added, s.removed),
        RunStatus::AlreadyApplied => "Already applied: nothing to do".to_string(),
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
        RunStatus::Error | RunStatus::Planned => return,
    };
    let _ = writeln!(out, "{line}");
}

/// The `log` listing: one line per snapshot, newest first —
/// `<id>  <time>  <status>  <files> (+a -r)  <intent>`.
pub fn render_log(log: &super::log::LogReport) -> String {
    use super::log::LogStatus;
    let mut out = String::new();
    for n in &log.notices {
        let _ = writeln!(out, "notice: {}", n.message);
    }
    if log.snapshots.is_empty() {
        let _ = writeln!(
            out,
            "No applies recorded (every apply records one unless --no-snapshot is given)"
        );
        return out;
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
        let _ = writeln!(
            out,
            "{id:>width$}  {time}  {status:<7}  {files} (+{added} -{removed})  {what}",
            id = e.id,
            time = e.time.replacen('T', " ", 1),
            added = e.added,
            removed = e.removed,
        );
    }
    out
}

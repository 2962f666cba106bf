//! `git llm-apply [PATCH]...`: read, parse, plan, gate, write, report.

use std::path::PathBuf;

use super::args::{ApplyArgs, FormatArg, UndoArgs};
use super::session::{self, Session, SnapshotRequest};
use super::{undo, Outcome};
use crate::gate::{self, Verdict};
use crate::patch::{Format, Notice, Patch};
use crate::plan::{self, Plan};
use crate::repo::{Repo, WorkTree};
use crate::report::{ErrorReport, Report, RunStatus};
use crate::snapshot::PatchDigest;
use crate::{input, parse, snapshot, write};

pub fn run(args: ApplyArgs, dir: Option<PathBuf>) -> Outcome {
    let ApplyArgs {
        patches,
        check,
        json,
        partial,
        format,
        revert,
        index,
        no_snapshot,
        force,
    } = args;
    if revert && patches.is_empty() {
        if partial || index || no_snapshot || format != FormatArg::Auto {
            let report = *fail(
                "usage",
                "--revert without PATCH rolls back the most recent apply; of the apply options \
                 only --check, --json and --force go with it",
            );
            return Outcome::run(report, json);
        }
        // `--revert` without a patch rolls back the most recent apply: that is `undo`.
        let args = UndoArgs {
            id: None,
            force,
            check,
            json,
        };
        return undo::run(args, dir);
    }
    if force {
        let report = *fail(
            "usage",
            "--force only applies to undoing (--revert without PATCH, or undo)",
        );
        return Outcome::run(report, json);
    }
    let report = match apply(
        &patches,
        check,
        partial,
        format,
        revert,
        index,
        no_snapshot,
        dir,
    ) {
        Ok(r) => r,
        Err(r) => *r,
    };
    Outcome::run(report, json)
}

fn fail(kind: &str, message: impl Into<String>) -> Box<Report> {
    Box::new(Report::error(kind, message))
}

// Each flag is passed on by name from the destructured args (STYLE habit 2), so a new flag
// shows up here rather than hiding in a bundle.
#[allow(clippy::too_many_arguments)]
fn apply(
    patches: &[String],
    check: bool,
    partial: bool,
    format: FormatArg,
    revert: bool,
    index: bool,
    no_snapshot: bool,
    dir: Option<PathBuf>,
) -> Result<Report, Box<Report>> {
    if index && repo_required(&dir) {
        return Err(fail("usage", "--index needs a git repository"));
    }
    let cwd = match dir {
        Some(d) => {
            if !d.is_dir() {
                return Err(fail(
                    "usage",
                    format!("cannot change to '{}': not a directory", d.display()),
                ));
            }
            d
        }
        None => std::env::current_dir()
            .map_err(|e| fail("io", format!("cannot read the current directory: {e}")))?,
    };
    let repo = Repo::discover(&cwd).map_err(|e| fail("repository", e.to_string()))?;
    // Before anything else: the lock, and the recovery of an interrupted apply.
    let records = !check && !no_snapshot;
    let session = repo
        .as_ref()
        .map(|r| session::open(r, records))
        .transpose()?;
    let mut extra_notices = session
        .as_ref()
        .map(|s| s.notices.clone())
        .unwrap_or_default();
    let root = match &repo {
        Some(r) => r.work_dir.clone(),
        None => {
            extra_notices.push(Notice::new(
                "not-a-repository",
                "not inside a git repository: text-level strategies only, no snapshot",
            ));
            cwd.clone()
        }
    };
    let wt = WorkTree::new(&root);
    let inputs = input::read(patches, &cwd).map_err(|e| fail("input", e.to_string()))?;
    let forced = match format {
        FormatArg::Auto => None,
        FormatArg::Unified => Some(Format::Unified),
        FormatArg::Codex => Some(Format::Codex),
        FormatArg::SearchReplace => Some(Format::SearchReplace),
    };
    let mut combined: Option<Patch> = None;
    for inp in &inputs {
        let p = parse::parse(&inp.text, forced, &wt).map_err(|e| {
            let prefix = if inputs.len() > 1 || inp.name != "<stdin>" {
                format!("{}: ", inp.name)
            } else {
                String::new()
            };
            fail("parse", format!("{prefix}{e}"))
        })?;
        match &mut combined {
            None => combined = Some(p),
            Some(c) => {
                c.files.extend(p.files);
                c.notices.extend(p.notices);
            }
        }
    }
    let original = combined.expect("at least one input was read");
    let mut patch = if revert {
        original.reversed()
    } else {
        original.clone()
    };
    patch.notices.extend(extra_notices);
    let request = SnapshotRequest {
        patch_sha256: PatchDigest::of(
            inputs
                .iter()
                .map(|i| i.text.as_str())
                .collect::<String>()
                .as_bytes(),
        ),
        intent: inputs.iter().find_map(|i| input::intent(&i.text)),
        undoes: None,
    };
    let record = match &session {
        Some(s) if !no_snapshot => Some((s, &request)),
        _ => None,
    };

    let git3 = repo.as_ref().map(|repo| plan::three_way::GitThreeWay {
        repo,
        originals: &original.files,
        reverse: revert,
    });
    // Strategy 3 after strategy 2: a base from history, ghost snapshots included.
    let states = repo.as_ref().map(|repo| snapshot::SnapshotStates { repo });
    let history = match &repo {
        Some(repo) => Some(plan::history::History {
            repo,
            depth: plan::history::depth_from_config(repo)
                .map_err(|e| fail("config", e.to_string()))?,
            recorded: states
                .as_ref()
                .map(|s| s as &dyn plan::history::RecordedStates),
        }),
        None => None,
    };
    let opts = plan::Options {
        three_way: git3.as_ref().map(|g| g as &dyn plan::ThreeWay),
        history: history.as_ref().map(|h| h as &dyn plan::ThreeWay),
    };
    let plan = plan::plan(&patch, &wt, &opts)
        .map_err(|e| fail("io", format!("reading the work tree failed: {e}")))?;
    let mut report = decide_and_write(&plan, patch.format, check, partial, revert, &root, record);
    if index && report.written {
        let paths: Vec<&str> = plan.changes.iter().map(|c| c.path.as_str()).collect();
        if let Err(message) = write::stage(&root, &paths) {
            report.errors.push(ErrorReport {
                kind: "index".into(),
                message,
            });
        }
    }
    Ok(report)
}

/// Whether the directory we run in lies outside every repository.
fn repo_required(dir: &Option<PathBuf>) -> bool {
    let here = dir.clone().or_else(|| std::env::current_dir().ok());
    here.is_some_and(|d| matches!(Repo::discover(&d), Ok(None)))
}

/// The one place where a plan's outcome becomes a run status and an exit code (DESIGN §2).
fn decide_and_write(
    plan: &Plan,
    format: Format,
    check: bool,
    partial: bool,
    revert: bool,
    root: &std::path::Path,
    record: Option<(&Session, &SnapshotRequest)>,
) -> Report {
    let all_ok = plan.all_ok();
    let nothing_to_write = plan.changes.is_empty();
    let (status, code, write_it) = if check {
        if all_ok {
            (RunStatus::Checked, 0, false)
        } else if partial && !nothing_to_write {
            (RunStatus::Partial, 3, false)
        } else {
            (RunStatus::Refused, 1, false)
        }
    } else if all_ok {
        if nothing_to_write {
            (RunStatus::AlreadyApplied, 0, false)
        } else {
            (RunStatus::Applied, 0, true)
        }
    } else if partial && !nothing_to_write {
        (RunStatus::Partial, 3, true)
    } else {
        (RunStatus::Refused, 1, false)
    };
    let mut report = Report::from_plan(plan, format, status, code, false);
    report.check = check;
    report.reverse = revert;
    if !write_it {
        return report;
    }
    match gate::approve(plan) {
        Verdict::Vetoed { reason } => {
            let mut r = Report::from_plan(plan, format, RunStatus::Refused, 1, false);
            r.errors.push(ErrorReport {
                kind: "veto".into(),
                message: reason,
            });
            r
        }
        Verdict::Approved(token) => match session::write(root, &token, record, &report.summary) {
            Ok(done) => {
                report.written = true;
                report.snapshot = done.snapshot.map(|id| id.ref_name());
                report.notices.extend(done.notices);
                report
            }
            Err(message) => {
                let mut r = Report::from_plan(plan, format, RunStatus::Refused, 1, false);
                r.errors.push(ErrorReport {
                    kind: "write".into(),
                    message,
                });
                r
            }
        },
    }
}

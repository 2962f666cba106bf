//! `git llm-apply hooks list|install [NAME...] [--force]`, and the small helpers the
//! ready-made hook scripts call (`plan-paths`, `plan-size`) so that they need no JSON parser.
//!
//! Layout in the hooks directory: `pre-llm-apply` and `post-llm-apply` are a dispatcher that
//! runs every executable in `pre-llm-apply.d/` (or `post-llm-apply.d/`) in name order, and the
//! ready-made hooks are installed there. A hook of the user's own found where the dispatcher
//! goes is never replaced: `--force` moves it into the `.d/` directory, so it keeps running.

use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};

use super::args::HooksCommand;
use super::Outcome;
use crate::gate::hooks::{hooks_dir, HookError, HookKind};
use crate::repo::{Repo, RepoError};
use crate::report::kinds::{ErrorKind, Kinded};
use crate::report::RunStatus;

/// Why the hooks directory could not be found, or a hook could not be installed.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum HooksError {
    #[error("cannot read the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error("{} is not inside a git repository", .0.display())]
    NotARepository(PathBuf),
    #[error(transparent)]
    HooksDir(#[from] HookError),
    #[error("cannot chmod {}: {source}", path.display())]
    Chmod {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot move {} to {}: {source}", from.display(), to.display())]
    Move {
        from: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write in {}: {source}", dir.display())]
    TempFile {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Kinded for HooksError {
    fn kind(&self) -> ErrorKind {
        match self {
            HooksError::Repo(_) | HooksError::NotARepository(_) => ErrorKind::Repository,
            HooksError::HooksDir(e) => e.kind(),
            _ => ErrorKind::Io,
        }
    }
}

/// A hook shipped in the binary (the files under `hooks/` in the repository).
struct Ready {
    name: &'static str,
    kind: HookKind,
    summary: &'static str,
    script: &'static str,
}

const READY: [Ready; 3] = [
    Ready {
        name: "path-policy",
        kind: HookKind::Pre,
        summary: "refuses protected paths (llm-apply.protect) and oversized patches (llm-apply.maxFiles, llm-apply.maxLines)",
        script: include_str!("../../hooks/path-policy"),
    },
    Ready {
        name: "fetch-missing-blobs",
        kind: HookKind::Pre,
        summary: "in shallow and partial clones, fetches the preimage blobs the patch names, so the 3-way merge can run",
        script: include_str!("../../hooks/fetch-missing-blobs"),
    },
    Ready {
        name: "verify",
        kind: HookKind::Post,
        summary: "runs llm-apply.verifyCommand and fails with its output (with --verify: rolls back)",
        script: include_str!("../../hooks/verify"),
    },
];

/// The ready-made hooks' names, for the completions.
pub const READY_NAMES: [&str; READY.len()] = [READY[0].name, READY[1].name, READY[2].name];

/// The dispatcher installed as `pre-llm-apply` / `post-llm-apply`.
const DISPATCHER: &str = include_str!("../../hooks/dispatch");
/// A line every version of the dispatcher carries: how an older one of ours is recognised.
const DISPATCHER_MARK: &str = "# git-llm-apply hook dispatcher";
/// Where `--force` keeps a user's own hook found in the dispatcher's place.
const OWN_HOOK: &str = "00-own-hook";

pub fn run(cmd: HooksCommand, dir: Option<PathBuf>) -> Outcome {
    let (code, text, to_stderr) = match cmd {
        HooksCommand::List => match locate(dir) {
            Ok(at) => (0, list(&at), false),
            Err(e) => (2, format!("error: {e}\n"), true),
        },
        HooksCommand::Install { names, force } => {
            let (code, done, said) = match locate(dir) {
                Ok(at) => install(&at, &names, force),
                Err(e) => (2, String::new(), format!("error: {e}\n")),
            };
            // What was changed is a report of what was done (dropped by -q); refusals and
            // errors go to stderr.
            return Outcome::done(done, said, status_of(code));
        }
        HooksCommand::PlanPaths => plan_helper(|v, out| {
            for f in v["files"].as_array().into_iter().flatten() {
                for key in ["old_path", "path"] {
                    if let Some(p) = f[key].as_str() {
                        out.push_str(p);
                        out.push('\n');
                    }
                }
            }
        }),
        HooksCommand::PlanSize => plan_helper(|v, out| {
            let files = v["files"].as_array().map(Vec::len).unwrap_or(0);
            let lines: u64 = v["files"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| f["added"].as_u64().unwrap_or(0) + f["removed"].as_u64().unwrap_or(0))
                .sum();
            let _ = writeln!(out, "{files} {lines}");
        }),
    };
    let status = status_of(code);
    if to_stderr {
        Outcome::text(String::new(), text, status)
    } else {
        Outcome::text(text, String::new(), status)
    }
}

fn status_of(code: u8) -> RunStatus {
    match code {
        0 => RunStatus::Applied,
        1 => RunStatus::Refused,
        _ => RunStatus::Error,
    }
}

/// Read a report JSON from stdin and render something from it.
fn plan_helper(f: impl Fn(&serde_json::Value, &mut String)) -> (u8, String, bool) {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        return (
            2,
            format!("error: cannot read the plan on stdin: {e}\n"),
            true,
        );
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => {
            let mut out = String::new();
            f(&v, &mut out);
            (0, out, false)
        }
        Err(e) => (
            2,
            format!("error: stdin is not a git llm-apply JSON report: {e}\n"),
            true,
        ),
    }
}

/// The repository's hooks directory, as git would use it.
struct Place {
    dir: PathBuf,
}

fn locate(dir: Option<PathBuf>) -> Result<Place, HooksError> {
    let cwd = match dir {
        Some(d) => d,
        None => std::env::current_dir().map_err(HooksError::CurrentDir)?,
    };
    let repo = Repo::discover(&cwd)?.ok_or_else(|| HooksError::NotARepository(cwd.clone()))?;
    let dir = hooks_dir(&repo.work_dir)?;
    Ok(Place { dir })
}

fn d_dir(kind: HookKind) -> String {
    format!("{}.d", kind.file_name())
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn list(at: &Place) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "hooks directory: {}", at.dir.display());
    for kind in [HookKind::Pre, HookKind::Post] {
        let top = at.dir.join(kind.file_name());
        let what = match std::fs::read(&top) {
            Err(_) if top.symlink_metadata().is_err() => "not installed".to_string(),
            Err(e) => format!("present but unreadable ({e})"),
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let mut w = if text.contains(DISPATCHER_MARK) {
                    if text == DISPATCHER {
                        "dispatcher".to_string()
                    } else {
                        "dispatcher (an older version: `hooks install` updates it)".to_string()
                    }
                } else {
                    "your own hook".to_string()
                };
                if !is_executable(&top) {
                    w.push_str(", NOT EXECUTABLE: every apply fails until it is fixed or removed");
                }
                w
            }
        };
        let _ = writeln!(out, "{}: {what}", kind.file_name());
        let dir = at.dir.join(d_dir(kind));
        let mut entries: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        entries.sort();
        for name in entries {
            let path = dir.join(&name);
            let mut w = match READY.iter().find(|r| r.name == name && r.kind == kind) {
                Some(r) => match std::fs::read_to_string(&path) {
                    Ok(t) if t == r.script => "ready-made, up to date".to_string(),
                    _ => "ready-made, differs from this version's (`hooks install --force` replaces it)"
                        .to_string(),
                },
                None => "yours".to_string(),
            };
            if !is_executable(&path) {
                w.push_str(", not executable: the dispatcher fails on it");
            }
            let _ = writeln!(out, "    {:<36} {w}", format!("{}/{name}", d_dir(kind)));
        }
    }
    let _ = writeln!(
        out,
        "ready-made hooks (git llm-apply hooks install [NAME...]):"
    );
    for r in &READY {
        let kind = match r.kind {
            HookKind::Pre => "pre",
            HookKind::Post => "post",
        };
        let _ = writeln!(out, "    {:<20} {kind:<5} {}", r.name, r.summary);
    }
    out
}

/// One file install would write.
enum Step {
    Write {
        path: PathBuf,
        text: &'static str,
        shown: String,
        verb: &'static str,
    },
    /// Make an identical file executable again.
    Chmod {
        path: PathBuf,
        shown: String,
    },
    /// Move the user's own hook into the `.d/` directory, where the dispatcher runs it.
    Keep {
        from: PathBuf,
        to: PathBuf,
        shown: String,
    },
    Unchanged {
        shown: String,
    },
}

fn install(at: &Place, names: &[String], force: bool) -> (u8, String, String) {
    let mut chosen: Vec<&Ready> = Vec::new();
    if names.is_empty() {
        chosen.extend(READY.iter());
    }
    for n in names {
        match READY.iter().find(|r| r.name == n) {
            Some(r) if !chosen.iter().any(|c| c.name == r.name) => chosen.push(r),
            Some(_) => {}
            None => {
                let known: Vec<&str> = READY.iter().map(|r| r.name).collect();
                return (
                    2,
                    String::new(),
                    format!(
                        "error: no ready-made hook named '{n}' (there are: {})\n",
                        known.join(", ")
                    ),
                );
            }
        }
    }
    let mut steps = Vec::new();
    let mut refusals = Vec::new();
    for kind in [HookKind::Pre, HookKind::Post] {
        if !chosen.iter().any(|r| r.kind == kind) {
            continue;
        }
        plan_dispatcher(at, kind, force, &mut steps, &mut refusals);
        for r in chosen.iter().filter(|r| r.kind == kind) {
            let path = at.dir.join(d_dir(kind)).join(r.name);
            let shown = format!("{}/{}", d_dir(kind), r.name);
            match std::fs::read(&path) {
                Err(_) if path.symlink_metadata().is_err() => steps.push(Step::Write {
                    path,
                    text: r.script,
                    shown,
                    verb: "installed",
                }),
                Ok(b) if b == r.script.as_bytes() => {
                    if is_executable(&path) {
                        steps.push(Step::Unchanged { shown });
                    } else {
                        steps.push(Step::Chmod { path, shown });
                    }
                }
                _ if force => steps.push(Step::Write {
                    path,
                    text: r.script,
                    shown,
                    verb: "replaced",
                }),
                _ => refusals.push(format!(
                    "{shown} exists and differs from the ready-made '{}' (edited by hand?); `--force` replaces it",
                    r.name
                )),
            }
        }
    }
    let mut out = String::new();
    let mut err = String::new();
    let _ = writeln!(out, "hooks directory: {}", at.dir.display());
    if !refusals.is_empty() {
        let _ = writeln!(err, "hooks directory: {}", at.dir.display());
        for r in &refusals {
            let _ = writeln!(err, "refused: {r}");
        }
        let _ = writeln!(err, "nothing was changed");
        return (1, String::new(), err);
    }
    for step in steps {
        match perform(&step) {
            Ok(line) => {
                let _ = writeln!(out, "{line}");
            }
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                return (1, out, err);
            }
        }
    }
    (0, out, err)
}

/// What to do about `pre-llm-apply` / `post-llm-apply` itself.
fn plan_dispatcher(
    at: &Place,
    kind: HookKind,
    force: bool,
    steps: &mut Vec<Step>,
    refusals: &mut Vec<String>,
) {
    let path = at.dir.join(kind.file_name());
    let shown = kind.file_name().to_string();
    let write = |verb| Step::Write {
        path: path.clone(),
        text: DISPATCHER,
        shown: format!("{shown} (dispatcher: runs {}/*)", d_dir(kind)),
        verb,
    };
    match std::fs::read(&path) {
        Err(_) if path.symlink_metadata().is_err() => steps.push(write("installed")),
        Ok(b) if b == DISPATCHER.as_bytes() => {
            if is_executable(&path) {
                steps.push(Step::Unchanged {
                    shown: format!("{shown} (dispatcher)"),
                });
            } else {
                steps.push(Step::Chmod {
                    path: path.clone(),
                    shown,
                });
            }
        }
        Ok(b) if String::from_utf8_lossy(&b).contains(DISPATCHER_MARK) => {
            steps.push(write("updated"))
        }
        _ if force => {
            let d = at.dir.join(d_dir(kind));
            let mut to = d.join(OWN_HOOK);
            let mut n = 2;
            while to.symlink_metadata().is_ok() {
                to = d.join(format!("{OWN_HOOK}-{n}"));
                n += 1;
            }
            let kept = format!(
                "{}/{}",
                d_dir(kind),
                to.file_name().map(|f| f.to_string_lossy()).unwrap_or_default()
            );
            steps.push(Step::Keep {
                from: path.clone(),
                to,
                shown: format!("kept your {shown} as {kept}: the dispatcher runs it first"),
            });
            steps.push(write("installed"));
        }
        _ => refusals.push(format!(
            "{shown} is your own hook; `--force` keeps it as {}/{OWN_HOOK} (run first) and installs the dispatcher in its place",
            d_dir(kind)
        )),
    }
}

/// The line saying what a step did.
fn perform(step: &Step) -> Result<String, HooksError> {
    let chmod = |path: &Path| {
        let path = path.to_path_buf();
        move |source| HooksError::Chmod { path, source }
    };
    let create = |dir: &Path| {
        let dir = dir.to_path_buf();
        move |source| HooksError::CreateDir { dir, source }
    };
    match step {
        Step::Unchanged { shown } => Ok(format!("unchanged: {shown}")),
        Step::Chmod { path, shown } => {
            make_executable(path).map_err(chmod(path))?;
            Ok(format!("made executable: {shown}"))
        }
        Step::Keep { from, to, shown } => {
            let dir = to.parent().expect("a .d path has a parent");
            std::fs::create_dir_all(dir).map_err(create(dir))?;
            std::fs::rename(from, to).map_err(|source| HooksError::Move {
                from: from.clone(),
                to: to.clone(),
                source,
            })?;
            Ok(shown.clone())
        }
        Step::Write {
            path,
            text,
            shown,
            verb,
        } => {
            let dir = path.parent().expect("a hook path has a parent");
            std::fs::create_dir_all(dir).map_err(create(dir))?;
            let write = |source| HooksError::Write {
                path: path.clone(),
                source,
            };
            // Temp file + rename: a hook is never seen half-written by an apply running now.
            let mut tmp = tempfile::Builder::new()
                .prefix(".llm-apply-hook-")
                .tempfile_in(dir)
                .map_err(|source| HooksError::TempFile {
                    dir: dir.to_path_buf(),
                    source,
                })?;
            tmp.write_all(text.as_bytes()).map_err(write)?;
            make_executable(tmp.path()).map_err(chmod(path))?;
            tmp.persist(path).map_err(|e| write(e.error))?;
            Ok(format!("{verb}: {shown}"))
        }
    }
}

fn make_executable(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

//! Finding and running the `pre-llm-apply` and `post-llm-apply` hooks: where git keeps hooks,
//! the `llm-apply.*` settings that govern them, and a runner that survives hooks that hang,
//! crash, flood their output or cannot be started at all.
//!
//! A hook that cannot run is a failed hook, never a skipped one: a policy hook the user
//! installed must not silently stop guarding the tree because its mode bits were lost.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::git::config::Config;
use crate::git::{Git, GitError};

/// How long a hook may run unless `llm-apply.hookTimeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How much of each output stream is kept; the rest is read and counted, not stored, so a
/// hook that prints without end neither blocks on a full pipe nor fills our memory.
pub const OUTPUT_LIMIT: usize = 64 * 1024;

/// After a hook exits, how long its output pipes may stay open (held by a background child
/// it left behind) before we stop waiting for the rest of its output.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Which hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    /// After planning, before anything is written; may veto.
    Pre,
    /// After a successful write; with `--verify` its failure rolls the apply back.
    Post,
}

impl HookKind {
    /// The file name in the hooks directory, as git names its own hooks.
    pub fn file_name(self) -> &'static str {
        match self {
            HookKind::Pre => "pre-llm-apply",
            HookKind::Post => "post-llm-apply",
        }
    }
}

/// What the run is doing, for `GIT_LLM_APPLY_MODE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// An apply that will write.
    Apply,
    /// `--check`: nothing will be written.
    Check,
    /// `--revert`: the patch applied in reverse.
    Revert,
}

impl Mode {
    /// The value of `GIT_LLM_APPLY_MODE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Apply => "apply",
            Mode::Check => "check",
            Mode::Revert => "revert",
        }
    }
}

/// The `llm-apply.*` settings the binary itself reads (the ready-made hooks read their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `llm-apply.hookTimeout` (seconds, fractions allowed; 0 = no limit).
    pub timeout: Option<Duration>,
    /// `llm-apply.verify`: a failing post hook rolls the apply back, as `--verify` does.
    pub verify: bool,
    /// Bytes kept per output stream.
    pub output_limit: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            timeout: Some(DEFAULT_TIMEOUT),
            verify: false,
            output_limit: OUTPUT_LIMIT,
        }
    }
}

/// Why the hooks could not be found or run (a hook that ran and failed is a [`HookStatus`]).
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("cannot find the hooks directory: git rev-parse --git-path hooks failed: {stderr}")]
    HooksDir { stderr: String },
}

impl crate::patch::kinds::Kinded for HookError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        // Finding the hooks is reading how git is configured to run them.
        crate::patch::kinds::ErrorKind::Config
    }
}

/// Where the hooks of this repository live and how to run them.
#[derive(Debug, Clone)]
pub struct Hooks {
    /// The hooks directory (`core.hooksPath`, else the common git dir's `hooks`).
    pub dir: PathBuf,
    /// The work tree's top level: hooks run there, as git runs its own.
    pub root: PathBuf,
    /// The `llm-apply.*` settings hooks run under.
    pub settings: Settings,
}

impl Hooks {
    /// Where git would look for hooks from the work tree at `root`, with the settings of
    /// `config` (read through git, so `git -c` and includes count). Without `core.hooksPath`
    /// the hooks are in `common_dir`'s `hooks`, as git has them; with it, git is asked to
    /// resolve it.
    pub fn from_config(
        root: &Path,
        common_dir: &Path,
        config: &Config,
    ) -> Result<Hooks, HookError> {
        Ok(Hooks {
            dir: if config.hooks_path_set {
                hooks_dir(root)?
            } else {
                common_dir.join("hooks")
            },
            root: root.to_path_buf(),
            settings: Settings {
                timeout: config.hook_timeout,
                verify: config.verify,
                ..Settings::default()
            },
        })
    }

    /// The hook of this kind when one exists (anything at its path, so that a directory or a
    /// dangling link is reported rather than ignored).
    pub fn find(&self, kind: HookKind) -> Option<PathBuf> {
        let path = self.dir.join(kind.file_name());
        path.symlink_metadata().is_ok().then_some(path)
    }

    /// Run the hook of `kind` if there is one.
    pub fn run(&self, kind: HookKind, input: &HookInput<'_>) -> Option<HookRun> {
        let path = self.find(kind)?;
        let mut env: Vec<(&str, String)> = vec![
            ("GIT_LLM_APPLY_HOOK", kind.file_name().to_string()),
            ("GIT_LLM_APPLY_MODE", input.mode.as_str().to_string()),
            (
                "GIT_LLM_APPLY_PATCH",
                input.patch_file.to_string_lossy().into_owned(),
            ),
            (
                "GIT_LLM_APPLY_VERIFY",
                if input.verify { "1" } else { "0" }.to_string(),
            ),
        ];
        // The ready-made hooks call back into this binary for their helpers; the one running
        // them is the right one even when it is not first on PATH.
        if let Ok(exe) = std::env::current_exe() {
            env.push(("GIT_LLM_APPLY_BIN", exe.to_string_lossy().into_owned()));
        }
        let started = Instant::now();
        let (status, stdout, stderr) =
            run_program(&path, &self.root, &env, input.stdin, &self.settings);
        Some(HookRun {
            kind,
            path,
            status,
            stdout,
            stderr,
            elapsed: started.elapsed(),
        })
    }
}

/// What a hook is given besides its environment.
#[derive(Debug, Clone, Copy)]
pub struct HookInput<'a> {
    /// The plan (pre) or result (post) as JSON.
    pub stdin: &'a [u8],
    /// What the run is doing, for `GIT_LLM_APPLY_MODE`.
    pub mode: Mode,
    /// The normalised patch, for `GIT_LLM_APPLY_PATCH`.
    pub patch_file: &'a Path,
    /// `--verify` or `llm-apply.verify`: a failing post hook rolls the apply back.
    pub verify: bool,
}

/// One stream of a hook's output, bounded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// The first `output_limit` bytes, decoded lossily.
    pub text: String,
    /// How many bytes came after those and were dropped.
    pub dropped: u64,
}

/// How a hook ended.
#[allow(missing_docs)] // each variant's doc says what its one field holds
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookStatus {
    /// Exit status 0.
    Passed,
    /// A non-zero exit status: the hook's own verdict.
    Failed { code: i32 },
    /// Killed by a signal it did not ask for from us (a crash).
    Crashed { signal: i32 },
    /// Still running at the deadline: killed, with everything it started.
    TimedOut { after: Duration },
    /// The file lacks execute permission.
    NotExecutable,
    /// Its `#!` line names a program that does not exist.
    MissingInterpreter { interpreter: String },
    /// Anything else that stopped it from starting (a directory, a dangling link…).
    CannotRun { message: String },
}

impl HookStatus {
    /// Exit status 0: the hook let the run go on.
    pub fn passed(&self) -> bool {
        matches!(self, HookStatus::Passed)
    }

    /// A stable machine name for reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            HookStatus::Passed => "passed",
            HookStatus::Failed { .. } => "failed",
            HookStatus::Crashed { .. } => "crashed",
            HookStatus::TimedOut { .. } => "timed-out",
            HookStatus::NotExecutable => "not-executable",
            HookStatus::MissingInterpreter { .. } => "missing-interpreter",
            HookStatus::CannotRun { .. } => "cannot-run",
        }
    }
}

/// One finished hook run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// `pre-llm-apply` or `post-llm-apply`.
    pub kind: HookKind,
    /// The hook file that ran.
    pub path: PathBuf,
    /// How it ended.
    pub status: HookStatus,
    /// Its standard output, bounded.
    pub stdout: Captured,
    /// Its standard error, bounded.
    pub stderr: Captured,
    /// How long it ran.
    pub elapsed: Duration,
}

impl HookRun {
    /// One line saying what happened, naming the hook (for errors and the human report).
    pub fn describe(&self) -> String {
        let name = self.kind.file_name();
        let path = self.path.display();
        match &self.status {
            HookStatus::Passed => format!("{name} hook passed"),
            HookStatus::Failed { code } => format!("{name} hook failed (exit {code})"),
            HookStatus::Crashed { signal } => {
                format!("{name} hook crashed (killed by signal {signal}): {path}")
            }
            HookStatus::TimedOut { after } => format!(
                "{name} hook timed out after {} and was killed (llm-apply.hookTimeout): {path}",
                seconds(*after)
            ),
            HookStatus::NotExecutable => format!(
                "{name} hook is not executable: {path} (make it executable with chmod +x, or remove it)"
            ),
            HookStatus::MissingInterpreter { interpreter } => format!(
                "{name} hook cannot start: its interpreter '{interpreter}' was not found: {path}"
            ),
            HookStatus::CannotRun { message } => {
                format!("{name} hook cannot run: {path}: {message}")
            }
        }
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

/// `git rev-parse --git-path hooks`: honours `core.hooksPath` (relative to the top level, as
/// git runs hooks there) and linked worktrees (whose hooks live in the common dir).
pub fn hooks_dir(root: &Path) -> Result<PathBuf, HookError> {
    let out = Git::new(root)
        .args(["rev-parse", "--git-path", "hooks"])
        .run()?;
    if !out.success() {
        return Err(HookError::HooksDir {
            stderr: out.stderr.trim().to_string(),
        });
    }
    let printed = out.stdout.trim_end_matches(['\n', '\r']);
    Ok(root.join(printed))
}

/// Start `path` (through `/bin/sh` when it is a script without `#!`, as git does), feed it
/// `stdin`, collect bounded output, and stop it at the deadline.
fn run_program(
    path: &Path,
    root: &Path,
    env: &[(&str, String)],
    stdin: &[u8],
    settings: &Settings,
) -> (HookStatus, Captured, Captured) {
    let none = || (Captured::default(), Captured::default());
    if let Some(status) = refuse_to_start(path) {
        let (o, e) = none();
        return (status, o, e);
    }
    let child = match spawn(path, root, env, false) {
        // ENOEXEC: a script with no `#!` line; git hands those to the shell.
        Err(e) if e.raw_os_error() == Some(8) => spawn(path, root, env, true),
        other => other,
    };
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            let (o, e2) = none();
            return (start_failure(path, &e), o, e2);
        }
    };
    let (status, out, err) = supervise(child, stdin, settings);
    let status = interpreter_via_env(path, status, &err);
    (status, out, err)
}

/// Reasons not to try at all: nothing runnable at the path.
fn refuse_to_start(path: &Path) -> Option<HookStatus> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            return Some(HookStatus::CannotRun {
                message: format!("{e} (a dangling symbolic link?)"),
            })
        }
    };
    if !meta.is_file() {
        return Some(HookStatus::CannotRun {
            message: "not a regular file".into(),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Some(HookStatus::NotExecutable);
        }
    }
    None
}

fn spawn(path: &Path, root: &Path, env: &[(&str, String)], via_shell: bool) -> io::Result<Child> {
    let mut cmd = if via_shell {
        let mut c = Command::new("/bin/sh");
        c.arg(path);
        c
    } else {
        Command::new(path)
    };
    cmd.current_dir(root)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so a timeout can stop the hook and everything it started.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn()
}

/// Why a hook that exists could not be started.
fn start_failure(path: &Path, e: &io::Error) -> HookStatus {
    match e.kind() {
        // The file is there, so "not found" is about the program its `#!` line names.
        io::ErrorKind::NotFound => HookStatus::MissingInterpreter {
            interpreter: shebang(path)
                .map(|s| s.program)
                .unwrap_or_else(|| "(unknown)".into()),
        },
        io::ErrorKind::PermissionDenied => HookStatus::NotExecutable,
        _ => HookStatus::CannotRun {
            message: e.to_string(),
        },
    }
}

/// A hook's `#!` line: the program, and the first argument when the program is `env`.
struct Shebang {
    program: String,
    env_target: Option<String>,
}

fn shebang(path: &Path) -> Option<Shebang> {
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let head = &head[..n];
    let line = head.strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let program = words.next()?.to_string();
    let env_target = if program.ends_with("/env") {
        words.find(|w| !w.starts_with('-')).map(str::to_string)
    } else {
        None
    };
    Some(Shebang {
        program,
        env_target,
    })
}

/// `#!/usr/bin/env python9` starts fine; env itself then fails with 127 and says so.
fn interpreter_via_env(path: &Path, status: HookStatus, stderr: &Captured) -> HookStatus {
    if status != (HookStatus::Failed { code: 127 }) {
        return status;
    }
    match shebang(path).and_then(|s| s.env_target) {
        Some(target) if stderr.text.contains(&target) && stderr.text.contains("No such file") => {
            HookStatus::MissingInterpreter {
                interpreter: target,
            }
        }
        _ => status,
    }
}

/// Feed stdin, drain both outputs, wait with a deadline.
fn supervise(
    mut child: Child,
    stdin: &[u8],
    settings: &Settings,
) -> (HookStatus, Captured, Captured) {
    let limit = settings.output_limit;
    if let Some(mut pipe) = child.stdin.take() {
        let data = stdin.to_vec();
        // A hook need not read its input; a closed pipe is not an error.
        thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    let (tx, rx) = mpsc::channel::<(bool, Captured)>();
    if let Some(pipe) = child.stdout.take() {
        let tx = tx.clone();
        thread::spawn(move || {
            let _ = tx.send((true, capture(pipe, limit)));
        });
    }
    if let Some(pipe) = child.stderr.take() {
        let tx = tx.clone();
        thread::spawn(move || {
            let _ = tx.send((false, capture(pipe, limit)));
        });
    }
    drop(tx);

    let deadline = settings.timeout.map(|t| (Instant::now() + t, t));
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break exit_status(st),
            Ok(None) => {}
            Err(e) => {
                kill_group(&mut child);
                break HookStatus::CannotRun {
                    message: format!("waiting for it failed: {e}"),
                };
            }
        }
        if let Some((at, after)) = deadline {
            if Instant::now() >= at {
                kill_group(&mut child);
                break HookStatus::TimedOut { after };
            }
        }
        thread::sleep(Duration::from_millis(5));
    };

    let mut out = Captured::default();
    let mut err = Captured::default();
    let grace = Instant::now() + DRAIN_GRACE;
    for _ in 0..2 {
        let left = grace.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((true, c)) => out = c,
            Ok((false, c)) => err = c,
            // A background child still holds a pipe: keep what we have and move on.
            Err(_) => break,
        }
    }
    (status, out, err)
}

/// Read everything, keeping at most `limit` bytes.
fn capture(mut pipe: impl Read, limit: usize) -> Captured {
    let mut kept = Vec::new();
    let mut dropped = 0u64;
    let mut buf = [0u8; 16 * 1024];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let room = limit.saturating_sub(kept.len());
                let take = room.min(n);
                kept.extend_from_slice(&buf[..take]);
                dropped += (n - take) as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Captured {
        text: String::from_utf8_lossy(&kept).into_owned(),
        dropped,
    }
}

fn exit_status(st: ExitStatus) -> HookStatus {
    if let Some(code) = st.code() {
        return if code == 0 {
            HookStatus::Passed
        } else {
            HookStatus::Failed { code }
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = st.signal() {
            return HookStatus::Crashed { signal };
        }
    }
    HookStatus::CannotRun {
        message: format!("ended without an exit status ({st})"),
    }
}

/// Stop the hook's whole process group (the hook and whatever it started), then reap it.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals that process group; the group was
            // created for this child (process_group(0)), so it holds nothing else of ours.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_the_limit_and_counts_the_rest() {
        let data = [b'x'; 100];
        let c = capture(&data[..], 30);
        assert_eq!(c.text.len(), 30);
        assert_eq!(c.dropped, 70);
    }
}

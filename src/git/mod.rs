//! Every git subprocess: which binary, a pinned locale, stdin closed, output captured.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

pub mod apply_output;
pub mod binary;
pub mod config;
pub mod object_cache;

/// The commands run so far, when `-v` asked for them (`None`: not recording).
static RECORDED: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// From now on, remember every git command run, for `-v` to show.
pub fn record_commands() {
    *RECORDED.lock().expect("the record is never poisoned") = Some(Vec::new());
}

/// The git commands run since [`record_commands`], each as a shell would spell it.
pub fn commands_run() -> Vec<String> {
    RECORDED
        .lock()
        .expect("the record is never poisoned")
        .clone()
        .unwrap_or_default()
}

/// The git binary to run: `$GIT_LLM_APPLY_GIT`, default `git`.
pub fn binary() -> PathBuf {
    std::env::var_os("GIT_LLM_APPLY_GIT")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("git"))
}

/// What a finished git command left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The exit status; `None` when a signal ended it.
    pub status: Option<i32>,
    /// Standard output, decoded lossily.
    pub stdout: String,
    /// Standard error, decoded lossily (English, under `LC_ALL=C`).
    pub stderr: String,
}

impl Output {
    /// Whether git exited 0.
    pub fn success(&self) -> bool {
        self.status == Some(0)
    }
}

/// Why git could not be run at all (a git that ran and failed is an [`Output`]).
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git ({binary}): {source}")]
    Spawn {
        binary: String,
        #[source]
        source: std::io::Error,
    },
}

/// A git invocation being built: `Git::new(dir).args([...]).env(k, v).run()`.
pub struct Git {
    cmd: Command,
}

impl Git {
    /// A git command run in `dir`, with `LC_ALL=C` so its messages can be parsed, and with
    /// the variables that would redirect it to another repository removed.
    pub fn new(dir: &Path) -> Git {
        let mut cmd = Command::new(binary());
        cmd.current_dir(dir)
            .env("LC_ALL", "C")
            .env("LANGUAGE", "C")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Git { cmd }
    }

    /// One more argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Git {
        self.cmd.arg(arg);
        self
    }

    /// More arguments, in order.
    pub fn args<I, S>(mut self, args: I) -> Git
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// One more environment variable for the command.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Git {
        self.cmd.env(key, value);
        self
    }

    /// An environment variable the command must not inherit.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Git {
        self.cmd.env_remove(key);
        self
    }

    /// The command as a shell would spell it: `git -C <dir> <args>` (quoted where needed).
    fn spelled(&self) -> String {
        let mut words = vec!["git".to_string()];
        if let Some(d) = self.cmd.get_current_dir() {
            words.push("-C".into());
            words.push(shell_word(&d.to_string_lossy()));
        }
        words.extend(
            self.cmd
                .get_args()
                .map(|a| shell_word(&a.to_string_lossy())),
        );
        words.join(" ")
    }

    /// Run to completion and capture both streams (lossily decoded).
    pub fn run(mut self) -> Result<Output, GitError> {
        if let Some(list) = RECORDED
            .lock()
            .expect("the record is never poisoned")
            .as_mut()
        {
            list.push(self.spelled());
        }
        let out = self.cmd.output().map_err(|source| GitError::Spawn {
            binary: binary().display().to_string(),
            source,
        })?;
        Ok(Output {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// A word as a POSIX shell reads it back: bare when it is plain, else single-quoted.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,^".contains(&b));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// Test builds: run git in `dir` with no system or global config and no system attributes,
/// as a fixed identity (for commits), and return what it printed, trimmed; a failure fails
/// the test.
#[cfg(test)]
pub(crate) fn run_for_test(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ATTR_NOSYSTEM", "1")
        // No config names anyone: a test's commits are by this identity.
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

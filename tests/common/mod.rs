//! A temp git repository with a pinned identity, dates and config, and helpers to run the
//! binary in it and to compare the whole tree, the index and HEAD byte for byte.

#![allow(dead_code)]

pub mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use assert_cmd::cargo::CommandCargoExt;

pub struct TestRepo {
    pub dir: tempfile::TempDir,
}

/// The environment every git and binary invocation in tests runs with.
pub fn pinned_env(cmd: &mut Command, home: &Path) {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "Test Author")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "Test Committer")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
        .env("LC_ALL", "C")
        .env("NO_COLOR", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
}

/// The version of the git tests run, as `[major, minor, patch]`.
pub fn git_version() -> [u32; 3] {
    let out = Command::new(git_bin())
        .arg("--version")
        .output()
        .expect("run git --version");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v = [0; 3];
    let numbers = text
        .split_whitespace()
        .nth(2)
        .unwrap_or_default()
        .split('.')
        .map(|p| p.parse().unwrap_or(0));
    for (slot, n) in v.iter_mut().zip(numbers) {
        *slot = n;
    }
    v
}

/// The git binary tests use: the same one the product uses.
pub fn git_bin() -> String {
    std::env::var("GIT_LLM_APPLY_GIT")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "git".into())
}

/// A file's mode and bytes, as the tree snapshot records them.
pub type Tree = BTreeMap<String, (u32, Vec<u8>)>;

/// Everything a refusal must leave as it was.
#[derive(Debug, PartialEq, Eq)]
pub struct State {
    pub tree: Tree,
    pub index: Option<Vec<u8>>,
    pub head: String,
}

impl TestRepo {
    /// An empty repository (no commits).
    pub fn empty() -> TestRepo {
        let dir = tempfile::tempdir().expect("temp dir");
        let r = TestRepo { dir };
        // `init -b` and `init.defaultBranch` are 2.28's; this spelling works from 2.17.
        r.git(&["init", "-q"]);
        r.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
        r.git(&["config", "core.autocrlf", "false"]);
        r
    }

    /// `git worktree add [-b BRANCH] PATH [COMMIT]`, spelled the way every git from 2.17 takes
    /// it (`-q` came later; the progress it would hide is captured anyway).
    pub fn add_worktree(&self, path: &Path, branch: Option<&str>, commit: Option<&str>) {
        let path = path.to_str().expect("a UTF-8 temp path");
        let mut args = vec!["worktree", "add"];
        if let Some(b) = branch {
            args.extend(["-b", b]);
        }
        args.push(path);
        args.extend(commit);
        self.git(&args);
    }

    /// A repository with `files` committed.
    pub fn with(files: &[(&str, &str)]) -> TestRepo {
        let r = TestRepo::empty();
        for (p, c) in files {
            r.write(p, c.as_bytes());
        }
        r.commit_all("initial");
        r
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn abs(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    pub fn write(&self, p: &str, bytes: &[u8]) {
        let a = self.abs(p);
        std::fs::create_dir_all(a.parent().expect("parent")).expect("mkdir");
        std::fs::write(a, bytes).expect("write");
    }

    pub fn read(&self, p: &str) -> Vec<u8> {
        std::fs::read(self.abs(p)).unwrap_or_else(|e| panic!("read {p}: {e}"))
    }

    pub fn read_str(&self, p: &str) -> String {
        String::from_utf8(self.read(p)).expect("utf-8")
    }

    pub fn exists(&self, p: &str) -> bool {
        self.abs(p).symlink_metadata().is_ok()
    }

    pub fn set_exec(&self, p: &str, exec: bool) {
        use std::os::unix::fs::PermissionsExt;
        let mode = if exec { 0o755 } else { 0o644 };
        std::fs::set_permissions(self.abs(p), std::fs::Permissions::from_mode(mode))
            .expect("chmod");
    }

    pub fn git_cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(git_bin());
        pinned_env(&mut c, self.path());
        c.current_dir(self.path()).args(args).stdin(Stdio::null());
        c
    }

    /// Run git and return stdout; panics on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_cmd(args).output().expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
    }

    /// Every file below the root except `.git`, with its mode and bytes.
    pub fn tree(&self) -> Tree {
        fn walk(root: &Path, dir: &Path, out: &mut Tree) {
            let mut entries: Vec<_> = std::fs::read_dir(dir)
                .expect("read_dir")
                .flatten()
                .collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let p = e.path();
                let rel = p
                    .strip_prefix(root)
                    .expect("under root")
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel == ".git" {
                    continue;
                }
                let meta = p.symlink_metadata().expect("meta");
                if meta.is_dir() {
                    walk(root, &p, out);
                } else {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = if meta.file_type().is_symlink() {
                        0o120000
                    } else if meta.permissions().mode() & 0o111 != 0 {
                        0o100755
                    } else {
                        0o100644
                    };
                    let bytes = if meta.file_type().is_symlink() {
                        std::fs::read_link(&p)
                            .expect("link")
                            .to_string_lossy()
                            .into_owned()
                            .into_bytes()
                    } else {
                        std::fs::read(&p).expect("read")
                    };
                    out.insert(rel, (mode, bytes));
                }
            }
        }
        let mut out = Tree::new();
        walk(self.path(), self.path(), &mut out);
        out
    }

    pub fn state(&self) -> State {
        let head = self
            .git_cmd(&["rev-parse", "-q", "--verify", "HEAD"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        State {
            tree: self.tree(),
            index: std::fs::read(self.path().join(".git/index")).ok(),
            head,
        }
    }

    /// The binary, run in the repository with the pinned environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("git-llm-apply").expect("binary built");
        pinned_env(&mut c, self.path());
        c.current_dir(self.path()).args(args);
        c
    }

    /// Run the binary with `args` and nothing on stdin.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(
            self.cmd(args)
                .stdin(Stdio::null())
                .output()
                .expect("run the binary"),
        )
    }

    /// Run the binary with `patch` on stdin.
    pub fn apply(&self, args: &[&str], patch: &str) -> Run {
        self.apply_bytes(args, patch.as_bytes())
    }

    pub fn apply_bytes(&self, args: &[&str], patch: &[u8]) -> Run {
        use std::io::Write;
        let mut c = self.cmd(args);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn binary");
        // A run that exits before reading its input (a usage error) closes the pipe early.
        if let Err(e) = child.stdin.take().expect("stdin").write_all(patch) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write patch: {e}");
        }
        Run::from(child.wait_with_output().expect("wait"))
    }

    /// Apply with --json and parse the report (which `Run::from` validated).
    #[track_caller]
    pub fn apply_json(&self, args: &[&str], patch: &str) -> (Run, serde_json::Value) {
        let mut a = vec!["--json"];
        a.extend_from_slice(args);
        let run = self.apply(&a, patch);
        let v: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("invalid JSON ({e}): {}", run.stdout));
        (run, v)
    }
}

/// What a run of the binary printed and returned.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Every run of the binary the tests capture comes through here, so every `--json` document
/// any test produces is validated against `--json-schema`.
impl From<Output> for Run {
    #[track_caller]
    fn from(o: Output) -> Run {
        let run = Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        };
        if run.stdout.starts_with('{') {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&run.stdout) {
                if v.get("schema").is_some() {
                    schema::assert_valid_output(&v);
                }
                if let Some(code) = v.get("exit_code") {
                    assert_eq!(
                        code.as_i64(),
                        Some(i64::from(run.code)),
                        "the document's exit_code is the process's:\n{}",
                        run.stdout
                    );
                }
            }
        }
        run
    }
}

impl Run {
    #[track_caller]
    pub fn code(&self, expected: i32) -> &Run {
        assert_eq!(
            self.code, expected,
            "exit status\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn out_contains(&self, needle: &str) -> &Run {
        assert!(
            self.stdout.contains(needle) || self.stderr.contains(needle),
            "output lacks {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Lines joined with `\n` and a final newline: `text(&["a", "b"]) == "a\nb\n"`.
pub fn text(lines: &[&str]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// Make `change` in the work tree of `r`, take `git diff` of it (with renames), and put the
/// committed state back: a patch exactly as git writes it.
pub fn diff_of(r: &TestRepo, change: impl FnOnce(&TestRepo)) -> String {
    change(r);
    r.git(&["add", "-A"]);
    let patch = r.git(&["diff", "--cached", "-M", "HEAD"]);
    r.git(&["reset", "-q", "--hard", "HEAD"]);
    r.git(&["clean", "-qfd"]);
    assert!(!patch.is_empty(), "the change must show in git diff");
    patch
}

/// A numbered file: `numbered("l", 5)` is "l1\nl2\n…l5\n".
pub fn numbered(prefix: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{prefix}{i}\n")).collect()
}

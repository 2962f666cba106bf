//! The command line contract (DESIGN §2): inputs, --check, -C, --json, exit statuses.

use crate::common::{numbered, Run, TestRepo};

const PATCH: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n";

fn repo() -> TestRepo {
    TestRepo::with(&[("f.txt", &numbered("l", 6))])
}

fn expected() -> String {
    numbered("l", 6).replace("l3\n", "L3\n")
}

/// PATCH in a file of its own (kept while the directory lives), and that file's path.
fn patch_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("x.patch");
    std::fs::write(&p, PATCH).expect("write");
    let path = p.to_str().expect("utf-8").to_string();
    (dir, path)
}

#[test]
fn a_patch_file_argument_is_read() {
    let r = repo();
    let (_dir, p) = patch_file();
    let out = r.cmd(&[&p]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(r.read_str("f.txt"), expected());
}

#[test]
fn dash_and_no_argument_read_stdin() {
    let r = repo();
    r.apply(&["-"], PATCH).code(0);
    assert_eq!(r.read_str("f.txt"), expected());
    let r = repo();
    r.apply(&[], PATCH).code(0);
    assert_eq!(r.read_str("f.txt"), expected());
}

#[test]
fn several_patch_files_apply_as_one_all_or_nothing() {
    let r = TestRepo::with(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let dir = tempfile::tempdir().expect("tmp");
    let p1 = dir.path().join("1.patch");
    let p2 = dir.path().join("2.patch");
    std::fs::write(&p1, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n").expect("write");
    std::fs::write(&p2, "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-nope\n+B\n").expect("write");
    let before = r.state();
    let out = r
        .cmd(&[p1.to_str().expect("p1"), p2.to_str().expect("p2")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(r.state(), before);
}

#[test]
fn a_missing_patch_file_is_bad_input() {
    let r = repo();
    let out = r.cmd(&["no-such.patch"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read no-such.patch"));
}

#[test]
fn check_writes_nothing_and_says_what_would_happen() {
    let r = repo();
    let before = r.state();
    let run = r.apply(&["--check"], PATCH);
    run.code(0).out_contains("would apply");
    assert_eq!(r.state(), before);
    let run = r.apply(&["--check"], &PATCH.replace("-l3", "-zz"));
    run.code(1).out_contains("Check failed");
    assert_eq!(r.state(), before);
}

#[test]
fn dash_c_runs_in_another_directory() {
    let r = repo();
    let elsewhere = tempfile::tempdir().expect("tmp");
    let mut cmd = r.cmd(&["-C", r.path().to_str().expect("utf-8")]);
    cmd.current_dir(elsewhere.path());
    let out = assert_cmd::Command::from_std(cmd)
        .write_stdin(PATCH)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(r.read_str("f.txt"), expected());
}

#[test]
fn paths_are_relative_to_the_top_level_from_a_subdirectory() {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 6)), ("sub/keep", "")]);
    let mut cmd = r.cmd(&[]);
    cmd.current_dir(r.abs("sub"));
    let out = assert_cmd::Command::from_std(cmd)
        .write_stdin(PATCH)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(r.read_str("f.txt"), expected());
}

#[test]
fn dash_c_to_a_missing_directory_is_a_usage_error() {
    let r = repo();
    r.apply(&["-C", "/nonexistent/dir"], PATCH).code(2);
}

#[test]
fn outside_a_repository_it_still_applies_and_says_so() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("f.txt"), numbered("l", 6)).expect("write");
    let mut cmd = assert_cmd::Command::cargo_bin("git-llm-apply").expect("bin");
    cmd.current_dir(dir.path()).env(
        "GIT_CEILING_DIRECTORIES",
        dir.path().parent().expect("parent"),
    );
    let out = cmd.write_stdin(PATCH).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    // The notice is a remark about the run (stderr); what was written is on stdout.
    assert!(String::from_utf8_lossy(&out.stderr).contains("not inside a git repository"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Applied 1 file (+1 -1)"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).expect("read"),
        expected()
    );
}

#[test]
fn json_report_carries_the_contract_fields() {
    let r = repo();
    let (run, v) = r.apply_json(&[], PATCH);
    run.code(0);
    assert_eq!(v["schema"], 1);
    assert_eq!(v["status"], "applied");
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["written"], true);
    let f = &v["files"][0];
    assert_eq!(f["path"], "f.txt");
    assert_eq!(f["status"], "applied");
    assert_eq!(f["strategy"], "exact");
    assert_eq!(f["added"], 1);
    assert_eq!(f["removed"], 1);
    assert_eq!(f["hunks"][0]["line"], 2);
    assert_eq!(f["hunks"][0]["pass"], "exact");
}

#[test]
fn json_errors_for_bad_input_exit_2() {
    let r = repo();
    let (run, v) = r.apply_json(&[], "nothing here\n");
    run.code(2);
    assert_eq!(v["status"], "error");
    assert_eq!(v["errors"][0]["kind"], "parse");
}

#[test]
fn human_report_shows_the_written_diff_then_one_line_per_file_and_a_total() {
    let r = repo();
    let run = r.apply(&[], PATCH);
    run.code(0);
    assert_eq!(
        run.stdout,
        "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,6 +1,6 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n l6\n\
         M f.txt (+1 -1) via exact\n\
         snapshot: refs/llm-apply/1 (undo with: git llm-apply undo 1)\n\
         Applied 1 file (+1 -1)\n"
    );
}

#[test]
fn revert_with_a_patch_applies_it_in_reverse() {
    let r = repo();
    r.apply(&[], PATCH).code(0);
    r.apply(&["--revert", "-"], PATCH).code(0);
    assert_eq!(r.read_str("f.txt"), numbered("l", 6));
}

#[test]
fn an_unknown_flag_is_a_usage_error() {
    let r = repo();
    r.apply(&["--no-such-flag"], PATCH).code(2);
}

// ------------------------------------------------------------------ streams and exit codes

#[test]
fn what_was_written_goes_to_stdout_and_stderr_stays_empty() {
    let r = repo();
    let run = r.apply(&[], PATCH);
    run.code(0);
    assert!(
        run.stdout.ends_with("Applied 1 file (+1 -1)\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn a_refusal_goes_to_stderr_and_stdout_stays_empty() {
    let r = repo();
    let before = r.state();
    let run = r.apply(&[], &PATCH.replace("-l3", "-zz"));
    run.code(1);
    assert_eq!(
        run.stdout, "",
        "nothing was written, so nothing is reported on stdout"
    );
    assert!(
        run.stderr.starts_with("! f.txt refused\n"),
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .ends_with("Refused: nothing was written (1 of 1 file(s) could not be applied)\n"));
    assert_eq!(r.state(), before);
}

#[test]
fn an_error_goes_to_stderr_and_stdout_stays_empty() {
    let r = repo();
    let before = r.state();
    let run = r.apply(&[], "no patch here\n");
    run.code(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert_eq!(r.state(), before);
}

#[test]
fn partial_puts_the_written_file_on_stdout_and_the_refused_one_on_stderr() {
    let r = TestRepo::with(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-nope\n+B\n";
    let run = r.apply(&["--partial"], patch);
    run.code(3);
    assert!(
        run.stdout.contains("M a.txt (+1 -1) via exact\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("b.txt refused"));
    assert!(
        run.stderr.starts_with("! b.txt refused\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("a.txt"), "{}", run.stderr);
}

#[test]
fn json_stays_one_document_on_stdout_whatever_happened() {
    let r = repo();
    for (patch, code) in [
        (PATCH.to_string(), 0),
        (PATCH.replace("-l3", "-zz"), 1),
        ("no patch\n".to_string(), 2),
    ] {
        let (run, v) = r.apply_json(&["--check"], &patch);
        run.code(code);
        assert_eq!(v["exit_code"], code);
        assert_eq!(run.stderr, "");
    }
}

/// Runs `args` with stdout a pipe nobody reads any more; returns the binary's exit status.
fn into_a_closed_pipe(r: &TestRepo, args: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("git-llm-apply");
    // `true` exits at once; the binary writes a moment later, into a pipe without a reader.
    let script = format!(
        "{{ sleep 0.3; '{}' {args}; echo \"rc=$?\" >&2; }} | true",
        bin.display()
    );
    let mut sh = std::process::Command::new("bash");
    crate::common::pinned_env(&mut sh, r.path());
    sh.current_dir(r.path()).args(["-c", &script]);
    let out = sh.output().expect("run bash");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let r = repo();
    r.apply(&[], PATCH).code(0);
    for args in ["log", "--json-schema", "log --json", "undo --check"] {
        let err = into_a_closed_pipe(&r, args);
        assert_eq!(err, "rc=0\n", "{args}: no panic, no message, exit 0");
    }
}

#[test]
fn every_json_documents_exit_code_is_the_processs() {
    let r = repo();
    // No snapshot yet: undo is a refusal (1), and says so in its document.
    let run = crate::common::Run::from(r.cmd(&["undo", "--json"]).output().expect("run"));
    run.code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(v["status"], "refused");
    assert_eq!(v["exit_code"], 1);
    // A malformed id is a usage error (2).
    let run = crate::common::Run::from(r.cmd(&["undo", "--json", "x"]).output().expect("run"));
    run.code(2);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        (v["status"].as_str(), v["exit_code"].as_i64()),
        (Some("error"), Some(2))
    );
    // Outside a repository, log is an error (2).
    let dir = tempfile::tempdir().expect("tmp");
    let mut c = r.cmd(&["log", "--json"]);
    c.current_dir(dir.path()).env(
        "GIT_CEILING_DIRECTORIES",
        dir.path().parent().expect("parent"),
    );
    let run = crate::common::Run::from(c.output().expect("run"));
    run.code(2);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(v["exit_code"], 2);
    // Applied (0), then undone (0), then nothing left to undo (1).
    r.apply_json(&[], PATCH).0.code(0);
    let run = crate::common::Run::from(r.cmd(&["undo", "--json"]).output().expect("run"));
    run.code(0);
    let run = crate::common::Run::from(r.cmd(&["undo", "--json"]).output().expect("run"));
    run.code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(v["exit_code"], 1);
}

// ------------------------------------------------------------------------- quiet, verbose

#[test]
fn quiet_prints_nothing_on_success() {
    let r = repo();
    let run = r.apply(&["-q"], PATCH);
    run.code(0);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    assert_eq!(r.read_str("f.txt"), expected());
    // Already applied: still nothing, still 0.
    let run = r.apply(&["--quiet"], PATCH);
    run.code(0);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
}

#[test]
fn quiet_prints_only_the_refusal_on_stderr() {
    let r = repo();
    let before = r.state();
    let run = r.apply(&["-q"], &PATCH.replace("-l3", "-zz"));
    run.code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("! f.txt refused\n"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hunk 1 (@@ hint: line 2): not found"));
    assert_eq!(r.state(), before);
    let run = r.apply(&["-q"], "no patch\n");
    run.code(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
}

#[test]
fn quiet_drops_notices_and_warnings_but_not_errors() {
    let r = repo();
    // A miscounted header is repaired with a notice, which -q does not print. (Counts short
    // of the body: a body longer than its header is a miscount, never a cut stream.)
    let miscounted = PATCH.replace("@@ -2,3 +2,3 @@", "@@ -2,2 +2,2 @@");
    let run = r.apply(&[], &miscounted);
    run.code(0);
    assert!(run.stderr.contains("notice: "), "{}", run.stderr);
    r.git(&["checkout", "--", "f.txt"]);
    let run = r.apply(&["-q"], &miscounted);
    run.code(0);
    assert_eq!(run.stderr, "");
}

#[test]
fn verbose_says_each_files_strategies_and_the_git_commands_run() {
    let r = TestRepo::with(&[("f.txt", &format!("top\n{}", numbered("l", 6)))]);
    // First in this repository: git is asked what it is (its version, where its system
    // config lives), and -v shows those commands; later runs remember the answers.
    let run = r.apply(&["--check", "-v"], PATCH);
    let plain = r.apply(&["--check"], PATCH);
    run.code(0);
    assert_eq!(run.stdout, plain.stdout, "-v adds to stderr only");
    assert!(
        run.stderr.contains(
            "verbose: f.txt: tried exact: not every hunk at its line numbers; then 3way, history-3way: no clean merge (or not needed); then text: every hunk placed\n\
             verbose:     hunk 1: applied, at line 3, pass exact, +1 lines from its hint\n"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("verbose: ran git -C "),
        "{}",
        run.stderr
    );
}

/// A run reads git config in this process: no `git config` runs, for a check or an apply.
#[test]
fn an_apply_runs_no_git_config() {
    let r = TestRepo::with(&[("f.txt", &format!("top\n{}", numbered("l", 6)))]);
    for args in [&["--check", "-v"][..], &["-v"][..]] {
        let run = r.apply(args, PATCH);
        run.code(0);
        let configs = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("verbose: ran git ") && l.contains(" config "))
            .count();
        assert_eq!(configs, 0, "{args:?}: {}", run.stderr);
    }
}

#[test]
fn quiet_and_verbose_together_are_a_usage_error() {
    let r = repo();
    let before = r.state();
    r.apply(&["-q", "-v"], PATCH).code(2);
    assert_eq!(r.state(), before);
}

// ------------------------------------------------------------------------------ config

#[test]
fn every_invalid_config_value_is_a_usage_error_naming_the_key_and_the_value() {
    for (key, value) in [
        ("llm-apply.keep", "abc"),
        ("llm-apply.lockTimeout", "-5"),
        ("llm-apply.historyDepth", "deep"),
        ("llm-apply.hookTimeout", "soon"),
        ("llm-apply.verify", "maybe"),
        ("llm-apply.maxLines", "lots"),
        ("llm-apply.maxPatchSize", "1x"),
    ] {
        let r = repo();
        r.git(&["config", key, value]);
        let before = r.state();
        let run = r.apply(&[], PATCH);
        run.code(2);
        assert_eq!(run.stdout, "");
        assert!(
            run.stderr
                .starts_with(&format!("error: git config {key} is '{value}', not ")),
            "{key}: {}",
            run.stderr
        );
        assert_eq!(r.state(), before, "{key}: nothing written");
        let (run, v) = r.apply_json(&[], PATCH);
        run.code(2);
        assert_eq!(v["errors"][0]["kind"], "config");
        // Every command that reads config says the same.
        for cmd in [&["log"][..], &["undo"], &["hooks", "list"]] {
            let run = crate::common::Run::from(r.cmd(cmd).output().expect("run"));
            run.code(2).out_contains(&format!("{key} is '{value}'"));
        }
        assert_eq!(r.state(), before, "{key}: nothing written");
    }
}

#[test]
fn an_invalid_config_is_the_error_whatever_else_the_run_meets() {
    // The config is read while the patch is read and parsed: its error still comes first,
    // for a patch that does not parse and for an undo through --revert, and nothing is
    // written (the apply below is undone by nothing).
    let r = repo();
    r.apply(&[], PATCH).code(0);
    r.git(&["config", "llm-apply.keep", "abc"]);
    let before = r.state();
    for args in [&[][..], &["--revert"]] {
        let run = if args.is_empty() {
            r.apply(args, "this is not a patch\n")
        } else {
            r.run(args)
        };
        run.code(2);
        assert!(
            run.stderr
                .starts_with("error: git config llm-apply.keep is 'abc', not "),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(r.state(), before, "{args:?}: nothing written");
    }
}

#[test]
fn a_value_given_with_git_dash_c_is_validated_too() {
    let r = repo();
    // As a user types it: git runs us with its -c settings in the environment.
    let bin = assert_cmd::cargo::cargo_bin("git-llm-apply");
    let mut dirs = vec![bin.parent().expect("bin dir").to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let mut c = r.git_cmd(&["-c", "llm-apply.keep=x", "llm-apply", "log"]);
    c.env("PATH", std::env::join_paths(dirs).expect("PATH"));
    let run = crate::common::Run::from(c.output().expect("run"));
    run.code(2).out_contains("git config llm-apply.keep is 'x'");
}

// ------------------------------------------------------------- streams of the other commands

fn cli(r: &TestRepo, args: &[&str]) -> crate::common::Run {
    crate::common::Run::from(r.cmd(args).output().expect("run"))
}

#[test]
fn undo_reports_what_it_restored_on_stdout_and_a_refusal_on_stderr() {
    let r = repo();
    let run = cli(&r, &["undo"]);
    run.code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("error: nothing to undo: no apply was recorded here"),
        "{}",
        run.stderr
    );
    r.apply(&[], PATCH).code(0);
    let run = cli(&r, &["undo"]);
    run.code(0);
    assert!(run.stdout.contains("snapshot 1 undone"), "{}", run.stdout);
    assert_eq!(run.stderr, "");
    assert_eq!(r.read_str("f.txt"), numbered("l", 6));
    let run = cli(&r, &["undo", "-q", "1"]);
    run.code(1);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("already undone"), "{}", run.stderr);
}

#[test]
fn log_lists_on_stdout_and_quiet_keeps_the_listing() {
    let r = repo();
    r.apply(&[], PATCH).code(0);
    for args in [&["log"][..], &["log", "-q"]] {
        let run = cli(&r, args);
        run.code(0);
        assert!(run.stdout.starts_with("1  "), "{args:?}: {}", run.stdout);
        assert_eq!(run.stderr, "");
    }
}

#[test]
fn hooks_install_says_what_it_did_on_stdout_refuses_on_stderr_and_quiet_says_nothing() {
    let r = repo();
    let run = cli(&r, &["hooks", "install", "verify"]);
    run.code(0);
    assert!(run.stdout.contains("installed"), "{}", run.stdout);
    assert_eq!(run.stderr, "");
    let hooks = r.abs(".git/hooks/post-llm-apply.d/verify");
    std::fs::write(&hooks, "#!/bin/sh\necho mine\n").expect("edit the hook");
    let run = cli(&r, &["hooks", "install", "verify"]);
    run.code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("refused: post-llm-apply.d/verify exists and differs"),
        "{}",
        run.stderr
    );
    let run = cli(&r, &["-q", "hooks", "install", "--force", "verify"]);
    run.code(0);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    // What was asked for is printed whatever -q says.
    let run = cli(&r, &["-q", "hooks", "list"]);
    run.code(0);
    assert!(run.stdout.contains("verify"), "{}", run.stdout);
}

#[test]
fn help_into_a_closed_pipe_ends_quietly_too() {
    let r = repo();
    for args in [
        "-h",
        "--help",
        "--version",
        "completions bash",
        "install-man --print",
    ] {
        assert_eq!(into_a_closed_pipe(&r, args), "rc=0\n", "{args}");
    }
}

// ------------------------------------------------------------------- standard input on a tty

/// The binary run with its standard input, output and error on a pseudo-terminal, as in a
/// shell: what it writes there (the terminal's echo of what is typed included) is collected.
#[cfg(target_os = "linux")]
struct Terminal {
    master: std::fs::File,
    child: std::process::Child,
    shown: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

#[cfg(target_os = "linux")]
impl Terminal {
    fn run(r: &TestRepo, args: &[&str]) -> Terminal {
        Self::run_env(r, args, &[])
    }

    /// [`Terminal::run`] with these environment variables set.
    fn run_env(r: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Terminal {
        use std::io::Read;
        let (master, slave) = Self::open();
        let mut cmd = r.cmd(args);
        cmd.envs(env.iter().copied());
        cmd.stdin(slave.try_clone().expect("dup"))
            .stdout(slave.try_clone().expect("dup"))
            .stderr(slave);
        let child = cmd.spawn().expect("spawn the binary");
        // The command holds the terminal's other end: once it is gone, the child's exit
        // ends the reader (EIO).
        drop(cmd);
        let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (mut from, into) = (master.try_clone().expect("dup"), shown.clone());
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = from.read(&mut buf) {
                into.lock().expect("lock").extend_from_slice(&buf[..n]);
            }
        });
        Terminal {
            master,
            child,
            shown,
            reader,
        }
    }

    /// A new pseudo-terminal: its master end and its slave end.
    fn open() -> (std::fs::File, std::fs::File) {
        use std::os::fd::{AsRawFd, FromRawFd};
        use std::os::unix::fs::OpenOptionsExt;
        // SAFETY: each call is given a descriptor this function just opened and owns, and
        // ptsname_r a buffer with its length.
        let path = unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
            let master = std::fs::File::from_raw_fd(fd);
            assert_eq!(libc::grantpt(master.as_raw_fd()), 0, "grantpt");
            assert_eq!(libc::unlockpt(master.as_raw_fd()), 0, "unlockpt");
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(
                libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()),
                0,
                "ptsname_r"
            );
            let path = std::ffi::CStr::from_ptr(name.as_ptr())
                .to_str()
                .expect("a pty's name is ASCII")
                .to_string();
            (master, path)
        };
        let (master, path) = path;
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(&path)
            .expect("open the pty");
        (master, slave)
    }

    fn shown(&self) -> String {
        String::from_utf8_lossy(&self.shown.lock().expect("lock")).into_owned()
    }

    /// Wait until `text` has been shown (a hung run fails the test rather than hanging it).
    fn wait_for(&self, text: &str) {
        for _ in 0..1000 {
            if self.shown().contains(text) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("{text:?} never shown; shown: {:?}", self.shown());
    }

    fn type_in(&mut self, text: &str) {
        use std::io::Write;
        self.master.write_all(text.as_bytes()).expect("type");
    }

    /// The exit status and everything shown.
    fn finish(self) -> (i32, String) {
        let Terminal {
            master: _master,
            mut child,
            shown,
            reader,
        } = self;
        let status = child.wait().expect("wait");
        reader.join().expect("reader");
        let shown = String::from_utf8_lossy(&shown.lock().expect("lock")).into_owned();
        (status.code().expect("exited"), shown)
    }
}

/// Longer than the progress line waits before it is drawn: a spinner would be on the
/// terminal by then.
#[cfg(target_os = "linux")]
const PAST_THE_SPINNERS_DELAY: std::time::Duration = std::time::Duration::from_millis(1500);

/// What the terminal shows of text typed into it: each line echoed, ended by CR LF.
#[cfg(target_os = "linux")]
fn echoed(text: &str) -> String {
    text.replace('\n', "\r\n")
}

#[test]
#[cfg(target_os = "linux")]
fn on_a_terminal_it_says_it_reads_standard_input_and_draws_nothing_into_the_paste() {
    let r = repo();
    let twin = repo();
    let piped = twin.apply(&[], PATCH);
    piped.code(0);
    assert_eq!(piped.stderr, "");
    let mut t = Terminal::run(&r, &[]);
    let hint = "Reading the patch from standard input: paste or type it, then press Ctrl-D at \
                the start of a line (or name a patch file: git llm-apply PATCH)\r\n";
    t.wait_for("Ctrl-D");
    std::thread::sleep(PAST_THE_SPINNERS_DELAY);
    assert_eq!(t.shown(), hint, "nothing but the hint while it waits");
    // Ctrl-D at the start of a line ends the input.
    t.type_in(PATCH);
    t.type_in("\x04");
    let (code, shown) = t.finish();
    assert_eq!(code, 0, "{shown}");
    assert_eq!(
        shown,
        format!("{hint}{}{}", echoed(PATCH), echoed(&piped.stdout))
    );
    assert_eq!(r.read("f.txt"), expected().into_bytes());
}

/// A pre-hook that takes 1.6 s: a run longer than the progress line's delay.
#[cfg(target_os = "linux")]
fn slow(r: &TestRepo) {
    use std::os::unix::fs::PermissionsExt;
    let hook = r.abs(".git/hooks/pre-llm-apply");
    std::fs::create_dir_all(hook.parent().expect("hooks dir")).expect("mkdir");
    std::fs::write(&hook, "#!/bin/sh\ncat >/dev/null\nsleep 1.6\n").expect("hook");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// What a terminal shows before and after the progress line was last taken off it (written
/// over with spaces, the cursor back at the line's start), and each line drawn before,
/// without the spaces that cover a longer one.
#[cfg(target_os = "linux")]
fn progress_lines(shown: &str) -> (Vec<&str>, &str, &str) {
    let erased = regex::Regex::new("\r +\r").expect("pattern");
    let last = erased.find_iter(shown).last().expect("the line taken off");
    let (before, after) = (&shown[..last.start()], &shown[last.end()..]);
    // A line is drawn from the line's start, beginning with its spinner (a braille
    // character); what comes before the first is what the terminal showed already (echoed
    // lines end with CR LF, whose CR begins no line).
    let line = regex::Regex::new("\r([\u{2800}-\u{28ff}][^\r]*)").expect("pattern");
    let typed = &before[..line.find(before).map_or(before.len(), |m| m.start())];
    let frames = line
        .captures_iter(before)
        .map(|c| c.get(1).expect("a line").as_str().trim_end())
        .collect();
    (frames, typed, after)
}

/// Each progress line: the spinner, the stage, and the run's time so far. The first is
/// planning (the slow hook runs then); a loaded machine may draw a later stage before the
/// line is taken off, but only in the run's order.
#[cfg(target_os = "linux")]
fn check_frames(frames: &[&str], seconds: &str) {
    const STAGES: [&str; 4] = [
        "planning",
        "checking the plan",
        "approving",
        "recording the snapshot and writing",
    ];
    assert!(frames.len() >= 2, "drawn again in place: {frames:?}");
    let mut at = 0;
    for f in frames {
        let spinner = f.chars().next().expect("a frame");
        assert!(('\u{2800}'..='\u{28ff}').contains(&spinner), "{f:?}");
        let rest = &f[spinner.len_utf8()..];
        let stage = STAGES
            .iter()
            .position(|s| rest.starts_with(&format!(" {s} (")))
            .unwrap_or_else(|| panic!("a stage of the run: {f:?}"));
        assert!(stage >= at && rest.ends_with("s)"), "{frames:?}");
        at = stage;
    }
    assert!(
        frames[0].ends_with(&format!(" planning ({seconds})")),
        "{frames:?}"
    );
}

/// A run that goes on past the delay shows one line on the terminal, a spinner and the
/// stage, drawn again in place; it is gone (written over) before the report is printed,
/// which reads as it does without a terminal. Under -q nothing is shown.
#[test]
#[cfg(target_os = "linux")]
fn on_a_terminal_a_slow_run_shows_its_stage_and_clears_it_before_the_report() {
    let (r, twin) = (repo(), repo());
    slow(&r);
    slow(&twin);
    let (_dir, p) = patch_file();
    let piped = Run::from(twin.cmd(&[&p]).output().expect("run"));
    piped.code(0);
    let (code, shown) = Terminal::run(&r, &[&p]).finish();
    assert_eq!(code, 0, "{shown}");
    let (frames, typed, report) = progress_lines(&shown);
    assert_eq!(typed, "", "nothing before the line");
    check_frames(&frames, "1s");
    assert_eq!(report, echoed(&piped.stdout));
    assert_eq!(r.read("f.txt"), expected().into_bytes());

    // -q shows only errors: not the line either.
    let quiet = repo();
    slow(&quiet);
    assert_eq!(
        Terminal::run(&quiet, &["-q", &p]).finish(),
        (0, String::new())
    );
    assert_eq!(quiet.read("f.txt"), expected().into_bytes());
}

/// A run that panics after its progress line was drawn takes the line off before anything
/// else is written (the backtrace, asked for here, then the error), and writes nothing.
#[test]
#[cfg(target_os = "linux")]
fn on_a_terminal_a_panic_clears_the_line_before_the_error() {
    let r = repo();
    slow(&r);
    let (_dir, p) = patch_file();
    let (code, shown) = Terminal::run_env(
        &r,
        &[&p],
        &[
            ("GIT_LLM_APPLY_TEST_PANIC_AT", "checking the plan"),
            ("RUST_BACKTRACE", "1"),
        ],
    )
    .finish();
    assert_ne!(code, 0, "{shown}");
    let (frames, typed, after) = progress_lines(&shown);
    assert_eq!(typed, "", "nothing before the line");
    check_frames(&frames, "1s");
    assert!(
        after.starts_with("   0: ")
            && after.contains("error: internal error")
            && after.contains("injected for a test at: checking the plan"),
        "the backtrace and the error after the line is gone: {after:?}"
    );
    assert_eq!(r.read("f.txt"), numbered("l", 6).into_bytes());
}

/// A patch typed or pasted at the terminal holds the line off, and its time is not the
/// run's: once the patch has been read, the line appears after the usual delay and counts
/// from then (1 s, not the 2.5 s since the process started).
#[test]
#[cfg(target_os = "linux")]
fn on_a_terminal_the_line_counts_from_when_the_typed_patch_was_read() {
    let (r, twin) = (repo(), repo());
    slow(&r);
    slow(&twin);
    let piped = twin.apply(&[], PATCH);
    piped.code(0);
    let mut t = Terminal::run(&r, &[]);
    t.wait_for("Ctrl-D");
    std::thread::sleep(PAST_THE_SPINNERS_DELAY);
    t.type_in(PATCH);
    t.type_in("\x04");
    let (code, shown) = t.finish();
    assert_eq!(code, 0, "{shown}");
    let (frames, typed, report) = progress_lines(&shown);
    assert!(
        typed.ends_with(&echoed(PATCH)),
        "only the hint and the patch before: {typed:?}"
    );
    check_frames(&frames, "1s");
    assert_eq!(report, echoed(&piped.stdout));
}

#[test]
#[cfg(target_os = "linux")]
fn on_a_terminal_quiet_waits_silently_and_a_named_patch_needs_no_hint() {
    let r = repo();
    let mut t = Terminal::run(&r, &["-q"]);
    std::thread::sleep(PAST_THE_SPINNERS_DELAY);
    assert_eq!(t.shown(), "", "-q: only errors");
    t.type_in(PATCH);
    t.type_in("\x04");
    assert_eq!(t.finish(), (0, echoed(PATCH)));
    assert_eq!(r.read("f.txt"), expected().into_bytes());

    let r = repo();
    let twin = repo();
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("x.patch");
    std::fs::write(&p, PATCH).expect("write");
    let path = p.to_str().expect("utf-8");
    let piped = Run::from(twin.cmd(&[path]).output().expect("run"));
    piped.code(0);
    let t = Terminal::run(&r, &[path]);
    assert_eq!(t.finish(), (0, echoed(&piped.stdout)));
}

/// The binary starts at its own `main` (src/main.rs), which opens `/dev/null` on any of the
/// standard streams that is closed, as Rust's start does, so that no file the run opens takes
/// its number and gets the report: the CLI starts with all three on `/dev/null`
/// (`GIT_LLM_APPLY_TEST_STDIO`). With all three closed the run applies, and every other file,
/// the index and HEAD are as they were.
#[test]
fn closed_standard_streams_are_no_files_the_report_lands_in() {
    let r = repo();
    let (dir, p) = patch_file();
    let seen = dir.path().join("stdio");
    let before = r.state();
    let mut cmd = r.cmd(&["--json", &p]);
    cmd.env("GIT_LLM_APPLY_TEST_STDIO", &seen);
    use std::os::unix::process::CommandExt as _;
    // SAFETY: only close() runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            for fd in 0..3 {
                libc::close(fd);
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&seen).expect("the run says what its streams are"),
        "/dev/null\n/dev/null\n/dev/null\n"
    );
    assert_eq!(r.read_str("f.txt"), expected());
    let after = r.state();
    let others = |t: &crate::common::Tree| {
        let mut t = t.clone();
        t.remove("f.txt");
        t
    };
    assert_eq!(others(&after.tree), others(&before.tree));
    assert_eq!(after.index, before.index);
    assert_eq!(after.head, before.head);
    assert_eq!(std::fs::read(&p).expect("patch"), PATCH.as_bytes());
}

/// A reader that goes away before the report is written (`| head -0`) does not kill the run
/// with SIGPIPE: the apply is done, and its status is the apply's.
#[test]
fn a_reader_gone_before_the_report_does_not_kill_the_run() {
    let r = repo();
    let (_dir, p) = patch_file();
    let mut child = r
        .cmd(&[&p])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run");
    drop(child.stdout.take());
    let status = child.wait().expect("wait");
    use std::os::unix::process::ExitStatusExt as _;
    assert_eq!(status.signal(), None, "{status:?}");
    assert_eq!(status.code(), Some(0));
    assert_eq!(r.read_str("f.txt"), expected());
}

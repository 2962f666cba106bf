//! The command line contract (DESIGN §2): inputs, --check, -C, --json, exit statuses.

use crate::common::{numbered, TestRepo};

const PATCH: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n";

fn repo() -> TestRepo {
    TestRepo::with(&[("f.txt", &numbered("l", 6))])
}

fn expected() -> String {
    numbered("l", 6).replace("l3\n", "L3\n")
}

#[test]
fn a_patch_file_argument_is_read() {
    let r = repo();
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("x.patch");
    std::fs::write(&p, PATCH).expect("write");
    let out = r.cmd(&[p.to_str().expect("utf-8")]).output().expect("run");
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

//! pre-llm-apply vetoes and passes, --check, --revert; post-llm-apply output, and --verify
//! rolling back to a byte-identical tree.

use super::{changed, cli, hook, setup, spied, spy};
use crate::common::{numbered, TestRepo};

#[test]
fn a_pre_hook_exiting_non_zero_vetoes_and_nothing_is_written() {
    let (r, patch) = setup();
    hook(
        &r,
        "pre-llm-apply",
        "#!/bin/sh\necho 'policy: f.txt is frozen' >&2\nexit 3\n",
    );
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before, "a veto writes nothing");
    assert_eq!(v["status"], "refused");
    assert_eq!(v["written"], false);
    assert_eq!(v["errors"][0]["kind"], "veto");
    assert!(v["errors"][0]["message"]
        .as_str()
        .expect("message")
        .contains("policy: f.txt is frozen"));
    assert_eq!(v["hooks"][0]["hook"], "pre-llm-apply");
    assert_eq!(v["hooks"][0]["status"], "failed");
    assert_eq!(v["hooks"][0]["exit_code"], 3);
    assert_eq!(v["hooks"][0]["stderr"], "policy: f.txt is frozen\n");
    assert_eq!(
        v["files"][0]["problems"][0],
        "not written: the pre-llm-apply hook refused the apply"
    );

    // The human report shows the hook's stderr too.
    let run = r.apply(&[], &patch);
    run.code(1).out_contains("policy: f.txt is frozen");
    assert!(run.stderr.contains("Refused: nothing was written"));
    assert_eq!(r.state(), before);
}

#[test]
fn a_passing_pre_hook_sees_the_plan_the_mode_and_the_normalised_patch() {
    let (r, patch) = setup();
    let seen = spy();
    let dir = seen.path().display();
    hook(
        &r,
        "pre-llm-apply",
        &format!(
            "#!/bin/sh\ncat > '{dir}/stdin'\necho \"$GIT_LLM_APPLY_MODE\" > '{dir}/mode'\ncp \"$GIT_LLM_APPLY_PATCH\" '{dir}/patch'\npwd > '{dir}/cwd'\n"
        ),
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), changed());
    let plan: serde_json::Value = serde_json::from_str(&spied(&seen, "stdin")).expect("JSON");
    assert_eq!(plan["status"], "planned");
    assert_eq!(plan["written"], false);
    assert_eq!(plan["files"][0]["path"], "f.txt");
    assert_eq!(plan["files"][0]["status"], "applied");
    assert_eq!(spied(&seen, "mode"), "apply\n");
    let index = patch
        .lines()
        .find(|l| l.starts_with("index "))
        .expect("git diff writes an index line");
    assert_eq!(
        spied(&seen, "patch"),
        format!(
            "diff --git a/f.txt b/f.txt\n{index}\n--- a/f.txt\n+++ b/f.txt\n@@ -7,7 +7,7 @@ l6\n l7\n l8\n l9\n-l10\n+TEN\n l11\n l12\n l13\n"
        )
    );
    assert_eq!(
        std::path::Path::new(spied(&seen, "cwd").trim()),
        r.path().canonicalize().expect("real path"),
        "hooks run at the top of the work tree, as git's do"
    );
    assert_eq!(v["hooks"][0]["status"], "passed");
}

#[test]
fn a_codex_patch_reaches_hooks_as_a_unified_diff() {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 5))]);
    let seen = spy();
    hook(
        &r,
        "pre-llm-apply",
        &format!(
            "#!/bin/sh\ncp \"$GIT_LLM_APPLY_PATCH\" '{}/patch'\n",
            seen.path().display()
        ),
    );
    let codex = "*** Begin Patch\n*** Update File: f.txt\n@@\n l2\n-l3\n+THREE\n l4\n*** Add File: new.txt\n+hello\n*** End Patch\n";
    r.apply(&[], codex).code(0);
    assert_eq!(
        spied(&seen, "patch"),
        "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n l2\n-l3\n+THREE\n l4\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n"
    );
}

#[test]
fn check_asks_the_pre_hook_too_and_a_veto_fails_the_check() {
    let (r, patch) = setup();
    let seen = spy();
    let dir = seen.path().display();
    hook(
        &r,
        "pre-llm-apply",
        &format!("#!/bin/sh\necho \"$GIT_LLM_APPLY_MODE\" > '{dir}/mode'\n[ ! -e '{dir}/deny' ]\n"),
    );
    let before = r.state();
    let (run, v) = r.apply_json(&["--check"], &patch);
    run.code(0);
    assert_eq!(v["status"], "checked");
    assert_eq!(spied(&seen, "mode"), "check\n");
    assert_eq!(r.state(), before);

    std::fs::write(seen.path().join("deny"), "").expect("deny");
    let (run, v) = r.apply_json(&["--check"], &patch);
    run.code(1);
    assert_eq!(v["status"], "refused");
    assert_eq!(v["check"], true);
    assert_eq!(v["errors"][0]["kind"], "veto");
    assert_eq!(r.state(), before);
    r.apply(&["--check"], &patch)
        .code(1)
        .out_contains("Check failed: the apply would be refused");
}

#[test]
fn revert_runs_hooks_in_revert_mode() {
    let (r, patch) = setup();
    r.apply(&[], &patch).code(0);
    let seen = spy();
    hook(
        &r,
        "pre-llm-apply",
        &format!(
            "#!/bin/sh\necho \"$GIT_LLM_APPLY_MODE\" > '{}/mode'\n",
            seen.path().display()
        ),
    );
    r.apply(&["--revert", "-"], &patch).code(0);
    assert_eq!(spied(&seen, "mode"), "revert\n");
    assert_eq!(r.read_str("f.txt"), numbered("l", 20));
}

#[test]
fn hooks_do_not_run_when_nothing_would_be_written() {
    let (r, patch) = setup();
    let seen = spy();
    hook(
        &r,
        "pre-llm-apply",
        &format!("#!/bin/sh\ntouch '{}/ran'\n", seen.path().display()),
    );
    hook(
        &r,
        "post-llm-apply",
        &format!("#!/bin/sh\ntouch '{}/ran'\n", seen.path().display()),
    );
    r.write("f.txt", numbered("x", 20).as_bytes());
    r.apply(&[], &patch).code(1);
    assert!(
        !seen.path().join("ran").exists(),
        "a refused plan has nothing to gate"
    );
    r.write("f.txt", changed().as_bytes());
    r.apply(&[], &patch).code(0);
    assert!(
        !seen.path().join("ran").exists(),
        "already applied: nothing to gate"
    );
}

#[test]
fn post_hook_gets_the_result_and_its_output_joins_the_report() {
    let (r, patch) = setup();
    let seen = spy();
    hook(
        &r,
        "post-llm-apply",
        &format!(
            "#!/bin/sh\ncat > '{dir}/stdin'\ncp \"$GIT_LLM_APPLY_PATCH\" '{dir}/patch'\necho 'build: ok'\necho 'warning: unused x' >&2\n",
            dir = seen.path().display()
        ),
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), changed());
    let result: serde_json::Value = serde_json::from_str(&spied(&seen, "stdin")).expect("JSON");
    assert_eq!(result["status"], "applied");
    assert_eq!(result["written"], true);
    assert!(
        spied(&seen, "patch").contains("\n-l10\n+TEN\n"),
        "a post hook gets the normalised patch too"
    );
    assert_eq!(v["hooks"][0]["hook"], "post-llm-apply");
    assert_eq!(v["hooks"][0]["stdout"], "build: ok\n");
    assert_eq!(v["hooks"][0]["stderr"], "warning: unused x\n");

    r.git(&["checkout", "--", "f.txt"]);
    let run = r.apply(&[], &patch);
    run.code(0)
        .out_contains("post-llm-apply hook passed:\n    build: ok\n    warning: unused x\n");
}

#[test]
fn a_failing_post_hook_without_verify_keeps_the_apply_and_says_so() {
    let (r, patch) = setup();
    hook(
        &r,
        "post-llm-apply",
        "#!/bin/sh\necho 'error[E0308]: mismatched types' >&2\nexit 1\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), changed());
    assert_eq!(v["status"], "applied");
    assert_eq!(v["hooks"][0]["stderr"], "error[E0308]: mismatched types\n");
    assert!(v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .any(|n| n["kind"] == "post-hook-failed"));
}

/// A patch that modifies, creates (in a new directory), deletes and changes a mode, so a
/// rollback has every kind of change to undo.
fn busy_repo() -> (TestRepo, String) {
    let r = TestRepo::with(&[
        ("a.txt", &numbered("a", 6)),
        ("gone.txt", "bye\n"),
        ("tool.sh", "echo hi\n"),
    ]);
    r.write("a.txt", numbered("a", 6).replace("a3\n", "A3\n").as_bytes());
    r.write("deep/new/b.txt", b"new file\n");
    std::fs::remove_file(r.abs("gone.txt")).expect("rm");
    r.set_exec("tool.sh", true);
    r.git(&["add", "-A"]);
    let patch = r.git(&["diff", "--cached"]);
    r.git(&["reset", "-q", "--hard"]);
    r.git(&["clean", "-qfd"]);
    // An uncommitted edit elsewhere must survive the round trip untouched.
    r.write(
        "a.txt",
        numbered("a", 6).replace("a6\n", "a6 (mine)\n").as_bytes(),
    );
    (r, patch)
}

#[test]
fn verify_rolls_back_when_the_post_hook_fails_and_the_tree_is_byte_identical() {
    let (r, patch) = busy_repo();
    // The hook also scribbles on a file the apply wrote, as a formatter might.
    hook(
        &r,
        "post-llm-apply",
        "#!/bin/sh\necho 'tests: 1 failed' >&2\necho scribble >> a.txt\nexit 2\n",
    );
    let before = r.state();
    let (run, v) = r.apply_json(&["--verify"], &patch);
    run.code(1);
    assert_eq!(r.state(), before, "every byte, mode and path as before");
    assert!(!r.exists("deep"), "directories the apply created are gone");
    assert_eq!(v["status"], "refused");
    assert_eq!(v["written"], false);
    assert_eq!(v["errors"][0]["kind"], "verify");
    assert!(v["errors"][0]["message"]
        .as_str()
        .expect("message")
        .contains("rolled the apply back"));
    assert_eq!(v["hooks"][0]["stderr"], "tests: 1 failed\n");
    assert_eq!(
        v["files"][0]["problems"][0],
        "rolled back: the post-llm-apply hook failed under --verify"
    );

    // The apply's snapshot stays in the log, marked undone: `undo` has nothing left to do.
    let log: serde_json::Value =
        serde_json::from_str(&cli(&r, &["log", "--json"]).stdout).expect("log JSON");
    assert_eq!(log["snapshots"][0]["status"], "undone");
    cli(&r, &["undo"]).code(1).out_contains("already undone");
    assert_eq!(r.state(), before);

    // The same through configuration, with the human report saying why.
    r.git(&["config", "llm-apply.verify", "true"]);
    let run = r.apply(&[], &patch);
    run.code(1)
        .out_contains("--verify rolled the apply back")
        .out_contains("tests: 1 failed");
    assert_eq!(r.state(), before);

    // And without a snapshot to record in.
    r.apply(&["--no-snapshot"], &patch).code(1);
    assert_eq!(r.state(), before);
}

#[test]
fn verify_keeps_the_apply_when_the_post_hook_passes() {
    let (r, patch) = busy_repo();
    hook(&r, "post-llm-apply", "#!/bin/sh\nexit 0\n");
    r.apply(&["--verify"], &patch).code(0);
    assert_eq!(
        r.read_str("a.txt"),
        numbered("a", 6)
            .replace("a3\n", "A3\n")
            .replace("a6\n", "a6 (mine)\n")
    );
    assert_eq!(r.read_str("deep/new/b.txt"), "new file\n");
    assert!(!r.exists("gone.txt"));
}

#[test]
fn verify_without_a_post_hook_says_nothing_was_verified() {
    let (r, patch) = setup();
    let (run, v) = r.apply_json(&["--verify"], &patch);
    run.code(0);
    assert!(v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .any(|n| n["kind"] == "nothing-verified"));
}

#[test]
fn index_is_staged_only_after_verification_passed() {
    let (r, patch) = setup();
    hook(&r, "post-llm-apply", "#!/bin/sh\nexit 1\n");
    let before = r.state();
    r.apply(&["--verify", "--index"], &patch).code(1);
    assert_eq!(r.state(), before, "the index too is as it was");
}

#[test]
fn core_hooks_path_is_where_hooks_are_found() {
    let (r, patch) = setup();
    r.git(&["config", "core.hooksPath", "my-hooks"]);
    super::write_exec(
        &r.abs("my-hooks/pre-llm-apply"),
        "#!/bin/sh\necho 'from core.hooksPath' >&2\nexit 1\n",
    );
    // A hook in .git/hooks is not used when core.hooksPath points elsewhere.
    hook(&r, "pre-llm-apply", "#!/bin/sh\nexit 0\n");
    r.apply(&[], &patch)
        .code(1)
        .out_contains("from core.hooksPath");
}

#[test]
fn a_linked_worktree_uses_the_common_hooks_directory() {
    let (r, patch) = setup();
    hook(
        &r,
        "pre-llm-apply",
        "#!/bin/sh\necho \"vetoed in $(basename \"$PWD\")\" >&2\nexit 1\n",
    );
    let wt = tempfile::tempdir().expect("tmp");
    let linked = wt.path().join("linked");
    r.add_worktree(&linked, Some("side"), None);
    let mut c = r.cmd(&["-C", linked.to_str().expect("utf-8")]);
    c.stdin(std::process::Stdio::piped());
    use std::io::Write;
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(patch.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("vetoed in linked"));
    assert_eq!(
        std::fs::read_to_string(linked.join("f.txt")).expect("read"),
        numbered("l", 20)
    );
}

/// The planned report's `exit_code` is what the run returns if the gate lets it through,
/// derived from its files and `--partial` (not the `planned` status's own 0): a hook that
/// reads it learns that a partial apply is coming.
#[test]
fn the_planned_reports_exit_code_is_what_the_run_will_return() {
    let (r, single) = setup();
    // A second file whose hunk does not fit: refused, so only --partial writes f.txt.
    r.write("g.txt", b"one\ntwo\n");
    r.commit_all("g");
    let patch =
        format!("{single}--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n one\n-not there\n+three\n");
    let seen = spy();
    let dir = seen.path().display();
    hook(
        &r,
        "pre-llm-apply",
        &format!("#!/bin/sh\ncat > '{dir}/stdin'\n"),
    );
    let (run, v) = r.apply_json(&["--partial"], &patch);
    run.code(3);
    assert_eq!(v["exit_code"], 3);
    let plan: serde_json::Value = serde_json::from_str(&spied(&seen, "stdin")).expect("JSON");
    assert_eq!(plan["status"], "planned");
    assert_eq!(
        plan["exit_code"], 3,
        "the hook is told the run ends partial"
    );

    r.git(&["checkout", "--", "f.txt"]);
    let (run, _) = r.apply_json(&[], &single);
    run.code(0);
    let plan: serde_json::Value = serde_json::from_str(&spied(&seen, "stdin")).expect("JSON");
    assert_eq!(plan["exit_code"], 0);
}

//! Snapshots through the binary: every apply records one, `--revert` / `undo` take it back
//! byte for byte (keeping later edits where a merge can), `log` lists them, an interrupted
//! apply is rolled back by the next run, and concurrent runs take turns.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{diff_of, numbered, text, Run, TestRepo};

/// Run the binary without input (undo, log, --revert without a patch).
fn run(r: &TestRepo, args: &[&str]) -> Run {
    let out = r
        .cmd(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the binary");
    Run::from(out)
}

fn log_json(r: &TestRepo) -> serde_json::Value {
    let run = run(r, &["log", "--json"]);
    run.code(0);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", run.stdout))
}

/// The ids `log` lists, newest first.
fn log_ids(r: &TestRepo) -> Vec<u64> {
    log_json(r)["snapshots"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| s["id"].as_u64().expect("numeric id"))
        .collect()
}

/// Files the user has around the apply that it must never touch: an untracked file, an
/// ignored one, and a staged change (so the index differs from HEAD).
fn clutter(r: &TestRepo) {
    r.write("notes.txt", b"mine, untracked\n");
    r.write("build.log", b"ignored output\n");
    r.write("staged.txt", b"staged change\n");
    r.git(&["add", "staged.txt"]);
    r.write("staged.txt", b"staged change, then edited\n");
}

fn base_repo(files: &[(&str, &[u8])]) -> TestRepo {
    let r = TestRepo::empty();
    r.write(".gitignore", b"*.log\n");
    r.write("staged.txt", b"committed\n");
    for (p, bytes) in files {
        r.write(p, bytes);
    }
    r.commit_all("base");
    r
}

/// Apply `patch`, check it changed the tree, revert with `--revert` (no patch), and
/// demand the tree, the index and HEAD exactly as before.
#[track_caller]
fn round_trip(r: &TestRepo, patch: &str) {
    clutter(r);
    let before = r.state();
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(v["snapshot"], "refs/llm-apply/1", "{}", run.stdout);
    assert_ne!(r.tree(), before.tree, "the apply changed something");
    assert_eq!(
        r.state().index,
        before.index,
        "the apply leaves the index alone"
    );
    run_revert(r);
    assert_eq!(
        r.state(),
        before,
        "tree, index and HEAD as before the apply"
    );
}

#[track_caller]
fn run_revert(r: &TestRepo) {
    let out = run(r, &["--revert"]);
    out.code(0).out_contains("snapshot 1 undone");
}

#[test]
fn revert_restores_a_modified_file() {
    let r = base_repo(&[("m.txt", numbered("l", 10).as_bytes())]);
    let patch = diff_of(&r, |r| r.write("m.txt", numbered("l", 9).as_bytes()));
    round_trip(&r, &patch);
}

#[test]
fn revert_removes_an_added_file_and_the_directories_it_made() {
    let r = base_repo(&[("keep.txt", b"keep\n")]);
    let patch = diff_of(&r, |r| r.write("new/deep/added.txt", b"hello\n"));
    round_trip(&r, &patch);
    assert!(!r.exists("new"), "no empty directory left behind");
}

#[test]
fn revert_brings_a_deleted_file_back() {
    let r = base_repo(&[("gone/d.txt", b"delete me\n"), ("keep.txt", b"k\n")]);
    let patch = diff_of(&r, |r| {
        std::fs::remove_file(r.abs("gone/d.txt")).expect("rm");
    });
    round_trip(&r, &patch);
}

#[test]
fn revert_undoes_a_rename() {
    let r = base_repo(&[("old/name.txt", numbered("r", 20).as_bytes())]);
    let patch = diff_of(&r, |r| {
        r.git(&["mv", "old/name.txt", "moved.txt"]);
    });
    assert!(patch.contains("rename from"), "{patch}");
    round_trip(&r, &patch);
}

#[test]
fn revert_undoes_a_mode_change() {
    let r = base_repo(&[("run.sh", b"#!/bin/sh\necho hi\n")]);
    let patch = diff_of(&r, |r| r.set_exec("run.sh", true));
    assert!(patch.contains("new mode 100755"), "{patch}");
    round_trip(&r, &patch);
}

#[test]
fn revert_restores_crlf_and_bom_files_byte_for_byte() {
    let crlf = b"one\r\ntwo\r\nthree\r\n";
    let bom = b"\xef\xbb\xbffirst\nsecond\nno newline at end";
    let r = base_repo(&[("crlf.txt", crlf), ("bom.txt", bom)]);
    let patch = diff_of(&r, |r| {
        r.write("crlf.txt", b"one\r\nTWO\r\nthree\r\n");
        r.write("bom.txt", b"\xef\xbb\xbffirst\nSECOND\nno newline at end");
    });
    round_trip(&r, &patch);
}

#[test]
fn revert_of_a_many_file_patch_leaves_index_untracked_and_ignored_files_exactly_as_they_were() {
    let r = base_repo(&[
        ("m.txt", numbered("m", 8).as_bytes()),
        ("d.txt", b"deleted\n"),
        ("old.txt", numbered("o", 12).as_bytes()),
        ("run.sh", b"#!/bin/sh\n"),
        ("crlf.txt", b"a\r\nb\r\n"),
    ]);
    let patch = diff_of(&r, |r| {
        r.write("m.txt", numbered("M", 8).as_bytes());
        std::fs::remove_file(r.abs("d.txt")).expect("rm");
        std::fs::create_dir_all(r.abs("dir")).expect("mkdir");
        r.git(&["mv", "old.txt", "dir/new.txt"]);
        r.set_exec("run.sh", true);
        r.write("crlf.txt", b"a\r\nB\r\n");
        r.write("added.txt", b"new\n");
    });
    round_trip(&r, &patch);
    assert_eq!(r.read_str("notes.txt"), "mine, untracked\n");
    assert_eq!(r.read_str("build.log"), "ignored output\n");
}

#[test]
fn an_edit_after_the_apply_elsewhere_in_the_file_survives_the_undo() {
    let original = numbered("l", 20);
    let r = TestRepo::with(&[("f.txt", &original)]);
    let patch = diff_of(&r, |r| {
        r.write("f.txt", original.replace("l3\n", "applied\n").as_bytes())
    });
    r.apply(&[], &patch).code(0);
    let edited = r.read_str("f.txt").replace("l15\n", "mine\n");
    r.write("f.txt", edited.as_bytes());

    let out = run(&r, &["undo", "--json"]);
    out.code(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["files"][0]["strategy"], "history-3way");
    assert_eq!(
        r.read_str("f.txt"),
        original.replace("l15\n", "mine\n"),
        "the apply's change is gone, the later edit stays"
    );
}

#[test]
fn an_overlapping_edit_is_refused_by_name_and_force_overrides_and_can_itself_be_undone() {
    let original = numbered("l", 10);
    let r = TestRepo::with(&[("f.txt", &original), ("g.txt", "other\n")]);
    let patch = diff_of(&r, |r| {
        r.write("f.txt", original.replace("l3\n", "applied\n").as_bytes());
        r.write("g.txt", b"other, patched\n");
    });
    r.apply(&[], &patch).code(0);
    let mine = r
        .read_str("f.txt")
        .replace("applied\n", "applied, then mine\n");
    r.write("f.txt", mine.as_bytes());
    let before_refusal = r.state();

    let refused = run(&r, &["undo"]);
    refused
        .code(1)
        .out_contains("f.txt")
        .out_contains("--force");
    assert_eq!(
        r.state(),
        before_refusal,
        "a refusal writes nothing, g.txt included"
    );
    assert_eq!(log_json(&r)["snapshots"][0]["status"], "applied");

    let forced = run(&r, &["undo", "1", "--force", "--json"]);
    forced.code(0);
    let v: serde_json::Value = serde_json::from_str(&forced.stdout).expect("json");
    assert_eq!(r.read_str("f.txt"), original);
    assert_eq!(r.read_str("g.txt"), "other\n");
    let kept = v["snapshot"].as_str().expect("the undo's own snapshot");
    assert_eq!(kept, "refs/llm-apply/2");

    // The forced undo is undone like any apply: the overwritten edit comes back.
    run(&r, &["undo", "2"]).code(0);
    assert_eq!(r.read_str("f.txt"), mine);
    assert_eq!(r.read_str("g.txt"), "other, patched\n");
    let log = log_json(&r);
    let status: Vec<(&str, Option<u64>)> = log["snapshots"]
        .as_array()
        .expect("list")
        .iter()
        .map(|s| (s["status"].as_str().expect("status"), s["undoes"].as_u64()))
        .collect();
    assert_eq!(
        status,
        [("undo", Some(2)), ("undone", Some(1)), ("applied", None)],
        "snapshot 1's change is back, so it counts as applied again; the newest is an undo's record"
    );
}

#[test]
fn twenty_applies_are_listed_newest_first_and_a_middle_one_undoes_alone() {
    let files: Vec<(String, String)> = (1..=20)
        .map(|i| (format!("f{i:02}.txt"), numbered(&format!("f{i}-"), 5)))
        .collect();
    let pairs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let r = TestRepo::with(&pairs);
    for (i, (path, content)) in files.iter().enumerate() {
        let patch = format!(
            "Change {path}\n\n--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n f{n}-1\n-f{n}-2\n+changed\n f{n}-3\n",
            n = i + 1
        );
        r.apply(&[], &patch).code(0);
        assert!(r.read_str(path).contains("changed"), "{content}");
    }
    let log = log_json(&r);
    let entries = log["snapshots"].as_array().expect("list");
    assert_eq!(entries.len(), 20);
    assert_eq!(log_ids(&r), (1..=20).rev().collect::<Vec<u64>>());
    let tenth = &entries[10];
    assert_eq!(tenth["id"], 10);
    assert_eq!(tenth["intent"], "Change f10.txt");
    assert_eq!(tenth["status"], "applied");
    assert_eq!(
        (tenth["files"].as_u64(), tenth["added"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(tenth["paths"][0], "f10.txt");
    assert!(tenth["time"].as_str().expect("time").contains('T'));

    let before = r.tree();
    run(&r, &["undo", "10"]).code(0);
    let mut expected = before.clone();
    expected.get_mut("f10.txt").expect("f10").1 = files[9].1.clone().into_bytes();
    assert_eq!(r.tree(), expected, "only f10.txt changed");

    let human = run(&r, &["log"]);
    human.code(0);
    let lines: Vec<&str> = human.stdout.lines().collect();
    assert_eq!(lines.len(), 21, "{}", human.stdout);
    assert!(lines[0].contains("undo of snapshot 10"), "{}", lines[0]);
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("10 ") && l.contains("undone")),
        "{}",
        human.stdout
    );
}

#[test]
fn undoing_twice_is_a_clear_error_and_unknown_ids_are_usage_errors() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
        .code(0);
    run(&r, &["undo", "1"]).code(0);
    let state = r.state();
    run(&r, &["undo", "1"])
        .code(1)
        .out_contains("snapshot 1 was already undone");
    run(&r, &["--revert"])
        .code(1)
        .out_contains("already undone");
    run(&r, &["undo", "99"])
        .code(2)
        .out_contains("no snapshot 99");
    run(&r, &["undo", "x"]).code(2);
    assert_eq!(r.state(), state);
}

#[test]
fn nothing_to_undo_is_said_plainly() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    run(&r, &["--revert"])
        .code(1)
        .out_contains("nothing to undo: no apply was recorded here");
    run(&r, &["log"])
        .code(0)
        .out_contains("No applies recorded");
}

#[test]
fn check_and_no_snapshot_record_nothing() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
    r.apply(&["--check"], patch).code(0);
    let (run_, v) = r.apply_json(&["--no-snapshot"], patch);
    run_.code(0);
    assert!(v.get("snapshot").is_none(), "{}", run_.stdout);
    assert_eq!(r.read_str("f.txt"), "b\n");
    assert_eq!(r.git(&["for-each-ref", "refs/llm-apply/"]), "");
    assert!(log_ids(&r).is_empty());
}

#[test]
fn revert_with_a_patch_is_recorded_and_undoable_too() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
    r.apply(&[], patch).code(0);
    r.apply(&["--revert", "-"], patch).code(0);
    assert_eq!(r.read_str("f.txt"), "a\n");
    run(&r, &["undo"]).code(0);
    assert_eq!(r.read_str("f.txt"), "b\n", "undoing the reverse apply");
}

#[test]
fn only_the_newest_llm_apply_keep_snapshots_are_kept() {
    let r = TestRepo::with(&[("f.txt", "0\n")]);
    r.git(&["config", "llm-apply.keep", "3"]);
    for i in 0..5 {
        let patch = format!("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-{i}\n+{}\n", i + 1);
        r.apply(&[], &patch).code(0);
    }
    assert_eq!(log_ids(&r), [5, 4, 3]);
}

#[test]
fn works_on_an_unborn_branch() {
    let r = TestRepo::empty();
    r.write("f.txt", b"not committed\n");
    let before = r.state();
    r.apply(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-not committed\n+patched\n",
    )
    .code(0);
    assert_eq!(r.read_str("f.txt"), "patched\n");
    let parents = r.git(&["rev-list", "--parents", "-n", "1", "refs/llm-apply/1"]);
    assert_eq!(
        parents.split_whitespace().count(),
        2,
        "only the post commit"
    );
    run(&r, &["--revert"]).code(0);
    assert_eq!(r.state(), before);
    assert!(r
        .git_cmd(&["rev-parse", "-q", "--verify", "HEAD"])
        .output()
        .expect("git")
        .stdout
        .is_empty());
}

#[test]
fn works_on_a_detached_head() {
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    r.write("f.txt", b"two\n");
    r.commit_all("two");
    r.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let before = r.state();
    r.apply(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+patched\n",
    )
    .code(0);
    run(&r, &["--revert"]).code(0);
    assert_eq!(r.state(), before, "HEAD still detached at the same commit");
    let head = r.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        r.git(&["rev-parse", "refs/llm-apply/1^1"]),
        head,
        "the snapshot's first parent is the detached HEAD"
    );
}

#[test]
fn works_in_a_linked_worktree_with_shared_refs_and_its_own_lock() {
    let r = TestRepo::with(&[("f.txt", "main\n")]);
    let outside = tempfile::tempdir().expect("temp dir");
    let wt = outside.path().join("wt");
    r.add_worktree(&wt, Some("side"), None);
    std::fs::write(wt.join("f.txt"), b"main, edited in the worktree\n").expect("write");
    let main_before = r.state();
    let wt_index = r.path().join(".git/worktrees/wt/index");
    let wt_index_before = std::fs::read(&wt_index).expect("worktree index");
    let wt_arg = wt.to_str().expect("utf-8");

    let out = r.apply(
        &["-C", wt_arg],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-main, edited in the worktree\n+patched\n",
    );
    out.code(0);
    assert_eq!(std::fs::read(wt.join("f.txt")).expect("read"), b"patched\n");
    assert_eq!(r.state(), main_before, "the main worktree is not touched");
    assert!(
        !r.path().join(".git/llm-apply/journal").exists()
            && r.path().join(".git/worktrees/wt/llm-apply").is_dir(),
        "journal and lock live in the worktree's own git dir"
    );
    assert_eq!(
        log_ids(&r),
        [1],
        "refs are shared: the main worktree lists it"
    );

    run(&r, &["-C", wt_arg, "--revert"]).code(0);
    assert_eq!(
        std::fs::read(wt.join("f.txt")).expect("read"),
        b"main, edited in the worktree\n"
    );
    assert_eq!(std::fs::read(&wt_index).expect("index"), wt_index_before);
    assert_eq!(r.state(), main_before);
}

#[test]
fn fsck_is_clean_and_every_snapshot_ref_peels_to_a_commit() {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 6)), ("g.txt", "g\n")]);
    for (from, to) in [("l2", "x"), ("x", "y"), ("l5", "z")] {
        let patch = format!("--- a/f.txt\n+++ b/f.txt\n@@ @@\n-{from}\n+{to}\n");
        r.apply(&[], &patch).code(0);
    }
    run(&r, &["undo", "2", "--force"]).code(0);
    run(&r, &["undo", "3"]).code(0);
    let out = r
        .git_cmd(&["fsck", "--strict", "--no-dangling"])
        .output()
        .expect("git fsck");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refs = r.git(&[
        "for-each-ref",
        "--format=%(refname) %(objecttype)",
        "refs/llm-apply/",
        "refs/llm-apply-undone/",
    ]);
    assert!(refs.lines().count() >= 5, "{refs}");
    for line in refs.lines() {
        assert!(line.ends_with(" commit"), "{line}");
        let name = line.split(' ').next().expect("name");
        assert_eq!(
            r.git(&["cat-file", "-t", &format!("{name}^{{commit}}")]),
            "commit\n"
        );
    }
}

fn three_files() -> (TestRepo, String) {
    let r = base_repo(&[
        ("a.txt", numbered("a", 4).as_bytes()),
        ("b/b.txt", numbered("b", 4).as_bytes()),
        ("c.txt", numbered("c", 4).as_bytes()),
    ]);
    let patch = diff_of(&r, |r| {
        r.write("a.txt", numbered("A", 4).as_bytes());
        r.write("b/b.txt", numbered("B", 4).as_bytes());
        std::fs::remove_file(r.abs("c.txt")).expect("rm");
        r.write("new/c.txt", numbered("c", 4).as_bytes());
    });
    clutter(&r);
    (r, patch)
}

#[test]
fn a_kill_midway_is_rolled_back_by_the_next_run_of_any_kind() {
    for (kill_after, next) in [
        (1, vec!["--check", "-"]),
        (2, vec!["log"]),
        (3, vec!["undo"]),
        (2, vec!["--revert"]),
    ] {
        let (r, patch) = three_files();
        let before = r.state();
        let mut c = r.cmd(&[]);
        c.env("GIT_LLM_APPLY_TEST_KILL_AFTER", kill_after.to_string());
        let killed = crate::common::Run::from({
            use std::io::Write as _;
            let mut child = c
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(patch.as_bytes())
                .expect("patch");
            child.wait_with_output().expect("wait")
        });
        assert_ne!(killed.code, 0, "the process died");
        assert_ne!(r.tree(), before.tree, "it died after writing something");
        assert!(r.path().join(".git/llm-apply/journal").exists());

        let out = if next == ["--check", "-"] {
            r.apply(&next, &patch)
        } else {
            run(&r, &next)
        };
        out.out_contains("interrupted");
        if next == ["--check", "-"] || next == ["log"] {
            out.code(0);
        }
        assert_eq!(
            r.state(),
            before,
            "after {kill_after} writes, then {next:?}"
        );
        assert!(!r.path().join(".git/llm-apply/journal").exists());
        assert_eq!(log_json(&r)["snapshots"][0]["status"], "undone");
    }
}

#[test]
fn the_next_apply_after_a_kill_restores_first_then_applies() {
    let (r, patch) = three_files();
    let before = r.state();
    let mut c = r.cmd(&[]);
    c.env("GIT_LLM_APPLY_TEST_KILL_AFTER", "2");
    {
        use std::io::Write as _;
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(patch.as_bytes())
            .expect("patch");
        assert!(!child.wait().expect("wait").success());
    }
    let (run_, v) = r.apply_json(&[], &patch);
    run_.code(0);
    let kinds: Vec<&str> = v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| n["kind"].as_str().expect("kind"))
        .collect();
    assert!(kinds.contains(&"recovered"), "{kinds:?}");
    assert_eq!(r.read_str("a.txt"), numbered("A", 4));
    assert!(!r.exists("c.txt") && r.exists("new/c.txt"));
    assert_eq!(v["snapshot"], "refs/llm-apply/2");
    run(&r, &["--revert"]).code(0);
    assert_eq!(r.state(), before);
}

#[test]
fn content_written_after_a_crash_is_kept_in_a_snapshot_before_recovery() {
    let (r, patch) = three_files();
    let before = r.state();
    let mut c = r.cmd(&[]);
    c.env("GIT_LLM_APPLY_TEST_KILL_AFTER", "3");
    {
        use std::io::Write as _;
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(patch.as_bytes())
            .expect("patch");
        assert!(!child.wait().expect("wait").success());
    }
    // The user edits a written file, in the line the apply changed, before the next run.
    r.write("a.txt", b"A1\nmine\nA3\nA4\n");
    run(&r, &["log"]).code(0).out_contains("kept in snapshot 2");
    assert_eq!(r.state(), before);
    run(&r, &["undo", "2"]).code(0);
    assert_eq!(r.read_str("a.txt"), "A1\nmine\nA3\nA4\n");
}

#[test]
fn a_failed_write_is_rolled_back_and_leaves_no_journal_and_no_snapshot() {
    let (r, patch) = three_files();
    let before = r.state();
    let mut c = r.cmd(&["--json"]);
    c.env("GIT_LLM_APPLY_TEST_FAIL_AFTER", "2");
    let out = {
        use std::io::Write as _;
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(patch.as_bytes())
            .expect("patch");
        Run::from(child.wait_with_output().expect("wait"))
    };
    out.code(1).out_contains("injected failure");
    assert_eq!(r.state(), before);
    assert!(!r.path().join(".git/llm-apply/journal").exists());
    assert!(log_ids(&r).is_empty(), "a rolled-back apply is not listed");
}

#[test]
fn two_applies_started_together_run_one_after_the_other() {
    let original = numbered("l", 12);
    let r = TestRepo::with(&[("f.txt", &original)]);
    let first = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n l1\n-l2\n+first\n l3\n";
    let second = "--- a/f.txt\n+++ b/f.txt\n@@ -9,3 +9,3 @@\n l9\n-l10\n+second\n l11\n";
    let hold = Duration::from_millis(400);
    let start = Instant::now();
    let children: Vec<_> = [first, second]
        .iter()
        .map(|patch| {
            use std::io::Write as _;
            let mut c = r.cmd(&["--json"]);
            c.env(
                "GIT_LLM_APPLY_TEST_HOLD_LOCK_MS",
                hold.as_millis().to_string(),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
            let mut child = c.spawn().expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(patch.as_bytes())
                .expect("patch");
            child
        })
        .collect();
    for child in children {
        Run::from(child.wait_with_output().expect("wait")).code(0);
    }
    assert!(
        start.elapsed() >= hold * 2,
        "each held the lock in turn: {:?}",
        start.elapsed()
    );
    assert_eq!(
        r.read_str("f.txt"),
        original
            .replace("l2\n", "first\n")
            .replace("l10\n", "second\n"),
        "neither write lost the other's change"
    );
    // The later snapshot saw the earlier apply's result: they never overlapped.
    let later = r.git(&["show", "refs/llm-apply/2:f.txt"]);
    assert!(
        later.contains("first") ^ later.contains("second"),
        "the second run's pre-apply state holds the first run's change: {later}"
    );
    assert_eq!(log_ids(&r), [2, 1]);
}

#[test]
fn a_run_that_cannot_get_the_lock_fails_clearly() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    r.git(&["config", "llm-apply.lockTimeout", "0"]);
    let repo = git_llm_apply::repo::Repo::discover(r.path())
        .expect("discover")
        .expect("a repository");
    let lock = git_llm_apply::snapshot::Lock::acquire(&repo, Duration::ZERO).expect("free");
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
        .code(4)
        .out_contains("another git llm-apply is working");
    assert_eq!(r.read_str("f.txt"), "a\n");
    drop(lock);
}

/// The prune a server runs after its answer (`run::housekeeping::prune`) drops the
/// snapshots beyond `llm-apply.keep` as an apply's own prune does, does nothing while another
/// run holds the lock (that run prunes at its end), and nothing when none is beyond.
#[test]
fn a_deferred_prune_drops_what_is_beyond_keep_unless_the_lock_is_held() {
    use git_llm_apply::run::housekeeping::{prune, Pruned};
    let r = TestRepo::with(&[("f.txt", &numbered("l", 4))]);
    for i in 1..=4 {
        r.apply(
            &[],
            &format!("--- a/f.txt\n+++ b/f.txt\n@@ -{i} +{i} @@\n-l{i}\n+L{i}\n"),
        )
        .code(0);
    }
    r.git(&["config", "llm-apply.keep", "2"]);
    let repo = git_llm_apply::repo::Repo::discover(r.path())
        .expect("discover")
        .expect("a repository");
    let here = || Some(r.path().to_path_buf());
    let lock = git_llm_apply::snapshot::Lock::acquire(&repo, Duration::ZERO).expect("free");
    assert_eq!(prune(here(), None), Ok(Pruned::Busy));
    // (`log` waits for the lock: the refs are read as git reads them.)
    let refs = r.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]);
    assert_eq!(refs.lines().count(), 4, "{refs}");
    drop(lock);
    assert_eq!(prune(here(), None), Ok(Pruned::Dropped(2)));
    assert_eq!(log_ids(&r), [4, 3]);
    assert_eq!(prune(here(), None), Ok(Pruned::Nothing));
    assert!(!r.exists(".git/llm-apply/lock"));
}

#[test]
fn intent_and_counts_are_recorded_from_the_patch() {
    let r = TestRepo::with(&[("f.txt", &text(&["a", "b", "c"]))]);
    let patch = "# Make b louder\n\nSome more words.\n\n```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B!\n c\n```\n";
    r.apply(&[], patch).code(0);
    let log = log_json(&r);
    let entry = &log["snapshots"][0];
    assert_eq!(entry["intent"], "Make b louder");
    assert_eq!(
        (
            entry["files"].as_u64(),
            entry["added"].as_u64(),
            entry["removed"].as_u64()
        ),
        (Some(1), Some(2), Some(1))
    );
    let human = run(&r, &["log"]);
    assert!(
        human
            .stdout
            .contains("applied  1 file (+2 -1)  Make b louder"),
        "{}",
        human.stdout
    );
}

#[test]
fn undo_check_says_what_would_happen_and_writes_nothing() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
        .code(0);
    let state = r.state();
    run(&r, &["undo", "--check"])
        .code(0)
        .out_contains("can be undone");
    run(&r, &["--revert", "--check"]).code(0);
    assert_eq!(r.state(), state);
    assert_eq!(log_json(&r)["snapshots"][0]["status"], "applied");
}

#[test]
fn a_file_the_apply_created_and_the_user_then_edited_is_not_deleted_without_force() {
    let r = TestRepo::with(&[("keep.txt", "k\n")]);
    r.apply(
        &[],
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+created\n",
    )
    .code(0);
    r.write("new.txt", b"created\nand then mine\n");
    run(&r, &["undo"])
        .code(1)
        .out_contains("new.txt")
        .out_contains("created");
    assert_eq!(r.read_str("new.txt"), "created\nand then mine\n");
    run(&r, &["undo", "--force"]).code(0);
    assert!(!r.exists("new.txt"));
    run(&r, &["undo", "2"]).code(0);
    assert_eq!(r.read_str("new.txt"), "created\nand then mine\n");
}

#[test]
fn misplaced_options_and_a_missing_repository_are_usage_errors() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    run(&r, &["--check", "log"]).code(2);
    run(&r, &["--revert", "--index"]).code(2);
    run(&r, &["--force", "-"]).code(2);
    let path = r.path().to_str().expect("utf-8");
    run(&r, &["-C", path, "log"]).code(0);
    let outside = tempfile::tempdir().expect("temp dir");
    let mut c = r.cmd(&["log"]);
    c.current_dir(outside.path()).env(
        "GIT_CEILING_DIRECTORIES",
        outside.path().parent().expect("parent"),
    );
    let out = Run::from(c.stdin(Stdio::null()).output().expect("run"));
    out.code(2).out_contains("not inside a git repository");
}

#[test]
fn a_journal_naming_a_missing_snapshot_stops_every_run_with_a_clear_error() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    r.write(
        ".git/llm-apply/journal",
        b"llm-apply-journal: 1\nsnapshot: 9\npid: 1\npath: f.txt\n",
    );
    let state = r.state();
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
        .code(2)
        .out_contains("journal naming snapshot 9");
    run(&r, &["log"]).code(2).out_contains("snapshot 9");
    assert_eq!(r.state(), state);
}

//! `llm-apply.keep = 0` keeps no snapshot: an apply records none (as with --no-snapshot)
//! and says so, promises no undo, and drops the snapshots recorded before.

use crate::common::TestRepo;

const PATCH: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";

#[test]
fn keep_zero_records_no_snapshot_and_promises_no_undo() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    r.git(&["config", "llm-apply.keep", "0"]);
    let out = r.apply(&[], PATCH);
    out.code(0).out_contains(
        "no snapshot was recorded: llm-apply.keep is 0 (as with --no-snapshot), so this apply \
         cannot be undone",
    );
    assert!(!out.stdout.contains("undo with"), "{}", out.stdout);
    assert_eq!(r.read_str("f.txt"), "b\n");
    assert_eq!(r.git(&["for-each-ref", "refs/llm-apply/"]), "");
    assert!(!r.abs(".git/llm-apply/journal").exists());
    let state = r.state();
    r.run(&["undo"])
        .code(1)
        .out_contains("nothing to undo: no apply was recorded here");
    assert_eq!(r.state(), state);

    r.git(&["checkout", "--", "f.txt"]);
    let (run_, v) = r.apply_json(&[], PATCH);
    run_.code(0);
    assert!(v.get("snapshot").is_none(), "{}", run_.stdout);
    assert!(
        v["notices"]
            .as_array()
            .expect("notices")
            .iter()
            .any(|n| n["kind"] == "no-snapshot"),
        "{}",
        run_.stdout
    );
}

#[test]
fn keep_zero_drops_older_snapshots_at_the_next_apply_but_an_undo_still_finds_its_own() {
    let r = TestRepo::with(&[("f.txt", "a\n"), ("g.txt", "x\n")]);
    r.apply(&[], PATCH).code(0);
    r.apply(&[], "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n")
        .code(0);
    r.git(&["config", "llm-apply.keep", "0"]);
    // An undo under keep = 0 restores, records nothing of its own, and says so.
    let out = r.run(&["undo", "2"]);
    out.code(0)
        .out_contains("snapshot 2 undone")
        .out_contains("so this undo cannot be undone");
    assert!(
        !out.stdout.contains("take this undo back"),
        "{}",
        out.stdout
    );
    assert_eq!(r.read_str("g.txt"), "x\n");
    assert_eq!(
        r.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]),
        "refs/llm-apply/1\nrefs/llm-apply/2\n"
    );
    // The next apply keeps none.
    r.apply(&[], "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+z\n")
        .code(0)
        .out_contains("the older snapshots 1, 2 were dropped");
    assert_eq!(r.git(&["for-each-ref", "refs/llm-apply/"]), "");
    assert_eq!(r.git(&["for-each-ref", "refs/llm-apply-undone/"]), "");
}

#[test]
fn an_undo_that_prunes_its_target_drops_the_targets_undone_marker_too() {
    // The undo marks snapshot 1 undone after its own snapshot (2) is named; with keep = 1
    // the prune that follows drops 1, and must drop the marker it just got as well.
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    r.git(&["config", "llm-apply.keep", "1"]);
    r.apply(&[], PATCH).code(0);
    r.run(&["undo"]).code(0).out_contains("snapshot 1 undone");
    assert_eq!(r.read_str("f.txt"), "a\n");
    assert_eq!(
        r.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]),
        "refs/llm-apply/2\n"
    );
    assert_eq!(r.git(&["for-each-ref", "refs/llm-apply-undone/"]), "");
}

//! Codex's one rule for an existing destination: `Add File` and `Move to` replace it, with a
//! warning, and undo brings it back.

use crate::common::TestRepo;

#[test]
fn a_codex_move_onto_an_existing_file_replaces_it_and_undo_restores_both() {
    let r = TestRepo::with(&[("a.txt", "one\ntwo\n"), ("b.txt", "mine\n")]);
    let before = r.state();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert!(!r.exists("a.txt"));
    assert_eq!(r.read_str("b.txt"), "one\nTWO\n");
    assert_eq!(v["files"][0]["warnings"][0]["kind"], "overwrote");
    r.cmd(&["undo"]).output().expect("undo runs");
    assert_eq!(
        r.state(),
        before,
        "undo puts back the moved file and the replaced one"
    );
}

#[test]
fn a_unified_rename_onto_an_existing_file_is_still_refused() {
    let r = TestRepo::with(&[("a.txt", "one\n"), ("b.txt", "mine\n")]);
    let before = r.state();
    let patch =
        "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n";
    r.apply(&[], patch).code(1);
    assert_eq!(r.state(), before);
}

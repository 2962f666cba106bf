//! What `undo` says: "Restored" for what it wrote, "nothing to undo" when there is nothing,
//! and, when the newest apply is already undone, which one is next.

use crate::common::TestRepo;

fn edit(line: usize, from: &str, to: &str) -> String {
    format!("--- a/f{line}.txt\n+++ b/f{line}.txt\n@@ -1 +1 @@\n-{from}\n+{to}\n")
}

fn two_applies() -> TestRepo {
    let r = TestRepo::with(&[("f1.txt", "a\n"), ("f2.txt", "b\n")]);
    r.apply(&[], &edit(1, "a", "A")).code(0);
    r.apply(&[], &edit(2, "b", "B")).code(0);
    r
}

#[test]
fn a_successful_undo_says_restored_not_applied() {
    let r = two_applies();
    let out = r.run(&["undo"]);
    out.code(0);
    assert!(
        out.stdout.contains("M f2.txt (+1 -1) restored\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("\nRestored 1 file (+1 -1)\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("Applied"), "{}", out.stdout);
    assert!(!out.stdout.contains("via file"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("snapshot: refs/llm-apply/3 (to take this undo back: git llm-apply undo 3)"),
        "{}",
        out.stdout
    );
    assert_eq!(r.read_str("f2.txt"), "b\n");
}

#[test]
fn a_second_undo_says_the_newest_is_undone_and_names_the_next_one() {
    let r = two_applies();
    r.run(&["undo"]).code(0);
    let state = r.state();
    let out = r.run(&["undo"]);
    out.code(1)
        .out_contains("the most recent apply (snapshot 2) is already undone")
        .out_contains("the next one still applied is snapshot 1: git llm-apply undo 1");
    assert_eq!(r.state(), state, "a refusal writes nothing");
    r.run(&["undo", "1"]).code(0);
    let out = r.run(&["undo"]);
    out.code(1).out_contains(
        "nothing to undo: the most recent apply (snapshot 2) is already undone and no earlier \
         apply is still applied",
    );
    assert!(!out.stderr.contains("Already applied"), "{}", out.stderr);
}

#[test]
fn undoing_an_undone_snapshot_names_the_undo_that_brings_it_back() {
    let r = two_applies();
    r.run(&["undo", "2"]).code(0);
    r.run(&["undo", "2"]).code(1).out_contains(
        "snapshot 2 was already undone: nothing to undo (git llm-apply undo 3 brings its change back)",
    );
}

#[test]
fn an_undo_with_nothing_to_write_says_nothing_to_undo() {
    let r = two_applies();
    // The user put f2.txt back by hand: the undo finds its paths already restored.
    r.write("f2.txt", b"b\n");
    let state = r.state();
    let out = r.run(&["undo"]);
    out.code(0);
    assert!(
        out.stdout
            .contains("Nothing to undo: every path already holds its pre-apply content"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("= f2.txt already restored"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("Already applied"), "{}", out.stdout);
    out.out_contains("nothing to undo, its paths already held their pre-apply content");
    assert_eq!(r.state(), state);
}

#[test]
fn an_undo_in_a_repository_without_applies_says_nothing_to_undo() {
    let r = TestRepo::with(&[("f1.txt", "a\n")]);
    let state = r.state();
    r.run(&["undo"])
        .code(1)
        .out_contains("nothing to undo: no apply was recorded here");
    assert_eq!(r.state(), state);
}

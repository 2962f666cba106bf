//! `--index` stages exactly the patch's change (unstaged edits stay unstaged, through a
//! three-way merge on the index entry), refuses what cannot be staged that way, and undo
//! puts back the index entries that still hold what the apply staged.

use crate::common::{numbered, TestRepo};

fn staged(r: &TestRepo, path: &str) -> String {
    r.git(&["show", &format!(":{path}")])
}

fn ls_files(r: &TestRepo) -> String {
    r.git(&["ls-files", "-s"])
}

/// f.txt = l1..l10 committed; the patch turns l2 into TWO.
fn repo() -> TestRepo {
    TestRepo::with(&[("f.txt", &numbered("l", 10)), ("g.txt", "g\n")])
}

const PATCH: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n l1\n-l2\n+TWO\n l3\n";

#[test]
fn a_clean_index_apply_stages_the_result_and_undo_unstages_it() {
    let r = repo();
    let before = ls_files(&r);
    r.apply(&["--index"], PATCH).code(0);
    let want = numbered("l", 10).replace("l2\n", "TWO\n");
    assert_eq!(r.read_str("f.txt"), want);
    assert_eq!(staged(&r, "f.txt"), want);
    assert_eq!(r.git(&["diff"]), "", "nothing left unstaged");
    r.run(&["undo"])
        .code(0)
        .out_contains("the index entries the apply staged were put back: f.txt");
    assert_eq!(ls_files(&r), before, "the index is as it was");
    assert_eq!(r.read_str("f.txt"), numbered("l", 10));
}

#[test]
fn unstaged_edits_stay_unstaged_and_only_the_patch_is_staged() {
    let r = repo();
    let edited = numbered("l", 10).replace("l9\n", "mine\n");
    r.write("f.txt", edited.as_bytes());
    let before = ls_files(&r);
    r.apply(&["--index"], PATCH).code(0);
    let both = edited.replace("l2\n", "TWO\n");
    assert_eq!(r.read_str("f.txt"), both);
    assert_eq!(
        staged(&r, "f.txt"),
        numbered("l", 10).replace("l2\n", "TWO\n"),
        "the index got the patch's change and not the unstaged line"
    );
    let unstaged = r.git(&["diff"]);
    assert!(
        unstaged.contains("+mine") && !unstaged.contains("TWO"),
        "{unstaged}"
    );

    r.run(&["undo"]).code(0);
    assert_eq!(ls_files(&r), before, "the index entry is put back");
    assert_eq!(
        r.read_str("f.txt"),
        edited,
        "the unstaged edit survives the undo"
    );
}

#[test]
fn unstaged_edits_that_overlap_the_patch_are_refused_and_nothing_changes() {
    let r = repo();
    // Staged l2 -> STAGED, then the work tree back at l2: the patch's l2 line would have
    // to be staged over a different staged line.
    r.write(
        "f.txt",
        numbered("l", 10).replace("l2\n", "STAGED\n").as_bytes(),
    );
    r.git(&["add", "f.txt"]);
    r.write("f.txt", numbered("l", 10).as_bytes());
    let state = r.state();
    let out = r.apply(&["--index"], PATCH);
    out.code(1)
        .out_contains("--index: f.txt: its unstaged changes overlap the patch's change")
        .out_contains("nothing was written");
    assert_eq!(r.state(), state, "tree, index and HEAD unchanged");
    assert_eq!(r.git(&["for-each-ref", "refs/llm-apply/"]), "");
}

#[test]
fn an_untracked_file_is_refused_under_index() {
    let r = repo();
    r.write("new.txt", b"a\nb\n");
    let state = r.state();
    r.apply(
        &["--index"],
        "--- a/new.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
    )
    .code(1)
    .out_contains("new.txt: it is not in the index (untracked)");
    assert_eq!(r.state(), state);
}

#[test]
fn a_created_file_is_staged_and_undo_removes_its_entry() {
    let r = repo();
    let before = ls_files(&r);
    r.apply(
        &["--index"],
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n",
    )
    .code(0);
    assert_eq!(staged(&r, "new.txt"), "new\n");
    r.run(&["undo"]).code(0);
    assert_eq!(ls_files(&r), before);
    assert!(!r.exists("new.txt"));
}

#[test]
fn undo_leaves_an_index_entry_that_changed_since_the_apply() {
    let r = repo();
    r.apply(&["--index"], PATCH).code(0);
    // The user stages something else for f.txt after the apply.
    let later = numbered("l", 10)
        .replace("l2\n", "TWO\n")
        .replace("l5\n", "five\n");
    r.write("f.txt", later.as_bytes());
    r.git(&["add", "f.txt"]);
    let entry = ls_files(&r);
    r.run(&["undo"])
        .code(0)
        .out_contains("the index entries of f.txt changed since the apply staged them");
    assert_eq!(ls_files(&r), entry, "the user's staged content is kept");
    assert_eq!(
        r.read_str("f.txt"),
        numbered("l", 10).replace("l5\n", "five\n"),
        "the work tree loses only the apply's change"
    );
}

#[test]
fn undoing_the_undo_of_an_index_apply_stages_the_change_again() {
    let r = repo();
    r.apply(&["--index"], PATCH).code(0);
    let staged_state = ls_files(&r);
    r.run(&["undo"]).code(0);
    assert_ne!(ls_files(&r), staged_state);
    // Snapshot 2 recorded the undo, index entries included.
    r.run(&["undo", "2"]).code(0);
    assert_eq!(
        ls_files(&r),
        staged_state,
        "the apply's change is staged again"
    );
    assert_eq!(
        r.read_str("f.txt"),
        numbered("l", 10).replace("l2\n", "TWO\n")
    );
}

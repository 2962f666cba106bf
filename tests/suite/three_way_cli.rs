//! Strategy 2 through the CLI: `git apply --3way` where the preimage blob exists, text
//! fallback where it does not, conflicts, --check, --revert PATCH, and the untouched index.

use crate::common::{numbered, TestRepo};

/// A repository whose HEAD has `f.txt` = l1..l20, and the `git diff` (with `index` line)
/// that changes l10, made against that commit.
fn setup() -> (TestRepo, String) {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 20))]);
    r.write(
        "f.txt",
        numbered("l", 20).replace("l10\n", "TEN\n").as_bytes(),
    );
    let patch = r.git(&["diff"]);
    r.git(&["checkout", "--", "f.txt"]);
    assert!(patch.contains("\nindex "), "git diff writes an index line");
    (r, patch)
}

fn merge_file(ours: &str, base: &str, theirs: &str) -> (bool, String) {
    let dir = tempfile::tempdir().expect("tmp");
    let p = |n: &str, c: &str| {
        let f = dir.path().join(n);
        std::fs::write(&f, c).expect("write");
        f.to_string_lossy().into_owned()
    };
    let (o, b, t) = (p("ours", ours), p("base", base), p("theirs", theirs));
    let out = std::process::Command::new(crate::common::git_bin())
        .args(["merge-file", "-p", &o, &b, &t])
        .output()
        .expect("git merge-file");
    (
        out.status.success(),
        String::from_utf8(out.stdout).expect("utf-8"),
    )
}

#[test]
fn drift_with_the_blob_present_is_merged_by_git_three_way() {
    let (r, patch) = setup();
    // The file moved on: lines near the change differ, so the context no longer matches.
    let drifted = numbered("l", 20).replace("l8\n", "eight\nnew line\n");
    r.write("f.txt", drifted.as_bytes());
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "3way");
    assert_eq!(v["files"][0]["base"]["kind"], "blob");
    let (clean, expected) = merge_file(
        &drifted,
        &numbered("l", 20),
        &numbered("l", 20).replace("l10\n", "TEN\n"),
    );
    assert!(clean);
    assert_eq!(r.read_str("f.txt"), expected);
}

#[test]
fn with_the_blob_missing_the_text_passes_take_over() {
    let (r, patch) = setup();
    // An index line naming a blob this repository never had.
    let patch = patch.replace(
        &patch[patch.find("index ").expect("index")..]
            .lines()
            .next()
            .expect("line")
            .to_string(),
        "index 1234567..89abcde 100644",
    );
    let drifted = format!("header\n{}", numbered("l", 20));
    r.write("f.txt", drifted.as_bytes());
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "text");
    assert_eq!(
        r.read_str("f.txt"),
        format!("header\n{}", numbered("l", 20).replace("l10\n", "TEN\n"))
    );
}

#[test]
fn a_conflict_is_refused_by_default_and_leaves_everything_as_it_was() {
    let (r, patch) = setup();
    r.write(
        "f.txt",
        numbered("l", 20).replace("l10\n", "mine\n").as_bytes(),
    );
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["files"][0]["status"], "conflicted");
    assert!(v["files"][0]["conflicts"][0]
        .as_str()
        .expect("region")
        .contains("lines"));
}

#[test]
fn partial_keeps_gits_conflict_markers_and_exits_3() {
    let (r, patch) = setup();
    let ours = numbered("l", 20).replace("l10\n", "mine\n");
    r.write("f.txt", ours.as_bytes());
    let index = r.state().index;
    r.apply(&["--partial"], &patch)
        .code(3)
        .out_contains("conflict");
    let text = r.read_str("f.txt");
    assert!(
        text.contains("<<<<<<< ") && text.contains("=======\n") && text.contains(">>>>>>> "),
        "{text}"
    );
    assert!(text.contains("mine\n") && text.contains("TEN\n"));
    assert_eq!(
        r.state().index,
        index,
        "without --index the index is not touched"
    );
}

#[test]
fn a_file_with_unstaged_edits_elsewhere_merges_and_the_index_stays_byte_identical() {
    let (r, patch) = setup();
    let dirty = numbered("l", 20)
        .replace("l1\n", "unstaged edit\n")
        .replace("l7\n", "seven\n");
    r.write("f.txt", dirty.as_bytes());
    let index = std::fs::read(r.abs(".git/index")).expect("index");
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "3way");
    assert_eq!(r.read_str("f.txt"), dirty.replace("l10\n", "TEN\n"));
    assert_eq!(std::fs::read(r.abs(".git/index")).expect("index"), index);
}

#[test]
fn check_writes_nothing_and_leaves_the_index_byte_identical() {
    let (r, patch) = setup();
    r.write(
        "f.txt",
        numbered("l", 20).replace("l8\n", "eight\n").as_bytes(),
    );
    let before = r.state();
    let (run, v) = r.apply_json(&["--check"], &patch);
    run.code(0);
    assert_eq!(v["status"], "checked");
    assert_eq!(v["files"][0]["strategy"], "3way");
    assert_eq!(r.state(), before);
}

#[test]
fn apply_then_revert_patch_gives_back_the_original_bytes() {
    let (r, patch) = setup();
    let drifted = numbered("l", 20).replace("l8\n", "eight\n");
    r.write("f.txt", drifted.as_bytes());
    let index = r.state().index;
    r.apply(&[], &patch).code(0);
    assert_ne!(r.read_str("f.txt"), drifted);
    r.apply(&["--revert", "-"], &patch).code(0);
    assert_eq!(r.read_str("f.txt"), drifted);
    assert_eq!(r.state().index, index);
    // --revert --check leaves everything as it was.
    r.apply(&[], &patch).code(0);
    let before = r.state();
    r.apply(&["--revert", "--check", "-"], &patch).code(0);
    assert_eq!(r.state(), before);
}

#[test]
fn a_file_git_does_not_track_is_patched_by_the_text_passes() {
    let r = TestRepo::with(&[("tracked.txt", "t\n")]);
    r.write("loose.txt", numbered("l", 8).as_bytes());
    let patch = "diff --git a/loose.txt b/loose.txt\nindex 0123456..789abcd 100644\n--- a/loose.txt\n+++ b/loose.txt\n@@ -3,3 +3,3 @@\n l3\n-l4\n+FOUR\n l5\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "exact");
    assert_eq!(
        r.read_str("loose.txt"),
        numbered("l", 8).replace("l4\n", "FOUR\n")
    );
}

#[test]
fn index_stages_the_result() {
    let (r, patch) = setup();
    r.apply(&["--index"], &patch).code(0);
    let staged = r.git(&["show", ":f.txt"]);
    assert_eq!(staged, numbered("l", 20).replace("l10\n", "TEN\n"));
    assert_eq!(
        r.git(&["diff", "--name-only"]),
        "",
        "work tree and index agree"
    );
}

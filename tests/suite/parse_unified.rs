//! What the unified-diff reader accepts: git's headers, `diff -u` headers, and what models
//! mangle; each repair is a notice.

use crate::common::{text, TestRepo};

fn base() -> TestRepo {
    TestRepo::with(&[(
        "src/lib.rs",
        &text(&["one", "two", "three", "four", "five", "six", "seven"]),
    )])
}

const EXPECTED: &str = "one\ntwo\nthree\nFOUR\nfive\nsix\nseven\n";

fn body() -> &'static str {
    "@@ -2,5 +2,5 @@\n two\n three\n-four\n+FOUR\n five\n six\n"
}

#[test]
fn git_diff_with_index_line_applies() {
    let r = base();
    let patch = format!(
        "diff --git a/src/lib.rs b/src/lib.rs\nindex 1234567..89abcde 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n{}",
        body()
    );
    r.apply(&[], &patch)
        .code(0)
        .out_contains("M src/lib.rs (+1 -1) via exact");
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
}

#[test]
fn headers_without_prefixes_resolve_to_existing_paths() {
    let r = base();
    let patch = format!("--- src/lib.rs\n+++ src/lib.rs\n{}", body());
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
}

#[test]
fn diff_u_timestamps_are_not_part_of_the_path() {
    let r = base();
    let patch = format!(
        "--- a/src/lib.rs\t2024-05-14 10:21:07.000000000 +0000\n+++ b/src/lib.rs\t2024-05-14 10:22:07.000000000 +0000\n{}",
        body()
    );
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
}

#[test]
fn a_real_directory_named_like_a_prefix_is_kept() {
    // `--- a/x` where the repository really has a directory `a/`: with both a/ and b/
    // prefixes git's -p1 rule applies; without b/ the existing path wins.
    let r = TestRepo::with(&[("a/f.txt", "x\n")]);
    r.apply(&[], "--- a/f.txt\n+++ a/f.txt\n@@ -1 +1 @@\n-x\n+y\n")
        .code(0);
    assert_eq!(r.read_str("a/f.txt"), "y\n");
}

#[test]
fn a_missing_leading_directory_is_stripped_with_a_notice() {
    let r = base();
    let patch = format!("--- project/src/lib.rs\n+++ project/src/lib.rs\n{}", body());
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
    assert!(v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .any(|n| n["kind"] == "prefix-stripped"));
}

#[test]
fn c_quoted_paths_are_unquoted() {
    let r = TestRepo::with(&[("café dir/naïve.txt", "a\nb\n")]);
    let patch = "diff --git \"a/caf\\303\\251 dir/na\\303\\257ve.txt\" \"b/caf\\303\\251 dir/na\\303\\257ve.txt\"\n--- \"a/caf\\303\\251 dir/na\\303\\257ve.txt\"\n+++ \"b/caf\\303\\251 dir/na\\303\\257ve.txt\"\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("café dir/naïve.txt"), "a\nc\n");
}

#[test]
fn paths_with_spaces_in_diff_git_lines_are_split_correctly() {
    let r = TestRepo::with(&[("my file.txt", "a\n")]);
    let patch = "diff --git a/my file.txt b/my file.txt\n--- a/my file.txt\n+++ b/my file.txt\n@@ -1 +1 @@\n-a\n+b\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("my file.txt"), "b\n");
}

#[test]
fn wrong_hunk_counts_are_recomputed_with_a_notice() {
    let r = base();
    let patch = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -2,9 +2,2 @@\n two\n three\n-four\n+FOUR\n five\n six\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
    assert!(v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .any(|n| n["kind"] == "counts-recomputed"));
}

#[test]
fn hunk_headers_without_numbers_are_located_by_content() {
    for header in ["@@ @@", "@@", "@@ ... @@", "@@ -2 +2 @@"] {
        let r = base();
        let patch = format!("--- a/src/lib.rs\n+++ b/src/lib.rs\n{header}\n two\n three\n-four\n+FOUR\n five\n six\n");
        r.apply(&[], &patch).code(0);
        assert_eq!(r.read_str("src/lib.rs"), EXPECTED, "header {header}");
    }
}

#[test]
fn a_diff_in_a_markdown_fence_with_prose_applies_with_notices() {
    let r = base();
    let patch = format!(
        "Sure! Here is the change you asked for:\n\n```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n{}```\n\nThis uppercases the fourth line.\n",
        body()
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
    let kinds: Vec<&str> = v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| n["kind"].as_str().expect("kind"))
        .collect();
    assert!(kinds.contains(&"fence-stripped"), "{kinds:?}");
    assert!(kinds.contains(&"prose-ignored"), "{kinds:?}");
}

#[test]
fn crlf_patch_text_applies_to_an_lf_file() {
    let r = base();
    let patch = format!("--- a/src/lib.rs\n+++ b/src/lib.rs\n{}", body()).replace('\n', "\r\n");
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("src/lib.rs"), EXPECTED);
    assert!(v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .any(|n| n["kind"] == "crlf-patch"));
}

#[test]
fn blank_context_lines_without_their_space_are_repaired() {
    let r = TestRepo::with(&[(
        "f.py",
        "def a():\n    pass\n\ndef b():\n    return 1\n\ndef c():\n    pass\n",
    )]);
    let patch = "--- a/f.py\n+++ b/f.py\n@@ -3,5 +3,5 @@\n\n def b():\n-    return 1\n+    return 2\n\n def c():\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(
        r.read_str("f.py"),
        "def a():\n    pass\n\ndef b():\n    return 2\n\ndef c():\n    pass\n"
    );
    assert!(v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .any(|n| n["kind"] == "blank-context-repaired"));
}

#[test]
fn no_newline_markers_are_honoured() {
    let r = TestRepo::with(&[("f.txt", "a\nb")]);
    r.apply(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n",
    )
    .code(0);
    assert_eq!(
        r.read_str("f.txt"),
        "a\nc\n",
        "the patch adds the final newline"
    );
    let r = TestRepo::with(&[("f.txt", "a\nb\n")]);
    r.apply(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
    )
    .code(0);
    assert_eq!(
        r.read_str("f.txt"),
        "a\nc",
        "the patch removes the final newline"
    );
}

#[test]
fn garbage_input_is_bad_input_with_exit_2() {
    let r = base();
    let before = r.state();
    let run = r.apply(&[], "this is not a patch\nat all\n");
    run.code(2);
    assert!(run.stderr.contains("no patch found"), "{}", run.stderr);
    assert_eq!(r.state(), before);
    let run = r.apply(&[], "");
    run.code(2);
    assert_eq!(r.state(), before);
}

#[test]
fn a_hunk_before_any_file_header_is_bad_input() {
    let r = base();
    let before = r.state();
    let run = r.apply(&[], "@@ -1 +1 @@\n-one\n+ONE\n");
    run.code(2);
    assert!(
        run.stderr.contains("before any file header"),
        "{}",
        run.stderr
    );
    assert_eq!(r.state(), before);
}

#[test]
fn invalid_mode_is_bad_input() {
    let r = base();
    let before = r.state();
    r.apply(
        &[],
        "diff --git a/src/lib.rs b/src/lib.rs\nold mode 100644\nnew mode 10x755\n",
    )
    .code(2);
    assert_eq!(r.state(), before);
}

#[test]
fn a_non_utf8_patch_applies_byte_for_byte() {
    let r = base();
    r.apply_bytes(
        &[],
        b"--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-one\n+\xff\n",
    )
    .code(0);
    assert!(r.read("src/lib.rs").starts_with(b"\xff\n"));
}

#[test]
fn bytes_that_are_not_a_patch_are_bad_input() {
    let r = base();
    let before = r.state();
    let run = r.apply_bytes(&[], b"\x89PNG\r\n\x1a\n\xff\xfe not a patch at all\n");
    run.code(2);
    assert_eq!(r.state(), before);
}

#[test]
fn a_removed_line_that_looks_like_a_header_is_read_by_the_counts() {
    // "-- x" removed and "++ y" added print as "--- x" / "+++ y": the counts say the hunk
    // still needs lines, so they are body lines, not the next file's header.
    let r = TestRepo::with(&[("q.sql", "a\n-- x\nb\n")]);
    let patch = "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n a\n--- x\n+++ y\n b\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("q.sql"), "a\n++ y\nb\n");
}

#[test]
fn a_file_header_without_hunks_is_bad_input() {
    let r = base();
    let before = r.state();
    let run = r.apply(&[], "--- a/src/lib.rs\n+++ b/src/lib.rs\nsome text\n");
    run.code(2);
    assert!(run.stderr.contains("no '@@' hunk"), "{}", run.stderr);
    assert_eq!(r.state(), before);
}

#[test]
fn the_final_newline_of_the_patch_is_not_a_blank_context_line() {
    // The header claims one more old line than the hunk has; the newline that ends the
    // patch text must not be read as that line.
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\nd\ne\n")]);
    let (run, v) = r.apply_json(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -2,4 +2,4 @@\n b\n-c\n+C\n d\n",
    );
    run.code(0);
    assert_eq!(r.read_str("f.txt"), "a\nb\nC\nd\ne\n");
    assert_eq!(v["files"][0]["hunks"][0]["pass"], "exact");
}

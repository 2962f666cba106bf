//! Symbolic links inside the work tree are patched as git patches them: a symlink patch
//! (mode 120000) creates, retargets or deletes the link; a link that leads out of the tree,
//! or a write through one, is refused.

use crate::common::TestRepo;

fn link(r: &TestRepo, path: &str, target: &str) {
    std::os::unix::fs::symlink(target, r.abs(path)).expect("symlink");
}

fn target(r: &TestRepo, path: &str) -> String {
    std::fs::read_link(r.abs(path))
        .expect("a link")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_symlink_patch_creates_retargets_and_deletes_links_and_undo_restores_them() {
    let r = TestRepo::with(&[("textwrap.py", "wrap = 1\n"), ("other.py", "o = 1\n")]);
    let before = r.state();
    let create = "diff --git a/link.py b/link.py\nnew file mode 120000\n--- /dev/null\n+++ b/link.py\n@@ -0,0 +1 @@\n+textwrap.py\n\\ No newline at end of file\n";
    r.apply(&[], create).code(0);
    assert_eq!(target(&r, "link.py"), "textwrap.py");
    r.commit_all("link");
    let retarget = "diff --git a/link.py b/link.py\nindex 1111111..2222222 120000\n--- a/link.py\n+++ b/link.py\n@@ -1 +1 @@\n-textwrap.py\n\\ No newline at end of file\n+other.py\n\\ No newline at end of file\n";
    r.apply(&[], retarget).code(0);
    assert_eq!(target(&r, "link.py"), "other.py");
    let delete = "diff --git a/link.py b/link.py\ndeleted file mode 120000\n--- a/link.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-other.py\n\\ No newline at end of file\n";
    r.apply(&[], delete).code(0);
    assert!(std::fs::symlink_metadata(r.abs("link.py")).is_err());
    // Undo the deletion (apply 3), then the retargeting (apply 2), then the creation (1).
    for (id, want) in [
        ("3", Some("other.py")),
        ("2", Some("textwrap.py")),
        ("1", None),
    ] {
        let out = r.cmd(&["undo", id]).output().expect("undo");
        assert!(
            out.status.success(),
            "undo {id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        match want {
            Some(t) => assert_eq!(target(&r, "link.py"), t),
            None => assert!(std::fs::symlink_metadata(r.abs("link.py")).is_err()),
        }
    }
    // The commit made the link part of HEAD; the tree is as before apart from that.
    assert_eq!(r.state().tree, before.tree);
}

#[test]
fn a_text_patch_to_a_file_beside_a_link_applies() {
    let r = TestRepo::with(&[("textwrap.py", "wrap = 1\n")]);
    link(&r, "link.py", "textwrap.py");
    r.commit_all("link");
    let patch = "--- a/textwrap.py\n+++ b/textwrap.py\n@@ -1 +1 @@\n-wrap = 1\n+wrap = 2\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("textwrap.py"), "wrap = 2\n");
    assert_eq!(target(&r, "link.py"), "textwrap.py");
}

#[test]
fn a_text_patch_to_a_link_is_refused_naming_its_target() {
    let r = TestRepo::with(&[("textwrap.py", "wrap = 1\n")]);
    link(&r, "link.py", "textwrap.py");
    r.commit_all("link");
    let before = r.state();
    let run = r.apply(
        &[],
        "--- a/link.py\n+++ b/link.py\n@@ -1 +1 @@\n-wrap = 1\n+wrap = 2\n",
    );
    run.code(1);
    run.out_contains("symbolic link to textwrap.py");
    assert_eq!(r.state(), before);
}

#[test]
fn a_link_leading_out_of_the_tree_and_writes_through_one_are_refused() {
    let r = TestRepo::with(&[("a.txt", "a\n")]);
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(outside.path().join("f.txt"), "x\n").expect("write");
    link(&r, "out", &outside.path().display().to_string());
    r.commit_all("links");
    let before = r.state();
    let create = "diff --git a/up b/up\nnew file mode 120000\n--- /dev/null\n+++ b/up\n@@ -0,0 +1 @@\n+../../etc\n\\ No newline at end of file\n";
    r.apply(&[], create).code(1);
    r.apply(
        &[],
        "--- a/out/f.txt\n+++ b/out/f.txt\n@@ -1 +1 @@\n-x\n+y\n",
    )
    .code(1);
    assert_eq!(r.state(), before);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("f.txt")).expect("read"),
        "x\n"
    );
}

/// A file named through a linked directory (`d2 -> d`) has two names: planned under each, its
/// changes would each start from the file as it was, and the last one written would drop the
/// other (exit 0, a helper's review). Such a path is refused as git refuses it ("beyond a
/// symbolic link"), whether or not the patch also names the file's own path; the link's own
/// path is patched as before.
#[test]
fn a_path_beyond_a_linked_directory_is_refused_and_nothing_is_lost() {
    let r = TestRepo::with(&[("d/a.txt", "a\nc\n")]);
    link(&r, "d2", "d");
    r.commit_all("link");
    let before = r.state();
    let both = "--- a/d/a.txt\n+++ b/d/a.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n c\n--- a/d2/a.txt\n+++ b/d2/a.txt\n@@ -1,2 +1,2 @@\n a\n-c\n+C\n";
    r.apply(&[], both)
        .code(1)
        .out_contains("beyond the symbolic link d2");
    assert_eq!(r.state(), before);
    let edits = r#"[{"path":"d/a.txt","old_string":"a","new_string":"A"},{"path":"d2/a.txt","old_string":"c","new_string":"C"}]"#;
    r.apply(&["edit", "--json-input"], edits).code(1);
    assert_eq!(r.state(), before);
    let one = "--- a/d/a.txt\n+++ b/d/a.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n c\n";
    r.apply(&[], one).code(0);
    assert_eq!(r.read_str("d/a.txt"), "A\nc\n");
}

/// A link the patch itself makes is as much a link: a patch that makes `d2 -> d` and writes
/// `d2/a.txt` wrote `d/a.txt` with `--no-snapshot` (exit 0, a helper's review), and a file
/// the patch writes cannot be a directory either, in whichever order the patch names them.
#[test]
fn a_path_beyond_a_link_or_file_the_patch_makes_is_refused() {
    let r = TestRepo::with(&[("d/a.txt", "a\n")]);
    let before = r.state();
    let make_link = "diff --git a/d2 b/d2\nnew file mode 120000\n--- /dev/null\n+++ b/d2\n@@ -0,0 +1 @@\n+d\n\\ No newline at end of file\n";
    let make_file =
        "diff --git a/d2 b/d2\nnew file mode 100644\n--- /dev/null\n+++ b/d2\n@@ -0,0 +1 @@\n+d\n";
    let beyond = "diff --git a/d2/a.txt b/d2/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/d2/a.txt\n@@ -0,0 +1 @@\n+new\n";
    for args in [&[][..], &["--no-snapshot"][..]] {
        r.apply(args, &format!("{make_link}{beyond}"))
            .code(1)
            .out_contains(
            "d2/a.txt lies beyond d2, which an earlier change of this patch makes a symbolic link",
        );
        assert_eq!(r.state(), before);
        r.apply(args, &format!("{make_file}{beyond}"))
            .code(1)
            .out_contains("makes a file");
        assert_eq!(r.state(), before);
        r.apply(args, &format!("{beyond}{make_link}"))
            .code(1)
            .out_contains(
                "d2 is a directory for an earlier change of this patch, which writes d2/a.txt",
            );
        assert_eq!(r.state(), before);
    }
}

/// `./a.txt` and `a.txt` are one file: an edit's leading `./` is dropped (as a SEARCH/REPLACE
/// block's is), so a list naming it both ways is made in turn; a unified diff's `a/./a.txt`,
/// which git refuses, is refused with its reason before anything is written, and a plain
/// diff's leading `./` is dropped, as git drops it.
#[test]
fn a_dot_part_names_the_same_file_in_an_edit_and_is_refused_in_a_diff() {
    let r = TestRepo::with(&[("a.txt", "a\nc\n")]);
    let edits = r#"[{"path":"./a.txt","old_string":"a","new_string":"A"},{"path":"a.txt","old_string":"c","new_string":"C"}]"#;
    r.apply(&["edit", "--json-input"], edits).code(0);
    assert_eq!(r.read_str("a.txt"), "A\nC\n");
    let before = r.state();
    let dotted = "diff --git a/./a.txt b/./a.txt\n--- a/./a.txt\n+++ b/./a.txt\n@@ -1,2 +1,2 @@\n-A\n+a\n C\n";
    r.apply(&[], dotted)
        .code(1)
        .out_contains("has a '.' or an empty part");
    assert_eq!(r.state(), before);
    // `diff -u ./a.txt …` names `a.txt`, as git reads it.
    let plain = "--- ./a.txt\n+++ ./a.txt\n@@ -1,2 +1,2 @@\n-A\n+a\n C\n";
    r.apply(&[], plain).code(0);
    assert_eq!(r.read_str("a.txt"), "a\nC\n");
}

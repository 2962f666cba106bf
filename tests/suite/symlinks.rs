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

//! File-level operations and the writer: create, delete, rename, modes, line-ending
//! conventions, all-or-nothing across files, and path confinement.

use crate::common::{numbered, text, TestRepo};

#[test]
fn a_new_file_is_created_with_its_parent_directories() {
    let r = TestRepo::with(&[("README", "x\n")]);
    let patch = "diff --git a/deep/er/new.txt b/deep/er/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/deep/er/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n";
    r.apply(&[], patch)
        .code(0)
        .out_contains("A deep/er/new.txt (+2 -0)");
    assert_eq!(r.read_str("deep/er/new.txt"), "hello\nworld\n");
}

#[test]
fn a_new_executable_file_gets_its_mode() {
    let r = TestRepo::with(&[("README", "x\n")]);
    let patch = "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo hi\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.tree()["run.sh"], (0o100755, b"echo hi\n".to_vec()));
}

#[test]
fn creating_a_file_that_exists_with_other_content_is_refused() {
    let r = TestRepo::with(&[("new.txt", "mine\n")]);
    let before = r.state();
    r.apply(
        &[],
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+theirs\n",
    )
    .code(1)
    .out_contains("already exists");
    assert_eq!(r.state(), before);
}

#[test]
fn creating_a_file_that_exists_with_the_same_content_is_already_applied() {
    let r = TestRepo::with(&[("new.txt", "theirs\n")]);
    r.apply(
        &[],
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+theirs\n",
    )
    .code(0)
    .out_contains("already applied");
}

#[test]
fn a_deletion_removes_the_file_and_its_empty_directory() {
    let r = TestRepo::with(&[("keep.txt", "k\n"), ("gone/x.txt", "a\nb\n")]);
    let patch = "diff --git a/gone/x.txt b/gone/x.txt\ndeleted file mode 100644\n--- a/gone/x.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n";
    r.apply(&[], patch).code(0).out_contains("D gone/x.txt");
    assert!(!r.exists("gone/x.txt"));
    assert!(!r.exists("gone"));
    assert!(r.exists("keep.txt"));
}

#[test]
fn deleting_a_file_whose_content_differs_is_refused() {
    let r = TestRepo::with(&[("x.txt", "a\nchanged\n")]);
    let before = r.state();
    r.apply(&[], "--- a/x.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")
        .code(1)
        .out_contains("differs");
    assert_eq!(r.state(), before);
}

#[test]
fn deleting_a_missing_file_is_refused() {
    let r = TestRepo::with(&[("a.txt", "a\n")]);
    let before = r.state();
    r.apply(&[], "--- a/nope.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
        .code(1)
        .out_contains("does not exist");
    assert_eq!(r.state(), before);
}

#[test]
fn a_rename_with_changes_moves_and_patches() {
    let r = TestRepo::with(&[("old/name.txt", &numbered("l", 5))]);
    let patch = "diff --git a/old/name.txt b/new/name.txt\nsimilarity index 80%\nrename from old/name.txt\nrename to new/name.txt\n--- a/old/name.txt\n+++ b/new/name.txt\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n";
    r.apply(&[], patch)
        .code(0)
        .out_contains("R old/name.txt -> new/name.txt");
    assert!(!r.exists("old/name.txt"));
    assert_eq!(
        r.read_str("new/name.txt"),
        numbered("l", 5).replace("l3\n", "L3\n")
    );
}

#[test]
fn a_pure_rename_keeps_bytes_and_mode() {
    let r = TestRepo::with(&[("a.sh", "#!/bin/sh\r\necho\r\n")]);
    r.set_exec("a.sh", true);
    let patch =
        "diff --git a/a.sh b/b.sh\nsimilarity index 100%\nrename from a.sh\nrename to b.sh\n";
    r.apply(&[], patch).code(0);
    assert_eq!(
        r.tree()["b.sh"],
        (0o100755, b"#!/bin/sh\r\necho\r\n".to_vec())
    );
    assert!(!r.exists("a.sh"));
}

#[test]
fn renaming_onto_an_existing_file_is_refused() {
    let r = TestRepo::with(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let before = r.state();
    r.apply(
        &[],
        "diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n",
    )
    .code(1);
    assert_eq!(r.state(), before);
}

#[test]
fn a_mode_change_alone_and_with_content() {
    let r = TestRepo::with(&[("s.sh", "echo a\n")]);
    r.apply(
        &[],
        "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n",
    )
    .code(0);
    assert_eq!(r.tree()["s.sh"], (0o100755, b"echo a\n".to_vec()));
    let patch = "diff --git a/s.sh b/s.sh\nold mode 100755\nnew mode 100644\n--- a/s.sh\n+++ b/s.sh\n@@ -1 +1 @@\n-echo a\n+echo b\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.tree()["s.sh"], (0o100644, b"echo b\n".to_vec()));
}

#[test]
fn crlf_files_stay_crlf_when_the_patch_is_lf() {
    let r = TestRepo::with(&[("w.txt", "a\r\nb\r\nc\r\n")]);
    r.apply(
        &[],
        "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n",
    )
    .code(0);
    assert_eq!(r.read("w.txt"), b"a\r\nB\r\nB2\r\nc\r\n");
}

#[test]
fn a_git_diff_of_a_crlf_file_keeps_its_own_endings() {
    // git diff shows CRLF lines with their CR; the headers have none.
    let r = TestRepo::with(&[("m.txt", "a\nb\r\nc\n")]);
    r.apply(
        &[],
        "--- a/m.txt\n+++ b/m.txt\n@@ -1,3 +1,3 @@\n a\n-b\r\n+B\r\n c\n",
    )
    .code(0);
    assert_eq!(r.read("m.txt"), b"a\nB\r\nc\n");
}

#[test]
fn a_leading_bom_stays() {
    let r = TestRepo::with(&[("b.txt", "\u{feff}first\nsecond\n")]);
    r.apply(
        &[],
        "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n first\n-second\n+SECOND\n",
    )
    .code(0);
    assert_eq!(r.read_str("b.txt"), "\u{feff}first\nSECOND\n");
}

#[test]
fn a_missing_final_newline_stays_missing() {
    let r = TestRepo::with(&[("n.txt", "a\nb\nc")]);
    r.apply(
        &[],
        "--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,4 @@\n a\n b\n c\n+d\n",
    )
    .code(0);
    assert_eq!(
        r.read_str("n.txt"),
        "a\nb\nc\nd",
        "appending keeps the file's no-newline end"
    );
    let r = TestRepo::with(&[("n.txt", "a\nb\nc")]);
    r.apply(
        &[],
        "--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    )
    .code(0);
    assert_eq!(r.read_str("n.txt"), "a\nB\nc");
}

#[test]
fn all_or_nothing_across_files_when_one_fails_to_plan() {
    let r = TestRepo::with(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let before = r.state();
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-zzz\n+B\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["files"][0]["status"], "skipped");
    assert_eq!(v["files"][1]["status"], "refused");
    assert_eq!(v["written"], false);
}

#[test]
fn partial_keeps_what_applies_and_exits_3() {
    let r = TestRepo::with(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-zzz\n+B\n";
    let (run, v) = r.apply_json(&["--partial"], patch);
    run.code(3);
    assert_eq!(r.read_str("a.txt"), "A\n");
    assert_eq!(r.read_str("b.txt"), "b\n");
    assert_eq!(v["status"], "partial");
}

#[test]
fn a_write_failure_midway_restores_every_file_already_written() {
    let r = TestRepo::with(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    let before = r.state();
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n--- /dev/null\n+++ b/d/new.txt\n@@ -0,0 +1 @@\n+new\n";
    let mut cmd = r.cmd(&[]);
    cmd.env("GIT_LLM_APPLY_TEST_FAIL_AFTER", "2");
    let out = assert_cmd::Command::from_std(cmd)
        .write_stdin(patch)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        r.state(),
        before,
        "the deletion and the first write were rolled back"
    );
    assert!(!r.exists("d"));
}

#[test]
fn paths_outside_the_work_tree_are_refused_before_anything_is_written() {
    for target in [
        "../escape.txt",
        "/tmp/abs-escape.txt",
        ".git/config",
        "sub/../../x",
    ] {
        let r = TestRepo::with(&[("a.txt", "a\n")]);
        let before = r.state();
        let patch = format!(
            "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- /dev/null\n+++ {target}\n@@ -0,0 +1 @@\n+x\n"
        );
        let run = r.apply(&[], &patch);
        assert_eq!(run.code, 1, "{target}: {run:?}");
        assert_eq!(r.state(), before, "{target}");
    }
}

#[test]
fn writing_through_a_symlink_that_leaves_the_tree_is_refused() {
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(outside.path().join("t.txt"), "a\n").expect("write");
    let r = TestRepo::with(&[("a.txt", "a\n")]);
    std::os::unix::fs::symlink(outside.path(), r.abs("link")).expect("symlink");
    let before = r.state();
    r.apply(
        &[],
        "--- a/link/t.txt\n+++ b/link/t.txt\n@@ -1 +1 @@\n-a\n+b\n",
    )
    .code(1)
    .out_contains("symlink");
    assert_eq!(r.state(), before);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("t.txt")).expect("read"),
        "a\n"
    );
}

#[test]
fn untracked_files_can_be_patched() {
    let r = TestRepo::with(&[("a.txt", "a\n")]);
    r.write("untracked.txt", text(&["x", "y"]).as_bytes());
    r.apply(
        &[],
        "--- a/untracked.txt\n+++ b/untracked.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n",
    )
    .code(0);
    assert_eq!(r.read_str("untracked.txt"), "x\nz\n");
}

#[test]
fn the_index_and_head_are_never_touched_by_an_apply() {
    let r = TestRepo::with(&[("a.txt", "a\n")]);
    let index = r.state().index;
    let head = r.state().head;
    r.apply(&[], "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n")
        .code(0);
    assert_eq!(r.state().index, index);
    assert_eq!(r.state().head, head);
}

/// A patch to many files applies under a small open-file limit: the files staged ahead of
/// the snapshot are bounded by it, and the rest are written one by one.
#[test]
fn many_files_apply_under_a_small_open_file_limit() {
    use std::os::unix::process::CommandExt;
    let files: Vec<(String, String)> = (0..150)
        .map(|i| (format!("f{i:03}.txt"), format!("one {i}\ntwo\nthree\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let r = TestRepo::with(&refs);
    let mut patch = String::new();
    for (p, c) in &files {
        let first = c.lines().next().expect("a line");
        patch.push_str(&format!(
            "--- a/{p}\n+++ b/{p}\n@@ -1,3 +1,3 @@\n-{first}\n+{first} changed\n two\n three\n"
        ));
    }
    for (args, limit) in [(&[][..], 32), (&["--no-snapshot"][..], 24)] {
        let mut c = r.cmd(args);
        // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
        unsafe {
            c.pre_exec(move || {
                let l = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let path = r.path().join("many.patch");
        std::fs::write(&path, &patch).expect("write the patch");
        let out = c.arg(&path).output().expect("run");
        std::fs::remove_file(&path).expect("remove the patch");
        assert!(
            out.status.success(),
            "{args:?} under {limit} open files: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (p, c) in &files {
            let first = c.lines().next().expect("a line");
            assert_eq!(
                r.read_str(p),
                format!("{first} changed\ntwo\nthree\n"),
                "{p}"
            );
        }
        let leftover = std::fs::read_dir(r.path())
            .expect("read_dir")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".llm-apply-"));
        assert!(!leftover, "no temporary file is left");
        r.git(&["checkout", "--", "."]);
    }
}

#[test]
fn a_modified_file_is_replaced_whole_its_permissions_kept_and_a_hard_link_keeps_the_old_content() {
    // The new version takes the path in one step (swapped in on Linux, renamed elsewhere):
    // a hard link to the old file is a second name of the old file, as after a rename, the
    // path's own permission bits stay, and no temporary file is left beside it.
    let r = TestRepo::with(&[("a.txt", &numbered("a", 5))]);
    std::fs::hard_link(r.abs("a.txt"), r.abs(".git/old-a")).expect("link");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(r.abs("a.txt"), std::fs::Permissions::from_mode(0o640))
            .expect("chmod");
    }
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -2,3 +2,3 @@\n a2\n-a3\n+three\n a4\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("a.txt"), "a1\na2\nthree\na4\na5\n");
    assert_eq!(
        std::fs::read_to_string(r.abs(".git/old-a")).expect("link"),
        numbered("a", 5)
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(r.abs("a.txt"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    let stray: Vec<_> = std::fs::read_dir(r.abs(""))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".llm-apply-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    r.run(&["undo"]).code(0);
    assert_eq!(r.read_str("a.txt"), numbered("a", 5));
}

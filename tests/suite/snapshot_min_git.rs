//! Below the oldest supported git (2.17) every command in a repository fails clearly,
//! before it reads or writes anything.

use std::os::unix::fs::PermissionsExt;

use crate::common::{git_bin, TestRepo};

/// A "git" that claims `version` and otherwise hands over to the real one.
fn fake_git(dir: &std::path::Path, version: &str) -> std::path::PathBuf {
    let path = dir.join("old-git");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version {version}'; exit 0; fi\nexec '{}' \"$@\"\n",
        git_bin()
    );
    std::fs::write(&path, script).expect("write fake git");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

const PATCH: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+two\n";

#[test]
fn a_git_older_than_2_17_is_refused_with_its_version_and_nothing_changes() {
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let bin = tempfile::tempdir().expect("temp dir");
    let old = fake_git(bin.path(), "2.16.6");
    let before = r.state();
    let mut cmd = r.cmd(&[]);
    cmd.env("GIT_LLM_APPLY_GIT", &old);
    let run = crate::common::Run::from({
        use std::io::Write;
        use std::process::Stdio;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(PATCH.as_bytes());
        child.wait_with_output().expect("wait")
    });
    run.code(2)
        .out_contains("git version 2.16.6")
        .out_contains("needs git 2.17 or newer");
    assert_eq!(r.state(), before, "nothing was written");
    assert!(!r.abs(".git/llm-apply").exists(), "not even the lock");
    for args in [&["log"][..], &["undo"][..]] {
        let out = r
            .cmd(args)
            .env("GIT_LLM_APPLY_GIT", &old)
            .output()
            .expect("run");
        let run = crate::common::Run::from(out);
        run.code(2).out_contains("needs git 2.17 or newer");
    }
}

#[test]
fn git_2_17_itself_is_accepted() {
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let bin = tempfile::tempdir().expect("temp dir");
    let ok = fake_git(bin.path(), "2.17.0");
    let mut cmd = r.cmd(&["log"]);
    cmd.env("GIT_LLM_APPLY_GIT", &ok);
    crate::common::Run::from(cmd.output().expect("run")).code(0);
}

/// git's version is remembered per binary, keyed by its path, size and modification time: a
/// binary replaced by an older git is asked again, and refused.
#[test]
fn a_git_replaced_by_an_older_one_is_noticed() {
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let bin = tempfile::tempdir().expect("temp dir");
    let git = fake_git(bin.path(), "2.17.0");
    let run = |git: &std::path::Path| {
        let out = r
            .cmd(&["log"])
            .env("GIT_LLM_APPLY_GIT", git)
            .output()
            .expect("run");
        crate::common::Run::from(out)
    };
    run(&git).code(0);
    run(&git).code(0);
    let older = fake_git(bin.path(), "2.16");
    assert_eq!(older, git, "the same path");
    run(&git).code(2).out_contains("git version 2.16");
}

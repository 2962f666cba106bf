//! The largest patch read: `llm-apply.maxPatchSize` (default 256 MiB, git's size suffixes). A
//! larger patch, from a file or standard input, is bad input: exit 2, nothing written, and a
//! message naming its size, the limit and the key.

use std::process::Stdio;

use crate::common::{numbered, Run, TestRepo};

/// A repository and a patch of a little over 2 KiB that changes every line of its file.
fn repo_and_patch() -> (TestRepo, String) {
    let original = numbered("a line long enough to make the patch big ", 30);
    let r = TestRepo::with(&[("f.txt", &original)]);
    r.write("f.txt", original.replace("line", "LINE").as_bytes());
    let patch = r.git(&["diff"]);
    r.git(&["checkout", "--", "f.txt"]);
    assert!(patch.len() > 2048 && patch.len() < 4096, "{}", patch.len());
    (r, patch)
}

/// `git -c KEY=VALUE llm-apply ARGS` as a user types it, with the patch on stdin.
fn through_git(r: &TestRepo, setting: &str, args: &[&str], patch: &str) -> Run {
    let bin = assert_cmd::cargo::cargo_bin("git-llm-apply");
    let mut dirs = vec![bin.parent().expect("bin dir").to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let mut git_args = vec!["-c", setting, "llm-apply"];
    git_args.extend_from_slice(args);
    let mut c = r.git_cmd(&git_args);
    c.env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("run git llm-apply");
    // A run that stops before reading its input (a config error) may close the pipe first.
    if let Err(e) =
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), patch.as_bytes())
    {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "write the patch: {e}"
        );
    }
    Run::from(child.wait_with_output().expect("wait"))
}

#[test]
fn a_patch_file_over_the_configured_limit_is_refused_naming_its_size_the_limit_and_the_key() {
    let (r, patch) = repo_and_patch();
    r.git(&["config", "llm-apply.maxPatchSize", "2k"]);
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("change.diff");
    std::fs::write(&file, &patch).expect("write the patch file");
    let name = file.to_str().expect("a UTF-8 temp path");
    let before = r.state();
    let run = r.run(&[name]);
    run.code(2);
    let size = patch.len();
    assert!(
        run.stderr.starts_with(&format!(
            "error: {name} is {:.1} KiB ({size} bytes), larger than the patch size \
             limit of 2 KiB (2048 bytes) that git config llm-apply.maxPatchSize sets; nothing \
             was written. To apply it, raise the limit (git's k, m and g suffixes), e.g. git -c \
             llm-apply.maxPatchSize=",
            size as f64 / 1024.0
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert_eq!(r.state(), before, "nothing written");

    let (run, v) = r.apply_json(&[name], "");
    run.code(2);
    assert_eq!(v["errors"][0]["kind"], "input");
    assert_eq!(r.state(), before);
}

#[test]
fn a_patch_on_stdin_over_a_limit_given_with_git_dash_c_is_refused() {
    let (r, patch) = repo_and_patch();
    let before = r.state();
    let run = through_git(&r, "llm-apply.maxPatchSize=1k", &[], &patch);
    run.code(2).out_contains(
        "<stdin> is larger than the patch size limit of 1 KiB (1024 bytes) that git config \
         llm-apply.maxPatchSize sets; nothing was written",
    );
    assert_eq!(r.state(), before, "nothing written");
}

#[test]
fn a_patch_under_the_limit_applies() {
    let (r, patch) = repo_and_patch();
    let run = through_git(&r, "llm-apply.maxPatchSize=4k", &[], &patch);
    run.code(0);
    assert!(r.read_str("f.txt").contains("LINE"));
    // Exactly at the limit is still under it.
    r.run(&["undo"]).code(0);
    let exact = format!("{}", patch.len());
    r.git(&["config", "llm-apply.maxPatchSize", &exact]);
    r.apply(&[], &patch).code(0);
}

#[test]
fn an_invalid_limit_is_a_config_error() {
    let (r, patch) = repo_and_patch();
    let before = r.state();
    for value in ["", "big", "-1", "1.5m", "2t"] {
        let run = through_git(&r, &format!("llm-apply.maxPatchSize={value}"), &[], &patch);
        run.code(2).out_contains(&format!(
            "git config llm-apply.maxPatchSize is '{value}', not a whole number"
        ));
        assert_eq!(r.state(), before, "{value:?}: nothing written");
    }
}

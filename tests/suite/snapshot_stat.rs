//! A big file's snapshot state from `stat` instead of its bytes: its blob id taken from the
//! index where the index's stat data vouches for the file, and "still as the plan read it"
//! told by its stamp. Each test sets up a case where trusting the stat data too far would
//! record the wrong state, and checks the snapshot and the undo byte for byte.

use crate::common::TestRepo;

/// Long enough for the coarse clock to tick (it stamps file changes), so that files written
/// before it count as settled when the run reads them, and the index written after it is not
/// racy for them.
fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(40));
}

/// Over 1 MiB (the size from which a read file's id is worked out ahead), `eol` ending each
/// line.
fn big_text(eol: &str) -> String {
    (1..=60_000)
        .map(|i| format!("line {i} of the file{eol}"))
        .collect()
}

/// A patch changing line 30,000 of [`big_text`], its lines ending in `eol`.
fn patch_for(path: &str, eol: &str) -> String {
    format!(
        "--- a/{path}\n+++ b/{path}\n@@ -29999,3 +29999,3 @@\n line 29999 of the file{eol}-line 30000 of the file{eol}+line 30000, changed{eol} line 30001 of the file{eol}"
    )
}

/// The bytes the snapshot recorded for `path` before the apply.
fn recorded_before(t: &TestRepo, path: &str) -> Vec<u8> {
    let out = t
        .git_cmd(&["cat-file", "blob", &format!("refs/llm-apply/1:{path}")])
        .output()
        .expect("git cat-file");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Commit `files` (the work tree's bytes differ from the blobs when git converts), make the
/// index's stat data fresh and not racy, apply `patch`, and check that the snapshot holds
/// `path` exactly as the work tree had it and that undo puts those bytes back.
fn applies_and_undoes_byte_for_byte(t: &TestRepo, path: &str, patch: &str) {
    settle();
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "base"]);
    settle();
    t.git(&["update-index", "-q", "--really-refresh"]);
    settle();
    let before = t.read(path);
    t.apply(&[], patch).code(0);
    assert_ne!(t.read(path), before, "the apply changed the file");
    assert!(
        recorded_before(t, path) == before,
        "the snapshot holds {path} as the work tree had it"
    );
    t.run(&["undo"]).code(0);
    assert!(
        t.read(path) == before,
        "undo puts {path} back byte for byte"
    );
}

#[test]
fn a_file_autocrlf_converts_is_recorded_as_the_work_tree_holds_it() {
    let t = TestRepo::empty();
    t.git(&["config", "core.autocrlf", "true"]);
    t.write("big.txt", big_text("\r\n").as_bytes());
    applies_and_undoes_byte_for_byte(&t, "big.txt", &patch_for("big.txt", "\r\n"));
    // The index holds the blob with LF endings: its id is not the work tree's bytes'.
    let staged = t.git(&["rev-parse", ":big.txt"]);
    let worktree = t.git(&["hash-object", "--no-filters", "big.txt"]);
    assert_ne!(staged, worktree);
}

#[test]
fn a_file_an_attributes_file_above_it_converts_is_recorded_as_the_work_tree_holds_it() {
    let t = TestRepo::empty();
    t.write("sub/.gitattributes", b"*.txt text eol=crlf\n");
    t.write("sub/deep/big.txt", big_text("\r\n").as_bytes());
    applies_and_undoes_byte_for_byte(
        &t,
        "sub/deep/big.txt",
        &patch_for("sub/deep/big.txt", "\r\n"),
    );
}

#[test]
fn attributes_only_the_index_still_has_count_too() {
    let t = TestRepo::empty();
    t.write(".gitattributes", b"*.txt text eol=crlf\n");
    t.write("big.txt", big_text("\r\n").as_bytes());
    settle();
    t.git(&["add", "-A"]);
    t.git(&["commit", "-q", "-m", "attributes"]);
    // Gone from the work tree, still in the index: git reads it from there when adding.
    std::fs::remove_file(t.abs(".gitattributes")).expect("rm");
    settle();
    t.git(&["update-index", "-q", "--really-refresh"]);
    settle();
    let before = t.read("big.txt");
    t.apply(&[], &patch_for("big.txt", "\r\n")).code(0);
    assert!(recorded_before(&t, "big.txt") == before);
    t.run(&["undo"]).code(0);
    assert!(t.read("big.txt") == before);
}

#[test]
fn a_file_a_same_size_clean_filter_changes_is_recorded_as_the_work_tree_holds_it() {
    let t = TestRepo::empty();
    // rot13 keeps the size: the blob and the work tree differ in every letter, not in length.
    let rot13 = "tr A-Za-z N-ZA-Mn-za-m";
    t.git(&["config", "filter.rot13.clean", rot13]);
    t.git(&["config", "filter.rot13.smudge", rot13]);
    t.write(".gitattributes", b"*.txt filter=rot13\n");
    t.write("big.txt", big_text("\n").as_bytes());
    applies_and_undoes_byte_for_byte(&t, "big.txt", &patch_for("big.txt", "\n"));
    assert_eq!(
        t.git(&["cat-file", "-s", ":big.txt"]).trim(),
        t.read("big.txt").len().to_string()
    );
}

/// The common case the index serves (the id itself is the same hashed or not: whether the
/// index was asked is tested in `repo::index_id`): the snapshot and the undo are exact.
#[test]
fn an_unconverted_clean_file_is_recorded_and_restored_byte_for_byte() {
    let t = TestRepo::empty();
    t.write("big.txt", big_text("\n").as_bytes());
    applies_and_undoes_byte_for_byte(&t, "big.txt", &patch_for("big.txt", "\n"));
    assert_eq!(
        t.git(&["rev-parse", "refs/llm-apply/1:big.txt"]),
        t.git(&["rev-parse", "HEAD:big.txt"])
    );
}

/// Install `script` as the pre-llm-apply hook: it runs after the plan read the files and
/// before anything is recorded or written.
fn pre_hook(t: &TestRepo, script: &str) {
    let hook = t.abs(".git/hooks/pre-llm-apply");
    std::fs::create_dir_all(hook.parent().expect("hooks dir")).expect("mkdir");
    std::fs::write(&hook, format!("#!/bin/sh\ncat >/dev/null\n{script}\n")).expect("write hook");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// `path` committed as `text`, settled (its stamp vouches for it when the run reads it).
fn committed(text: &str, path: &str) -> TestRepo {
    let t = TestRepo::empty();
    t.write(path, text.as_bytes());
    settle();
    t.commit_all("base");
    settle();
    t
}

/// The apply of `patch` is refused because another program changed `path` after the plan
/// read it: exit 1, the file as that program left it, no snapshot kept.
fn refused_as_changed(t: &TestRepo, patch: &str, path: &str, left: &[u8]) {
    let (run, v) = t.apply_json(&[], patch);
    run.code(1);
    assert_eq!(v["status"], "refused", "{v}");
    assert_eq!(v["errors"][0]["kind"], "write", "{v}");
    let message = v["errors"][0]["message"].as_str().expect("a message");
    assert!(
        message.starts_with(&format!(
            "{path} changed while the patch was being applied (another program wrote to it), so \
             nothing was written"
        )),
        "{message}"
    );
    assert!(
        t.read(path) == left,
        "{path} is as the other program left it"
    );
    assert_eq!(
        t.git(&["for-each-ref", "refs/llm-apply/"]),
        "",
        "no snapshot is kept"
    );
    assert_eq!(
        t.git(&["status", "--porcelain", "--untracked-files=all"])
            .lines()
            .count(),
        1
    );
}

#[test]
fn a_file_changed_after_it_was_read_is_not_overwritten() {
    // The hook changes one byte in place, keeping the size, as an editor saving at that
    // moment could: writing the plan's result would drop that change.
    let t = committed(&big_text("\n"), "big.txt");
    pre_hook(
        &t,
        "printf 'L' | dd of=big.txt bs=1 seek=0 conv=notrunc 2>/dev/null",
    );
    let mut edited = t.read("big.txt");
    edited[0] = b'L';
    refused_as_changed(&t, &patch_for("big.txt", "\n"), "big.txt", &edited);
}

/// Over 4 MiB: a work-tree file of this size is mapped into memory, not read.
fn mapped_text() -> String {
    (1..=200_000)
        .map(|i| format!("line {i} of the mapped file\n"))
        .collect()
}

/// A patch changing line 100,000 of [`mapped_text`].
fn mapped_patch() -> String {
    "--- a/big.txt\n+++ b/big.txt\n@@ -99999,3 +99999,3 @@\n line 99999 of the mapped file\n-line 100000 of the mapped file\n+line 100000, changed\n line 100001 of the mapped file\n".to_string()
}

#[test]
fn a_mapped_file_applies_and_undoes_byte_for_byte() {
    let text = mapped_text();
    assert!(text.len() > 4 << 20);
    let t = committed(&text, "big.txt");
    t.apply(&[], &mapped_patch()).code(0);
    assert_eq!(
        t.read_str("big.txt"),
        text.replace("line 100000 of the mapped file\n", "line 100000, changed\n")
    );
    assert!(recorded_before(&t, "big.txt") == text.as_bytes());
    t.run(&["undo"]).code(0);
    assert!(
        t.read("big.txt") == text.as_bytes(),
        "undo puts the bytes back"
    );
}

#[test]
fn a_mapped_file_changed_in_place_after_it_was_read_is_not_overwritten() {
    let t = committed(&mapped_text(), "big.txt");
    // A byte past the middle: the plan's result would be made of the mapped bytes there.
    let at = mapped_text().len() / 2 + 7;
    pre_hook(
        &t,
        &format!("printf 'X' | dd of=big.txt bs=1 seek={at} conv=notrunc 2>/dev/null"),
    );
    let mut edited = mapped_text().into_bytes();
    edited[at] = b'X';
    refused_as_changed(&t, &mapped_patch(), "big.txt", &edited);
    // The same without a snapshot: the write that records nothing checks it too.
    t.git(&["checkout", "--", "big.txt"]);
    settle();
    let (run, v) = t.apply_json(&["--no-snapshot"], &mapped_patch());
    run.code(1);
    assert_eq!(v["errors"][0]["kind"], "write", "{v}");
    assert!(
        t.read("big.txt") == edited,
        "big.txt is as the other program left it"
    );
}

#[test]
fn a_mapped_file_cut_short_after_it_was_read_is_not_overwritten_and_nothing_crashes() {
    // Reading a mapped file past the end it has now faults (SIGBUS): the run reads zeros
    // there, and refuses instead of dying.
    let t = committed(&mapped_text(), "big.txt");
    pre_hook(&t, "printf 'short\\n' > big.txt");
    refused_as_changed(&t, &mapped_patch(), "big.txt", b"short\n");
}

//! How a big apply's snapshot is stored (its post-state blob uncompressed unless git config
//! asks for a level) and `llm-apply.fsync`, through the binary against real repositories.

use crate::common::{numbered, TestRepo};

/// A committed file over 1 MiB (the size from which the post-state's blob is written on
/// its own thread) and a patch without blob ids (so the text strategy applies it) changing
/// line 50,000: the patch and the file it leaves.
fn big_repo() -> (TestRepo, String, Vec<u8>) {
    let base = numbered("line ", 100_000);
    assert!(base.len() > 1 << 20);
    let t = TestRepo::with(&[("big.txt", base.as_str())]);
    let patch = "--- a/big.txt\n+++ b/big.txt\n@@ -49999,3 +49999,3 @@\n line 49999\n-line 50000\n+line 50000, changed\n line 50001\n";
    let after = base.replacen("line 50000\n", "line 50000, changed\n", 1);
    (t, patch.to_string(), after.into_bytes())
}

/// The size of the loose object file holding `id`.
fn loose_size(t: &TestRepo, id: &str) -> u64 {
    let path = t.path().join(".git/objects").join(&id[..2]).join(&id[2..]);
    std::fs::metadata(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

#[track_caller]
fn fsck_clean(t: &TestRepo) {
    let out = t
        .git_cmd(&["fsck", "--full", "--strict", "--no-dangling"])
        .output()
        .expect("git fsck");
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "fsck: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_big_post_state_blob_is_stored_uncompressed_and_git_reads_it() {
    let (t, patch, after) = big_repo();
    let original = t.read("big.txt");
    t.apply(&[], &patch).code(0);
    assert_eq!(t.read("big.txt"), after);
    let id = t.git(&["hash-object", "big.txt"]).trim().to_string();
    // Stored blocks: the bytes, the header and 5 bytes a 64 KiB block, never less.
    let size = loose_size(&t, &id);
    assert!(
        size >= after.len() as u64,
        "{size} bytes for {} of content",
        after.len()
    );
    assert!(
        size < after.len() as u64 + 1024,
        "{size} bytes for {} of content",
        after.len()
    );
    assert_eq!(
        t.git(&["cat-file", "-s", &id]).trim(),
        after.len().to_string()
    );
    let stored = t
        .git_cmd(&["cat-file", "blob", &id])
        .output()
        .expect("git cat-file")
        .stdout;
    assert_eq!(stored, after, "git reads back exactly the bytes written");
    assert_eq!(
        t.git(&["rev-parse", "refs/llm-apply/1^2:big.txt"]).trim(),
        id,
        "the post commit names the blob"
    );
    fsck_clean(&t);

    t.run(&["undo"]).code(0);
    assert_eq!(t.read("big.txt"), original);
    // gc packs (and so compresses) the snapshot's blob like any other.
    t.git(&["gc", "-q", "--prune=now"]);
    fsck_clean(&t);
    assert_eq!(
        t.git(&["cat-file", "-s", &id]).trim(),
        after.len().to_string()
    );
}

#[test]
fn a_compression_level_in_git_config_is_followed() {
    for key in ["core.looseCompression", "core.compression"] {
        let (t, patch, after) = big_repo();
        t.git(&["config", key, "1"]);
        t.apply(&[], &patch).code(0);
        assert_eq!(t.read("big.txt"), after);
        let id = t.git(&["hash-object", "big.txt"]).trim().to_string();
        let size = loose_size(&t, &id);
        assert!(
            size < after.len() as u64 / 2,
            "{key}=1: {size} bytes for {} of content",
            after.len()
        );
        fsck_clean(&t);
    }
}

#[test]
fn fsync_on_applies_and_undoes_the_same() {
    let (t, patch, after) = big_repo();
    let original = t.read("big.txt");
    t.git(&["config", "llm-apply.fsync", "true"]);
    t.apply(&[], &patch).code(0);
    assert_eq!(t.read("big.txt"), after);
    fsck_clean(&t);
    t.run(&["undo"]).code(0);
    assert_eq!(t.read("big.txt"), original);
    // A small file goes the same way.
    t.write("small.txt", b"a\nb\n");
    t.commit_all("small");
    let small = "--- a/small.txt\n+++ b/small.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    t.apply(&[], small).code(0);
    assert_eq!(t.read("small.txt"), b"a\nc\n");
    t.run(&["undo"]).code(0);
    assert_eq!(t.read("small.txt"), b"a\nb\n");
}

#[test]
fn a_bad_fsync_value_is_a_config_error_and_nothing_changes() {
    let (t, patch, _) = big_repo();
    let before = t.state();
    t.git(&["config", "llm-apply.fsync", "sometimes"]);
    t.apply(&[], &patch)
        .code(2)
        .out_contains("git config llm-apply.fsync is 'sometimes', not a boolean");
    t.git(&["config", "--unset", "llm-apply.fsync"]);
    assert_eq!(t.state(), before);
}

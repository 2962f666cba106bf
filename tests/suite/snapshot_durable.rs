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

/// One run of the library in this process, as a front end makes it: an apply of `patch`, or
/// an undo of the most recent apply, in `t`, reading `t`'s git config itself.
fn apply_here(t: &TestRepo, patch: &str) -> git_llm_apply::report::Report {
    use git_llm_apply::run::{ApplyOptions, Patches};
    git_llm_apply::run::apply::run(ApplyOptions {
        patches: Patches::Text(patch.to_string()),
        check: false,
        partial: false,
        format: None,
        revert: false,
        index: false,
        no_snapshot: false,
        verify: false,
        label: None,
        session: None,
        dir: Some(t.path().to_path_buf()),
        config: None,
        prune: git_llm_apply::write::recorded::Prune::Now,
    })
}

fn undo_here(t: &TestRepo) -> git_llm_apply::report::Report {
    git_llm_apply::run::undo::run(git_llm_apply::run::UndoOptions {
        id: None,
        session: None,
        force: false,
        check: false,
        worktree: None,
        dir: Some(t.path().to_path_buf()),
        config: None,
    })
}

/// The inode of the sequence floor, which tells how it was last written: rewritten in place
/// when writes are not flushed (the inode stays), made anew and renamed over the old one when
/// they are (the new file exists beside the old one first, so its inode differs).
#[cfg(unix)]
fn floor_inode(t: &TestRepo) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(t.abs(".git/llm-apply/last-sequence"))
        .expect("the sequence floor")
        .ino()
}

/// Two runs in one process (the MCP server's calls, a library user's) each write as their own
/// repository's `llm-apply.fsync` says, whatever the run before them read: an undo that
/// follows an apply in a repository with the other setting keeps its own.
#[cfg(unix)]
#[test]
fn runs_in_one_process_each_flush_as_their_own_config_says() {
    let repo = |fsync: &str| {
        let t = TestRepo::with(&[("a.txt", "a\nb\n")]);
        t.git(&["config", "llm-apply.fsync", fsync]);
        t
    };
    let (flushed, plain) = (repo("true"), repo("false"));
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    let applied = |r: git_llm_apply::report::Report| {
        assert_eq!(r.exit_code(), 0, "{:?}", r.errors);
        assert!(r.written && r.snapshot.is_some(), "{:?}", r.notices);
    };
    applied(apply_here(&plain, patch));
    applied(apply_here(&flushed, patch));
    // The run before read `true`: this undo's own config says `false`, so its snapshot's
    // number is written over the floor in place.
    let before = floor_inode(&plain);
    applied(undo_here(&plain));
    assert_eq!(plain.read("a.txt"), b"a\nb\n");
    assert_eq!(plain.read_str(".git/llm-apply/last-sequence"), "2\n");
    assert_eq!(
        floor_inode(&plain),
        before,
        "not flushed: rewritten in place"
    );
    // And the other way round: after a run that read `false`, an undo whose config says
    // `true` replaces the floor with a flushed file.
    applied(apply_here(&plain, patch));
    let before = floor_inode(&flushed);
    applied(undo_here(&flushed));
    assert_eq!(flushed.read("a.txt"), b"a\nb\n");
    assert_eq!(flushed.read_str(".git/llm-apply/last-sequence"), "2\n");
    assert_ne!(
        floor_inode(&flushed),
        before,
        "flushed: a new file renamed over"
    );
    for t in [&flushed, &plain] {
        fsck_clean(t);
    }
}

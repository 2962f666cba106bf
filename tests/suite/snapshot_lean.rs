//! The few files a small apply writes besides the work-tree file (issue 36): its snapshot's
//! objects stored without compression unless a level is configured, the journal's snapshot
//! line appended in place, and the sequence floor rewritten in place. Each test checks what
//! git reads back, byte for byte, so a cheaper write that git cannot read fails here.

use std::path::PathBuf;

use crate::common::{numbered, TestRepo};

/// Every object the repository holds.
fn all_objects(t: &TestRepo) -> Vec<String> {
    t.git(&[
        "cat-file",
        "--batch-all-objects",
        "--batch-check=%(objectname)",
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

fn repo() -> (TestRepo, String) {
    let t = TestRepo::with(&[("src/a.txt", &numbered("a", 20)), ("b.txt", "b\n")]);
    t.commit_all("base");
    // `git diff` of the work tree hashes the new file without storing it: the apply must.
    t.write(
        "src/a.txt",
        numbered("a", 20).replace("a7\n", "a seven\n").as_bytes(),
    );
    let patch = t.git(&["diff"]);
    t.git(&["checkout", "--", "."]);
    (t, patch)
}

/// The loose file of every object the snapshot ref reaches that is not in HEAD's history and
/// was not in the object store before the apply.
fn snapshot_object_files(t: &TestRepo, before: &[String]) -> Vec<(String, PathBuf)> {
    let ids = t.git(&["rev-list", "--objects", "refs/llm-apply/1", "--not", "HEAD"]);
    ids.lines()
        .map(|l| l.split(' ').next().expect("an id").to_string())
        .filter(|id| !before.contains(id))
        .map(|id| {
            let path = t.abs(&format!(".git/objects/{}/{}", &id[..2], &id[2..]));
            (id, path)
        })
        .collect()
}

/// `git fsck --strict` finds nothing wrong.
fn fsck(t: &TestRepo) {
    let out = t
        .git_cmd(&["fsck", "--strict", "--no-dangling"])
        .output()
        .expect("fsck");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether a loose object's zlib stream is made of stored (uncompressed) blocks: the header
/// zlib writes for level 0, then a first block of type 0.
fn stored(bytes: &[u8]) -> bool {
    bytes.len() > 3 && bytes[0] == 0x78 && bytes[1] == 0x01 && bytes[2] & 0b110 == 0
}

#[test]
fn a_snapshots_small_objects_are_stored_uncompressed_and_git_reads_them() {
    let (t, patch) = repo();
    let before = all_objects(&t);
    t.apply(&[], &patch).code(0);
    let objects = snapshot_object_files(&t, &before);
    // The post-state's blob, two trees (the root and src/ of the post-state: the pre-state
    // is HEAD's tree), the post commit and the snapshot commit.
    assert_eq!(objects.len(), 5, "{objects:?}");
    for (id, path) in &objects {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{id} is loose: {e}"));
        assert!(stored(&bytes), "{id} is stored uncompressed");
    }
    fsck(&t);
    assert_eq!(
        t.git(&["cat-file", "blob", "refs/llm-apply/1^2:src/a.txt"]),
        t.read_str("src/a.txt"),
        "the post commit holds the file as the apply wrote it"
    );
    t.run(&["undo", "1"]).code(0);
    assert_eq!(t.read_str("src/a.txt"), numbered("a", 20));
}

#[test]
fn a_configured_compression_level_is_honoured() {
    let (t, patch) = repo();
    t.git(&["config", "core.compression", "9"]);
    let before = all_objects(&t);
    t.apply(&[], &patch).code(0);
    let objects = snapshot_object_files(&t, &before);
    assert_eq!(objects.len(), 5, "{objects:?}");
    for (id, path) in objects {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{id} is loose: {e}"));
        assert!(!stored(&bytes), "{id} is compressed at the level asked for");
    }
    fsck(&t);
}

#[test]
fn the_sequence_floor_is_rewritten_in_place_and_a_longer_leftover_is_cut() {
    let (t, patch) = repo();
    let floor = t.abs(".git/llm-apply/last-sequence");
    std::fs::create_dir_all(floor.parent().expect("dir")).expect("mkdir");
    // A hand-edited file that does not read as a number: it counts as no floor at all, and
    // the number written over it must not keep its tail.
    std::fs::write(&floor, "not a number at all\n").expect("write");
    t.apply(&[], &patch).code(0);
    assert_eq!(std::fs::read_to_string(&floor).expect("read"), "1\n");
    t.run(&["undo", "1"]).code(0);
    t.apply(&[], &patch).code(0);
    let snapshots = t.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]);
    // The undo is snapshot 2.
    assert_eq!(
        snapshots,
        "refs/llm-apply/1\nrefs/llm-apply/2\nrefs/llm-apply/3\n"
    );
    assert_eq!(std::fs::read_to_string(&floor).expect("read"), "3\n");
}

#[test]
fn the_journal_is_gone_after_an_apply_and_nothing_temporary_is_left() {
    let (t, patch) = repo();
    t.apply(&[], &patch).code(0);
    let state = t.abs(".git/llm-apply");
    let mut left: Vec<String> = std::fs::read_dir(&state)
        .expect("state dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // `git-binary` caches what the git binary is, so that later runs need not ask it.
    assert_eq!(
        left,
        ["git-binary", "last-sequence"],
        "no lock, journal or temporary file stays"
    );
    let strays: Vec<String> = std::fs::read_dir(t.abs(".git/objects"))
        .expect("objects")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("tmp"))
        .collect();
    assert!(strays.is_empty(), "{strays:?}");
}

/// On an unborn branch the pre-apply tree of an apply that only creates files is the empty
/// tree, which no object file holds until something writes it: the snapshot writes it, so
/// git finds every object its commits name, and undo takes the new file away.
#[test]
fn a_snapshot_on_an_unborn_branch_leaves_no_object_missing() {
    let t = TestRepo::empty();
    assert!(
        !t.abs(".git/objects/4b/825dc642cb6eb9a060e54bf8d69288fbee4904")
            .exists(),
        "the empty tree is not stored yet"
    );
    t.apply(&[], "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n")
        .code(0);
    assert_eq!(t.read_str("new.txt"), "new\n");
    assert_eq!(
        t.git(&["rev-parse", "refs/llm-apply/1^{tree}"]).trim(),
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    );
    fsck(&t);
    t.run(&["undo", "1"]).code(0);
    assert!(!t.exists("new.txt"));
}

//! The ghost-commit store (`snapshot`) through its library API, against real temporary
//! repositories and the real git binary: create, list, read, undo markers, prune, the lock
//! and the journal.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use git_llm_apply::repo::{FileState, Repo, MODE_EXEC, MODE_FILE, MODE_LINK};
use git_llm_apply::snapshot::{
    self, Holder, Journal, JournalError, Lock, LockError, Meta, MetaError, PatchDigest, Recorded,
    SnapshotError, SnapshotId, Status, Touched,
};

use crate::common::TestRepo;

/// What the store's tests ask of a repository besides the shared helper's basics.
trait StoreRepo {
    fn root(&self) -> &Path;
    fn run_git(&self, args: &[&str]) -> Output;
    fn git_bytes(&self, args: &[&str]) -> Vec<u8>;
    fn open(&self) -> Repo;
    fn parents(&self, rev: &str) -> Vec<String>;
    fn exists_in(&self, rev: &str, path: &str) -> bool;
    /// `(mode, id)` of `path` in `rev`'s tree.
    fn ls_tree(&self, rev: &str, path: &str) -> Option<(String, String)>;
    /// Git's blob id for `bytes`.
    fn hash(&self, bytes: &[u8]) -> String;
}

impl StoreRepo for TestRepo {
    fn root(&self) -> &Path {
        self.path()
    }

    fn run_git(&self, args: &[&str]) -> Output {
        self.git_cmd(args).output().expect("git runs")
    }

    fn git_bytes(&self, args: &[&str]) -> Vec<u8> {
        let out = self.run_git(args);
        assert!(out.status.success(), "git {args:?} failed");
        out.stdout
    }

    fn open(&self) -> Repo {
        open_at(self.path())
    }

    fn parents(&self, rev: &str) -> Vec<String> {
        self.git(&["rev-list", "--parents", "-n", "1", rev])
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect()
    }

    fn exists_in(&self, rev: &str, path: &str) -> bool {
        self.run_git(&["cat-file", "-e", &format!("{rev}:{path}")])
            .status
            .success()
    }

    fn ls_tree(&self, rev: &str, path: &str) -> Option<(String, String)> {
        let out = self.git(&["ls-tree", "-z", rev, "--", path]);
        let line = out.split('\0').next().filter(|l| !l.is_empty())?;
        let mut fields = line.split_whitespace();
        let mode = fields.next()?.to_string();
        fields.next();
        Some((mode, fields.next()?.to_string()))
    }

    fn hash(&self, bytes: &[u8]) -> String {
        let mut child = self
            .git_cmd(&["hash-object", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("git runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(bytes)
            .expect("write");
        let out = child.wait_with_output().expect("git hash-object");
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_string()
    }
}

fn open_at(dir: &Path) -> Repo {
    Repo::discover(dir)
        .expect("discover")
        .expect("inside a repository")
}

fn file(bytes: &[u8], mode: u32) -> Option<FileState> {
    Some(FileState {
        bytes: bytes.to_vec().into(),
        mode,
    })
}

fn touched(path: &str, after: Option<FileState>) -> Touched {
    Touched {
        path: path.to_string(),
        before: None,
        after,
    }
}

/// A touched path with the state the plan read there (and some content after).
fn known(path: &str, before: &[u8], mode: u32) -> Touched {
    Touched {
        path: path.to_string(),
        before: file(before, mode),
        after: file(b"after\n", MODE_FILE),
    }
}

/// Snapshot `touched` and read back the pre-state recorded for each path (bytes and mode).
fn befores_recorded(repo: &Repo, touched: &[Touched]) -> BTreeMap<String, Option<(Vec<u8>, u32)>> {
    let id = snapshot::create(repo, touched, &meta(None)).expect("snapshot");
    let snap = snapshot::read(repo, id).expect("read");
    touched
        .iter()
        .map(|t| {
            let before = snap.path(&t.path).expect("recorded").before.as_ref();
            (t.path.clone(), before.map(|f| (f.bytes.to_vec(), f.mode)))
        })
        .collect()
}

fn meta(intent: Option<&str>) -> Meta {
    Meta {
        session: None,
        patch_sha256: PatchDigest::of(b"the patch text"),
        intent: intent.map(str::to_string),
        undoes: None,
        files: 1,
        added: 2,
        removed: 1,
        index: Vec::new(),
        lines: Default::default(),
    }
}

fn one_file_snapshot(repo: &Repo, path: &str, after: &[u8]) -> SnapshotId {
    snapshot::create(repo, &[touched(path, file(after, MODE_FILE))], &meta(None)).expect("snapshot")
}

fn blob_id(recorded: Recorded) -> Option<String> {
    match recorded {
        Recorded::Absent => None,
        Recorded::Blob { id, .. } => Some(id.to_string()),
    }
}

#[test]
fn create_list_read_round_trip_keeps_exact_bytes_and_modes() {
    let t = TestRepo::empty();
    t.write("a.txt", b"one\n");
    t.write("bin/run.sh", b"#!/bin/sh\necho hi\n");
    t.set_exec("bin/run.sh", true);
    t.write("deep/x/y/z.txt", b"z\n");
    t.write("old name.txt", b"moving\n");
    t.write("keep.txt", b"untouched\n");
    t.commit_all("base");
    // The user's uncommitted edit is what the snapshot must hold, not HEAD's content.
    let dirty: &[u8] = b"\xef\xbb\xbfdirty\r\n\x00binary\xff";
    t.write("a.txt", dirty);

    let repo = t.open();
    let odd = "new/we ird \"name\"\nwith newline.txt";
    let touched = vec![
        touched("a.txt", file(b"after a\n", MODE_FILE)),
        touched("bin/run.sh", file(b"#!/bin/sh\necho hi\n", MODE_FILE)),
        touched("deep/x/y/z.txt", None),
        touched("new/dir/file.txt", file(b"created\n", MODE_EXEC)),
        touched("old name.txt", None),
        touched("renamed/new name.txt", file(b"moving\n", MODE_FILE)),
        touched(odd, file(b"odd\n", MODE_FILE)),
    ];
    let id = snapshot::create(&repo, &touched, &meta(Some("Fix the parser\nmore prose")))
        .expect("snapshot");
    assert_eq!(id.to_string(), "1");
    let ghost = id.ref_name();
    assert!(
        !t.root().join(".git/logs/refs/llm-apply").exists(),
        "no reflog by default, so a pruned snapshot's objects really become unreachable"
    );

    // What git sees in the ghost commit's tree: the pre-apply work-tree state.
    assert_eq!(
        t.git_bytes(&["cat-file", "blob", &format!("{ghost}:a.txt")]),
        dirty
    );
    assert_eq!(
        t.ls_tree(&ghost, "bin/run.sh").expect("present").0,
        "100755"
    );
    assert!(t.exists_in(&ghost, "deep/x/y/z.txt"));
    assert!(!t.exists_in(&ghost, "new/dir/file.txt"));
    assert!(!t.exists_in(&ghost, "renamed/new name.txt"));
    assert_eq!(
        t.git(&["rev-parse", &format!("{ghost}:keep.txt")]),
        t.git(&["rev-parse", "HEAD:keep.txt"])
    );
    let changed = t.git(&["diff", "--name-only", "HEAD", &ghost]);
    assert_eq!(changed, "a.txt\n", "only the dirty path differs from HEAD");

    // The post commit (last parent) holds the state the apply leaves.
    let post = format!("{ghost}^2");
    assert_eq!(t.parents(&ghost)[0], t.git(&["rev-parse", "HEAD"]).trim());
    assert_eq!(
        t.git_bytes(&["cat-file", "blob", &format!("{post}:a.txt")]),
        b"after a\n"
    );
    assert_eq!(t.ls_tree(&post, "bin/run.sh").expect("present").0, "100644");
    assert_eq!(
        t.ls_tree(&post, "new/dir/file.txt").expect("present").0,
        "100755"
    );
    assert!(!t.exists_in(&post, "deep/x/y/z.txt"));
    assert!(!t.exists_in(&post, "old name.txt"));

    let infos = snapshot::list(&repo).expect("list");
    assert_eq!(infos.len(), 1);
    let info = &infos[0];
    assert_eq!(info.id, id);
    assert_eq!(info.intent.as_deref(), Some("Fix the parser"));
    assert_eq!((info.files, info.added, info.removed), (1, 2, 1));
    assert_eq!(info.status, Status::Applied);
    assert_eq!(info.patch_sha256, PatchDigest::of(b"the patch text"));
    assert_eq!(info.tool_version, env!("CARGO_PKG_VERSION"));
    let paths: Vec<&str> = touched.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(info.paths, paths);

    let snap = snapshot::read(&repo, id).expect("read");
    assert_eq!(snap.info(), info);
    assert_eq!(
        snap.head().map(|h| h.to_string()),
        Some(t.git(&["rev-parse", "HEAD"]).trim().to_string())
    );
    let expect_before: BTreeMap<&str, Option<(&[u8], u32)>> = [
        ("a.txt", Some((dirty, MODE_FILE))),
        (
            "bin/run.sh",
            Some((&b"#!/bin/sh\necho hi\n"[..], MODE_EXEC)),
        ),
        ("deep/x/y/z.txt", Some((&b"z\n"[..], MODE_FILE))),
        ("new/dir/file.txt", None),
        ("old name.txt", Some((&b"moving\n"[..], MODE_FILE))),
        ("renamed/new name.txt", None),
        (odd, None),
    ]
    .into_iter()
    .collect();
    for (entry, t_in) in snap.paths().iter().zip(&touched) {
        assert_eq!(entry.path, t_in.path, "order is the caller's");
        let before = entry.before.as_ref().map(|f| (&f.bytes[..], f.mode));
        assert_eq!(before, expect_before[entry.path.as_str()], "{}", entry.path);
        assert_eq!(
            blob_id(entry.before_blob),
            entry.before.as_ref().map(|f| t.hash(&f.bytes))
        );
        let after = snap
            .after_content(&repo, entry)
            .expect("post blob readable");
        assert_eq!(after, t_in.after, "{}", entry.path);
        assert_eq!(
            blob_id(entry.after),
            t_in.after.as_ref().map(|f| t.hash(&f.bytes)),
            "post ids are git's blob ids"
        );
    }
}

/// The state the plan read is recorded only while the work tree still holds it, byte for
/// byte and mode for mode: otherwise what is really there is.
#[test]
fn a_known_before_state_is_recorded_only_when_the_work_tree_holds_it() {
    let t = TestRepo::empty();
    t.write("a.txt", b"as planned\n");
    t.write("b.txt", b"changed since the plan\n");
    t.write("c.sh", b"same bytes\n");
    t.commit_all("base");
    let repo = t.open();
    let touched = [
        known("a.txt", b"as planned\n", MODE_FILE),
        known("b.txt", b"as the plan read it\n", MODE_FILE),
        // Same bytes, another mode than the file has: not held.
        known("c.sh", b"same bytes\n", MODE_EXEC),
        // Planned as present, but there is no file.
        known("gone.txt", b"planned\n", MODE_FILE),
    ];
    let recorded = befores_recorded(&repo, &touched);
    let before = |p: &str| recorded[p].clone();
    assert_eq!(before("a.txt"), Some((b"as planned\n".to_vec(), MODE_FILE)));
    assert_eq!(
        before("b.txt"),
        Some((b"changed since the plan\n".to_vec(), MODE_FILE))
    );
    assert_eq!(before("c.sh"), Some((b"same bytes\n".to_vec(), MODE_FILE)));
    assert_eq!(before("gone.txt"), None);
}

/// A big file (checked and hashed beside the post-state's writing) that the plan read and
/// that git does not have yet (edited since the last commit) is recorded with its blob.
#[test]
fn a_big_uncommitted_before_state_is_recorded_with_its_blob() {
    let t = TestRepo::empty();
    t.write("big.txt", b"committed\n");
    t.commit_all("base");
    let big: Vec<u8> = (0..60_000)
        .flat_map(|i| format!("edited line {i}\n").into_bytes())
        .collect();
    assert!(big.len() > 1 << 20);
    t.write("big.txt", &big);
    let repo = t.open();
    let touched = [known("big.txt", &big, MODE_FILE)];
    let id = snapshot::create(&repo, &touched, &meta(None)).expect("snapshot");
    let snap = snapshot::read(&repo, id).expect("read");
    let before = snap.path("big.txt").expect("recorded").before.as_ref();
    assert_eq!(before.map(|f| f.bytes.to_vec()), Some(big.clone()));
    assert_eq!(
        t.ls_tree(&id.ref_name(), "big.txt").map(|(_, blob)| blob),
        Some(t.hash(&big))
    );
}

#[test]
fn a_deleted_path_is_absent_and_its_emptied_directory_disappears() {
    let t = TestRepo::empty();
    t.write("d/gone.txt", b"bye\n");
    t.write("top.txt", b"top\n");
    t.commit_all("base");
    std::fs::remove_file(t.root().join("d/gone.txt")).expect("rm");

    let repo = t.open();
    let id = one_file_snapshot(&repo, "d/gone.txt", b"recreated\n");
    assert!(!t.exists_in(&id.ref_name(), "d/gone.txt"));
    assert!(!t.exists_in(&id.ref_name(), "d"), "git has no empty trees");
    assert!(t.exists_in(&id.ref_name(), "top.txt"));
    let snap = snapshot::read(&repo, id).expect("read");
    assert_eq!(snap.paths()[0].before, None);
    assert_eq!(snap.paths()[0].before_blob, Recorded::Absent);
}

#[test]
fn a_directory_at_a_touched_path_counts_as_no_file() {
    let t = TestRepo::empty();
    t.write("a/b", b"inner\n");
    t.commit_all("base");
    let repo = t.open();
    // The apply deletes a/b and creates the file a.
    let id = snapshot::create(
        &repo,
        &[
            touched("a/b", None),
            touched("a", file(b"file a\n", MODE_FILE)),
        ],
        &meta(None),
    )
    .expect("snapshot");
    assert_eq!(t.ls_tree(&id.ref_name(), "a").expect("a").0, "040000");
    assert_eq!(
        t.ls_tree(&format!("{}^2", id.ref_name()), "a")
            .expect("a")
            .0,
        "100644"
    );
    let snap = snapshot::read(&repo, id).expect("read");
    assert_eq!(snap.path("a").expect("a").before, None);
    assert!(snap.path("a/b").expect("a/b").before.is_some());
}

#[test]
fn unborn_branch_snapshot_has_the_post_commit_as_its_only_parent() {
    let t = TestRepo::empty();
    t.write("first.txt", b"not committed yet\n");
    let repo = t.open();
    let id = one_file_snapshot(&repo, "first.txt", b"edited\n");

    assert!(!t
        .run_git(&["rev-parse", "--verify", "-q", "HEAD"])
        .status
        .success());
    assert_eq!(t.parents(&id.ref_name()).len(), 1);
    assert_eq!(
        t.git(&["ls-tree", "-r", "--name-only", &id.ref_name()]),
        "first.txt\n"
    );
    let snap = snapshot::read(&repo, id).expect("read");
    assert_eq!(snap.head(), None);
    assert_eq!(
        snap.paths()[0].before.as_ref().map(|f| f.bytes.to_vec()),
        Some(b"not committed yet\n".to_vec())
    );
    assert!(t.git(&["status", "--porcelain"]).contains("?? first.txt"));
}

#[test]
fn detached_head_is_the_first_parent() {
    let t = TestRepo::empty();
    t.write("f.txt", b"1\n");
    t.commit_all("one");
    t.write("f.txt", b"2\n");
    t.commit_all("two");
    t.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let repo = t.open();
    let id = one_file_snapshot(&repo, "f.txt", b"3\n");
    let head = t.git(&["rev-parse", "HEAD"]).trim().to_string();
    assert_eq!(t.parents(&id.ref_name())[0], head);
    assert_eq!(
        t.git_bytes(&["cat-file", "blob", &format!("{}:f.txt", id.ref_name())]),
        b"1\n"
    );
    assert_eq!(
        t.git(&["rev-parse", "HEAD"]).trim(),
        head,
        "HEAD stays detached where it was"
    );
}

#[test]
fn linked_worktree_shares_refs_but_has_its_own_lock_and_journal() {
    let t = TestRepo::empty();
    t.write("f.txt", b"main\n");
    t.commit_all("base");
    let outside = tempfile::tempdir().expect("temp dir");
    let wt_dir = outside.path().join("linked");
    t.add_worktree(&wt_dir, Some("side"), None);
    std::fs::write(wt_dir.join("f.txt"), b"linked edit\n").expect("write");

    let main = t.open();
    let linked = open_at(&wt_dir);
    let id = one_file_snapshot(&linked, "f.txt", b"after\n");
    assert_eq!(
        t.git_bytes(&["cat-file", "blob", &format!("{}:f.txt", id.ref_name())]),
        b"linked edit\n",
        "the linked worktree's files, seen from the main worktree"
    );
    let from_main = snapshot::list(&main).expect("list");
    assert_eq!(from_main.iter().map(|i| i.id).collect::<Vec<_>>(), vec![id]);
    let second = one_file_snapshot(&main, "f.txt", b"after\n");
    assert_eq!(
        second.sequence(),
        id.sequence() + 1,
        "one sequence for all worktrees"
    );

    // Both worktrees can hold their own lock at once.
    let main_lock = Lock::acquire(&main, Duration::ZERO).expect("main lock");
    let linked_lock = Lock::acquire(&linked, Duration::ZERO).expect("linked lock");
    assert!(linked_lock
        .path()
        .starts_with(t.root().join(".git/worktrees/linked")));
    assert!(main_lock
        .path()
        .starts_with(t.root().join(".git/llm-apply")));

    let journal = Journal::begin_named(&linked, &linked_lock, id, ["f.txt"]).expect("journal");
    assert_eq!(Journal::pending(&main).expect("read"), None);
    let pending = Journal::pending(&linked).expect("read").expect("pending");
    assert_eq!(pending.snapshot(), Some(id));
    assert!(matches!(
        Journal::begin_named(&main, &linked_lock, id, ["f.txt"]),
        Err(JournalError::ForeignLock { .. })
    ));
    journal.finish().expect("finish");
    assert_eq!(Journal::pending(&linked).expect("read"), None);
}

#[test]
fn fsck_is_clean_and_every_ref_peels_to_a_commit_even_after_gc() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    for i in 0..4 {
        t.write("f.txt", format!("edit {i}\n").as_bytes());
        one_file_snapshot(&repo, "f.txt", format!("after {i}\n").as_bytes());
    }
    snapshot::mark_undone(&repo, "1".parse().expect("id")).expect("undo");
    snapshot::mark_undone(&repo, "4".parse().expect("id")).expect("undo");
    snapshot::prune(&repo, 3).expect("prune");

    let out = t.run_git(&["fsck", "--strict", "--no-dangling"]);
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "fsck: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let refs = t.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/llm-apply/",
        "refs/llm-apply-undone/",
    ]);
    let refs: Vec<&str> = refs.lines().collect();
    assert_eq!(
        refs,
        [
            "refs/llm-apply-undone/4",
            "refs/llm-apply/2",
            "refs/llm-apply/3",
            "refs/llm-apply/4",
        ],
        "snapshot 1 goes, and its undo marker with it"
    );
    for name in &refs {
        assert_eq!(t.git(&["cat-file", "-t", name]), "commit\n", "{name}");
    }

    // Post-apply blobs are reachable through the post commit, so gc keeps them.
    t.git(&["gc", "-q", "--prune=now"]);
    let repo = t.open();
    let snap = snapshot::read(&repo, "3".parse().expect("id")).expect("read after gc");
    let after = snap
        .after_content(&repo, &snap.paths()[0])
        .expect("post blob survives gc");
    assert_eq!(after.map(|f| f.bytes.to_vec()), Some(b"after 2\n".to_vec()));
    assert_eq!(snapshot::list(&repo).expect("list packed refs").len(), 3);
}

#[test]
fn prune_keeps_the_newest_n_and_numbers_never_repeat() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    for _ in 0..5 {
        one_file_snapshot(&repo, "f.txt", b"x\n");
    }
    let dropped = snapshot::prune(&repo, 2).expect("prune");
    assert_eq!(
        dropped.iter().map(|i| i.sequence()).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let left: Vec<u64> = snapshot::list(&repo)
        .expect("list")
        .iter()
        .map(|i| i.id.sequence())
        .collect();
    assert_eq!(left, [5, 4], "newest first");
    assert_eq!(one_file_snapshot(&repo, "f.txt", b"y\n").sequence(), 6);

    assert_eq!(snapshot::prune(&repo, 0).expect("prune all").len(), 3);
    assert!(snapshot::list(&repo).expect("list").is_empty());
    assert_eq!(
        one_file_snapshot(&repo, "f.txt", b"z\n").sequence(),
        7,
        "an old id never names a new snapshot"
    );
    assert!(matches!(
        snapshot::read(&repo, "3".parse().expect("id")),
        Err(SnapshotError::NotFound { .. })
    ));
}

#[test]
fn prune_listed_drops_by_the_numbers_it_was_given_and_keeps_a_newer_one_besides() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    for _ in 0..3 {
        one_file_snapshot(&repo, "f.txt", b"x\n");
    }
    let (fourth, listed) = snapshot::create_with_nonce(
        &repo,
        &[touched("f.txt", file(b"y\n", MODE_FILE))],
        &meta(None),
        &snapshot::new_nonce(),
        &mut snapshot::Ahead::default(),
    )
    .expect("snapshot");
    assert_eq!(fourth.sequence(), 4);
    // Made after the listing was read (as another worktree's run may): not in it.
    assert_eq!(one_file_snapshot(&repo, "f.txt", b"z\n").sequence(), 5);
    let dropped = snapshot::prune_listed(&repo, 2, listed).expect("prune");
    assert_eq!(
        dropped.iter().map(|i| i.sequence()).collect::<Vec<_>>(),
        [1, 2]
    );
    let left = |repo: &Repo| -> Vec<u64> {
        snapshot::list(repo)
            .expect("list")
            .iter()
            .map(|i| i.id.sequence())
            .collect()
    };
    assert_eq!(left(&repo), [5, 4, 3]);
    assert_eq!(
        snapshot::prune(&repo, 2).expect("prune").len(),
        1,
        "the next prune counts it"
    );
    assert_eq!(left(&repo), [5, 4]);
    assert_eq!(one_file_snapshot(&repo, "f.txt", b"w\n").sequence(), 6);
}

#[test]
fn undoing_twice_is_an_error_and_log_shows_the_status() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    let first = one_file_snapshot(&repo, "f.txt", b"1\n");
    let second = one_file_snapshot(&repo, "f.txt", b"2\n");
    snapshot::mark_undone(&repo, first).expect("first undo");
    let err = snapshot::mark_undone(&repo, first).expect_err("second undo");
    assert!(matches!(err, SnapshotError::AlreadyUndone { id } if id == first));
    assert_eq!(err.to_string(), "snapshot 1 was already undone");

    let infos = snapshot::list(&repo).expect("list");
    assert_eq!(infos[0].id, second);
    assert_eq!(infos[0].status, Status::Applied);
    assert!(matches!(infos[1].status, Status::Undone { .. }));
    assert!(matches!(
        snapshot::read(&repo, first).expect("read").info().status,
        Status::Undone { .. }
    ));
    assert!(matches!(
        snapshot::mark_undone(&repo, "99".parse().expect("id")),
        Err(SnapshotError::NotFound { .. })
    ));
}

#[test]
fn malformed_or_foreign_refs_are_typed_errors() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    let good = one_file_snapshot(&repo, "f.txt", b"x\n");

    let tree = t.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    let bad_commit = t
        .git(&[
            "commit-tree",
            &tree,
            "-m",
            "looks like ours\n\nllm-apply-format: 1\nllm-apply-sequence: 9\n",
        ])
        .trim()
        .to_string();
    t.git(&["update-ref", "refs/llm-apply/9", &bad_commit]);
    let err = snapshot::read(&repo, "9".parse().expect("id")).expect_err("malformed");
    assert!(
        matches!(&err, SnapshotError::Malformed { name, source: MetaError::MissingKey { .. } } if name == "refs/llm-apply/9"),
        "{err:?}"
    );
    assert!(snapshot::list(&repo)
        .expect_err("list names it")
        .to_string()
        .contains("refs/llm-apply/9"));
    t.git(&["update-ref", "-d", "refs/llm-apply/9"]);

    // A tree where a commit must be.
    t.git(&["update-ref", "refs/llm-apply/10", &tree]);
    assert!(matches!(
        snapshot::read(&repo, "10".parse().expect("id")),
        Err(SnapshotError::NotACommit { .. })
    ));
    t.git(&["update-ref", "-d", "refs/llm-apply/10"]);

    // A valid snapshot under the wrong number.
    t.git(&["update-ref", "refs/llm-apply/11", &good.ref_name()]);
    assert!(matches!(
        snapshot::read(&repo, "11".parse().expect("id")),
        Err(SnapshotError::Inconsistent { .. })
    ));
    t.git(&["update-ref", "-d", "refs/llm-apply/11"]);

    // Refs under our prefix that are not numbered are someone else's; they are ignored.
    t.git(&["update-ref", "refs/llm-apply/notes", &bad_commit]);
    assert_eq!(snapshot::list(&repo).expect("list").len(), 1);
    snapshot::read(&repo, good).expect("the good one still reads");
}

/// Every work-tree file (path, bytes, mode), plus the index, HEAD and branch ref files.
fn everything_the_user_has(t: &TestRepo) -> BTreeMap<String, (Vec<u8>, u32)> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, (Vec<u8>, u32)>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("below root")
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = entry.metadata().expect("metadata");
            if meta.is_dir() {
                walk(&path, root, out);
            } else {
                out.insert(
                    rel,
                    (
                        std::fs::read(&path).expect("read"),
                        meta.permissions().mode(),
                    ),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(t.root(), t.root(), &mut out);
    for name in ["index", "HEAD", "refs/heads/main"] {
        let path = t.root().join(".git").join(name);
        out.insert(
            format!(".git/{name}"),
            (std::fs::read(&path).expect("read"), 0),
        );
    }
    out
}

#[test]
fn create_leaves_index_head_and_work_tree_byte_identical() {
    let t = TestRepo::empty();
    t.write(".gitignore", b"*.log\n");
    t.write("a.txt", b"a\n");
    t.write("b.txt", b"b\n");
    t.commit_all("base");
    t.write("b.txt", b"staged\n");
    t.git(&["add", "b.txt"]);
    t.write("b.txt", b"staged then edited\n");
    t.write("a.txt", b"dirty\n");
    t.write("untracked.txt", b"mine\n");
    t.write("build.log", b"ignored\n");
    let before = everything_the_user_has(&t);
    let status = t.git(&["status", "--porcelain", "--ignored"]);

    let repo = t.open();
    snapshot::create(
        &repo,
        &[
            touched("a.txt", file(b"new a\n", MODE_FILE)),
            touched("b.txt", file(b"new b\n", MODE_FILE)),
        ],
        &meta(None),
    )
    .expect("snapshot");

    assert_eq!(everything_the_user_has(&t), before);
    assert_eq!(t.git(&["status", "--porcelain", "--ignored"]), status);
}

#[test]
fn bad_paths_and_special_files_are_refused_before_any_ref_is_written() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    // A link inside the tree is recorded like git records it; one leading out is refused.
    std::os::unix::fs::symlink("../f.txt", t.root().join("link")).expect("symlink");
    let repo = t.open();
    for (path, check) in [
        (
            "link",
            (|e| {
                matches!(
                    e,
                    SnapshotError::Unsupported {
                        kind: "symlink leading out of the work tree",
                        ..
                    }
                )
            }) as fn(&SnapshotError) -> bool,
        ),
        (".git/config", |e| {
            matches!(e, SnapshotError::InvalidPath { .. })
        }),
        ("../outside", |e| {
            matches!(e, SnapshotError::InvalidPath { .. })
        }),
    ] {
        let err = snapshot::create(&repo, &[touched(path, file(b"x", MODE_FILE))], &meta(None))
            .expect_err(path);
        assert!(check(&err), "{path}: {err:?}");
    }
    let err = snapshot::create(
        &repo,
        &[touched("f.txt", file(b"x", 0o100600))],
        &meta(None),
    )
    .expect_err("bad mode");
    assert!(matches!(err, SnapshotError::InvalidMode { .. }));
    assert!(matches!(
        snapshot::create(&repo, &[], &meta(None)),
        Err(SnapshotError::NothingTouched)
    ));
    assert_eq!(t.git(&["for-each-ref", "refs/llm-apply/"]), "");
}

#[test]
fn keep_is_read_from_git_config() {
    let t = TestRepo::empty();
    assert_eq!(snapshot::keep_from_config(&t.open()).expect("default"), 50);
    t.git(&["config", "llm-apply.keep", "3"]);
    assert_eq!(snapshot::keep_from_config(&t.open()).expect("set"), 3);
    t.git(&["config", "llm-apply.keep", "-1"]);
    assert!(matches!(
        snapshot::keep_from_config(&t.open()),
        Err(SnapshotError::Config { .. })
    ));
    t.git(&["config", "llm-apply.keep", "many"]);
    let err = snapshot::keep_from_config(&t.open()).expect_err("not a number");
    assert!(err.to_string().contains("\"many\""), "{err}");
}

#[test]
fn lock_contention_between_threads_serialises() {
    let t = TestRepo::empty();
    let spans = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let root = t.path().to_path_buf();
            let spans = Arc::clone(&spans);
            std::thread::spawn(move || {
                let repo = open_at(&root);
                let lock = Lock::acquire(&repo, Duration::from_secs(20)).expect("eventually free");
                let entered = start.elapsed();
                std::thread::sleep(Duration::from_millis(100));
                let left = start.elapsed();
                drop(lock);
                spans.lock().expect("not poisoned").push((entered, left));
            })
        })
        .collect();
    for th in threads {
        th.join().expect("thread");
    }
    let mut spans = spans.lock().expect("not poisoned").clone();
    spans.sort();
    for pair in spans.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "held at the same time: {spans:?}");
    }
}

/// Not a test on its own: the other process of `lock_contention_between_processes_*`.
#[test]
#[ignore = "run as a child process by the lock tests"]
fn lock_holder_child() {
    let Some(dir) = std::env::var_os("LLM_APPLY_TEST_LOCK_REPO") else {
        return;
    };
    let hold: u64 = std::env::var("LLM_APPLY_TEST_HOLD_MS")
        .expect("hold time")
        .parse()
        .expect("number");
    let repo = open_at(Path::new(&dir));
    let lock = Lock::acquire(&repo, Duration::from_secs(20)).expect("free");
    std::fs::write(Path::new(&dir).join("child-has-lock"), b"").expect("signal");
    std::thread::sleep(Duration::from_millis(hold));
    lock.release().expect("release");
}

fn spawn_lock_holder(t: &TestRepo, hold_ms: u64) -> std::process::Child {
    let child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "suite::snapshot_store::lock_holder_child",
            "--ignored",
            "--test-threads=1",
            "-q",
        ])
        .env("LLM_APPLY_TEST_LOCK_REPO", t.root())
        .env("LLM_APPLY_TEST_HOLD_MS", hold_ms.to_string())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn child");
    let signal = t.root().join("child-has-lock");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !signal.exists() {
        assert!(Instant::now() < deadline, "child never took the lock");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

#[test]
fn lock_contention_between_processes_serialises_and_times_out_clearly() {
    let t = TestRepo::empty();
    let repo = t.open();

    let mut child = spawn_lock_holder(&t, 1_000);
    let err = Lock::acquire(&repo, Duration::from_millis(100)).expect_err("child holds it");
    match &err {
        LockError::Timeout {
            holder: Holder::Process { pid, .. },
            ..
        } => {
            assert_eq!(*pid, child.id())
        }
        other => panic!("expected a timeout naming the child, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains(&format!("pid {}", child.id())),
        "{message}"
    );
    assert!(message.contains(".git/llm-apply/lock"), "{message}");

    let waited = Instant::now();
    let lock = Lock::acquire(&repo, Duration::from_secs(20)).expect("free after the child");
    assert!(child.wait().expect("child exits").success());
    assert!(
        waited.elapsed() >= Duration::from_millis(500),
        "it waited for the child"
    );
    drop(lock);
}

#[test]
fn a_stale_lock_from_a_dead_process_is_taken_over_but_an_unreadable_one_is_not() {
    let t = TestRepo::empty();
    let repo = t.open();
    let mut dead = Command::new("true").spawn().expect("spawn");
    let pid = dead.id();
    dead.wait().expect("exits");
    let lock_path = t.root().join(".git/llm-apply/lock");
    std::fs::create_dir_all(lock_path.parent().expect("dir")).expect("mkdir");
    std::fs::write(&lock_path, format!("pid {pid}\nsince 1\nnonce 0\n")).expect("stale lock");
    let lock = Lock::acquire(&repo, Duration::from_secs(5)).expect("stale lock taken over");
    assert!(std::fs::read_to_string(&lock_path)
        .expect("ours now")
        .starts_with(&format!("pid {}\n", std::process::id())));
    drop(lock);
    assert!(!lock_path.exists(), "released on drop");

    std::fs::write(&lock_path, "garbage").expect("unreadable lock");
    let err = Lock::acquire(&repo, Duration::from_millis(50)).expect_err("never taken over");
    assert!(matches!(
        err,
        LockError::Timeout {
            holder: Holder::Unknown { .. },
            ..
        }
    ));
    assert!(err.to_string().contains("remove that file"), "{err}");
}

#[test]
fn an_unfinished_journal_is_pending_until_cleared() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    let id = one_file_snapshot(&repo, "f.txt", b"x\n");
    let lock = Lock::acquire(&repo, Duration::ZERO).expect("lock");
    assert_eq!(Journal::pending(&repo).expect("read"), None);

    let paths = ["f.txt", "dir/with space", "new\nline"];
    let journal = Journal::begin_named(&repo, &lock, id, paths).expect("begin");
    // As if the process died between two writes.
    std::mem::forget(journal);
    let pending = Journal::pending(&repo).expect("read").expect("pending");
    assert_eq!(pending.snapshot(), Some(id));
    assert_eq!(pending.paths(), paths);
    assert_eq!(pending.pid(), Some(std::process::id()));
    assert!(matches!(
        Journal::begin_named(&repo, &lock, id, paths),
        Err(JournalError::AlreadyPending)
    ));
    pending.clear(&lock).expect("clear");
    assert_eq!(Journal::pending(&repo).expect("read"), None);

    Journal::begin_named(&repo, &lock, id, paths)
        .expect("begin")
        .finish()
        .expect("finish");
    assert_eq!(Journal::pending(&repo).expect("read"), None);

    std::fs::write(t.root().join(".git/llm-apply/journal"), "half a jour").expect("corrupt");
    assert!(matches!(
        Journal::pending(&repo),
        Err(JournalError::Malformed { .. })
    ));
}

#[test]
fn prune_spares_a_snapshot_an_interrupted_apply_still_needs() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    let interrupted = one_file_snapshot(&repo, "f.txt", b"x\n");
    let lock = Lock::acquire(&repo, Duration::ZERO).expect("lock");
    std::mem::forget(Journal::begin_named(&repo, &lock, interrupted, ["f.txt"]).expect("begin"));
    for _ in 0..3 {
        one_file_snapshot(&repo, "f.txt", b"y\n");
    }
    let dropped = snapshot::prune(&repo, 1).expect("prune");
    assert_eq!(
        dropped.iter().map(|i| i.sequence()).collect::<Vec<_>>(),
        [2, 3]
    );
    let left: Vec<u64> = snapshot::list(&repo)
        .expect("list")
        .iter()
        .map(|i| i.id.sequence())
        .collect();
    assert_eq!(left, [4, 1]);
}

#[test]
fn concurrent_creates_from_two_handles_get_distinct_numbers() {
    // Worktrees have separate locks, so snapshots can be created at the same moment; the
    // atomic ref creation must hand each one its own number.
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let root = t.path().to_path_buf();
            std::thread::spawn(move || {
                let repo = open_at(&root);
                (0..8)
                    .map(|_| one_file_snapshot(&repo, "f.txt", b"x\n").sequence())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all: Vec<u64> = threads
        .into_iter()
        .flat_map(|th| th.join().expect("thread"))
        .collect();
    all.sort();
    assert_eq!(all, (1..=16).collect::<Vec<_>>());
    assert_eq!(snapshot::list(&t.open()).expect("list").len(), 16);
}

#[test]
fn with_reflogs_for_all_refs_prune_still_lets_objects_go() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    t.git(&["config", "core.logAllRefUpdates", "always"]);
    let repo = t.open();
    let id = one_file_snapshot(&repo, "f.txt", b"x\n");
    snapshot::mark_undone(&repo, id).expect("undo");
    assert!(
        t.root().join(".git/logs/refs/llm-apply/1").exists(),
        "git config asked for it"
    );
    snapshot::prune(&repo, 0).expect("prune");
    assert!(!t.root().join(".git/logs/refs/llm-apply/1").exists());
    assert!(!t.root().join(".git/logs/refs/llm-apply-undone/1").exists());
    let out = t.run_git(&["fsck", "--strict"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn two_racing_undos_of_one_snapshot_let_exactly_one_win() {
    let t = TestRepo::empty();
    t.write("f.txt", b"base\n");
    t.commit_all("base");
    let repo = t.open();
    for _ in 0..5 {
        let id = one_file_snapshot(&repo, "f.txt", b"x\n");
        let barrier = Arc::new(std::sync::Barrier::new(2));
        let results: Vec<Result<(), SnapshotError>> = (0..2)
            .map(|_| {
                let root = t.path().to_path_buf();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let repo = open_at(&root);
                    barrier.wait();
                    snapshot::mark_undone(&repo, id)
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|th| th.join().expect("thread"))
            .collect();
        let wins = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(wins, 1, "{results:?}");
        assert!(results
            .iter()
            .any(|r| matches!(r, Err(SnapshotError::AlreadyUndone { .. }))));
    }
}

/// A known before-state at a path that is now a symlink, a directory, or a link whose target
/// changed, is recorded as the work tree has it.
#[test]
fn a_known_before_state_gives_way_to_links_and_directories() {
    let t = TestRepo::empty();
    t.write("f.txt", b"file\n");
    t.write("d/inner.txt", b"inner\n");
    t.commit_all("base");
    std::os::unix::fs::symlink("f.txt", t.root().join("link")).expect("symlink");
    std::os::unix::fs::symlink("f.txt", t.root().join("was_file")).expect("symlink");
    let repo = t.open();
    let touched = [
        // The plan read a link to another target.
        known("link", b"other.txt", MODE_LINK),
        // The plan read a regular file holding the link's target bytes.
        known("was_file", b"f.txt", MODE_FILE),
        // The plan read a file where there is now a directory.
        known("d", b"inner\n", MODE_FILE),
    ];
    let recorded = befores_recorded(&repo, &touched);
    let before = |p: &str| recorded[p].clone();
    assert_eq!(before("link"), Some((b"f.txt".to_vec(), MODE_LINK)));
    assert_eq!(before("was_file"), Some((b"f.txt".to_vec(), MODE_LINK)));
    assert_eq!(before("d"), None);
}

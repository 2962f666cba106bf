//! Crash windows, by the fault-injection hook: the process aborts (as `kill -9` would) after
//! its k-th file-system mutation, for every k an apply and an undo make. After each, the next
//! run's recovery must leave exactly the state before or exactly the state after, `log` must
//! describe it truly, and nothing the run created may be left over (temporary files, empty
//! directories). Debug builds only: the hook is not compiled into release builds.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;

use crate::common::{numbered, Run, State, TestRepo};

const ABORT: &str = "GIT_LLM_APPLY_TEST_ABORT_AFTER_MUTATIONS";
const TRACE: &str = "GIT_LLM_APPLY_TEST_TRACE_MUTATIONS";

fn base() -> TestRepo {
    TestRepo::with(&[
        ("a.txt", &numbered("a", 4)),
        ("b/b.txt", &numbered("b", 4)),
        ("c.txt", &numbered("c", 4)),
    ])
}

/// Modifies two files, deletes one and creates one in two new directories.
const PATCH: &str = "\
--- a/a.txt\n+++ b/a.txt\n@@ -1,4 +1,4 @@\n a1\n-a2\n+A2\n a3\n a4\n\
--- a/b/b.txt\n+++ b/b/b.txt\n@@ -1,4 +1,4 @@\n b1\n b2\n-b3\n+B3\n b4\n\
--- a/c.txt\n+++ /dev/null\n@@ -1,4 +0,0 @@\n-c1\n-c2\n-c3\n-c4\n\
--- /dev/null\n+++ b/new/deep/n.txt\n@@ -0,0 +1,2 @@\n+n1\n+n2\n";

/// Run the binary with `env`, `input` on stdin (none when `None`).
fn run_env(r: &TestRepo, args: &[&str], env: &[(&str, String)], input: Option<&str>) -> Run {
    use std::io::Write as _;
    let mut c = r.cmd(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    if let Some(text) = input {
        // A run that stops before reading its input may close the pipe first.
        if let Err(e) = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
        {
            assert_eq!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe,
                "write the patch: {e}"
            );
        }
    }
    Run::from(child.wait_with_output().expect("wait"))
}

/// The mutations one uninterrupted run makes, in order.
fn trace(r: &TestRepo, args: &[&str], input: Option<&str>) -> Vec<String> {
    let file = r.path().join("..").join(format!(
        "trace-{}",
        r.path().file_name().expect("named").to_string_lossy()
    ));
    let _ = std::fs::remove_file(&file);
    run_env(
        r,
        args,
        &[(TRACE, file.to_string_lossy().into_owned())],
        input,
    )
    .code(0);
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    text.lines().map(str::to_string).collect()
}

/// Directories below the root (not `.git`), so an empty one left behind is seen.
fn dirs(root: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() && !p.ends_with(".git") {
                out.insert(
                    p.strip_prefix(root)
                        .expect("below")
                        .to_string_lossy()
                        .into_owned(),
                );
                walk(root, &p, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// Leftovers: `*.tmp` in the state directory, `.llm-apply-*` files in the tree.
fn leftovers(r: &TestRepo) -> Vec<String> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(r.abs(".git/llm-apply")) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") || name == "journal" {
                found.push(format!(".git/llm-apply/{name}"));
            }
        }
    }
    for path in r.tree().keys() {
        if path
            .rsplit('/')
            .next()
            .is_some_and(|n| n.starts_with(".llm-apply-"))
        {
            found.push(path.clone());
        }
    }
    // A blob's file written under a temporary name and never named.
    found.extend(
        objects_strays(r)
            .into_iter()
            .map(|n| format!(".git/objects/{n}")),
    );
    found
}

/// What must be exactly as before or after: every file (bytes, mode), every directory, the
/// index entries and HEAD. (The index file's bytes hold stat data, so repositories made one
/// after the other differ there; within one repository `State` compares them too.)
#[derive(Debug, PartialEq, Eq)]
struct Full {
    tree: crate::common::Tree,
    dirs: BTreeSet<String>,
    index: String,
    head: String,
}

fn full(r: &TestRepo) -> Full {
    let State { tree, head, .. } = r.state();
    Full {
        tree,
        dirs: dirs(r.path()),
        index: r.git(&["ls-files", "-s"]),
        head,
    }
}

fn log(r: &TestRepo) -> (Run, serde_json::Value) {
    let out = run_env(r, &["log", "--json"], &[], None);
    out.code(0);
    let v = serde_json::from_str(&out.stdout).expect("log JSON");
    (out, v)
}

/// The statuses `log` gives the applies (not the undos' snapshots), newest first.
fn apply_statuses(v: &serde_json::Value) -> Vec<String> {
    v["snapshots"]
        .as_array()
        .expect("list")
        .iter()
        .filter(|e| e.get("undoes").is_none())
        .map(|e| e["status"].as_str().expect("status").to_string())
        .collect()
}

/// The statuses `log` gives the undos' snapshots.
fn undo_statuses(v: &serde_json::Value) -> Vec<String> {
    v["snapshots"]
        .as_array()
        .expect("list")
        .iter()
        .filter(|e| e.get("undoes").is_some())
        .map(|e| e["status"].as_str().expect("status").to_string())
        .collect()
}

#[derive(Debug, Default)]
struct Table {
    tried: usize,
    pre: usize,
    post: usize,
    other: Vec<String>,
}

impl Table {
    /// One line on standard error (`--nocapture` shows it): the table of `what`, whose
    /// states before and after are named `pre-{run}` and `post-{run}`.
    fn show(&self, what: &str, run: &str) {
        eprintln!(
            "kill-point table, {what}: tried {} / exact pre-{run} {} / exact post-{run} {} / \
             other {}",
            self.tried,
            self.pre,
            self.post,
            self.other.len()
        );
    }
}

/// Kill an apply (with `args`) at each of its mutation points; recover with `log`; judge.
fn apply_table(args: &[&str]) -> Table {
    apply_table_of(base, PATCH, args)
}

/// [`apply_table`] of `patch` on the repositories `make` makes.
fn apply_table_of(make: impl Fn() -> TestRepo, patch: &str, args: &[&str]) -> Table {
    let probe = make();
    let pre = full(&probe);
    let points = trace(&probe, args, Some(patch));
    let post = full(&probe);
    assert_ne!(pre, post);
    let mut t = Table::default();
    for (k, point) in points.iter().enumerate() {
        let r = make();
        let own_pre = r.state();
        let killed = run_env(&r, args, &[(ABORT, k.to_string())], Some(patch));
        assert_ne!(killed.code, 0, "the run aborted before mutation {}", k + 1);
        let (recovery, v) = log(&r);
        let now = full(&r);
        // Without --index the index file is never written, not even its stat data.
        assert!(
            now != pre || args.contains(&"--index") || r.state() == own_pre,
            "a pre-apply state keeps the very index file"
        );
        let statuses = apply_statuses(&v);
        let at = format!("apply killed after {k} mutation(s), before {point:?}");
        t.tried += 1;
        if now == pre && !statuses.contains(&"applied".to_string()) {
            t.pre += 1;
        } else if now == post && statuses == ["applied"] {
            t.post += 1;
        } else {
            t.other
                .push(format!("{at}: log {statuses:?}\n{}", recovery.stdout));
        }
        let left = leftovers(&r);
        if !left.is_empty() {
            t.other.push(format!("{at}: left {left:?}"));
        }
    }
    t
}

/// Kill an undo of the apply (made with `args`) at each of its mutation points; recover with
/// `log`; judge.
fn undo_table(args: &[&str]) -> Table {
    let probe = base();
    let pre = full(&probe);
    run_env(&probe, args, &[], Some(PATCH)).code(0);
    let applied = full(&probe);
    let points = trace(&probe, &["undo"], None);
    assert_eq!(full(&probe).tree, pre.tree, "the undo restores");
    let mut t = Table::default();
    for (k, point) in points.iter().enumerate() {
        let r = base();
        run_env(&r, args, &[], Some(PATCH)).code(0);
        let killed = run_env(&r, &["undo"], &[(ABORT, k.to_string())], None);
        assert_ne!(killed.code, 0, "the undo aborted before mutation {}", k + 1);
        let (recovery, v) = log(&r);
        let now = full(&r);
        let applies = apply_statuses(&v);
        let undos = undo_statuses(&v);
        let at = format!("undo killed after {k} mutation(s), before {point:?}");
        t.tried += 1;
        // Before the undo = the apply stands (log: applied; an undo snapshot, if listed, is
        // itself undone). After = the files restored (log: the apply undone, its undo's record
        // standing: `undo`).
        if now == applied && applies == ["applied"] && undos.iter().all(|s| s == "undone") {
            t.pre += 1;
        } else if now == pre && applies == ["undone"] && undos == ["undo"] {
            t.post += 1;
        } else {
            t.other.push(format!(
                "{at}: applies {applies:?} undos {undos:?}\n{}",
                recovery.stdout
            ));
        }
        let left = leftovers(&r);
        if !left.is_empty() {
            t.other.push(format!("{at}: left {left:?}"));
        }
    }
    t
}

#[test]
fn every_kill_point_of_an_apply_recovers_to_exactly_before_or_after_and_log_says_which() {
    for args in [&[][..], &["--index"][..]] {
        let t = apply_table(args);
        t.show(&format!("apply {args:?}"), "apply");
        assert!(t.tried > 20, "an apply of four files makes many mutations");
        assert!(t.other.is_empty(), "{args:?}:\n{}", t.other.join("\n"));
    }
}

#[test]
fn every_kill_point_of_an_undo_recovers_to_exactly_before_or_after_and_log_says_which() {
    for args in [&[][..], &["--index"][..]] {
        let t = undo_table(args);
        t.show(&format!("undo of an apply {args:?}"), "undo");
        assert!(t.tried > 20);
        assert!(t.other.is_empty(), "{args:?}:\n{}", t.other.join("\n"));
    }
}

/// The index of the first mutation whose label starts with `label` (0-based: killing with
/// this many mutations done stops right before it).
fn before(points: &[String], label: &str) -> usize {
    points
        .iter()
        .position(|p| {
            p.split_once(' ')
                .is_some_and(|(_, what)| what.starts_with(label))
        })
        .unwrap_or_else(|| panic!("no {label:?} in {points:?}"))
}

#[test]
fn killed_after_the_snapshot_ref_and_before_any_file_the_apply_is_not_listed() {
    let probe = base();
    let points = trace(&probe, &[], Some(PATCH));
    // Right after the snapshot's ref: the journal does not name it yet.
    let k = before(&points, "ref: create") + 1;
    let r = base();
    let pre = full(&r);
    run_env(&r, &[], &[(ABORT, k.to_string())], Some(PATCH));
    assert_eq!(
        r.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]),
        "refs/llm-apply/1\n",
        "the ref was written"
    );
    let (out, v) = log(&r);
    assert!(
        v["notices"][0]["message"]
            .as_str()
            .expect("a notice")
            .contains("interrupted before it wrote any file; nothing needed restoring; its unfinished snapshot 1 was dropped"),
        "{}",
        out.stdout
    );
    assert_eq!(
        v["snapshots"].as_array().expect("list").len(),
        0,
        "{}",
        out.stdout
    );
    assert_eq!(full(&r), pre);
}

#[test]
fn killed_between_an_undos_marker_and_its_journal_removal_log_is_true() {
    let probe = base();
    run_env(&probe, &[], &[], Some(PATCH)).code(0);
    let points = trace(&probe, &["undo"], None);
    // The last journal removal of the undo: before it, the undone marker is written.
    let removal = points
        .iter()
        .rposition(|p| p.ends_with("journal: remove"))
        .expect("the undo removes its journal");
    assert!(
        points[..removal].iter().any(|p| p.ends_with("ref: create")),
        "the marker is made before: {points:?}"
    );
    for (k, want_applied) in [(removal, true), (removal + 1, false)] {
        let r = base();
        run_env(&r, &[], &[], Some(PATCH)).code(0);
        let applied = full(&r);
        run_env(&r, &["undo"], &[(ABORT, k.to_string())], None);
        let (out, v) = log(&r);
        if want_applied {
            // The journal was still there: the undo is taken back, the apply stands.
            assert_eq!(full(&r), applied, "{}", out.stdout);
            assert_eq!(apply_statuses(&v), ["applied"], "{}", out.stdout);
            assert_eq!(undo_statuses(&v), ["undone"], "{}", out.stdout);
        } else {
            assert_eq!(r.read_str("a.txt"), numbered("a", 4));
            assert_eq!(apply_statuses(&v), ["undone"], "{}", out.stdout);
        }
    }
}

#[test]
fn directories_and_temporary_files_of_an_interrupted_apply_are_removed_on_recovery() {
    let probe = base();
    let points = trace(&probe, &[], Some(PATCH));
    // Killed with new/deep created and the temporary file of n.txt in it.
    let k = before(&points, "work tree: rename into place")
        .max(before(&points, "work tree: create directories") + 2);
    let r = base();
    let pre = full(&r);
    run_env(&r, &[], &[(ABORT, k.to_string())], Some(PATCH));
    assert!(r.abs("new/deep").is_dir() || r.abs("b").is_dir());
    log(&r);
    assert_eq!(full(&r), pre, "no new/ or new/deep/ left behind");
    assert!(leftovers(&r).is_empty());

    // A journal temporary file of a dead run goes too, even without a journal.
    let k = before(&points, "journal: rename into place");
    let r = base();
    run_env(&r, &[], &[(ABORT, k.to_string())], Some(PATCH));
    let tmps: Vec<_> = std::fs::read_dir(r.abs(".git/llm-apply"))
        .expect("state dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert_eq!(tmps.len(), 1, "the journal's temporary file is there");
    log(&r);
    assert!(leftovers(&r).is_empty(), "{:?}", leftovers(&r));
}

#[test]
fn an_unrecorded_write_killed_anywhere_leaves_at_most_the_file_it_was_writing() {
    // --no-snapshot keeps no journal, so nothing tidies up after it: its files are written
    // one at a time, and a kill leaves at most the one temporary file being written.
    let probe = base();
    let points = trace(&probe, &["--no-snapshot"], Some(PATCH));
    assert!(
        points
            .iter()
            .any(|p| p.ends_with("work tree: rename into place")),
        "{points:?}"
    );
    for (k, point) in points.iter().enumerate() {
        let r = base();
        let abort = [(ABORT, k.to_string())];
        run_env(&r, &["--no-snapshot"], &abort, Some(PATCH));
        let left = leftovers(&r);
        assert!(left.len() <= 1, "killed before {point:?}: left {left:?}");
    }
}

/// Files in the objects directory that are not git's own (fan-out directories, `info`,
/// `pack`): what a killed blob write could leave.
fn objects_strays(r: &TestRepo) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(r.abs(".git/objects"))
        .expect("objects")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !(n.len() == 2 && n.bytes().all(|b| b.is_ascii_hexdigit())))
        .filter(|n| n != "info" && n != "pack")
        .collect();
    found.sort();
    found
}

/// A file over the size (1 MiB) from which its new blob is written uncompressed, through a
/// temporary file of its own in the objects directory, and a patch to its first line.
fn big() -> (TestRepo, String) {
    let text = numbered("line", 120_000);
    assert!(text.len() > 1 << 20);
    let patch = "--- a/big.txt\n+++ b/big.txt\n@@ -1,2 +1,2 @@\n-line1\n+LINE1\n line2\n";
    (TestRepo::with(&[("big.txt", &text)]), patch.to_string())
}

#[test]
fn killed_inside_a_big_blobs_write_recovery_leaves_no_partial_object() {
    let (probe, patch) = big();
    let points = trace(&probe, &[], Some(&patch));
    let k = before(&points, "object: blob: name its temporary file");
    let (r, _) = big();
    let pre = full(&r);
    let killed = run_env(&r, &[], &[(ABORT, k.to_string())], Some(&patch));
    assert_ne!(killed.code, 0);
    let left = objects_strays(&r);
    assert_eq!(
        left.len(),
        1,
        "the blob's temporary file is there: {left:?}"
    );
    assert!(left[0].starts_with("tmp_obj_llm-apply-"), "{left:?}");
    let size = std::fs::metadata(r.abs(&format!(".git/objects/{}", left[0])))
        .expect("stat")
        .len();
    assert!(size > 1 << 20, "it holds the blob: {size} bytes");
    log(&r);
    assert_eq!(
        objects_strays(&r),
        Vec::<String>::new(),
        "recovery removed it"
    );
    assert_eq!(full(&r), pre);
    // The next apply goes through, leaving nothing either.
    run_env(&r, &[], &[], Some(&patch)).code(0);
    assert_eq!(objects_strays(&r), Vec::<String>::new());
}

#[test]
fn every_kill_point_of_a_big_files_apply_recovers_and_leaves_no_object_file_behind() {
    // A big file's new blob is written under a temporary name, then named once its id is
    // known: a kill in between leaves that file, which the recovery removes with the staged
    // work-tree file.
    let patch = big().1;
    let t = apply_table_of(|| big().0, &patch, &[]);
    t.show("apply of a big file", "apply");
    assert!(t.tried > 10, "{t:?}");
    assert!(t.other.is_empty(), "{}", t.other.join("\n"));
}

#[test]
fn a_killed_blob_writes_file_is_named_for_git_prune() {
    // Even if llm-apply never runs again there: `git prune` (and `git gc`, once the file is
    // older than gc.pruneExpire) removes `tmp_*` from the objects directory.
    let (probe, patch) = big();
    let points = trace(&probe, &[], Some(&patch));
    let k = before(&points, "object: blob: name its temporary file");
    let (r, _) = big();
    run_env(&r, &[], &[(ABORT, k.to_string())], Some(&patch));
    assert_eq!(objects_strays(&r).len(), 1);
    r.git(&["prune"]);
    assert_eq!(objects_strays(&r), Vec::<String>::new());
}

#[test]
fn only_dead_runs_blob_files_are_removed_and_old_unnamed_ones_once_idle_an_hour() {
    // The files are looked for by a recovery: an apply killed before its first blob leaves
    // the journal that calls for one.
    let probe = base();
    let points = trace(&probe, &[], Some(PATCH));
    let r = base();
    let k = before(&points, "object: blob");
    run_env(&r, &[], &[(ABORT, k.to_string())], Some(PATCH));
    assert!(r.abs(".git/llm-apply/journal").is_file());
    // A pid that ran and ended, and one that runs (this test's).
    let mut ended = std::process::Command::new("true").spawn().expect("spawn");
    ended.wait().expect("wait");
    let dead = ended.id();
    let alive = std::process::id();
    let objects = r.abs(".git/objects");
    let put = |name: &str, age: std::time::Duration| {
        let path = objects.join(name);
        std::fs::write(&path, "partial").expect("write");
        let f = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        f.set_modified(std::time::SystemTime::now() - age)
            .expect("set mtime");
    };
    let now = std::time::Duration::ZERO;
    let two_hours = std::time::Duration::from_secs(7200);
    let deads = format!("tmp_obj_llm-apply-{dead}-a1b2c3");
    put(&deads, now);
    put(&format!("tmp_obj_llm-apply-{alive}-d4e5f6"), two_hours);
    put(".tmp-llm-apply-OLD123", two_hours);
    put(".tmp-llm-apply-NEW456", now);
    // Not ours: git's own temporary objects are git's business.
    put("tmp_obj_XYZ789", two_hours);
    assert_eq!(objects_strays(&r).len(), 5);
    log(&r);
    let kept = [
        ".tmp-llm-apply-NEW456".to_string(),
        "tmp_obj_XYZ789".to_string(),
        format!("tmp_obj_llm-apply-{alive}-d4e5f6"),
    ];
    assert_eq!(objects_strays(&r), kept);

    // A run with no recovery to make does not read the objects directory (that would cost
    // every run): the dead run's file, put back, stays.
    put(&deads, now);
    log(&r);
    assert_eq!(objects_strays(&r).len(), kept.len() + 1);
}

#[test]
fn an_undo_killed_inside_a_big_blobs_write_leaves_no_partial_object_either() {
    // undo --force keeps the file's later edit in a snapshot first: its blob is a big one.
    let edited = |r: &TestRepo| {
        run_env(r, &[], &[], Some(&big().1)).code(0);
        let text = r.read_str("big.txt").replacen("LINE1\n", "EDITED\n", 1);
        r.write("big.txt", text.as_bytes());
        text
    };
    let (probe, _) = big();
    edited(&probe);
    let points = trace(&probe, &["undo", "--force"], None);
    let k = before(&points, "object: blob: name its temporary file");
    let (r, _) = big();
    let text = edited(&r);
    run_env(&r, &["undo", "--force"], &[(ABORT, k.to_string())], None);
    assert_eq!(objects_strays(&r).len(), 1, "{:?}", objects_strays(&r));
    log(&r);
    assert_eq!(objects_strays(&r), Vec::<String>::new());
    assert_eq!(
        r.read_str("big.txt"),
        text,
        "killed before any file was written"
    );
}

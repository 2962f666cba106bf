//! Snapshots know the worktree they were made in: `log` says so, `undo` without an id takes
//! this worktree's newest, another worktree's snapshot is undone only there (`--worktree`,
//! `-C`), concurrent applies in two worktrees keep separate histories, and snapshots made
//! before worktrees were recorded stay readable.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::{Run, TestRepo};

fn log_json(r: &TestRepo, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["log", "--json"]);
    let out = r.run(&a);
    out.code(0);
    serde_json::from_str(&out.stdout).expect("log JSON")
}

fn real(p: &Path) -> String {
    std::fs::canonicalize(p)
        .expect("canonical path")
        .to_string_lossy()
        .into_owned()
}

struct Two {
    r: TestRepo,
    _outside: tempfile::TempDir,
    wt: PathBuf,
}

impl Two {
    fn wt_arg(&self) -> &str {
        self.wt.to_str().expect("utf-8")
    }

    fn wt_read(&self, p: &str) -> String {
        std::fs::read_to_string(self.wt.join(p)).expect("read in the linked worktree")
    }
}

/// A repository with f.txt = "a\n" and a linked worktree on branch `side`.
fn two_worktrees() -> Two {
    let r = TestRepo::with(&[("f.txt", "a\n"), ("g.txt", "g\n")]);
    let outside = tempfile::tempdir().expect("temp dir");
    let wt = outside.path().join("linked");
    r.add_worktree(&wt, Some("side"), None);
    Two {
        r,
        _outside: outside,
        wt,
    }
}

const F_A_TO_B: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";

#[test]
fn another_worktrees_snapshot_is_refused_here_and_undone_there() {
    let t = two_worktrees();
    t.r.apply(&["-C", t.wt_arg()], F_A_TO_B).code(0);
    assert_eq!(t.wt_read("f.txt"), "b\n");

    // log in the main worktree shows whose it is.
    let log = log_json(&t.r, &[]);
    let entry = &log["snapshots"][0];
    assert_eq!(entry["worktree"], real(&t.wt));
    assert_eq!(entry["this_worktree"], false);
    let human = t.r.run(&["log"]);
    assert!(
        human
            .stdout
            .contains(&format!("[worktree {}]", real(&t.wt))),
        "{}",
        human.stdout
    );
    assert_eq!(
        log_json(&t.r, &["-C", t.wt_arg()])["snapshots"][0]["this_worktree"],
        true
    );

    let main_state = t.r.state();
    // `undo` without an id in the main worktree: nothing of its own to undo.
    t.r.run(&["undo"])
        .code(1)
        .out_contains("nothing to undo: no apply was recorded here")
        .out_contains("other worktrees' applies are undone there");
    // Named, it is refused, naming the way to do it.
    t.r.run(&["undo", "1"])
        .code(1)
        .out_contains(&format!(
            "snapshot 1 was made in the worktree {}",
            real(&t.wt)
        ))
        .out_contains(&format!("git llm-apply undo 1 --worktree {}", real(&t.wt)));
    assert_eq!(t.r.state(), main_state, "refusals write nothing");
    assert_eq!(t.wt_read("f.txt"), "b\n");
    assert_eq!(log_json(&t.r, &[])["snapshots"][0]["status"], "applied");

    // --worktree undoes it there, from here.
    t.r.run(&["undo", "1", "--worktree", t.wt_arg()])
        .code(0)
        .out_contains("Restored 1 file");
    assert_eq!(t.wt_read("f.txt"), "a\n");
    assert_eq!(t.r.state(), main_state, "the main worktree is not touched");
    let log = log_json(&t.r, &[]);
    assert_eq!(log["snapshots"][1]["status"], "undone");
    assert_eq!(
        log["snapshots"][0]["worktree"],
        real(&t.wt),
        "the undo's own snapshot"
    );
}

#[test]
fn undo_without_an_id_takes_the_newest_apply_of_this_worktree() {
    let t = two_worktrees();
    t.r.apply(&[], F_A_TO_B).code(0); // 1: main
    t.r.apply(
        &["-C", t.wt_arg()],
        "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g\n+G\n",
    )
    .code(0); // 2: linked, the newest overall
    t.r.run(&["undo"]).code(0).out_contains("snapshot 1 undone");
    assert_eq!(t.r.read_str("f.txt"), "a\n");
    assert_eq!(
        t.wt_read("g.txt"),
        "G\n",
        "the linked worktree's apply stands"
    );
    t.r.run(&["-C", t.wt_arg(), "undo"])
        .code(0)
        .out_contains("snapshot 2 undone");
    assert_eq!(t.wt_read("g.txt"), "g\n");
}

#[test]
fn worktree_must_be_one_of_this_repositorys() {
    let t = two_worktrees();
    t.r.apply(&["-C", t.wt_arg()], F_A_TO_B).code(0);
    let stranger = TestRepo::with(&[("f.txt", "a\n")]);
    let state = t.r.state();
    t.r.run(&[
        "undo",
        "1",
        "--worktree",
        stranger.path().to_str().expect("utf-8"),
    ])
    .code(2)
    .out_contains("a worktree of another repository");
    t.r.run(&["undo", "--worktree", "/nonexistent/dir"])
        .code(2)
        .out_contains("not a directory");
    assert_eq!(t.r.state(), state);
    assert_eq!(t.wt_read("f.txt"), "b\n");
}

#[test]
fn concurrent_applies_in_two_worktrees_keep_separate_correct_histories() {
    use std::io::Write as _;
    let t = two_worktrees();
    let patches = [
        (None, F_A_TO_B),
        (
            Some(t.wt_arg().to_string()),
            "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+linked\n",
        ),
    ];
    for round in 0..3 {
        let children: Vec<_> = patches
            .iter()
            .map(|(dir, patch)| {
                let mut args = Vec::new();
                if let Some(d) = dir {
                    args.extend(["-C", d.as_str()]);
                }
                let mut c = t.r.cmd(&args);
                c.stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let mut child = c.spawn().expect("spawn");
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(patch.as_bytes())
                    .expect("patch");
                child
            })
            .collect();
        for child in children {
            Run::from(child.wait_with_output().expect("wait")).code(0);
        }
        assert_eq!(t.r.read_str("f.txt"), "b\n", "round {round}");
        assert_eq!(t.wt_read("f.txt"), "linked\n", "round {round}");
        // Each worktree undoes its own apply, whichever finished last.
        t.r.run(&["undo"]).code(0);
        t.r.run(&["-C", t.wt_arg(), "undo"]).code(0);
        assert_eq!(t.r.read_str("f.txt"), "a\n", "round {round}");
        assert_eq!(t.wt_read("f.txt"), "a\n", "round {round}");
    }
    let log = log_json(&t.r, &[]);
    let entries = log["snapshots"].as_array().expect("list");
    assert_eq!(entries.len(), 12, "3 rounds of 2 applies and 2 undos");
    let main = real(t.r.path());
    let linked = real(&t.wt);
    for e in entries {
        let w = e["worktree"]
            .as_str()
            .expect("every snapshot names its worktree");
        assert!(w == main || w == linked, "{w}");
        if e.get("undoes").is_none() {
            assert_eq!(e["status"], "undone", "{e}");
        }
    }
    let count = |w: &str| entries.iter().filter(|e| e["worktree"] == w).count();
    assert_eq!((count(&main), count(&linked)), (6, 6));
}

#[test]
fn a_snapshot_recorded_before_worktrees_were_is_read_and_undone_anywhere() {
    let t = two_worktrees();
    t.r.apply(&[], F_A_TO_B).code(0);
    // Rewrite snapshot 1 as an older version wrote it: no llm-apply-worktree line.
    let commit = t.r.git(&["cat-file", "commit", "refs/llm-apply/1"]);
    assert!(commit.contains("\nllm-apply-worktree: "), "{commit}");
    let old: String = commit
        .lines()
        .filter(|l| !l.starts_with("llm-apply-worktree: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut c =
        t.r.git_cmd(&["hash-object", "-t", "commit", "-w", "--stdin"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    {
        use std::io::Write as _;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(old.as_bytes())
            .expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    t.r.git(&["update-ref", "refs/llm-apply/1", &id]);

    let log = log_json(&t.r, &["-C", t.wt_arg()]);
    let entry = &log["snapshots"][0];
    assert!(entry.get("worktree").is_none(), "{entry}");
    assert_eq!(
        entry["this_worktree"], true,
        "an old snapshot is every worktree's"
    );
    t.r.run(&["undo"]).code(0).out_contains("snapshot 1 undone");
    assert_eq!(t.r.read_str("f.txt"), "a\n");
}

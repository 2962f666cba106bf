//! The lines an undo reports per file: the apply's own counts reversed, read from the
//! snapshot (`llm-apply-lines`), exact for changed, created, deleted and renamed files; a
//! snapshot from before the key and a forced undo count by diff, and still exactly.

use std::collections::BTreeMap;
use std::process::Stdio;

use crate::common::{diff_of, numbered, Run, TestRepo};

fn run(r: &TestRepo, args: &[&str]) -> Run {
    Run::from(
        r.cmd(args)
            .stdin(Stdio::null())
            .output()
            .expect("run the binary"),
    )
}

/// `path -> (added, removed)` for every file of a `--json` report.
fn counts(report: &serde_json::Value) -> BTreeMap<String, (u64, u64)> {
    report["files"]
        .as_array()
        .expect("a file list")
        .iter()
        .map(|f| {
            let n = |k: &str| f[k].as_u64().expect("a count");
            (
                f["path"].as_str().expect("a path").to_string(),
                (n("added"), n("removed")),
            )
        })
        .collect()
}

#[track_caller]
fn undo_json(r: &TestRepo, args: &[&str], code: i32) -> serde_json::Value {
    let mut a = vec!["undo", "--json"];
    a.extend_from_slice(args);
    let out = run(r, &a);
    out.code(code);
    serde_json::from_str(&out.stdout).expect("a JSON report")
}

/// What git counts going from the apply's result back to the state before it, per path:
/// `git diff --numstat` from the snapshot's post-apply commit to its own tree.
fn git_numstat_of_undo(r: &TestRepo, id: u64) -> BTreeMap<String, (u64, u64)> {
    let snapshot = format!("refs/llm-apply/{id}");
    let post = r.git(&["rev-parse", &format!("{snapshot}^2")]);
    let out = r.git(&["diff", "--numstat", "--no-renames", post.trim(), &snapshot]);
    out.lines()
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let mut n = || parts.next().expect("a numstat field");
            let (added, removed) = (n().parse().expect("n"), n().parse().expect("n"));
            (n().to_string(), (added, removed))
        })
        .collect()
}

/// A repository with a 60-line file, a file to delete, and one to rename.
fn repo() -> TestRepo {
    TestRepo::with(&[
        ("src/main.txt", &numbered("line ", 60)),
        ("gone.txt", "one\ntwo\nthree\nfour\n"),
        ("old/name.txt", &numbered("moved ", 10)),
    ])
}

/// Several hunks in one file, a created file, a deleted one, a rename with an edit.
fn several_changes(r: &TestRepo) -> String {
    diff_of(r, |r| {
        let main = numbered("line ", 60)
            .replace("line 5\n", "line five\n")
            .replace("line 30\nline 31\n", "thirty\nthirty-one\nand a half\n")
            .replace("line 50\n", "");
        r.write("src/main.txt", main.as_bytes());
        r.write("new.txt", b"a\nb\nc\n");
        std::fs::remove_file(r.abs("gone.txt")).expect("delete");
        std::fs::create_dir_all(r.abs("new")).expect("mkdir");
        std::fs::remove_file(r.abs("old/name.txt")).expect("delete");
        r.write(
            "new/name.txt",
            numbered("moved ", 10)
                .replace("moved 4\n", "moved four\n")
                .as_bytes(),
        );
    })
}

#[test]
fn undo_reports_the_applys_counts_reversed_for_each_kind_of_file() {
    let r = repo();
    let patch = several_changes(&r);
    let before = r.state();
    let (applied, report) = r.apply_json(&[], &patch);
    applied.code(0);
    let apply_counts = counts(&report);
    assert_eq!(apply_counts["src/main.txt"], (4, 4));
    assert_eq!(apply_counts["new.txt"], (3, 0));
    assert_eq!(apply_counts["gone.txt"], (0, 4));
    assert_eq!(
        apply_counts["new/name.txt"],
        (1, 1),
        "the rename, as one file"
    );

    let message = r.git(&["cat-file", "commit", "refs/llm-apply/1"]);
    assert!(
        message.contains("\nllm-apply-lines: "),
        "the snapshot records the counts:\n{message}"
    );

    let undone = undo_json(&r, &[], 0);
    let expected: BTreeMap<String, (u64, u64)> = [
        ("src/main.txt", (4, 4)),
        ("new.txt", (0, 3)),
        ("gone.txt", (4, 0)),
        // A rename undone: the old path comes back whole, the new one goes whole.
        ("old/name.txt", (10, 0)),
        ("new/name.txt", (0, 10)),
    ]
    .into_iter()
    .map(|(p, c)| (p.to_string(), c))
    .collect();
    assert_eq!(counts(&undone), expected);
    assert_eq!(
        git_numstat_of_undo(&r, 1),
        expected,
        "the counts are git's for the same change"
    );
    let sum = |k: &str| undone["summary"][k].as_u64().expect("a count");
    assert_eq!((sum("added"), sum("removed")), (18, 17));
    assert_eq!(r.state(), before, "and the tree is as it was");
}

#[test]
fn a_snapshot_without_line_counts_still_undoes_with_exact_counts() {
    let r = repo();
    let patch = several_changes(&r);
    let before = r.state();
    r.apply(&[], &patch).code(0);

    // Rewrite the snapshot as a build before `llm-apply-lines` wrote it: same trees, same
    // parents, the message without the key.
    let snapshot = "refs/llm-apply/1";
    let message: String = r
        .git(&["log", "-1", "--format=%B", snapshot])
        .lines()
        .filter(|l| !l.starts_with("llm-apply-lines:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let tree = r.git(&["rev-parse", &format!("{snapshot}^{{tree}}")]);
    let parents = r.git(&["log", "-1", "--format=%P", snapshot]);
    let mut args = vec!["commit-tree", tree.trim(), "-F", "-"];
    for p in parents.split_whitespace() {
        args.extend(["-p", p]);
    }
    let mut cmd = r.git_cmd(&args);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().expect("git commit-tree");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), message.as_bytes())
        .expect("write the message");
    let out = child.wait_with_output().expect("git commit-tree");
    assert!(out.status.success());
    let old_style = String::from_utf8(out.stdout).expect("an id");
    r.git(&["update-ref", snapshot, old_style.trim()]);
    assert!(!r
        .git(&["cat-file", "commit", snapshot])
        .contains("llm-apply-lines"));

    let undone = undo_json(&r, &[], 0);
    assert_eq!(counts(&undone), git_numstat_of_undo(&r, 1));
    assert_eq!(counts(&undone)["src/main.txt"], (4, 4));
    assert_eq!(r.state(), before);
}

#[test]
fn a_forced_undo_of_a_file_edited_since_counts_what_it_overwrites() {
    let original = numbered("l", 20);
    let r = TestRepo::with(&[("f.txt", &original)]);
    let patch = diff_of(&r, |r| {
        r.write("f.txt", original.replace("l10\n", "applied\n").as_bytes())
    });
    r.apply(&[], &patch).code(0);
    // Edited since where the apply changed it, and a line added at the end.
    let edited = format!(
        "{}l21\n",
        r.read_str("f.txt").replace("applied\n", "mine\n")
    );
    r.write("f.txt", edited.as_bytes());

    let refused = undo_json(&r, &[], 1);
    assert_eq!(refused["files"][0]["status"], "conflicted");
    assert_eq!(counts(&refused)["f.txt"], (1, 2), "what --force would do");

    let forced = undo_json(&r, &["--force"], 0);
    assert_eq!(
        counts(&forced)["f.txt"],
        (1, 2),
        "mine and l21 removed, l10 back"
    );
    assert_eq!(r.read_str("f.txt"), original);
    // The undo's own snapshot records those counts: undoing it brings `mine` back, and
    // reports the same change the other way.
    let again = undo_json(&r, &["2"], 0);
    assert_eq!(counts(&again)["f.txt"], (2, 1));
    assert_eq!(r.read_str("f.txt"), edited);
}

#[test]
fn a_two_thousand_hunk_undo_gives_back_the_original_bytes() {
    let line = |i: usize| match i {
        _ if i % 10 == 0 => String::new(),
        _ if i % 25 == 0 => "}".to_string(),
        _ => format!("    let value_{i} = compute(input, {});", i % 97),
    };
    let original: String = (1..=20_000).map(|i| format!("{}\n", line(i))).collect();
    let r = TestRepo::with(&[("big.rs", &original)]);
    let edited: String = (1..=20_000)
        .map(|i| match line(i) {
            l if i % 10 == 5 && l == "}" => "} // changed\n".to_string(),
            l if i % 10 == 5 => format!("{l} // changed\n"),
            l => format!("{l}\n"),
        })
        .collect();
    let patch = diff_of(&r, |r| r.write("big.rs", edited.as_bytes()));
    let (applied, report) = r.apply_json(&[], &patch);
    applied.code(0);
    assert_eq!(counts(&report)["big.rs"], (2000, 2000));
    assert_eq!(r.read_str("big.rs"), edited);

    let undone = undo_json(&r, &[], 0);
    assert_eq!(counts(&undone)["big.rs"], (2000, 2000));
    assert!(
        r.read("big.rs") == original.as_bytes(),
        "the undo gives back the original byte for byte"
    );
}

#[test]
fn undo_states_the_counts_the_apply_reported_which_are_git_diffs() {
    let r = TestRepo::with(&[("f.txt", "a\nx\ny\nz\n")]);
    // Two lines swapped, written as two removed and two added: counted as a line diff counts
    // them (issue 39), one each, as `git diff --numstat` does.
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n a\n-x\n-y\n+y\n+x\n z\n";
    let (applied, report) = r.apply_json(&[], patch);
    applied.code(0);
    assert_eq!(counts(&report)["f.txt"], (1, 1));
    assert_eq!(git_numstat_of_undo(&r, 1)["f.txt"], (1, 1));
    let undone = undo_json(&r, &[], 0);
    assert_eq!(
        counts(&undone)["f.txt"],
        (1, 1),
        "the undo takes out what the apply put in, counted the same way"
    );
}

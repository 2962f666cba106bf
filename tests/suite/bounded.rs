//! Bounded results: the MCP server's brief reports stay under 8 KB however big the patch
//! (2,000 numberless hunks, 1,000 new files, 2,000 conflicts), while `--json` stays complete
//! and the human report folds notices of one kind and lists conflicts once per file.

use serde_json::{json, Value};

use super::mcp::{text_of, Client};
use crate::common::TestRepo;

const LIMIT: usize = 8 * 1024;

fn numbered_file(n: usize) -> String {
    (0..n).map(|i| format!("line {i}\n")).collect()
}

/// 2,000 hunks with `@@ @@` headers (each one a `no-line-numbers` notice).
fn numberless_hunks() -> (TestRepo, String) {
    let r = TestRepo::with(&[("a.txt", &numbered_file(6000))]);
    let mut p = String::from("--- a/a.txt\n+++ b/a.txt\n");
    for k in 0..2000 {
        let i = 3 * k;
        p.push_str(&format!(
            "@@ @@\n line {i}\n-line {}\n+LINE {}\n line {}\n",
            i + 1,
            i + 1,
            i + 2
        ));
    }
    (r, p)
}

/// 1,000 new files.
fn new_files() -> (TestRepo, String) {
    let r = TestRepo::with(&[("keep.txt", "x\n")]);
    let mut p = String::new();
    for k in 0..1000 {
        p.push_str(&format!(
            "--- /dev/null\n+++ b/dir/file{k}.txt\n@@ -0,0 +1,3 @@\n+one {k}\n+two\n+three\n"
        ));
    }
    (r, p)
}

/// A git diff changing 2,000 separate lines, while the work tree changed each of them
/// otherwise: 2,000 conflicting regions in the three-way merge.
fn conflicts() -> (TestRepo, String) {
    let base = numbered_file(10_000);
    let with = |word: &str| -> String {
        let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
        for k in 0..2000 {
            lines[5 * k + 2] = format!("{word} {k}");
        }
        lines.join("\n") + "\n"
    };
    let r = TestRepo::with(&[("a.txt", &base)]);
    r.write("a.txt", with("THEIRS").as_bytes());
    let patch = r.git(&["diff"]);
    r.write("a.txt", with("OURS").as_bytes());
    (r, patch)
}

/// The whole JSON-RPC answer to an `apply_patch` call, as the server sent it (compact).
fn mcp_answer(r: &TestRepo, args: Value) -> (Value, usize) {
    let mut c = Client::start(r, &[]);
    let answer = c.request(
        "tools/call",
        json!({"name": "apply_patch", "arguments": args}),
    );
    c.finish();
    let size = serde_json::to_string(&answer).unwrap().len();
    (answer["result"].clone(), size)
}

#[test]
fn two_thousand_numberless_hunks_give_a_brief_mcp_result_and_complete_json() {
    let (r, patch) = numberless_hunks();
    let (json_run, full) = r.apply_json(&["--check"], &patch);
    json_run.code(0);
    let kinds: Vec<&Value> = full["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["kind"])
        .collect();
    assert_eq!(kinds.len(), 2000, "--json keeps every notice");
    assert_eq!(full["files"][0]["hunks"].as_array().unwrap().len(), 2000);
    // The human report folds them into one.
    let human = r.apply(&["--check", "--color=never"], &patch);
    let lines = human
        .stderr
        .lines()
        .filter(|l| l.contains("has no line numbers"))
        .count();
    assert_eq!(lines, 1, "{}", human.stderr);
    assert!(
        human.stderr.contains("(and 1999 more like it)"),
        "{}",
        human.stderr
    );

    let (result, size) = mcp_answer(&r, json!({"patch": patch}));
    assert_eq!(result["isError"], false, "{result}");
    assert!(size < LIMIT, "{size} bytes");
    let s = &result["structuredContent"];
    assert_eq!(s["status"], "applied");
    assert_eq!(s["omitted"]["hunks"], 2000, "{s}");
    assert_eq!(s["omitted"]["folded"], 1999, "{s}");
    assert!(
        text_of(&result).contains("brief report: "),
        "{}",
        text_of(&result)
    );
    assert_eq!(r.read_str("a.txt").matches("LINE").count(), 2000);
}

#[test]
fn a_thousand_new_files_give_a_brief_mcp_result_and_complete_json() {
    let (r, patch) = new_files();
    let (json_run, full) = r.apply_json(&["--check"], &patch);
    json_run.code(0);
    assert_eq!(full["files"].as_array().unwrap().len(), 1000);
    let (result, size) = mcp_answer(&r, json!({"patch": patch}));
    assert_eq!(result["isError"], false, "{result}");
    assert!(size < LIMIT, "{size} bytes");
    let s = &result["structuredContent"];
    assert_eq!(
        s["summary"]["files"], 1000,
        "the totals count every file: {s}"
    );
    assert!(s["omitted"]["files"].as_u64().unwrap() >= 990, "{s}");
    assert!(r.exists("dir/file999.txt"));
    // The full report is one argument away.
    let (r2, patch2) = new_files();
    let (full_result, full_size) = mcp_answer(&r2, json!({"patch": patch2, "detail": true}));
    assert_eq!(
        full_result["structuredContent"]["files"]
            .as_array()
            .unwrap()
            .len(),
        1000
    );
    assert!(full_size > LIMIT);
}

#[test]
fn two_thousand_conflicts_give_a_brief_mcp_result_naming_no_line_of_the_unwritten_merge() {
    let (r, patch) = conflicts();
    let before = r.state();
    let (json_run, full) = r.apply_json(&[], &patch);
    json_run.code(1);
    let f = &full["files"][0];
    assert_eq!(f["status"], "conflicted", "{f}");
    assert_eq!(
        f["conflicts"].as_array().unwrap().len(),
        2000,
        "--json is complete"
    );
    let human = r.apply(&["--color=never"], &patch);
    human.code(1);
    let conflict_lines: Vec<&str> = human
        .stderr
        .lines()
        .filter(|l| l.contains("conflict:"))
        .collect();
    assert_eq!(
        conflict_lines,
        ["    conflict: 2000 regions where the file and the patch change the same lines (nothing written)"],
        "{}",
        human.stderr
    );
    assert!(
        !human.stderr.contains("conflict markers at lines"),
        "{}",
        human.stderr
    );

    let (result, size) = mcp_answer(&r, json!({"patch": patch}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(size < LIMIT, "{size} bytes");
    let text = text_of(&result);
    assert!(!text.contains("markers at lines"), "{text}");
    let s = &result["structuredContent"];
    assert_eq!(
        s["files"][0]["conflicts"].as_array().unwrap().len(),
        1,
        "{s}"
    );
    assert!(s["files"][0].get("conflict_regions").is_none(), "{s}");
    assert_eq!(r.state(), before);
}

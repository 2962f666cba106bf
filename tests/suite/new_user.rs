//! Issue 39: what a new user trips on — each item's reproducer.

use crate::common::{text, TestRepo};

/// A Flask-like file with no `get_send_file_maxage` in it.
fn app_py() -> String {
    text(&[
        "class App:",
        "    def send_file(self, filename):",
        "        max_age = self.max_age(filename)",
        "        return open(filename)",
        "",
        "    def max_age(self, filename):",
        "        return 60",
    ])
}

#[test]
fn a_codex_anchor_that_is_not_in_the_file_is_warned_about() {
    let r = TestRepo::with(&[("app.py", &app_py())]);
    let patch = "*** Begin Patch\n*** Update File: app.py\n@@ def get_send_file_maxage(self, filename):\n     def max_age(self, filename):\n-        return 60\n+        return 3600\n*** End Patch\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(
        r.read_str("app.py"),
        app_py().replace("return 60", "return 3600")
    );
    let warnings = v["files"][0]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w["kind"] == "anchor-missing"
            && w["message"]
                .as_str()
                .is_some_and(|m| m.contains("get_send_file_maxage"))),
        "{v}"
    );
    // The human report says so too.
    let r = TestRepo::with(&[("app.py", &app_py())]);
    r.apply(&[], patch)
        .code(0)
        .out_contains("anchor \"def get_send_file_maxage(self, filename):\" is not in the file");
}

#[test]
fn a_codex_anchor_that_is_not_in_the_file_leaves_weak_context_unplaced() {
    // Only braces and a blank line besides the change: the missing anchor was all that said
    // where it goes.
    let file = text(&[
        "fn a() {",
        "    one();",
        "}",
        "",
        "fn b() {",
        "    two();",
        "}",
    ]);
    let r = TestRepo::with(&[("m.rs", &file)]);
    let before = r.state();
    let weak =
        "*** Begin Patch\n*** Update File: m.rs\n@@ fn c() {\n }\n+\n+fn d() {}\n*** End Patch\n";
    let (run, v) = r.apply_json(&[], weak);
    run.code(1);
    assert_eq!(r.state(), before);
    let reason = v["files"][0]["hunks"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("@@ anchor \"fn c() {\" is not in the file"),
        "{v}"
    );
    // Lines that fit twice, which the anchor would have had to decide between.
    let twice = text(&["fn a() {", "    x();", "}", "fn b() {", "    x();", "}"]);
    let r = TestRepo::with(&[("m.rs", &twice)]);
    let before = r.state();
    let patch = "*** Begin Patch\n*** Update File: m.rs\n@@ fn c() {\n-    x();\n+    y();\n*** End Patch\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(r.state(), before);
    let reason = v["files"][0]["hunks"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("fit at 2 places (lines 2, 5)"), "{v}");
}

/// A SEARCH/REPLACE block rewrites its whole SEARCH text, but the change is one line: the
/// summary, the JSON and `log` count what `git diff --numstat` counts.
#[test]
fn a_search_replace_block_counts_the_lines_it_changes_as_git_does() {
    let file = text(&["fn main() {", "    let a = 1;", "    let b = 2;", "}"]);
    let r = TestRepo::with(&[("m.rs", &file)]);
    let block = "m.rs\n<<<<<<< SEARCH\nfn main() {\n    let a = 1;\n    let b = 2;\n}\n=======\nfn main() {\n    let a = 1;\n    let b = 3;\n}\n>>>>>>> REPLACE\n";
    let (run, v) = r.apply_json(&[], block);
    run.code(0);
    let numstat = r.git(&["diff", "--numstat"]);
    assert_eq!(numstat, "1\t1\tm.rs\n");
    assert_eq!(
        (
            v["files"][0]["added"].as_u64(),
            v["files"][0]["removed"].as_u64()
        ),
        (Some(1), Some(1)),
        "{v}"
    );
    assert_eq!(
        (
            v["summary"]["added"].as_u64(),
            v["summary"]["removed"].as_u64()
        ),
        (Some(1), Some(1)),
        "{v}"
    );
    let log = r.cmd(&["log"]).output().expect("log");
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(log.contains("1 file (+1 -1)"), "{log}");
}

/// With `--json`, standard error is empty: the words it would have carried are the
/// document's `message`, exactly as the human report writes them without colour.
#[test]
fn with_json_the_refusals_words_are_the_documents_message() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\n")]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-x\n+y\n c\n";
    let human = r.apply(&["--color=never"], patch);
    human.code(1);
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(run.stderr, "");
    assert_eq!(v["message"].as_str(), Some(human.stderr.as_str()), "{v}");
    // Nothing to say: no message.
    let (run, v) = r.apply_json(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    );
    run.code(0);
    assert!(v.get("message").is_none(), "{v}");
}

const CAPITAL_B: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";

#[test]
fn reverting_a_patch_that_is_not_there_says_already_reverted() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\n")]);
    let patch = r.path().join(".git").join("fix.patch");
    std::fs::write(&patch, CAPITAL_B).expect("write the patch");
    let patch = patch.to_str().expect("utf-8 path");
    r.apply(&["--revert", patch], "")
        .code(0)
        .out_contains("= f.txt already reverted")
        .out_contains("Already reverted: nothing to do");
}

#[test]
fn checking_an_applied_patch_says_it_is_already_applied() {
    let r = TestRepo::with(&[("f.txt", "a\nB\nc\n")]);
    let run = r.apply(&["--check"], CAPITAL_B);
    run.code(0)
        .out_contains("Check passed: already applied, nothing to do; nothing written");
    assert!(
        !run.stdout.contains("would apply 0 files"),
        "{}",
        run.stdout
    );
}

#[test]
fn log_names_an_undos_own_record_undo() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\n")]);
    r.apply(&[], CAPITAL_B).code(0);
    assert!(r.cmd(&["undo"]).status().expect("undo").success());
    let out = r.cmd(&["log"]).output().expect("log");
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines[0].contains("  undo  ") && lines[0].contains("undo of snapshot 1"),
        "{log}"
    );
    assert!(lines[1].contains("  undone  "), "{log}");
    let out = r.cmd(&["log", "--json"]).output().expect("log");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["snapshots"][0]["status"], "undo", "{v}");
    assert_eq!(v["snapshots"][1]["status"], "undone", "{v}");
}

#[test]
fn a_missing_file_with_no_near_name_is_told_how_to_create_it() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\n")]);
    let patch = "--- a/nope.txt\n+++ b/nope.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(v["files"][0]["strategy"], "none", "{v}");
    let human = r.apply(&[], patch);
    human
        .code(1)
        .out_contains("to create nope.txt, send it as a new file")
        .out_contains("*** Add File: nope.txt");
}

/// The report's diff names the section a hunk is in after its `@@`, as `git diff` does.
#[test]
fn the_reports_diff_keeps_the_section_heading_git_shows() {
    let file = text(&[
        "def f():",
        "    x = 1",
        "    y = 2",
        "    z = 3",
        "    w = 4",
        "    v = 5",
        "    u = 6",
        "    return x",
    ]);
    let r = TestRepo::with(&[("g.py", &file)]);
    let patch = "--- a/g.py\n+++ b/g.py\n@@ -5,3 +5,3 @@\n     w = 4\n-    v = 5\n+    v = 50\n     u = 6\n";
    let run = r.apply(&["--color=never"], patch);
    run.code(0);
    let git = r.git(&["diff", "--no-color"]);
    let heading = |s: &str| s.lines().find(|l| l.starts_with("@@")).map(str::to_string);
    assert_eq!(heading(&run.stdout), heading(&git));
    assert_eq!(heading(&git).as_deref(), Some("@@ -3,6 +3,6 @@ def f():"));
}

/// Mid-merge, a patch to a file in conflict applies to the file as it is, markers and all,
/// with a warning that names the index stages.
#[test]
fn a_patch_to_a_file_in_conflict_is_warned_about() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\nd\ne\n")]);
    r.git(&["checkout", "-q", "-b", "other"]);
    r.write("f.txt", b"a\nb\nC1\nd\ne\n");
    r.git(&["commit", "-qam", "other"]);
    r.git(&["checkout", "-q", "-"]);
    r.write("f.txt", b"a\nb\nC2\nd\ne\n");
    r.git(&["commit", "-qam", "mine"]);
    let out = r
        .git_cmd(&["merge", "-q", "other"])
        .output()
        .expect("git merge");
    assert!(!out.status.success(), "the merge conflicts");
    let (run, v) = r.apply_json(
        &[],
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
    );
    run.code(0);
    let warnings = v["files"][0]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w["kind"] == "unmerged"
            && w["message"]
                .as_str()
                .is_some_and(|m| m.contains("index stages 1 (base), 2 (ours), 3 (theirs)"))),
        "{v}"
    );
    assert!(r.read_str("f.txt").starts_with("a\nB\n<<<<<<< "));
}

/// aider's whole-file replies: a path line and a fenced block holding the whole new file.
#[test]
fn an_aider_whole_file_reply_replaces_or_creates_the_file() {
    let r = TestRepo::with(&[("a.py", "def f():\n    return 1\n"), ("src/b.py", "x\n")]);
    let reply = "Here is the updated file:\n\na.py\n```python\ndef f():\n    return 2\n```\n";
    let (run, v) = r.apply_json(&[], reply);
    run.code(0);
    assert_eq!(r.read_str("a.py"), "def f():\n    return 2\n");
    assert_eq!(v["files"][0]["added"], 1, "{v}");
    assert!(
        v["notices"]
            .as_array()
            .expect("notices")
            .iter()
            .any(|n| n["kind"] == "whole-file-reply"),
        "{v}"
    );
    r.apply(&[], "new/c.py\n```\nz = 1\n```\n").code(0);
    assert_eq!(r.read_str("new/c.py"), "z = 1\n");
    // A name that is not there while a file of that name is elsewhere: which one?
    let before = r.state();
    r.apply(&[], "b.py\n```\ny\n```\n")
        .code(1)
        .out_contains("src/b.py");
    assert_eq!(r.state(), before);
    // A snippet in prose is still no patch.
    r.apply(&[], "Use a loop:\n```python\nfor x in y: pass\n```\n")
        .code(2)
        .out_contains("no patch found");
}

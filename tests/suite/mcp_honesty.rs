//! The MCP server says what it does: a line that is not JSON is answered with JSON-RPC's
//! parse error, a 20 MiB call is taken, arguments sent as strings are read when they are
//! unambiguous, outside a repository it refuses to start or says in every result that
//! nothing is recorded, its tools carry output schemas and annotations, and its advice is
//! worded as tool calls.

use std::process::Command;

use serde_json::{json, Value};

use super::mcp::{text_of, Client};
use crate::common::{pinned_env, TestRepo};

const FIX_B: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";

fn repo() -> TestRepo {
    TestRepo::with(&[("f.txt", "a\nb\nc\n")])
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    c.send_line("this is not json{");
    let answer = c.response_where(|v| v["id"].is_null());
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON"),
        "{answer}"
    );
    let ok = c.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(ok["isError"], false, "{ok}");
    c.finish();
}

#[test]
fn a_twenty_mib_apply_patch_call_is_applied_with_a_brief_result() {
    let r = repo();
    let line = "x".repeat(1000);
    let mut patch = String::from("--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,20971 @@\n");
    for _ in 0..20_971 {
        patch.push('+');
        patch.push_str(&line);
        patch.push('\n');
    }
    assert!(patch.len() > 20 << 20);
    let mut c = Client::start(&r, &[]);
    let answer = c.request(
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"patch": patch}}),
    );
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    assert!(serde_json::to_string(&answer).unwrap().len() < 8 * 1024);
    assert_eq!(r.read("big.txt").len(), 20_971 * 1001);
    c.finish();
}

#[test]
fn arguments_sent_as_strings_are_read_when_unambiguous() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let checked = c.call("apply_patch", json!({"patch": FIX_B, "check": "true"}));
    assert_eq!(
        checked["structuredContent"]["status"], "checked",
        "{checked}"
    );
    assert_eq!(r.read_str("f.txt"), "a\nb\nc\n");
    c.call("apply_patch", json!({"patch": FIX_B, "check": "false"}));
    assert_eq!(r.read_str("f.txt"), "a\nB\nc\n");
    c.call(
        "edit",
        json!({"path": "f.txt", "edits": [
            {"old_string": "a", "new_string": "A", "replace_all": "true"}
        ]}),
    );
    assert_eq!(r.read_str("f.txt"), "A\nB\nc\n");
    let log = c.call("log", json!({"limit": "1"}));
    assert_eq!(
        log["structuredContent"]["snapshots"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{log}"
    );
    let undone = c.call("undo", json!({"id": "2", "check": "true"}));
    assert_eq!(undone["isError"], false, "{undone}");
    // Not a boolean in any reading: refused by the schema check.
    let bad = c.call("apply_patch", json!({"patch": FIX_B, "check": "yes"}));
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(text_of(&bad).contains("input schema"), "{bad}");
    c.finish();
}

fn outside() -> (tempfile::TempDir, Command) {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("f.txt"), "a\nb\nc\n").expect("write");
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("git-llm-apply"));
    pinned_env(&mut cmd, dir.path());
    cmd.current_dir(dir.path()).env(
        "GIT_CEILING_DIRECTORIES",
        dir.path().parent().expect("parent"),
    );
    (dir, cmd)
}

#[test]
fn outside_a_repository_the_server_does_not_start_without_no_snapshot() {
    let (_dir, mut cmd) = outside();
    let out = cmd
        .arg("mcp")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "stdout is for protocol messages");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not inside a git repository") && err.contains("--no-snapshot"),
        "{err}"
    );
}

#[test]
fn outside_a_repository_with_no_snapshot_every_result_says_nothing_is_recorded() {
    let (dir, mut cmd) = outside();
    cmd.args(["mcp", "--no-snapshot"]);
    let mut c = Client::with_command(cmd);
    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["apply_patch", "edit", "view"],
        "nothing to undo or list"
    );
    for t in tools {
        let d = t["description"].as_str().unwrap();
        assert!(!d.contains("`undo`"), "no tool promises undo: {d}");
    }
    for t in &tools[..2] {
        let d = t["description"].as_str().unwrap();
        assert!(d.contains("NOT recorded by this server"), "{d}");
    }
    let applied = c.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(applied["isError"], false, "{applied}");
    let viewed = c.call("view", json!({"path": "f.txt"}));
    let bad = c.call("edit", json!({"path": 3}));
    for result in [&applied, &viewed, &bad] {
        assert!(
            text_of(result).starts_with("note: this server does not record applies or edits"),
            "{result}"
        );
    }
    assert!(applied["structuredContent"].get("snapshot").is_none());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\nB\nc\n"
    );
    let stderr = c.finish();
    assert!(
        stderr.contains("does not record"),
        "said at start: {stderr}"
    );
}

#[test]
fn in_a_repository_with_no_snapshot_results_say_so_and_nothing_is_recorded() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    drop(c.call("log", json!({})));
    c.finish();
    let mut c = Client::with_command({
        let mut cmd = r.cmd(&["mcp", "--no-snapshot"]);
        cmd.env("NO_COLOR", "1");
        cmd
    });
    let applied = c.call("apply_patch", json!({"patch": FIX_B}));
    assert!(
        text_of(&applied).starts_with("note: this server does not record"),
        "{applied}"
    );
    let log = c.call("log", json!({}));
    assert_eq!(log["structuredContent"]["snapshots"], json!([]), "{log}");
    c.finish();
}

#[test]
fn tools_have_output_schemas_their_results_validate_against_and_annotations() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let list = c.request("tools/list", json!({}));
    let tools: Vec<Value> = list["result"]["tools"].as_array().unwrap().clone();
    let get = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(get("log")["annotations"]["readOnlyHint"], true);
    assert_eq!(get("view")["annotations"]["readOnlyHint"], true);
    assert_eq!(get("undo")["annotations"]["destructiveHint"], true);
    assert_eq!(get("undo")["annotations"]["readOnlyHint"], false);
    let calls = [
        ("apply_patch", json!({"patch": FIX_B})),
        ("view", json!({"path": "f.txt", "hashes": true})),
        (
            "edit",
            json!({"path": "f.txt", "old_string": "c", "new_string": "C"}),
        ),
        ("log", json!({})),
        ("undo", json!({})),
        (
            "apply_patch",
            json!({"patch": "--- a/f.txt\n+++ b/f.txt\n@@\n-zzz\n+y\n"}),
        ),
    ];
    for (name, args) in calls {
        let schema = get(name)["outputSchema"].clone();
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        let result = c.call(name, args);
        let errors = crate::common::schema::validate(&schema, &result["structuredContent"]);
        assert!(errors.is_empty(), "{name}: {errors:?}\n{result}");
    }
    c.finish();
}

#[test]
fn advice_is_worded_as_tool_calls() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let applied = c.call("apply_patch", json!({"patch": FIX_B}));
    let text = text_of(&applied);
    assert!(text.contains("call undo with id: 1"), "{text}");
    assert!(!text.contains("git llm-apply"), "{text}");
    r.write("f.txt", b"a\nB!\nc\n");
    let refused = c.call("undo", json!({"id": 1}));
    let text = text_of(&refused);
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(!text.contains("git llm-apply"), "{text}");
    assert!(text.contains("force: true"), "{text}");
    c.finish();
}

/// What a result quotes is shown as it is, advice or not: the diff of what was written, a
/// file `view` shows, a hook's output. Only the report's own advice is reworded, so a file
/// that holds `rm --force` is never shown holding `rm force: true`.
#[test]
fn what_a_result_quotes_is_not_reworded_as_tool_calls() {
    let quoted = "rm --force x\ngit llm-apply undo 3\nretry with --partial\n";
    let r = TestRepo::with(&[("f.sh", &format!("a\n{quoted}b\n"))]);
    super::hooks::hook(
        &r,
        "post-llm-apply",
        "#!/bin/sh\necho 'hook says: git llm-apply undo 7 --force'\n",
    );
    let mut c = Client::start(&r, &[]);

    let viewed = c.call("view", json!({"path": "f.sh"}));
    let text = text_of(&viewed);
    for line in quoted.lines() {
        assert!(text.contains(line), "{line:?} not shown as it is:\n{text}");
    }
    assert!(!text.contains("force: true"), "{text}");
    assert!(!text.contains("call undo"), "{text}");

    let patch = "--- a/f.sh\n+++ b/f.sh\n@@ -1,5 +1,5 @@\n a\n rm --force x\n-git llm-apply undo 3\n+git llm-apply undo 4\n retry with --partial\n b\n";
    let applied = c.call("apply_patch", json!({"patch": patch, "detail": true}));
    assert_eq!(applied["isError"], false, "{applied}");
    let text = text_of(&applied);
    for line in [
        " rm --force x",
        "-git llm-apply undo 3",
        "+git llm-apply undo 4",
        " retry with --partial",
        "    hook says: git llm-apply undo 7 --force",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "{line:?} not shown as it is:\n{text}"
        );
    }
    // The report's own advice is in the client's words.
    assert!(text.contains("call undo with id: 1"), "{text}");
    assert!(!text.contains("undo with: git llm-apply"), "{text}");

    // Prose that quotes the patch: a warning naming an `@@` anchor the file does not hold.
    let codex = "*** Begin Patch\n*** Update File: f.sh\n@@ parse --force handling\n a\n-rm --force x\n+rm --force y\n*** End Patch\n";
    let anchored = c.call("apply_patch", json!({"patch": codex, "detail": true}));
    let text = text_of(&anchored);
    assert!(text.contains("\"parse --force handling\""), "{text}");
    assert!(!text.contains("force: true"), "{text}");
    c.finish();
}

/// A diff too long to show in full says how an MCP client reads the rest (there is no
/// `--full-diff` for it).
#[test]
fn a_cut_diff_says_how_a_client_reads_the_rest() {
    let before = crate::common::numbered("l", 1000);
    let r = TestRepo::with(&[("f.txt", &before)]);
    let after = before.replace('l', "L");
    r.write("f.txt", after.as_bytes());
    let patch = r.git(&["diff"]);
    r.git(&["checkout", "--", "f.txt"]);
    let mut c = Client::start(&r, &[]);
    let applied = c.call("apply_patch", json!({"patch": patch, "detail": true}));
    assert_eq!(applied["isError"], false, "{applied}");
    let text = text_of(&applied);
    assert!(
        text.contains("not shown (call view to read the files as they are now)"),
        "{text}"
    );
    assert!(!text.contains("--full-diff"), "{text}");
    c.finish();
}

//! `git llm-apply mcp`, driven as a client would: raw JSON-RPC over the child's stdio.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{json, Value};

use crate::common::TestRepo;

/// One server process and the client's end of its pipes.
pub(crate) struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    /// Start the server in `repo` (extra arguments before `mcp`) and initialize the session.
    pub(crate) fn start(repo: &TestRepo, extra: &[&str]) -> Client {
        let mut args: Vec<&str> = extra.to_vec();
        args.push("mcp");
        Client::with_command(repo.cmd(&args))
    }

    /// Start the server as `cmd` says and initialize the session.
    pub(crate) fn with_command(mut cmd: std::process::Command) -> Client {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut c = Client {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = c.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}
            }),
        );
        assert_eq!(
            init["result"]["serverInfo"]["name"], "git-llm-apply",
            "{init}"
        );
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        c.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        c
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Send a request and read until its response (every line must be a JSON-RPC message).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.response(id)
    }

    pub(crate) fn response(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(
                n > 0,
                "the server closed stdout before answering request {id}"
            );
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC ({e}): {line:?}"));
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// Read until a message `pick` accepts.
    pub(crate) fn response_where(&mut self, pick: impl Fn(&Value) -> bool) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "the server closed stdout before answering");
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC ({e}): {line:?}"));
            if pick(&v) {
                return v;
            }
        }
    }

    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            r["result"].is_object(),
            "a tool call answers with a result: {r}"
        );
        r["result"].clone()
    }

    /// Close stdin (the client disconnects) and wait: the server ends with status 0.
    pub(crate) fn finish(mut self) -> String {
        drop(self.stdin.take());
        let out = self.child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0), "the server ends cleanly on EOF");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

pub(crate) fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

const FIX_B: &str = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";

fn repo() -> TestRepo {
    TestRepo::with(&[("f.txt", "a\nb\nc\n"), ("g.txt", "one\ntwo\n")])
}

#[test]
fn lists_its_tools_with_schemas_from_the_argument_types() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["apply_patch", "edit", "view", "undo", "log"]);
    let apply = &tools[0];
    assert_eq!(apply["inputSchema"]["type"], "object");
    assert_eq!(apply["inputSchema"]["required"], json!(["patch"]));
    // Each format is a described constant, for the model to read.
    let format = &apply["inputSchema"]["properties"]["format"];
    let names: Vec<&Value> = format["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("{format}"))
        .iter()
        .map(|v| {
            assert!(v["description"].is_string(), "{v}");
            &v["const"]
        })
        .collect();
    assert_eq!(
        names,
        [
            &json!("auto"),
            &json!("unified"),
            &json!("codex"),
            &json!("search-replace")
        ]
    );
    let description = apply["description"].as_str().unwrap();
    assert!(description.contains("Line numbers"), "{description}");
    assert!(
        description.contains("refuses rather than guesses"),
        "{description}"
    );
    assert!(tools[1]["inputSchema"]["properties"]["old_string"].is_object());
    assert!(tools[2]["inputSchema"]["properties"]["hashes"].is_object());
    assert!(tools[3]["inputSchema"]["properties"]["id"].is_object());
    assert!(tools[4]["inputSchema"]["properties"]["limit"].is_object());
    c.finish();
}

#[test]
fn applies_logs_and_undoes_like_the_cli() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let applied = c.call("apply_patch", json!({"patch": FIX_B, "label": "capital b"}));
    assert_eq!(applied["isError"], false, "{applied}");
    assert_eq!(applied["structuredContent"]["status"], "applied");
    assert_eq!(applied["structuredContent"]["snapshot"], "refs/llm-apply/1");
    assert!(text_of(&applied).starts_with("applied: 1 file(s), +1 -1, snapshot 1\n"));
    // A brief result leaves the applied hunk out, and says so in the singular.
    assert!(
        text_of(&applied).contains("brief report: 1 hunk left out; "),
        "{applied}"
    );
    assert_eq!(r.read_str("f.txt"), "a\nB\nc\n");

    let log = c.call("log", json!({}));
    assert_eq!(log["isError"], false, "{log}");
    let entries = log["structuredContent"]["snapshots"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        entries[0]["intent"], "capital b",
        "--label is the description"
    );

    let undone = c.call("undo", json!({}));
    assert_eq!(undone["isError"], false, "{undone}");
    assert_eq!(undone["structuredContent"]["status"], "applied");
    assert_eq!(undone["structuredContent"]["reverse"], true);
    assert_eq!(r.read_str("f.txt"), "a\nb\nc\n");

    let limited = c.call("log", json!({"limit": 1}));
    assert_eq!(
        limited["structuredContent"]["snapshots"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    c.finish();
}

/// The server drops the snapshots beyond `llm-apply.keep` once it has answered an apply and
/// the calls pause (the CLI, before it exits), every apply and edit counted; a snapshot the
/// refs no longer hold is never handed out again.
#[test]
fn snapshots_beyond_keep_are_dropped_after_the_answer() {
    let r = TestRepo::with(&[("f.txt", &crate::common::numbered("l", 6))]);
    r.git(&["config", "llm-apply.keep", "2"]);
    let refs = || r.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]);
    let mut c = Client::start(&r, &[]);
    for i in 1..=4 {
        let patch = format!("--- a/f.txt\n+++ b/f.txt\n@@ -{i},1 +{i},1 @@\n-l{i}\n+L{i}\n");
        let applied = c.call("apply_patch", json!({"patch": patch}));
        assert_eq!(applied["isError"], false, "{applied}");
        assert_eq!(
            applied["structuredContent"]["snapshot"],
            format!("refs/llm-apply/{i}")
        );
        assert!(
            applied["structuredContent"]["notices"]
                .as_array()
                .is_none_or(|n| n.is_empty()),
            "{applied}"
        );
    }
    let edited = c.call(
        "edit",
        json!({"path": "f.txt", "old_string": "l5\n", "new_string": "L5\n"}),
    );
    assert_eq!(edited["isError"], false, "{edited}");
    // The prune runs once the calls pause.
    let start = std::time::Instant::now();
    while refs().lines().count() > 2 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{}",
            refs()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let log = c.call("log", json!({}));
    let ids: Vec<u64> = log["structuredContent"]["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [5, 4], "{log}");
    assert_eq!(refs(), "refs/llm-apply/4\nrefs/llm-apply/5\n");
    c.finish();
    assert_eq!(r.read_str("f.txt"), "L1\nL2\nL3\nL4\nL5\nl6\n");
    // The CLI's next apply takes the next number.
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -6,1 +6,1 @@\n-l6\n+L6\n")
        .code(0);
    assert_eq!(refs(), "refs/llm-apply/5\nrefs/llm-apply/6\n");
}

/// A client that leaves at once after its answer (one server per task, a script piping one
/// call) still has the snapshots beyond `llm-apply.keep` dropped: the server prunes before it
/// ends.
#[test]
fn a_session_that_ends_at_once_after_an_apply_still_prunes() {
    let r = TestRepo::with(&[("f.txt", &crate::common::numbered("l", 4))]);
    r.git(&["config", "llm-apply.keep", "1"]);
    for i in 1..=3 {
        let mut c = Client::start(&r, &[]);
        let patch = format!("--- a/f.txt\n+++ b/f.txt\n@@ -{i},1 +{i},1 @@\n-l{i}\n+L{i}\n");
        let applied = c.call("apply_patch", json!({"patch": patch}));
        assert_eq!(applied["isError"], false, "{applied}");
        c.finish();
        let refs = r.git(&["for-each-ref", "--format=%(refname)", "refs/llm-apply/"]);
        assert_eq!(refs, format!("refs/llm-apply/{i}\n"), "after session {i}");
    }
}

#[test]
fn a_refusal_is_a_tool_error_with_the_human_diagnostic_and_changes_nothing() {
    let r = repo();
    let before = r.state();
    let mut c = Client::start(&r, &[]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-x\n+y\n c\n";
    let refused = c.call("apply_patch", json!({"patch": patch}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["status"], "refused");
    assert_eq!(refused["structuredContent"]["exit_code"], 1);
    let text = text_of(&refused);
    // The same words as the CLI's report, without colour.
    let cli = r.apply(&["--color=never"], patch);
    assert_eq!(cli.code, 1);
    for line in cli.stderr.lines().filter(|l| !l.trim().is_empty()) {
        assert!(text.contains(line), "missing {line:?} in {text}");
    }
    assert!(!text.contains('\u{1b}'), "no colour: {text:?}");
    assert_eq!(r.state(), before);
    c.finish();
}

#[test]
fn survives_malformed_requests_bad_arguments_and_unknown_tools() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    c.send_line("this is not json{");
    c.send_line("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"no/such/method\"}");
    let bad = c.call("apply_patch", json!({"patch": 7}));
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(text_of(&bad).contains("input schema"), "{bad}");
    let unknown = c.call("frobnicate", json!({}));
    assert_eq!(unknown["isError"], true);
    let garbage = c.call("apply_patch", json!({"patch": "no patch here"}));
    assert_eq!(garbage["isError"], true, "{garbage}");
    // Still serving.
    let ok = c.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(ok["isError"], false, "{ok}");
    assert_eq!(r.read_str("f.txt"), "a\nB\nc\n");
    c.finish();
}

#[test]
fn a_panic_inside_a_call_is_an_error_result_and_the_server_goes_on() {
    let r = repo();
    let before = r.state();
    let mut cmd = r.cmd(&["mcp"]);
    cmd.env("GIT_LLM_APPLY_TEST_PANIC_IN_TOOL", "boom");
    let mut c = Client::with_command(cmd);
    let failed = c.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(failed["isError"], true, "{failed}");
    assert_eq!(
        text_of(&failed),
        "the call failed inside git-llm-apply: injected for a test: boom; the server goes on",
        "{failed}"
    );
    assert_eq!(r.state(), before, "nothing was written");
    // Still serving: the next request is answered.
    let tools = c.request("tools/list", json!({}));
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    c.finish();
}

#[test]
fn session_undo_takes_back_every_apply_of_the_session_newest_first() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let one = c.call("apply_patch", json!({"patch": FIX_B, "session": "agent-1"}));
    assert_eq!(one["isError"], false, "{one}");
    let other = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
    let outside = c.call("apply_patch", json!({"patch": other}));
    assert_eq!(outside["isError"], false, "{outside}");
    let again = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n B\n-c\n+C\n";
    let two = c.call("apply_patch", json!({"patch": again, "session": "agent-1"}));
    assert_eq!(two["isError"], false, "{two}");
    assert_eq!(r.read_str("f.txt"), "a\nB\nC\n");

    let undone = c.call("undo", json!({"session": "agent-1"}));
    assert_eq!(undone["isError"], false, "{undone}");
    assert_eq!(r.read_str("f.txt"), "a\nb\nc\n");
    assert_eq!(
        r.read_str("g.txt"),
        "one\n2\n",
        "another session's apply stays"
    );
    assert!(text_of(&undone).contains("session agent-1 undone: snapshots 3, 1"));

    let log = c.call("log", json!({}));
    let entries = log["structuredContent"]["snapshots"].as_array().unwrap();
    let sessions: Vec<&Value> = entries.iter().map(|e| &e["session"]).collect();
    assert!(sessions.contains(&&json!("agent-1")), "{log}");
    let nothing = c.call("undo", json!({"session": "agent-1"}));
    assert_eq!(nothing["isError"], true, "nothing left to undo: {nothing}");
    c.finish();
}

#[test]
fn a_session_undo_that_would_conflict_is_refused_as_a_whole() {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    c.call("apply_patch", json!({"patch": FIX_B, "session": "s"}));
    let g = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
    c.call("apply_patch", json!({"patch": g, "session": "s"}));
    // The older apply's line is edited since: its undo would lose that edit.
    r.write("f.txt", b"a\nBB\nc\n");
    let before = r.tree();
    let refused = c.call("undo", json!({"session": "s"}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text_of(&refused).contains("refused as a whole"),
        "{refused}"
    );
    assert_eq!(r.tree(), before, "the newer undo was taken back too");
    c.finish();
}

#[test]
fn the_cli_takes_label_and_session_and_undoes_a_session() {
    let r = repo();
    r.apply(&["--session", "cli-1", "--label", "first"], FIX_B)
        .code(0);
    let log = r.cmd(&["log", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&log.stdout).unwrap();
    assert_eq!(v["snapshots"][0]["session"], "cli-1");
    assert_eq!(v["snapshots"][0]["intent"], "first");
    let out = r.cmd(&["undo", "--session", "cli-1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(r.read_str("f.txt"), "a\nb\nc\n");
    r.apply(&["--session", "two words"], FIX_B).code(2);
}

#[test]
fn two_calls_racing_for_the_lock_one_is_told_to_retry() {
    let r = repo();
    r.git(&["config", "llm-apply.lockTimeout", "0"]);
    // The first server holds the lock for a while once it has it.
    let mut slow = r.cmd(&["mcp"]);
    slow.env("GIT_LLM_APPLY_TEST_HOLD_LOCK_MS", "3000");
    let mut first = {
        let mut child = slow
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    };
    let init = first.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init["result"].is_object());
    first.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    first.send_line(
        &json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
                "params": {"name": "apply_patch", "arguments": {"patch": FIX_B}}})
        .to_string(),
    );
    // Wait until the first call holds the lock.
    wait_for_lock(&r);
    let mut second = Client::start(&r, &[]);
    let busy = second.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(busy["isError"], true, "{busy}");
    assert_eq!(busy["structuredContent"]["status"], "busy");
    assert_eq!(busy["structuredContent"]["exit_code"], 4);
    assert_eq!(busy["structuredContent"]["errors"][0]["kind"], "lock");
    assert!(text_of(&busy).contains("retry"), "{busy}");
    let done = first.response(50);
    assert_eq!(done["result"]["isError"], false, "{done}");
    // The lock was the call's only: the second server applies now (already applied).
    let after = second.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(
        after["structuredContent"]["status"], "already-applied",
        "{after}"
    );
    first.finish();
    second.finish();
}

/// Wait (up to 10 s) until a run holds `r`'s lock, and give the lock file's path.
fn wait_for_lock(r: &TestRepo) -> std::path::PathBuf {
    let lock = r.abs(".git/llm-apply/lock");
    let start = std::time::Instant::now();
    while !lock.exists() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(lock.exists(), "a run took the lock");
    lock
}

/// A server whose calls hold the lock for `ms` milliseconds once they have it.
fn slow_server(r: &TestRepo, ms: &str) -> Client {
    let mut cmd = r.cmd(&["mcp"]);
    cmd.env("GIT_LLM_APPLY_TEST_HOLD_LOCK_MS", ms);
    Client::with_command(cmd)
}

/// A call that takes a while holds up neither the answer to a call that came before it
/// nor a ping that comes while it runs: calls run one at a time, apart from the protocol.
/// (With the calls on the protocol's thread, the `view` and the ping were both answered
/// only when the slow apply was done.)
#[test]
fn a_slow_call_holds_up_neither_an_earlier_answer_nor_a_ping() {
    let r = repo();
    let mut c = slow_server(&r, "1500");
    for line in [
        json!({"jsonrpc": "2.0", "id": 60, "method": "tools/call",
               "params": {"name": "view", "arguments": {"path": "g.txt"}}}),
        json!({"jsonrpc": "2.0", "id": 61, "method": "tools/call",
               "params": {"name": "apply_patch", "arguments": {"patch": FIX_B}}}),
    ] {
        c.send_line(&line.to_string());
    }
    // The apply has the lock (so the view, queued before it, is done).
    wait_for_lock(&r);
    c.send_line(&json!({"jsonrpc": "2.0", "id": 62, "method": "ping"}).to_string());
    let order: Vec<Value> = (0..3)
        .map(|_| c.response_where(|v| v.get("id").is_some())["id"].clone())
        .collect();
    assert_eq!(order, [json!(60), json!(62), json!(61)]);
    assert_eq!(r.read("f.txt"), b"a\nB\nc\n");
    c.finish();
}

/// A client that leaves while a call runs: the call ends before the server does (the
/// file is written whole, and the run's lock is gone), and the server exits 0.
#[test]
fn a_call_running_when_the_client_leaves_ends_before_the_server() {
    let r = repo();
    let mut c = slow_server(&r, "1000");
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": 70, "method": "tools/call",
                "params": {"name": "apply_patch", "arguments": {"patch": FIX_B}}})
        .to_string(),
    );
    let lock = wait_for_lock(&r);
    c.finish();
    assert_eq!(r.read("f.txt"), b"a\nB\nc\n");
    assert!(!lock.exists(), "the call released its lock");
    let log = r.cmd(&["log"]).output().expect("log");
    assert!(
        String::from_utf8_lossy(&log.stdout).contains("f.txt"),
        "the apply was recorded"
    );
}

#[test]
fn a_busy_lock_is_exit_status_4_on_the_cli() {
    let r = repo();
    r.git(&["config", "llm-apply.lockTimeout", "0"]);
    let mut holder = r.cmd(&[]);
    holder
        .env("GIT_LLM_APPLY_TEST_HOLD_LOCK_MS", "3000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = holder.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(FIX_B.as_bytes())
        .unwrap();
    wait_for_lock(&r);
    let (run, v) = r.apply_json(&[], FIX_B);
    assert_eq!(run.code, 4, "{run:?}");
    assert_eq!(v["status"], "busy");
    assert_eq!(v["errors"][0]["kind"], "lock");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// `answer` is the config error for `llm-apply.fsync = sometimes`: a tool error of kind
/// `config`, exit status 2, naming the key and the value.
fn assert_fsync_config_refusal(answer: &Value) {
    assert_eq!(answer["isError"], true, "{answer}");
    assert_eq!(
        answer["structuredContent"]["errors"][0]["kind"], "config",
        "{answer}"
    );
    assert_eq!(answer["structuredContent"]["exit_code"], 2, "{answer}");
    assert!(
        text_of(answer).contains("llm-apply.fsync is 'sometimes'"),
        "{answer}"
    );
}

/// After one apply, git config is made invalid and `tool` is called: its answer is the
/// config error naming the key, and nothing in the repository changes.
fn invalid_config_refuses(tool: &str) -> TestRepo {
    let r = repo();
    let mut c = Client::start(&r, &[]);
    let applied = c.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(applied["isError"], false, "{applied}");
    r.git(&["config", "llm-apply.fsync", "sometimes"]);
    let before = r.state();
    let answer = c.call(tool, json!({}));
    assert_fsync_config_refusal(&answer);
    assert_eq!(r.state(), before, "{tool} changed the repository");
    c.finish();
    r
}

#[test]
fn an_undo_with_an_invalid_config_is_a_config_error_and_undoes_nothing() {
    invalid_config_refuses("undo");
}

/// A listing first takes back an interrupted apply, and that recovery writes as git config
/// says (`llm-apply.fsync`): the server's `log` reads the config where it lists, and an
/// invalid one is the error, as for `git llm-apply log`.
#[test]
fn a_log_with_an_invalid_config_is_a_config_error_as_on_the_command_line() {
    let r = invalid_config_refuses("log");
    let before = r.state();
    r.run(&["log"])
        .code(2)
        .out_contains("llm-apply.fsync is 'sometimes'");
    assert_eq!(r.state(), before);
}

#[test]
fn a_patch_argument_over_the_size_limit_is_refused_like_a_file() {
    let r = repo();
    r.git(&["config", "llm-apply.maxPatchSize", "16"]);
    let before = r.state();
    let mut c = Client::start(&r, &[]);
    let big = c.call("apply_patch", json!({"patch": FIX_B}));
    assert_eq!(big["isError"], true, "{big}");
    assert_eq!(big["structuredContent"]["exit_code"], 2, "{big}");
    let text = text_of(&big);
    assert!(
        text.contains("larger than the patch size limit of 16 bytes")
            && text.contains("llm-apply.maxPatchSize"),
        "{text}"
    );
    assert_eq!(r.state(), before);
    c.finish();
}

/// Issue 35's example through the server: context before the change only.
#[test]
fn apply_patch_takes_a_hunk_with_context_on_one_side_only() {
    let r = TestRepo::with(&[(
        "m.py",
        "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
    )]);
    let mut c = Client::start(&r, &[]);
    let patch =
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n";
    let applied = c.call("apply_patch", json!({ "patch": patch }));
    assert_eq!(applied["isError"], false, "{applied}");
    assert_eq!(applied["structuredContent"]["status"], "applied");
    assert_eq!(
        r.read_str("m.py"),
        "def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    );
    c.finish();
}

/// The server keeps its directory's git config between calls while no file it could come
/// from changes (`src/run/kept.rs`): every change is read by the next calls, whether to the
/// repository's config, to a global file that was not there, or to an included file that
/// appears later (a config with includes is never kept). Every step makes several calls (the
/// first may read, the later ones use what it kept).
#[test]
fn a_server_reads_config_again_when_a_file_it_comes_from_changes() {
    let r = repo();
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let global = elsewhere.path().join("global.cfg");
    let included = elsewhere.path().join("included.cfg");
    let mut cmd = r.cmd(&["mcp"]);
    // Each call says whether it kept.
    cmd.env("GIT_CONFIG_GLOBAL", &global)
        .env("GIT_LLM_APPLY_TEST_TRACE_CONFIG", "1");
    let mut c = Client::with_command(cmd);
    let before = r.state();
    // Past the coarse clock's tick (at most 10 ms): what was written is older than a read.
    let settle = || std::thread::sleep(std::time::Duration::from_millis(25));
    let round_trips = |c: &mut Client| {
        settle();
        for _ in 0..4 {
            let applied = c.call("apply_patch", json!({"patch": FIX_B}));
            assert_eq!(applied["isError"], false, "{applied}");
            let undone = c.call("undo", json!({}));
            assert_eq!(undone["isError"], false, "{undone}");
            assert_eq!(r.state(), before);
        }
    };
    let refused = |c: &mut Client| {
        settle();
        for _ in 0..6 {
            let answer = c.call("apply_patch", json!({"patch": FIX_B}));
            assert_fsync_config_refusal(&answer);
            assert_eq!(r.state(), before);
        }
    };
    round_trips(&mut c);
    r.git(&["config", "llm-apply.fsync", "sometimes"]);
    refused(&mut c);
    r.git(&["config", "--unset", "llm-apply.fsync"]);
    round_trips(&mut c);
    std::fs::write(&global, "[llm-apply]\n\tfsync = sometimes\n").expect("write");
    refused(&mut c);
    std::fs::remove_file(&global).expect("remove");
    round_trips(&mut c);
    let path = included.to_str().expect("UTF-8 path");
    r.git(&["config", "include.path", path]);
    round_trips(&mut c);
    std::fs::write(&included, "[llm-apply]\n\tfsync = sometimes\n").expect("write");
    refused(&mut c);
    std::fs::remove_file(&included).expect("remove");
    round_trips(&mut c);
    let stderr = c.finish();
    // Calls did keep the config (else this test would prove nothing about keeping it).
    assert!(stderr.contains("config kept"), "{stderr}");
}

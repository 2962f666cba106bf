//! Structured edits (`edit --json-input`, the MCP `edit` and `view` tools): the cases agents'
//! edit tools meet, each run through the CLI and through the MCP server with the same JSON,
//! giving the same results.

use serde_json::{json, Value};

use super::mcp::Client;
use crate::common::TestRepo;

/// One case: the file before, the edit, the file after, and the loosest pass reported.
struct Case {
    name: &'static str,
    before: &'static str,
    edit: fn() -> Value,
    after: &'static str,
    pass: &'static str,
    /// The hunk's status when the edit is sent again: the planner recognises an applied
    /// SEARCH block by its replacement in the line passes, except where only trailing
    /// whitespace differs.
    resent: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "exact fragment of a line",
        before: "x = 1\ny = foo(1) + 2\n",
        edit: || json!({"path": "a.py", "old_string": "foo(1)", "new_string": "foo(2)"}),
        after: "x = 1\ny = foo(2) + 2\n",
        pass: "exact",
        resent: "already-applied",
    },
    Case {
        name: "trailing whitespace drifted",
        before: "a = 1   \nb = 2\n",
        edit: || json!({"path": "a.py", "old_string": "a = 1\nb = 2\n", "new_string": "a = 1\nb = 3\n"}),
        after: "a = 1   \nb = 3\n",
        pass: "trailing-whitespace",
        resent: "not-found",
    },
    Case {
        name: "a tab shown as spaces",
        before: "def f():\n\treturn 1\n",
        edit: || json!({"path": "a.py", "old_string": "def f():\n    return 1", "new_string": "def f():\n    return 2"}),
        after: "def f():\n\treturn 2\n",
        pass: "whitespace",
        resent: "already-applied",
    },
    Case {
        name: "a no-break space",
        before: "y\u{a0}= 3\nz = 4\n",
        edit: || json!({"path": "a.py", "old_string": "y = 3\n", "new_string": "y = 5\n"}),
        after: "y = 5\nz = 4\n",
        pass: "unicode",
        resent: "already-applied",
    },
    Case {
        name: "a CRLF file",
        before: "one\r\ntwo\r\nthree\r\n",
        edit: || json!({"path": "a.py", "old_string": "two\nthree", "new_string": "TWO\nthree"}),
        after: "one\r\nTWO\r\nthree\r\n",
        pass: "exact",
        resent: "already-applied",
    },
];

fn edit_cli(r: &TestRepo, request: &Value) -> (crate::common::Run, Value) {
    let run = r.apply(&["edit", "--json-input", "--json"], &request.to_string());
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("invalid JSON ({e}): {}", run.stdout));
    (run, v)
}

#[test]
fn each_case_applies_through_the_cli_with_its_pass_and_undo_takes_it_back() {
    for case in CASES {
        let r = TestRepo::with(&[("a.py", case.before)]);
        let before = r.state();
        let (run, v) = edit_cli(&r, &(case.edit)());
        run.code(0);
        assert_eq!(r.read_str("a.py"), case.after, "{}", case.name);
        assert_eq!(v["files"][0]["pass"], case.pass, "{}: {v}", case.name);
        assert_eq!(v["format"], "search-replace", "{}", case.name);
        r.run(&["undo"]).code(0);
        assert_eq!(r.state(), before, "{}: undo restores every byte", case.name);
    }
}

#[test]
fn each_case_gives_the_same_result_through_mcp_and_undo_by_id_takes_it_back() {
    for case in CASES {
        let cli = TestRepo::with(&[("a.py", case.before)]);
        let (_, by_cli) = edit_cli(&cli, &(case.edit)());
        let r = TestRepo::with(&[("a.py", case.before)]);
        let before = r.state();
        let mut c = Client::start(&r, &[]);
        let res = c.call("edit", (case.edit)());
        assert_eq!(res["isError"], false, "{}: {res}", case.name);
        assert_eq!(r.read_str("a.py"), case.after, "{}", case.name);
        let mcp = &res["structuredContent"];
        for key in ["status", "summary", "snapshot", "exit_code", "errors"] {
            assert_eq!(mcp[key], by_cli[key], "{}: {key}", case.name);
        }
        // The brief result lists the file as the CLI does, without its applied hunks.
        let mut file = by_cli["files"][0].clone();
        file["hunks"] = json!([]);
        assert_eq!(mcp["files"][0], file, "{}", case.name);
        let detail = c.call("edit", {
            let mut e = (case.edit)();
            e["detail"] = json!(true);
            e["check"] = json!(true);
            e
        });
        // With detail the report lists the hunk.
        let file = &detail["structuredContent"]["files"][0];
        assert_eq!(
            file["hunks"][0]["status"], case.resent,
            "{}: {detail}",
            case.name
        );
        let id = mcp["snapshot"]
            .as_str()
            .unwrap()
            .trim_start_matches("refs/llm-apply/")
            .parse::<u64>()
            .unwrap();
        let undone = c.call("undo", json!({"id": id}));
        assert_eq!(undone["isError"], false, "{undone}");
        assert_eq!(r.state(), before, "{}", case.name);
        c.finish();
    }
}

#[test]
fn an_old_string_found_twice_is_refused_with_both_lines_and_nothing_changes() {
    let r = TestRepo::with(&[("a.py", "f()\ng()\nf()\n")]);
    let before = r.state();
    let request = json!({"path": "a.py", "old_string": "f()", "new_string": "h()"});
    let (run, v) = edit_cli(&r, &request);
    run.code(1);
    assert_eq!(v["status"], "refused");
    assert_eq!(v["errors"][0]["kind"], "ambiguous");
    let message = v["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("occurs 2 times (at lines 1, 3)"),
        "{message}"
    );
    assert_eq!(r.state(), before);
    let mut c = Client::start(&r, &[]);
    let res = c.call("edit", request);
    assert_eq!(res["isError"], true, "{res}");
    assert_eq!(res["structuredContent"]["errors"], v["errors"]);
    assert_eq!(r.state(), before);
    c.finish();
}

#[test]
fn replace_all_replaces_every_occurrence_and_is_one_undo() {
    let r = TestRepo::with(&[("a.py", "f() + f()\ng()\nf()\n")]);
    let before = r.state();
    let request =
        json!({"path": "a.py", "old_string": "f()", "new_string": "h()", "replace_all": true});
    let (run, v) = edit_cli(&r, &request);
    run.code(0);
    assert_eq!(r.read_str("a.py"), "h() + h()\ng()\nh()\n");
    assert_eq!(v["summary"]["added"], 2, "{v}");
    r.run(&["undo"]).code(0);
    assert_eq!(r.state(), before);
}

#[test]
fn a_multi_edit_list_is_all_or_nothing() {
    let r = TestRepo::with(&[("a.py", "one\ntwo\n"), ("b.py", "three\n")]);
    let before = r.state();
    let bad = json!([
        {"path": "a.py", "old_string": "one", "new_string": "ONE"},
        {"path": "b.py", "old_string": "not there", "new_string": "x"}
    ]);
    edit_cli(&r, &bad).0.code(1);
    assert_eq!(r.state(), before, "the first edit was not written either");
    let good = json!({"file_path": "a.py", "edits": [
        {"old_string": "one", "new_string": "ONE"},
        {"old_string": "two", "new_string": "TWO"}
    ]});
    edit_cli(&r, &good).0.code(0);
    assert_eq!(r.read_str("a.py"), "ONE\nTWO\n");
}

#[test]
fn a_file_changed_after_view_is_refused_through_the_cli_and_mcp() {
    let r = TestRepo::with(&[("a.py", "one\ntwo\n")]);
    let mut c = Client::start(&r, &[]);
    let view = c.call("view", json!({"path": "a.py"}));
    assert_eq!(view["isError"], false, "{view}");
    assert_eq!(
        view["structuredContent"]["content"],
        "     1\tone\n     2\ttwo\n"
    );
    let token = view["structuredContent"]["view_token"]
        .as_str()
        .unwrap()
        .to_string();
    r.write("a.py", b"one\ntwo\nthree\n");
    let before = r.state();
    let request =
        json!({"path": "a.py", "old_string": "two", "new_string": "TWO", "view_token": token});
    let res = c.call("edit", request.clone());
    assert_eq!(res["isError"], true, "{res}");
    assert_eq!(
        res["structuredContent"]["errors"][0]["kind"],
        "changed-since-view"
    );
    let (run, v) = edit_cli(&r, &request);
    run.code(1);
    assert_eq!(v["errors"], res["structuredContent"]["errors"]);
    assert_eq!(r.state(), before);
    // Viewed again, the edit goes through.
    let again = c.call("view", json!({"path": "a.py"}));
    let token = again["structuredContent"]["view_token"].as_str().unwrap();
    let ok = c.call(
        "edit",
        json!({"path": "a.py", "old_string": "two", "new_string": "TWO", "view_token": token}),
    );
    assert_eq!(ok["isError"], false, "{ok}");
    assert_eq!(r.read_str("a.py"), "one\nTWO\nthree\n");
    c.finish();
}

#[test]
fn lines_named_by_their_view_hashes_are_replaced_and_a_stale_hash_is_refused() {
    let r = TestRepo::with(&[("a.py", "a\nb\nc\nb\n")]);
    let view = r.apply(
        &["edit", "--json-input", "--json"],
        r#"{"command":"view","path":"a.py","hashes":true}"#,
    );
    view.code(0);
    let v: Value = serde_json::from_str(&view.stdout).unwrap();
    let content = v["content"].as_str().unwrap();
    let anchor = |n: usize| {
        content
            .lines()
            .nth(n - 1)
            .unwrap()
            .split('|')
            .next()
            .unwrap()
            .to_string()
    };
    assert!(anchor(4).starts_with("4:"), "{content}");
    // Line 4 repeats line 2: the hash and number name it alone.
    let request = json!({"path": "a.py", "start": anchor(4), "new_string": "B\n"});
    edit_cli(&r, &request).0.code(0);
    assert_eq!(r.read_str("a.py"), "a\nb\nc\nB\n");
    let before = r.state();
    let stale = json!({"path": "a.py", "start": anchor(4), "end": anchor(4), "new_string": "x\n"});
    let (run, v) = edit_cli(&r, &stale);
    run.code(1);
    assert_eq!(v["errors"][0]["kind"], "changed-since-view", "{v}");
    assert_eq!(r.state(), before);
}

/// Lines at the end of a file without a final newline keep it missing, unless the new text
/// ends in an empty line, which a missing newline would make no line at all: that line is
/// kept, and the file ends in a newline (the plan failed its own check, alone or in a list).
#[test]
fn a_line_range_at_a_file_end_without_newline_keeps_an_empty_last_line() {
    for (new, want) in [
        ("x\n", "a\nx"),
        ("x", "a\nx"),
        ("x\n\n", "a\nx\n\n"),
        ("\n", "a\n\n"),
        ("", "a\n"),
    ] {
        let r = TestRepo::with(&[("f.txt", "a\nb")]);
        // Line 2's hash, from `view`.
        let view = r.apply(
            &["edit", "--json-input", "--json"],
            r#"{"command":"view","path":"f.txt","hashes":true}"#,
        );
        let v: Value = serde_json::from_str(&view.code(0).stdout).unwrap();
        let anchor = v["content"].as_str().unwrap().lines().nth(1).unwrap();
        let anchor = anchor.split('|').next().unwrap();
        let one = json!({"path": "f.txt", "start": anchor, "new_string": new});
        edit_cli(&r, &one).0.code(0);
        assert_eq!(r.read_str("f.txt"), want, "{new:?}");
        // In a list, the next edit sees the text the first left.
        r.git(&["checkout", "-q", "--", "f.txt"]);
        let list = json!([one, {"path": "f.txt", "old_string": "a\n", "new_string": "A\n"}]);
        edit_cli(&r, &list).0.code(0);
        assert_eq!(r.read_str("f.txt"), format!("A{}", &want[1..]), "{new:?}");
    }
}

#[test]
fn the_text_editor_commands_view_create_str_replace_and_insert() {
    let r = TestRepo::with(&[("a.txt", "one\ntwo\nthree\n")]);
    let abs = r.abs("a.txt").to_string_lossy().into_owned();
    let view = r.apply(
        &["edit", "--json-input"],
        &json!({"command": "view", "path": abs, "view_range": [2, -1]}).to_string(),
    );
    view.code(0);
    assert_eq!(view.stdout, "     2\ttwo\n     3\tthree\n");
    let run = |v: Value| r.apply(&["edit", "--json-input", "-q"], &v.to_string());
    run(json!({"command": "str_replace", "path": abs, "old_str": "two", "new_str": "TWO"})).code(0);
    run(json!({"command": "insert", "path": abs, "insert_line": 1, "new_str": "1.5"})).code(0);
    run(json!({"command": "insert", "path": "a.txt", "insert_line": 0, "new_str": "zero\n"}))
        .code(0);
    assert_eq!(r.read_str("a.txt"), "zero\none\n1.5\nTWO\nthree\n");
    run(json!({"command": "create", "path": "new/b.txt", "file_text": "hi\n"})).code(0);
    assert_eq!(r.read_str("new/b.txt"), "hi\n");
    let before = r.state();
    run(json!({"command": "create", "path": "a.txt", "file_text": "x\n"}))
        .code(1)
        .out_contains("already exists");
    run(json!({"command": "frob", "path": "a.txt"}))
        .code(2)
        .out_contains("unknown command");
    assert_eq!(r.state(), before);
    // Four edits, four snapshots, each undone in turn.
    for id in ["4", "3", "2", "1"] {
        r.run(&["undo", id]).code(0);
    }
    assert_eq!(r.read_str("a.txt"), "one\ntwo\nthree\n");
    assert!(!r.exists("new/b.txt"));
}

#[test]
fn a_path_outside_the_work_tree_is_refused_and_nothing_is_read_or_written() {
    let r = TestRepo::with(&[("a.txt", "one\n")]);
    let before = r.state();
    let out = r.apply(
        &["edit", "--json-input", "--json"],
        r#"{"path":"../x.txt","old_string":"a","new_string":"b"}"#,
    );
    assert_ne!(out.code, 0, "{out:?}");
    let view = r.apply(
        &["edit", "--json-input"],
        r#"{"command":"view","path":"../"}"#,
    );
    view.code(1).out_contains("outside the work tree");
    let git = r.apply(
        &["edit", "--json-input"],
        r#"{"command":"view","path":".git/config"}"#,
    );
    git.code(1);
    assert_eq!(r.state(), before);
}

#[test]
fn standard_input_that_is_not_json_is_bad_input() {
    let r = TestRepo::with(&[("a.txt", "one\n")]);
    r.apply(&["edit", "--json-input"], "{not json")
        .code(2)
        .out_contains("not one JSON document");
}

#[test]
fn a_file_that_is_not_utf8_keeps_its_bytes_and_its_undecodable_lines_are_refused() {
    let r = TestRepo::with(&[("a.txt", "x\n")]);
    r.write("l.txt", b"caf\xe9 ok\nz\n");
    r.commit_all("latin-1");
    let (run, _) = edit_cli(
        &r,
        &json!({"path": "l.txt", "old_string": "z", "new_string": "Z"}),
    );
    run.code(0);
    assert_eq!(r.read("l.txt"), b"caf\xe9 ok\nZ\n");
    let before = r.state();
    let (run, v) = edit_cli(
        &r,
        &json!({"path": "l.txt", "old_string": "ok", "new_string": "OK"}),
    );
    run.code(1);
    assert_eq!(v["errors"][0]["kind"], "encoding", "{v}");
    assert_eq!(r.state(), before);
}

#[test]
fn a_view_is_bounded_in_lines_and_bytes_and_says_where_to_go_on() {
    let many: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let wide: String = (1..=100)
        .map(|_| format!("{}\n", "x".repeat(3000)))
        .collect();
    let r = TestRepo::with(&[("many.txt", &many), ("wide.txt", &wide)]);
    let view = |path: &str| -> Value {
        let run = r.apply(
            &["edit", "--json-input", "--json"],
            &json!({"command": "view", "path": path}).to_string(),
        );
        run.code(0);
        serde_json::from_str(&run.stdout).unwrap()
    };
    let v = view("many.txt");
    assert_eq!(
        (v["first_line"].as_u64(), v["last_line"].as_u64()),
        (Some(1), Some(2000))
    );
    assert_eq!(v["total_lines"], 5000);
    assert!(
        v["note"].as_str().unwrap().contains("view from line 2001"),
        "{v}"
    );
    let v = view("wide.txt");
    assert!(
        v["content"].as_str().unwrap().len() < 64 * 1024,
        "cut by size"
    );
    let last = v["last_line"].as_u64().unwrap();
    assert!(last < 100);
    assert!(v["note"]
        .as_str()
        .unwrap()
        .contains(&format!("view from line {}", last + 1)));
}

#[test]
fn gemini_style_expected_replacements_must_match_the_count_found() {
    let r = TestRepo::with(&[("a.py", "f()\ng()\nf()\n")]);
    let before = r.state();
    let wrong = json!({"file_path": "a.py", "old_string": "f()", "new_string": "h()", "expected_replacements": 3});
    let (run, v) = edit_cli(&r, &wrong);
    run.code(1);
    let message = v["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("occurs 2 times (at lines 1, 3), not the 3"),
        "{message}"
    );
    assert_eq!(r.state(), before);
    let right = json!({"file_path": "a.py", "old_string": "f()", "new_string": "h()", "expected_replacements": "2"});
    edit_cli(&r, &right).0.code(0);
    assert_eq!(r.read_str("a.py"), "h()\ng()\nh()\n");
}

/// An `old_string` that is nowhere, whose `new_string` is a short fragment found inside a
/// line (`x` in `let x = 2;`), is no evidence that the edit was made: refused, not "already
/// applied" with exit 0. A replacement that is the file's whole line (or six characters and
/// more, as `foo(2)`) still reads as a resent edit.
#[test]
fn a_missing_old_string_whose_replacement_is_only_a_fragment_of_a_line_is_refused() {
    let r = TestRepo::with(&[("f.js", "let a = 1;\nlet x = 2;\nlet b = 3;\n")]);
    let before = r.state();
    let (run, v) = edit_cli(
        &r,
        &json!({"path": "f.js", "old_string": "nowhere", "new_string": "x"}),
    );
    run.code(1);
    assert_eq!(v["status"], "refused", "{v}");
    assert_eq!(r.state(), before);
    let (run, v) = edit_cli(
        &r,
        &json!({"path": "f.js", "old_string": "let x = 1;", "new_string": "let x = 2;"}),
    );
    run.code(0);
    assert_eq!(v["status"], "already-applied", "{v}");
}

/// An edit that adds lines after its `old_string`, sent again once made, finds the file
/// reading as the edit made: its one occurrence sits before the very lines it adds. Applying
/// it again would repeat them (a second `import b`), so it is refused, and nothing changes.
/// With `replace_all`, one occurrence among several that only happens to sit beside such a
/// line is no resent edit: every occurrence is replaced, as `str.replace` would.
#[test]
fn a_resent_edit_that_adds_lines_is_refused_but_a_coincidence_among_several_is_not() {
    let r = TestRepo::with(&[("m.py", "import a\nimport b\n\nrun()\n")]);
    let before = r.state();
    let (run, v) = edit_cli(
        &r,
        &json!({"path": "m.py", "old_string": "import a\n", "new_string": "import a\nimport b\n"}),
    );
    run.code(1);
    assert_eq!(v["status"], "refused", "{v}");
    assert_eq!(r.state(), before);

    let text = "}\n\nx\n}\n\n\ny\n}\n\nz\n";
    let r = TestRepo::with(&[("s.txt", text)]);
    let (run, _) = edit_cli(
        &r,
        &json!({"path": "s.txt", "old_string": "}\n\n", "new_string": "}\n\n\n", "replace_all": true}),
    );
    run.code(0);
    assert_eq!(r.read_str("s.txt"), text.replace("}\n\n", "}\n\n\n"));
}

/// A list of edits to one file applies in order, each to the text the ones before it leave
/// (as MultiEdit does): an edit may change what an earlier one wrote, a `replace_all` counts
/// what is there after the earlier edits, and an `old_string` that an earlier edit made occur
/// twice is refused. Before, every edit was made against the file as it was, and each of
/// these exited 0 with another text (a helper's review of fbc18f2).
#[test]
fn a_list_of_edits_to_one_file_applies_in_order() {
    let cases: &[(&str, Value, Option<&str>)] = &[
        (
            "a\nx\n}\nx\n",
            json!([["a\n", "x\n", false], ["x\n", "x\n}\n", true]]),
            Some("x\n}\nx\n}\n}\nx\n}\n"),
        ),
        (
            "a\nx\nb\nc\n",
            json!([["a\n", "x\n", false], ["x\n", "y\n", true]]),
            Some("y\ny\nb\nc\n"),
        ),
        (
            "a\nx\nb\nc\n",
            json!([["a\n", "b\n", false], ["b\n", "c\n", false]]),
            None,
        ),
        (
            "a\nx\nb\nc\n",
            json!([["x", "}a} ", false], ["} ", "x", false]]),
            Some("a\n}ax\nb\nc\n"),
        ),
        (
            "one\ntwo\nthree\n",
            json!([
                ["two\n", "2\n", false],
                ["one\n2\n", "1\n2\n", false],
                ["three", "3", false]
            ]),
            Some("1\n2\n3\n"),
        ),
    ];
    for (before, list, after) in cases {
        let r = TestRepo::with(&[("f.txt", before)]);
        let state = r.state();
        let edits: Vec<Value> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|e| json!({"old_string": e[0], "new_string": e[1], "replace_all": e[2]}))
            .collect();
        let request = json!({"file_path": "f.txt", "edits": edits});
        let (run, v) = edit_cli(&r, &request);
        match after {
            Some(after) => {
                run.code(0);
                assert_eq!(r.read_str("f.txt"), *after, "{request}: {v}");
            }
            None => {
                run.code(1);
                assert_eq!(r.state(), state, "{request}");
            }
        }
    }
}

/// Line anchors and inserts in a list count the lines of the text the edits before them
/// leave; a hash names the line that is there then.
#[test]
fn lines_named_in_a_list_count_the_text_the_edits_before_them_leave() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\n")]);
    let request = json!([
        {"path": "f.txt", "old_string": "a\n", "new_string": "a\na2\n"},
        {"command": "insert", "path": "f.txt", "insert_line": 2, "new_str": "after a2\n"},
        {"path": "f.txt", "start": 4, "new_string": "B\n"}
    ]);
    let (run, v) = edit_cli(&r, &request);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), "a\na2\nafter a2\nB\nc\n", "{v}");
}

/// In a list of edits to one file, an edit not found exactly in the text the edits before it
/// leave is refused, the whole list with it: what the planner's looser passes would make of
/// it is not known when the list is read, so no edit after it can be made against its
/// result, and text an earlier edit wrote is no sign that it was sent before. Alone, the same
/// edit is placed by those passes (a tab shown as spaces). A helper's review found each of
/// these exiting 0 with another text.
#[test]
fn in_a_list_an_edit_not_found_exactly_is_refused() {
    let tabbed = "def f():\n\treturn 1\n\nx = a-b + 1\na\u{2013}b\n";
    let loose =
        json!({"old_string": "def f():\n    return 1", "new_string": "def f():\n    return 2"});
    for (file, edits) in [
        (
            tabbed,
            json!([loose, {"old_string": "x", "new_string": "y", "replace_all": true}]),
        ),
        (
            tabbed,
            json!([loose, {"old_string": "a-b", "new_string": "Q"}]),
        ),
        (
            "import os\nimport json\n\nx = 1\n",
            json!([
                {"old_string": "import os\n", "new_string": "import os\nimport sys\n"},
                {"old_string": "import jsn\n", "new_string": "import sys\n"}
            ]),
        ),
    ] {
        let r = TestRepo::with(&[("f.py", file)]);
        let state = r.state();
        let request = json!({"file_path": "f.py", "edits": edits});
        let (run, v) = edit_cli(&r, &request);
        run.code(1);
        assert!(v.to_string().contains("must be found exactly"), "{v}");
        assert_eq!(r.state(), state, "{request}");
    }
    let r = TestRepo::with(&[("f.py", tabbed)]);
    let (run, v) = edit_cli(&r, &json!({"file_path": "f.py", "edits": [loose]}));
    run.code(0);
    assert_eq!(
        r.read_str("f.py"),
        tabbed.replace("return 1", "return 2"),
        "{v}"
    );
}

/// Inserts in a list count the lines of the text in turn, also after an insert into an empty
/// file (placed at line 0 where it states line 1, which moves no later hint), and a file
/// without a final newline keeps it so where its last line is left as it was.
#[test]
fn inserts_in_a_list_count_the_text_in_turn_at_its_edges() {
    let r = TestRepo::with(&[("f.txt", "")]);
    let request = json!([
        {"command": "insert", "path": "f.txt", "insert_line": 0, "new_str": "import os\n\n\ndef f():\n    pass\n"},
        {"command": "insert", "path": "f.txt", "insert_line": 3, "new_str": "X = 1\n"}
    ]);
    let (run, v) = edit_cli(&r, &request);
    run.code(0);
    assert_eq!(
        r.read_str("f.txt"),
        "import os\n\n\nX = 1\ndef f():\n    pass\n",
        "{v}"
    );
    let r = TestRepo::with(&[("g.txt", "}")]);
    let request = json!([
        {"command": "insert", "path": "g.txt", "insert_line": 0, "new_str": "b"},
        {"path": "g.txt", "old_string": "\n}", "new_string": ""}
    ]);
    let (run, v) = edit_cli(&r, &request);
    run.code(0);
    assert_eq!(r.read_str("g.txt"), "b", "{v}");
}

/// A CRLF file that the edits before one leave without a line ending for a moment still
/// gives that edit's lines CRLF, as the file has them (a helper's review: all LF, exit 0).
#[test]
fn a_list_keeps_a_crlf_files_endings_when_an_edit_leaves_none_for_a_moment() {
    let r = TestRepo::with(&[("f.txt", "x = 1\r\nb\r\n")]);
    let request = json!({"file_path": "f.txt", "edits": [
        {"old_string": "1\nb\n", "new_string": "}"},
        {"old_string": "}", "new_string": "}\nc\n"}
    ]});
    let (run, v) = edit_cli(&r, &request);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), "x = }\r\nc\r\n", "{v}");
}

//! Numbers in a patch are untrusted text: a header's line numbers and counts past any real file
//! are dropped with a notice, never carried into arithmetic. And should anything still panic,
//! the caller gets the report it was promised: one JSON document with `--json` (kind
//! `internal`), exit 2, the panic's text on stderr.

use crate::common::{numbered, TestRepo};

const HUGE: &str = "18446744073709551615";

#[test]
fn a_line_number_past_any_file_is_ignored_with_a_notice() {
    // The file changed since HEAD, so the history search is consulted too (where the bounds
    // check used to overflow).
    for (header, body) in [
        (format!("@@ -{HUGE},2 +1,1 @@"), "-l4\n-l5\n+L\n"),
        (format!("@@ -{HUGE},3 +{HUGE},3 @@"), " l4\n-l5\n+L\n l6\n"),
        (format!("@@ -4,{HUGE} +4,3 @@"), " l4\n-l5\n+L\n l6\n"),
        (
            "@@ -4294967296,3 +4,3 @@".to_string(),
            " l4\n-l5\n+L\n l6\n",
        ),
    ] {
        let r = TestRepo::with(&[("f.txt", &numbered("l", 30))]);
        r.write(
            "f.txt",
            numbered("l", 30).replace("l20\n", "L20\n").as_bytes(),
        );
        let patch = format!("--- a/f.txt\n+++ b/f.txt\n{header}\n{body}");
        let (run, v) = r.apply_json(&[], &patch);
        run.code(0);
        assert_eq!(run.stderr, "", "{header}");
        let mut expected: Vec<String> = (1..=30).map(|i| format!("l{i}")).collect();
        expected[19] = "L20".into();
        if body.starts_with('-') {
            expected.splice(3..5, ["L".to_string()]);
        } else {
            expected[4] = "L".into();
        }
        let expected: String = expected.iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(r.read_str("f.txt"), expected, "{header}");
        let notice = v["notices"]
            .as_array()
            .expect("notices")
            .iter()
            .find(|n| n["kind"] == "line-numbers-ignored")
            .unwrap_or_else(|| panic!("{header}: no line-numbers-ignored notice: {v:#}"));
        assert_eq!(
            notice["message"],
            format!(
                "line 3: hunk header '{header}' has a number beyond 4294967295; its numbers \
                 were ignored and the hunk is located by its content"
            )
        );
    }
}

#[test]
fn a_huge_line_number_does_not_decide_an_ambiguity() {
    // It used to wrap around to line 1 and place the hunk there "by its line numbers".
    let r = TestRepo::with(&[("f.txt", "a\nb\nx\na\nb\n")]);
    let before = r.state();
    let patch = format!("--- a/f.txt\n+++ b/f.txt\n@@ -{HUGE},2 +1,1 @@\n-a\n-b\n+c\n");
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous");
    assert_eq!(r.state(), before);
}

#[test]
fn huge_numbers_in_a_codex_unified_header_are_not_numbers() {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 10))]);
    let patch =
        format!("*** Begin Patch\n*** Update File: f.txt\n@@ -{HUGE},3 +1,3 @@\n l2\n-l3\n+L3\n l4\n*** End Patch\n");
    r.apply(&[], &patch).code(0);
    assert_eq!(
        r.read_str("f.txt"),
        numbered("l", 10).replace("l3\n", "L3\n")
    );
}

#[cfg(debug_assertions)]
#[test]
fn a_panic_becomes_an_internal_error_report_with_json() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    let before = r.state();
    let out = r
        .cmd(&["--json", "-"])
        .env("GIT_LLM_APPLY_TEST_PANIC", "boom")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run");
    let run = crate::common::Run::from(out);
    run.code(2);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    let message = format!(
        "internal error (a bug in git-llm-apply; please report it): panicked at {}: injected \
         for a test: boom",
        injection_site()
    );
    assert_eq!(v["status"], "error");
    assert_eq!(v["exit_code"], 2);
    assert_eq!(v["errors"][0]["kind"], "internal");
    assert_eq!(v["errors"][0]["message"], message.as_str());
    assert_eq!(run.stderr, format!("error: {message}\n"));
    assert_eq!(r.state(), before);
}

#[cfg(debug_assertions)]
#[test]
fn a_panic_without_json_is_one_line_on_stderr() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    let out = r
        .cmd(&["-"])
        .env("GIT_LLM_APPLY_TEST_PANIC", "boom")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run");
    let run = crate::common::Run::from(out);
    run.code(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: internal error (a bug in git-llm-apply; please report it): panicked at {}: \
             injected for a test: boom\n",
            injection_site()
        )
    );
}

/// `src/cli/panic.rs:LINE:COLUMN` of the test-only `panic!`, read from the source so that the
/// assertions stay exact when the file moves.
#[cfg(debug_assertions)]
fn injection_site() -> String {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/cli/panic.rs"))
        .expect("panic.rs");
    let (n, line) = src
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("panic!(\"injected for a test"))
        .expect("the injected panic");
    let col = line.find("panic!").expect("panic!") + 1;
    format!("src/cli/panic.rs:{}:{col}", n + 1)
}

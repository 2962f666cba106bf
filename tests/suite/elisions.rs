//! Elision lines (`...`, `# ... existing code ...`) stand for unchanged text between two
//! parts of a hunk, each of which must be in one place.

use crate::common::{text, TestRepo};

fn module() -> String {
    let mut lines = vec!["def post(url, data=None):".to_string()];
    for i in 0..8 {
        lines.push(format!("    step_{i}(url)"));
    }
    lines.push("    return request('post', url)".into());
    lines.push(String::new());
    lines.push("def put(url, data=None):".into());
    lines.push("    return request('put', url)".into());
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn an_elided_run_inside_a_hunk_is_kept_and_both_changes_apply() {
    let r = TestRepo::with(&[("api.py", &module())]);
    let patch = "--- a/api.py\n+++ b/api.py\n@@ -1,11 +1,11 @@\n-def post(url, data=None):\n+def post(url, data=None, json=None):\n     step_0(url)\n     # ... existing code ...\n     step_7(url)\n-    return request('post', url)\n+    return request('post', url, json=json)\n \n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    let expected = module()
        .replace(
            "def post(url, data=None):",
            "def post(url, data=None, json=None):",
        )
        .replace("request('post', url)", "request('post', url, json=json)");
    assert_eq!(r.read_str("api.py"), expected);
    assert_eq!(v["files"][0]["warnings"][0]["kind"], "elision");
}

#[test]
fn an_elision_whose_next_part_fits_twice_is_refused_and_nothing_changes() {
    let file = text(&[
        "def f():",
        "    a = 1",
        "    x = 0",
        "    b = 2",
        "    x = 0",
        "    b = 2",
        "    return a",
    ]);
    let r = TestRepo::with(&[("f.py", &file)]);
    let before = r.state();
    let patch = "--- a/f.py\n+++ b/f.py\n@@ -1,7 +1,7 @@\n def f():\n     a = 1\n     ...\n-    x = 0\n+    x = 9\n     b = 2\n";
    r.apply(&[], patch).code(1);
    assert_eq!(r.state(), before);
}

#[test]
fn a_literal_ellipsis_that_is_code_matches_as_code() {
    let file = text(&["class P:", "    def f(self):", "        ...", "", "x = 1"]);
    let r = TestRepo::with(&[("p.py", &file)]);
    let patch = "--- a/p.py\n+++ b/p.py\n@@ -1,5 +1,5 @@\n class P:\n     def f(self):\n         ...\n \n-x = 1\n+x = 2\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(r.read_str("p.py"), file.replace("x = 1", "x = 2"));
    assert!(v["files"][0]["warnings"]
        .as_array()
        .is_none_or(|w| w.is_empty()));
}

#[test]
fn a_search_block_with_an_ellipsis_and_its_replace_written_out_applies() {
    let file = text(&[
        "def help():",
        "    \"\"\"Show help.\"\"\"",
        "    a = 1",
        "    b = 2",
        "    c = 3",
        "    return a + b + c",
        "",
        "def other():",
        "    return 0",
    ]);
    let r = TestRepo::with(&[("h.py", &file)]);
    let patch = "h.py\n```python\n<<<<<<< SEARCH\ndef help():\n    \"\"\"Show help.\"\"\"\n...\n    return a + b + c\n=======\ndef help():\n    \"\"\"Show the help.\"\"\"\n    a = 1\n    b = 2\n    c = 3\n    return a + b + c\n>>>>>>> REPLACE\n```\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(
        r.read_str("h.py"),
        file.replace("Show help.", "Show the help.")
    );
    assert_eq!(v["files"][0]["warnings"][0]["kind"], "elision");
}

#[test]
fn a_search_block_whose_ellipsis_bounds_nothing_on_one_side_is_refused() {
    let file = text(&["x = 1", "y = 2", "z = 3"]);
    let r = TestRepo::with(&[("f.py", &file)]);
    let before = r.state();
    let patch =
        "f.py\n```python\n<<<<<<< SEARCH\nx = 1\n...\n=======\nx = 10\n>>>>>>> REPLACE\n```\n";
    r.apply(&[], patch).code(1);
    assert_eq!(r.state(), before);
}

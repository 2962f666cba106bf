//! Issue 35: hunks shaped as models write them — context on one side only, one line of it, no
//! numbers — apply where their old lines are; `diff`'s implicit end-of-file pin is evidence,
//! not a requirement, while explicit markers keep their force.

use crate::common::{numbered, text, TestRepo};

fn diff(path: &str, body: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n{body}")
}

/// A function, twice the blank line, another: the six-line `m.py`.
fn m_py() -> String {
    text(&[
        "def f():",
        "    return 1",
        "",
        "",
        "def g():",
        "    return 2",
    ])
}

#[test]
fn context_before_the_change_only_applies_where_its_lines_are() {
    let r = TestRepo::with(&[("m.py", &m_py())]);
    let patch = diff(
        "m.py",
        "@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        r.read_str("m.py"),
        m_py().replace("return 1\n", "return 10\n")
    );
    let hunk = &v["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "applied", "{hunk}");
    assert_eq!(hunk["pass"], "exact", "{hunk}");
    assert_eq!(hunk["decided_by"], "unique", "{hunk}");
}

#[test]
fn context_on_one_side_only_applies_without_numbers_too() {
    let r = TestRepo::with(&[("m.py", &m_py())]);
    let trailing_cut = diff("m.py", "@@ @@\n def g():\n-    return 2\n+    return 20\n");
    r.apply(&[], &trailing_cut).code(0);
    let leading_cut = diff("m.py", "@@ @@\n-def f():\n+def f(x):\n     return 1\n");
    r.apply(&[], &leading_cut).code(0);
    assert_eq!(
        r.read_str("m.py"),
        text(&[
            "def f(x):",
            "    return 1",
            "",
            "",
            "def g():",
            "    return 20"
        ])
    );
}

#[test]
fn a_pure_insertion_with_context_on_one_side_goes_right_beside_that_context() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 30))]);
    // Context before only, mid-file: right after it.
    r.apply(
        &[],
        &diff(
            "f.txt",
            "@@ -10,3 +10,4 @@\n line10\n line11\n line12\n+after12\n",
        ),
    )
    .code(0);
    // Context after only, mid-file: right before it.
    r.apply(
        &[],
        &diff("f.txt", "@@ -20,2 +21,3 @@\n+before20\n line20\n line21\n"),
    )
    .code(0);
    let want = numbered("line", 30)
        .replace("line12\n", "line12\nafter12\n")
        .replace("line20\n", "before20\nline20\n");
    assert_eq!(r.read_str("f.txt"), want);
}

#[test]
fn one_line_of_context_on_each_side_applies() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 30))]);
    let patch = diff(
        "f.txt",
        "@@ -4,3 +4,3 @@\n line4\n-line5\n+LINE5\n line6\n@@ -19,3 +19,4 @@\n line19\n-line20\n+LINE20\n+extra\n line21\n",
    );
    r.apply(&[], &patch).code(0);
    assert_eq!(
        r.read_str("f.txt"),
        numbered("line", 30)
            .replace("line5\n", "LINE5\n")
            .replace("line20\n", "LINE20\nextra\n")
    );
}

/// The same two lines in the middle and at the end of the file, no numbers near either: the
/// only fit at the end is where `diff`'s shape says, and the report says that decided it.
#[test]
fn the_shape_decides_between_a_fit_in_the_middle_and_one_at_the_end() {
    let file = "head\nkey = 1\nvalue = 2\nmiddle\nkey = 1\nvalue = 2\n";
    let r = TestRepo::with(&[("f.txt", file)]);
    let patch = diff("f.txt", "@@ @@\n key = 1\n-value = 2\n+value = 3\n");
    // Without numbers nothing decides: refused, both places named.
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    // With numbers far from both, the shape decides: the end of the file.
    let numbered = diff(
        "f.txt",
        "@@ -40,2 +40,2 @@\n key = 1\n-value = 2\n+value = 3\n",
    );
    let (run, v) = r.apply_json(&[], &numbered);
    run.code(0);
    assert_eq!(
        r.read_str("f.txt"),
        "head\nkey = 1\nvalue = 2\nmiddle\nkey = 1\nvalue = 3\n"
    );
    assert_eq!(v["files"][0]["hunks"][0]["decided_by"], "shape", "{v}");
}

/// Numbers a few lines off that point at the middle fit, while the shape points at the end:
/// two opinions, neither trusted.
#[test]
fn numbers_off_that_disagree_with_the_shape_are_refused() {
    let mut file = numbered("pad", 30);
    file.push_str("key = 1\nvalue = 2\n");
    file.push_str(&numbered("more", 40));
    file.push_str("key = 1\nvalue = 2\n");
    let r = TestRepo::with(&[("f.txt", &file)]);
    let before = r.state();
    // The middle fit is at line 31; the numbers say 33.
    let patch = diff(
        "f.txt",
        "@@ -33,2 +33,2 @@\n key = 1\n-value = 2\n+value = 3\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    assert_eq!(r.state(), before);
    // At the numbers exactly, they decide.
    let exact = diff(
        "f.txt",
        "@@ -31,2 +31,2 @@\n key = 1\n-value = 2\n+value = 3\n",
    );
    r.apply(&[], &exact).code(0);
    assert!(r.read_str("f.txt").starts_with(&format!(
        "{}key = 1\nvalue = 3\nmore1\n",
        numbered("pad", 30)
    )));
}

/// `diff` wrote this hunk at the end of the file, and the patch lost the context line between
/// its context and the function it adds (the corpus's missing-context damage). A model's
/// reading, the function right after the context, would cut the last function in two: its
/// last line is indented deeper than the `def` added before it. So the end of the file it is,
/// reported as a loose fit.
#[test]
fn additions_that_would_cut_a_block_in_two_go_past_the_lines_the_context_lost() {
    let file = text(&["def a():", "    x = 1", "    y = 2", "    return x + y"]);
    let r = TestRepo::with(&[("t.py", &file)]);
    let patch = diff(
        "t.py",
        "@@ -2,2 +2,5 @@\n     x = 1\n     y = 2\n+\n+\n+def b():\n+    return 3\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("t.py"), file + "\n\ndef b():\n    return 3\n");
    assert_eq!(v["files"][0]["hunks"][0]["pass"], "fuzzy", "{v}");
}

/// The same shape where the file's last line closes the block the additions go in: a
/// method added before a class's closing brace (a model's reading) or after it (`diff`'s,
/// with that line lost from the context). Two files: refused, saying how to resend.
#[test]
fn additions_a_line_short_of_the_end_with_both_readings_open_are_refused() {
    let file = text(&["class A {", "  a() {", "    return 1;", "  }", "}"]);
    let r = TestRepo::with(&[("a.js", &file)]);
    let before = r.state();
    let patch = diff(
        "a.js",
        "@@ -3,2 +3,5 @@\n     return 1;\n   }\n+  b() {\n+    return 2;\n+  }\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1)
        .out_contains("line 5 of the file is after that context")
        .out_contains("resend the hunk with a context line after the addition");
    assert_eq!(r.state(), before);
    // With the context whole (the patch's width, three lines), no line was lost: it goes
    // right after the context.
    let whole = diff(
        "a.js",
        "@@ -2,3 +2,6 @@\n   a() {\n     return 1;\n   }\n+  b() {\n+    return 2;\n+  }\n",
    );
    r.apply(&[], &whole).code(0);
    assert_eq!(
        r.read_str("a.js"),
        text(&[
            "class A {",
            "  a() {",
            "    return 1;",
            "  }",
            "  b() {",
            "    return 2;",
            "  }",
            "}"
        ])
    );
}

/// An append whose new side already ends the file is applied already, as git reads the shape.
#[test]
fn an_append_whose_new_side_ends_the_file_is_already_applied() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\nd\n")]);
    let before = r.state();
    let (run, v) = r.apply_json(&[], &diff("f.txt", "@@ -1,3 +1,4 @@\n a\n b\n c\n+d\n"));
    run.code(0);
    assert_eq!(v["status"], "already-applied", "{v}");
    assert_eq!(r.state(), before);
}

/// `\ No newline at end of file` speaks of the end of the file: a hunk that carries it must end
/// there, whatever its shape.
#[test]
fn a_no_newline_marker_still_pins_the_hunk_to_the_end_of_the_file() {
    let r = TestRepo::with(&[("f.txt", "a\nb\nc\nd\ne\nb\nc")]);
    let patch = diff(
        "f.txt",
        "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n",
    );
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read_str("f.txt"), "a\nb\nc\nd\ne\nb\nC");
}

/// A hunk numbered at line 1 that adds lines above its context only, and lost a context line
/// between two of its own (the corpus's missing-context damage, on an attribute added at the
/// top of a file): its first context line is the file's first line, so nothing can stand
/// between it and the added lines, and the top of the file it is, reported as a loose fit.
/// A line above that context, or a second place the context fits, leaves the lost line's
/// place open: refused.
#[test]
fn additions_at_the_top_above_context_that_lost_a_line_go_at_the_top() {
    let file = text(&[
        "#[test]",
        "fn readme_deps() {",
        "    version_sync::assert_markdown_deps_updated!(\"README.md\");",
        "}",
    ]);
    let patch = diff(
        "v.rs",
        "@@ -1,2 +1,4 @@\n+#![allow(unused)]\n+\n #[test]\n     version_sync::assert_markdown_deps_updated!(\"README.md\");\n",
    );
    let r = TestRepo::with(&[("v.rs", &file)]);
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("v.rs"), format!("#![allow(unused)]\n\n{file}"));
    assert_eq!(v["files"][0]["hunks"][0]["pass"], "fuzzy", "{v}");
    // A line above the context: the lost line may be that one, the additions above it.
    let r = TestRepo::with(&[("v.rs", &format!("// tests\n{file}"))]);
    let before = r.state();
    r.apply(&[], &patch).code(1);
    assert_eq!(r.state(), before);
    // The context fits again further down: two places.
    let r = TestRepo::with(&[("v.rs", &format!("{file}{file}"))]);
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    assert_eq!(r.state(), before);
}

/// The same at the end of the file: lines added below context whose last line is the
/// file's last, the context having lost a line between two of its own.
#[test]
fn additions_at_the_end_below_context_that_lost_a_line_go_at_the_end() {
    let file = text(&["def a():", "    x = 1", "    return x"]);
    let patch = diff(
        "t.py",
        "@@ -1,2 +1,5 @@\n def a():\n     return x\n+\n+\n+def b():\n+    return 2\n",
    );
    let r = TestRepo::with(&[("t.py", &file)]);
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        r.read_str("t.py"),
        format!("{file}\n\ndef b():\n    return 2\n")
    );
    assert_eq!(v["files"][0]["hunks"][0]["pass"], "fuzzy", "{v}");
    // The context fits a second time, earlier in the file: two places.
    let twice = text(&[
        "def a():",
        "    y = 1",
        "    return x",
        "",
        "",
        "def a():",
        "    x = 1",
        "    return x",
    ]);
    let r = TestRepo::with(&[("t.py", &twice)]);
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    assert_eq!(r.state(), before);
}

/// The fit at an end of the file is held to the rules of any loose fit: matched lines more
/// than five lines apart are no fit (else a stretch at the top would be taken where the same
/// stretch further down is not even counted as a second place), and a context line too
/// common to look for everywhere leaves the other places unknown. Both refused.
#[test]
fn a_fit_at_an_end_of_the_file_is_no_looser_than_any_other() {
    let block = |p: &str| {
        let mut lines = vec!["import os".to_string()];
        lines.extend((1..=6).map(|k| format!("{p}{k} = {k}")));
        lines.extend(["def helper():", "    return os.sep", ""].map(String::from));
        lines
    };
    let mut lines = block("a");
    lines.extend(["x = 0"; 3].map(String::from));
    lines.extend(block("b"));
    let file = lines.join("\n") + "\n";
    let r = TestRepo::with(&[("g.py", &file)]);
    let before = r.state();
    let patch = diff(
        "g.py",
        "@@ -1,3 +1,4 @@\n+import sys\n import os\n def helper():\n     return os.sep\n",
    );
    r.apply(&[], &patch).code(1);
    assert_eq!(r.state(), before);
    let file =
        "    assert check(alpha)\n    assert check(beta)\n    assert check(gamma)\n".repeat(600);
    let r = TestRepo::with(&[("t.py", &file)]);
    let before = r.state();
    let patch = diff(
        "t.py",
        "@@ -1798,2 +1798,3 @@\n     assert check(alpha)\n     assert check(gamma)\n+    assert check(delta)\n",
    );
    r.apply(&[], &patch).code(1);
    assert_eq!(r.state(), before);
}

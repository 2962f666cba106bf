//! Issue 11's reproducers of silent wrong edits, each now applied right or refused, and the
//! proof that every plan passes before the gate.

use crate::common::{text, TestRepo};

/// Apply `patch`, which must be refused (exit 1) with tree, index and HEAD left as they were;
/// the JSON report.
fn refused(r: &TestRepo, patch: &str) -> serde_json::Value {
    let before = r.state();
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(r.state(), before, "a refusal leaves everything as it was");
    v
}

/// [`refused`], its first hunk not placed for a reason that says `why`; the JSON report.
fn refused_because(r: &TestRepo, patch: &str, why: &str) -> serde_json::Value {
    let v = refused(r, patch);
    let hunk = &v["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "not-found", "{hunk}");
    assert!(
        hunk["reason"].as_str().is_some_and(|s| s.contains(why)),
        "{hunk}"
    );
    v
}

/// A file of `notes` comment lines, then `lines`.
fn after_notes(notes: usize, lines: &[&str]) -> String {
    let mut all: Vec<String> = (0..notes).map(|i| format!("# note {i}")).collect();
    all.extend(lines.iter().map(|l| l.to_string()));
    format!("{}\n", all.join("\n"))
}

/// A pure deletion at the end of a file whose removed lines carry typographic punctuation:
/// its new side (the leading context) is there, but so are the removed lines, so it is not
/// already applied; the Unicode pass places it.
#[test]
fn a_deletion_with_typographic_removed_lines_is_not_called_already_applied() {
    let file = text(&[
        "import os",
        "",
        "def runner():",
        "    return 1",
        "",
        "",
        "def _check():",
        "    with open(\"target-pytest\") as f:",
        "        link = os.path.join(f, \"link\")",
        "    return True",
    ]);
    let r = TestRepo::with(&[("t.py", &file)]);
    let before = r.state();
    let patch = "--- a/t.py\n+++ b/t.py\n@@ -1,6 +1,4 @@\n-import os\n-\n def runner():\n     return 1\n@@ -3,8 +1,2 @@\n def runner():\n     return 1\n-\n-\n-def _check():\n-    with open(\u{201c}target\u{2010}pytest\u{201d}) as f:\n-        link = os.path.join(f, \u{201c}link\u{201d})\n-    return True\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(v["files"][0]["hunks"][1]["status"], "applied");
    assert_eq!(v["files"][0]["hunks"][1]["pass"], "unicode");
    assert_eq!(r.read_str("t.py"), "def runner():\n    return 1\n");
    assert_ne!(r.state(), before);
}

/// A hunk written twice whose added lines recreate its own context (a function added after a
/// closing brace): the second copy would fit again after the first. Applied once.
#[test]
fn a_repeated_pure_addition_is_applied_once() {
    let r = TestRepo::with(&[("f.rs", "fn a() {\n}\n\nfn b() {\n}\n")]);
    let hunk = "@@ -1,3 +1,6 @@\n fn a() {\n }\n+\n+fn n() {\n+}\n \n";
    let patch = format!("--- a/f.rs\n+++ b/f.rs\n{hunk}{hunk}");
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        r.read_str("f.rs"),
        "fn a() {\n}\n\nfn n() {\n}\n\nfn b() {\n}\n"
    );
    let f = &v["files"][0];
    assert_eq!(f["added"], 3, "the repeat adds nothing");
    assert_eq!(f["hunks"][1]["status"], "already-applied");
    assert_eq!(f["warnings"][0]["kind"], "duplicate-hunk");
}

/// The same hunk at other numbers, where the file has the block twice, is a second edit.
#[test]
fn the_same_hunk_at_other_numbers_is_a_second_edit() {
    let block = ["def f():", "    x = 1", "    return x", ""];
    let mut lines: Vec<&str> = block.to_vec();
    lines.extend_from_slice(&block);
    let r = TestRepo::with(&[("m.py", &text(&lines))]);
    let patch = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f():\n-    x = 1\n+    x = 2\n     return x\n@@ -5,3 +5,3 @@\n def f():\n-    x = 1\n+    x = 2\n     return x\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("m.py"), text(&lines).replace("x = 1", "x = 2"));
}

/// A rename with an edit, a real `index` line and a numberless `@@ @@` header: git itself
/// would rename and drop the edit, so the section is not handed to `git apply --3way`.
#[test]
fn a_rename_with_a_numberless_hunk_and_an_index_line_keeps_its_edit() {
    let r = TestRepo::with(&[("q.txt", "a\nb\nc\nd\ne\nf\n")]);
    r.git(&["mv", "q.txt", "q2.txt"]);
    r.write("q2.txt", b"a\nb\nC\nd\ne\nf\n");
    r.git(&["add", "-A"]);
    let diff = r.git(&["diff", "--cached", "-M"]);
    r.git(&["reset", "-q", "--hard"]);
    let patch: String = diff
        .lines()
        .map(|l| {
            if l.starts_with("@@ -") {
                "@@ @@".to_string()
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    assert!(
        patch.contains("index ") && patch.contains("@@ @@\n"),
        "{patch}"
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert!(!r.exists("q.txt"));
    assert_eq!(r.read_str("q2.txt"), "a\nb\nC\nd\ne\nf\n");
    assert_eq!(v["files"][0]["status"], "applied");
    assert_ne!(v["files"][0]["strategy"], "3way");
}

/// One context line indented differently among lines at column 0 is damage to that line:
/// the added line keeps the indentation the patch gives it.
#[test]
fn one_context_line_with_extra_indentation_does_not_shift_the_added_lines() {
    let r = TestRepo::with(&[("g.py", "x = 1\ny = 2\nz = 3\nw = 4\n")]);
    let patch =
        "--- a/g.py\n+++ b/g.py\n@@ -1,4 +1,5 @@\n x = 1\n   y = 2\n+ # moved\n z = 3\n w = 4\n";
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("g.py"), "x = 1\ny = 2\n # moved\nz = 3\nw = 4\n");
}

/// A plan changed after planning (as a planner bug would) fails its proof: a refusal of kind
/// `internal-check`, nothing written, for `--check` too.
#[test]
fn a_corrupted_plan_is_refused_by_the_proof_and_nothing_is_written() {
    let r = TestRepo::with(&[("f.txt", "one\ntwo\nthree\n")]);
    let before = r.state();
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    for args in [&["--json"][..], &["--json", "--check"][..]] {
        let mut c = r.cmd(args);
        c.env("GIT_LLM_APPLY_TEST_CORRUPT_PLAN", "1");
        let run = crate::common::Run::from(
            assert_cmd::Command::from_std(c)
                .write_stdin(patch)
                .output()
                .expect("runs"),
        );
        run.code(1);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
        assert_eq!(v["status"], "refused");
        assert_eq!(v["errors"][0]["kind"], "internal-check");
        assert!(
            v["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("f.txt"),
            "the failure names the file: {}",
            v["errors"][0]["message"]
        );
        assert_eq!(r.state(), before, "nothing written with {args:?}");
    }
    // The same patch without the corruption applies.
    r.apply(&[], patch).code(0);
    assert_eq!(r.read_str("f.txt"), "one\nTWO\nthree\n");
}

/// A hunk with leading context only, whose header promises one old line more than it has: the
/// dropped line may be its trailing context (the additions go right after the context) or a
/// context line between the context and the additions (they go one line lower). The fuzzer
/// found both: this case (scripts/fuzz-wrong.py) meant the first, seed 30080 the second. Each
/// reading is a different file, so the hunk is refused, not pinned to the end of the file and
/// not guessed.
#[test]
fn a_one_sided_hunk_short_of_its_header_is_refused_where_the_missing_line_may_go_either_side() {
    let file = text(&[
        "def a():",
        "    \"\"\"Doc.\"\"\"",
        "    x = 1",
        "    return x",
    ]);
    let r = TestRepo::with(&[("t.py", &file)]);
    let before = r.state();
    let patch =
        "--- a/t.py\n+++ b/t.py\n@@ -2,2 +2,4 @@\n     \"\"\"Doc.\"\"\"\n+    y = 2\n+    z = 3\n";
    r.apply(&[], patch)
        .code(1)
        .out_contains("the missing line(s) may be line 3");
    assert_eq!(r.state(), before);
    // Seed 30080's shape: the dropped line was the one between the context and the copy.
    let file = text(&[
        "    try:",
        "        u.encode(\"ascii\")",
        "        return True",
        "    except UnicodeEncodeError:",
        "        return False",
    ]);
    let r = TestRepo::with(&[("u.py", &file)]);
    let before = r.state();
    let patch = "--- a/u.py\n+++ b/u.py\n@@ -4,2 +4,4 @@\n     except UnicodeEncodeError:\n+    except UnicodeEncodeError:\n+        return False\n";
    r.apply(&[], patch).code(1);
    assert_eq!(r.state(), before);
    // With the line there, the copy has one place.
    let whole = "--- a/u.py\n+++ b/u.py\n@@ -4,2 +4,4 @@\n     except UnicodeEncodeError:\n         return False\n+    except UnicodeEncodeError:\n+        return False\n";
    r.apply(&[], whole).code(0);
    assert_eq!(
        r.read_str("u.py"),
        file.clone() + "    except UnicodeEncodeError:\n        return False\n"
    );
}

/// One context line that lost its indentation is the only sign of a shift: the added lines'
/// depth is unknowable, so the hunk is refused rather than re-indented by that one line
/// (found by scripts/fuzz-wrong.py).
#[test]
fn a_shift_shown_by_one_context_line_alone_is_refused() {
    let file = text(&["fn t() {", "    let f = g();", "", "    let v = 1;", "}"]);
    let r = TestRepo::with(&[("m.rs", &file)]);
    let before = r.state();
    let patch =
        "--- a/m.rs\n+++ b/m.rs\n@@ -3,2 +3,4 @@\n \n+    assert!(f.is_ok());\n+\n let v = 1;\n";
    r.apply(&[], patch).code(1);
    assert_eq!(r.state(), before);
}

/// The heading picks one of two fits (the one inside its class's braces), but the other hunk,
/// which fits once, shows the numbers four lines stale, and read with that offset they point
/// at the other fit: two opinions, so nothing decides (scripts/fuzz-wrong.py seed 30786: a
/// copied block had put a copy of the context inside the heading's class).
#[test]
fn a_heading_the_neighbouring_numbers_contradict_does_not_decide() {
    let file = text(&[
        "class Store {",
        "  open() {",
        "    this.ready = true;",
        "  }",
        "}",
        "",
        "/**",
        " * extra copy",
        " */",
        "  close() {",
        "    this.ready = true;",
        "  }",
        "}",
        "",
        "/**",
        " * Reader",
        " */",
        "class Reader extends Store {",
        "  read() {",
        "    return this.data;",
        "  }",
        "}",
        "",
        "module.exports = { Store, Reader };",
    ]);
    let r = TestRepo::with(&[("s.js", &file)]);
    let before = r.state();
    let patch = "--- a/s.js\n+++ b/s.js\n@@ -7,5 +7,5 @@ class Store {\n     this.ready = true;\n   }\n-}\n+}  // end\n \n /**\n@@ -16,5 +16,5 @@ class Reader extends Store {\n     return this.data;\n   }\n-}\n+}  // reader\n \n module.exports = { Store, Reader };\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous");
    assert_eq!(v["files"][0]["hunks"][1]["status"], "applied");
    assert_eq!(r.state(), before);
}

/// A Codex anchor that opens no block (an import line) with the hunk's lines twice below it (a
/// copy of them further down): "the first fit after the anchor" would be a guess between two,
/// so the hunk is refused; with the copy gone it applies (scripts/fuzz-wrong.py seed 40951).
#[test]
fn a_codex_anchor_with_two_fits_after_it_and_none_inside_it_does_not_decide() {
    let body = [
        "const check = (a, b) => {",
        "  if (a === b)",
        "    return true",
        "",
        "  return false",
        "}",
    ];
    let mut lines = vec!["const compare = require('./compare.js')", "", "// notes"];
    lines.extend(body);
    lines.extend(["", "// more notes"]);
    lines.extend(body);
    let file = text(&lines);
    let r = TestRepo::with(&[("c.js", &file)]);
    let before = r.state();
    let patch = "*** Begin Patch\n*** Update File: c.js\n@@ const compare = require('./compare.js')\n const check = (a, b) => {\n   if (a === b)\n-    return true\n+    return 1\n \n*** End Patch\n";
    r.apply(&["--format", "codex"], patch).code(1);
    assert_eq!(r.state(), before);
    let mut once = vec!["const compare = require('./compare.js')", "", "// notes"];
    once.extend(body);
    let r = TestRepo::with(&[("c.js", &text(&once))]);
    r.apply(&["--format", "codex"], patch).code(0);
    assert!(r.read_str("c.js").contains("    return 1\n"));
}

/// Two copies of a block, each with a line the hunk does not mention: in the first it sits
/// where the hunk inserts a line (so where that line goes there is uncertain), in the second
/// further on. The first is still a place the hunk fits, so the two are two places: refused,
/// not applied to the second for want of a rival.
#[test]
fn a_place_where_the_insertion_is_uncertain_still_counts_against_another_fit() {
    let mut lines = vec![
        "fn first() {",
        "    let alpha = load(1);",
        "    let extra = load(9);",
        "    let beta = load(2);",
        "    let gamma = load(3);",
        "    let delta = load(4);",
        "}",
        "",
    ];
    let filler: Vec<String> = (0..6).map(|i| format!("// filler line {i}")).collect();
    lines.extend(filler.iter().map(String::as_str));
    lines.extend([
        "fn second() {",
        "    let alpha = load(1);",
        "    let beta = load(2);",
        "    let gamma = load(3);",
        "    let extra = load(9);",
        "    let delta = load(4);",
        "}",
    ]);
    let r = TestRepo::with(&[("f.rs", &text(&lines))]);
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@ -8,4 +8,5 @@\n     let alpha = load(1);\n+    let added = load(5);\n     let beta = load(2);\n-    let gamma = load(3);\n+    let gamma = load(33);\n     let delta = load(4);\n";
    let v = refused(&r, patch);
    let hunk = &v["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "ambiguous", "{hunk}");
    assert_eq!(hunk["occurrences"], 2, "{hunk}");
}

/// Added lines right after a removed line, then a context line, where the file has a line
/// between the removed one and that context line. When the header counts a line more than
/// the body has, that line is the one the body lost, and it may have stood before the
/// additions or after them: two different files, so the hunk is refused. With counts that
/// match the body, the line is one the file gained since, and the additions replace the
/// removed line where it was.
#[test]
fn a_short_body_s_replacement_beside_an_unmentioned_line_may_go_either_side_of_it() {
    let file = text(&[
        "createToken('RANGE', `${src[t.GTLT]}`)",
        "createToken('XRANGE', `${src[t.XRANGEPLAIN]}`)",
        "createToken('XRANGELOOSE', `${src[t.XRANGEPLAINLOOSE]}`)",
        "",
        "// Coercion.",
        "// Extract anything that could be a version",
    ]);
    let r = TestRepo::with(&[("re.js", &file)]);
    let body = " createToken('XRANGE', `${src[t.XRANGEPLAIN]}`)\n-createToken('XRANGELOOSE', `${src[t.XRANGEPLAINLOOSE]}`)\n+value = compute(14)\n // Coercion.\n";
    let short = format!("--- a/re.js\n+++ b/re.js\n@@ -2,4 +2,4 @@\n{body}");
    let v = refused(&r, &short);
    assert_ne!(v["files"][0]["hunks"][0]["status"], "applied");
    let counted = format!("--- a/re.js\n+++ b/re.js\n@@ -2,3 +2,3 @@\n{body}");
    r.apply(&[], &counted).code(0);
    assert_eq!(
        r.read_str("re.js"),
        text(&[
            "createToken('RANGE', `${src[t.GTLT]}`)",
            "createToken('XRANGE', `${src[t.XRANGEPLAIN]}`)",
            "value = compute(14)",
            "",
            "// Coercion.",
            "// Extract anything that could be a version",
        ])
    );
}

/// A Codex hunk (no counts) adding a blank line between two lines that already have one
/// between them: its new side is in the file, but so is its old side with that blank line
/// in a gap, which is the context line a model drops most. "Already applied" and "not yet
/// applied" are two different files, so the hunk is refused, not passed over.
#[test]
fn a_countless_hunk_whose_old_side_fits_around_a_dropped_line_is_not_called_already_applied() {
    let file =
        "import os\n\n\ndef first():\n    return os.getcwd()\n\ndef second():\n    return 2\n";
    let r = TestRepo::with(&[("m.py", file)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@\n     return os.getcwd()\n+\n def second():\n*** End Patch\n";
    refused_because(&r, patch, "already made is uncertain");
    // Sent again with the context line it lacked, it applies.
    let whole = "*** Begin Patch\n*** Update File: m.py\n@@\n     return os.getcwd()\n \n+\n def second():\n*** End Patch\n";
    r.apply(&[], whole).code(0);
    assert_eq!(
        r.read_str("m.py"),
        "import os\n\n\ndef first():\n    return os.getcwd()\n\n\ndef second():\n    return 2\n"
    );
}

/// Context lines stripped of all their indentation around an added line that kept the
/// file's: either only the context lost its indentation (the added line is right as written)
/// or the whole hunk did (the added line goes deeper by as much). Two files, so refused; an
/// added line stripped like its context is shifted with it.
#[test]
fn added_lines_as_deep_as_the_file_between_stripped_context_lines_are_refused() {
    let file = text(&[
        "def bypass(url):",
        "    if url:",
        "        # check the host",
        "        host = url.strip()",
        "        return host",
    ]);
    let r = TestRepo::with(&[("u.py", &file)]);
    let kept = "--- a/u.py\n+++ b/u.py\n@@ -3,2 +3,3 @@\n # check the host\n+        log(\"x\")\n host = url.strip()\n";
    let v = refused(&r, kept);
    let hunk = &v["files"][0]["hunks"][0];
    assert_ne!(hunk["status"], "applied", "{hunk}");
    let stripped = "--- a/u.py\n+++ b/u.py\n@@ -3,2 +3,3 @@\n # check the host\n+log(\"x\")\n host = url.strip()\n";
    r.apply(&[], stripped).code(0);
    assert_eq!(
        r.read_str("u.py"),
        text(&[
            "def bypass(url):",
            "    if url:",
            "        # check the host",
            "        log(\"x\")",
            "        host = url.strip()",
            "        return host",
        ])
    );
}

/// A SEARCH line that its REPLACE keeps is context in all but name. One such line stripped
/// of its indentation is then the only sign of a shift, and the lines added after it are
/// as likely written at the file's depth as relative to it: refused, as the same hunk in a
/// unified diff is (fuzz-wrong sr seed 1700673). Where the block's other kept lines show no
/// shift, the one stripped line is damage to that line alone: the added line stays at the
/// depth written (seed 1700205), not shifted by it.
#[test]
fn a_kept_search_line_speaks_for_the_indentation_as_a_context_line_does() {
    let file = text(&[
        "def is_ascii(u):",
        "\ttry:",
        "\t\tu.encode(\"ascii\")",
        "\t\treturn True",
        "\texcept UnicodeEncodeError:",
        "\t\treturn False",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let one = "a.py\n<<<<<<< SEARCH\nreturn False\n=======\nreturn False\n\texcept ValueError:\n\t\treturn False\n>>>>>>> REPLACE\n";
    let v = refused(&r, one);
    assert_ne!(v["files"][0]["hunks"][0]["status"], "applied", "{v}");
    let file = text(&[
        "const a = require('a')",
        "",
        "const inc = () => {",
        "  if (x) {",
        "    return 1",
        "  }",
        "}",
    ]);
    let r = TestRepo::with(&[("inc.js", &file)]);
    let block = "inc.js\n<<<<<<< SEARCH\nconst a = require('a')\n\nconst inc = () => {\nif (x) {\n=======\nconst a = require('a')\nconst b = require('b')\n\nconst inc = () => {\nif (x) {\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    assert_eq!(
        r.read_str("inc.js"),
        file.replacen(
            "require('a')\n",
            "require('a')\nconst b = require('b')\n",
            1
        )
    );
}

/// The same two readings in a SEARCH/REPLACE block, whose REPLACE repeats the stripped
/// SEARCH lines around the one it adds: the repeated lines are the file's own (kept as the
/// file has them), so they say nothing of how deep the added line goes.
#[test]
fn a_replace_line_as_deep_as_the_file_between_stripped_search_lines_is_refused() {
    let file = text(&[
        "def bypass(url):",
        "    if url:",
        "        # check the host",
        "        host = url.strip()",
        "        return host",
    ]);
    let r = TestRepo::with(&[("u.py", &file)]);
    let block = |added: &str| {
        format!(
            "u.py\n<<<<<<< SEARCH\n# check the host\nhost = url.strip()\n=======\n# check the host\n{added}\nhost = url.strip()\n>>>>>>> REPLACE\n"
        )
    };
    let v = refused(&r, &block("        log(\"x\")"));
    let hunk = &v["files"][0]["hunks"][0];
    assert_ne!(hunk["status"], "applied", "{hunk}");
    r.apply(&[], &block("log(\"x\")")).code(0);
    assert_eq!(
        r.read_str("u.py"),
        text(&[
            "def bypass(url):",
            "    if url:",
            "        # check the host",
            "        log(\"x\")",
            "        host = url.strip()",
            "        return host",
        ])
    );
}

/// A Codex patch (hunks in file order) whose first hunk has only braces for context, which
/// fit once, below the place of the second hunk: its lines do not say where it goes, and
/// the place they fit contradicts the patch's order, so it is refused.
#[test]
fn a_codex_hunk_of_braces_alone_that_lands_against_the_patch_s_order_is_refused() {
    let file = text(&[
        "fn probe() {",
        "    let a = 1;",
        "}",
        "",
        "fn main() {",
        "    if ready {",
        "        go();",
        "    }",
        "}",
    ]);
    let r = TestRepo::with(&[("f.rs", &file)]);
    let patch = "*** Begin Patch\n*** Update File: f.rs\n@@\n     }\n+    done();\n }\n@@\n fn probe() {\n-    let a = 1;\n+    let a = 2;\n }\n*** End Patch\n";
    let v = refused_because(&r, patch, "against the patch's order");
    assert_eq!(v["files"][0]["hunks"][1]["status"], "applied");
}

/// The same with an added line at column 0 before a line that stays there: the indented
/// context lost its indentation, which no shift of the whole hunk explains when a line at
/// column 0 kept its place, so the added line may be right at column 0 or belong with the
/// stripped lines above it. Refused.
#[test]
fn an_added_line_at_column_0_between_stripped_context_and_a_line_at_column_0_is_refused() {
    let file = text(&[
        "def setup():",
        "    first = 1",
        "    second = 2",
        "done = 3",
    ]);
    let r = TestRepo::with(&[("s.py", &file)]);
    let patch =
        "--- a/s.py\n+++ b/s.py\n@@ -2,3 +2,4 @@\n first = 1\n second = 2\n+extra = 0\n done = 3\n";
    let v = refused(&r, patch);
    assert_ne!(v["files"][0]["hunks"][0]["status"], "applied");
}

/// A hunk with context before its addition only, whose added lines are already right after
/// that context: the file reads the same whether the hunk is applied already or adds the
/// lines a second time (fuzz seed 70760, a Codex patch that repeats an `else` branch).
/// Refused, naming both readings; with a context line after the addition it applies.
#[test]
fn added_lines_already_after_a_hunk_s_only_context_are_refused_as_two_readings() {
    let file = text(&[
        "fn f(s: &mut String) {",
        "    if s.starts_with('x') {",
        "        s.clear();",
        "    } else {",
        "        s.push('y');",
        "    }",
        "}",
    ]);
    let r = TestRepo::with(&[("f.rs", &file)]);
    let patch = "*** Begin Patch\n*** Update File: f.rs\n@@ fn f(s: &mut String) {\n         s.clear();\n+    } else {\n+        s.push('y');\n*** End Patch\n";
    let v = refused(&r, patch);
    let hunk = &v["files"][0]["hunks"][0];
    assert_eq!(hunk["status"], "not-found", "{hunk}");
    let reason = hunk["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("already applied") && reason.contains("a second time"),
        "{hunk}"
    );
    // The advice is the refusal's own, not to copy lines the hunk already has right.
    assert_eq!(
        hunk["diagnostic"]["advice"],
        "resend it with a context line after the addition to say which",
        "{hunk}"
    );
    // With the line after the addition, it is one reading: the lines go in a second time.
    let whole = "*** Begin Patch\n*** Update File: f.rs\n@@ fn f(s: &mut String) {\n         s.clear();\n+    } else {\n+        s.push('y');\n     } else {\n*** End Patch\n";
    r.apply(&[], whole).code(0);
    assert_eq!(
        r.read_str("f.rs"),
        text(&[
            "fn f(s: &mut String) {",
            "    if s.starts_with('x') {",
            "        s.clear();",
            "    } else {",
            "        s.push('y');",
            "    } else {",
            "        s.push('y');",
            "    }",
            "}",
        ])
    );
}

/// A hunk of closing braces alone, one of its lines lost (the body is short of its header),
/// fits contiguously only with its braces at other depths: that says nothing of its place,
/// and the addition would go inside the wrong block (fuzz seed 56100). Refused; where the
/// braces are whole it applies.
#[test]
fn braces_alone_that_fit_only_at_other_depths_do_not_place_a_hunk() {
    let file = text(&[
        "function d(a) {",
        "  for (const k in a) {",
        "    if (k) {",
        "      if (a[k]) {",
        "        return k",
        "      }",
        "    }",
        "  }",
        "  return null",
        "}",
    ]);
    let r = TestRepo::with(&[("d.js", &file)]);
    let patch = "--- a/d.js\n+++ b/d.js\n@@ -7,4 +7,5 @@\n     }\n   }\n+  log()\n }\n";
    let v = refused(&r, patch);
    assert_ne!(v["files"][0]["hunks"][0]["status"], "applied", "{v}");
    let whole =
        "--- a/d.js\n+++ b/d.js\n@@ -7,4 +7,5 @@\n     }\n   }\n+  log()\n   return null\n }\n";
    r.apply(&[], whole).code(0);
    assert_eq!(
        r.read_str("d.js"),
        file.replace("  }\n  return null", "  }\n  log()\n  return null")
    );
}

/// In a Codex patch, a hunk whose lines fit inside the block its anchor opens, above the
/// hunk before it, and again below that hunk: the anchor says one place, the patch's order
/// the other (fuzz seed 71667, where a copied block ended the anchor's class early). Refused,
/// not applied out of order.
#[test]
fn a_codex_anchor_that_points_above_the_previous_hunk_against_a_fit_below_it_does_not_decide() {
    let file = text(&[
        "class Help {",
        "  run() {",
        "    x();",
        "    y();",
        "  }",
        "}",
        "",
        "function g() {",
        "  one();",
        "}",
        "",
        "function k() {",
        "    x();",
        "    y();",
        "  }",
    ]);
    let r = TestRepo::with(&[("f.js", &file)]);
    let patch = "*** Begin Patch\n*** Update File: f.js\n@@\n function g() {\n-  one();\n+  two();\n }\n@@ class Help {\n     x();\n-    y();\n+    z();\n   }\n*** End Patch\n";
    let v = refused(&r, patch);
    assert_eq!(v["files"][0]["hunks"][1]["status"], "ambiguous", "{v}");
}

/// A hunk short of its header that adds a blank line, whose new side the file has: the line
/// it lost may be the blank line that shows the addition is not made (fuzz seed 55658, one
/// of two blank lines dropped from the context). A blank line says too little to call the
/// hunk already applied: refused, not passed over with exit 0.
#[test]
fn a_short_hunk_adding_a_blank_line_the_file_seems_to_have_is_not_called_already_applied() {
    let file = after_notes(
        21,
        &[
            "import os",
            "",
            "def _probe():",
            "    try:",
            "        os.link(first, second)",
            "        return True",
            "    except OSError:",
            "        return False",
            "",
            "",
            "probed = _probe()",
        ],
    );
    let r = TestRepo::with(&[("c.py", &file)]);
    // Numbers from before 21 lines came in at the top.
    let patch = "--- a/c.py\n+++ b/c.py\n@@ -8,4 +8,5 @@ def _probe():\n         return False\n \n+\n probed = _probe()\n";
    refused_because(&r, patch, "already at line 29");
    // With its lost line back, it is not applied yet, and applies.
    let whole = "--- a/c.py\n+++ b/c.py\n@@ -8,4 +8,5 @@ def _probe():\n         return False\n \n \n+\n probed = _probe()\n";
    r.apply(&[], whole).code(0);
    assert_eq!(
        r.read_str("c.py"),
        file.replace("False\n\n\nprobed", "False\n\n\n\nprobed")
    );
}

/// Numbers that point at one of several fits are off when the hunk's `@@` heading is only
/// below that fit: git writes the heading found above a hunk (fuzz seed 55708, a blank line
/// removed inside a class, numbers from before lines came in at the top). Refused.
#[test]
fn numbers_pointing_above_the_hunk_s_heading_do_not_decide() {
    let file = after_notes(
        12,
        &[
            "def a():",
            "    return 1",
            "",
            "",
            "# --",
            "def b():",
            "    return 2",
            "",
            "",
            "# --",
            "class Wrapper(Base):",
            "    def close(self):",
            "        pass",
            "",
            "",
            "# --",
            "    def flush(self):",
            "        pass",
        ],
    );
    let r = TestRepo::with(&[("w.py", &file)]);
    let patch = "--- a/w.py\n+++ b/w.py\n@@ -15,3 +15,2 @@ class Wrapper(Base):\n \n-\n # --\n";
    let v = refused(&r, patch);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    // Numbers that point under the heading place it.
    let under = "--- a/w.py\n+++ b/w.py\n@@ -26,3 +26,2 @@ class Wrapper(Base):\n \n-\n # --\n";
    r.apply(&[], under).code(0);
    assert_eq!(
        r.read_str("w.py"),
        file.replace(
            "pass\n\n\n# --\n    def flush",
            "pass\n\n# --\n    def flush"
        )
    );
}

/// Braces and blank lines alone that fit in several places only with their indentation
/// changed: no pass may pick among them, not the numbers nor a looser pass (fuzz seed 60942,
/// a `}` written at another depth). Refused as ambiguous; written as the file has them, the
/// numbers pick the place.
#[test]
fn braces_at_other_depths_in_several_places_are_ambiguous_whatever_the_numbers_say() {
    let file: String = (0..6)
        .map(|i| format!("function f{i}(a) {{\n  if (a) {{\n    go({i})\n  }}\n}}\n\n"))
        .collect();
    let r = TestRepo::with(&[("r.js", &file)]);
    let damaged = "--- a/r.js\n+++ b/r.js\n@@ -4,3 +4,3 @@\n }\n-}\n+};\n \n";
    let v = refused(&r, damaged);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    let exact = "--- a/r.js\n+++ b/r.js\n@@ -4,3 +4,3 @@\n   }\n-}\n+};\n \n";
    r.apply(&[], exact).code(0);
    assert_eq!(
        r.read_str("r.js"),
        file.replacen("go(0)\n  }\n}\n", "go(0)\n  }\n};\n", 1)
    );
}

/// A hunk short of its header whose remaining old lines say nothing (a lone ` *` of a doc
/// comment) is placed by its numbers alone, and the lost line moves its start off them by an
/// unknown amount: refused (fuzz seed 52920, numbers stale as well). With the line back, the
/// hunk's own lines place it.
#[test]
fn a_short_hunk_of_trivial_lines_is_not_placed_by_its_numbers_alone() {
    let file: String = (0..5)
        .map(|i| {
            format!(
                "/**\n * Describe f{i}.\n *\n * @returns {{number}}\n */\nfunction f{i}() {{\n  return {i};\n}}\n\n"
            )
        })
        .collect();
    let r = TestRepo::with(&[("d.js", &file)]);
    let short = "--- a/d.js\n+++ b/d.js\n@@ -12,2 +12,3 @@\n+ * Note.\n  *\n";
    let v = refused(&r, short);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous", "{v}");
    let whole = "--- a/d.js\n+++ b/d.js\n@@ -11,2 +11,3 @@\n  * Describe f1.\n+ * Note.\n  *\n";
    r.apply(&[], whole).code(0);
    assert_eq!(
        r.read_str("d.js"),
        file.replace(" * Describe f1.\n", " * Describe f1.\n * Note.\n")
    );
}

/// A Codex hunk's lines are looked for after its `@@` anchor, as Codex does: a fit above the
/// anchor's line is not the hunk's, however exact (fuzz seed 72282: a blank line and `/**`
/// above the class the anchor names). Here what is left below the anchor says too little,
/// so the hunk is refused rather than put above the class.
#[test]
fn a_codex_hunk_does_not_fit_above_its_anchor() {
    let file = "const x = require('x');\n\n/**\n * top doc\n */\nclass Help {\n  a() {}\n\n  /**\n   * doc\n   */\n  b() {}\n}\n";
    let r = TestRepo::with(&[("h.js", file)]);
    let patch = "*** Begin Patch\n*** Update File: h.js\n@@ class Help {\n \n+  c() {}\n /**\n*** End Patch\n";
    let v = refused(&r, patch);
    assert_ne!(v["files"][0]["hunks"][0]["status"], "applied", "{v}");
    // Written as the class has them, the lines below the anchor place it.
    let exact = "*** Begin Patch\n*** Update File: h.js\n@@ class Help {\n \n+  c() {}\n   /**\n*** End Patch\n";
    r.apply(&[], exact).code(0);
    assert_eq!(
        r.read_str("h.js"),
        file.replace("  a() {}\n\n  /**", "  a() {}\n\n  c() {}\n  /**")
    );
}

/// Two removed lines next to each other in the hunk are next to each other in the file when
/// the file has them so: the fuzzy pass must not pair the second with a look-alike a few
/// lines on, as if the patch had dropped context between them (picomatch's index.js: an
/// elided hunk removed the blank line below `/*global navigator*/`, and the blank line after
/// `'use strict';` went instead).
#[test]
fn removed_lines_together_in_the_hunk_are_removed_together_from_the_file() {
    let file = text(&[
        "/*global navigator*/",
        "",
        "'use strict';",
        "",
        "const pico = require('./lib/picomatch');",
        "",
        "const isWindows = () => {",
        "  return process.platform === 'win32';",
        "};",
        "",
        "function picomatch(glob, options) {",
        "  return pico(glob, { ...options, windows: isWindows() });",
        "}",
    ]);
    let r = TestRepo::with(&[("index.js", &file)]);
    let patch = "--- a/index.js\n+++ b/index.js\n@@ -1,13 +1,8 @@\n-/*global navigator*/\n-\n // ...\n-\n-const isWindows = () => {\n-  return process.platform === 'win32';\n-};\n+const utils = require('./lib/utils');\n \n function picomatch(glob, options) {\n-  return pico(glob, { ...options, windows: isWindows() });\n+  return pico(glob, { ...options, windows: utils.isWindows() });\n }\n";
    r.apply(&[], patch).code(0);
    assert_eq!(
        r.read_str("index.js"),
        text(&[
            "'use strict';",
            "",
            "const pico = require('./lib/picomatch');",
            "const utils = require('./lib/utils');",
            "",
            "function picomatch(glob, options) {",
            "  return pico(glob, { ...options, windows: utils.isWindows() });",
            "}",
        ])
    );
}

/// Two blank lines in the file where the hunk shows one, with lines added next to it: the
/// hunk's blank line is either of the two, so the added lines go above the other or below
/// it, and nothing says which (fuzz seeds 911073 and 911160 put them on the wrong side).
/// Refused; with both blank lines shown, the hunk applies.
#[test]
fn an_insertion_beside_one_of_two_blank_lines_is_refused() {
    let file = text(&[
        "def check():",
        "    try:",
        "        link()",
        "        return True",
        "    except OSError:",
        "        return False",
        "",
        "",
        "supported = check()",
    ]);
    let r = TestRepo::with(&[("conftest.py", &file)]);
    let one = "--- a/conftest.py\n+++ b/conftest.py\n@@ -5,4 +5,5 @@ def check():\n     except OSError:\n         return False\n+pass\n \n supported = check()\n";
    let v = refused(&r, one);
    assert_ne!(v["files"][0]["hunks"][0]["status"], "applied", "{v}");
    let both = "--- a/conftest.py\n+++ b/conftest.py\n@@ -5,5 +5,6 @@ def check():\n     except OSError:\n         return False\n \n+pass\n \n supported = check()\n";
    r.apply(&[], both).code(0);
    assert_eq!(
        r.read_str("conftest.py"),
        file.replace("False\n\n\n", "False\n\npass\n\n")
    );
}

/// An insertion that is the hunk's first change, followed by context and then another
/// change, where the file has a line the hunk lacks between the insertion's neighbours: that
/// line is either leading context the patch dropped (the added line goes below it) or a line
/// dropped from the context between the two changes (the added line goes above it). The
/// leading context's being short does not tell which (fuzz seed 921288 dropped the inner
/// line; picomatch's parse.js, the leading one), so the hunk is refused.
#[test]
fn a_line_missing_beside_an_insertion_before_inner_context_is_refused() {
    let file = text(&[
        "const parse = (tok, prev) => {",
        "",
        "    if (tok.value) append(tok);",
        "    if (prev && prev.type === 'text') {",
        "      prev.value += tok.value;",
        "      prev.output = (prev.output || '') + tok.value;",
        "      return;",
        "    }",
        "",
        "};",
    ]);
    let r = TestRepo::with(&[("parse.js", &file)]);
    let patch = "--- a/parse.js\n+++ b/parse.js\n@@ -2,7 +2,7 @@ const parse = (tok, prev) => {\n \n     if (tok.value) append(tok);\n+      prev.output = (prev.output || prev.value) + tok.value;\n       prev.value += tok.value;\n-      prev.output = (prev.output || '') + tok.value;\n       return;\n     }\n \n";
    let v = refused(&r, patch);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "not-found", "{v}");
}

/// A deletion's new side is lines it keeps, there whether or not it was applied: with a line
/// it removes still standing right below them (the hunk having lost the `}` between), it is
/// not "already applied" but refused, in a unified diff and in a SEARCH/REPLACE block (fuzz
/// seed 950740). Once the line is gone, the same hunk is already applied.
#[test]
fn a_deletion_whose_removed_line_still_stands_there_is_not_already_applied() {
    let file = text(&[
        "const cmp = (a, op, b) => {",
        "  switch (op) {",
        "    default:",
        "      throw new TypeError(`Invalid operator: ${op}`)",
        "  }",
        "}",
        "module.exports = cmp",
    ]);
    let r = TestRepo::with(&[("cmp.js", &file)]);
    let unified = "--- a/cmp.js\n+++ b/cmp.js\n@@ -4,3 +4,2 @@\n       throw new TypeError(`Invalid operator: ${op}`)\n   }\n-module.exports = cmp\n";
    let v = refused(&r, unified);
    let reason = v["files"][0]["hunks"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("whether it is already made is uncertain"),
        "{v}"
    );
    // A SEARCH is looked for whole, so nothing fits it: the removed line standing right
    // below the kept ones is what says the change is not made.
    let block = "cmp.js\n<<<<<<< SEARCH\n      throw new TypeError(`Invalid operator: ${op}`)\n  }\nmodule.exports = cmp\n=======\n      throw new TypeError(`Invalid operator: ${op}`)\n  }\n>>>>>>> REPLACE\n";
    let v = refused(&r, block);
    let reason = v["files"][0]["hunks"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains("a line it removes is still there, at line 7"),
        "{v}"
    );
    // Applied: the removed line is nowhere near.
    let r = TestRepo::with(&[("cmp.js", &file.replace("module.exports = cmp\n", ""))]);
    let (run, v) = r.apply_json(&[], unified);
    run.code(0);
    assert_eq!(v["files"][0]["status"], "already-applied", "{v}");
}

/// A SEARCH/REPLACE block that keeps its SEARCH's lines and adds a `}` adds a brace: its new
/// side, found only with that brace matched by one at another depth, is no sign that it is
/// already applied (fuzz seed 950764, the SEARCH having lost a `}` as well). Refused, where it
/// was called already applied with exit 0.
#[test]
fn a_block_that_adds_a_brace_is_not_already_applied_by_a_brace_at_another_depth() {
    let file = text(&[
        "fn f(y: &[u32]) {",
        "    if !y.is_empty() {",
        "        for x in y {",
        "            run(*x);",
        "        }",
        "    }",
        "",
        "    done();",
        "}",
    ]);
    let r = TestRepo::with(&[("f.rs", &file)]);
    let block = "f.rs\n<<<<<<< SEARCH\n            run(*x);\n        }\n\n    done();\n=======\n            run(*x);\n        }\n        }\n\n    done();\n>>>>>>> REPLACE\n";
    let v = refused(&r, block);
    assert_ne!(
        v["files"][0]["hunks"][0]["status"], "already-applied",
        "{v}"
    );
}

/// A context line with a name "misremembered" that is one of the file's own names: not a
/// slip but another function the file has (a review of the misremembered-line rule). The
/// hunk names `test_loads`, whose changed line has moved on in the file (`== 20`); read as
/// `test_load` with a letter too many, the hunk landed in `test_load`, a function it does
/// not name. Refused, as before that rule.
#[test]
fn a_sibling_the_file_has_is_not_a_misremembered_name() {
    let file = text(&[
        "import json",
        "",
        "SRC = '{\"b\": 2, \"c\": 3, \"d\": 4}'",
        "",
        "",
        "def test_load():",
        "    data = json.load(SRC)",
        "    assert data[\"b\"] == 2",
        "    assert data[\"c\"] == 3",
        "    assert data[\"d\"] == 4",
        "",
        "",
        "def test_loads():",
        "    data = json.loads(SRC)",
        "    assert data[\"b\"] == 20",
        "    assert data[\"c\"] == 3",
        "    assert data[\"d\"] == 4",
    ]);
    let r = TestRepo::with(&[("test_json.py", &file)]);
    let patch = "--- a/test_json.py\n+++ b/test_json.py\n@@ -13,5 +13,5 @@\n def test_loads():\n     data = json.loads(SRC)\n-    assert data[\"b\"] == 2\n+    assert data[\"b\"] == 200\n     assert data[\"c\"] == 3\n     assert data[\"d\"] == 4\n";
    refused(&r, patch);
    refused(&r, &patch.replace("@@ -13,5 +13,5 @@", "@@ @@"));
}

/// Two functions the same but for a plural in their names, the hunk's context naming the
/// second (`parse_items`) with two of its lines drifted: read as `parse_item` misremembered,
/// the first fit as well and the numbers chose it. The name is the file's own, so only the
/// second fits, as before that rule.
#[test]
fn a_plural_sibling_the_file_has_does_not_draw_the_edit() {
    let body = [
        "    let t = x.trim();",
        "    let s = t.to_string();",
        "    let v = t.len();",
        "    log(v);",
        "    check(v);",
        "    Item::new(v)",
        "}",
    ];
    let mut lines = vec!["fn parse_item(x: &str) -> Item {"];
    lines.extend(body);
    lines.push("");
    lines.push("fn parse_items(x: &str) -> Item {");
    lines.extend(body);
    let file = text(&lines);
    let r = TestRepo::with(&[("src/lib.rs", &file)]);
    let patch = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -4,7 +4,7 @@\n fn parse_items(x: &str) -> Item {\n     let t = x.trim_end();\n     let s = t.to_owned();\n-    let v = t.len();\n+    let v = t.chars().count();\n     log(v);\n     check(v);\n     Item::new(v)\n";
    let (run, _) = r.apply_json(&[], patch);
    run.code(0);
    let second = file.rfind("    let v = t.len();").expect("the second copy");
    let mut want = file.clone();
    want.replace_range(
        second..second + "    let v = t.len();".len(),
        "    let v = t.chars().count();",
    );
    assert_eq!(r.read_str("src/lib.rs"), want);
}

/// A change of whitespace within lines is no change under the passes that fold it: where the
/// old side is not found as written (here a SEARCH with an elision), its new side found under such a
/// pass is there whether or not the change was made, and is no sign that it was. Before, the
/// block read as already applied: exit 0, nothing written (alt set q, camino-1c322ef4: a doc
/// comment re-indented, its SEARCH with a `...` for two lines). Now the elided SEARCH is
/// placed by its parts and applied.
#[test]
fn a_whitespace_only_change_is_not_read_as_already_applied() {
    let file = text(&[
        "impl Path {",
        "    /// Whether the path is absolute.",
        "    ///",
        "    /// * On Unix, a path is absolute if it starts with the root, so",
        "    /// `is_absolute` and `has_root` are equivalent.",
        "    ///",
        "    /// * On Windows, a path is absolute if it has a prefix and starts with the",
        "    /// root: `c:\\windows` is absolute, while `c:temp` is not.",
        "    ///",
        "    /// # Examples",
        "    pub fn is_absolute(&self) -> bool {",
        "        self.0.is_absolute()",
        "    }",
        "}",
    ]);
    let want = file
        .replace("    /// `is_absolute`", "    ///   `is_absolute`")
        .replace("    /// root:", "    ///   root:");
    let replace = "=======\n    /// * On Unix, a path is absolute if it starts with the root, so\n    ///   `is_absolute` and `has_root` are equivalent.\n    ///\n    /// * On Windows, a path is absolute if it has a prefix and starts with the\n    ///   root: `c:\\windows` is absolute, while `c:temp` is not.\n    ///\n    /// # Examples\n>>>>>>> REPLACE\n";
    let elided = "path.rs\n<<<<<<< SEARCH\n    /// * On Unix, a path is absolute if it starts with the root, so\n    /// `is_absolute` and `has_root` are equivalent.\n...\n    /// root: `c:\\windows` is absolute, while `c:temp` is not.\n    ///\n    /// # Examples\n";
    let r = TestRepo::with(&[("path.rs", &file)]);
    r.apply(&[], &format!("{elided}{replace}")).code(0);
    assert_eq!(r.read_str("path.rs"), want);
}

/// A JavaScript spread (`...options,`) read as an elision line: the hunk lost the context line
/// after its added lines (`cwd: ...`), and the "elision" was taken to stand for the spread and
/// that line, so the added lines went after `cwd` instead of after the spread (alt set s,
/// globby-fc757b2f-missing-context, exit 0). `...name` outside a comment is code; the hunk is
/// refused, since which side of the lost line the additions go is not said.
#[test]
fn a_spread_is_no_elision_line() {
    let file = text(&[
        "const normalize = (options = {}) => {",
        "\toptions = {",
        "\t\tignore: [],",
        "\t\t...options,",
        "\t\tcwd: toPath(options.cwd),",
        "\t};",
        "",
        "\treturn options;",
        "};",
    ]);
    let r = TestRepo::with(&[("index.js", &file)]);
    let patch = "--- a/index.js\n+++ b/index.js\n@@ -1,6 +1,6 @@\n const normalize = (options = {}) => {\n \toptions = {\n-\t\tignore: [],\n \t\t...options,\n+\t\tignore: options.ignore || [],\n \t};\n \n";
    refused(&r, patch);
}

/// A bare `...` elision line whose stretch of the file holds a `...` line of its own (a
/// Python stub): the `...` may be that line, with the line after it lost from the hunk, and
/// the added line would then go after the lost line instead of before it. Refused.
#[test]
fn an_elision_line_the_file_has_where_it_stands_is_refused() {
    let file = text(&["def f():", "    ...", "    return 1", "", "x = 1"]);
    let r = TestRepo::with(&[("m.py", &file)]);
    let patch =
        "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,5 @@\n def f():\n     ...\n+    log()\n \n x = 1\n";
    refused(&r, patch);
}

/// A comment the file has that reads as an elision line (`// …`), beside a real one: where
/// the stretch it would stand for is that comment alone, both readings agree, and the hunk
/// applies (alt set n, type-fest-49b99d31-elided-context).
#[test]
fn an_elision_like_comment_standing_for_itself_alone_still_applies() {
    let file = text(&[
        "function bundle(output) {",
        "\tconst outputList = [output];",
        "",
        "\t// …",
        "",
        "\tfor (const o of outputList) {",
        "\t  console.log(o);",
        "\t}",
        "}",
        "// a",
        "// b",
        "// c",
        "// d",
        "// e",
        "// f",
        "// g",
        "export type A<T> = T | T[];",
    ]);
    let r = TestRepo::with(&[("a.ts", &file)]);
    let patch = "--- a/a.ts\n+++ b/a.ts\n@@ -2,16 +2,16 @@\n \tconst outputList = [output];\n \n \t// …\n \n \tfor (const o of outputList) {\n-\t  console.log(o);\n+\t\tconsole.log(o);\n \t// ... unchanged ...\n-export type A<T> = T | T[];\n+export type A<T> = T;\n";
    r.apply(&[], patch).code(0);
    assert_eq!(
        r.read_str("a.ts"),
        file.replace("\t  console.log(o);", "\t\tconsole.log(o);")
            .replace("T | T[];", "T;")
    );
}

/// An elision that reads on as words (`...rest unchanged`) is an elision, dots right before
/// the first word or not: the hunk applies as 1c730aa had refused it (a helper's review).
#[test]
fn an_elision_of_words_without_a_space_after_its_dots_still_applies() {
    let file = text(&[
        "function f(a) {",
        "  const x = 1;",
        "  const y = 2;",
        "  const z = 3;",
        "  return x + y + z;",
        "}",
    ]);
    let r = TestRepo::with(&[("a.js", &file)]);
    let patch = "--- a/a.js\n+++ b/a.js\n@@ -1,6 +1,7 @@\n function f(a) {\n   const x = 1;\n+  console.log(a);\n   ...rest unchanged\n   return x + y + z;\n }\n";
    r.apply(&[], patch).code(0);
    assert_eq!(
        r.read_str("a.js"),
        file.replace("  const x = 1;\n", "  const x = 1;\n  console.log(a);\n")
    );
}

/// A hunk whose `...` is a Python stub's own line, fitting as written but short of the line
/// its header counts, is refused for that shortfall: the elision reading (the `...` standing
/// for itself alone) adds nothing and may not place it (a helper's review: exit 0, `x = 1`
/// after `return 1`, where the lost line could be `def g():`).
#[test]
fn an_elision_standing_for_itself_alone_does_not_override_the_hunks_refusal() {
    let file = text(&[
        "def f():",
        "    ...",
        "    return 1",
        "def g():",
        "    pass",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let patch =
        "--- a/a.py\n+++ b/a.py\n@@ -1,4 +1,5 @@\n def f():\n     ...\n     return 1\n+    x = 1\n";
    refused(&r, patch);
}

/// The file around a Python stub (`...`) with a line after it that the SEARCH/REPLACE block
/// below lost.
fn stub_with_a_line_after_it() -> String {
    text(&[
        "import os",
        "",
        "",
        "def f():",
        "    ...",
        "    lost()",
        "",
        "",
        "def g():",
        "    pass",
    ])
}

/// A SEARCH/REPLACE block with `...` on both sides is split into pieces at it. Where the
/// file has that `...` as a line among those it would stand for, beside a line the block
/// lacks, it may be that stub, with the line lost: which side of it `added()` goes is not
/// said. Applied, it went after `lost()` (exit 0) where the block's writer may have meant it
/// before. As a unified hunk it was refused already; as pieces it is now refused too, even
/// with the piece before the `...` dropped for changing nothing.
#[test]
fn a_split_search_replace_block_whose_elision_is_a_stub_is_refused() {
    let r = TestRepo::with(&[("a.py", &stub_with_a_line_after_it())]);
    let block = "a.py\n<<<<<<< SEARCH\ndef f():\n    ...\n\ndef g():\n=======\ndef f():\n    ...\n    added()\n\ndef g():\n>>>>>>> REPLACE\n";
    refused_because(&r, block, "may be that line of code");
    // Both pieces changed: the piece after the stub is the one refused.
    let block = "a.py\n<<<<<<< SEARCH\ndef f():\n    ...\n\ndef g():\n=======\ndef f(x):\n    ...\n    added()\n\ndef g():\n>>>>>>> REPLACE\n";
    let v = refused(&r, block);
    assert!(v.to_string().contains("may be that line of code"), "{v}");
}

/// The converse: where the stretch the block's `...` stands for holds no such line, or is
/// that line alone, the pieces apply.
#[test]
fn a_split_search_replace_block_applies_where_its_elision_is_no_stub() {
    let file = text(&[
        "def f():",
        "    a = 1",
        "    b = 2",
        "",
        "",
        "def g():",
        "    pass",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\ndef f():\n    ...\n\ndef g():\n=======\ndef f():\n    ...\n    added()\n\ndef g():\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    assert_eq!(
        r.read_str("a.py"),
        file.replace("\n\n\ndef g", "\n\n    added()\n\ndef g")
    );
    // The block as written fits a file with the stub: `...` stands for itself alone.
    let stub = text(&["def f():", "    ...", "", "def g():", "    pass"]);
    let r = TestRepo::with(&[("a.py", &stub)]);
    r.apply(&[], block).code(0);
    assert_eq!(
        r.read_str("a.py"),
        stub.replace("    ...\n", "    ...\n    added()\n")
    );
}

/// A SEARCH-only `...` stands for the lines of the file between its parts, which the REPLACE
/// text, written out, replaces. Where those lines hold that `...` as a stub beside a line
/// the SEARCH lacks, filling the stub in would delete `lost()` (exit 0): refused.
#[test]
fn a_search_only_elision_that_is_a_stub_with_a_lost_line_is_refused() {
    let r = TestRepo::with(&[("a.py", &stub_with_a_line_after_it())]);
    let block = "a.py\n<<<<<<< SEARCH\ndef f():\n    ...\n\ndef g():\n=======\ndef f():\n    return 1\n\n\ndef g():\n>>>>>>> REPLACE\n";
    refused_because(&r, block, "may be that line of code");
}

/// The same block after one that changes `def g():` as well: the two overlap. The block's
/// parts are placed around its elision or not at all, never one by one in a text that changes
/// as they are placed (a part went after `lost()`, exit 0).
#[test]
fn a_split_block_overlapping_another_is_refused_whole() {
    let r = TestRepo::with(&[("a.py", &stub_with_a_line_after_it())]);
    let blocks = "a.py\n<<<<<<< SEARCH\ndef g():\n    pass\n=======\ndef g():\n    return 2\n>>>>>>> REPLACE\n\na.py\n<<<<<<< SEARCH\ndef f():\n    ...\n\ndef g():\n=======\ndef f():\n    ...\n    added()\n\ndef g():\n>>>>>>> REPLACE\n";
    let v = refused(&r, blocks);
    assert!(v.to_string().contains("overlaps another hunk"), "{v}");
}

/// The pieces of a block split at its `...` say which comes first. Found the other way round
/// in the file, the block does not describe it: refused (it applied, with a warning).
#[test]
fn a_split_block_whose_pieces_the_file_has_out_of_order_is_refused() {
    let r = TestRepo::with(&[("a.rs", &text(&["fn b() {}", "", "fn a() {}"]))]);
    let block = "a.rs\n<<<<<<< SEARCH\nfn a() {}\n...\nfn b() {}\n=======\nfn a() { 1 }\n...\nfn b() { 2 }\n>>>>>>> REPLACE\n";
    let v = refused(&r, block);
    assert!(
        v.to_string()
            .contains("not in one place after the part before"),
        "{v}"
    );
}

/// A piece of a split block that changes nothing still says where the others go: the block
/// below changes `g`'s `return None`, which `f` has too. Dropped as changing nothing, `def
/// g():` left the change to whichever `return None` it found: `f`'s, where `g`'s differs
/// (exit 0, a helper's review), or neither, where both are alike. Now the pieces are placed
/// in order, the unchanged one first.
#[test]
fn a_split_blocks_unchanged_piece_says_where_the_changed_one_goes() {
    let file = text(&[
        "def f():",
        "    x = compute()",
        "    return None",
        "",
        "",
        "def g():",
        "    x = compute()",
        "    return None",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\ndef g():\n    ...\n    return None\n=======\ndef g():\n    ...\n    return 0\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    let mut want = file.clone();
    want.replace_range(want.rfind("None").unwrap()..want.len() - 1, "0");
    assert_eq!(r.read_str("a.py"), want);
    // `g`'s line differs: the one after `def g():` is not there, so nothing is changed.
    let file = file.replacen("    return None\n\n", "    return None  # f\n\n", 1);
    let file = file.replace(
        "    x = compute()\n    return None\n",
        "    x = compute()\n    return None  # fallback\n",
    );
    let r = TestRepo::with(&[("a.py", &file)]);
    refused(&r, block);
}

/// An elision line that opens or closes a hunk stands for lines without end; where the file
/// has it as a line a few lines from the hunk's first or last part, with other lines between,
/// it may be that line (a Python stub) with lines of the hunk lost beside it: refused, as a
/// SEARCH/REPLACE block and as a unified hunk (`added()` went after `lost()`, exit 0). Far
/// from it, or right there, both readings agree.
#[test]
fn an_elision_opening_a_hunk_the_file_has_close_by_is_refused() {
    let r = TestRepo::with(&[("a.py", &stub_with_a_line_after_it())]);
    let block = "a.py\n<<<<<<< SEARCH\n    ...\n\ndef g():\n=======\n    ...\n    added()\n\ndef g():\n>>>>>>> REPLACE\n";
    refused_because(&r, block, "may be that line of code");
    let hunk = "--- a/a.py\n+++ b/a.py\n@@ -5,3 +5,4 @@\n     ...\n+    added()\n \n def g():\n";
    refused_because(&r, hunk, "may be that line of code");
    // Closing a hunk: `added()` before the stub, `lost()` between.
    let file = text(&[
        "import os",
        "",
        "",
        "def f():",
        "    lost()",
        "    ...",
        "",
        "",
        "def g():",
        "    pass",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\ndef f():\n    ...\n=======\ndef f():\n    added()\n    ...\n>>>>>>> REPLACE\n";
    refused_because(&r, block, "may be that line of code");
    // No stub close by: the elision stands for the lines above.
    let file = text(&[
        "def f():",
        "    a = 1",
        "    b = 2",
        "    c = 3",
        "    d = 4",
        "",
        "",
        "def g():",
        "    pass",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\n    ...\n\ndef g():\n=======\n    ...\n    added()\n\ndef g():\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    assert_eq!(
        r.read_str("a.py"),
        file.replace("    d = 4\n\n", "    d = 4\n\n    added()\n")
    );
}

/// `def g():` then `    ...` says the elided lines are `g`'s. Where the only `return None`
/// after `def g():` is `f`'s, the stretch the `...` would stand for leaves `g` (a line no
/// deeper than `def g():`): refused (it changed `f`, exit 0, a helper's review), in a block
/// and in a unified hunk alike.
#[test]
fn an_elision_inside_a_block_does_not_reach_into_the_next() {
    let file = text(&[
        "def g():",
        "    x = compute()",
        "    return None  # fallback",
        "",
        "",
        "def f():",
        "    x = compute()",
        "    return None",
    ]);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\ndef g():\n    ...\n    return None\n=======\ndef g():\n    ...\n    return 0\n>>>>>>> REPLACE\n";
    refused_because(&r, block, "leave the block the line before it opens");
    let hunk = "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n def g():\n     ...\n-    return None\n+    return 0\n";
    refused_because(&r, hunk, "leave the block the line before it opens");
}

/// Elision lines a block's REPLACE indents otherwise than its SEARCH (a body wrapped in
/// `try:`) would need the lines they stand for moved too: refused with the reason, where the
/// body kept its indentation under `try:` (exit 0, a helper's review).
#[test]
fn a_block_that_reindents_its_elision_is_refused() {
    let file = text(&["def main():", "    cfg = load()", "    run()"]);
    let r = TestRepo::with(&[("m.py", &file)]);
    let before = r.state();
    let block = "m.py\n<<<<<<< SEARCH\ndef main():\n    # ... existing code ...\n    run()\n=======\ndef main():\n    try:\n        # ... existing code ...\n        run()\n    except Exception:\n        log()\n>>>>>>> REPLACE\n";
    r.apply(&[], block)
        .code(2)
        .out_contains("REPLACE indents the elision line");
    assert_eq!(r.state(), before);
}

/// Parts after a block's last change write nothing: a `}` after `// ... existing code ...`
/// that several places after the change fit, or a blank line before the divider, does not
/// refuse the block (both did at bedaeda, a helper's review).
#[test]
fn parts_after_the_last_change_need_not_fit_in_one_place() {
    let file = text(&[
        "function foo() {",
        "  const a = 1;",
        "  b();",
        "  c();",
        "  d();",
        "  e();",
        "  f();",
        "  g();",
        "}",
        "",
        "function bar() {",
        "  h();",
        "}",
    ]);
    let r = TestRepo::with(&[("a.js", &file)]);
    let block = "a.js\n<<<<<<< SEARCH\nfunction foo() {\n  const a = 1;\n  // ... existing code ...\n}\n=======\nfunction foo() {\n  const a = 2;\n  // ... existing code ...\n}\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    assert_eq!(r.read_str("a.js"), file.replace("a = 1", "a = 2"));
    let mut lines = vec!["def f():", "    x = 1"];
    lines.extend(["    y = 2"; 15]);
    lines.extend(["    return x", "", "", "def g():", "    pass"]);
    let file = text(&lines);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\ndef f():\n    x = 1\n    ...\n\n=======\ndef f():\n    x = 10\n    ...\n\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    assert_eq!(r.read_str("a.py"), file.replace("x = 1\n", "x = 10\n"));
}

/// Two blocks with elisions in one file are placed apart, each part clear of the other's:
/// the second's parts were not checked against the first's, and the plan failed its own check
/// (a helper's review).
#[test]
fn two_elided_blocks_in_one_file_each_apply() {
    let mut lines = vec!["def f(self):", "    x = 1"];
    lines.extend(["    pass"; 12]);
    lines.push("    y = 2");
    lines.extend(["    pass"; 12]);
    lines.push("    z = 3");
    lines.extend(["    pass"; 12]);
    lines.push("    return x");
    let file = text(&lines);
    let r = TestRepo::with(&[("a.py", &file)]);
    let blocks = "a.py\n<<<<<<< SEARCH\ndef f(self):\n    x = 1\n    ...\n    z = 3\n=======\ndef f(self):\n    x = 10\n    ...\n    z = 3\n>>>>>>> REPLACE\n\na.py\n<<<<<<< SEARCH\n    y = 2\n    ...\n    z = 3\n=======\n    y = 2\n    ...\n    z = 30\n>>>>>>> REPLACE\n";
    r.apply(&[], blocks).code(0);
    assert_eq!(
        r.read_str("a.py"),
        file.replace("x = 1\n", "x = 10\n")
            .replace("z = 3\n", "z = 30\n")
    );
}

/// The converse of [`an_elision_inside_a_block_does_not_reach_into_the_next`]: a part after
/// the elision as shallow as the line before it may follow the block's end (the rest of a
/// function, its `}`, then the next function: alt set s, itertools-939df2eb-elided-context).
/// And a part after `def g():` is found after it even where a look-alike before it is nearer
/// (it was refused as ambiguous).
#[test]
fn an_elision_may_run_to_the_blocks_end_before_a_part_as_shallow() {
    let body: Vec<String> = (0..12).map(|i| format!("    let x{i} = {i};")).collect();
    let mut lines = vec!["pub fn a() -> u32", "{"];
    lines.extend(body.iter().map(String::as_str));
    lines.extend(["    1", "}", "", "pub fn b() -> u32", "{", "    2", "}"]);
    let file = text(&lines);
    let r = TestRepo::with(&[("a.rs", &file)]);
    let hunk = "--- a/a.rs\n+++ b/a.rs\n@@ -1,8 +1,8 @@\n-pub fn a() -> u32\n+pub fn a() -> u64\n {\n     // ... unchanged ...\n-pub fn b() -> u32\n+pub fn b() -> u64\n {\n";
    r.apply(&[], hunk).code(0);
    assert_eq!(r.read_str("a.rs"), file.replace("u32", "u64"));
    let (a, b): (Vec<String>, Vec<String>) = (
        (0..25).map(|i| format!("    a{i} = {i}")).collect(),
        (0..22).map(|i| format!("    b{i} = {i}")).collect(),
    );
    let mut lines = vec!["def f(a):"];
    lines.extend(a.iter().map(String::as_str));
    lines.extend(["    return None", "", "", "def g(b):"]);
    lines.extend(b.iter().map(String::as_str));
    lines.push("    return None");
    let file = text(&lines);
    let r = TestRepo::with(&[("a.py", &file)]);
    let block = "a.py\n<<<<<<< SEARCH\ndef g(b):\n    ...\n    return None\n=======\ndef g(b):\n    ...\n    return 0\n>>>>>>> REPLACE\n";
    r.apply(&[], block).code(0);
    let at = file.rfind("None").unwrap();
    assert_eq!(r.read_str("a.py"), format!("{}0\n", &file[..at]));
}

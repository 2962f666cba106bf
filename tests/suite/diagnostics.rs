//! Diagnostics (DESIGN §6): one test per kind of finding a refusal reports, in the human
//! report and in the JSON, and the warnings a success carries.

use serde_json::Value;

use crate::common::{numbered, Run, TestRepo};

fn diff(path: &str, body: &str) -> String {
    format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{body}")
}

/// The one failed hunk's diagnostic in a JSON report.
fn diagnostic(v: &Value, hunk: usize) -> &Value {
    let h = &v["files"][0]["hunks"][hunk - 1];
    assert!(
        h["diagnostic"].is_object(),
        "hunk {hunk} has no diagnostic: {h}"
    );
    &h["diagnostic"]
}

/// The lines of the human report that belong to hunk `n`'s verdict and diagnostic.
fn block(run: &Run, n: usize) -> Vec<String> {
    let heads = [format!("    hunk {n} "), format!("    hunk {n}:")];
    let mut out = Vec::new();
    let mut inside = false;
    for l in run.stderr.lines() {
        if heads.iter().any(|h| l.starts_with(h.as_str())) {
            inside = true;
        } else if inside && !l.starts_with("      ") {
            break;
        }
        if inside {
            out.push(l.to_string());
        }
    }
    assert!(!out.is_empty(), "no block for hunk {n}:\n{}", run.stderr);
    out
}

#[track_caller]
fn ends_with_advice(lines: &[String]) {
    let last = lines.last().expect("a block");
    assert!(
        last.starts_with("      advice: "),
        "the advice is the last line: {lines:#?}"
    );
}

#[test]
fn a_failed_hunk_names_its_file_number_hint_and_where_the_search_started() {
    // Three lines were inserted at the top, so hunk 1 lands 3 lines down and hunk 2's
    // search starts 3 lines below its @@ number.
    let file = format!("x1\nx2\nx3\n{}", numbered("l", 40));
    let r = TestRepo::with(&[("f.txt", &file)]);
    let patch = diff(
        "f.txt",
        "@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n@@ -20,3 +20,3 @@\n l20\n-l21-nope\n+L21\n l22\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    assert!(run.stderr.contains("! f.txt refused\n"), "{}", run.stderr);
    let b = block(&run, 2);
    assert!(
        b[0].starts_with("    hunk 2 (@@ hint: line 20): not found"),
        "{b:#?}"
    );
    assert!(
        b.contains(
            &"      searched from line 23 (the @@ hint moved by earlier hunks' offsets)".into()
        ),
        "{b:#?}"
    );
    ends_with_advice(&b);
    let (_, v) = r.apply_json(&[], &patch);
    let d = diagnostic(&v, 2);
    assert_eq!(d["searched_from"], 23);
    assert_eq!(v["files"][0]["hunks"][1]["hint"], 20);
    assert!(
        v["files"][0]["hunks"][0]["diagnostic"].is_null(),
        "hunk 1 fits"
    );
}

#[test]
fn an_insertion_next_to_a_context_line_the_file_lacks_says_so_without_a_count() {
    // The removed line places the hunk; the context line before the added one reads otherwise
    // in the file, so nothing says where the added line goes.
    let file = "fn main() {\n    let alpha = 1;\n    let beta = 2;\n    let gamma = 3;\n    let delta = 4;\n    let epsilon = 5;\n    println!(\"done\");\n}\n";
    let r = TestRepo::with(&[("f.rs", file)]);
    let patch = diff(
        "f.rs",
        "@@ -1,7 +1,7 @@\n fn main() {\n     let alpha = 1;\n-    let beta = 2;\n     let gamma = 33;\n+    let zeta = 6;\n     let delta = 4;\n     let epsilon = 5;\n     println!(\"done\");\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1);
    assert_eq!(
        b[0],
        "    hunk 1 (@@ hint: line 1): not found: a context line next to where lines are inserted is not in the file, so where they go is uncertain"
    );
    assert_eq!(r.read_str("f.rs"), file, "nothing was written");
}

#[test]
fn the_expected_lines_and_the_closest_region_are_shown_with_the_first_differing_column() {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 40))]);
    let patch = diff("f.txt", "@@ -20,3 +20,3 @@\n l20\n-l21-nope\n+L21\n l22\n");
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1);
    let expected = [
        "    hunk 1 (@@ hint: line 20): not found: the hunk's context and removed lines are not in the file",
        "      expected (3 lines):",
        "        1 | l20",
        "        2 | l21-nope",
        "        3 | l22",
        "      closest in the file: lines 20-22 (2 of 3 lines alike)",
        "        20 | l20",
        "        21 | l21",
        "        22 | l22",
        "      hunk line 2, file line 21: content differs from column 4",
        "        expected: \"l21-nope\"",
        "        actual:   \"l21\"",
        "      advice: re-read lines 20-22 of f.txt and resend the hunk with its context and removed lines exactly as they are there",
    ];
    assert_eq!(b, expected);
    let (_, v) = r.apply_json(&[], &patch);
    let c = &diagnostic(&v, 1)["closest"];
    assert_eq!(
        (c["start"].clone(), c["end"].clone()),
        (20.into(), 22.into())
    );
    let d = &c["differences"][0];
    assert_eq!(d["kind"], "content");
    assert_eq!(d["column"], 4);
    assert_eq!(d["expected"], "l21-nope");
    assert_eq!(d["actual"], "l21");
}

#[test]
fn a_whitespace_only_difference_is_named_and_its_tabs_made_visible() {
    let r = TestRepo::with(&[("f.py", "def f():\n\tx = 1\n\ty = 2\n\treturn x\n")]);
    let patch = diff(
        "f.py",
        "@@ -1,4 +1,4 @@\n def f():\n     x = 1\n-    y = 3\n+    y = 4\n     return x\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(
        b.contains("      hunk line 3, file line 3: content differs from column 1\n        expected: \"    y = 3\"\n        actual:   \"\\ty = 2\""),
        "the blocking difference comes first:\n{b}"
    );
    assert!(
        b.contains("      hunk line 2, file line 2: whitespace only from column 1\n        expected: \"    x = 1\"\n        actual:   \"\\tx = 1\""),
        "{b}"
    );
    let (_, v) = r.apply_json(&[], &patch);
    let ds = &diagnostic(&v, 1)["closest"]["differences"];
    assert_eq!(ds[0]["kind"], "content");
    assert_eq!(ds[1]["kind"], "whitespace");
    assert_eq!(ds[1]["actual"], "\tx = 1", "JSON keeps the raw text");
}

#[test]
fn trailing_spaces_and_invisible_characters_are_spelled_as_escapes() {
    let file = "a = 1  \nb = \"x\u{a0}y\"\nc = 3\u{200b}\nd = 4\n";
    let r = TestRepo::with(&[("f.py", file)]);
    let patch = diff(
        "f.py",
        "@@ -1,4 +1,4 @@\n a = 1\n b = \"x y\"\n c = 3\n-d = 5\n+d = 6\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(b.contains("actual:   \"d = 4\""), "{b}");
    assert!(
        b.contains("hunk line 1, file line 1: whitespace only from column 6\n        expected: \"a = 1\"\n        actual:   \"a = 1\\u{20}\\u{20}\""),
        "{b}"
    );
    assert!(
        b.contains("hunk line 2, file line 2: Unicode punctuation or invisible characters from column 7\n        expected: \"b = \"x y\"\"\n        actual:   \"b = \"x\\u{a0}y\"\""),
        "{b}"
    );
    assert!(
        b.contains("(1 more differing lines)"),
        "three are shown: {b}"
    );
}

#[test]
fn typographic_quotes_are_a_unicode_difference() {
    let file = "msg = \u{201c}hello\u{201d}\nname = \u{2018}x\u{2019}\nend = 1\n";
    let r = TestRepo::with(&[("f.py", file)]);
    let patch = diff(
        "f.py",
        "@@ -1,3 +1,3 @@\n msg = \"hello\"\n name = 'x'\n-end = 2\n+end = 3\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    let ds = &diagnostic(&v, 1)["closest"]["differences"];
    assert_eq!(ds[0]["kind"], "content");
    assert_eq!(ds[1]["kind"], "unicode");
    assert_eq!(ds[1]["column"], 7);
    assert_eq!(ds[2]["kind"], "unicode");
}

#[test]
fn a_blank_line_the_file_lacks_is_a_missing_blank_line() {
    let r = TestRepo::with(&[("f.txt", "alpha one\nalpha two\nalpha three\nalpha four\n")]);
    let patch = diff(
        "f.txt",
        "@@ -1,4 +1,4 @@\n alpha one\n \n alpha two\n-alpha three changed\n+ALPHA\n alpha four\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(
        b.contains("      hunk line 2: the file has no blank line here\n"),
        "{b}"
    );
    let (_, v) = r.apply_json(&[], &patch);
    let ds = &diagnostic(&v, 1)["closest"]["differences"];
    assert!(
        ds.as_array()
            .expect("differences")
            .iter()
            .any(|d| d["kind"] == "missing-blank-line" && d["hunk_line"] == 2),
        "{ds}"
    );
}

#[test]
fn a_blank_line_the_hunk_lacks_is_an_extra_blank_line() {
    let r = TestRepo::with(&[("f.txt", "alpha one\n\nalpha two\nalpha three\nalpha four\n")]);
    let patch = diff(
        "f.txt",
        "@@ -1,4 +1,4 @@\n alpha one\n alpha two\n-alpha three changed\n+ALPHA\n alpha four\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(
        b.contains("      file line 2: the file has a blank line the hunk lacks\n"),
        "{b}"
    );
}

#[test]
fn a_line_cut_short_with_dots_is_truncated() {
    let file = "def f():\n    result = compute(alpha, beta, gamma)\n    return result\n";
    let r = TestRepo::with(&[("f.py", file)]);
    let patch = diff(
        "f.py",
        "@@ -1,3 +1,3 @@\n def f():\n     result = compute(alpha, ...)\n-    return result + 0\n+    return result * 2\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(
        b.contains("hunk line 2, file line 2: the patch cuts it short with `...` from column 29"),
        "{b}"
    );
    let (_, v) = r.apply_json(&[], &patch);
    let ds = &diagnostic(&v, 1)["closest"]["differences"];
    assert!(ds
        .as_array()
        .expect("differences")
        .iter()
        .any(|d| d["kind"] == "truncated"));
}

#[test]
fn an_elision_line_that_cannot_be_placed_is_truncated_and_the_advice_says_so() {
    // The part after the elision fits twice after the part before: nothing says which.
    let mut file = String::from("def run(self):\n");
    for i in 0..20 {
        file.push_str(&format!("    step_{i}(self)\n"));
        if i % 10 == 9 {
            file.push_str("    return 1\n    # done\n");
        }
    }
    file.push_str("    return 0\n");
    let r = TestRepo::with(&[("f.py", &file)]);
    let patch = diff(
        "f.py",
        "@@ -1,4 +1,4 @@\n def run(self):\n     # ... existing code ...\n-    return 1\n+    return 2\n     # done\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1);
    let joined = b.join("\n");
    assert!(
        joined.contains("hunk line 2, file line 2: the patch cuts it short with `...`"),
        "{joined}"
    );
    assert!(
        b.last()
            .expect("advice")
            .contains("`...` cannot stand for lines"),
        "{joined}"
    );
}

#[test]
fn an_ambiguous_hunk_lists_every_line_where_it_fits() {
    let block3 = "start\n    shared = 1\n    other = 2\nend\n";
    let r = TestRepo::with(&[("f.txt", &block3.repeat(3))]);
    let patch = diff(
        "f.txt",
        "@@ @@\n     shared = 1\n-    other = 2\n+    other = 3\n end\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1);
    assert_eq!(
        b[0],
        "    hunk 1: ambiguous: the hunk fits at 3 places (lines 2, 6, 10) and nothing decides between them"
    );
    ends_with_advice(&b);
    let (_, v) = r.apply_json(&[], &patch);
    let f = &diagnostic(&v, 1)["findings"][0];
    assert_eq!(f["kind"], "ambiguous");
    assert_eq!(f["lines"], serde_json::json!([2, 6, 10]));
}

#[test]
fn an_ambiguous_hunk_after_a_placed_one_is_diagnosed() {
    let r = TestRepo::with(&[(
        "f.txt",
        "alpha\nstart\n    shared = 1\n    other = 2\nend\nstart\n    shared = 1\n    other = 2\nend\n",
    )]);
    let patch = diff(
        "f.txt",
        "@@ @@\n-alpha\n+ALPHA\n start\n@@ @@\n     shared = 1\n-    other = 2\n+    other = 3\n end\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 2);
    assert_eq!(
        b[0],
        "    hunk 2: ambiguous: the hunk fits at 2 places (lines 3, 7) and nothing decides between them"
    );
    ends_with_advice(&b);
}

#[test]
fn a_change_that_is_already_there_under_drifted_context_is_called_already_applied() {
    let file = numbered("line", 10)
        .replace("line5\n", "LINE5 new\n")
        .replace("line3\n", "line3 edited\n");
    let r = TestRepo::with(&[("f.txt", &file)]);
    let patch = diff(
        "f.txt",
        "@@ -2,6 +2,6 @@\n line2\n line3\n line4\n-line5\n+LINE5 new\n line6\n line7\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(
        b.contains("      looks already applied: 5 of the 6 lines of its result are at line 2"),
        "{b}"
    );
    assert!(
        b.contains("advice: the change looks already applied"),
        "{b}"
    );
    let (_, v) = r.apply_json(&[], &patch);
    let f = &diagnostic(&v, 1)["findings"][0];
    assert_eq!(f["kind"], "already-applied");
    assert_eq!(f["line"], 2);
}

#[test]
fn hunks_out_of_file_order_are_named() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 40))]);
    let patch = diff(
        "f.txt",
        "@@ -20,3 +20,3 @@\n line20\n-line21\n+LINE21\n line22\n@@ -5,3 +5,3 @@\n line5\n-line6 changed\n+LINE6\n line7\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 2).join("\n");
    assert!(
        b.contains("out of file order: it belongs at line 5, before hunk 1 (line 20)"),
        "{b}"
    );
    let (_, v) = r.apply_json(&[], &patch);
    let fs = diagnostic(&v, 2)["findings"]
        .as_array()
        .expect("findings")
        .clone();
    assert!(
        fs.iter().any(|f| f["kind"] == "out-of-order"
            && f["previous_hunk"] == 1
            && f["previous_line"] == 20),
        "{fs:?}"
    );
}

#[test]
fn a_hunk_whose_lines_an_earlier_hunk_changes_is_an_overlap() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 20))]);
    let patch = diff(
        "f.txt",
        "@@ -4,3 +4,3 @@\n line4\n-line5\n+LINE5\n line6\n@@ -5,3 +5,3 @@\n line5\n-line6\n+LINE6\n line7\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 2).join("\n");
    assert!(
        b.contains("its lines are at line 5, which hunk 1 already changes"),
        "{b}"
    );
    assert!(
        b.contains("advice: hunks 1 and 2 change the same lines: merge them into one hunk"),
        "{b}"
    );
}

/// The same overlap where the earlier hunk's new line reads as the later hunk's context
/// line with one letter more (`line5s` for `line5`): a line the patch wrote, not one the
/// later hunk misremembered, so still an overlap. Counted as misremembered, hunk 2 would
/// land on hunk 1's new line, a change neither hunk describes.
#[test]
fn a_context_line_an_earlier_hunk_rewrote_is_not_taken_as_misremembered() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 20))]);
    let before = r.state();
    let patch = diff(
        "f.txt",
        "@@ -4,3 +4,3 @@\n line4\n-line5\n+line5s\n line6\n@@ -5,3 +5,3 @@\n line5\n-line6\n+LINE6\n line7\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 2).join("\n");
    assert!(
        b.contains("its lines are at line 5, which hunk 1 already changes"),
        "{b}"
    );
    assert_eq!(r.state(), before);
}

#[test]
fn a_hunk_with_no_line_in_the_file_says_so() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 20))]);
    let patch = diff(
        "f.txt",
        "@@ -4,3 +4,3 @@\n something else\n-entirely different\n+new text\n and more of it\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1);
    assert!(
        b.contains(&"      none of its distinctive lines is anywhere in the file".to_string()),
        "{b:#?}"
    );
    assert!(b
        .last()
        .expect("advice")
        .contains("check that this is the right file"));
}

#[test]
fn a_hunk_sent_for_the_wrong_file_says_which_file_has_its_lines() {
    let r = TestRepo::with(&[
        ("a.py", &numbered("alpha_line_", 20)),
        ("b.py", &numbered("beta_line_", 20)),
    ]);
    let patch = format!(
        "{}{}",
        diff(
            "a.py",
            "@@ -2,3 +2,3 @@\n alpha_line_2\n-alpha_line_3\n+ALPHA3\n alpha_line_4\n"
        ),
        diff(
            "b.py",
            "@@ -5,3 +5,3 @@\n alpha_line_10\n-alpha_line_11\n+ALPHA11\n alpha_line_12\n"
        )
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    let b = block(&run, 1).join("\n");
    assert!(
        b.contains("none of its lines is in this file, but they are in a.py at line 10"),
        "{b}"
    );
    assert!(
        b.contains(
            "advice: these lines are in a.py, not in b.py: send the hunk as a change to a.py"
        ),
        "{b}"
    );
    let (_, v) = r.apply_json(&[], &patch);
    let f = &v["files"][1]["hunks"][0]["diagnostic"]["findings"][0];
    assert_eq!(f["kind"], "in-other-file");
    assert_eq!(f["path"], "a.py");
}

#[test]
fn a_missing_path_suggests_the_closest_tracked_one() {
    let r = TestRepo::with(&[
        ("src/module/parser.rs", "fn parse() {}\n"),
        ("src/module/lexer.rs", "fn lex() {}\n"),
        ("README.md", "hi\n"),
    ]);
    let patch = diff(
        "src/parser.rs",
        "@@ -1 +1 @@\n-fn parse() {}\n+fn parse() -> u8 { 0 }\n",
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    assert!(
        run.stderr.contains(
            "! src/parser.rs refused\n    src/parser.rs does not exist\n    closest existing path: src/module/parser.rs\n    advice: if src/module/parser.rs is the file you meant, resend the patch with that path\n"
        ),
        "{}",
        run.stderr
    );
    let (_, v) = r.apply_json(&[], &patch);
    assert_eq!(v["files"][0]["suggested_path"], "src/module/parser.rs");
}

#[test]
fn a_missing_path_outside_a_repository_is_suggested_from_the_directory_tree() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(dir.path().join("lib")).expect("mkdir");
    std::fs::write(dir.path().join("lib/config.py"), "x = 1\n").expect("write");
    let mut cmd = assert_cmd::Command::cargo_bin("git-llm-apply").expect("bin");
    cmd.current_dir(dir.path())
        .env(
            "GIT_CEILING_DIRECTORIES",
            dir.path().parent().expect("parent"),
        )
        .env("NO_COLOR", "1");
    let out = cmd
        .write_stdin(diff("config.py", "@@ -1 +1 @@\n-x = 1\n+x = 2\n"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("closest existing path: lib/config.py"),
        "{stderr}"
    );
}

#[test]
fn a_diagnostic_stays_within_forty_lines_however_big_the_hunk() {
    let file: String = (0..400)
        .map(|i| format!("    value_{i} = compute({i})\n"))
        .collect();
    let r = TestRepo::with(&[("big.py", &file)]);
    // A 200-line hunk against a version of the file where every other line changed.
    let mut body = String::from("@@ -100,200 +100,200 @@\n");
    for i in 99..299 {
        if i % 2 == 0 {
            body.push_str(&format!(
                " {}\n",
                format!("    value_{i} = compute({i}) # old").repeat(40)
            ));
        } else {
            body.push_str(&format!("     value_{i} = compute({i})\n"));
        }
    }
    body.push_str("-    value_299 = compute(299) # old\n+    value_299 = 0\n");
    let run = r.apply(&[], &diff("big.py", &body));
    run.code(1);
    let b = block(&run, 1);
    assert!(b.len() <= 40, "{} lines:\n{}", b.len(), b.join("\n"));
    assert!(
        b.iter().all(|l| l.chars().count() < 400),
        "long lines are cut:\n{}",
        b.join("\n")
    );
    ends_with_advice(&b);
}

#[test]
fn a_three_way_conflict_shows_what_the_file_has_and_what_the_patch_wants() {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 20))]);
    r.write(
        "f.txt",
        numbered("l", 20).replace("l10\n", "TEN\n").as_bytes(),
    );
    let patch = r.git(&["diff"]);
    r.git(&["checkout", "--", "f.txt"]);
    r.write(
        "f.txt",
        numbered("l", 20).replace("l10\n", "ten!\n").as_bytes(),
    );
    let run = r.apply(&[], &patch);
    run.code(1);
    assert!(
        run.stderr.contains(
            "U f.txt (+1 -1) conflicted via 3way\n    conflict: 1 region where the file and the patch change the same lines (nothing written)\n      the file has 1 line there:\n        10 | ten!\n      the patch wants 1 line instead:\n        10 | TEN\n      advice: the file changed these lines since the patch was made"
        ),
        "{}",
        run.stderr
    );
    let (_, v) = r.apply_json(&[], &patch);
    let c = &v["files"][0]["conflict_regions"][0];
    assert_eq!(
        (c["start"].clone(), c["end"].clone()),
        (10.into(), 14.into())
    );
    assert_eq!(c["ours"][0]["text"], "ten!");
    assert_eq!(c["theirs"][0]["text"], "TEN");
}

// ------------------------------------------------------------------------------- warnings

fn warnings(v: &Value) -> Vec<(String, String)> {
    v["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["warnings"].as_array().cloned().unwrap_or_default())
        .map(|w| {
            (
                w["kind"].as_str().expect("kind").to_string(),
                w["message"].as_str().expect("message").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_success_after_a_looser_pass_warns() {
    let r = TestRepo::with(&[("f.py", "def f():\n\tx = 1\n\ty = 2\n")]);
    let patch = diff(
        "f.py",
        "@@ -1,3 +1,3 @@\n def f():\n     x = 1\n-    y = 2\n+    y = 3\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        warnings(&v),
        [(
            "loose-pass".to_string(),
            "hunk 1 matched only after the whitespace pass".to_string()
        )]
    );
}

#[test]
fn context_repeated_elsewhere_warns_and_says_what_decided() {
    let block3 = "start\n    shared = 1\n    other = 2\nend\n";
    let r = TestRepo::with(&[("f.txt", &block3.repeat(3))]);
    let patch = diff(
        "f.txt",
        "@@ -6,3 +6,3 @@\n     shared = 1\n-    other = 2\n+    other = 3\n end\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        warnings(&v),
        [(
            "repeated-context".to_string(),
            "hunk 1's context occurs 3 times; placed by its line numbers".to_string()
        )]
    );
}

#[test]
fn a_hunk_far_from_its_line_number_warns() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 300))]);
    let patch = diff(
        "f.txt",
        "@@ -10,3 +10,3 @@\n line200\n-line201\n+LINE201\n line202\n",
    );
    let run = r.apply(&["--check"], &patch);
    run.code(0)
        .out_contains("warning: f.txt: hunk 1 landed at line 200");
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        warnings(&v),
        [(
            "far-from-hint".to_string(),
            "hunk 1 landed at line 200, 190 lines from line 10 where its numbers put it"
                .to_string()
        )]
    );
}

#[test]
fn overwriting_a_file_with_a_codex_add_warns() {
    let r = TestRepo::with(&[("notes.txt", "old\n")]);
    let patch = "*** Begin Patch\n*** Add File: notes.txt\n+new\n*** End Patch\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    let w = warnings(&v);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, "overwrote");
    assert!(w[0].1.starts_with("notes.txt already existed"), "{w:?}");
}

#[test]
fn hunks_placed_out_of_file_order_warn() {
    let r = TestRepo::with(&[("f.txt", &numbered("line", 40))]);
    let patch = diff(
        "f.txt",
        "@@ -20,3 +20,3 @@\n line20\n-line21\n+LINE21\n line22\n@@ -5,3 +5,3 @@\n line5\n-line6\n+LINE6\n line7\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        r.read_str("f.txt"),
        numbered("line", 40)
            .replace("line21\n", "LINE21\n")
            .replace("line6\n", "LINE6\n")
    );
    let w = warnings(&v);
    assert!(
        w.iter().any(|(k, m)| k == "out-of-order"
            && m == "hunk 2 landed at line 5, before hunk 1 (line 20): the hunks are out of file order"),
        "{w:?}"
    );
}

#[test]
fn a_search_replace_block_is_diagnosed_in_its_own_terms() {
    let r = TestRepo::with(&[("util.py", "def helper():\n    return 1\n")]);
    let patch = "util.py\n```python\n<<<<<<< SEARCH\ndef helper():\n    return 7\n=======\ndef helper():\n    return 8\n>>>>>>> REPLACE\n```\n";
    let run = r.apply(&[], patch);
    run.code(1);
    let b = block(&run, 1);
    assert!(
        b.contains(&"      hunk line 2, file line 2: content differs from column 12".to_string()),
        "{b:#?}"
    );
    assert_eq!(
        b.last().expect("advice"),
        "      advice: re-read lines 1-2 of util.py and resend the block with a SEARCH text copied exactly from there"
    );
}

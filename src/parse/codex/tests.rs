//! Parser tests for the Codex format: exact models for every accepted variant.

use super::*;
use crate::parse::NoFiles;
use crate::patch::FileOp;

/// The parser on a text of the test's own (the shared copy is made here).
fn parse(text: &str, probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    super::parse(&std::sync::Arc::new(text.to_string()), probe)
}

fn parse_ok(text: &str) -> Patch {
    match parse(text, &NoFiles) {
        Ok(p) => p,
        Err(e) => panic!("expected a patch, got {e}"),
    }
}

fn kinds(p: &Patch) -> Vec<&str> {
    p.notices.iter().map(|n| n.kind.as_str()).collect()
}

fn ctx(t: &str) -> Line {
    Line::new(LineKind::Context, t)
}
fn rem(t: &str) -> Line {
    Line::new(LineKind::Remove, t)
}
fn add(t: &str) -> Line {
    Line::new(LineKind::Add, t)
}

fn update(path: &str, hunks: Vec<Hunk>) -> FilePatch {
    FilePatch {
        old_path: Some(path.into()),
        new_path: Some(path.into()),
        hunks,
        ordered: true,
        ..FilePatch::default()
    }
}

fn hunk(lines: Vec<Line>) -> Hunk {
    Hunk {
        lines,
        ..Hunk::default()
    }
}

fn syntax_line(text: &str) -> usize {
    match parse(text, &NoFiles) {
        Err(ParseError::Syntax { line, .. }) => line,
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn add_file_becomes_full_content_that_may_replace() {
    let p = parse_ok("*** Begin Patch\n*** Add File: a/new.txt\n+one\n+\n+two\n*** End Patch\n");
    assert_eq!(p.format, Format::Codex);
    assert_eq!(
        p.files,
        vec![FilePatch {
            new_path: Some("a/new.txt".into()),
            create_mode: CreateMode::MayReplace,
            ordered: true,
            full_content: Some("one\n\ntwo\n".into()),
            ..FilePatch::default()
        }]
    );
    assert_eq!(p.files[0].op(), FileOp::Create);
    assert!(p.notices.is_empty(), "{:?}", p.notices);
}

#[test]
fn add_file_without_lines_creates_an_empty_file() {
    let p = parse_ok("*** Begin Patch\n*** Add File: empty.txt\n*** End Patch\n");
    assert_eq!(p.files[0].full_content.as_deref(), Some(""));
}

#[test]
fn delete_file_names_only_the_old_path() {
    let p = parse_ok("*** Begin Patch\n*** Delete File: gone.rs\n*** End Patch\n");
    assert_eq!(
        p.files,
        vec![FilePatch {
            old_path: Some("gone.rs".into()),
            ordered: true,
            ..FilePatch::default()
        }]
    );
    assert_eq!(p.files[0].op(), FileOp::Delete);
}

#[test]
fn update_with_move_sets_old_and_new_path() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: old/a.py\n*** Move to: new/b.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n",
    );
    let mut want = update("old/a.py", vec![hunk(vec![rem("x = 1"), add("x = 2")])]);
    want.new_path = Some("new/b.py".into());
    // Codex's rule: a move replaces an existing destination.
    want.create_mode = CreateMode::MayReplace;
    assert_eq!(p.files, vec![want]);
    assert_eq!(p.files[0].op(), FileOp::Rename);
}

#[test]
fn dot_slash_paths_are_normalised_and_empty_paths_refused() {
    let p = parse_ok("*** Begin Patch\n*** Delete File: ./x/y.txt\n*** End Patch\n");
    assert_eq!(p.files[0].old_path.as_deref(), Some("x/y.txt"));
    assert_eq!(
        syntax_line("*** Begin Patch\n*** Delete File:   \n*** End Patch\n"),
        2
    );
}

#[test]
fn move_without_hunks_is_a_pure_rename() {
    let p =
        parse_ok("*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch\n");
    let mut want = update("a.txt", vec![]);
    want.new_path = Some("b.txt".into());
    want.create_mode = CreateMode::MayReplace;
    assert_eq!(p.files, vec![want]);
}

#[test]
fn hunks_keep_context_removed_and_added_lines_in_order() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: m.txt\n@@\n line1\n-line2\n+changed2\n line3\n@@\n-line4\n+changed4\n*** End Patch\n",
    );
    assert_eq!(
        p.files,
        vec![update(
            "m.txt",
            vec![
                hunk(vec![
                    ctx("line1"),
                    rem("line2"),
                    add("changed2"),
                    ctx("line3")
                ]),
                hunk(vec![rem("line4"), add("changed4")]),
            ]
        )]
    );
}

#[test]
fn consecutive_anchors_stack_outermost_first() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: c.py\n@@ class Base:\n@@     def run(self):\n-        pass\n+        return 1\n*** End Patch\n",
    );
    let h = &p.files[0].hunks[0];
    assert_eq!(h.anchors, vec!["class Base:", "    def run(self):"]);
    assert_eq!(h.lines, vec![rem("        pass"), add("        return 1")]);
    assert!(p.notices.is_empty());
}

#[test]
fn anchor_trailing_whitespace_is_trimmed_and_a_bare_header_adds_none() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: c.py\n@@\n@@ def f():  \n-a\n+b\n@@ \n-c\n+d\n*** End Patch\n",
    );
    assert_eq!(p.files[0].hunks[0].anchors, vec!["def f():"]);
    assert!(p.files[0].hunks[1].anchors.is_empty());
}

#[test]
fn end_of_file_marker_sets_at_eof_on_its_hunk_only() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: t.txt\n@@\n-a\n+b\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n",
    );
    let hunks = &p.files[0].hunks;
    assert!(!hunks[0].at_eof);
    assert!(hunks[1].at_eof);
    assert_eq!(
        hunks[1].lines,
        vec![ctx("first"), rem("second"), add("second updated")]
    );
}

#[test]
fn pure_addition_without_a_locator_goes_to_the_end_of_the_file() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: in.txt\n@@\n+added 1\n+added 2\n*** End Patch\n",
    );
    assert_eq!(
        p.files[0].hunks,
        vec![Hunk {
            lines: vec![add("added 1"), add("added 2")],
            at_eof: true,
            ..Hunk::default()
        }]
    );
}

#[test]
fn pure_addition_under_an_anchor_is_not_forced_to_the_end() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: in.py\n@@ def f():\n+    x = 1\n*** End Patch\n",
    );
    let h = &p.files[0].hunks[0];
    assert!(!h.at_eof, "the anchor says where the lines go");
    assert_eq!(h.anchors, vec!["def f():"]);
}

#[test]
fn several_operations_keep_input_order() {
    let p = parse_ok(
        "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch\n",
    );
    let ops: Vec<(FileOp, &str)> = p.files.iter().map(|f| (f.op(), f.display_path())).collect();
    assert_eq!(
        ops,
        vec![
            (FileOp::Create, "nested/new.txt"),
            (FileOp::Delete, "delete.txt"),
            (FileOp::Modify, "modify.txt"),
        ]
    );
    assert!(p.files.iter().all(|f| f.ordered));
}

#[test]
fn markdown_fence_and_prose_around_the_patch_are_stripped_and_reported() {
    let p = parse_ok(
        "Here is the change:\n\n```diff\n*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n```\nDone.\n",
    );
    assert_eq!(
        p.files,
        vec![update("a.txt", vec![hunk(vec![rem("a"), add("b")])])]
    );
    assert_eq!(kinds(&p), vec!["fence-stripped", "prose-ignored"]);
    assert_eq!(
        p.notices[1].message,
        "2 line(s) of text outside '*** Begin Patch' … '*** End Patch' were ignored"
    );
}

#[test]
fn heredoc_wrappers_are_stripped_and_reported() {
    let body = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n";
    for (open, close) in [
        ("apply_patch <<'EOF'", "EOF"),
        ("apply_patch <<EOF", "EOF"),
        ("apply_patch <<\"EOF\"", "EOF"),
        ("cat <<'EOF' | apply_patch", "EOF"),
        ("<<'PATCH'", "PATCH"),
        ("bash -lc 'apply_patch <<\"EOF\"", "EOF'"),
    ] {
        let p = parse_ok(&format!("{open}\n{body}{close}\n"));
        assert_eq!(
            p.files,
            vec![update("a.txt", vec![hunk(vec![rem("a"), add("b")])])],
            "{open}"
        );
        assert_eq!(kinds(&p), vec!["heredoc-stripped"], "{open}");
    }
}

#[test]
fn heredoc_inside_a_fence_reports_both() {
    let p = parse_ok(
        "```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n```\n",
    );
    assert_eq!(kinds(&p), vec!["fence-stripped", "heredoc-stripped"]);
    assert_eq!(
        p.notices[1].message,
        "the patch was wrapped in a shell heredoc <<EOF"
    );
}

#[test]
fn add_lines_missing_their_plus_are_taken_verbatim() {
    let p = parse_ok(
        "*** Begin Patch\n*** Add File: n.py\n+import os\n\ndef f():\n+    return 1\n\n*** Update File: o.py\n@@\n-a\n+b\n*** End Patch\n",
    );
    assert_eq!(
        p.files[0].full_content.as_deref(),
        Some("import os\n\ndef f():\n    return 1\n"),
        "interior lines without '+' are content; the blank before the next marker separates"
    );
    assert_eq!(kinds(&p), vec!["add-line-missing-plus"]);
    assert_eq!(p.notices[0].path.as_deref(), Some("n.py"));
    assert!(
        p.notices[0].message.ends_with("(lines 4, 5)"),
        "{}",
        p.notices[0].message
    );
}

#[test]
fn missing_space_after_at_at_still_reads_the_anchor() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: f.py\n@@def f():\n-    a\n+    b\n*** End Patch\n",
    );
    assert_eq!(p.files[0].hunks[0].anchors, vec!["def f():"]);
    assert_eq!(kinds(&p), vec!["anchor-missing-space"]);
}

#[test]
fn unified_numeric_header_gives_a_line_hint_and_no_anchor() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: f.py\n@@ -12,5 +12,6 @@\n a\n-b\n+c\n*** End Patch\n",
    );
    let h = &p.files[0].hunks[0];
    assert_eq!(h.old_start, Some(12));
    assert_eq!(h.new_start, Some(12));
    assert!(h.anchors.is_empty());
    assert_eq!(h.section, None);
    assert_eq!(kinds(&p), vec!["unified-hunk-header"]);
}

#[test]
fn unified_header_variants_without_counts_or_numbers() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: f.py\n@@ -3 +4 @@ def g():\n-b\n+c\n@@ @@\n-d\n+e\n*** End Patch\n",
    );
    let hs = &p.files[0].hunks;
    assert_eq!((hs[0].old_start, hs[0].new_start), (Some(3), Some(4)));
    assert_eq!(hs[0].section.as_deref(), Some("def g():"));
    assert_eq!((hs[1].old_start, hs[1].section.as_deref()), (None, None));
    assert!(hs[1].anchors.is_empty());
}

#[test]
fn blank_context_lines_without_their_space_are_empty_context() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: f.py\n@@\n def a():\n\n-    pass\n+    return 1\n\n def b():\n*** End Patch\n",
    );
    assert_eq!(
        p.files[0].hunks[0].lines,
        vec![
            ctx("def a():"),
            ctx(""),
            rem("    pass"),
            add("    return 1"),
            ctx(""),
            ctx("def b():")
        ]
    );
    assert_eq!(kinds(&p), vec!["blank-context-line"]);
    assert!(p.notices[0].message.ends_with("(lines 5, 8)"));
}

#[test]
fn trailing_blank_lines_of_a_hunk_are_separators() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: f.py\n@@\n-a\n+b\n\n@@\n-c\n+d\n\n\n*** End Patch\n",
    );
    assert_eq!(
        p.files[0].hunks,
        vec![
            hunk(vec![rem("a"), add("b")]),
            hunk(vec![rem("c"), add("d")])
        ]
    );
    assert_eq!(kinds(&p), vec!["trailing-blank-dropped"]);
}

#[test]
fn blank_line_before_end_of_file_stays_context() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n\n*** End of File\n*** End Patch\n",
    );
    let h = &p.files[0].hunks[0];
    assert_eq!(h.lines, vec![rem("a"), add("b"), ctx("")]);
    assert!(h.at_eof);
}

#[test]
fn whitespace_padding_around_markers_is_accepted_and_reported() {
    let p = parse_ok(
        " *** Begin Patch \n  *** Update File: foo.txt\n  @@ def f():\n-old\n+new\n *** End of File\n*** End Patch \n",
    );
    let mut want = update(
        "foo.txt",
        vec![Hunk {
            anchors: vec!["def f():".into()],
            lines: vec![rem("old"), add("new")],
            at_eof: true,
            ..Hunk::default()
        }],
    );
    want.ordered = true;
    assert_eq!(p.files, vec![want]);
    assert_eq!(kinds(&p), vec!["marker-padding", "marker-padding"]);
}

#[test]
fn padded_unknown_star_line_inside_a_hunk_is_context() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: a.c\n@@\n *** note ***\n-x\n+y\n*** End Patch\n",
    );
    assert_eq!(p.files[0].hunks[0].lines[0], ctx("*** note ***"));
}

#[test]
fn unknown_operation_is_a_syntax_error_with_its_line() {
    let err = parse(
        "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n",
        &NoFiles,
    );
    match err {
        Err(ParseError::Syntax { line, message }) => {
            assert_eq!(line, 2);
            assert!(
                message.starts_with("unknown marker '*** Frobnicate File: foo'"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_marker_after_a_hunk_is_a_syntax_error() {
    assert_eq!(
        syntax_line(
            "*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n*** Rename File: b\n*** End Patch\n"
        ),
        6
    );
}

#[test]
fn text_where_an_operation_belongs_is_a_syntax_error() {
    assert_eq!(
        syntax_line("*** Begin Patch\nupdate a.txt please\n*** End Patch\n"),
        2
    );
}

#[test]
fn hunk_line_without_a_prefix_is_a_syntax_error() {
    assert_eq!(
        syntax_line("*** Begin Patch\n*** Update File: a\n@@\n-a\nb\n*** End Patch\n"),
        5
    );
}

#[test]
fn empty_patch_is_refused() {
    assert!(matches!(
        parse("*** Begin Patch\n*** End Patch\n", &NoFiles),
        Err(ParseError::Empty { .. })
    ));
    assert!(matches!(
        parse("just words\n", &NoFiles),
        Err(ParseError::Empty { .. })
    ));
}

#[test]
fn update_without_hunks_is_refused() {
    assert_eq!(
        syntax_line("*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n"),
        2
    );
}

#[test]
fn hunk_header_without_lines_is_refused() {
    assert_eq!(
        syntax_line(
            "*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n@@ def f():\n*** End Patch\n"
        ),
        6
    );
}

#[test]
fn first_hunk_may_omit_its_header_but_later_ones_may_not() {
    let p = parse_ok("*** Begin Patch\n*** Update File: a\n-a\n+b\n*** End Patch\n");
    assert_eq!(p.files[0].hunks, vec![hunk(vec![rem("a"), add("b")])]);
    assert_eq!(kinds(&p), vec!["hunk-header-missing"]);
    assert_eq!(
        syntax_line(
            "*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n*** End of File\n-c\n*** End Patch\n"
        ),
        7
    );
}

#[test]
fn missing_end_marker_at_end_of_text_is_refused_as_truncated() {
    let e = parse(
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n@@ def f\n-c\n",
        &NoFiles,
    )
    .expect_err("cut off");
    let ParseError::Truncated {
        path,
        hunk,
        missing,
        ..
    } = &e
    else {
        panic!("not a truncation: {e:?}")
    };
    assert_eq!(
        (path.as_str(), *hunk, *missing),
        ("src/a.py", Some(2), None)
    );
    assert_eq!(
        e.to_string(),
        "src/a.py: '*** Begin Patch' at line 1 has no '*** End Patch': the input ends in hunk 2; \
         the patch looks cut off, so nothing was applied (resend it whole)"
    );
}

#[test]
fn missing_end_marker_before_the_next_begin_is_a_syntax_error() {
    assert_eq!(
        syntax_line(
            "*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n*** Begin Patch\n*** Delete File: b\n*** End Patch\n"
        ),
        5
    );
}

#[test]
fn missing_end_marker_before_a_closing_fence_is_accepted() {
    let p = parse_ok("```\n*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n```\n");
    assert_eq!(
        p.files,
        vec![update("a", vec![hunk(vec![rem("a"), add("b")])])]
    );
    assert_eq!(kinds(&p), vec!["end-marker-missing", "fence-stripped"]);
}

#[test]
fn no_newline_marker_sets_the_side_it_follows() {
    let p = parse_ok(
        "*** Begin Patch\n*** Update File: a\n@@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n*** End Patch\n",
    );
    let h = &p.files[0].hunks[0];
    assert!(h.old_no_newline && h.new_no_newline);
    assert_eq!(h.lines, vec![rem("a"), add("b")]);
    assert_eq!(kinds(&p), vec!["no-newline-marker"]);
}

#[test]
fn crlf_input_is_read_as_lf() {
    let p =
        parse_ok("*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n");
    assert_eq!(
        p.files,
        vec![update("a", vec![hunk(vec![rem("a"), add("b")])])]
    );
    assert_eq!(kinds(&p), vec!["crlf-input"]);
}

#[test]
fn several_patches_in_one_response_are_concatenated() {
    let p = parse_ok(
        "First:\n```\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n```\nThen:\n```\n*** Begin Patch\n*** Delete File: b\n*** End Patch\n```\n",
    );
    let paths: Vec<&str> = p.files.iter().map(|f| f.display_path()).collect();
    assert_eq!(paths, vec!["a", "b"]);
}

#[test]
fn looks_like_ignores_a_unified_diff_that_mentions_the_marker() {
    assert!(looks_like(
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n"
    ));
    assert!(looks_like("```\n  *** Begin Patch\n"));
    assert!(!looks_like(
        "diff --git a/d.md b/d.md\n--- a/d.md\n+++ b/d.md\n@@ -1 +1 @@\n *** Begin Patch\n-x\n+y\n"
    ));
    assert!(!looks_like("<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n"));
    assert!(
        !looks_like("docs/codex.md\n<<<<<<< SEARCH\n*** Begin Patch\n=======\n*** Begin Patch\n\n>>>>>>> REPLACE\n"),
        "a SEARCH block editing a document about this format is not a Codex patch"
    );
}

#[test]
fn heredoc_delimiter_needs_a_word() {
    assert_eq!(
        heredoc_delimiter("apply_patch <<'EOF'").as_deref(),
        Some("EOF")
    );
    assert_eq!(heredoc_delimiter("cat <<-END | x").as_deref(), Some("END"));
    assert_eq!(heredoc_delimiter("x << 2"), None);
    assert_eq!(heredoc_delimiter("<<'EOF"), None);
}

/// The fixtures under `tests/fixtures/formats/` are for CLI tests; they must at least parse.
#[test]
fn own_fixtures_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
    let mut seen = 0;
    for entry in std::fs::read_dir(&root).expect("fixture folder exists") {
        let dir = entry.expect("readable fixture entry").path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.starts_with("codex-") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("patch")).expect("fixture has a patch");
        assert!(looks_like(&text), "{name} is detected as Codex");
        if let Some(before) = crate::parse::BeforeDir::of_case(&dir) {
            if let Err(e) = parse(&text, &before) {
                panic!("{name}: expected a patch, got {e}");
            }
        }
        seen += 1;
    }
    assert!(seen > 0);
}

/// Upstream's scenario fixtures (`../shared/codex-scenarios`), when present: those upstream
/// rejects while reading the patch are parse errors here, the others parse to the operations
/// their `expected/` tree implies. Scenarios added later must at least not panic.
#[test]
fn upstream_scenarios_parse_as_upstream_intends() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/codex-scenarios/scenarios");
    let Ok(entries) = std::fs::read_dir(&root) else {
        println!(
            "note: {} not found; upstream scenarios skipped",
            root.display()
        );
        return;
    };
    // `None`: upstream refuses the patch text itself.
    type Ops = Option<&'static [(FileOp, &'static str)]>;
    let expected: &[(&str, Ops)] = &[
        ("001_add_file", Some(&[(FileOp::Create, "bar.md")])),
        (
            "002_multiple_operations",
            Some(&[
                (FileOp::Create, "nested/new.txt"),
                (FileOp::Delete, "delete.txt"),
                (FileOp::Modify, "modify.txt"),
            ]),
        ),
        (
            "003_multiple_chunks",
            Some(&[(FileOp::Modify, "multi.txt")]),
        ),
        (
            "004_move_to_new_directory",
            Some(&[(FileOp::Rename, "renamed/dir/name.txt")]),
        ),
        ("005_rejects_empty_patch", None),
        (
            "006_rejects_missing_context",
            Some(&[(FileOp::Modify, "modify.txt")]),
        ),
        (
            "007_rejects_missing_file_delete",
            Some(&[(FileOp::Delete, "missing.txt")]),
        ),
        ("008_rejects_empty_update_hunk", None),
        (
            "009_requires_existing_file_for_update",
            Some(&[(FileOp::Modify, "missing.txt")]),
        ),
        (
            "010_move_overwrites_existing_destination",
            Some(&[(FileOp::Rename, "renamed/dir/name.txt")]),
        ),
        (
            "011_add_overwrites_existing_file",
            Some(&[(FileOp::Create, "duplicate.txt")]),
        ),
        (
            "012_delete_directory_fails",
            Some(&[(FileOp::Delete, "dir")]),
        ),
        ("013_rejects_invalid_hunk_header", None),
        (
            "014_update_file_appends_trailing_newline",
            Some(&[(FileOp::Modify, "no_newline.txt")]),
        ),
        (
            "015_failure_after_partial_success_leaves_changes",
            Some(&[
                (FileOp::Create, "created.txt"),
                (FileOp::Modify, "missing.txt"),
            ]),
        ),
        (
            "016_pure_addition_update_chunk",
            Some(&[(FileOp::Modify, "input.txt")]),
        ),
        (
            "017_whitespace_padded_hunk_header",
            Some(&[(FileOp::Modify, "foo.txt")]),
        ),
        (
            "018_whitespace_padded_patch_markers",
            Some(&[(FileOp::Modify, "file.txt")]),
        ),
        ("019_unicode_simple", Some(&[(FileOp::Modify, "foo.txt")])),
        (
            "020_delete_file_success",
            Some(&[(FileOp::Delete, "obsolete.txt")]),
        ),
        (
            "020_whitespace_padded_patch_marker_lines",
            Some(&[(FileOp::Modify, "file.txt")]),
        ),
        (
            "021_update_file_deletion_only",
            Some(&[(FileOp::Modify, "lines.txt")]),
        ),
        (
            "022_update_file_end_of_file_marker",
            Some(&[(FileOp::Modify, "tail.txt")]),
        ),
    ];
    let mut checked = 0;
    for entry in entries {
        let dir = entry.expect("readable scenario entry").path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let Ok(text) = std::fs::read_to_string(dir.join("patch.txt")) else {
            continue;
        };
        assert!(looks_like(&text), "{name} is detected as Codex");
        let got = parse(&text, &NoFiles);
        let Some((_, want)) = expected.iter().find(|(n, _)| *n == name) else {
            println!("note: scenario {name} has no expectation here; parsed as {got:?}");
            continue;
        };
        match (want, &got) {
            (None, Err(_)) => {}
            (Some(ops), Ok(p)) => {
                let have: Vec<(FileOp, &str)> =
                    p.files.iter().map(|f| (f.op(), f.display_path())).collect();
                assert_eq!(&have[..], *ops, "{name}");
            }
            _ => panic!("{name}: expected {want:?}, got {got:?}"),
        }
        checked += 1;
    }
    assert_eq!(checked, expected.len(), "every known scenario was found");
}

#[test]
fn upstream_pure_addition_and_eof_scenarios_have_the_right_shape() {
    // Mirrors of 016 and 022, kept here so they are checked without ../shared.
    let p = parse_ok("*** Begin Patch\n*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n*** End Patch\n");
    assert!(p.files[0].hunks[0].at_eof);
    let p = parse_ok("*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n");
    assert!(p.files[0].hunks[0].at_eof);
}

#[test]
fn lenient_fixture_reads_to_the_intended_model() {
    let text = include_str!("../../../tests/fixtures/formats/codex-02-lenient-heredoc/patch");
    let p = parse_ok(text);
    let app = update(
        "app.py",
        vec![
            Hunk {
                old_start: Some(1),
                new_start: Some(1),
                lines: vec![ctx("import os"), add("import sys")],
                ..Hunk::default()
            },
            Hunk {
                anchors: vec!["def main():".into()],
                lines: vec![
                    ctx("    path = os.getcwd()"),
                    ctx(""),
                    rem("    print(path)"),
                    add("    print(path, file=sys.stderr)"),
                    ctx("    return 0"),
                ],
                ..Hunk::default()
            },
            Hunk {
                lines: vec![
                    ctx("if __name__ == \"__main__\":"),
                    rem("    main()"),
                    add("    sys.exit(main())"),
                ],
                at_eof: true,
                ..Hunk::default()
            },
        ],
    );
    let notes = FilePatch {
        new_path: Some("NOTES.md".into()),
        create_mode: CreateMode::MayReplace,
        ordered: true,
        full_content: Some("# Notes\n\nRun `python app.py`.\n".into()),
        ..FilePatch::default()
    };
    assert_eq!(p.files, vec![app, notes]);
    assert_eq!(
        kinds(&p),
        vec![
            "fence-stripped",
            "heredoc-stripped",
            "prose-ignored",
            "marker-padding",
            "unified-hunk-header",
            "trailing-blank-dropped",
            "anchor-missing-space",
            "blank-context-line",
            "add-line-missing-plus",
        ]
    );
}
#[test]
fn a_second_move_line_is_a_syntax_error() {
    match parse(
        "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Move to: c\n@@\n-a\n+b\n*** End Patch\n",
        &NoFiles,
    ) {
        Err(ParseError::Syntax { line, message }) => {
            assert_eq!(line, 4);
            assert!(message.contains("must directly follow"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hunk_header_inside_an_added_file_is_a_syntax_error() {
    assert_eq!(
        syntax_line("*** Begin Patch\n*** Add File: a\n@@\n+b\n*** End Patch\n"),
        3
    );
}

#[test]
fn a_missing_end_is_read_at_the_prose_that_follows_an_update() {
    let files = crate::repo::MemFiles::default().with("a.txt", "one\ntwo\n");
    let p = parse(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n\nThat renames two.\n",
        &files,
    )
    .expect("the prose shows the patch ended");
    assert_eq!(
        p.files[0].hunks[0].lines,
        vec![ctx("one"), rem("two"), add("TWO")]
    );
    assert!(kinds(&p).contains(&"end-marker-missing"));
}

#[test]
fn a_missing_end_stays_a_cut_when_what_follows_could_be_the_patch() {
    let files = crate::repo::MemFiles::default().with("a.txt", "one\ntwo\nthree\n");
    for text in [
        // The last line is a line of the file: a context line without its space.
        "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\nthree\n",
        // A '-' line after the prose may be a removed line.
        "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\nNotes:\n- more\n",
        // After an Add, unprefixed lines are its content.
        "*** Begin Patch\n*** Add File: b.txt\n+x\ny\n",
    ] {
        assert!(
            matches!(parse(text, &files), Err(ParseError::Truncated { .. })),
            "{text}"
        );
    }
}

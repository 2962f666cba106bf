//! Parser tests for SEARCH/REPLACE blocks: exact models for every accepted form.

use super::*;
use crate::parse::NoFiles;
use crate::patch::{CreateMode, FileOp};

/// The parser on a text of the test's own (the shared copy is made here).
fn parse(text: &str, probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    super::parse(&std::sync::Arc::new(text.to_string()), probe)
}

/// A work tree that holds exactly the listed files.
struct Files(&'static [&'static str]);

impl PathProbe for Files {
    fn exists(&self, path: &str) -> bool {
        self.0.contains(&path)
    }
}

fn parse_ok(text: &str) -> Patch {
    parse_with(text, &NoFiles)
}

fn parse_with(text: &str, probe: &dyn PathProbe) -> Patch {
    match parse(text, probe) {
        Ok(p) => p,
        Err(e) => panic!("expected a patch, got {e}"),
    }
}

fn syntax_line(text: &str) -> usize {
    syntax_error(text).0
}

fn syntax_error(text: &str) -> (usize, String) {
    match parse(text, &NoFiles) {
        Err(ParseError::Syntax { line, message }) => (line, message),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

fn kinds(p: &Patch) -> Vec<&str> {
    p.notices.iter().map(|n| n.kind.as_str()).collect()
}

fn block_hunk(old: &[&str], new: &[&str]) -> Hunk {
    Hunk {
        lines: old
            .iter()
            .map(|t| Line::new(LineKind::Remove, *t))
            .chain(new.iter().map(|t| Line::new(LineKind::Add, *t)))
            .collect(),
        reindent: true,
        ..Hunk::default()
    }
}

/// A block split at its elision lines: one hunk, its lines given as `' '` (context), `'-'`
/// or `'+'` with their text.
fn split_hunk(lines: &[(char, &str)]) -> Hunk {
    let kind = |c| match c {
        ' ' => LineKind::Context,
        '-' => LineKind::Remove,
        _ => LineKind::Add,
    };
    Hunk {
        lines: lines.iter().map(|&(c, t)| Line::new(kind(c), t)).collect(),
        reindent: true,
        ..Hunk::default()
    }
}

fn modify(path: &str, hunks: Vec<Hunk>) -> FilePatch {
    FilePatch {
        old_path: Some(path.into()),
        new_path: Some(path.into()),
        hunks,
        ..FilePatch::default()
    }
}

fn paths(p: &Patch) -> Vec<&str> {
    p.files.iter().map(|f| f.display_path()).collect()
}

#[test]
fn path_before_the_fence_names_the_file() {
    let p = parse_ok("src/a.py\n```python\n<<<<<<< SEARCH\n    x = 1\n=======\n    x = 2\n>>>>>>> REPLACE\n```\n");
    assert_eq!(p.format, Format::SearchReplace);
    assert_eq!(
        p.files,
        vec![modify(
            "src/a.py",
            vec![block_hunk(&["    x = 1"], &["    x = 2"])]
        )]
    );
    assert!(!p.files[0].ordered, "blocks are located independently");
    assert!(p.notices.is_empty(), "{:?}", p.notices);
}

#[test]
fn path_directly_before_search_without_a_fence() {
    let p = parse_ok("a.txt\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n");
    assert_eq!(
        p.files,
        vec![modify("a.txt", vec![block_hunk(&["old"], &["new"])])]
    );
}

#[test]
fn path_inside_the_fence_before_search() {
    let p = parse_ok("```\na.txt\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n");
    assert_eq!(paths(&p), vec!["a.txt"]);
}

#[test]
fn markers_with_five_to_nine_characters_are_accepted() {
    let p = parse_ok("a.txt\n<<<<< SEARCH\nold\n=====\nnew\n>>>>> REPLACE\nb.txt\n<<<<<<<<< SEARCH\nx\n=========\ny\n>>>>>>>>> REPLACE\n");
    assert_eq!(paths(&p), vec!["a.txt", "b.txt"]);
    assert!(p.notices.is_empty());
}

#[test]
fn markers_of_two_characters_are_not_blocks_three_are() {
    assert!(matches!(
        parse("a.txt\n<< SEARCH\nold\n==\nnew\n>> REPLACE\n", &NoFiles),
        Err(ParseError::Empty { .. })
    ));
    let p = parse_ok("a.txt\n<<< SEARCH\nold\n===\nnew\n>>> REPLACE\nb.txt\n<<<<<<<<<< SEARCH\nx\n==========\ny\n>>>>>>>>>> REPLACE\n");
    assert_eq!(paths(&p), vec!["a.txt", "b.txt"]);
    assert!(!looks_like("a.txt\n<< SEARCH\nold\n==\nnew\n>> REPLACE\n"));
}

#[test]
fn blocks_for_one_path_accumulate_in_order_among_prose() {
    let p = parse_ok(
        "First the parser.\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\none\n=======\nuno\n>>>>>>> REPLACE\n```\n\nThen the docs:\n\nREADME.md\n```markdown\n<<<<<<< SEARCH\nHello\n=======\nHi\n>>>>>>> REPLACE\n```\n\nAnd the parser again:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\ntwo\n=======\ndos\n>>>>>>> REPLACE\n```\nThat's all.\n",
    );
    assert_eq!(
        p.files,
        vec![
            modify(
                "src/a.py",
                vec![
                    block_hunk(&["one"], &["uno"]),
                    block_hunk(&["two"], &["dos"])
                ]
            ),
            modify("README.md", vec![block_hunk(&["Hello"], &["Hi"])]),
        ]
    );
}

#[test]
fn several_blocks_in_one_fence_continue_the_same_file() {
    let p = parse_ok("a.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n");
    assert_eq!(
        p.files,
        vec![modify(
            "a.py",
            vec![block_hunk(&["a"], &["b"]), block_hunk(&["c"], &["d"])]
        )]
    );
    assert_eq!(kinds(&p), vec!["path-reused"]);
    assert_eq!(p.notices[0].path.as_deref(), Some("a.py"));
}

#[test]
fn a_pathless_block_after_prose_is_refused() {
    let (line, message) = syntax_error(
        "a.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nNow the tests:\n\n```python\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n",
    );
    assert_eq!(line, 10);
    assert!(message.starts_with("no file path"), "{message}");
}

#[test]
fn a_first_block_without_a_path_is_refused() {
    assert_eq!(
        syntax_line("```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"),
        2
    );
    assert_eq!(
        syntax_line("Here is the change:\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"),
        2
    );
    assert_eq!(
        syntax_line("python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"),
        2,
        "a bare word that is no file is not a path"
    );
}

#[test]
fn a_bare_word_path_counts_when_the_file_exists() {
    let p = parse_with(
        "Makefile\n<<<<<<< SEARCH\nall:\n=======\nall: build\n>>>>>>> REPLACE\n",
        &Files(&["Makefile"]),
    );
    assert_eq!(paths(&p), vec!["Makefile"]);
}

#[test]
fn decorated_path_lines_are_cleaned() {
    for (line, want) in [
        ("### src/a.py", "src/a.py"),
        ("**src/a.py**", "src/a.py"),
        ("`src/a.py`:", "src/a.py"),
        ("src/a.py:", "src/a.py"),
        ("File: ./src/a.py", "src/a.py"),
        ("In `src/a.py`, change the loop:", "src/a.py"),
        ("```python src/a.py", "src/a.py"),
        ("```src/a.py", "src/a.py"),
    ] {
        let fence = if line.starts_with("```") {
            ""
        } else {
            "```python\n"
        };
        let text = format!("{line}\n{fence}<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n");
        assert_eq!(paths(&parse_ok(&text)), vec![want], "{line}");
    }
}

#[test]
fn prose_naming_exactly_one_existing_file_names_it() {
    let text = "Update src/a.py as follows:\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n";
    let p = parse_with(text, &Files(&["src/a.py"]));
    assert_eq!(paths(&p), vec!["src/a.py"]);
    assert!(
        matches!(
            parse(text, &NoFiles),
            Err(ParseError::Syntax { line: 2, .. })
        ),
        "without the file in the tree the prose names nothing"
    );
    let two = "Move code from a.py to b.py:\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n";
    assert!(matches!(
        parse(two, &Files(&["a.py", "b.py"])),
        Err(ParseError::Syntax { line: 2, .. })
    ));
}

#[test]
fn a_path_with_spaces_counts_when_the_file_exists() {
    let p = parse_with(
        "docs/My Notes.md\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
        &Files(&["docs/My Notes.md"]),
    );
    assert_eq!(paths(&p), vec!["docs/My Notes.md"]);
}

#[test]
fn empty_search_on_a_missing_file_creates_it() {
    let p = parse_ok("new/mod.rs\n```rust\n<<<<<<< SEARCH\n=======\npub fn f() {}\n\npub fn g() {}\n>>>>>>> REPLACE\n```\n");
    assert_eq!(
        p.files,
        vec![FilePatch {
            new_path: Some("new/mod.rs".into()),
            full_content: Some("pub fn f() {}\n\npub fn g() {}\n".into()),
            create_mode: CreateMode::MustNotExist,
            ..FilePatch::default()
        }]
    );
    assert_eq!(p.files[0].op(), FileOp::Create);
    assert!(p.notices.is_empty());
}

#[test]
fn empty_search_blocks_for_one_new_file_concatenate() {
    let p = parse_ok("n.txt\n<<<<<<< SEARCH\n=======\na\n>>>>>>> REPLACE\nn.txt\n<<<<<<< SEARCH\n=======\nb\n>>>>>>> REPLACE\n");
    assert_eq!(p.files.len(), 1);
    assert_eq!(p.files[0].full_content.as_deref(), Some("a\nb\n"));
}

#[test]
fn empty_search_on_an_existing_file_appends_and_says_so() {
    let p = parse_with(
        "log.txt\n<<<<<<< SEARCH\n\n=======\nlast\n>>>>>>> REPLACE\n",
        &Files(&["log.txt"]),
    );
    assert_eq!(
        p.files,
        vec![modify(
            "log.txt",
            vec![Hunk {
                lines: vec![Line::new(LineKind::Add, "last")],
                at_eof: true,
                ..Hunk::default()
            }]
        )]
    );
    assert_eq!(kinds(&p), vec!["empty-search-appends"]);
}

#[test]
fn editing_a_file_created_earlier_in_the_response_is_refused() {
    let (line, message) = syntax_error(
        "n.txt\n<<<<<<< SEARCH\n=======\na\n>>>>>>> REPLACE\nn.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
    );
    assert_eq!(line, 7);
    assert!(message.contains("created by an earlier block"), "{message}");
}

#[test]
fn empty_block_is_ignored_with_a_notice() {
    let p = parse_ok("a.txt\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\nb.txt\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
    assert_eq!(paths(&p), vec!["b.txt"]);
    assert_eq!(kinds(&p), vec!["empty-block-ignored"]);
}

#[test]
fn empty_replace_removes_the_search_text() {
    let p = parse_ok("a.txt\n<<<<<<< SEARCH\ngone\n=======\n>>>>>>> REPLACE\n");
    assert_eq!(p.files[0].hunks, vec![block_hunk(&["gone"], &[])]);
}

#[test]
fn elision_lines_split_a_block_into_changed_pieces() {
    let p = parse_ok(
        "c.py\n<<<<<<< SEARCH\ndef f():\n    a = 1\n...\n    b = 2\n...\n    return a\n=======\ndef f():\n    a = 10\n...\n    b = 2\n...\n    return a + b\n>>>>>>> REPLACE\n",
    );
    assert_eq!(
        p.files,
        vec![modify(
            "c.py",
            vec![split_hunk(&[
                (' ', "def f():"),
                ('-', "    a = 1"),
                ('+', "    a = 10"),
                (' ', "..."),
                (' ', "    b = 2"),
                (' ', "..."),
                ('-', "    return a"),
                ('+', "    return a + b"),
            ])]
        )],
        "one hunk: the pieces around the elision lines, those that change nothing as context"
    );
    assert_eq!(kinds(&p), vec!["elision-split"]);
}

#[test]
fn unequal_elision_counts_keep_dots_as_text() {
    let p = parse_ok("s.py\n<<<<<<< SEARCH\ndef f(self):\n    ...\n=======\ndef f(self):\n    return 1\n>>>>>>> REPLACE\n");
    assert_eq!(
        p.files[0].hunks,
        vec![block_hunk(
            &["def f(self):", "    ..."],
            &["def f(self):", "    return 1"]
        )]
    );
    assert!(p.notices.is_empty());
}

#[test]
fn elision_with_new_text_but_no_search_piece_is_refused() {
    let (line, message) =
        syntax_error("a.txt\n<<<<<<< SEARCH\n...\nx\n=======\nnew\n...\nx\n>>>>>>> REPLACE\n");
    assert_eq!(line, 2);
    assert!(message.contains("no SEARCH lines"), "{message}");
}

#[test]
fn an_unchanged_elided_block_keeps_its_pieces() {
    let p = parse_ok("a.txt\n<<<<<<< SEARCH\na\n...\nb\n=======\na\n...\nb\n>>>>>>> REPLACE\n");
    assert_eq!(
        p.files[0].hunks,
        vec![split_hunk(&[(' ', "a"), (' ', "..."), (' ', "b")])]
    );
}

#[test]
fn missing_divider_or_replace_is_a_syntax_error_at_the_block() {
    let (line, message) = syntax_error("a.txt\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n");
    assert_eq!(line, 2);
    assert!(message.contains("no '=======' line"), "{message}");
    let (line, message) = syntax_error("a.txt\n```\n<<<<<<< SEARCH\nx\n=======\ny\n```\n");
    assert_eq!(line, 3);
    assert!(message.contains("no closing"), "{message}");
}

#[test]
fn a_block_open_at_the_end_of_the_text_is_cut_off() {
    let e = parse(
        "a.txt\n<<<<<<< SEARCH\nw\n=======\nW\n>>>>>>> REPLACE\na.txt\n<<<<<<< SEARCH\nx\n=======\ny\n",
        &NoFiles,
    )
    .expect_err("cut off");
    assert_eq!(
        e,
        ParseError::Truncated {
            path: "a.txt".into(),
            hunk: Some(2),
            missing: None,
            what: "block 2 (opened at line 8) has no closing '>>>>>>> REPLACE': the input ends \
                   inside its REPLACE text"
                .into(),
        }
    );
    // A single block cut inside its SEARCH text is still read as SEARCH/REPLACE.
    let text = "b.py\n```python\n<<<<<<< SEARCH\ndef f():\n";
    assert_eq!(crate::parse::detect(text), Format::SearchReplace);
    assert!(matches!(
        parse(text, &NoFiles),
        Err(ParseError::Truncated { hunk: Some(1), .. })
    ));
}

#[test]
fn a_search_inside_an_open_block_is_a_syntax_error() {
    let (line, message) = syntax_error(
        "a.txt\n<<<<<<< SEARCH\nx\n=======\ny\nb\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n",
    );
    assert_eq!(line, 7);
    assert!(
        message.contains("before the block opened at line 2"),
        "{message}"
    );
}

#[test]
fn replace_without_search_is_a_syntax_error() {
    assert_eq!(syntax_line("a.txt\n=======\ny\n>>>>>>> REPLACE\n"), 4);
}

#[test]
fn several_divider_like_lines_resolve_to_the_canonical_one() {
    let p = parse_ok(
        "README.rst\n<<<<<<< SEARCH\nTitle\n=====\n=======\nHeading\n=====\n>>>>>>> REPLACE\n",
    );
    assert_eq!(
        p.files[0].hunks,
        vec![block_hunk(&["Title", "====="], &["Heading", "====="])]
    );
}

#[test]
fn several_canonical_dividers_are_refused_as_ambiguous() {
    match parse(
        "a.rst\n<<<<<<< SEARCH\nT\n=======\n=======\nH\n=======\n>>>>>>> REPLACE\n",
        &NoFiles,
    ) {
        Err(ParseError::Syntax { line, message }) => {
            assert_eq!(line, 2);
            assert!(message.contains("lines 4, 5, 7"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn padded_markers_are_accepted_and_reported() {
    let p = parse_ok("a.txt\n  <<<<<<< SEARCH\nold\n=======  \nnew\n >>>>>>> REPLACE\n");
    assert_eq!(p.files[0].hunks, vec![block_hunk(&["old"], &["new"])]);
    assert_eq!(kinds(&p), vec!["marker-padding"]);
    assert!(p.notices[0].message.ends_with("(lines 2, 4, 6)"));
}

#[test]
fn crlf_input_is_read_as_lf() {
    let p = parse_ok("a.txt\r\n<<<<<<< SEARCH\r\nold\r\n=======\r\nnew\r\n>>>>>>> REPLACE\r\n");
    assert_eq!(
        p.files,
        vec![modify("a.txt", vec![block_hunk(&["old"], &["new"])])]
    );
    assert_eq!(kinds(&p), vec!["crlf-input"]);
}

#[test]
fn no_block_is_an_empty_patch() {
    assert!(matches!(
        parse("nothing to see\n", &NoFiles),
        Err(ParseError::Empty { .. })
    ));
}

#[test]
fn looks_like_needs_all_three_markers_and_no_unified_header_first() {
    assert!(looks_like(
        "a\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    ));
    assert!(looks_like(
        "Prose.\n\na\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    ));
    assert!(!looks_like("<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n"));
    assert!(!looks_like(
        "--- a/d.md\n+++ b/d.md\n@@ -1,3 +1,3 @@\n <<<<<<< SEARCH\n =======\n >>>>>>> REPLACE\n"
    ));
    assert!(!looks_like("<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> branch\n"));
}

#[test]
fn auto_detection_tells_the_three_formats_apart() {
    use crate::parse::detect;
    assert_eq!(
        detect("a.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"),
        Format::SearchReplace
    );
    assert_eq!(
        detect("```\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n```\n"),
        Format::Codex
    );
    assert_eq!(
        detect("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"),
        Format::Unified
    );
}

#[test]
fn elision_fixture_reads_to_one_hunk_around_its_elision() {
    let p = parse_ok(include_str!(
        "../../../tests/fixtures/formats/sr-03-elision/patch"
    ));
    assert_eq!(
        p.files,
        vec![modify(
            "config.py",
            vec![split_hunk(&[
                (' ', "DEFAULTS = {"),
                (' ', "    \"name\": \"demo\","),
                ('-', "    \"debug\": False,"),
                ('+', "    \"debug\": True,"),
                (' ', "..."),
                (' ', "    \"retries\": 3,"),
                ('-', "    \"timeout\": 10,"),
                ('+', "    \"timeout\": 30,"),
                (' ', "}"),
            ])]
        )]
    );
}

#[test]
fn create_and_append_fixture_reads_as_intended() {
    let p = parse_with(
        include_str!("../../../tests/fixtures/formats/sr-02-create-and-append/patch"),
        &Files(&["CHANGES.txt"]),
    );
    assert_eq!(
        p.files[0].full_content.as_deref(),
        Some("def hello():\n    return \"hi\"\n")
    );
    assert_eq!(p.files[1].op(), FileOp::Modify);
    assert!(p.files[1].hunks[0].at_eof);
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
        if !name.starts_with("sr-") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("patch")).expect("fixture has a patch");
        assert_eq!(crate::parse::detect(&text), Format::SearchReplace, "{name}");
        if let Some(before) = crate::parse::BeforeDir::of_case(&dir) {
            if let Err(e) = parse(&text, &before) {
                panic!("{name}: expected a patch, got {e}");
            }
        }
        seen += 1;
    }
    assert!(seen > 0);
}

#[test]
fn a_block_without_any_path_goes_to_the_one_file_that_holds_its_search_text() {
    let files = crate::repo::MemFiles::default()
        .with("a.py", "x = 1\ny = 2\n")
        .with("b.py", "x = 1\nz = 3\n");
    let p = parse_with(
        "<<<<<<< SEARCH\ny = 2\n=======\ny = 20\n>>>>>>> REPLACE\n",
        &files,
    );
    assert_eq!(paths(&p), vec!["a.py"]);
    assert!(kinds(&p).contains(&"path-from-content"));
    match parse(
        "<<<<<<< SEARCH\nx = 1\n=======\nx = 10\n>>>>>>> REPLACE\n",
        &files,
    ) {
        Err(ParseError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, vec!["a.py".to_string(), "b.py".to_string()])
        }
        other => panic!("expected a refusal naming both files, got {other:?}"),
    }
    assert!(matches!(
        parse(
            "<<<<<<< SEARCH\nnowhere\n=======\nx\n>>>>>>> REPLACE\n",
            &files
        ),
        Err(ParseError::Syntax { .. })
    ));
}

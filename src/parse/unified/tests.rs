//! Parser tests for the unified-diff dialects of issue 12, on strings and in-memory files.

use super::*;
use crate::parse::NoFiles;
use crate::repo::MemFiles;

/// The parser on a text of the test's own (the shared copy is made here).
fn parse(text: &str, probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    super::parse(&std::sync::Arc::new(text.to_string()), probe)
}

fn texts(h: &Hunk) -> Vec<(LineKind, &str)> {
    h.lines.iter().map(|l| (l.kind, l.text.as_str())).collect()
}

fn kinds(p: &Patch) -> Vec<&str> {
    p.notices.iter().map(|n| n.kind.as_str()).collect()
}

const FILE: &str = "def f(x):\n    if x:\n        return 1\n    return 0\n";

#[test]
fn unprefixed_lines_are_context_only_when_the_file_has_them() {
    let files = MemFiles::default().with("a.py", FILE);
    let patch = "--- a/a.py\n+++ b/a.py\n@@ @@\ndef f(x):\n    if x:\n-        return 1\n+        return 2\n    return 0\nThat is the fix.\n";
    let p = parse(patch, &files).expect("parses");
    assert_eq!(
        texts(&p.files[0].hunks[0]),
        vec![
            (LineKind::Context, "def f(x):"),
            (LineKind::Context, "    if x:"),
            (LineKind::Remove, "        return 1"),
            (LineKind::Add, "        return 2"),
            (LineKind::Context, "    return 0"),
        ],
        "space-led lines keep their indentation; the prose ends the hunk"
    );
    assert!(kinds(&p).contains(&"context-prefix-repaired"));
    // Without the file, nothing says the unprefixed line is context: the hunk has no lines.
    assert!(matches!(
        parse(patch, &NoFiles),
        Err(ParseError::Syntax { .. })
    ));
}

/// A file with markdown in it (a crate's doc comment holds a ```toml block): its fence lines,
/// written without their leading space inside a hunk whose counts need more, are context
/// (bitflags' src/lib.rs); the fence that closes a reply after a complete hunk still ends it.
#[test]
fn an_unprefixed_fence_line_of_the_file_is_context_while_the_counts_need_more() {
    let file = "Add it to Cargo.toml:\n\n```toml\n[dependencies.bitflags]\nversion = \"2.4.2\"\n```\n\n## Generating flags types\n";
    let files = MemFiles::default().with("src/lib.rs", file);
    let patch = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -2,7 +2,7 @@\n\n```toml\n[dependencies.bitflags]\n-version = \"2.4.2\"\n+version = \"2.5.0\"\n```\n\n## Generating flags types\n";
    let p = parse(patch, &files).expect("parses");
    assert_eq!(
        texts(&p.files[0].hunks[0]),
        vec![
            (LineKind::Context, ""),
            (LineKind::Context, "```toml"),
            (LineKind::Context, "[dependencies.bitflags]"),
            (LineKind::Remove, "version = \"2.4.2\""),
            (LineKind::Add, "version = \"2.5.0\""),
            (LineKind::Context, "```"),
            (LineKind::Context, ""),
            (LineKind::Context, "## Generating flags types"),
        ]
    );
    // In a reply's fence, a hunk whose counts are met ends at the closing fence, the file's
    // own ``` line or not.
    let fenced = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -4,2 +4,2 @@\n [dependencies.bitflags]\n-version = \"2.4.2\"\n+version = \"2.5.0\"\n```\n\n## Generating flags types\n";
    let p = parse(fenced, &files).expect("parses");
    assert_eq!(p.files[0].hunks[0].lines.len(), 3);
    // Nor does a closing fence followed by a markdown bullet go on, when the header counts
    // one line too many.
    let bullet = "```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -4,3 +4,3 @@\n [dependencies.bitflags]\n-version = \"2.4.2\"\n+version = \"2.5.0\"\n```\n\n- Bumped the version.\n";
    let p = parse(bullet, &files).expect("parses");
    assert_eq!(p.files[0].hunks[0].lines.len(), 3);
}

#[test]
fn a_hunk_with_its_counts_met_ends_before_an_unprefixed_file_line() {
    let files = MemFiles::default().with("a.py", FILE);
    let patch = "--- a/a.py\n+++ b/a.py\n@@ -3,1 +3,1 @@\n-        return 1\n+        return 2\ndef f(x):\n";
    let p = parse(patch, &files).expect("parses");
    assert_eq!(p.files[0].hunks[0].lines.len(), 2, "the counts are met");
}

#[test]
fn the_mail_signature_ends_the_last_hunk() {
    let patch = "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\nSubject: [PATCH] x\n\n---\n f | 2 +-\n\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n-- \n2.47.3\n\n";
    let p = parse(patch, &NoFiles).expect("parses");
    assert_eq!(
        texts(&p.files[0].hunks[0]),
        vec![
            (LineKind::Context, "a"),
            (LineKind::Remove, "b"),
            (LineKind::Add, "c"),
        ]
    );
    assert!(kinds(&p).contains(&"mailbox-read"));
}

#[test]
fn a_removed_dash_line_is_no_signature_while_the_counts_want_it() {
    // `-- ` here removes the line "- ": the header counts it, no version line follows.
    let patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n a\n-- \n";
    let p = parse(patch, &NoFiles).expect("parses");
    assert_eq!(
        texts(&p.files[0].hunks[0]),
        vec![(LineKind::Context, "a"), (LineKind::Remove, "- ")]
    );
}

#[test]
fn gnu_headers_swapped_or_alone_name_the_file() {
    for patch in [
        "+++ b/f\n--- a/f\n@@ -1 +1 @@\n-a\n+b\n",
        "--- f\n@@ -1 +1 @@\n-a\n+b\n",
        "+++ f\n@@ -1 +1 @@\n-a\n+b\n",
    ] {
        let p = parse(patch, &NoFiles).expect("parses");
        assert_eq!(p.files[0].old_path.as_deref(), Some("f"), "{patch}");
        assert_eq!(p.files[0].new_path.as_deref(), Some("f"), "{patch}");
        assert!(kinds(&p).contains(&"file-header-repaired"));
    }
}

#[test]
fn junk_between_hunks_is_skipped_unless_it_could_be_hunk_lines() {
    let ok = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nnow the other one\n@@ -5 +5 @@\n-e\n+E\n";
    let p = parse(ok, &NoFiles).expect("parses");
    assert_eq!(p.files[0].hunks.len(), 2);
    assert!(
        !p.files[0].raw.contains("now the other one"),
        "git apply never sees it"
    );
    assert!(kinds(&p).contains(&"junk-between-hunks"));
    let risky = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nnow\n-c\n+C\n@@ -5 +5 @@\n-e\n+E\n";
    assert!(matches!(
        parse(risky, &NoFiles),
        Err(ParseError::Syntax { .. })
    ));
    // A hunk shorter than its counts may have lost a line to the "junk".
    let short = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+b\nnote\n@@ -5 +5 @@\n-e\n+E\n";
    assert!(parse(short, &NoFiles).is_err());
}

#[test]
fn an_empty_zero_hunk_changes_nothing() {
    let p = parse("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +0,0 @@\n", &NoFiles).expect("parses");
    assert_eq!(p.files[0].op(), crate::patch::FileOp::Create);
    assert!(p.files[0].hunks.is_empty());
    assert!(matches!(
        parse("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n", &NoFiles),
        Err(ParseError::Syntax { .. })
    ));
}

/// Header counts are untrusted: hunks that each promise millions of lines must not each
/// reserve room for the rest of the input (quadratic memory in the patch's size).
#[test]
fn overstated_hunk_counts_do_not_reserve_the_rest_of_the_input() {
    let mut patch = String::from("--- a/f.txt\n+++ b/f.txt\n");
    let n = 2_000;
    for k in 0..n {
        let at = k * 3 + 1;
        patch.push_str(&format!(
            "@@ -{at},99999999 +{at},99999999 @@\n-line {k}\n+line {k} x\n"
        ));
    }
    patch.push_str(&format!("@@ -{0},1 +{0},1 @@\n-end\n+END\n", n * 3 + 1));
    let p = parse(&patch, &NoFiles).expect("parses");
    let hunks = &p.files[0].hunks;
    let lines: usize = hunks.iter().map(|h| h.lines.len()).sum();
    let reserved: usize = hunks.iter().map(|h| h.lines.capacity()).sum();
    assert!(
        reserved <= 4 * lines,
        "{} hunks of {lines} lines in all reserve room for {reserved}",
        hunks.len()
    );
}

proptest::proptest! {
    /// The hand-made timestamp matcher strips what the pattern it replaced strips, with
    /// ASCII digits (the replaced pattern's `\d` also took other scripts' digits, which no
    /// `diff -u` timestamp has).
    #[test]
    fn a_timestamp_after_a_name_is_stripped_as_the_pattern_says(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just("a b"), proptest::strategy::Just(" "),
                proptest::strategy::Just("2024-01-02 10:00:00"), proptest::strategy::Just(".123"),
                proptest::strategy::Just(" +0000"), proptest::strategy::Just(" -0130"),
                proptest::strategy::Just("7"), proptest::strategy::Just("."),
                proptest::strategy::Just("-"), proptest::strategy::Just(":"),
                proptest::strategy::Just("é"),
            ],
            0..8,
        ),
    ) {
        let v = parts.concat();
        let pattern = regex::Regex::new(
            r" +[0-9]{4}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9](\.[0-9]+)?( [+-][0-9]{4})?$",
        )
        .expect("regex");
        proptest::prop_assert_eq!(without_timestamp(&v), &*pattern.replace(&v, ""), "{:?}", v);
    }
}

#[test]
fn timestamps_after_names_are_stripped() {
    for (v, want) in [
        ("my file 2024-01-01 10:00:00.000 +0000", "my file"),
        ("my file  2024-01-01 10:00:00", "my file"),
        ("f 2024-01-01 10:00:00 +0000", "f"),
        ("f 2024-01-01 10:00:00.5", "f"),
        ("2024-01-01 10:00:00", "2024-01-01 10:00:00"),
        ("f 2024-01-01 10:00", "f 2024-01-01 10:00"),
        ("f 2024-01-01 10:00:00 +00", "f 2024-01-01 10:00:00 +00"),
    ] {
        assert_eq!(without_timestamp(v), want, "{v:?}");
    }
}

#[test]
fn the_text_for_git_apply_is_the_section_less_its_junk_with_each_line_ending_in_lf() {
    // Body lines ending in CRLF (the file's own), junk between hunks, and runs of lines that
    // follow one another: the text is each kept line and a newline, nothing else.
    let patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\r\n+b\r\n c\nnow the other one\n@@ -5 +5 @@\n-e\n+E\r\n";
    let p = parse(patch, &NoFiles).expect("parses");
    assert_eq!(
        p.files[0].raw,
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n@@ -5 +5 @@\n-e\n+E\n"
    );
}

#[test]
fn lines_that_stand_for_left_out_lines_are_told_by_their_dots_or_ellipsis() {
    for line in [
        "...",
        "    // ... existing code ...",
        "# …",
        "  /* … rest of the function … */",
        "<!-- ... -->",
    ] {
        assert!(super::stands_for_lines(line), "{line:?}");
    }
    for line in [
        "let s = \"wait…\";",
        "    call(a, ...rest);",
        "a.b.c",
        "// see the docs",
        "",
    ] {
        assert!(!super::stands_for_lines(line), "{line:?}");
    }
}

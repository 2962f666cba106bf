//! Tests of the diagnostics, the warnings and the closest path.

use super::*;
use crate::plan::locate::DecidedBy;

#[test]
fn visible_spells_out_invisible_characters() {
    assert_eq!(visible("a\tb", true), "a\\tb");
    assert_eq!(visible("a\tb", false), "a\tb");
    assert_eq!(visible("x = 1  ", true), "x = 1\\u{20}\\u{20}");
    assert_eq!(visible("a\u{a0}b\u{200b}", true), "a\\u{a0}b\\u{200b}");
    assert_eq!(visible("end\r", true), "end\\r");
    assert_eq!(
        visible("plain \\n", true),
        "plain \\n",
        "no escape, verbatim"
    );
    assert_eq!(visible("\"\\t\"\t", true), "\"\\\\t\"\\t");
}

#[test]
fn first_difference_counts_characters_from_one() {
    assert_eq!(first_difference("abc", "abd"), Some(3));
    assert_eq!(first_difference("é1", "é2"), Some(2));
    assert_eq!(first_difference("ab", "ab "), Some(3));
    assert_eq!(first_difference("ab", "ab"), None);
}

#[test]
fn classify_names_the_kind_of_difference() {
    assert_eq!(classify("\tx = 1", "    x = 1"), DifferenceKind::Whitespace);
    assert_eq!(classify("x = 1", "x = 1 "), DifferenceKind::Whitespace);
    assert_eq!(
        classify("say \"hi\"", "say \u{201c}hi\u{201d}"),
        DifferenceKind::Unicode
    );
    assert_eq!(classify("a\u{a0}b", "a b"), DifferenceKind::Unicode);
    assert_eq!(
        classify("def run(self, a, ...", "def run(self, a, b):"),
        DifferenceKind::Truncated
    );
    assert_eq!(classify("x = 1", "x = 2"), DifferenceKind::Content);
}

#[test]
fn elision_lines_are_prose_around_an_ellipsis() {
    assert!(is_elision("    // ... existing code ..."));
    assert!(is_elision("# …"));
    assert!(!is_elision("foo(a, ...)"));
    assert!(!is_elision("x = 1"));
}

#[test]
fn closest_path_prefers_the_same_name_then_few_typos() {
    let known: Vec<String> = [
        "src/main.rs",
        "src/lib.rs",
        "src/plan/locate.rs",
        "README.md",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        closest_path("plan/locate.rs", &known).as_deref(),
        Some("src/plan/locate.rs")
    );
    assert_eq!(
        closest_path("src/plan/locte.rs", &known).as_deref(),
        Some("src/plan/locate.rs")
    );
    assert_eq!(
        closest_path("readme.md", &known).as_deref(),
        Some("README.md")
    );
    assert_eq!(closest_path("src/unrelated_module.rs", &known), None);
}

fn lines(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

fn file_lines(s: &str) -> Vec<Line<'_>> {
    s.lines().map(Line::Borrowed).collect()
}

#[test]
fn the_closest_region_is_found_near_the_hint_and_its_differences_named() {
    let mut file = String::new();
    for i in 0..200 {
        file.push_str(&format!("line {i}\n"));
    }
    file = file.replace("line 120\n", "line 120 changed\n");
    let hay_lines = file_lines(&file);
    let hay = Haystack::new(&hay_lines);
    let old = lines("line 118\nline 119\nline 120\nline 121\n");
    let c = closest_region(&hay, &old, Some(117)).expect("a region");
    assert_eq!((c.start, c.end), (119, 122));
    assert_eq!(c.matched, 3);
    assert_eq!(c.differences.len(), 1);
    let d = &c.differences[0];
    assert_eq!(d.kind, DifferenceKind::Content);
    assert_eq!(d.hunk_line, Some(3));
    assert_eq!(d.file_line, Some(121));
    assert_eq!(d.column, Some(9));
}

#[test]
fn no_region_when_no_distinctive_line_is_there() {
    let hay_lines = file_lines("a\nb\nc\n");
    let hay = Haystack::new(&hay_lines);
    assert!(closest_region(&hay, &lines("something else\n"), None).is_none());
}

#[test]
fn a_missing_blank_line_is_named() {
    let hay_lines = file_lines("fn a() {\n    one();\n    two();\n}\n");
    let hay = Haystack::new(&hay_lines);
    let old = lines("fn a() {\n    one();\n\n    two();\n}\n");
    let c = closest_region(&hay, &old, None).expect("a region");
    assert_eq!(c.differences[0].kind, DifferenceKind::MissingBlankLine);
    assert_eq!(c.differences[0].hunk_line, Some(3));
}

proptest::proptest! {
    /// The hunk a range runs into, found by bisection among disjoint regions, is the one a
    /// walk over the earlier hunks finds; overlapping regions take the walk.
    #[test]
    fn the_hunk_a_range_runs_into_is_the_first_one(
        spans in proptest::collection::vec((0..40usize, 0..6usize, proptest::bool::ANY), 0..12),
        queries in proptest::collection::vec((0..50usize, 0..8usize, 0..13usize), 1..16),
    ) {
        let located: Vec<Located> = spans
            .iter()
            .map(|&(start, len, placed)| {
                if placed {
                    Located::Placed(Placement {
                        start,
                        end: start + len,
                        mapping: Vec::new(),
                        inserts: Vec::new(),
                        pass: Pass::Exact,
                        occurrences: 1,
                        decided_by: DecidedBy::Unique,
                        fuzz: None,
                    })
                } else {
                    Located::NotFound { reason: None }
                }
            })
            .collect();
        let placed = Placed::new(&located);
        for &(s, n, i) in &queries {
            let i = i.min(located.len());
            let walk = located[..i].iter().position(|l| match l {
                Located::Placed(p) => !(s + n <= p.start || s >= p.end),
                _ => false,
            });
            proptest::prop_assert_eq!(placed.overlapping(s, s + n, i), walk);
        }
    }
}

//! Property tests on the library's pure stages: the diff of a→b applied to a gives b, also
//! with shifted or missing hunk numbers; repeated context with no hint is never applied.

use git_llm_apply::parse::{self, NoFiles};
use git_llm_apply::plan::{self, FileStatus, Options};
use git_llm_apply::repo::{Entry, Files, MemFiles};
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    // A small alphabet, so that lines repeat and alignment is exercised.
    prop_oneof![
        Just("".to_string()),
        Just("}".to_string()),
        "[a-e]{1,3}",
        "  [a-c] = [0-9]",
    ]
}

fn file(eol: &'static str) -> impl Strategy<Value = String> {
    (prop::collection::vec(line(), 0..40), any::<bool>()).prop_map(move |(lines, final_nl)| {
        let mut s = lines.join(eol);
        if final_nl && !lines.is_empty() {
            s.push_str(eol);
        }
        s
    })
}

fn unified(a: &str, b: &str) -> String {
    similar::TextDiff::from_lines(a, b)
        .unified_diff()
        .context_radius(3)
        .header("a/f.txt", "b/f.txt")
        .to_string()
}

fn apply(files: &MemFiles, patch_text: &str) -> Option<(FileStatus, Option<Vec<u8>>)> {
    let patch = parse::parse(patch_text, None, &NoFiles).ok()?;
    let plan = plan::plan(&patch, files, &Options::default()).expect("in-memory reads");
    let f = &plan.files[0];
    let after = match plan.changes.iter().find(|c| c.path == "f.txt") {
        Some(c) => c.after.as_ref().map(|s| s.bytes.to_vec()),
        None => match files.read("f.txt").expect("read") {
            Entry::File(s) => Some(s.bytes.to_vec()),
            _ => None,
        },
    };
    Some((f.status, after))
}

/// Rewrite every hunk header: shift the numbers by `delta`, or drop them.
fn mangle_headers(patch: &str, delta: Option<i64>) -> String {
    let re = regex::Regex::new(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@").expect("regex");
    patch
        .lines()
        .map(|l| {
            if let Some(c) = re.captures(l) {
                match delta {
                    None => "@@ @@".to_string(),
                    Some(d) => {
                        let o: i64 = c[1].parse().expect("num");
                        let n: i64 = c[3].parse().expect("num");
                        format!(
                            "@@ -{}{} +{}{} @@",
                            (o + d).max(1),
                            c.get(2).map_or("", |m| m.as_str()),
                            (n + d).max(1),
                            c.get(4).map_or("", |m| m.as_str())
                        )
                    }
                }
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_diff_of_a_to_b_applied_to_a_gives_b(a in file("\n"), b in file("\n")) {
        prop_assume!(a != b);
        let files = MemFiles::default().with("f.txt", &a);
        let (status, after) = apply(&files, &unified(&a, &b)).expect("similar's diff parses");
        prop_assert_eq!(status, FileStatus::Applied);
        prop_assert_eq!(after.expect("file exists"), b.into_bytes());
    }

    #[test]
    fn crlf_texts_round_trip(a in file("\r\n"), b in file("\r\n")) {
        prop_assume!(a != b);
        let files = MemFiles::default().with("f.txt", &a);
        let (status, after) = apply(&files, &unified(&a, &b)).expect("parses");
        prop_assert_eq!(status, FileStatus::Applied);
        prop_assert_eq!(after.expect("file exists"), b.into_bytes());
    }

    #[test]
    fn shifted_or_missing_numbers_never_give_a_wrong_result(a in file("\n"), b in file("\n"), delta in prop_oneof![Just(None), (-30i64..30).prop_map(Some)]) {
        prop_assume!(a != b);
        let files = MemFiles::default().with("f.txt", &a);
        let patch = mangle_headers(&unified(&a, &b), delta);
        if let Some((status, after)) = apply(&files, &patch) {
            // Without trustworthy numbers a hunk may become ambiguous and be refused, but
            // whatever is applied must be exactly b.
            if status == FileStatus::Applied {
                prop_assert_eq!(after.expect("file exists"), b.into_bytes());
            } else {
                prop_assert_eq!(after.expect("file untouched"), a.into_bytes());
            }
        }
    }

    #[test]
    fn shifted_numbers_on_a_file_of_distinct_lines_always_apply(n in 5usize..80, edits in prop::collection::vec((0usize..80, "[A-Z]{3}"), 1..4), delta in -40i64..40) {
        let a: String = (0..n).map(|i| format!("line {i}\n")).collect();
        let mut lines: Vec<String> = a.lines().map(String::from).collect();
        for (at, t) in &edits {
            let i = at % lines.len();
            lines[i] = t.clone();
        }
        let b: String = lines.iter().map(|l| format!("{l}\n")).collect();
        prop_assume!(a != b);
        let files = MemFiles::default().with("f.txt", &a);
        let patch = mangle_headers(&unified(&a, &b), Some(delta));
        let (status, after) = apply(&files, &patch).expect("parses");
        prop_assert_eq!(status, FileStatus::Applied);
        prop_assert_eq!(after.expect("exists"), b.into_bytes());
    }

    #[test]
    fn a_hunk_whose_context_occurs_twice_with_no_hint_is_refused(block in prop::collection::vec("[a-z]{4,8}", 3..6), gap in prop::collection::vec("[0-9]{4}", 1..10), pick in 0usize..6) {
        let mut file_lines: Vec<String> = block.clone();
        file_lines.extend(gap.iter().cloned());
        file_lines.extend(block.iter().cloned());
        let text: String = file_lines.iter().map(|l| format!("{l}\n")).collect();
        // An interior line, so that context on both sides keeps the hunk off the file's ends.
        let i = 1 + pick % (block.len() - 2);
        let mut body = String::from("--- a/f.txt\n+++ b/f.txt\n@@ @@\n");
        for (j, l) in block.iter().enumerate() {
            if j == i {
                body.push_str(&format!("-{l}\n+CHANGED\n"));
            } else {
                body.push_str(&format!(" {l}\n"));
            }
        }
        let files = MemFiles::default().with("f.txt", &text);
        let (status, after) = apply(&files, &body).expect("parses");
        prop_assert_eq!(status, FileStatus::Refused);
        prop_assert_eq!(after.expect("untouched"), text.into_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    /// A file with a byte-order mark and a CRLF line among LF ones, patched by a diff that
    /// shows the mark (of the files as they are) or not (of their text): the result is the
    /// new file exactly, or the file is left as it was.
    #[test]
    fn bom_files_apply_exactly_or_not_at_all(a in file("\n"), b in file("\n"), shows in any::<bool>(), crlf_at in 0usize..40) {
        prop_assume!(a != b);
        // One CRLF line in a, kept in b when that line is unchanged.
        let crlf = |s: &str| -> String {
            let mut lines: Vec<String> = s.split_inclusive('\n').map(String::from).collect();
            if let Some(l) = lines.get_mut(crlf_at) {
                if l.ends_with('\n') { l.pop(); l.push_str("\r\n"); }
            }
            lines.concat()
        };
        let (a, b) = (crlf(&a), crlf(&b));
        prop_assume!(a != b);
        let (ab, bb) = (format!("\u{feff}{a}"), format!("\u{feff}{b}"));
        let files = MemFiles::default().with("f.txt", &ab);
        let patch = if shows { unified(&ab, &bb) } else { unified(&a, &b) };
        if let Some((status, after)) = apply(&files, &patch) {
            if status == FileStatus::Applied {
                prop_assert_eq!(after.expect("file exists"), bb.into_bytes());
            } else {
                prop_assert_eq!(after.expect("file untouched"), ab.into_bytes());
            }
        }
    }
}

/// A structured edit planned in memory: the file's bytes after it, or `None` when it was
/// refused (at parse time or by the planner).
fn edit(files: &MemFiles, old: &str, new: &str, all: bool) -> Option<Vec<u8>> {
    use git_llm_apply::parse::edit::{to_patch, EditOp};
    let op = EditOp::Replace {
        path: "f.txt".into(),
        old: old.into(),
        new: new.into(),
        all,
        expected: None,
        token: None,
    };
    let patch = to_patch(&[op], files).ok()?;
    let plan = plan::plan(&patch, files, &Options::default()).expect("in-memory reads");
    if !plan.all_ok() {
        return None;
    }
    let c = plan.changes.iter().find(|c| c.path == "f.txt")?;
    c.after.as_ref().map(|s| s.bytes.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// An `old_string` that occurs once, whole lines or any fragment of them, is replaced
    /// exactly there, as `str::replacen` would; one that occurs several times is refused
    /// unless `replace_all`, which gives what `str::replace` gives.
    #[test]
    fn an_exact_edit_is_str_replace_or_a_refusal(
        a in file("\n"),
        start in 0usize..400,
        len in 1usize..40,
        new in "[a-e\n ]{0,12}",
        all in any::<bool>(),
    ) {
        prop_assume!(!a.is_empty());
        let start = start % a.len();
        let end = (start + len).min(a.len());
        let old = &a[start..end];
        prop_assume!(old != new && !old.is_empty());
        let files = MemFiles::default().with("f.txt", &a);
        let count = a.matches(old).count();
        let got = edit(&files, old, &new, all);
        if count == 1 || all {
            let want = if all { a.replace(old, &new) } else { a.replacen(old, &new, 1) };
            prop_assert_eq!(got.map(|b| String::from_utf8(b).unwrap()), Some(want));
        } else {
            prop_assert_eq!(got, None, "an old_string found {} times is refused", count);
        }
    }
}

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

/// How a hunk is reshaped the way models write hunks.
#[derive(Debug, Clone, Copy)]
enum Cut {
    Keep,
    Trailing,
    Leading,
}

/// Lines mostly unique (so a trimmed hunk's old side usually still occurs once), with blank
/// lines and braces that repeat.
fn model_file() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop_oneof![
            6 => Just(None),
            1 => Just(Some("")),
            1 => Just(Some("}")),
        ],
        4..50,
    )
    .prop_map(|slots| {
        slots
            .into_iter()
            .enumerate()
            .map(|(i, s)| s.map_or_else(|| format!("line {i}"), str::to_string))
            .collect()
    })
}

/// `patch` (similar's, three lines of context) with each hunk cut as `cuts` says, where what
/// is left of its old side still occurs once in `a` and is not empty; with or without
/// numbers. Also whether a cut left a numbered hunk's edge within the context width of an
/// end of the file, where `diff`'s shape and a model's reading may part (see
/// `hunk_shapes.rs`): there a refusal is allowed; and whether every hunk's old side occurs once.
fn cut_hunks(a: &[String], patch: &str, cuts: &[Cut], numbers: bool) -> (String, bool, bool) {
    let header = regex::Regex::new(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@").expect("regex");
    let occurs_once = |old: &[&str]| {
        !old.is_empty()
            && a.windows(old.len())
                .filter(|w| w.iter().zip(old).all(|(x, y)| x == y))
                .count()
                == 1
    };
    let mut out = String::new();
    let mut near_edge = false;
    let mut unique = true;
    let mut lines = patch.lines().peekable();
    let mut k = 0;
    while let Some(l) = lines.next() {
        let Some(c) = header.captures(l) else {
            out.push_str(l);
            out.push('\n');
            continue;
        };
        let (mut os, mut ns): (usize, usize) = (c[1].parse().expect("n"), c[3].parse().expect("n"));
        let mut body: Vec<&str> = Vec::new();
        while let Some(n) = lines.peek() {
            if n.starts_with("@@") {
                break;
            }
            body.push(lines.next().expect("peeked"));
        }
        let cut = cuts.get(k).copied().unwrap_or(Cut::Keep);
        k += 1;
        let mut trimmed = body.clone();
        let is_context = |l: &&str| l.starts_with(' ');
        match cut {
            Cut::Keep => {}
            Cut::Trailing => {
                while trimmed.last().is_some_and(is_context) {
                    trimmed.pop();
                }
            }
            Cut::Leading => {
                let lead = trimmed.iter().take_while(|l| is_context(l)).count();
                trimmed.drain(..lead);
            }
        }
        let old: Vec<&str> = trimmed
            .iter()
            .filter(|l| !l.starts_with('+'))
            .map(|l| &l[1..])
            .collect();
        if trimmed.iter().any(|l| l.starts_with('\\')) || !occurs_once(&old) {
            trimmed = body.clone();
        } else if let Cut::Leading = cut {
            let dropped = body.len() - trimmed.len();
            os += dropped;
            ns += dropped;
        }
        let kept: Vec<&str> = trimmed
            .iter()
            .filter(|l| !l.starts_with('+'))
            .map(|l| &l[1..])
            .collect();
        unique &= occurs_once(&kept);
        let oc = trimmed.iter().filter(|l| !l.starts_with('+')).count();
        let nc = trimmed.iter().filter(|l| !l.starts_with('-')).count();
        if trimmed.len() != body.len() && numbers {
            let (first, last) = (os.saturating_sub(1), os.saturating_sub(1) + oc);
            near_edge |= first <= 3 || a.len().saturating_sub(last) <= 3;
        }
        if numbers {
            out.push_str(&format!("@@ -{os},{oc} +{ns},{nc} @@\n"));
        } else {
            out.push_str("@@ @@\n");
        }
        for l in trimmed {
            out.push_str(l);
            out.push('\n');
        }
    }
    (out, near_edge, unique)
}

/// A unified patch of `f.txt` as a Codex patch: each hunk under a bare `@@`.
fn as_codex(patch: &str) -> String {
    let mut out = String::from("*** Begin Patch\n*** Update File: f.txt\n");
    for l in patch.lines().skip_while(|l| !l.starts_with("@@")) {
        out.push_str(if l.starts_with("@@") { "@@" } else { l });
        out.push('\n');
    }
    out + "*** End Patch\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// Issue 35: the diff of a→b with each hunk's trailing or leading context cut (its old
    /// side still once in the file), with or without numbers, as a unified diff or a Codex
    /// patch, applies to b, as the full diff does. Near an end of the file, where `diff`'s shape and a model's reading part, it
    /// may be refused instead; it never gives another file.
    #[test]
    fn hunks_cut_as_models_cut_them_apply_as_the_full_diff_does(
        a in model_file(),
        edits in prop::collection::vec((0usize..60, 0u8..3, "[A-Z]{3}"), 1..5),
        cuts in prop::collection::vec(prop_oneof![Just(Cut::Keep), Just(Cut::Trailing), Just(Cut::Leading)], 1..6),
        numbers in any::<bool>(),
        codex in any::<bool>(),
    ) {
        let mut b = a.clone();
        for (at, op, t) in &edits {
            let i = at % (b.len() + 1);
            match op {
                0 if i < b.len() => b[i] = t.clone(),
                1 if i < b.len() => { b.remove(i); }
                _ => b.insert(i, t.clone()),
            }
        }
        let (ta, tb) = (a.join("\n") + "\n", b.join("\n") + "\n");
        prop_assume!(ta != tb);
        let (mut patch, mut near_edge, unique) = cut_hunks(&a, &unified(&ta, &tb), &cuts, numbers);
        // The issue's premise: every hunk's old side occurs once. Without numbers nothing
        // else tells copies apart (a hunk left whole at the start of the file may repeat).
        prop_assume!(unique || (numbers && !codex));
        if codex {
            patch = as_codex(&patch);
            // Codex hunks have no numbers: nothing but the lines places them.
            near_edge = false;
        }
        let files = MemFiles::default().with("f.txt", &ta);
        let (status, after) = apply(&files, &patch).expect("parses");
        let after = after.expect("exists");
        if status == FileStatus::Applied {
            prop_assert_eq!(String::from_utf8(after).expect("utf-8"), tb, "{}", patch);
        } else {
            prop_assert!(near_edge, "refused ({:?}) far from the ends:\n{}", status, patch);
            prop_assert_eq!(after, ta.into_bytes());
        }
    }
}

/// A structured edit planned in memory: the file's bytes after it, or `None` when it was
/// refused (at parse time or by the planner).
fn edit(files: &MemFiles, old: &str, new: &str, all: bool) -> Option<Vec<u8>> {
    edit_list(files, &[(old.to_string(), new.to_string(), all)])
}

/// A list of `(old_string, new_string, replace_all)` edits of `f.txt`, planned in memory:
/// the file after them, or `None` when refused.
fn edit_list(files: &MemFiles, edits: &[(String, String, bool)]) -> Option<Vec<u8>> {
    use git_llm_apply::parse::edit::{to_patch, EditOp};
    let ops: Vec<EditOp> = edits
        .iter()
        .map(|(old, new, all)| EditOp::Replace {
            path: "f.txt".into(),
            old: old.clone(),
            new: new.clone(),
            all: *all,
            expected: None,
            token: None,
        })
        .collect();
    let patch = to_patch(&ops, files).ok()?;
    let plan = plan::plan(&patch, files, &Options::default()).expect("in-memory reads");
    if !plan.all_ok() {
        return None;
    }
    // Edits that together change nothing leave the file as it is.
    match plan.changes.iter().find(|c| c.path == "f.txt") {
        Some(c) => c.after.as_ref().map(|s| s.bytes.to_vec()),
        None => parse::PathProbe::content(files, "f.txt"),
    }
}

/// Whether `a` holds `new` around its `old` at byte `i`, where the edit would have put it.
fn made_around(a: &str, i: usize, old: &str, new: &str) -> bool {
    (0..=new.len()).any(|k| {
        new.get(k..).is_some_and(|n| n.starts_with(old))
            && i >= k
            && a.get(i - k..).is_some_and(|t| t.starts_with(new))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// An `old_string` that occurs once, whole lines or any fragment of them, is replaced
    /// exactly there, as `str::replacen` would; one that occurs several times is refused
    /// unless `replace_all`, which gives what `str::replace` gives. Where the file reads at
    /// every occurrence as the edit made already (a resent edit, or one that repeats lines
    /// it sits beside), a refusal is allowed too.
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
            let got = got.map(|b| String::from_utf8(b).unwrap());
            if got.is_none() && a.match_indices(old).all(|(i, _)| made_around(&a, i, old, &new)) {
                return Ok(());
            }
            prop_assert_eq!(got, Some(want));
        } else {
            prop_assert_eq!(got, None, "an old_string found {} times is refused", count);
        }
    }

    /// A list of exact edits to one file gives what `str::replacen` (or `replace`, with
    /// `replace_all`) gives made one after another on the text the earlier ones leave, or a
    /// refusal where an edit's `old_string` occurs several times then without `replace_all`
    /// (or every occurrence reads as that edit made already).
    #[test]
    fn a_list_of_exact_edits_is_str_replace_in_turn_or_a_refusal(
        a in file("\n"),
        picks in prop::collection::vec((0usize..400, 1usize..20, "[a-e\n }]{0,8}", any::<bool>()), 2..4),
    ) {
        prop_assume!(!a.is_empty());
        let mut text = a.clone();
        let mut edits = Vec::new();
        let mut refusable = false;
        let mut refused = false;
        for (start, len, new, all) in picks {
            if text.is_empty() {
                break;
            }
            let start = start % text.len();
            let old = text[start..(start + len).min(text.len())].to_string();
            if old == new {
                continue;
            }
            let found: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).collect();
            edits.push((old.clone(), new.clone(), all));
            if found.iter().all(|&i| made_around(&text, i, &old, &new)) {
                refusable = true;
            }
            if found.len() > 1 && !all {
                refused = true;
                break;
            }
            text = if all { text.replace(&old, &new) } else { text.replacen(&old, &new, 1) };
        }
        prop_assume!(!edits.is_empty());
        let files = MemFiles::default().with("f.txt", &a);
        let got = edit_list(&files, &edits).map(|b| String::from_utf8(b).unwrap());
        if refused {
            prop_assert_eq!(got, None);
        } else if !(got.is_none() && refusable) {
            prop_assert_eq!(got, Some(text));
        }
    }
}

/// A `replace_all` of `"\n\n"` whose hunks add a blank line after their last context line,
/// beside a blank line the file has: the edit found each place exactly, so no hunk is a guess
/// that may be applied already (a draw of the property above that was refused).
#[test]
fn an_exact_edit_adding_a_line_beside_its_twin_is_made() {
    let a = "\n}\naa\naa\naa\n}\n}\naaa\n\n  a = 0\n\n\n\n\n  a = 0\naaa\n\n  a = 0\naa\n}\n\n}\n  a = 0\n}\n\n\n}\n}\n";
    let files = MemFiles::default().with("f.txt", a);
    let got = edit(&files, "\n\n", "\n\n\n", true).map(|b| String::from_utf8(b).unwrap());
    assert_eq!(got, Some(a.replace("\n\n", "\n\n\n")));
}

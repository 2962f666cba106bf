//! The paths that big patches take, checked at a modest size: the human report's diff is cut
//! at 300 lines per file with a count of the rest (`--full-diff` shows all of it, `--json` is
//! never cut), and patches of thousands of hunks apply and undo to the exact bytes.
//! Speed is measured by scripts/bench.sh, never here.

use crate::common::{diff_of, numbered, TestRepo};

/// A new file of `n` lines, as a patch.
fn new_file_patch(path: &str, n: usize) -> String {
    let mut p = format!(
        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{n} @@\n"
    );
    for i in 1..=n {
        p.push_str(&format!("+row {i}\n"));
    }
    p
}

/// One-line hunks changing every `step`-th line of `numbered("line", n)`, numbers exact.
fn many_hunks(path: &str, n: usize, step: usize) -> (String, String) {
    let mut patch = format!("--- a/{path}\n+++ b/{path}\n");
    let mut after = String::new();
    for i in 1..=n {
        if i % step == 0 && i > 3 && i + 3 <= n {
            patch.push_str(&format!("@@ -{},7 +{},7 @@\n", i - 3, i - 3));
            for c in i - 3..i {
                patch.push_str(&format!(" line{c}\n"));
            }
            patch.push_str(&format!("-line{i}\n+line{i} edited\n"));
            for c in i + 1..=i + 3 {
                patch.push_str(&format!(" line{c}\n"));
            }
            after.push_str(&format!("line{i} edited\n"));
        } else {
            after.push_str(&format!("line{i}\n"));
        }
    }
    (patch, after)
}

#[test]
fn a_big_new_file_shows_300_diff_lines_and_counts_the_rest() {
    let r = TestRepo::with(&[("README", "readme\n")]);
    let run = r.apply(&[], &new_file_patch("gen.txt", 2000));
    run.code(0);
    assert_eq!(
        r.read_str("gen.txt"),
        (1..=2000).map(|i| format!("row {i}\n")).collect::<String>()
    );
    let mut expected = String::from(
        "diff --git a/gen.txt b/gen.txt\nnew file mode 100644\n--- /dev/null\n+++ b/gen.txt\n@@ -0,0 +1,2000 @@\n",
    );
    for i in 1..=300 {
        expected.push_str(&format!("+row {i}\n"));
    }
    expected.push_str("... 1700 more diff lines in 1 hunk not shown (--full-diff shows them)\n");
    expected.push_str("A gen.txt (+2000 -0) via file\n");
    assert!(
        run.stdout.starts_with(&expected),
        "stdout:\n{}",
        &run.stdout[..run.stdout.len().min(3000)]
    );
}

#[test]
fn full_diff_shows_every_line_and_json_is_never_cut() {
    let r = TestRepo::with(&[("README", "readme\n")]);
    let run = r.apply(
        &["--check", "--full-diff"],
        &new_file_patch("gen.txt", 2000),
    );
    run.code(0);
    let added = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("+row "))
        .count();
    assert_eq!(added, 2000);
    assert!(!run.stdout.contains("not shown"), "{}", run.stdout);
    assert!(!r.exists("gen.txt"), "--check writes nothing");

    let (run, json) = r.apply_json(&["--check"], &new_file_patch("gen.txt", 2000));
    run.code(0);
    let f = &json["files"][0];
    assert_eq!(
        (f["added"].as_u64(), f["removed"].as_u64()),
        (Some(2000), Some(0)),
        "{f}"
    );
    assert!(!run.stdout.contains("not shown"));
}

#[test]
fn hunks_beyond_the_limit_are_counted_per_file() {
    // 400 one-line hunks: each shows 8 diff lines (3 + 1 + 1 + 3), so 37 fit in 300 lines and
    // the 38th is cut inside.
    let r = TestRepo::with(&[("big.txt", &numbered("line", 4000))]);
    let (patch, after) = many_hunks("big.txt", 4000, 10);
    let run = r.apply(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("big.txt"), after);
    let diff_lines = run
        .stdout
        .lines()
        .skip(3) // diff --git, ---, +++
        .take_while(|l| !l.starts_with("..."))
        .filter(|l| !l.starts_with("@@"))
        .count();
    assert_eq!(diff_lines, 300);
    let hunks_shown = run.stdout.lines().filter(|l| l.starts_with("@@ ")).count();
    assert_eq!(hunks_shown, 38);
    // 399 hunks in all (the first and last lines are not changed), 8 lines each.
    let cut = 399 * 8 - 300;
    assert!(
        run.stdout.contains(&format!(
            "... {cut} more diff lines in 362 hunks not shown (--full-diff shows them)\n"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("M big.txt (+399 -399) via exact\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn thousands_of_hunks_apply_and_undo_to_the_exact_bytes() {
    let before = numbered("line", 20_000);
    let r = TestRepo::with(&[("big.txt", &before)]);
    let (patch, after) = many_hunks("big.txt", 20_000, 10);
    let (run, json) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("big.txt"), after);
    let f = &json["files"][0];
    assert_eq!(
        (f["added"].as_u64(), f["removed"].as_u64()),
        (Some(1999), Some(1999))
    );
    assert_eq!(f["hunks"].as_array().map(Vec::len), Some(1999));
    let undo = r.run(&["undo"]);
    undo.code(0);
    assert_eq!(r.read_str("big.txt"), before);
    assert!(undo.stdout.contains("(+1999 -1999)"), "{}", undo.stdout);
}

/// A file big enough to be mapped (4 MiB or more), patched in 60 places far apart (lines
/// changed, added and removed, every line distinct so only one diff is right): the report's
/// diff, worked out from the file as the plan spliced it, is `git diff`'s of the result, hunk
/// headers and headings included.
#[test]
fn a_big_spliced_files_diff_is_what_git_diff_shows() {
    let line = |i: usize| {
        if i % 20 == 1 {
            format!("fn block_{i}() {{ // the heading of the lines below\n")
        } else {
            format!("    let value_{i} = {i}; // line {i} of a file big enough to map\n")
        }
    };
    let before: String = (1..=90_000).map(line).collect();
    assert!(
        before.len() >= 4 << 20,
        "the file is mapped: {}",
        before.len()
    );
    let mut after = String::new();
    for i in 1..=90_000 {
        match (i % 1_500, i / 1_500 % 3) {
            (700, 0) => after.push_str(&format!("    let value_{i} = {i} * 2; // changed\n")),
            (700, 1) => {
                after.push_str(&line(i));
                after.push_str(&format!(
                    "    let added_{i} = 0;\n    let added_{i}_b = 1;\n"
                ));
            }
            (700, _) | (701, 2) => {}
            _ => after.push_str(&line(i)),
        }
    }
    let r = TestRepo::with(&[("big.rs", &before)]);
    let patch = diff_of(&r, |r| r.write("big.rs", after.as_bytes()));
    let run = r.apply(&["--full-diff"], &patch);
    run.code(0);
    assert_eq!(r.read_str("big.rs"), after);
    let git_diff = r.git(&["diff"]);
    let git: Vec<&str> = git_diff
        .lines()
        .filter(|l| !l.starts_with("index "))
        .collect();
    let ours: Vec<&str> = run
        .stdout
        .lines()
        .take_while(|l| !l.starts_with("M big.rs"))
        .collect();
    assert_eq!(git.iter().filter(|l| l.starts_with("@@ ")).count(), 60);
    assert_eq!(ours, git);

    // Cut short as it is by default: the lines shown are git's first ones, and what is left
    // out is counted.
    let r = TestRepo::with(&[("big.rs", &before)]);
    let run = r.apply(&[], &patch);
    run.code(0);
    let shown: Vec<&str> = run
        .stdout
        .lines()
        .take_while(|l| !l.starts_with("... "))
        .collect();
    assert!(
        shown.len() > 300 && shown.len() < git.len(),
        "{}",
        shown.len()
    );
    assert_eq!(shown, git[..shown.len()]);
    let omitted = run
        .stdout
        .lines()
        .find(|l| l.starts_with("... "))
        .expect("a line saying what is not shown");
    assert!(omitted.contains(" more diff lines in "), "{omitted}");
}

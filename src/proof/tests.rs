//! The proof on real plans: it passes what the planner gets right and refuses a plan that
//! was corrupted after planning, naming the file and hunk.

use super::*;
use crate::parse::{self, NoFiles};
use crate::plan::{self, locate::Placement};
use crate::repo::MemFiles;

const FILE: &str =
    "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n}\n\nfn c() {\n    three();\n}\n";

const PATCH: &str = "--- a/f.rs\n+++ b/f.rs\n@@ -1,3 +1,4 @@\n fn a() {\n     one();\n+    more();\n }\n@@ -9,3 +10,3 @@\n fn c() {\n-    three();\n+    four();\n }\n";

fn planned(file: &str, patch: &str) -> (Patch, Plan) {
    let patch = parse::parse(patch, None, &NoFiles).expect("the patch parses");
    let files = MemFiles::default().with("f.rs", file);
    let plan = plan::plan(&patch, &files, &plan::Options::default()).expect("plans");
    assert!(
        plan.all_ok(),
        "the plan applies: {:?}",
        plan.files[0].problems
    );
    (patch, plan)
}

fn after_text(plan: &Plan) -> String {
    String::from_utf8(
        plan.changes[0]
            .after
            .as_ref()
            .expect("written")
            .bytes
            .to_vec(),
    )
    .expect("utf-8")
}

fn corrupt_after(plan: &mut Plan, f: impl Fn(&mut Vec<u8>)) {
    let bytes = &mut plan.files[0].evidence.writes[0]
        .1
        .as_mut()
        .expect("written")
        .bytes;
    f(bytes.make_mut());
    let c = plan.changes[0].after.as_mut().expect("written");
    f(c.bytes.make_mut());
}

fn placement(plan: &mut Plan, hunk: usize) -> &mut Placement {
    match &mut plan.files[0].evidence.claims[hunk] {
        Claim::Placed(p) => p,
        other => panic!("hunk {hunk} is not placed: {other:?}"),
    }
}

#[test]
fn a_correct_plan_is_proven() {
    let (patch, plan) = planned(FILE, PATCH);
    assert!(after_text(&plan).contains("    more();\n"));
    let proof = prove(&patch, &plan).expect("proven");
    assert!(proof.covers(&plan));
}

#[test]
fn a_changed_byte_outside_the_hunks_is_refused() {
    let (patch, mut plan) = planned(FILE, PATCH);
    corrupt_after(&mut plan, |b| {
        let at = b
            .windows(3)
            .position(|w| w == b"two")
            .expect("two is there");
        b[at] = b'T';
    });
    let e = prove(&patch, &plan).expect_err("corrupted");
    assert_eq!(e.path, "f.rs");
    assert!(e.message.contains("not the file's own"), "{e}");
}

#[test]
fn a_dropped_added_line_is_refused_naming_the_hunk() {
    let (patch, mut plan) = planned(FILE, PATCH);
    corrupt_after(&mut plan, |b| {
        let s = String::from_utf8(b.clone())
            .expect("utf-8")
            .replace("    four();\n", "    three();\n");
        *b = s.into_bytes();
    });
    let e = prove(&patch, &plan).expect_err("corrupted");
    assert_eq!(e.hunk, Some(2), "{e}");
}

#[test]
fn a_hunk_claimed_at_the_wrong_place_is_refused() {
    let (patch, mut plan) = planned(FILE, PATCH);
    // Claim hunk 2 matched fn b's lines instead: the removed line does not read the same.
    let p = placement(&mut plan, 1);
    p.start -= 4;
    p.end -= 4;
    for m in p.mapping.iter_mut().flatten() {
        *m -= 4;
    }
    for i in p.inserts.iter_mut() {
        *i -= 4;
    }
    let e = prove(&patch, &plan).expect_err("misplaced");
    assert_eq!(e.hunk, Some(2), "{e}");
}

#[test]
fn a_hunk_claimed_already_applied_while_its_removed_lines_are_there_is_refused() {
    // A pure deletion whose new side (its context) is trivially present: the removed lines
    // still follow it, so it is not applied.
    let file = "a\nb\nc\nx\ny\n";
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@ -1,5 +1,3 @@\n a\n b\n c\n-x\n-y\n";
    let (patch, mut plan) = planned(file, patch);
    plan.files[0].evidence.claims[0] = Claim::AlreadyApplied {
        start: 0,
        pass: Pass::Exact,
    };
    let e = prove(&patch, &plan).expect_err("not applied");
    assert_eq!(e.hunk, Some(1), "{e}");
}

#[test]
fn a_plan_whose_changes_do_not_add_up_is_refused() {
    let (patch, mut plan) = planned(FILE, PATCH);
    let c = plan.changes[0].after.as_mut().expect("written");
    c.bytes.make_mut().extend_from_slice(b"// extra\n");
    let e = prove(&patch, &plan).expect_err("inconsistent");
    assert!(e.message.contains("add up"), "{e}");
}

#[test]
fn a_refused_file_plan_with_writes_is_refused() {
    let (patch, mut plan) = planned(FILE, PATCH);
    plan.files[0].status = FileStatus::Refused;
    assert!(prove(&patch, &plan).is_err());
}

#[test]
fn loose_passes_compare_added_lines_modulo_the_pass() {
    // Context written with tabs, the file with spaces: the whitespace pass places it, and
    // the added line takes the file's indentation.
    let file = "fn a() {\n    one();\n    two();\n}\n";
    let patch =
        "--- a/f.rs\n+++ b/f.rs\n@@ -1,4 +1,5 @@\n fn a() {\n \tone();\n+\tmid();\n \ttwo();\n }\n";
    let (patch, plan) = planned(file, patch);
    assert_eq!(
        after_text(&plan),
        "fn a() {\n    one();\n    mid();\n    two();\n}\n"
    );
    prove(&patch, &plan).expect("proven");
}

/// The derived result of a plan's placements, applied to the original as the proof does.
fn derived_runs<'a>(orig: &'a Index<'a>, patch: &'a Patch, plan: &'a Plan) -> Derived<'a> {
    let placed: Vec<(usize, &Hunk, &Placement)> = patch.files[0]
        .hunks
        .iter()
        .zip(&plan.files[0].evidence.claims)
        .enumerate()
        .map(|(i, (h, c))| match c {
            Claim::Placed(pl) => (i, h, pl),
            other => panic!("hunk {i} is not placed: {other:?}"),
        })
        .collect();
    let mut touches_end = false;
    apply_claims(
        &plan.files[0],
        &Derived::original(orig),
        &placed,
        &mut touches_end,
    )
    .expect("the placements apply")
}

#[test]
fn the_derived_result_is_runs_split_at_the_placements() {
    let (patch, plan) = planned(FILE, PATCH);
    let orig = Index::new(FILE.as_bytes());
    let derived = derived_runs(&orig, &patch, &plan);
    let shape: Vec<String> = derived
        .segs()
        .iter()
        .map(|s| match s {
            Seg::Kept { from, len } => format!("kept {from}+{len}"),
            Seg::Added { lines, hunk, .. } => format!("hunk {hunk} adds {}", lines.len()),
        })
        .collect();
    // The kept stretch between the hunks is one run, though hunk 2's region starts inside
    // it: its context line joins the run before.
    assert_eq!(
        shape,
        [
            "kept 0+2",
            "hunk 0 adds 1",
            "kept 2+7",
            "hunk 1 adds 1",
            "kept 10+1"
        ]
    );
    assert_eq!(derived.len(), 12);
}

/// A file of `n` numbered lines, and a patch adding a line after the first and changing the
/// last but one: the kept run between them is long.
fn long_file(n: usize, eol: &str) -> (String, String) {
    let file: String = (1..=n).map(|k| format!("line {k}{eol}")).collect();
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@ -1,2 +1,3 @@\n line 1\n+added\n line 2\n@@ -{a},3 +{b},3 @@\n line {x}\n-line {y}\n+changed\n line {n}\n",
        a = n - 2,
        b = n - 1,
        x = n - 2,
        y = n - 1,
    );
    (file, patch)
}

#[test]
fn a_change_in_the_middle_of_a_long_kept_run_names_its_line() {
    let (file, patch) = long_file(1000, "\n");
    let (patch, mut plan) = planned(&file, &patch);
    prove(&patch, &plan).expect("proven");
    corrupt_after(&mut plan, |b| {
        let at = b
            .windows(9)
            .position(|w| w == b"line 500\n")
            .expect("line 500 is there");
        b[at + 5] = b'6';
    });
    let e = prove(&patch, &plan).expect_err("corrupted");
    // The original's line 500 is the planned file's 501st, after the added line.
    assert_eq!(
        e.message,
        "line 501 of the planned file is not the file's own"
    );
    assert_eq!(e.hunk, None);
}

#[test]
fn a_changed_line_ending_in_a_long_kept_run_names_its_line() {
    let (file, patch) = long_file(1000, "\r\n");
    let (patch, mut plan) = planned(&file, &patch);
    prove(&patch, &plan).expect("proven");
    corrupt_after(&mut plan, |b| {
        let at = b
            .windows(10)
            .position(|w| w == b"line 700\r\n")
            .expect("line 700 is there");
        b.remove(at + 8);
    });
    let e = prove(&patch, &plan).expect_err("corrupted");
    assert_eq!(e.message, "the line ending of line 701 changed");
}

#[test]
fn a_dropped_line_in_a_long_kept_run_is_refused_by_the_count() {
    let (file, patch) = long_file(1000, "\n");
    let (patch, mut plan) = planned(&file, &patch);
    corrupt_after(&mut plan, |b| {
        let s = String::from_utf8(b.clone())
            .expect("utf-8")
            .replace("line 300\n", "");
        *b = s.into_bytes();
    });
    let e = prove(&patch, &plan).expect_err("corrupted");
    assert_eq!(
        e.message,
        "the planned file has 1000 lines where applying the hunks gives 1001"
    );
}

#[test]
fn overlapping_hunks_applied_one_after_another_are_proven() {
    // The hunks share a context line, so their regions overlap: the planner places each in
    // the text the one before leaves, and so does the proof.
    let file = "def a():\n    x = 1\n    y = 2\n    z = 3\n    return x\n";
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@ -1,3 +1,3 @@\n def a():\n-    x = 1\n+    x = 10\n     y = 2\n@@ -3,3 +3,3 @@\n     y = 2\n-    z = 3\n+    z = 30\n     return x\n";
    let (patch, mut plan) = planned(file, patch);
    assert!(
        plan.files[0].evidence.sequential,
        "the planner went hunk by hunk"
    );
    assert_eq!(
        after_text(&plan),
        "def a():\n    x = 10\n    y = 2\n    z = 30\n    return x\n"
    );
    prove(&patch, &plan).expect("proven");
    corrupt_after(&mut plan, |b| {
        *b = b"def a():\n    x = 10\n    y = 2\n    z = 3\n    return x\n".to_vec();
    });
    let e = prove(&patch, &plan).expect_err("the second hunk is missing");
    assert_eq!(e.hunk, Some(2), "{e}");
    assert_eq!(
        e.message,
        "line 4 of the planned file should be the added line \"    z = 30\""
    );
}

#[test]
fn a_file_without_a_final_newline_keeps_its_last_line_as_it_was() {
    let file = "a\nb\nc";
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n";
    let (patch, plan) = planned(file, patch);
    assert_eq!(after_text(&plan), "A\nb\nc");
    prove(&patch, &plan).expect("proven");
}

#[test]
fn a_hunk_that_adds_the_final_newline_must_leave_it() {
    let file = "a\nb\nc";
    let patch =
        "--- a/f.rs\n+++ b/f.rs\n@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+c\n";
    let (patch, mut plan) = planned(file, patch);
    assert_eq!(after_text(&plan), "a\nb\nc\n");
    prove(&patch, &plan).expect("proven");
    corrupt_after(&mut plan, |b| {
        b.pop();
    });
    let e = prove(&patch, &plan).expect_err("the newline is missing");
    assert_eq!(
        e.message,
        "the file's final newline is not what the patch's end-of-file marker says"
    );
}

#[test]
fn a_hunk_that_removes_the_final_newline_must_remove_it() {
    let file = "a\nb\nc\n";
    let patch =
        "--- a/f.rs\n+++ b/f.rs\n@@ -2,2 +2,2 @@\n b\n-c\n+c\n\\ No newline at end of file\n";
    let (patch, mut plan) = planned(file, patch);
    assert_eq!(after_text(&plan), "a\nb\nc");
    prove(&patch, &plan).expect("proven");
    corrupt_after(&mut plan, |b| b.push(b'\n'));
    let e = prove(&patch, &plan).expect_err("the newline is still there");
    assert_eq!(
        e.message,
        "the file's final newline is not what the patch's end-of-file marker says"
    );
}

#[test]
fn the_last_line_of_a_long_run_may_gain_its_newline_only_at_the_end() {
    // The original's last line has no newline and a hunk at the top leaves it be: the long
    // run that ends the file ends in that line, compared line by line.
    let (file, patch) = long_file(300, "\n");
    let file = file.trim_end_matches('\n').to_string();
    let patch = patch.replace(" line 300\n", " line 300\n\\ No newline at end of file\n");
    let (patch, plan) = planned(&file, &patch);
    assert!(after_text(&plan).ends_with("line 300"));
    prove(&patch, &plan).expect("proven");
}

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
    f(std::sync::Arc::make_mut(bytes));
    let c = plan.changes[0].after.as_mut().expect("written");
    f(std::sync::Arc::make_mut(&mut c.bytes));
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
    std::sync::Arc::make_mut(&mut c.bytes).extend_from_slice(b"// extra\n");
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

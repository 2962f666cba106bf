//! `GIT binary patch` sections are applied by git, to the bytes they were made from, inside
//! the same all-or-nothing plan and snapshot.

use crate::common::TestRepo;

fn binary_patch(r: &TestRepo) -> String {
    r.write("b.bin", b"\x00\x01\x03binary\x00more");
    r.write("n.bin", b"\x89PNG\x00new");
    r.git(&["add", "-A"]);
    let patch = r.git(&["diff", "--cached", "--binary"]);
    r.git(&["reset", "-q", "--hard"]);
    assert!(
        !r.exists("n.bin"),
        "reset --hard removes the staged new file"
    );
    patch
}

#[test]
fn a_binary_patch_applies_through_git_and_undo_restores_it() {
    let r = TestRepo::with(&[]);
    r.write("b.bin", b"\x00\x01\x02binary\x00");
    r.commit_all("binary");
    let patch = binary_patch(&r);
    let before = r.state();
    assert!(patch.contains("GIT binary patch"), "{patch}");
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read("b.bin"), b"\x00\x01\x03binary\x00more");
    assert_eq!(r.read("n.bin"), b"\x89PNG\x00new");
    assert_eq!(v["files"][0]["strategy"], "git-apply");
    r.cmd(&["undo"]).output().expect("undo runs");
    assert_eq!(r.state(), before);
}

#[test]
fn a_binary_patch_to_other_bytes_is_refused_with_the_reason_and_nothing_changes() {
    let r = TestRepo::with(&[]);
    r.write("b.bin", b"\x00\x01\x02binary\x00");
    r.commit_all("binary");
    let patch = binary_patch(&r);
    r.write("b.bin", b"\x00something else\x00");
    let before = r.state();
    let run = r.apply(&[], &patch);
    run.code(1);
    run.out_contains("binary patch does not apply");
    assert_eq!(r.state(), before, "the new file is not created either");
}

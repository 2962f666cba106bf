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

/// A file of text with a NUL byte past its first 8000 bytes: git takes it for text (its diff
/// shows the NUL's line as a line) and `git apply` patches it. So does this tool, byte for
/// byte, the NUL's own line included, and undo puts the file back.
#[test]
fn a_text_file_with_a_nul_past_git_s_first_8000_bytes_is_patched_as_git_patches_it() {
    let r = TestRepo::with(&[]);
    let mut file = crate::common::numbered("line ", 1000).into_bytes();
    assert!(file.len() > 8000);
    file.extend_from_slice(b"a \x00 in a line\nlast\n");
    r.write("data.txt", &file);
    r.commit_all("text with a NUL late");
    let changed = String::from_utf8(file.clone())
        .expect("utf-8")
        .replace("line 2\n", "line two\n")
        .replace("a \x00 in a line", "the \x00 in a line");
    let patch = crate::common::diff_of(&r, |r| r.write("data.txt", changed.as_bytes()));
    assert!(
        !patch.contains("Binary files"),
        "git diff shows it as text: {patch}"
    );
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read("data.txt"), changed.as_bytes());
    assert_eq!(v["files"][0]["strategy"], "exact", "{v}");
    r.cmd(&["undo"]).output().expect("undo runs");
    assert_eq!(r.state(), before);
}

/// A SEARCH/REPLACE block that names no file is matched to the tracked files that hold its
/// text. A file with a NUL past its first 8000 bytes is text, which the planner patches, so it
/// is looked in too: when it holds the text as well, the block is ambiguous and refused, not
/// applied to the other file.
#[test]
fn a_block_naming_no_file_counts_a_text_file_with_a_late_nul_among_its_matches() {
    let r = TestRepo::with(&[]);
    let mut late = b"alpha unique\nbeta\n".to_vec();
    late.extend_from_slice(crate::common::numbered("pad ", 1200).as_bytes());
    late.extend_from_slice(b"x \x00 y\n");
    r.write("a.txt", &late);
    r.write("b.txt", b"alpha unique\nbeta\n");
    r.commit_all("two files with the text");
    let before = r.state();
    let block = "<<<<<<< SEARCH\nalpha unique\n=======\nALPHA\n>>>>>>> REPLACE\n";
    let run = r.apply(&[], block);
    run.out_contains("its SEARCH text is in 2 tracked files");
    assert_ne!(run.code, 0);
    assert_eq!(r.state(), before);
    // Only there, the block is the late-NUL file's.
    r.write("b.txt", b"other\n");
    r.commit_all("b.txt no longer holds it");
    r.apply(&[], block).code(0);
    assert!(r.read("a.txt").starts_with(b"ALPHA\nbeta\n"));
    assert!(r.read("a.txt").ends_with(b"x \x00 y\n"));
}

/// Two sections of one patch for the same text file, the first deleting lines near its start
/// so that a late NUL moves among the first 8000 bytes: the file is judged as it is on disk
/// (text), so the second section applies too, as `git apply` applies both.
#[test]
fn a_later_section_for_the_same_file_is_planned_on_text_that_was_text_on_disk() {
    let r = TestRepo::with(&[]);
    let line = |i: usize| format!("line {i:04} some text here\n");
    let mut file: Vec<u8> = (0..400).flat_map(|i| line(i).into_bytes()).collect();
    file.extend_from_slice(b"the \x00 line\nend\n");
    assert!(
        !memchr_nul_before(&file, 8000),
        "text on disk, as git judges it"
    );
    r.write("d.txt", &file);
    r.commit_all("text with a NUL past 8000 bytes");
    let deleted: String = (1..101).map(|i| format!("-{}", line(i))).collect();
    let patch = format!(
        "--- a/d.txt\n+++ b/d.txt\n@@ -1,103 +1,3 @@\n {}{deleted} {} {}\
         --- a/d.txt\n+++ b/d.txt\n@@ -299,4 +299,4 @@\n {} {} the \x00 line\n-end\n+END\n",
        line(0),
        line(101),
        line(102),
        line(398),
        line(399),
    );
    let mut expected: Vec<u8> = std::iter::once(0)
        .chain(101..400)
        .flat_map(|i| line(i).into_bytes())
        .collect();
    expected.extend_from_slice(b"the \x00 line\nEND\n");
    assert!(
        memchr_nul_before(&expected, 8000),
        "the NUL moved among the first 8000 bytes"
    );
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read("d.txt"), expected);
}

fn memchr_nul_before(bytes: &[u8], n: usize) -> bool {
    bytes[..n.min(bytes.len())].contains(&0)
}

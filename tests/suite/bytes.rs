//! Files and patches that are not UTF-8 are patched byte for byte, as git does.

use crate::common::TestRepo;

const LATIN1: &[u8] = b"caf\xe9 = 1\nna\xefve = 2\nend = 3\n";
const PATCH: &[u8] =
    b"--- a/l.txt\n+++ b/l.txt\n@@ -1,3 +1,3 @@\n caf\xe9 = 1\n-na\xefve = 2\n+NA\xcfVE = 2\n end = 3\n";

#[test]
fn a_one_line_patch_to_a_latin1_file_gives_the_bytes_git_apply_gives() {
    let ours = TestRepo::with(&[]);
    ours.write("l.txt", LATIN1);
    ours.commit_all("latin-1");
    ours.apply_bytes(&[], PATCH).code(0);

    let theirs = TestRepo::with(&[]);
    theirs.write("l.txt", LATIN1);
    theirs.commit_all("latin-1");
    theirs.write("p.patch", PATCH);
    theirs.git(&["apply", "p.patch"]);

    assert_eq!(ours.read("l.txt"), theirs.read("l.txt"));
    assert_eq!(ours.read("l.txt"), b"caf\xe9 = 1\nNA\xcfVE = 2\nend = 3\n");
}

#[test]
fn a_latin1_patch_with_stale_numbers_is_located_by_its_bytes() {
    let r = TestRepo::with(&[]);
    let mut file = b"zero\nfirst\n".to_vec();
    file.extend_from_slice(LATIN1);
    r.write("l.txt", &file);
    r.commit_all("latin-1");
    let (run, v) = {
        let run = r.apply_bytes(&["--json"], PATCH);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
        (run, v)
    };
    run.code(0);
    assert_eq!(v["files"][0]["hunks"][0]["offset"], 2);
    assert_eq!(
        r.read("l.txt"),
        b"zero\nfirst\ncaf\xe9 = 1\nNA\xcfVE = 2\nend = 3\n"
    );
}

#[test]
fn shift_jis_and_invalid_sequences_survive_untouched_lines_and_added_ones() {
    let r = TestRepo::with(&[]);
    let file = b"\x82\xa0\x82\xa2 = 'kana'\nx = 1\nbad = '\xe2\x82'\n";
    r.write("s.py", file);
    r.commit_all("sjis");
    let patch = b"--- a/s.py\n+++ b/s.py\n@@ -1,3 +1,4 @@\n \x82\xa0\x82\xa2 = 'kana'\n x = 1\n+y = '\x82\xa4'\n bad = '\xe2\x82'\n";
    r.apply_bytes(&[], patch).code(0);
    assert_eq!(
        r.read("s.py"),
        b"\x82\xa0\x82\xa2 = 'kana'\nx = 1\ny = '\x82\xa4'\nbad = '\xe2\x82'\n"
    );
}

#[test]
fn a_latin1_file_is_created_byte_for_byte() {
    let r = TestRepo::with(&[("keep.txt", "k\n")]);
    let patch = b"--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+d\xe9j\xe0\n+vu\n";
    r.apply_bytes(&[], patch).code(0);
    assert_eq!(r.read("n.txt"), b"d\xe9j\xe0\nvu\n");
}

/// A text patch to a file with a NUL among its first 8000 bytes (binary, as git judges it;
/// the patch's own context holds the NUL) is refused with that reason, not as text that is
/// not UTF-8 (a NUL is UTF-8), and nothing changes.
#[test]
fn a_binary_file_with_a_nul_byte_is_still_refused_at_text_level() {
    let r = TestRepo::with(&[]);
    r.write("b.bin", b"a\0b\nc\n");
    r.commit_all("bin");
    let before = r.state();
    let run = r.apply_bytes(
        &[],
        b"--- a/b.bin\n+++ b/b.bin\n@@ -1,2 +1,2 @@\n a\0b\n-c\n+d\n",
    );
    run.code(1);
    run.out_contains("b.bin is binary as git judges it (a NUL byte among its first 8000 bytes)");
    assert!(
        !format!("{}{}", run.stdout, run.stderr).contains("not UTF-8"),
        "the reason is the NUL"
    );
    assert_eq!(r.state(), before);
}

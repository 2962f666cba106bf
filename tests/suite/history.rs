//! Strategy 3: a patch without a usable `index` line is merged against the version it was
//! written for, found in the index, first-parent history or ghost snapshots. Results are
//! compared with `git merge-file`'s byte for byte.

use git_llm_apply::repo::Repo;
use git_llm_apply::snapshot::{self, SnapshotId};

use crate::common::{numbered, TestRepo};

/// A diff as models write it: `diff --git` and `---`/`+++`, no `index` line.
fn llm_diff(path: &str, body: &str) -> String {
    format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{body}")
}

/// `l1` … `l30`, one per line.
fn v0() -> String {
    numbered("l", 30)
}

/// `text` with its one line `from` replaced by `to`.
fn edit(text: &str, from: &str, to: &str) -> String {
    let needle = format!("{from}\n");
    let count = text.split_inclusive('\n').filter(|l| *l == needle).count();
    assert_eq!(count, 1, "{from:?} is one line of the text");
    text.split_inclusive('\n')
        .map(|l| {
            if l == needle {
                format!("{to}\n")
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// The change every test sends: `l15` becomes `L15`, numbered for [`v0`].
fn patch_for_v0() -> String {
    llm_diff(
        "f.txt",
        "@@ -12,7 +12,7 @@\n l12\n l13\n l14\n-l15\n+L15\n l16\n l17\n l18\n",
    )
}

/// `git merge-file -p` of the three texts with git apply's labels, and its exit status
/// (the number of conflicts).
fn merge_file(ours: &str, base: &str, theirs: &str) -> (String, i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write merge input");
        p.to_string_lossy().into_owned()
    };
    let (o, b, t) = (write("o", ours), write("b", base), write("t", theirs));
    let out = std::process::Command::new(crate::common::git_bin())
        .args([
            "merge-file",
            "-p",
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
        ])
        .args([&o, &b, &t])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git merge-file");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        out.status.code().expect("exit status"),
    )
}

fn rev(r: &TestRepo, spec: &str) -> String {
    r.git(&["rev-parse", spec]).trim().to_string()
}

/// HEAD~3 is the version the patch fits; the three commits since then shift its lines, change
/// one of its context lines and edit far below it, so no later version fits.
fn drifted_repo() -> (TestRepo, String) {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    let v1 = format!("head a\nhead b\n{}", v0());
    r.write("f.txt", v1.as_bytes());
    r.commit_all("shift everything down two lines");
    let v2 = edit(&v1, "l12", "l12 changed");
    r.write("f.txt", v2.as_bytes());
    r.commit_all("change a context line of the later patch");
    let v3 = edit(&v2, "l28", "l28 changed");
    r.write("f.txt", v3.as_bytes());
    r.commit_all("edit far below");
    (r, v3)
}

#[test]
fn a_diff_written_for_an_older_commit_merges_like_git_merge_file() {
    let (r, now) = drifted_repo();
    let theirs = edit(&v0(), "l15", "L15");
    let (expected, conflicts) = merge_file(&now, &v0(), &theirs);
    assert_eq!(conflicts, 0, "the scenario is a clean merge");

    let (run, v) = r.apply_json(&[], &patch_for_v0());
    run.code(0);
    assert_eq!(r.read_str("f.txt"), expected);
    let f = &v["files"][0];
    assert_eq!(f["strategy"], "history-3way");
    assert_eq!(f["status"], "applied");
    assert_eq!(f["base"]["kind"], "commit");
    assert_eq!(f["base"]["id"], rev(&r, "HEAD~3"));
    assert_eq!(f["base"]["path"], "f.txt");
}

#[test]
fn in_a_depth_1_clone_the_text_passes_take_over() {
    let (origin, now) = drifted_repo();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("file://{}", origin.path().display());
    origin.git(&[
        "clone",
        "-q",
        "--depth",
        "1",
        &url,
        &dir.path().to_string_lossy(),
    ]);
    let r = TestRepo { dir };
    assert_eq!(
        r.git(&["rev-list", "--count", "HEAD"]).trim(),
        "1",
        "the clone has no history"
    );
    assert_eq!(r.read_str("f.txt"), now);

    let (run, v) = r.apply_json(&[], &patch_for_v0());
    let f = &v["files"][0];
    assert!(f["base"].is_null(), "no base is claimed: {f}");
    // The guarded fuzzy pass keeps the drifted context line as the file has it, which is
    // what the merge would have given too.
    run.code(0);
    assert_eq!(f["strategy"], "text");
    assert_eq!(f["pass"], "fuzzy");
    let theirs = edit(&v0(), "l15", "L15");
    assert_eq!(r.read_str("f.txt"), merge_file(&now, &v0(), &theirs).0);
}

fn open(r: &TestRepo) -> Repo {
    Repo::discover(r.path())
        .expect("open the repository")
        .expect("a repository")
}

/// An apply through the binary, which records a ghost snapshot; returns its id.
fn apply_with_snapshot(r: &TestRepo, path: &str, after: &str) -> SnapshotId {
    let before = r.read_str(path);
    let patch = similar::TextDiff::from_lines(before.as_str(), after)
        .unified_diff()
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str(path), after);
    v["snapshot"]
        .as_str()
        .expect("the apply recorded a snapshot")
        .parse()
        .expect("a snapshot id")
}

#[test]
fn the_base_can_be_what_the_agents_last_apply_left_in_a_ghost_snapshot() {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    let after1 = format!("use a;\nuse b;\n{}", v0());
    apply_with_snapshot(&r, "f.txt", &after1);
    let after2 = edit(&after1, "l20", "L20");
    let second = apply_with_snapshot(&r, "f.txt", &after2);
    // The agent reads the file after its second apply and writes the next change for it;
    // meanwhile the user edits a context line of that change.
    let now = edit(&after2, "l8", "l8 edited");
    r.write("f.txt", now.as_bytes());
    let patch = llm_diff(
        "f.txt",
        "@@ -9,7 +9,7 @@\n l7\n l8\n l9\n-l10\n+L10\n l11\n l12\n l13\n",
    );

    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    let theirs = edit(&after2, "l10", "L10");
    let (expected, conflicts) = merge_file(&now, &after2, &theirs);
    assert_eq!(conflicts, 0);
    assert_eq!(r.read_str("f.txt"), expected);
    let f = &v["files"][0];
    assert_eq!(f["strategy"], "history-3way");
    assert_eq!(f["base"]["kind"], "snapshot");
    let snap = snapshot::read(&open(&r), second).expect("read snapshot");
    assert_eq!(
        f["base"]["id"],
        snap.post_commit().to_string(),
        "the state the second apply left (its first apply's fits too, but is older)"
    );
    assert_eq!(
        r.git(&["show", &format!("{}:f.txt", snap.post_commit())]),
        after2,
        "the id names a commit holding the base"
    );
}

/// HEAD~1 changed line 15; the patch, written for HEAD~1's parent, changes it too.
fn overlapping_repo() -> (TestRepo, String) {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    let now = edit(&v0(), "l15", "l15 theirs too");
    r.write("f.txt", now.as_bytes());
    r.commit_all("the same line, changed otherwise");
    (r, now)
}

#[test]
fn an_overlapping_change_is_a_conflict_refused_by_default() {
    let (r, _) = overlapping_repo();
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch_for_v0());
    run.code(1);
    assert_eq!(r.state(), before, "a refusal leaves every byte");
    let f = &v["files"][0];
    assert_eq!(f["status"], "conflicted");
    assert_eq!(f["strategy"], "history-3way");
    assert_eq!(f["base"]["id"], rev(&r, "HEAD~1"));
}

#[test]
fn an_overlapping_change_gets_the_same_markers_as_strategy_2_with_partial() {
    let (history, now) = overlapping_repo();
    let (blob, _) = overlapping_repo();
    // The same patch with an index line naming v0's blob goes through git apply --3way.
    let theirs = edit(&v0(), "l15", "L15");
    let pre = blob.git(&["rev-parse", "HEAD~1:f.txt"]);
    let theirs_file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(theirs_file.path(), &theirs).expect("write");
    let post = blob.git(&["hash-object", &theirs_file.path().to_string_lossy()]);
    let with_index = patch_for_v0().replacen(
        "--- a/",
        &format!("index {}..{} 100644\n--- a/", &pre[..12], &post[..12]),
        1,
    );

    let (run2, v2) = blob.apply_json(&["--partial"], &with_index);
    let (run3, v3) = history.apply_json(&["--partial"], &patch_for_v0());
    assert_eq!(v2["files"][0]["strategy"], "3way");
    assert_eq!(v3["files"][0]["strategy"], "history-3way");
    assert_eq!(run3.code, run2.code, "the same exit status");
    run3.code(3);
    assert_eq!(v3["files"][0]["status"], v2["files"][0]["status"]);
    assert_eq!(
        history.read_str("f.txt"),
        blob.read_str("f.txt"),
        "the same conflict markers"
    );
    let (expected, conflicts) = merge_file(&now, &v0(), &theirs);
    assert_eq!(conflicts, 1);
    assert_eq!(history.read_str("f.txt"), expected);
}

#[test]
fn of_several_versions_that_fit_the_nearest_is_the_base() {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    // HEAD~1 changes only a far line, so the patch fits it as well as HEAD~2.
    let v1 = edit(&v0(), "l28", "l28 changed");
    r.write("f.txt", v1.as_bytes());
    r.commit_all("far edit");
    let v2 = edit(&v1, "l13", "l13 changed");
    r.write("f.txt", v2.as_bytes());
    r.commit_all("context edit");

    let (_, first) = r.apply_json(&["--check"], &patch_for_v0());
    let (_, second) = r.apply_json(&["--check"], &patch_for_v0());
    assert_eq!(first["files"][0]["base"], second["files"][0]["base"]);
    assert_eq!(first["files"][0]["base"]["id"], rev(&r, "HEAD~1"));

    let (run, _) = r.apply_json(&[], &patch_for_v0());
    run.code(0);
    let theirs = edit(&v1, "l15", "L15");
    assert_eq!(r.read_str("f.txt"), merge_file(&v2, &v1, &theirs).0);
}

#[test]
fn exact_context_in_one_place_stays_a_text_apply_even_with_a_base_in_history() {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    let v1 = format!("new first line\n{}", v0());
    r.write("f.txt", v1.as_bytes());
    r.commit_all("shift by one");
    let (run, v) = r.apply_json(&[], &patch_for_v0());
    run.code(0);
    let f = &v["files"][0];
    assert_eq!(
        f["strategy"], "text",
        "as git apply, which merges only what does not apply"
    );
    assert_eq!(f["hunks"][0]["offset"], 1);
    assert_eq!(r.read_str("f.txt"), edit(&v1, "l15", "L15"));
}

#[test]
fn history_depth_bounds_how_far_back_the_base_is_looked_for() {
    let (r, _) = drifted_repo();
    // HEAD~3 (the version the numbers fit) is three commits that touched the file away.
    // Within two, HEAD~2 holds the hunk once, two lines below its numbers: a base for
    // stale numbers, found only because no version within reach fits them exactly.
    r.git(&["config", "llm-apply.historyDepth", "2"]);
    let (_, v) = r.apply_json(&["--check"], &patch_for_v0());
    assert_eq!(v["files"][0]["strategy"], "history-3way");
    assert_eq!(v["files"][0]["base"]["id"], rev(&r, "HEAD~2"));
    r.git(&["config", "llm-apply.historyDepth", "1"]);
    let (_, v) = r.apply_json(&["--check"], &patch_for_v0());
    assert_ne!(v["files"][0]["strategy"], "history-3way");
    r.git(&["config", "llm-apply.historyDepth", "3"]);
    let (_, v) = r.apply_json(&["--check"], &patch_for_v0());
    assert_eq!(v["files"][0]["strategy"], "history-3way");
    assert_eq!(v["files"][0]["base"]["id"], rev(&r, "HEAD~3"));
}

/// Stale numbers (lines added above since the patch was made) and a context line changed
/// since: the text passes find no exact fit, and no version holds the hunk at its numbers.
/// The version that holds it once, off its numbers, is the base; the merge carries the change
/// past the later edit, as git merge-file does.
#[test]
fn a_base_is_found_for_a_hunk_whose_numbers_went_stale() {
    let (r, now) = drifted_repo();
    let v1 = format!("head a\nhead b\n{}", v0());
    let patch = llm_diff(
        "f.txt",
        "@@ -3,7 +3,7 @@\n l12\n l13\n l14\n-l15\n+L15\n l16\n l17\n l18\n",
    );
    let theirs = edit(&v1, "l15", "L15");
    let (expected, conflicts) = merge_file(&now, &v1, &theirs);
    assert_eq!(conflicts, 0);
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "history-3way");
    assert_eq!(v["files"][0]["base"]["id"], rev(&r, "HEAD~2"));
    assert_eq!(r.read_str("f.txt"), expected);
}

#[test]
fn a_history_depth_that_is_not_a_number_is_a_usage_error() {
    let (r, _) = drifted_repo();
    r.git(&["config", "llm-apply.historyDepth", "deep"]);
    let before = r.state();
    let run = r.apply(&[], &patch_for_v0());
    run.code(2).out_contains("llm-apply.historyDepth");
    assert_eq!(r.state(), before);
}

#[test]
fn a_staged_version_is_a_base_too() {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    let staged = format!("staged line\n{}", v0());
    r.write("f.txt", staged.as_bytes());
    r.git(&["add", "f.txt"]);
    let now = edit(&staged, "l13", "l13 changed");
    r.write("f.txt", now.as_bytes());
    let patch = llm_diff(
        "f.txt",
        "@@ -13,7 +13,7 @@\n l12\n l13\n l14\n-l15\n+L15\n l16\n l17\n l18\n",
    );
    let index_before = r.state().index;
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    let f = &v["files"][0];
    assert_eq!(f["base"]["kind"], "index");
    assert_eq!(f["base"]["id"], r.git(&["rev-parse", ":f.txt"]).trim());
    let theirs = edit(&staged, "l15", "L15");
    assert_eq!(r.read_str("f.txt"), merge_file(&now, &staged, &theirs).0);
    assert_eq!(r.state().index, index_before, "the index is as it was");
}

#[test]
fn a_hunk_without_numbers_recognises_the_version_where_it_occurs_once() {
    let (r, now) = drifted_repo();
    let patch = llm_diff(
        "f.txt",
        "@@ @@\n l12\n l13\n l14\n-l15\n+L15\n l16\n l17\n l18\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "history-3way");
    // HEAD~2 has the block once, two lines further down: without numbers, that fits.
    assert_eq!(v["files"][0]["base"]["id"], rev(&r, "HEAD~2"));
    let v1 = format!("head a\nhead b\n{}", v0());
    let theirs = edit(&v1, "l15", "L15");
    assert_eq!(r.read_str("f.txt"), merge_file(&now, &v1, &theirs).0);
}

#[test]
fn a_crlf_work_tree_over_lf_blobs_merges_in_the_work_tree_endings() {
    let r = TestRepo::with(&[
        (".gitattributes", "f.txt text eol=crlf\n"),
        ("f.txt", &v0()),
    ]);
    let crlf = |s: &str| s.replace('\n', "\r\n");
    // Git checks the file out with CRLF; the blobs keep LF.
    std::fs::remove_file(r.abs("f.txt")).expect("remove");
    r.git(&["checkout", "--", "f.txt"]);
    assert_eq!(r.read_str("f.txt"), crlf(&v0()));
    let v1 = edit(&v0(), "l13", "l13 changed");
    r.write("f.txt", crlf(&v1).as_bytes());
    r.commit_all("context edit");

    let (run, v) = r.apply_json(&[], &patch_for_v0());
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "history-3way");
    let theirs = edit(&v0(), "l15", "L15");
    assert_eq!(
        r.read_str("f.txt"),
        crlf(&merge_file(&v1, &v0(), &theirs).0)
    );
}

#[test]
fn a_numberless_hunk_twice_in_the_file_stays_ambiguous_though_an_older_version_has_it_once() {
    let r = TestRepo::with(&[("f.txt", &v0())]);
    let block = "l12\nl13\nl14\nl15\nl16\nl17\nl18\n";
    let now = format!("{}{block}", edit(&v0(), "l2", "l2 changed"));
    r.write("f.txt", now.as_bytes());
    r.commit_all("a copy of the block at the end");
    let before = r.state();
    let patch = llm_diff(
        "f.txt",
        "@@ @@\n l12\n l13\n l14\n-l15\n+L15\n l16\n l17\n l18\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["files"][0]["hunks"][0]["status"], "ambiguous");
    assert!(v["files"][0]["base"].is_null());
}

/// A hunk appending at the end of a file that lost its last context line (its header counts
/// one line more than its body): in the committed version it sits exactly at its numbers,
/// but whether the additions go before or after the line it lost, the body does not say.
/// That version is no base for it (fuzz seed 2600307: the history merge put the lines before
/// the file's last line), and the text passes refuse it in the file as it is now, as they do
/// in that version.
#[test]
fn a_short_hunk_adding_at_its_edge_recognises_no_version() {
    let base = "def test_multiple(runner):\n    runner.prepare()\n\n    result = runner.invoke(cli, [])\n    assert not result.exception\n    assert result.output == \"ok\"\n";
    let r = TestRepo::with(&[("t.py", base)]);
    // The work tree moved on: lines added at the top.
    let now = format!("import click\nimport pytest\n\n{base}");
    r.write("t.py", now.as_bytes());
    let before = r.state();
    let patch = llm_diff(
        "t.py",
        "@@ -2,5 +2,8 @@ def test_multiple(runner):\n     runner.prepare()\n \n     result = runner.invoke(cli, [])\n     assert not result.exception\n+    result = runner.invoke(cli, [])\n+    assert not result.exception\n+    assert result.output == \"ok\"\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_ne!(v["files"][0]["strategy"], "history-3way", "{v}");
}

/// The same shape, a hunk adding at its end, where only its new side is short of the header
/// (a miscount: no context line can be missing): the version it was written for is its base,
/// and the additions go where the body puts them (review of the fix above).
#[test]
fn a_hunk_whose_new_side_alone_is_short_still_finds_its_version() {
    let v1 =
        "def load(path):\n    with open(path) as f:\n        data = f.read()\n    return data\n";
    let r = TestRepo::with(&[("t.py", v1)]);
    let v2 = "import os\n\n\ndef load(path):\n    with open(path, encoding=\"utf-8\") as f:\n        data = f.read()\n    return data\n";
    r.write("t.py", v2.as_bytes());
    r.commit_all("v2");
    let patch = llm_diff(
        "t.py",
        "@@ -1,3 +1,6 @@\n def load(path):\n     with open(path) as f:\n         data = f.read()\n+    if not data:\n+        raise ValueError(path)\n",
    );
    let (run, v) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(
        r.read_str("t.py"),
        v2.replace(
            "data = f.read()\n",
            "data = f.read()\n    if not data:\n        raise ValueError(path)\n"
        )
    );
    assert_eq!(v["files"][0]["strategy"], "history-3way", "{v}");
}

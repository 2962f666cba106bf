//! A patch whose input stopped before it did is refused whole (kind `truncated`, exit 1,
//! nothing written, not even with --partial); a complete patch that merely miscounts or lacks
//! its final newline still applies. Also how file headers are told from hunk lines, and how a
//! `diff --git` line with spaces splits.

use crate::common::{numbered, TestRepo};

fn file() -> String {
    numbered("l", 30)
}

fn repo() -> TestRepo {
    TestRepo::with(&[("f.txt", &file()), ("g.txt", &numbered("g", 10))])
}

const HEAD: &str = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n";

/// A hunk over l10..l20 that changes l12 and l18: 11 old and 11 new lines.
fn full_hunk() -> Vec<&'static str> {
    vec![
        "@@ -10,11 +10,11 @@",
        " l10",
        " l11",
        "-l12",
        "+L12",
        " l13",
        " l14",
        " l15",
        " l16",
        " l17",
        "-l18",
        "+L18",
        " l19",
        " l20",
    ]
}

fn lines(ls: &[&str]) -> String {
    ls.iter().map(|l| format!("{l}\n")).collect()
}

fn applied() -> String {
    file().replace("l12\n", "L12\n").replace("l18\n", "L18\n")
}

/// Run with --json and check the refusal: exit 1, `refused`, one `truncated` error with
/// `message`, and the tree, index and HEAD as they were.
#[track_caller]
fn refused_as_truncated(r: &TestRepo, args: &[&str], patch: &str, message: &str) {
    let before = r.state();
    let (run, v) = r.apply_json(args, patch);
    run.code(1);
    assert_eq!(v["status"], "refused");
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["written"], false);
    assert_eq!(v["errors"].as_array().expect("errors").len(), 1, "{v:#}");
    assert_eq!(v["errors"][0]["kind"], "truncated");
    assert_eq!(v["errors"][0]["message"], message);
    assert_eq!(r.state(), before, "a refusal leaves tree, index and HEAD");
}

#[test]
fn a_last_hunk_cut_short_at_the_end_of_the_input_is_refused() {
    let r = repo();
    // Seven of the fourteen lines: the first change is there and would apply by itself.
    let patch = format!("{HEAD}{}", lines(&full_hunk()[..7]));
    refused_as_truncated(
        &r,
        &[],
        &patch,
        "f.txt: hunk 1 ('@@ -10,11 +10,11 @@') promises 11 old and 11 new lines but has 5 and 5, \
         6 line(s) missing, and the input ends there; the patch looks cut off, so nothing was \
         applied (resend it whole)",
    );
    // The human report, as every refusal's, on stderr; nothing on stdout.
    let run = r.apply(&[], &patch);
    run.code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: f.txt: hunk 1 ('@@ -10,11 +10,11 @@') promises 11 old and 11 new lines but has \
         5 and 5, 6 line(s) missing, and the input ends there; the patch looks cut off, so \
         nothing was applied (resend it whole)\nRefused: nothing was written (see above)\n"
    );
}

#[test]
fn a_cut_after_a_complete_file_refuses_that_file_too_even_with_partial() {
    let r = repo();
    let first = "diff --git a/g.txt b/g.txt\n--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n g3\n";
    let patch = format!("{first}{HEAD}{}", lines(&full_hunk()[..9]));
    for args in [&[][..], &["--partial"][..]] {
        refused_as_truncated(
            &r,
            args,
            &patch,
            "f.txt: hunk 1 ('@@ -10,11 +10,11 @@') promises 11 old and 11 new lines but has 7 \
             and 7, 4 line(s) missing, and the input ends there; the patch looks cut off, so \
             nothing was applied (resend it whole)",
        );
    }
}

#[test]
fn a_cut_in_the_next_file_header_refuses_the_files_before_it() {
    // The first file is complete; the stream stopped in the second one's header, which
    // would otherwise read as a file with no change (or, cut inside `diff --git`, a rename).
    let first = "diff --git a/g.txt b/g.txt\n--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n g3\n";
    for (cut, path) in [
        (
            "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n",
            "f.txt",
        ),
        ("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b", "b"),
        ("diff --git a/f.txt b/f.txt\n--- a/f", "f.txt"),
        ("diff --git a/f.txt b/f.t", "f.t"),
    ] {
        let r = repo();
        refused_as_truncated(
            &r,
            &[],
            &format!("{first}{cut}"),
            &format!(
                "{path}: the input ends in the file's header, before any hunk; the patch looks \
                 cut off, so nothing was applied (resend it whole)"
            ),
        );
    }
    // A header-only section that says something (a new empty file) is complete.
    let r = repo();
    r.apply(
        &[],
        &format!(
            "{first}diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n"
        ),
    )
    .code(0);
    assert_eq!(r.read_str("e.txt"), "");
    assert_eq!(
        r.read_str("g.txt"),
        numbered("g", 10).replace("g2\n", "G2\n")
    );
}

#[test]
fn a_cut_inside_a_fence_is_refused_whether_or_not_the_fence_is_closed() {
    let r = repo();
    let cut = lines(&full_hunk()[..6]);
    let message = "f.txt: hunk 1 ('@@ -10,11 +10,11 @@') promises 11 old and 11 new lines but has \
                   4 and 4, 7 line(s) missing, and the input ends there; the patch looks cut off, \
                   so nothing was applied (resend it whole)";
    refused_as_truncated(
        &r,
        &[],
        &format!("Here:\n\n```diff\n{HEAD}{cut}```\n"),
        message,
    );
    refused_as_truncated(&r, &[], &format!("Here:\n\n```diff\n{HEAD}{cut}"), message);
}

#[test]
fn a_complete_patch_in_a_fence_that_never_closes_is_refused() {
    // Every count is met, but the stream stopped before the closing fence: more files may
    // have followed.
    let r = repo();
    let patch = format!("Here:\n\n```diff\n{HEAD}{}", lines(&full_hunk()));
    refused_as_truncated(
        &r,
        &[],
        &patch,
        "f.txt: the markdown fence opened at line 3 around the patch is never closed, so the \
         rest of the patch may be missing; the patch looks cut off, so nothing was applied \
         (resend it whole)",
    );
    // Closed, it applies.
    r.apply(&[], &format!("{patch}```\n")).code(0);
    assert_eq!(r.read_str("f.txt"), applied());
}

#[test]
fn a_cut_in_the_middle_of_a_line_is_refused() {
    let r = repo();
    let mut patch = format!("{HEAD}{}", lines(&full_hunk()[..11]));
    patch.push_str("-l1");
    refused_as_truncated(
        &r,
        &[],
        &patch,
        "f.txt: hunk 1 ('@@ -10,11 +10,11 @@') promises 11 old and 11 new lines but has 10 and \
         8, 3 line(s) missing, and the input ends in the middle of a line; the patch looks cut \
         off, so nothing was applied (resend it whole)",
    );
}

#[test]
fn a_complete_patch_without_its_final_newline_applies() {
    let r = repo();
    let mut patch = format!("{HEAD}{}", lines(&full_hunk()));
    patch.pop();
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read_str("f.txt"), applied());
}

#[test]
fn counts_off_by_up_to_three_with_a_complete_body_apply() {
    for header in [
        "@@ -10,14 +10,14 @@",
        "@@ -10,14 +10,11 @@",
        "@@ -10,9 +10,13 @@",
    ] {
        let r = repo();
        let mut hunk = full_hunk();
        hunk[0] = header;
        let (run, v) = r.apply_json(&[], &format!("{HEAD}{}", lines(&hunk)));
        run.code(0);
        assert_eq!(r.read_str("f.txt"), applied(), "{header}");
        assert!(
            v["notices"]
                .as_array()
                .expect("notices")
                .iter()
                .any(|n| n["kind"] == "counts-recomputed"),
            "{header}: {v:#}"
        );
    }
}

#[test]
fn a_short_body_that_more_patch_follows_is_a_miscount_not_a_cut() {
    // Four lines short, but the stream went on: another file, or prose after the diff.
    let mut hunk = full_hunk();
    hunk[0] = "@@ -10,15 +10,15 @@";
    let next = "diff --git a/g.txt b/g.txt\n--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n g3\n";
    for tail in [next, "\nThat renames nothing; run the tests after.\n"] {
        let r = repo();
        r.apply(&[], &format!("{HEAD}{}{tail}", lines(&hunk)))
            .code(0);
        assert_eq!(r.read_str("f.txt"), applied());
    }
}

#[test]
fn a_codex_patch_without_its_end_marker_at_the_end_of_the_input_is_refused() {
    let r = repo();
    let patch = "*** Begin Patch\n*** Update File: g.txt\n@@\n g1\n-g2\n+G2\n g3\n@@\n g7\n-g8\n";
    refused_as_truncated(
        &r,
        &[],
        patch,
        "g.txt: '*** Begin Patch' at line 1 has no '*** End Patch': the input ends in hunk 2; \
         the patch looks cut off, so nothing was applied (resend it whole)",
    );
    // A closing fence shows the sender finished: the end marker alone was forgotten.
    let (run, v) = r.apply_json(&[], &format!("```\n{patch}+G8\n```\n"));
    run.code(0);
    assert_eq!(
        r.read_str("g.txt"),
        numbered("g", 10)
            .replace("g2\n", "G2\n")
            .replace("g8\n", "G8\n")
    );
    assert_eq!(v["format"], "codex");
}

/// A fence indented past the begin marker, inside a patch that lacks its end marker, is a
/// context line (a file's doc comment showing code), not the end of the wrapper: taken as
/// the end, it cut the patch before its change, which then did nothing and exited 0 as
/// "already applied" (alt corpus set k, is-plain-obj-1a003667-codex-damaged).
#[test]
fn a_fence_in_a_codex_context_line_does_not_end_the_wrapper() {
    let doc = "/**\n@example\n```\nplain({});\n```\n*/\nexport = plain;\n";
    let r = TestRepo::with(&[("index.d.ts", doc)]);
    let patch = "```\n*** Begin Patch\n*** Update File: index.d.ts\n@@\n @example\n ```\n plain({});\n ```\n */\n-export = plain;\n+export default plain;\n```\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(
        r.read_str("index.d.ts"),
        doc.replace("export = plain;", "export default plain;")
    );
    assert_eq!(v["notices"][0]["kind"], "end-marker-missing", "{v}");
    // A fence at the begin marker's depth, followed by more of the patch: the patch went on
    // past it, and only its first file would have been applied. Nothing is.
    let r = repo();
    let before = r.state();
    let patch = "```\n*** Begin Patch\n*** Update File: g.txt\n@@\n g1\n-g2\n+G2\n```\nAnd the other file:\n*** Update File: f.txt\n@@\n-l1\n+L1\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(2);
    assert_eq!(r.state(), before);
    assert_eq!(
        v["errors"][0]["message"],
        "line 10: '*** Begin Patch' at line 2 has no '*** End Patch', and the wrapper's close \
         at line 8 taken as its end is followed by more of the patch: where it ends is unclear, \
         so nothing was applied (resend it whole, with '*** End Patch')"
    );
}

#[test]
fn a_codex_patch_without_its_end_marker_but_with_prose_after_it_applies() {
    // A paragraph after the last hunk: the sender finished and forgot the marker.
    let r = repo();
    let patch = "*** Begin Patch\n*** Update File: g.txt\n@@\n g1\n-g2\n+G2\n g3\n\nThat is all.\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(
        r.read_str("g.txt"),
        numbered("g", 10).replace("g2\n", "G2\n")
    );
    let kinds: Vec<&str> = v["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| n["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds[0], "end-marker-missing");
    assert!(kinds.contains(&"prose-ignored"), "{kinds:?}");
    assert_eq!(
        v["notices"][0]["message"],
        "'*** End Patch' is missing; the patch was taken to end where the prose after it starts (line 9)"
    );
}

#[test]
fn a_search_replace_block_open_at_the_end_of_the_input_is_refused() {
    let r = repo();
    let patch = "g.txt\n```\n<<<<<<< SEARCH\ng2\n=======\nG2\n>>>>>>> REPLACE\n```\n\ng.txt\n```\n<<<<<<< SEARCH\ng8\n=======\nG";
    refused_as_truncated(
        &r,
        &[],
        patch,
        "g.txt: block 2 (opened at line 12) has no closing '>>>>>>> REPLACE': the input ends \
         inside its REPLACE text; the patch looks cut off, so nothing was applied (resend it \
         whole)",
    );
    // One block cut inside its SEARCH text.
    refused_as_truncated(
        &r,
        &[],
        "g.txt\n<<<<<<< SEARCH\ng2\n",
        "g.txt: block 1 (opened at line 2) has no closing '>>>>>>> REPLACE': the input ends \
         inside its SEARCH text; the patch looks cut off, so nothing was applied (resend it \
         whole)",
    );
}

#[test]
fn a_search_replace_text_cut_as_the_next_block_begins_is_refused() {
    let block = "g.txt\n```\n<<<<<<< SEARCH\ng2\n=======\nG2\n>>>>>>> REPLACE\n```\n\n";
    for cut in ["src/f.t", "```pyth", "<<<<<<< SEA"] {
        let r = repo();
        refused_as_truncated(
            &r,
            &[],
            &format!("{block}{cut}"),
            &format!(
                "g.txt: the input ends in the middle of '{cut}' after the last complete block, \
                 where another block was beginning; the patch looks cut off, so nothing was \
                 applied (resend it whole)"
            ),
        );
    }
    // Complete blocks whose text merely lacks its final newline apply.
    let unfenced = block.trim_end_matches("```\n\n");
    for text in [
        format!("{unfenced}```"),
        format!("{block}Done."),
        format!("{block}That is all"),
    ] {
        let r = repo();
        r.apply(&[], &text).code(0);
        assert_eq!(
            r.read_str("g.txt"),
            numbered("g", 10).replace("g2\n", "G2\n"),
            "{text}"
        );
    }
}

#[test]
fn a_count_one_too_large_does_not_swallow_the_next_file_header() {
    let r = TestRepo::with(&[("f.txt", "a\nb\n"), ("g.txt", "x\ny\n")]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), "a\nB\n");
    assert_eq!(r.read_str("g.txt"), "x\nY\n");
    assert_eq!(v["files"].as_array().expect("files").len(), 2);
    assert_eq!(v["files"][1]["path"], "g.txt");
}

#[test]
fn a_diff_git_line_with_spaces_and_custom_prefixes_splits_as_git_splits_it() {
    // No ---/+++ lines to go by: the `diff --git` line alone names the file. git reads it as
    // two equal halves, `src/foo.rs src/foo.rs` twice, and strips one component from each.
    let patch = "diff --git src/foo.rs src/foo.rs src/foo.rs src/foo.rs\nnew file mode 100644\n";
    let by_git = TestRepo::empty();
    by_git.write("p.diff", patch.as_bytes());
    by_git.git(&["apply", "p.diff"]);
    let ours = TestRepo::empty();
    ours.apply(&[], patch).code(0);
    let created = |r: &TestRepo| -> Vec<String> {
        r.tree()
            .keys()
            .filter(|p| p.as_str() != "p.diff")
            .cloned()
            .collect()
    };
    assert_eq!(created(&by_git), vec!["foo.rs src/foo.rs".to_string()]);
    assert_eq!(created(&ours), created(&by_git));

    // A mode change on a file whose name has a space, with a custom prefix.
    let r = TestRepo::with(&[("my file.sh", "echo\n")]);
    let mode = "diff --git x/my file.sh y/my file.sh\nold mode 100644\nnew mode 100755\n";
    let by_git = TestRepo::with(&[("my file.sh", "echo\n")]);
    by_git.write("m.diff", mode.as_bytes());
    by_git.git(&["apply", "m.diff"]);
    r.apply(&[], mode).code(0);
    assert_eq!(r.tree()["my file.sh"], by_git.tree()["my file.sh"]);
    assert_eq!(r.tree()["my file.sh"].0 & 0o111, 0o111);
}

/// A unified hunk whose context lost its leading spaces has a fence of the file's own (a
/// JSDoc example's close) right before its added lines: the fence is context, not the end
/// of the hunk. Taken as the end, the hunk kept two context lines and no change, and
/// exited 0 as "already applied" with its 2 added lines read as prose (alt corpus set o,
/// execa-f169dacb-no-prefix-context).
#[test]
fn a_fence_of_the_file_before_added_lines_does_not_end_the_hunk() {
    let doc = "/**\n@example\n```\nrun();\n```\n*/\nexport function run(): void;\n";
    let r = TestRepo::with(&[("main.d.ts", doc)]);
    let patch = "--- a/main.d.ts\n+++ b/main.d.ts\n@@ -3,5 +3,7 @@\n```\nrun();\n```\n+@see stop\n+@since 2\n*/\nexport function run(): void;\n";
    let (run, _) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(
        r.read_str("main.d.ts"),
        doc.replace("```\n*/", "```\n@see stop\n@since 2\n*/")
    );
}

/// A hunk left with no change after its end was guessed (at a fence the file does not
/// have, text after it), its header counting the lines it lost: refused, never "already
/// applied". Where added lines follow such a fence, whether they are the hunk's is unclear:
/// the patch is refused whole (exit 2), rather than applied without them.
#[test]
fn a_hunk_that_lost_its_changes_is_not_already_applied() {
    let r = TestRepo::with(&[("f", "a\nb\nc\n")]);
    let before = r.state();
    let patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,4 @@\n a\n b\n```\nx\ny\n```\n";
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(r.state(), before);
    let reason = v["files"][0]["hunks"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("the hunk changes nothing"), "{v}");
    for patch in [
        "--- a/f\n+++ b/f\n@@ -1,2 +1,4 @@\n a\n b\n```\n+x\n+y\n```\n",
        "--- a/f\n+++ b/f\n@@ -1,2 +1,4 @@\n a\n+x\n```\n+y\n b\n",
    ] {
        let (run, v) = r.apply_json(&[], patch);
        run.code(2);
        assert_eq!(r.state(), before);
        assert!(
            v["errors"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains("lines shaped as the hunk's follow the fence")),
            "{v}"
        );
    }
}

/// Inside a ```diff wrapper, a column-0 fence that the file also has may be the wrapper's
/// close, and a `+ bullet` after it prose: under a header that merely overcounts, it is
/// (review of the execa fix: the bullet was applied as an added line after the README's
/// own fence). Where the header counts that bullet exactly, both readings are whole: the
/// patch is refused (exit 2) rather than applied either way.
#[test]
fn a_bullet_after_a_wrapper_close_that_the_file_has_is_prose_or_unclear() {
    let readme = "# Foo\n\nInstall:\n\n```bash\npip install foo\n```\n\nMore text.\n";
    let patch = |header: &str| {
        format!(
            "Here is the change:\n\n```diff\n--- a/README.md\n+++ b/README.md\n{header}\n Install:\n \n ```bash\n-pip install foo\n+pip install foo[all]\n```\n+ Installs the optional extras too.\n\nThen run:\n\n```bash\npip install foo[all]\n```\n"
        )
    };
    let r = TestRepo::with(&[("README.md", readme)]);
    r.apply(&[], &patch("@@ -3,5 +3,5 @@")).code(0);
    assert_eq!(
        r.read_str("README.md"),
        readme.replace("pip install foo\n", "pip install foo[all]\n")
    );
    let r = TestRepo::with(&[("README.md", readme)]);
    let before = r.state();
    r.apply(&[], &patch("@@ -3,5 +3,6 @@")).code(2);
    assert_eq!(r.state(), before);
}

/// A plain diff whose header overcounts, followed by a fenced diff of another file: the
/// fence and the file header after it start the next file, as they did before a fence in a
/// hunk was read by whether one is open around the patch.
#[test]
fn a_fenced_diff_after_a_plain_one_that_overcounts_is_the_next_file() {
    let r = repo();
    let patch = "--- a/g.txt\n+++ b/g.txt\n@@ -1,4 +1,5 @@\n g1\n-g2\n+G2\n g3\n```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-l1\n+L1\n l2\n```\n";
    r.apply(&[], patch).code(0);
    assert_eq!(
        r.read_str("g.txt"),
        numbered("g", 10).replace("g2\n", "G2\n")
    );
    assert_eq!(r.read_str("f.txt"), file().replace("l1\n", "L1\n"));
}

/// A plain diff whose context has a fence the file does not have (misremembered: ```sh for
/// the README's ```bash), the hunk's lines going on after it: read as the end of the hunk,
/// the change after it was dropped as prose and the rest applied, exit 0 (the second review
/// of this session's fence rules). Refused whole.
#[test]
fn a_misremembered_fence_in_a_hunk_refuses_the_patch_rather_than_half_of_it() {
    let readme = "# Foo\n\nOld intro\n\n```bash\npip install foo\n```\n";
    let r = TestRepo::with(&[("README.md", readme)]);
    let before = r.state();
    let patch = "--- a/README.md\n+++ b/README.md\n@@ -1,7 +1,7 @@\n # Foo\n \n-Old intro\n+New intro\n \n```sh\n-pip install foo\n+pip install foo[all]\n ```\n";
    r.apply(&[], patch).code(2);
    assert_eq!(r.state(), before);
}

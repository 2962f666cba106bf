//! The human report (DESIGN §7) as snapshots: success, refusal and partial, with and without
//! colour, each with its exit status and both streams; and when colour is on.

use crate::common::{git_version, numbered, Run, TestRepo};

fn diff(path: &str, body: &str) -> String {
    format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n{body}")
}

/// A run as a snapshot: exit status, then both streams, escape characters made visible.
fn shown(run: &Run) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
    .replace('\x1b', "␛")
}

fn repo() -> TestRepo {
    TestRepo::with(&[
        ("src/app.py", &numbered("line", 30)),
        ("src/util.py", "def helper():\n    return 1\n"),
    ])
}

/// Changes app.py (one hunk moved by drift), creates notes.txt.
fn good_patch() -> String {
    format!(
        "{}{}",
        diff(
            "src/app.py",
            "@@ -4,3 +4,4 @@\n line6\n-line7\n+LINE7\n+line7b\n line8\n"
        ),
        "diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+first\n+second\n"
    )
}

/// app.py applies, util.py has a hunk whose removed line the file does not have.
fn mixed_patch() -> String {
    format!(
        "{}{}",
        diff(
            "src/app.py",
            "@@ -10,3 +10,3 @@\n line10\n-line11\n+LINE11\n line12\n"
        ),
        diff(
            "src/util.py",
            "@@ -1,2 +1,2 @@\n def helper():\n-    return 2\n+    return 3\n"
        )
    )
}

#[test]
fn success_plain() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&[], &good_patch())));
}

#[test]
fn success_in_colour() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&["--color=always"], &good_patch())));
}

#[test]
fn refusal_plain() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&[], &mixed_patch())));
}

#[test]
fn refusal_in_colour() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&["--color=always"], &mixed_patch())));
}

#[test]
fn partial_plain() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&["--partial"], &mixed_patch())));
}

#[test]
fn partial_in_colour() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&["--partial", "--color"], &mixed_patch())));
}

#[test]
fn bad_input_goes_to_stderr() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&[], "no patch in here\n")));
}

// ----------------------------------------------------------------------------- when colour

const ESC: &str = "\x1b[";

fn coloured(r: &TestRepo, args: &[&str], no_color: Option<&str>) -> bool {
    output(r, args, no_color).contains(ESC)
}

/// Standard output of a run of the good patch with NO_COLOR as given (unset for `None`).
fn output(r: &TestRepo, args: &[&str], no_color: Option<&str>) -> String {
    use std::io::Write;
    let mut c = r.cmd(args);
    match no_color {
        Some(v) => c.env("NO_COLOR", v),
        None => c.env_remove("NO_COLOR"),
    };
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(good_patch().as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn output_to_a_pipe_is_plain_by_default() {
    assert!(!coloured(&repo(), &[], None));
}

#[test]
fn gits_color_ui_always_colours_even_a_pipe_unless_no_color_is_set() {
    let r = repo();
    r.git(&["config", "color.ui", "always"]);
    assert!(coloured(&r, &[], None));
    let r = repo();
    r.git(&["config", "color.ui", "always"]);
    assert!(
        !coloured(&r, &[], Some("1")),
        "NO_COLOR wins over git's config"
    );
}

#[test]
fn gits_color_diff_overrides_color_ui() {
    let r = repo();
    r.git(&["config", "color.ui", "always"]);
    r.git(&["config", "color.diff", "never"]);
    assert!(!coloured(&r, &[], None));
}

#[test]
fn the_color_flag_wins_over_no_color_and_config() {
    let r = repo();
    assert!(coloured(&r, &["--color=always"], Some("1")));
    let r = repo();
    r.git(&["config", "color.ui", "always"]);
    assert!(!coloured(&r, &["--color=never"], None));
}

#[test]
fn an_empty_no_color_does_not_turn_colour_off() {
    let r = repo();
    r.git(&["config", "color.ui", "always"]);
    assert!(coloured(&r, &[], Some("")));
}

#[test]
fn json_is_never_coloured() {
    let r = repo();
    let out = output(&r, &["--json", "--color=always"], None);
    assert!(!out.contains(ESC));
    crate::common::schema::assert_valid_output(&serde_json::from_str(&out).expect("JSON"));
}

#[test]
fn a_terminal_gets_colour_by_default() {
    // `script` gives the command a pseudo-terminal; without it there is nothing to test.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no `script` to provide a terminal");
        return;
    }
    let r = repo();
    let dir = tempfile::tempdir().expect("tmp");
    let patch = dir.path().join("p.patch");
    std::fs::write(&patch, good_patch()).expect("write");
    let bin = assert_cmd::cargo::cargo_bin("git-llm-apply");
    let inner = format!("{} {}", bin.display(), patch.display());
    let mut script = std::process::Command::new("script");
    crate::common::pinned_env(&mut script, r.path());
    script
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(r.path())
        .env_remove("NO_COLOR")
        .env("TERM", "xterm");
    let out = script.output().expect("run script");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(ESC), "a terminal gets colour:\n{text}");
}

#[test]
fn a_rename_with_changes_shows_as_one_diff_and_a_deletion_as_removed_lines() {
    let r = TestRepo::with(&[("old/name.txt", &numbered("l", 5)), ("gone.txt", "bye\n")]);
    let patch = "diff --git a/old/name.txt b/new/name.txt\nsimilarity index 80%\nrename from old/name.txt\nrename to new/name.txt\n--- a/old/name.txt\n+++ b/new/name.txt\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\ndiff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
    let run = r.apply(&[], patch);
    run.code(0);
    assert_eq!(
        run.stdout,
        "diff --git a/old/name.txt b/new/name.txt\nrename from old/name.txt\nrename to new/name.txt\n--- a/old/name.txt\n+++ b/new/name.txt\n@@ -1,5 +1,5 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n\
         diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
         R old/name.txt -> new/name.txt (+1 -1) via exact\nD gone.txt (+0 -1) via file\n\
         snapshot: refs/llm-apply/1 (undo with: git llm-apply undo 1)\nApplied 2 files (+1 -2)\n"
    );
}

// ------------------------------------------------------------------------ git's colours

/// Each character of each line with the SGR codes in force on it: how the text looks on a
/// terminal, whatever escapes were used to get there.
fn look(text: &str) -> Vec<Vec<(char, String)>> {
    text.lines()
        .map(|line| {
            let mut out = Vec::new();
            let mut sgr = String::new();
            let mut rest = line;
            while let Some(c) = rest.chars().next() {
                if let Some(after) = rest.strip_prefix("\x1b[") {
                    let end = after.find('m').expect("an SGR sequence ends with m");
                    let codes = &after[..end];
                    if codes.is_empty() {
                        sgr.clear();
                    } else {
                        sgr.push_str(codes);
                        sgr.push(';');
                    }
                    rest = &after[end + 1..];
                    continue;
                }
                out.push((c, sgr.clone()));
                rest = &rest[c.len_utf8()..];
            }
            out
        })
        .collect()
}

/// The lines from the first hunk header on, as they look.
fn hunks_look(text: &str) -> Vec<Vec<(char, String)>> {
    let start = text
        .find("\x1b[")
        .map(|_| ())
        .and(text.lines().position(|l| l.contains("@@")));
    let lines: Vec<&str> = text.lines().skip(start.expect("a hunk")).collect();
    look(&lines.join("\n"))
}

/// Apply the good patch's app.py hunk in colour with `config` set; our diff and `git diff`'s.
fn ours_and_gits(config: &[(&str, &str)]) -> (String, String) {
    let r = repo();
    for (k, v) in config {
        r.git(&["config", k, v]);
    }
    let patch = diff(
        "src/app.py",
        "@@ -4,3 +4,4 @@\n line6\n-line7\n+LINE7\n+line7b   \n line8\n",
    );
    let run = r.apply(&["--color=always"], &patch);
    run.code(0);
    let ours: String = run
        .stdout
        .lines()
        .take_while(|l| !l.contains("src/app.py (+"))
        .map(|l| format!("{l}\n"))
        .collect();
    // Both show the section heading after the hunk header, by git's default rule.
    let gits = r.git(&["diff", "--color=always"]);
    (ours, gits)
}

#[test]
fn a_color_diff_new_blue_repo_shows_added_lines_in_blue() {
    let (ours, _) = ours_and_gits(&[("color.diff.new", "blue")]);
    assert!(ours.contains("\x1b[34m+LINE7\x1b[m\n"), "{ours:?}");
    assert!(!ours.contains("\x1b[32m"), "no green left: {ours:?}");
}

#[test]
fn the_diff_looks_as_git_diff_shows_it_by_default_and_as_configured() {
    let mut configs = vec![
        &[][..],
        &[("color.diff.new", "blue")],
        &[
            ("color.diff.new", "#00ff00 bold"),
            ("color.diff.old", "208 ul"),
            ("color.diff.frag", "magenta reverse"),
            ("color.diff.context", "dim"),
            ("color.diff.whitespace", "yellow reverse"),
        ],
        // `plain` is the old name of `context`.
        &[("color.diff.plain", "magenta ul")],
    ];
    // Words git learned later (README, "What it reports"): an older git's own diff refuses
    // them ("invalid color value"), so each is compared only with a git that knows it.
    let version = git_version();
    if version >= [2, 26, 0] {
        configs.push(&[("color.diff.plain", "brightblack")]);
    }
    if version >= [2, 35, 0] {
        configs.push(&[
            ("color.diff.context", "default"),
            ("color.diff.new", "reset green"),
        ]);
    }
    for config in configs {
        let (ours, gits) = ours_and_gits(config);
        assert_eq!(
            hunks_look(&ours),
            hunks_look(&gits),
            "{config:?}\nours: {ours:?}\ngit's: {gits:?}"
        );
    }
}

#[test]
fn our_own_lines_take_color_llm_apply_slots() {
    let r = repo();
    r.git(&["config", "color.llm-apply.applied", "blue bold"]);
    r.git(&["config", "color.llm-apply.summary", "ul"]);
    let run = r.apply(&["--color=always"], &good_patch());
    run.code(0);
    assert!(
        run.stdout.contains("\x1b[1;34mM\x1b[m src/app.py"),
        "{:?}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\x1b[4mApplied 2 files (+4 -1)\x1b[m"),
        "{:?}",
        run.stdout
    );
}

#[test]
fn an_invalid_colour_is_a_config_error_naming_key_and_value() {
    let r = repo();
    r.git(&["config", "color.diff.new", "purple"]);
    let before = r.state();
    let run = r.apply(&[], &good_patch());
    run.code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("error: git config color.diff.new is 'purple', not a colour"),
        "{}",
        run.stderr
    );
    assert_eq!(r.state(), before);
}

/// The colours are the renderer's, but the config is checked whole before anything is
/// written: a run that shows no colour (`--json`) is refused the same way.
#[test]
fn an_invalid_colour_fails_a_json_run_too_before_anything_is_written() {
    let r = repo();
    r.git(&["config", "color.diff.new", "purple"]);
    let before = r.state();
    let (run, json) = r.apply_json(&[], &good_patch());
    run.code(2);
    assert_eq!(json["errors"][0]["kind"], "config", "{json}");
    assert!(
        json["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("git config color.diff.new is 'purple', not a colour")),
        "{json}"
    );
    assert_eq!(r.state(), before);
}

// ------------------------------------------------------------------------ quiet, verbose

#[test]
fn quiet_success() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&["-q"], &good_patch())));
}

#[test]
fn quiet_refusal() {
    let r = repo();
    insta::assert_snapshot!(shown(&r.apply(&["-q"], &mixed_patch())));
}

#[test]
fn verbose_partial() {
    let r = repo();
    let run = r.apply(&["-v", "--partial"], &mixed_patch());
    // The git commands run name temporary directories, and which run is the business of
    // the stages that run them: the snapshot keeps only that they came first.
    let ran = run
        .stderr
        .lines()
        .take_while(|l| l.starts_with("verbose: ran git "))
        .count();
    assert!(ran > 0, "{}", run.stderr);
    let stderr: String = std::iter::once("verbose: ran git … (each command run)\n".to_string())
        .chain(run.stderr.lines().skip(ran).map(|l| format!("{l}\n")))
        .collect();
    assert!(!stderr.contains("verbose: ran git -"), "{stderr}");
    let run = crate::common::Run { stderr, ..run };
    insta::assert_snapshot!(shown(&run));
}

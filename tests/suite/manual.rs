//! The manual and the shell completions: the page renders, `install-man` puts it where `man`
//! and `git help` find it for an installed binary, and the completions load into the shells.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{pinned_env, Run, TestRepo};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("git-llm-apply")
}

/// A command with the pinned environment and a pager that only prints.
fn quiet_cmd(program: impl AsRef<std::ffi::OsStr>, home: &Path) -> Command {
    let mut c = Command::new(program);
    pinned_env(&mut c, home);
    c.env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .env_remove("MANPATH")
        .env_remove("GIT_PAGER")
        .current_dir(home);
    c
}

/// An install root as `cargo install` makes one: `<root>/bin/git-llm-apply`, then the README's
/// second step, `git-llm-apply install-man`.
fn installed() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().expect("tmp");
    let bin_dir = root.path().join("bin");
    std::fs::create_dir_all(&bin_dir).expect("mkdir");
    let exe = bin_dir.join("git-llm-apply");
    std::fs::copy(bin(), &exe).expect("copy the binary");
    // A binary just copied may be "busy" for a moment: another test thread may have forked
    // while the copy's file was still open for writing (ETXTBSY). Try again then.
    let mut tries = 0;
    let output = loop {
        match quiet_cmd(&exe, root.path()).arg("install-man").output() {
            Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.expect("run install-man"),
        }
    };
    let run = Run::from(output);
    run.code(0);
    let page = root.path().join("share/man/man1/git-llm-apply.1");
    assert!(page.is_file(), "install-man wrote {}", page.display());
    assert!(
        run.stdout.contains(&page.display().to_string()),
        "{}",
        run.stdout
    );
    (root, bin_dir)
}

/// PATH with the install root's bin first, and the system's after it (git, man).
fn path_with(bin_dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("PATH")
}

#[track_caller]
fn shows_the_page(out: &std::process::Output, what: &str) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "GIT-LLM-APPLY(1)",
        "SYNOPSIS",
        "EXIT STATUS",
        "llm-apply.lockTimeout",
        "color.diff.new",
        "--quiet",
    ] {
        assert!(text.contains(needle), "{what}: lacks {needle:?}:\n{text}");
    }
}

#[test]
fn the_page_renders_with_man_and_without_warnings() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = Run::from(
        quiet_cmd(bin(), dir.path())
            .args(["install-man", "--print"])
            .output()
            .expect("run"),
    );
    run.code(0);
    assert!(
        run.stdout
            .contains("\n.TH GIT-LLM-APPLY 1 2026-12-01 \"git-llm-apply "),
        "{}",
        &run.stdout[..200]
    );
    let page = dir.path().join("git-llm-apply.1");
    std::fs::write(&page, &run.stdout).expect("write");
    let out = quiet_cmd("man", dir.path())
        .args(["--warnings", "-l"])
        .arg(&page)
        .output()
        .expect("man is installed (.ci/run installs man-db)");
    shows_the_page(&out, "man -l");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "groff warnings");
    let text = String::from_utf8_lossy(&out.stdout);
    for section in [
        "DESCRIPTION",
        "OPTIONS",
        "COMMANDS",
        "FORMATS",
        "STRATEGIES",
        "CONFIGURATION",
        "FILES",
        "EXAMPLES",
    ] {
        assert!(
            text.contains(&format!("\n{section}\n")),
            "{section}:\n{text}"
        );
    }
}

#[test]
fn after_the_readme_set_up_git_help_and_man_open_the_page() {
    let (root, bin_dir) = installed();
    let path = path_with(&bin_dir);
    for (program, args) in [
        ("git", &["help", "llm-apply"][..]),
        ("git", &["llm-apply", "--help"]),
        ("man", &["git-llm-apply"]),
    ] {
        let out = quiet_cmd(program, root.path())
            .env("PATH", &path)
            .args(args)
            .output()
            .expect("run");
        shows_the_page(&out, &format!("{program} {args:?}"));
    }
}

#[test]
fn dash_h_stays_the_short_help() {
    let r = TestRepo::empty();
    let run = Run::from(r.cmd(&["-h"]).output().expect("run"));
    run.code(0);
    assert!(
        run.stdout
            .contains("Usage: git llm-apply [OPTIONS] [PATCH]... [COMMAND]"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("EXIT STATUS"));
}

#[test]
fn install_man_into_a_directory_that_cannot_be_made_is_an_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").expect("write");
    let run = Run::from(
        quiet_cmd(bin(), dir.path())
            .args(["install-man", "--dir"])
            .arg(file.join("man1"))
            .output()
            .expect("run"),
    );
    run.code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("error: cannot create "),
        "{}",
        run.stderr
    );
}

// ------------------------------------------------------------------------- completions

/// git's own bash completion, where Debian's git package puts it.
const GIT_COMPLETION: &str = "/usr/share/bash-completion/completions/git";

/// What bash completes for each line (the cursor at its end), with git's completion loaded and
/// ours after it, as a user's shell has them: a line starting `git ` goes through git's
/// completion, one starting `git-llm-apply` through the function registered for the binary.
/// One `a|b|` line per input line.
fn complete(r: &TestRepo, lines: &[&str]) -> Vec<String> {
    assert!(
        Path::new(GIT_COMPLETION).is_file(),
        "{GIT_COMPLETION} is missing (.ci/run installs bash-completion)"
    );
    let mut script = format!(
        r#"source {GIT_COMPLETION}
source <(git-llm-apply completions bash) || exit 3
complete_line() {{
	COMP_LINE="$1"
	COMP_POINT=${{#COMP_LINE}}
	read -r -a COMP_WORDS <<< "$COMP_LINE"
	if [[ "$COMP_LINE" == *" " ]]; then COMP_WORDS+=(""); fi
	COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
	COMPREPLY=()
	if [[ "${{COMP_WORDS[0]}}" == git-llm-apply ]]; then
		local f
		f=$(complete -p git-llm-apply | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
		"$f" git-llm-apply "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
	else
		__git_wrap__git_main
	fi
	printf '%s|' "${{COMPREPLY[@]}}"
	echo
}}
"#
    );
    for l in lines {
        script.push_str(&format!("complete_line '{l}'\n"));
    }
    let bin_dir = bin().parent().expect("bin dir").to_path_buf();
    let out = quiet_cmd("bash", r.path())
        .env("PATH", path_with(&bin_dir))
        .args(["--norc", "-c", &script])
        .output()
        .expect("run bash");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "bash: {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_git_llm_apply_through_gits_own_completion() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    // Two applies, two snapshots for `undo` to offer.
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
        .code(0);
    r.apply(&[], "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-b\n+c\n")
        .code(0);
    let got = complete(
        &r,
        &[
            "git llm-apply lo",
            "git llm-apply ",
            "git llm-apply --qu",
            "git llm-apply --format=s",
            "git llm-apply undo ",
            "git llm-apply hooks in",
            "git llm-apply hooks install ",
            "git llm-apply hooks install --f",
            "git llm-apply completions z",
        ],
    );
    assert_eq!(
        got,
        [
            "log |",
            "log |undo |hooks |install-man |edit |mcp |tools |completions |help |",
            "--quiet |",
            "search-replace |",
            "1 |2 |",
            "install |",
            "path-policy |fetch-missing-blobs |verify |",
            "--force |",
            "zsh |",
        ]
    );
}

/// The values `tools --for` accepts, as clap's refusal of another lists them, each followed by
/// `end` as `complete` prints it, so the test follows the list wherever it is defined.
fn tools_for_values(r: &TestRepo, end: &str) -> String {
    let run = Run::from(r.cmd(&["tools", "--for", "bogus"]).output().expect("run"));
    run.code(2);
    let (_, list) = run
        .stderr
        .split_once("[possible values: ")
        .expect("clap lists the possible values");
    let (list, _) = list.split_once(']').expect("the list ends");
    list.split(", ").map(|v| format!("{v}{end}")).collect()
}

#[test]
fn bash_completes_subcommand_options_and_values_by_either_name() {
    let r = TestRepo::with(&[("f.txt", "a\n")]);
    // clap's script offers bare words, git's adds the space that ends a word.
    let apis_direct = tools_for_values(&r, "|");
    let apis = tools_for_values(&r, " |");
    let hooks = "list |install |plan-paths |plan-size |help |";
    let got = complete(
        &r,
        &[
            // The binary by its own name: clap's script.
            "git-llm-apply undo --",
            "git-llm-apply undo --wo",
            "git-llm-apply hooks ",
            "git-llm-apply hooks pl",
            "git-llm-apply tools --for ",
            "git-llm-apply tools --for c",
            "git-llm-apply install-man --p",
            // Through git: our _git_llm_apply.
            "git llm-apply undo --",
            "git llm-apply hooks ",
            "git llm-apply tools --for ",
            "git llm-apply tools --for=",
            "git llm-apply tools --for c",
            "git llm-apply tools --for=c",
            "git llm-apply -C . tools --for c",
            "git llm-apply tools --for codex ",
        ],
    );
    assert_eq!(
        got,
        [
            "--session|--force|--check|--worktree|--json|--color|--quiet|--verbose|--full-diff|--help|",
            "--worktree|",
            "-C|-q|-v|-h|--color|--quiet|--verbose|--full-diff|--help|list|install|plan-paths|plan-size|help|",
            "plan-paths|plan-size|",
            &apis_direct,
            "codex|",
            "--print|",
            "--session=|--force |--check |--worktree=|--json |--help |",
            hooks,
            &apis,
            &apis,
            "codex |",
            "codex |",
            "codex |",
            // A value given, nothing else to offer (not the values again, not the subcommands).
            "|",
        ]
        .map(str::to_string)
    );
}

#[test]
fn the_bash_script_also_completes_the_binary_by_its_own_name() {
    let r = TestRepo::empty();
    let bin_dir = bin().parent().expect("bin dir").to_path_buf();
    let script = "source <(git-llm-apply completions bash) && complete -p git-llm-apply";
    let out = quiet_cmd("bash", r.path())
        .env("PATH", path_with(&bin_dir))
        .args(["--norc", "-c", script])
        .output()
        .expect("run bash");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" git-llm-apply"), "{text}");
}

#[test]
fn every_shell_gets_a_script() {
    let r = TestRepo::empty();
    for (shell, marker) in [
        ("bash", "_git_llm_apply ()"),
        ("zsh", "#compdef git-llm-apply"),
        ("fish", "complete -c git-llm-apply"),
        ("elvish", "git-llm-apply"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let run = Run::from(r.cmd(&["completions", shell]).output().expect("run"));
        run.code(0);
        assert!(run.stdout.contains(marker), "{shell}: {}", run.stdout);
        assert_eq!(run.stderr, "");
    }
    let run = Run::from(r.cmd(&["completions", "tcsh"]).output().expect("run"));
    run.code(2);
    assert_eq!(run.stdout, "");
}

#[test]
fn the_manual_and_completions_do_not_depend_on_the_repositorys_config() {
    let r = TestRepo::empty();
    r.git(&["config", "llm-apply.keep", "many"]);
    for args in [&["completions", "bash"][..], &["install-man", "--print"]] {
        let run = Run::from(r.cmd(args).output().expect("run"));
        run.code(0);
        assert!(!run.stdout.is_empty());
    }
    // The commands that read it still refuse it.
    Run::from(r.cmd(&["log"]).output().expect("run")).code(2);
}

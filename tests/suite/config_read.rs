//! git config is read in this process, and read as `git config` reads it: every level, the
//! includes, `includeIf "gitdir:"`, `GIT_CONFIG_COUNT`, `-c` (`GIT_CONFIG_PARAMETERS`),
//! `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` and `GIT_CONFIG_NOSYSTEM`.

use std::process::Command;

use crate::common::{git_bin, pinned_env, TestRepo};

/// The keys a run reads, as the product's `git config --get-regexp` used to ask for them.
const KEYS: &str = r"^(llm-apply|color\.diff|color\.llm-apply)\.|^(color\.diff|diff\.color|color\.ui|core\.hookspath)$|^(core\.autocrlf|core\.attributesfile|attr\.tree)$";

/// Config entries in order: a key, and its value unless it has none.
type Entries = Vec<(String, Option<String>)>;

/// `key\nvalue\0` / `key\0` entries, in order.
fn entries(bytes: &[u8]) -> Entries {
    String::from_utf8_lossy(bytes)
        .split('\0')
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once('\n') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (e.to_string(), None),
        })
        .collect()
}

/// What git reads and what we read, in `dir` under `env`.
fn both(r: &TestRepo, dir: &std::path::Path, env: &[(&str, &str)]) -> (Entries, Entries) {
    let mut git = Command::new(git_bin());
    pinned_env(&mut git, r.path());
    git.current_dir(dir)
        .args(["config", "-z", "--get-regexp", KEYS]);
    let mut ours = r.cmd(&[]);
    ours.current_dir(dir)
        .env("GIT_LLM_APPLY_TEST_PRINT_CONFIG", "1");
    for (k, v) in env {
        git.env(k, v);
        ours.env(k, v);
    }
    let g = git.output().expect("git config");
    assert!(
        g.status.code() == Some(0) || g.status.code() == Some(1),
        "git config: {}",
        String::from_utf8_lossy(&g.stderr)
    );
    let o = ours.output().expect("ours");
    assert_eq!(
        o.status.code(),
        Some(0),
        "ours: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (entries(&g.stdout), entries(&o.stdout))
}

/// `GIT_CONFIG_COUNT` and the quoted `-c` spelling came with git 2.31, `GIT_CONFIG_GLOBAL`
/// and `GIT_CONFIG_SYSTEM` with 2.32: an older git reads none of them (we read them as
/// today's git does), so the comparison is made against a git that knows them.
fn git_knows_the_config_variables() -> bool {
    let v = crate::common::git_version();
    if v < [2, 32, 0] {
        eprintln!("git {v:?} predates GIT_CONFIG_GLOBAL: the comparison needs git 2.32 or newer");
        return false;
    }
    true
}

#[test]
fn config_is_read_as_git_config_reads_it_at_every_level() {
    if !git_knows_the_config_variables() {
        return;
    }
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let etc = tempfile::tempdir().expect("temp dir");
    let p = |name: &str| etc.path().join(name).to_string_lossy().into_owned();
    let repo_git_dir = r.abs(".git").to_string_lossy().into_owned();
    std::fs::write(
        p("system"),
        "[llm-apply]\n\tkeep = 7\n\tprotect = from-system/**\n[color]\n\tui = auto\n",
    )
    .expect("write");
    std::fs::write(
        p("global"),
        format!(
            "[llm-apply]\n\tkeep = 8\n\tverify\n[include]\n\tpath = {}\n\
             [includeIf \"gitdir:{repo_git_dir}\"]\n\tpath = {}\n\
             [includeIf \"gitdir:/nowhere/at/all/\"]\n\tpath = {}\n",
            p("included"),
            p("conditional"),
            p("never")
        ),
    )
    .expect("write");
    std::fs::write(
        p("included"),
        "[llm-apply]\n\tprotect = \"quoted # not a comment\"\n",
    )
    .expect("write");
    std::fs::write(
        p("conditional"),
        "[llm-apply]\n\thookTimeout = 5\n[color \"diff\"]\n\tmeta = blue bold\n",
    )
    .expect("write");
    std::fs::write(p("never"), "[llm-apply]\n\tkeep = 999\n").expect("write");
    r.git(&["config", "llm-apply.maxFiles", "3"]);
    r.git(&["config", "--add", "llm-apply.protect", "a\\tb"]);
    r.git(&["config", "include.path", &p("local-include")]);
    std::fs::write(
        p("local-include"),
        "[llm-apply]\n\tfsync =\n\tverifyCommand = make \\\n  check\n[core]\n\thooksPath = hooks\n",
    )
    .expect("write");
    // Not ours: left out as git's regexp leaves it out.
    r.git(&["config", "user.name", "Someone"]);

    let sub = r.abs("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let (system, global) = (p("system"), p("global"));
    let env = [
        ("GIT_CONFIG_GLOBAL", global.as_str()),
        ("GIT_CONFIG_SYSTEM", system.as_str()),
        ("GIT_CONFIG_NOSYSTEM", "0"),
        ("GIT_CONFIG_COUNT", "2"),
        ("GIT_CONFIG_KEY_0", "llm-apply.lockTimeout"),
        ("GIT_CONFIG_VALUE_0", "4"),
        ("GIT_CONFIG_KEY_1", "llm-apply.keep"),
        ("GIT_CONFIG_VALUE_1", "11"),
        // `git -c llm-apply.keep=12 -c llm-apply.protectLockFiles -c 'llm-apply.fetchRemote=it'\''s'`
        (
            "GIT_CONFIG_PARAMETERS",
            "'llm-apply.keep'='12' 'llm-apply.protectLockFiles' 'llm-apply.fetchRemote'='it'\\''s'",
        ),
    ];
    for dir in [r.path(), sub.as_path()] {
        let (git, ours) = both(&r, dir, &env);
        assert!(git.len() >= 14, "the setup reaches every level: {git:?}");
        assert_eq!(ours, git, "in {}", dir.display());
    }

    // GIT_CONFIG_NOSYSTEM drops the system file; the old `-c` spelling ('key=value') reads too.
    let mut env = env.to_vec();
    for (k, v) in env.iter_mut() {
        match *k {
            "GIT_CONFIG_NOSYSTEM" => *v = "1",
            "GIT_CONFIG_PARAMETERS" => *v = "'llm-apply.keep=13'",
            _ => {}
        }
    }
    let (git, ours) = both(&r, r.path(), &env);
    assert!(!git
        .iter()
        .any(|(_, v)| v.as_deref() == Some("from-system/**")));
    assert_eq!(ours, git);
}

#[test]
fn config_outside_a_repository_is_the_global_and_command_line_config() {
    if !git_knows_the_config_variables() {
        return;
    }
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let outside = tempfile::tempdir().expect("temp dir");
    let global = outside.path().join("global");
    std::fs::write(&global, "[llm-apply]\n\tkeep = 3\n\tprotect = x\n").expect("write");
    let global = global.to_string_lossy().into_owned();
    let env = [
        ("GIT_CONFIG_GLOBAL", global.as_str()),
        ("GIT_CONFIG_PARAMETERS", "'llm-apply.keep'='4'"),
        ("GIT_CEILING_DIRECTORIES", "/"),
    ];
    let (git, ours) = both(&r, outside.path(), &env);
    assert_eq!(git.len(), 3, "{git:?}");
    assert_eq!(ours, git);
}

#[test]
fn an_invalid_value_given_with_dash_c_is_an_exit_2_error_naming_its_key() {
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let before = r.state();
    let out = r
        .cmd(&[])
        .env("GIT_CONFIG_PARAMETERS", "'llm-apply.lockTimeout'='soon'")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    let run = crate::common::Run::from(out);
    run.code(2)
        .out_contains("git config llm-apply.lockTimeout is 'soon', not a whole number");
    assert_eq!(r.state(), before);
}

/// A text-level apply, snapshot included, starts no git process: config is read in this
/// process and git's version is remembered from an earlier run.
#[test]
fn a_text_level_apply_runs_no_git_once_the_binary_is_known() {
    let r = TestRepo::with(&[("f.txt", "one\n")]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+two\n";
    r.apply(&[], patch).code(0);
    r.git(&["checkout", "--", "f.txt"]);
    let run = r.apply(&["-v"], patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), "two\n");
    assert!(
        !run.stderr.contains("verbose: ran git"),
        "no git ran: {}",
        run.stderr
    );
}

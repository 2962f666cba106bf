//! The ready-made path-policy and verify hooks, installed as users install them.

use super::{changed, cli, setup};
use crate::common::TestRepo;

fn with_hooks(r: &TestRepo, names: &[&str]) {
    let mut args = vec!["hooks", "install"];
    args.extend_from_slice(names);
    cli(r, &args).code(0);
}

fn creation(path: &str) -> String {
    format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n")
}

#[test]
fn path_policy_refuses_the_default_protected_paths() {
    let r = TestRepo::with(&[("src/ok.rs", "fn main() {}\n")]);
    with_hooks(&r, &["path-policy"]);
    let before = r.state();
    for (path, glob) in [
        (".env", "**/.env*"),
        ("app/.env.production", "**/.env*"),
        ("certs/server.pem", "**/*.pem"),
        ("home/.ssh/id_rsa.pub", "**/id_rsa*"),
    ] {
        let (run, v) = r.apply_json(&[], &creation(path));
        run.code(1);
        assert_eq!(v["errors"][0]["kind"], "veto");
        assert_eq!(
            v["hooks"][0]["stderr"].as_str().expect("stderr").lines().next(),
            Some(format!("path-policy: refusing to touch {path}: it matches the protected pattern '{glob}' (llm-apply.protect)").as_str())
        );
        assert_eq!(r.state(), before);
    }
    // Near misses pass: `*` stays within one path component.
    for path in [
        "src/environment.rs",
        "docs/pem.md",
        "notes/id_rsa_howto/x.md",
    ] {
        r.apply(&[], &creation(path)).code(0);
        assert_eq!(r.read_str(path), "x\n");
    }
}

#[test]
fn path_policy_reads_protect_globs_lock_files_and_resets() {
    let r = TestRepo::with(&[
        ("secrets/keys.txt", "k\n"),
        ("Cargo.lock", "lock\n"),
        (".env", "A=1\n"),
    ]);
    with_hooks(&r, &["path-policy"]);
    let edit = |path: &str, old: &str| {
        format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+changed\n")
    };
    r.git(&["config", "--add", "llm-apply.protect", "secrets/**"]);
    r.apply(&[], &edit("secrets/keys.txt", "k"))
        .code(1)
        .out_contains("matches the protected pattern 'secrets/**'");
    r.apply(&[], &edit("Cargo.lock", "lock")).code(0);
    r.git(&["checkout", "--", "Cargo.lock"]);
    r.git(&["config", "llm-apply.protectLockFiles", "true"]);
    r.apply(&[], &edit("Cargo.lock", "lock"))
        .code(1)
        .out_contains("'**/Cargo.lock'");
    // An empty value drops everything before it, the defaults included.
    r.git(&["config", "--unset", "llm-apply.protectLockFiles"]);
    r.git(&["config", "--add", "llm-apply.protect", ""]);
    r.git(&["config", "--add", "llm-apply.protect", "docs/**"]);
    r.apply(&[], &edit(".env", "A=1")).code(0);
    r.apply(&[], &edit("secrets/keys.txt", "k")).code(0);
}

#[test]
fn path_policy_refuses_patches_over_the_size_limits() {
    let (r, patch) = setup();
    with_hooks(&r, &["path-policy"]);
    r.git(&["config", "llm-apply.maxLines", "1"]);
    let before = r.state();
    r.apply(&[], &patch)
        .code(1)
        .out_contains("the patch changes 2 lines, more than llm-apply.maxLines=1 allows");
    assert_eq!(r.state(), before);
    r.git(&["config", "llm-apply.maxLines", "2"]);
    r.git(&["config", "llm-apply.maxFiles", "0"]);
    r.apply(&["--check"], &patch)
        .code(1)
        .out_contains("the patch touches 1 files, more than llm-apply.maxFiles=0 allows");
    r.git(&["config", "llm-apply.maxFiles", "many"]);
    // Validated with every other llm-apply.* key, before the hook runs: a usage error.
    r.apply(&[], &patch)
        .code(2)
        .out_contains("llm-apply.maxFiles is 'many', not a whole number");
    r.git(&["config", "llm-apply.maxFiles", "1"]);
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read_str("f.txt"), changed());
}

#[test]
fn path_policy_handles_paths_with_spaces_and_renames() {
    let r = TestRepo::with(&[("my dir/.env.local", "a\n"), ("plain.txt", "p\n")]);
    with_hooks(&r, &["path-policy"]);
    let rename = "diff --git a/my dir/.env.local b/my dir/settings.txt\nsimilarity index 100%\nrename from my dir/.env.local\nrename to my dir/settings.txt\n";
    r.apply(&[], rename)
        .code(1)
        .out_contains("refusing to touch my dir/.env.local");
    assert!(r.exists("my dir/.env.local"));
}

#[test]
fn verify_runs_the_configured_command_and_rolls_back_with_its_output() {
    let (r, patch) = setup();
    with_hooks(&r, &["verify"]);
    // No command configured: it says so and passes.
    let (run, v) = r.apply_json(&["--verify"], &patch);
    run.code(0);
    assert_eq!(
        v["hooks"][0]["stdout"],
        "verify: llm-apply.verifyCommand is not set; nothing to check\n"
    );
    r.git(&["checkout", "--", "f.txt"]);

    r.git(&[
        "config",
        "llm-apply.verifyCommand",
        "grep -q TEN f.txt && echo 'checked f.txt'",
    ]);
    let (run, v) = r.apply_json(&["--verify"], &patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), changed());
    assert_eq!(
        v["hooks"][0]["stdout"],
        "verify: 'grep -q TEN f.txt && echo 'checked f.txt'' passed\n"
    );
    r.git(&["checkout", "--", "f.txt"]);

    r.git(&[
        "config",
        "llm-apply.verifyCommand",
        "echo 'f.txt:10: expected l10, found TEN'; exit 3",
    ]);
    let before = r.state();
    let (run, v) = r.apply_json(&["--verify"], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["errors"][0]["kind"], "verify");
    assert_eq!(
        v["hooks"][0]["stderr"],
        "verify: 'echo 'f.txt:10: expected l10, found TEN'; exit 3' failed (exit 3):\nf.txt:10: expected l10, found TEN\npost-llm-apply: verify failed (exit 1)\n"
    );
    // Without --verify the apply stands and the complaint is still reported.
    let run = r.apply(&[], &patch);
    run.code(0).out_contains("expected l10, found TEN");
    assert_eq!(r.read_str("f.txt"), changed());
}

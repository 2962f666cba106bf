//! `git llm-apply hooks install|list`: what lands where, idempotence, never clobbering a
//! hook of the user's own, and chaining several hooks of one kind through the dispatcher.

use std::collections::BTreeMap;
use std::path::Path;

use super::{changed, cli, hook, setup, spied, spy, write_exec};
use crate::common::TestRepo;

/// The bundled copy of a ready-made hook, as the repository holds it.
fn shipped(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("hooks")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every file under the hooks directory (samples aside) with its mode and bytes.
fn hooks_dir(r: &TestRepo) -> BTreeMap<String, (u32, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, (u32, String)>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if !p.to_string_lossy().ends_with(".sample") {
                use std::os::unix::fs::PermissionsExt;
                let mode = p.metadata().expect("meta").permissions().mode() & 0o777;
                let rel = p.strip_prefix(root).expect("under").display().to_string();
                out.insert(rel, (mode, std::fs::read_to_string(&p).expect("read")));
            }
        }
    }
    let mut out = BTreeMap::new();
    let root = r.abs(".git/hooks");
    if root.exists() {
        walk(&root, &root, &mut out);
    }
    out
}

#[test]
fn install_puts_a_dispatcher_in_front_of_each_ready_hook_and_is_idempotent() {
    let (r, _) = setup();
    let run = cli(&r, &["hooks", "install"]);
    run.code(0);
    let files = hooks_dir(&r);
    let expect = |p: &str, name: &str| {
        assert_eq!(files.get(p), Some(&(0o755, shipped(name))), "{p}");
    };
    expect("pre-llm-apply", "dispatch");
    expect("post-llm-apply", "dispatch");
    expect("pre-llm-apply.d/path-policy", "path-policy");
    expect("pre-llm-apply.d/fetch-missing-blobs", "fetch-missing-blobs");
    expect("post-llm-apply.d/verify", "verify");
    assert_eq!(files.len(), 5, "{:?}", files.keys());

    let again = cli(&r, &["hooks", "install"]);
    again.code(0);
    assert!(!again.stdout.contains("installed"), "{}", again.stdout);
    assert_eq!(
        again.stdout.matches("unchanged: ").count(),
        5,
        "{}",
        again.stdout
    );
    assert_eq!(hooks_dir(&r), files, "a second install changes nothing");
}

#[test]
fn install_of_named_hooks_installs_only_those() {
    let (r, _) = setup();
    cli(&r, &["hooks", "install", "verify"]).code(0);
    let files = hooks_dir(&r);
    assert_eq!(
        files.keys().cloned().collect::<Vec<_>>(),
        vec!["post-llm-apply", "post-llm-apply.d/verify"]
    );
    let run = cli(&r, &["hooks", "install", "nope"]);
    run.code(2);
    assert!(run.stderr.contains("no ready-made hook named 'nope'"));
}

#[test]
fn install_refuses_to_clobber_the_users_own_hook_and_force_chains_it() {
    let (r, patch) = setup();
    let seen = spy();
    let own = format!(
        "#!/bin/sh\n# my own hook\ncat > '{}/own-stdin'\n",
        seen.path().display()
    );
    hook(&r, "pre-llm-apply", &own);
    let before = hooks_dir(&r);
    let run = cli(&r, &["hooks", "install", "path-policy"]);
    run.code(1)
        .out_contains("pre-llm-apply is your own hook")
        .out_contains("nothing was changed");
    assert_eq!(hooks_dir(&r), before, "a refusal writes nothing");

    let run = cli(&r, &["hooks", "install", "--force", "path-policy"]);
    run.code(0)
        .out_contains("kept your pre-llm-apply as pre-llm-apply.d/00-own-hook");
    let files = hooks_dir(&r);
    assert_eq!(files["pre-llm-apply.d/00-own-hook"], (0o755, own));
    assert_eq!(files["pre-llm-apply"].1, shipped("dispatch"));

    // Both run: the user's hook (first, by name) and path-policy, which refuses .env.
    r.apply(&[], &patch).code(0);
    assert_eq!(r.read_str("f.txt"), changed());
    let plan: serde_json::Value =
        serde_json::from_str(&spied(&seen, "own-stdin")).expect("the own hook got the plan");
    assert_eq!(plan["status"], "planned");
    let dotenv = "--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+TOKEN=1\n";
    r.apply(&[], dotenv)
        .code(1)
        .out_contains("path-policy: refusing to touch .env");
}

#[test]
fn an_edited_ready_hook_is_kept_unless_forced() {
    let (r, _) = setup();
    cli(&r, &["hooks", "install", "verify"]).code(0);
    let edited = r.abs(".git/hooks/post-llm-apply.d/verify");
    write_exec(&edited, "#!/bin/sh\n# tuned by hand\nexit 0\n");
    let run = cli(&r, &["hooks", "install"]);
    run.code(1)
        .out_contains("post-llm-apply.d/verify exists and differs");
    assert!(!r.exists(".git/hooks/pre-llm-apply"), "all or nothing");
    assert_eq!(
        std::fs::read_to_string(&edited).expect("read"),
        "#!/bin/sh\n# tuned by hand\nexit 0\n"
    );
    cli(&r, &["hooks", "install", "--force"]).code(0);
    assert_eq!(
        std::fs::read_to_string(&edited).expect("read"),
        shipped("verify")
    );
}

#[test]
fn the_dispatcher_chains_every_hook_in_name_order_and_stops_at_the_first_failure() {
    let (r, patch) = setup();
    cli(&r, &["hooks", "install", "path-policy"]).code(0);
    let seen = spy();
    let d = r.abs(".git/hooks/pre-llm-apply.d");
    let dir = seen.path().display();
    write_exec(
        &d.join("10-first"),
        &format!("#!/bin/sh\nwc -c > '{dir}/first'\necho first >> '{dir}/order'\n"),
    );
    write_exec(
        &d.join("90-last"),
        &format!("#!/bin/sh\nwc -c > '{dir}/last'\necho last >> '{dir}/order'\necho 'last says no' >&2\nexit 4\n"),
    );
    write_exec(
        &d.join("99-never"),
        &format!("#!/bin/sh\necho never >> '{dir}/order'\n"),
    );
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(spied(&seen, "order"), "first\nlast\n");
    assert_eq!(
        spied(&seen, "first"),
        spied(&seen, "last"),
        "every hook in the chain reads the same input"
    );
    assert_ne!(spied(&seen, "first").trim(), "0");
    assert_eq!(v["hooks"][0]["exit_code"], 4);
    assert_eq!(
        v["hooks"][0]["stderr"],
        "last says no\npre-llm-apply: 90-last failed (exit 4)\n"
    );

    // A chained hook switched off by name is skipped; one that is not executable fails.
    std::fs::rename(d.join("90-last"), d.join("90-last.disabled")).expect("rename");
    r.apply(&[], &patch).code(0);
    r.git(&["checkout", "--", "f.txt"]);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.join("10-first"), std::fs::Permissions::from_mode(0o644))
        .expect("chmod");
    r.apply(&[], &patch)
        .code(1)
        .out_contains("10-first is not an executable file");
}

#[test]
fn install_follows_core_hooks_path_and_list_describes_what_is_there() {
    let (r, _) = setup();
    r.git(&["config", "core.hooksPath", "shared-hooks"]);
    cli(&r, &["hooks", "install", "path-policy"]).code(0);
    assert_eq!(
        std::fs::read_to_string(r.abs("shared-hooks/pre-llm-apply.d/path-policy")).expect("read"),
        shipped("path-policy")
    );
    write_exec(&r.abs("shared-hooks/pre-llm-apply.d/mine"), "#!/bin/sh\n");
    let run = cli(&r, &["hooks", "list"]);
    run.code(0);
    let text = &run.stdout;
    assert!(text.starts_with("hooks directory: "), "{text}");
    assert!(
        text.lines()
            .next()
            .expect("line")
            .ends_with("/shared-hooks"),
        "{text}"
    );
    assert!(text.contains("pre-llm-apply: dispatcher\n"), "{text}");
    assert!(text.contains("pre-llm-apply.d/mine"), "{text}");
    assert!(text.contains("yours"), "{text}");
    assert!(text.contains("ready-made, up to date"), "{text}");
    assert!(text.contains("post-llm-apply: not installed"), "{text}");
}

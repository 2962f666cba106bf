//! Hooks that cannot give a verdict: not executable, a missing interpreter, a crash, a
//! hang, a flood of output. Each is a clear error and leaves nothing half-written.

use std::time::{Duration, Instant};

use super::{changed, hook, setup};

/// A pre hook that breaks vetoes the apply with an error of kind `hook`.
#[track_caller]
fn assert_broken_pre(script: &str, status: &str, says: &str) {
    let (r, patch) = setup();
    let path = hook(&r, "pre-llm-apply", script);
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["errors"][0]["kind"], "hook", "{v:#}");
    assert_eq!(v["hooks"][0]["status"], status);
    let message = v["errors"][0]["message"].as_str().expect("message");
    assert!(message.contains(says), "{message}");
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("nothing was written"), "{message}");
}

#[test]
fn a_hook_that_is_not_executable_is_an_error_not_a_silent_skip() {
    let (r, patch) = setup();
    let path = hook(&r, "pre-llm-apply", "#!/bin/sh\nexit 0\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["errors"][0]["kind"], "hook");
    assert_eq!(v["hooks"][0]["status"], "not-executable");
    assert!(v["errors"][0]["message"]
        .as_str()
        .expect("message")
        .contains("is not executable"));
}

#[test]
fn a_missing_interpreter_is_named() {
    assert_broken_pre(
        "#!/no/such/interpreter\nexit 0\n",
        "missing-interpreter",
        "interpreter '/no/such/interpreter' was not found",
    );
}

#[test]
fn a_missing_interpreter_behind_env_is_named() {
    assert_broken_pre(
        "#!/usr/bin/env no-such-interpreter-4711\nexit 0\n",
        "missing-interpreter",
        "interpreter 'no-such-interpreter-4711' was not found",
    );
}

#[test]
fn a_crashing_hook_is_reported_with_its_signal() {
    assert_broken_pre(
        "#!/bin/sh\nkill -SEGV $$\n",
        "crashed",
        "crashed (killed by signal 11)",
    );
}

#[test]
fn a_hanging_hook_is_killed_at_the_timeout_with_its_children() {
    let (r, patch) = setup();
    r.git(&["config", "llm-apply.hookTimeout", "0.5"]);
    // A background child holding the output pipe must not keep us waiting either. The
    // sleeps are long so that finishing well before them proves both were killed, however
    // loaded the machine is.
    hook(
        &r,
        "pre-llm-apply",
        "#!/bin/sh\necho 'thinking...'\nsleep 600 &\nsleep 600\n",
    );
    let before = r.state();
    let started = Instant::now();
    let (run, v) = r.apply_json(&[], &patch);
    let took = started.elapsed();
    run.code(1);
    assert!(took < Duration::from_secs(300), "took {took:?}");
    assert_eq!(r.state(), before);
    assert_eq!(v["errors"][0]["kind"], "hook");
    assert_eq!(v["hooks"][0]["status"], "timed-out");
    assert_eq!(v["hooks"][0]["stdout"], "thinking...\n");
    assert!(v["errors"][0]["message"]
        .as_str()
        .expect("message")
        .contains("timed out after 0.5s"));
}

#[test]
fn a_hanging_post_hook_under_verify_is_rolled_back() {
    let (r, patch) = setup();
    r.git(&["config", "llm-apply.hookTimeout", "0.5"]);
    hook(&r, "post-llm-apply", "#!/bin/sh\nsleep 600\n");
    let before = r.state();
    let (run, v) = r.apply_json(&["--verify"], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["errors"][0]["kind"], "verify");
    assert_eq!(v["hooks"][0]["status"], "timed-out");
}

#[test]
fn huge_output_is_bounded_and_the_exit_status_still_decides() {
    let (r, patch) = setup();
    // Five megabytes on each stream, then a veto.
    hook(
        &r,
        "pre-llm-apply",
        "#!/bin/sh\nyes 'out out out out' | head -c 5000000\nyes 'err err err err' | head -c 5000000 >&2\nexit 1\n",
    );
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["errors"][0]["kind"], "veto");
    let stdout = v["hooks"][0]["stdout"].as_str().expect("stdout");
    let stderr = v["hooks"][0]["stderr"].as_str().expect("stderr");
    assert!(stdout.len() < 70_000 && stderr.len() < 70_000);
    assert!(
        stderr.ends_with("[... 4934464 more bytes of output not kept]\n"),
        "{}",
        &stderr[stderr.len() - 80..]
    );
    assert_eq!(v["hooks"][0]["dropped_bytes"], 2 * (5_000_000 - 65_536));
    assert!(run.stdout.len() < 400_000, "the whole report stays small");

    // The same flood from a hook that passes: the apply goes ahead.
    hook(
        &r,
        "pre-llm-apply",
        "#!/bin/sh\nyes 'out out out out' | head -c 5000000\nexit 0\n",
    );
    let (run, _) = r.apply_json(&[], &patch);
    run.code(0);
    assert_eq!(r.read_str("f.txt"), changed());
}

#[test]
fn a_hook_that_does_not_read_its_input_is_fine() {
    let (r, _) = setup();
    // A patch big enough that its plan JSON overflows a pipe buffer.
    let body: String = (1..=20)
        .map(|i| format!("+added line {i} {}\n", "x".repeat(4000)))
        .collect();
    let patch = format!("--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,20 @@\n{body}");
    hook(&r, "pre-llm-apply", "#!/bin/sh\nexit 0\n");
    r.apply(&[], &patch).code(0);
    assert!(r.exists("big.txt"));
}

#[test]
fn a_script_without_a_shebang_runs_with_the_shell_as_git_runs_it() {
    let (r, patch) = setup();
    hook(&r, "pre-llm-apply", "echo 'no shebang here' >&2\nexit 1\n");
    r.apply(&[], &patch).code(1).out_contains("no shebang here");
}

#[test]
fn a_bad_timeout_setting_is_a_configuration_error() {
    let (r, patch) = setup();
    r.git(&["config", "llm-apply.hookTimeout", "soon"]);
    let before = r.state();
    let (run, v) = r.apply_json(&[], &patch);
    run.code(2);
    assert_eq!(v["errors"][0]["kind"], "config");
    assert!(v["errors"][0]["message"]
        .as_str()
        .expect("message")
        .contains("llm-apply.hookTimeout is 'soon'"));
    assert_eq!(r.state(), before);
}

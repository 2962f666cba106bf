//! Shallow and partial clones with real remotes started here (a bare repository over
//! `file://`, and `git daemon` on 127.0.0.1): a patch made against an older commit, with the
//! file drifted since, is refused by the text passes when the preimage blob is missing, and
//! merged three-way once fetch-missing-blobs has fetched that blob.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cli;
use crate::common::{git_bin, numbered, pinned_env, TestRepo};

/// Run git in `dir` with the tests' pinned environment; panics on failure.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let mut c = Command::new(git_bin());
    pinned_env(&mut c, dir);
    let out = c
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The upstream: `f.txt` l1..l20 in the first commit, a patch against it that changes l10,
/// then a commit that changes the lines around l10 (so the patch's context no longer fits)
/// and `more` commits touching another file.
struct Upstream {
    dir: tempfile::TempDir,
    patch: String,
}

const BARE: &str = "origin.git";

fn drifted() -> String {
    numbered("l", 20)
        .replace("l7\n", "seven\n")
        .replace("l8\n", "eight\n")
        .replace("l12\n", "twelve\n")
        .replace("l13\n", "thirteen\n")
}

/// What a three-way merge of the patch into the drifted file gives.
fn merged() -> String {
    drifted().replace("l10\n", "TEN\n")
}

fn upstream(more: usize) -> Upstream {
    let dir = tempfile::tempdir().expect("tmp");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).expect("mkdir");
    git_in(&work, &["init", "-q"]);
    git_in(&work, &["symbolic-ref", "HEAD", "refs/heads/main"]);
    std::fs::write(work.join("f.txt"), numbered("l", 20)).expect("write");
    git_in(&work, &["add", "-A"]);
    git_in(&work, &["commit", "-q", "-m", "first"]);
    std::fs::write(
        work.join("f.txt"),
        numbered("l", 20).replace("l10\n", "TEN\n"),
    )
    .expect("write");
    let patch = git_in(&work, &["diff"]);
    assert!(
        patch.contains("\nindex "),
        "the patch names its preimage blob"
    );
    std::fs::write(work.join("f.txt"), drifted()).expect("write");
    git_in(&work, &["commit", "-q", "-a", "-m", "drift"]);
    for i in 0..more {
        std::fs::write(work.join("other.txt"), format!("{i}\n")).expect("write");
        git_in(&work, &["add", "-A"]);
        git_in(&work, &["commit", "-q", "-m", &format!("more {i}")]);
    }
    git_in(dir.path(), &["clone", "-q", "--bare", "work", BARE]);
    let bare = dir.path().join(BARE);
    // What partial clones and blob fetches by id need from the server (protocol v0 too).
    git_in(&bare, &["config", "uploadpack.allowFilter", "true"]);
    git_in(&bare, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
    Upstream { dir, patch }
}

impl Upstream {
    fn file_url(&self) -> String {
        format!("file://{}", self.dir.path().join(BARE).display())
    }
}

/// `git daemon` serving the upstream on a free port of 127.0.0.1; stopped when dropped,
/// together with the children it forked for connections.
struct Daemon {
    child: Child,
    port: u16,
}

impl Daemon {
    fn start(base: &Path) -> Daemon {
        let log = base.join("daemon.log");
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            let mut c = Command::new(git_bin());
            pinned_env(&mut c, base);
            {
                use std::os::unix::process::CommandExt;
                c.process_group(0);
            }
            let child = c
                .args([
                    "daemon",
                    "--export-all",
                    "--reuseaddr",
                    "--informative-errors",
                    "--listen=127.0.0.1",
                    &format!("--port={port}"),
                    &format!("--base-path={}", base.display()),
                    &base.display().to_string(),
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).expect("log"))
                .spawn()
                .expect("start git daemon");
            let mut d = Daemon { child, port };
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return d;
                }
                if let Ok(Some(_)) = d.child.try_wait() {
                    break; // lost the port to someone else: try another
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            drop(d);
        }
        panic!(
            "git daemon did not start: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    fn url(&self) -> String {
        format!("git://127.0.0.1:{}/{BARE}", self.port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: signals the process group made for the daemon (process_group(0)).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A clone of `url` made with `opts` (`--depth 1`, `--filter=blob:none`).
fn clone(url: &str, opts: &[&str]) -> TestRepo {
    let dir = tempfile::tempdir().expect("tmp");
    let mut args = vec!["clone", "-q"];
    args.extend_from_slice(opts);
    let target = dir.path().display().to_string();
    args.extend([url, target.as_str()]);
    git_in(dir.path(), &args);
    let r = TestRepo { dir };
    r.git(&["config", "core.autocrlf", "false"]);
    assert_eq!(r.read_str("f.txt"), drifted());
    r
}

fn preimage(patch: &str) -> String {
    patch
        .lines()
        .find_map(|l| l.strip_prefix("index "))
        .and_then(|ids| ids.split("..").next())
        .expect("index line")
        .to_string()
}

fn has_object(r: &TestRepo, id: &str) -> bool {
    // Never a lazy fetch: the abbreviation resolves only against objects that are present.
    r.git_cmd(&["cat-file", "-e", &format!("{id}^{{blob}}")])
        .output()
        .expect("git")
        .status
        .success()
}

/// Without the hook: the blob is missing and the text passes refuse, clearly and safely.
#[track_caller]
fn refused_by_the_text_fallback(r: &TestRepo, patch: &str) -> serde_json::Value {
    assert!(
        !has_object(r, &preimage(patch)),
        "the clone lacks the preimage"
    );
    let before = r.state();
    let (run, v) = r.apply_json(&[], patch);
    run.code(1);
    assert_eq!(r.state(), before);
    assert_eq!(v["files"][0]["status"], "refused");
    assert_eq!(v["files"][0]["hunks"][0]["status"], "not-found");
    assert!(v["files"][0]["hunks"][0]["reason"].is_string());
    v
}

/// With fetch-missing-blobs installed: the blob arrives and git merges three-way.
#[track_caller]
fn merged_three_way_after_fetching(r: &TestRepo, patch: &str, fetched_by: &str) {
    cli(r, &["hooks", "install", "fetch-missing-blobs"]).code(0);
    let (run, v) = r.apply_json(&[], patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "3way", "{v:#}");
    assert_eq!(v["files"][0]["base"]["id"], preimage(patch));
    assert_eq!(r.read_str("f.txt"), merged(), "exact bytes of the merge");
    let said = v["hooks"][0]["stdout"].as_str().expect("stdout");
    assert!(said.contains(fetched_by), "{said}");
    assert!(has_object(r, &preimage(patch)));
    assert_eq!(
        r.git(&["status", "--porcelain"]),
        " M f.txt\n",
        "only the patched file changed; nothing staged"
    );
}

#[test]
fn shallow_clone_over_file_url_merges_three_way_once_the_blob_is_fetched() {
    let up = upstream(0);
    let r = clone(&up.file_url(), &["--depth", "1"]);
    refused_by_the_text_fallback(&r, &up.patch);
    merged_three_way_after_fetching(
        &r,
        &up.patch,
        "by deepening the history from 'origin' by 1 commit(s)",
    );
}

#[test]
fn shallow_clone_over_git_daemon_merges_three_way_once_the_blob_is_fetched() {
    let up = upstream(0);
    let daemon = Daemon::start(up.dir.path());
    let r = clone(&daemon.url(), &["--depth", "1"]);
    refused_by_the_text_fallback(&r, &up.patch);
    merged_three_way_after_fetching(&r, &up.patch, "by deepening the history");
}

#[test]
fn partial_clone_over_file_url_fetches_just_the_blob() {
    let up = upstream(0);
    let r = clone(&up.file_url(), &["--filter=blob:none"]);
    refused_by_the_text_fallback(&r, &up.patch);
    merged_three_way_after_fetching(&r, &up.patch, "from origin");
}

#[test]
fn partial_clone_over_git_daemon_fetches_just_the_blob() {
    let up = upstream(0);
    let daemon = Daemon::start(up.dir.path());
    let r = clone(&daemon.url(), &["--filter=blob:none"]);
    refused_by_the_text_fallback(&r, &up.patch);
    merged_three_way_after_fetching(&r, &up.patch, "from origin");
}

#[test]
fn shallow_partial_clone_over_git_daemon_deepens_then_fetches_the_blob() {
    let up = upstream(3);
    let daemon = Daemon::start(up.dir.path());
    let r = clone(&daemon.url(), &["--depth", "1", "--filter=blob:none"]);
    refused_by_the_text_fallback(&r, &up.patch);
    merged_three_way_after_fetching(&r, &up.patch, "from origin");
}

#[test]
fn deepening_stops_at_fetch_depth_and_the_apply_goes_on_with_the_text_fallback() {
    // The preimage is five commits below the tip.
    let up = upstream(4);
    let r = clone(&up.file_url(), &["--depth", "1"]);
    r.git(&["config", "llm-apply.fetchDepth", "3"]);
    cli(&r, &["hooks", "install", "fetch-missing-blobs"]).code(0);
    let v = refused_by_the_text_fallback(&r, &up.patch);
    let said = v["hooks"][0]["stderr"].as_str().expect("stderr");
    assert!(
        said.contains("is not within 3 commits of history (llm-apply.fetchDepth)")
            && said.contains("the apply continues without it (text fallback)"),
        "{said}"
    );
    assert_eq!(
        v["hooks"][0]["status"], "passed",
        "the fetcher never vetoes"
    );

    // Step by step (1, 2, 4 commits...) within the default bound, it gets there.
    r.git(&["config", "--unset", "llm-apply.fetchDepth"]);
    let (run, v) = r.apply_json(&[], &up.patch);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "3way");
    assert_eq!(r.read_str("f.txt"), merged());
}

#[test]
fn an_unreachable_remote_is_reported_and_the_apply_continues_without_the_blob() {
    let up = upstream(0);
    let daemon = Daemon::start(up.dir.path());
    let r = clone(&daemon.url(), &["--depth", "1"]);
    cli(&r, &["hooks", "install", "fetch-missing-blobs"]).code(0);
    drop(daemon); // offline from here on
    let v = refused_by_the_text_fallback(&r, &up.patch);
    let said = v["hooks"][0]["stderr"].as_str().expect("stderr");
    assert!(
        said.contains("cannot deepen the shallow history from 'origin'")
            && said.contains("the apply continues without it (text fallback)"),
        "{said}"
    );

    // A patch the text passes can place still applies, offline.
    let simple = up.patch.replace(
        "@@ -7,7 +7,7 @@ l6\n l7\n l8\n l9\n-l10\n+TEN\n l11\n l12\n l13\n",
        "@@ -9,3 +9,3 @@\n l9\n-l10\n+TEN\n l11\n",
    );
    assert_ne!(simple, up.patch);
    let (run, v) = r.apply_json(&[], &simple);
    run.code(0);
    assert_eq!(v["files"][0]["strategy"], "exact");
    assert_eq!(r.read_str("f.txt"), merged());
}

#[test]
fn a_partial_clone_whose_remote_is_gone_says_so() {
    let up = upstream(0);
    let r = clone(&up.file_url(), &["--filter=blob:none"]);
    cli(&r, &["hooks", "install", "fetch-missing-blobs"]).code(0);
    let moved = up.dir.path().join("moved.git");
    std::fs::rename(up.dir.path().join(BARE), moved).expect("rename");
    let v = refused_by_the_text_fallback(&r, &up.patch);
    let said = v["hooks"][0]["stderr"].as_str().expect("stderr");
    assert!(said.contains("could not fetch blob"), "{said}");
}

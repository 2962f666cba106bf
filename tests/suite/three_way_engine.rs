//! `plan::three_way` in real temporary repositories with the real git binary.
//!
//! Every test also checks that the user's work tree, `.git/index` and refs are byte-identical
//! after the call: the merge happens in a scratch tree, never in place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use git_llm_apply::git::apply_output::Reason;
use git_llm_apply::patch::{FilePatch, IndexLine};
use git_llm_apply::plan::three_way::{self, blob_present, Options, PathResult, Status};
use git_llm_apply::repo::{FileState, Repo, MODE_EXEC, MODE_FILE};
use git_llm_apply::text::quote::unquote;

/// Pin everything that would make git behave differently on another machine. Process-wide,
/// because the library's own git calls inherit it.
fn pin_environment() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let home = std::env::temp_dir().join("git-llm-apply-tests-home");
        std::fs::create_dir_all(&home).expect("create an empty HOME for git");
        let vars: [(&str, &std::ffi::OsStr); 12] = [
            ("HOME", home.as_os_str()),
            ("XDG_CONFIG_HOME", home.as_os_str()),
            ("GIT_CONFIG_NOSYSTEM", "1".as_ref()),
            ("GIT_CONFIG_GLOBAL", "/dev/null".as_ref()),
            ("GIT_AUTHOR_NAME", "T".as_ref()),
            ("GIT_AUTHOR_EMAIL", "t@example.com".as_ref()),
            ("GIT_COMMITTER_NAME", "T".as_ref()),
            ("GIT_COMMITTER_EMAIL", "t@example.com".as_ref()),
            ("GIT_AUTHOR_DATE", "2020-01-01T00:00:00Z".as_ref()),
            ("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z".as_ref()),
            ("TZ", "UTC".as_ref()),
            ("LC_ALL", "C".as_ref()),
        ];
        for (k, v) in vars {
            std::env::set_var(k, v);
        }
    });
}

struct TestRepo {
    dir: tempfile::TempDir,
}

impl TestRepo {
    fn new() -> TestRepo {
        pin_environment();
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = TestRepo { dir };
        repo.git(&["init", "-q", "."]);
        repo
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new(git_llm_apply::git::binary())
            .args(args)
            .current_dir(self.root())
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("git output is UTF-8 here")
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(p, text).expect("write file");
    }

    fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }

    fn repo(&self) -> Repo {
        Repo::discover(self.root())
            .expect("open repository")
            .expect("inside a repository")
    }

    /// Every byte the user could see change: the work tree, the index, HEAD and refs.
    /// (Objects are left out: a merge may add loose objects, which changes nothing visible.)
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for e in std::fs::read_dir(dir).expect("read dir") {
                let p = e.expect("dir entry").path();
                let rel = p.strip_prefix(root).expect("under root").to_path_buf();
                if rel.starts_with(".git/objects") || rel.starts_with(".git/logs") {
                    continue;
                }
                let meta = std::fs::symlink_metadata(&p).expect("stat");
                if meta.is_dir() {
                    walk(root, &p, out);
                } else {
                    #[cfg(unix)]
                    let mode = {
                        use std::os::unix::fs::PermissionsExt;
                        meta.permissions().mode()
                    };
                    #[cfg(not(unix))]
                    let mode = 0u32;
                    let mut bytes = std::fs::read(&p).expect("read file");
                    bytes.extend(format!("\0mode={mode:o}").as_bytes());
                    out.insert(rel, bytes);
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.root(), self.root(), &mut out);
        out
    }
}

/// The sections of a `git diff` as the parser would model them: paths, index line, raw text.
fn file_patches(diff: &str) -> Vec<FilePatch> {
    let mut sections: Vec<String> = Vec::new();
    for line in diff.split_inclusive('\n') {
        if line.starts_with("diff --git ") || sections.is_empty() {
            sections.push(String::new());
        }
        sections.last_mut().expect("one section").push_str(line);
    }
    sections
        .into_iter()
        .map(|raw| {
            let mut fp = FilePatch::default();
            let path = |s: &str| {
                let s = unquote(s.trim_end_matches('\t'));
                (s != "/dev/null").then(|| s[2..].to_string())
            };
            for line in raw.lines() {
                if let Some(ids) = line.strip_prefix("index ") {
                    let ids = ids.split(' ').next().expect("ids");
                    let (old, new) = ids.split_once("..").expect("old..new");
                    fp.index = Some(IndexLine {
                        old: old.to_string(),
                        new: new.to_string(),
                    });
                } else if let Some(p) = line.strip_prefix("--- ") {
                    fp.old_path = path(p);
                } else if let Some(p) = line.strip_prefix("+++ ") {
                    fp.new_path = path(p);
                } else if let Some(p) = line.strip_prefix("rename from ") {
                    fp.old_path = Some(unquote(p));
                } else if let Some(p) = line.strip_prefix("rename to ") {
                    fp.new_path = Some(unquote(p));
                }
            }
            if fp.old_path.is_none() && fp.new_path.is_none() {
                // A mode-only change has neither ---/+++ nor rename lines.
                let header = raw.lines().next().expect("header");
                let name = header
                    .strip_prefix("diff --git a/")
                    .and_then(|h| h.split(" b/").next())
                    .expect("simple header");
                fp.old_path = Some(name.to_string());
                fp.new_path = Some(name.to_string());
            }
            fp.raw = raw.into();
            fp
        })
        .collect()
}

fn ten(prefix: &str) -> String {
    (1..=10).map(|i| format!("{prefix} line {i}\n")).collect()
}

fn replace_line(text: &str, n: usize, with: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == n {
                format!("{with}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

fn file(bytes: &str) -> Option<FileState> {
    Some(FileState {
        bytes: bytes.as_bytes().to_vec().into(),
        mode: MODE_FILE,
    })
}

/// A repository with a.txt committed, and the patch that changes its line 3, made with git.
fn repo_with_patch() -> (TestRepo, Vec<FilePatch>) {
    let t = TestRepo::new();
    t.write("a.txt", &ten("a"));
    t.commit_all("base");
    t.write("a.txt", &replace_line(&ten("a"), 3, "a line 3 PATCHED"));
    let patches = file_patches(&t.git(&["diff"]));
    t.git(&["checkout", "-q", "--", "a.txt"]);
    (t, patches)
}

fn run(t: &TestRepo, patches: &[FilePatch], options: Options) -> three_way::Outcome {
    let refs: Vec<&FilePatch> = patches.iter().collect();
    let before = t.snapshot();
    let out = three_way::apply(&t.repo(), &refs, options).expect("three-way run");
    assert_eq!(
        t.snapshot(),
        before,
        "the user's tree, index and refs are untouched"
    );
    out
}

const CONFLICT_ON_LINE_3: &str = "a line 1\na line 2\n<<<<<<< ours\na line 3 LOCAL\n=======\n\
                                  a line 3 PATCHED\n>>>>>>> theirs\na line 4\na line 5\na line 6\n\
                                  a line 7\na line 8\na line 9\na line 10\n";

#[test]
fn drift_with_blob_present_merges_to_exact_bytes() {
    let (t, patches) = repo_with_patch();
    // Two lines above and a change inside the hunk's context: the hunk no longer applies as
    // written, but the merge against its base blob is clean.
    let drifted = format!(
        "top 1\ntop 2\n{}",
        replace_line(&ten("a"), 5, "a line 5 LOCAL")
    );
    t.write("a.txt", &drifted);
    t.commit_all("drift");
    let index = patches[0]
        .index
        .as_ref()
        .expect("git diff writes an index line");
    assert!(blob_present(&t.repo(), &index.old));

    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    let merged = format!(
        "top 1\ntop 2\n{}",
        replace_line(
            &replace_line(&ten("a"), 5, "a line 5 LOCAL"),
            3,
            "a line 3 PATCHED"
        )
    );
    assert_eq!(
        out.paths,
        [PathResult {
            path: "a.txt".into(),
            after: file(&merged),
            conflicted: false
        }]
    );
}

#[test]
fn overlapping_change_gives_conflict_markers() {
    let (t, patches) = repo_with_patch();
    t.write("a.txt", &replace_line(&ten("a"), 3, "a line 3 LOCAL"));
    t.commit_all("local");

    let out = run(&t, &patches, Options::default());
    assert_eq!(
        out.status,
        Status::Conflicted {
            paths: vec!["a.txt".into()]
        }
    );
    assert_eq!(
        out.paths,
        [PathResult {
            path: "a.txt".into(),
            after: file(CONFLICT_ON_LINE_3),
            conflicted: true
        }]
    );
}

#[test]
fn missing_blob_fails_with_that_reason() {
    let (t, patches) = repo_with_patch();
    t.write("a.txt", &replace_line(&ten("a"), 5, "a line 5 LOCAL"));
    t.commit_all("drift");
    // Remove the preimage blob, as in a shallow or partial clone.
    let blob = t.git(&["rev-parse", "HEAD~1:a.txt"]);
    let blob = blob.trim();
    let loose = t
        .root()
        .join(".git/objects")
        .join(&blob[..2])
        .join(&blob[2..]);
    std::fs::remove_file(&loose).expect("the base blob is a loose object");
    let index = patches[0].index.as_ref().expect("index line");
    assert!(!blob_present(&t.repo(), &index.old));

    let out = run(&t, &patches, Options::default());
    assert!(out.lacks_blob(), "{:?}\n{}", out.status, out.stderr);
    let Status::Failed { failures } = &out.status else {
        panic!("expected a failure, got {:?}", out.status);
    };
    assert!(failures
        .iter()
        .any(|f| f.path.as_deref() == Some("a.txt") && f.reason == Reason::PatchDoesNotApply));
    assert!(out.paths.is_empty());
}

#[test]
fn unstaged_edit_elsewhere_in_the_file_merges_and_index_stays_identical() {
    let (t, patches) = repo_with_patch();
    // Real `git apply --3way` refuses this file ("does not match index").
    t.write("a.txt", &replace_line(&ten("a"), 9, "a line 9 UNSTAGED"));
    let index_before = std::fs::read(t.root().join(".git/index")).expect("index exists");

    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    let expected = replace_line(
        &replace_line(&ten("a"), 9, "a line 9 UNSTAGED"),
        3,
        "a line 3 PATCHED",
    );
    assert_eq!(out.paths[0].after, file(&expected));
    assert_eq!(
        std::fs::read(t.root().join(".git/index")).expect("index exists"),
        index_before
    );
}

#[test]
fn check_reports_the_verdict_without_contents() {
    let (t, patches) = repo_with_patch();
    let check = Options {
        check: true,
        ..Options::default()
    };
    let out = run(&t, &patches, check);
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    assert!(out.paths.is_empty());

    t.write("a.txt", &replace_line(&ten("a"), 3, "a line 3 LOCAL"));
    t.commit_all("local");
    let out = run(&t, &patches, check);
    assert_eq!(
        out.status,
        Status::Conflicted {
            paths: vec!["a.txt".into()]
        }
    );
    assert!(out.paths.is_empty());
}

#[test]
fn reverse_restores_the_original_lines_and_keeps_later_edits() {
    let (t, patches) = repo_with_patch();
    t.write("a.txt", &replace_line(&ten("a"), 3, "a line 3 PATCHED"));
    t.commit_all("applied");
    t.write(
        "a.txt",
        &replace_line(
            &replace_line(&ten("a"), 3, "a line 3 PATCHED"),
            5,
            "a line 5 LATER",
        ),
    );
    let reverse = Options {
        reverse: true,
        ..Options::default()
    };
    let out = run(&t, &patches, reverse);
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    assert_eq!(
        out.paths[0].after,
        file(&replace_line(&ten("a"), 5, "a line 5 LATER"))
    );
}

#[test]
fn file_git_does_not_track_is_merged() {
    let t = TestRepo::new();
    t.write("a.txt", &ten("a"));
    t.commit_all("base");
    // The patch was made while extra.txt was staged, so its base blob is stored; then the
    // file was unstaged and drifted.
    t.write("extra.txt", &ten("e"));
    t.git(&["add", "extra.txt"]);
    t.write("extra.txt", &replace_line(&ten("e"), 3, "e line 3 PATCHED"));
    let patches = file_patches(&t.git(&["diff", "--", "extra.txt"]));
    t.git(&["rm", "-q", "-f", "--cached", "extra.txt"]);
    t.write("extra.txt", &replace_line(&ten("e"), 5, "e line 5 LOCAL"));

    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    let expected = replace_line(
        &replace_line(&ten("e"), 5, "e line 5 LOCAL"),
        3,
        "e line 3 PATCHED",
    );
    assert_eq!(out.paths[0].after, file(&expected));
    assert_eq!(t.git(&["status", "--porcelain"]), "?? extra.txt\n");
}

#[test]
fn several_files_report_each_result_and_only_the_conflicting_path() {
    let t = TestRepo::new();
    t.write("a.txt", &ten("a"));
    t.write("b.txt", &ten("b"));
    t.commit_all("base");
    t.write("a.txt", &replace_line(&ten("a"), 3, "a line 3 PATCHED"));
    t.write("b.txt", &replace_line(&ten("b"), 3, "b line 3 PATCHED"));
    let patches = file_patches(&t.git(&["diff"]));
    t.write("a.txt", &replace_line(&ten("a"), 5, "a line 5 LOCAL"));
    t.write("b.txt", &replace_line(&ten("b"), 3, "b line 3 LOCAL"));
    t.commit_all("local");

    let out = run(&t, &patches, Options::default());
    assert_eq!(
        out.status,
        Status::Conflicted {
            paths: vec!["b.txt".into()]
        }
    );
    let a = replace_line(
        &replace_line(&ten("a"), 5, "a line 5 LOCAL"),
        3,
        "a line 3 PATCHED",
    );
    let b = CONFLICT_ON_LINE_3.replace("a line", "b line");
    assert_eq!(
        out.paths,
        [
            PathResult {
                path: "a.txt".into(),
                after: file(&a),
                conflicted: false
            },
            PathResult {
                path: "b.txt".into(),
                after: file(&b),
                conflicted: true
            },
        ]
    );
}

#[test]
fn creation_deletion_and_rename_report_presence() {
    let t = TestRepo::new();
    t.write("gone.txt", "bye\n");
    t.write("old.txt", &ten("o"));
    t.commit_all("base");
    t.git(&["rm", "-q", "gone.txt"]);
    t.write("new.txt", "hello\n");
    t.git(&["mv", "old.txt", "moved.txt"]);
    t.write("moved.txt", &replace_line(&ten("o"), 2, "o line 2 MOVED"));
    t.git(&["add", "-A"]);
    let patches = file_patches(&t.git(&["diff", "--cached", "-M"]));
    t.git(&["reset", "-q", "--hard"]);
    t.git(&["clean", "-q", "-f"]);
    assert_eq!(patches.len(), 3, "{patches:?}");

    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    let after: BTreeMap<&str, Option<FileState>> = out
        .paths
        .iter()
        .map(|p| (p.path.as_str(), p.after.clone()))
        .collect();
    assert_eq!(after["gone.txt"], None);
    assert_eq!(after["new.txt"], file("hello\n"));
    assert_eq!(after["old.txt"], None);
    assert_eq!(
        after["moved.txt"],
        file(&replace_line(&ten("o"), 2, "o line 2 MOVED"))
    );
}

#[cfg(unix)]
#[test]
fn mode_change_comes_back_as_executable() {
    use std::os::unix::fs::PermissionsExt;
    let t = TestRepo::new();
    t.write("run.sh", "#!/bin/sh\necho hi\n");
    t.commit_all("base");
    let script = t.root().join("run.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    t.write("run.sh", "#!/bin/sh\necho hello\n");
    let patches = file_patches(&t.git(&["diff"]));
    t.git(&["checkout", "-q", "--", "run.sh"]);
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).expect("chmod");

    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    assert_eq!(
        out.paths[0].after,
        Some(FileState {
            bytes: b"#!/bin/sh\necho hello\n".to_vec().into(),
            mode: MODE_EXEC
        })
    );
}

#[test]
fn quoted_path_conflict_is_named_by_its_real_path() {
    let t = TestRepo::new();
    let path = "dir with space/ünï cödé.txt";
    t.write(path, &ten("q"));
    t.commit_all("base");
    t.write(path, &replace_line(&ten("q"), 3, "q line 3 PATCHED"));
    let patches = file_patches(&t.git(&["diff"]));
    assert_eq!(patches[0].new_path.as_deref(), Some(path));
    t.write(path, &replace_line(&ten("q"), 3, "q line 3 LOCAL"));
    t.commit_all("local");

    let out = run(&t, &patches, Options::default());
    assert_eq!(
        out.status,
        Status::Conflicted {
            paths: vec![path.into()]
        }
    );
    assert_eq!(out.paths[0].path, path);
    assert!(out.paths[0].conflicted);
}

#[test]
fn repository_without_an_index_file_is_seeded_from_head() {
    let (t, patches) = repo_with_patch();
    std::fs::remove_file(t.root().join(".git/index")).expect("remove the index");
    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    assert_eq!(
        out.paths[0].after,
        file(&replace_line(&ten("a"), 3, "a line 3 PATCHED"))
    );
    assert!(!t.root().join(".git/index").exists(), "no index is created");
}

#[test]
fn repository_discovered_from_a_relative_path_works() {
    let (t, patches) = repo_with_patch();
    // The same repository, named relative to the test's current directory.
    let cwd = std::env::current_dir().expect("current dir");
    let up: PathBuf = cwd.components().skip(1).map(|_| "..").collect();
    let root = std::fs::canonicalize(t.root()).expect("canonical root");
    let rel = up.join(root.strip_prefix("/").expect("absolute"));
    let repo = Repo::discover(&rel).expect("open").expect("a repository");
    let refs: Vec<&FilePatch> = patches.iter().collect();
    let out = three_way::apply(&repo, &refs, Options::default()).expect("three-way run");
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    assert_eq!(
        out.paths[0].after,
        file(&replace_line(&ten("a"), 3, "a line 3 PATCHED"))
    );
}

#[test]
fn crlf_work_tree_file_keeps_its_line_endings() {
    let t = TestRepo::new();
    t.write(".gitattributes", "*.txt text eol=crlf\n");
    t.write("a.txt", &ten("a"));
    t.commit_all("base");
    // Checked out again, the file has CRLF in the work tree and LF in the repository.
    std::fs::remove_file(t.root().join("a.txt")).expect("remove");
    t.git(&["checkout", "--", "a.txt"]);
    let crlf = |s: &str| s.replace('\n', "\r\n");
    assert_eq!(
        std::fs::read_to_string(t.root().join("a.txt")).expect("read"),
        crlf(&ten("a"))
    );
    t.write(
        "a.txt",
        &crlf(&replace_line(&ten("a"), 3, "a line 3 PATCHED")),
    );
    let patches = file_patches(&t.git(&["diff"]));
    t.write(
        "a.txt",
        &crlf(&replace_line(&ten("a"), 5, "a line 5 LOCAL")),
    );
    t.commit_all("drift");

    let out = run(&t, &patches, Options::default());
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    let merged = replace_line(
        &replace_line(&ten("a"), 5, "a line 5 LOCAL"),
        3,
        "a line 3 PATCHED",
    );
    assert_eq!(out.paths[0].after, file(&crlf(&merged)));
}

#[test]
fn linked_worktree_uses_its_own_index() {
    let (t, patches) = repo_with_patch();
    let linked = tempfile::tempdir().expect("temp dir");
    let wt = linked.path().join("wt");
    // No `-q`: git 2.17 does not know it, and the progress is captured anyway.
    t.git(&[
        "worktree",
        "add",
        wt.to_str().expect("utf-8 temp path"),
        "HEAD",
    ]);
    let wt_a = wt.join("a.txt");
    std::fs::write(&wt_a, replace_line(&ten("a"), 9, "a line 9 IN WORKTREE")).expect("write");
    let repo = Repo::discover(&wt).expect("open").expect("a repository");
    let refs: Vec<&FilePatch> = patches.iter().collect();
    let main_before = t.snapshot();
    let wt_index = std::fs::read(repo.git_dir().join("index")).expect("worktree index");

    let out = three_way::apply(&repo, &refs, Options::default()).expect("three-way run");
    assert_eq!(out.status, Status::Clean, "{}", out.stderr);
    let expected = replace_line(
        &replace_line(&ten("a"), 9, "a line 9 IN WORKTREE"),
        3,
        "a line 3 PATCHED",
    );
    assert_eq!(out.paths[0].after, file(&expected));
    assert_eq!(
        std::fs::read(repo.git_dir().join("index")).expect("worktree index"),
        wt_index
    );
    assert_eq!(t.snapshot(), main_before);
}

#[test]
fn path_outside_the_work_tree_is_refused_before_reading_it() {
    let (t, mut patches) = repo_with_patch();
    patches[0].old_path = Some("../outside.txt".into());
    patches[0].new_path = Some("../outside.txt".into());
    let out = run(&t, &patches, Options::default());
    let Status::Failed { failures } = &out.status else {
        panic!("expected a refusal, got {:?}", out.status);
    };
    assert_eq!(failures[0].path.as_deref(), Some("../outside.txt"));
}

#[test]
fn patch_git_reads_as_another_path_is_not_reported_applied() {
    let t = TestRepo::new();
    t.write("a.txt", &ten("a"));
    t.commit_all("base");
    // No a/ b/ prefixes: git's -p1 strips "src/" and would create new.txt at the top.
    let raw = "diff --git src/new.txt src/new.txt\nnew file mode 100644\n\
               index 0000000..ce01362\n--- /dev/null\n+++ src/new.txt\n@@ -0,0 +1 @@\n+hello\n";
    let patch = FilePatch {
        new_path: Some("src/new.txt".into()),
        raw: raw.into(),
        ..FilePatch::default()
    };
    let out = run(&t, &[patch], Options::default());
    let Status::Failed { failures } = &out.status else {
        panic!("expected a failure, got {:?}", out.status);
    };
    assert_eq!(failures[0].path.as_deref(), Some("new.txt"));
    assert!(out.paths.is_empty());
}

#[test]
fn blob_present_resolves_abbreviations_and_only_blobs() {
    let (t, patches) = repo_with_patch();
    let repo = t.repo();
    let index = patches[0].index.as_ref().expect("index line");
    let full = t.git(&["rev-parse", "HEAD:a.txt"]);
    let full = full.trim();
    assert!(full.starts_with(&index.old));
    assert!(blob_present(&repo, &index.old), "abbreviated id");
    assert!(blob_present(&repo, full), "full id");
    assert!(
        blob_present(&repo, &full.to_uppercase()),
        "hex case does not matter"
    );
    assert!(!blob_present(&repo, "0000000"), "all zeros is absent");
    assert!(!blob_present(&repo, &"0".repeat(40)), "all zeros is absent");
    assert!(!blob_present(&repo, "1111111"), "unknown id");
    assert!(!blob_present(&repo, "not-hex"), "not an id");
    assert!(!blob_present(&repo, &full[..3]), "shorter than git accepts");
    // The postimage blob was never stored: the patch was made from the work tree.
    assert!(!blob_present(&repo, &index.new), "never stored");
    let tree = t.git(&["rev-parse", "HEAD^{tree}"]);
    let commit = t.git(&["rev-parse", "HEAD"]);
    assert!(
        !blob_present(&repo, &tree.trim()[..10]),
        "a tree is not a blob"
    );
    assert!(
        !blob_present(&repo, &commit.trim()[..10]),
        "a commit is not a blob"
    );
}

//! Three-way merges through `git apply --3way`, run against a scratch tree and a temporary index.
//!
//! `git apply --3way` implies `--index`: on the user's tree it refuses files with unstaged
//! edits ("does not match index") and stages whatever it applies. Here it never sees the user's
//! tree or index. The touched files are copied into a scratch directory, a temporary index
//! (`GIT_INDEX_FILE`) is seeded from the real one with those paths set to their work-tree
//! content, and git runs with `--git-dir` on the real repository (for its objects) and
//! `--work-tree` on the scratch directory. The merged files are read back as bytes; writing them
//! (all or nothing across files) is the writer's job, not ours.

use std::collections::HashSet;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::git::apply_output::{self, Classification, FileName, Reason};
use crate::git::{Git, GitError};
use crate::patch::FilePatch;
use crate::repo::{FileState, Repo, MODE_EXEC, MODE_FILE};

/// Git's mode for a symbolic link; its "content" is the link target.
pub const MODE_SYMLINK: u32 = 0o120000;

/// How to run the merge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// `git apply --check`: git's verdict only; no file contents come back.
    pub check: bool,
    /// `git apply -R`: undo the patch instead of applying it.
    pub reverse: bool,
}

/// The verdict on the whole set of files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Every file applied: through a clean three-way merge, or directly.
    Clean,
    /// Git merged, but these paths hold conflict markers.
    Conflicted {
        /// The paths with markers, as git named them.
        paths: Vec<String>,
    },
    /// Git would write nothing. Typical: [`Reason::MissingBlob`] with
    /// [`Reason::PatchDoesNotApply`] (no base for a merge and the hunks do not fit as they are).
    Failed {
        /// Each reason git gave, never empty.
        failures: Vec<Failure>,
    },
}

/// Why the merge failed: a reason, for a file or for the whole patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The file it is about; `None` for a reason about the whole run.
    pub path: Option<String>,
    /// What git said.
    pub reason: Reason,
}

/// One touched path after the merge (the old path of a rename or deletion included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathResult {
    /// The path, repository-relative.
    pub path: String,
    /// The content and mode the path should have; `None` when it should not exist.
    pub after: Option<FileState>,
    /// The content holds git's conflict markers.
    pub conflicted: bool,
}

/// What one run gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The verdict on the whole set of files.
    pub status: Status,
    /// Every touched path's result, in patch order; empty when failed or with `check`.
    pub paths: Vec<PathResult>,
    /// Git's messages, classified per file.
    pub classification: Classification,
    /// Git's own words, for diagnostics.
    pub stderr: String,
}

impl Outcome {
    /// Whether the failure is (also) a missing preimage blob: the caller's cue to look for the
    /// base elsewhere or to fall back to text-level planning.
    pub fn lacks_blob(&self) -> bool {
        match &self.status {
            Status::Failed { failures } => failures.iter().any(|f| f.reason == Reason::MissingBlob),
            _ => false,
        }
    }
}

/// What broke while running `git apply --3way` in its scratch tree (not a patch that does not
/// apply: that is an [`Outcome`]).
#[derive(Debug, thiserror::Error)]
pub enum ThreeWayError {
    /// Making the scratch tree failed: a file or directory could not be read, copied or written.
    #[error("cannot prepare the scratch tree for git apply ({path}): {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Git could not be run.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A git command that seeds the scratch index failed.
    #[error("git {step} failed while preparing a three-way merge: {stderr}")]
    Setup {
        /// The command: `read-tree` or `update-index`.
        step: &'static str,
        /// What git printed.
        stderr: String,
    },
}

/// Why git did not apply a binary section; the file is refused with this as its reason.
#[derive(Debug, thiserror::Error)]
pub enum BinaryError {
    /// `git apply` could not be run in its scratch tree.
    #[error("git apply could not run: {0}")]
    Run(#[source] ThreeWayError),
    /// Git refused the section.
    #[error("the binary patch does not apply to the file as it is ({said})")]
    Refused {
        /// Git's first `error:` line, or that it refused.
        said: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ThreeWayError + '_ {
    move |source| ThreeWayError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Whether the blob an `index` line names (abbreviated, as diffs write it) is in the object
/// store. All zeros (a creation or deletion), non-hex text, an id shorter than git accepts, or a
/// prefix that matches no blob or several are all "absent": git could not use them either.
pub fn blob_present(repo: &Repo, abbreviated_id: &str) -> bool {
    let id = abbreviated_id.trim().to_ascii_lowercase();
    if id.is_empty() || id.bytes().all(|b| b == b'0') || !id.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return false;
    }
    let Ok(prefix) = gix::hash::Prefix::from_hex(&id) else {
        return false;
    };
    let mut candidates = HashSet::new();
    if repo
        .repo
        .objects
        .lookup_prefix(prefix, Some(&mut candidates))
        .is_err()
    {
        return false;
    }
    // Git resolves an ambiguous abbreviation by the type it needs, so only blobs count.
    let blobs = candidates
        .iter()
        .filter(|oid| {
            repo.repo
                .find_header(**oid)
                .is_ok_and(|h| h.kind() == gix::object::Kind::Blob)
        })
        .count();
    blobs == 1
}

/// Apply `files` with `git apply --3way -v` (plus `--check`, `-R` as asked) without touching
/// the user's work tree or index, and return every touched path's resulting content.
///
/// Each file's `raw` text must be a section git can read (`diff --git` headers with `a/`/`b/`
/// prefixes, an `index` line naming the preimage blob for a merge).
pub fn apply(
    repo: &Repo,
    files: &[&FilePatch],
    options: Options,
) -> Result<Outcome, ThreeWayError> {
    let touched = touched_paths(files);
    if let Some(refusal) = refuse_unsafe(repo, &touched) {
        return Ok(refusal);
    }
    let scratch = tempfile::Builder::new()
        .prefix("git-llm-apply-3way.")
        .tempdir()
        .map_err(io_err(&std::env::temp_dir()))?;
    let tree = scratch.path().join("tree");
    let index = scratch.path().join("index");
    let patch_file = scratch.path().join("patch");
    std::fs::create_dir(&tree).map_err(io_err(&tree))?;

    for path in &touched {
        copy_into_scratch(&repo.work_dir, &tree, path)?;
    }
    seed_index(repo, &tree, &index, &touched)?;

    let mut text = String::new();
    for file in files {
        text.push_str(&file.raw);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    std::fs::write(&patch_file, crate::text::bytes::encode(&text)).map_err(io_err(&patch_file))?;

    let mut args: Vec<&str> = vec!["apply", "--3way", "-v"];
    if options.check {
        args.push("--check");
    }
    if options.reverse {
        args.push("-R");
    }
    let out = scratch_git(repo, &tree, &index)?
        // The patch's bytes exactly, whatever the user's `apply.*` settings: whitespace
        // policy is decided by our own planner, not by git's fixing or refusing.
        .args([
            "-c",
            "apply.whitespace=nowarn",
            "-c",
            "apply.ignoreWhitespace=no",
        ])
        .args(args)
        .arg(&patch_file)
        .run()?;

    let known: Vec<FileName> = files.iter().map(|f| FileName::of(f)).collect();
    let classification = apply_output::classify(&out.stdout, &out.stderr, out.status, &known);
    let status = match stray_paths(&classification, &known) {
        Some(failures) => Status::Failed { failures },
        None => verdict(&classification, out.status),
    };
    let paths = match status {
        Status::Failed { .. } => Vec::new(),
        _ if options.check => Vec::new(),
        _ => {
            let conflicted = classification.conflicted_paths();
            let mut paths = Vec::new();
            for path in &touched {
                if let Some(after) = read_back(&tree, path)? {
                    paths.push(PathResult {
                        path: path.clone(),
                        conflicted: conflicted.contains(&path.as_str()),
                        after,
                    });
                }
            }
            paths
        }
    };
    Ok(Outcome {
        status,
        paths,
        classification,
        stderr: out.stderr,
    })
}

/// A git command on the real repository's objects, the scratch tree and the temporary index.
fn scratch_git(repo: &Repo, tree: &Path, index: &Path) -> Result<Git, ThreeWayError> {
    // Git runs inside the scratch tree: a relative git dir would resolve there. (gix hands
    // out absolute paths today; this keeps it true if a caller builds a Repo otherwise.)
    let real_git_dir = std::path::absolute(repo.git_dir()).map_err(io_err(repo.git_dir()))?;
    let mut git_dir = std::ffi::OsString::from("--git-dir=");
    git_dir.push(real_git_dir);
    let mut work_tree = std::ffi::OsString::from("--work-tree=");
    work_tree.push(tree);
    Ok(Git::new(tree)
        .arg(git_dir)
        .arg(work_tree)
        // A split index would write shared-index files into the real git dir, and an
        // fsmonitor would watch (or start a daemon for) the scratch tree. An empty
        // core.fsmonitor is "off" both for the old hook setting and the newer boolean one.
        .args(["-c", "core.splitIndex=false", "-c", "core.fsmonitor="])
        .env("GIT_INDEX_FILE", index))
}

/// Old and new paths of every file, each once, in patch order.
fn touched_paths(files: &[&FilePatch]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for file in files {
        for path in [&file.old_path, &file.new_path].into_iter().flatten() {
            if !out.contains(path) {
                out.push(path.clone());
            }
        }
    }
    out
}

/// Paths that would make us read outside the work tree are refused before anything is
/// copied (git would refuse them too, but only after we had read them).
fn refuse_unsafe(repo: &Repo, touched: &[String]) -> Option<Outcome> {
    let mut failures = Vec::new();
    for path in touched {
        let p = Path::new(path);
        let escapes = path.is_empty()
            || p.components().any(|c| {
                !matches!(c, Component::Normal(_)) || c.as_os_str().eq_ignore_ascii_case(".git")
            });
        let why = if escapes {
            Some(format!("{path}: path leaves the work tree or enters .git"))
        } else {
            beyond_symlink(&repo.work_dir, p)
                .map(|link| format!("{path}: affected file is beyond the symbolic link {link}"))
        };
        if let Some(message) = why {
            failures.push(Failure {
                path: Some(path.clone()),
                reason: Reason::Other { message },
            });
        }
    }
    if failures.is_empty() {
        return None;
    }
    Some(Outcome {
        status: Status::Failed { failures },
        paths: Vec::new(),
        classification: Classification {
            files: Vec::new(),
            run: Vec::new(),
            written: false,
        },
        stderr: String::new(),
    })
}

/// The first ancestor directory of `path` that is a symlink, if any.
fn beyond_symlink(root: &Path, path: &Path) -> Option<String> {
    let mut cur = root.to_path_buf();
    let mut shown = PathBuf::new();
    let parent = path.parent()?;
    for c in parent.components() {
        cur.push(c);
        shown.push(c);
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => return Some(shown.display().to_string()),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Copy what lies at `path` in the work tree into the scratch tree (nothing when it does not
/// exist), with the `.gitattributes` files above it so git converts it as it would in place.
fn copy_into_scratch(root: &Path, tree: &Path, path: &str) -> Result<(), ThreeWayError> {
    let rel = Path::new(path);
    let mut dir = rel.parent();
    while let Some(d) = dir {
        let src = root.join(d).join(".gitattributes");
        if src.is_file() {
            let dst = tree.join(d).join(".gitattributes");
            if !dst.exists() {
                make_parent(&dst)?;
                std::fs::copy(&src, &dst).map_err(io_err(&src))?;
            }
        }
        dir = d.parent();
    }

    let src = root.join(rel);
    let dst = tree.join(rel);
    let meta = match std::fs::symlink_metadata(&src) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        // "a/b" where "a" is a file: nothing can be at this path.
        Err(e) if e.raw_os_error() == Some(20) => return Ok(()),
        Err(e) => return Err(io_err(&src)(e)),
    };
    make_parent(&dst)?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&src).map_err(io_err(&src))?;
        make_symlink(&target, &dst)?;
    } else if meta.is_dir() {
        // Git will refuse to put a file here; an empty directory makes it say so.
        std::fs::create_dir_all(&dst).map_err(io_err(&dst))?;
    } else if meta.is_file() {
        std::fs::copy(&src, &dst).map_err(io_err(&src))?;
        set_mode(&dst, mode_of(&meta))?;
    }
    Ok(())
}

fn make_parent(path: &Path) -> Result<(), ThreeWayError> {
    match path.parent() {
        Some(p) => std::fs::create_dir_all(p).map_err(io_err(p)),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn make_symlink(target: &Path, link: &Path) -> Result<(), ThreeWayError> {
    std::os::unix::fs::symlink(target, link).map_err(io_err(link))
}

#[cfg(not(unix))]
fn make_symlink(target: &Path, link: &Path) -> Result<(), ThreeWayError> {
    // Without symlinks git stores the target as a plain file (core.symlinks=false).
    std::fs::write(link, target.to_string_lossy().as_bytes()).map_err(io_err(link))
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 {
        MODE_EXEC
    } else {
        MODE_FILE
    }
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    MODE_FILE
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), ThreeWayError> {
    use std::os::unix::fs::PermissionsExt;
    let perm = if mode == MODE_EXEC { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(perm)).map_err(io_err(path))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> Result<(), ThreeWayError> {
    Ok(())
}

/// The temporary index: a copy of the real one (so git sees the repository as the user has
/// it), or HEAD's tree when there is no index yet, with every touched path set to its
/// work-tree content — so a file with unstaged edits merges instead of failing "does not match
/// index", and an untracked file can be patched.
fn seed_index(
    repo: &Repo,
    tree: &Path,
    index: &Path,
    touched: &[String],
) -> Result<(), ThreeWayError> {
    let real = repo.repo.index_path();
    if real.is_file() {
        std::fs::copy(&real, index).map_err(io_err(&real))?;
    } else if repo.repo.head_id().is_ok() {
        let out = scratch_git(repo, tree, index)?
            .args(["read-tree", "HEAD"])
            .run()?;
        if !out.success() {
            return Err(ThreeWayError::Setup {
                step: "read-tree",
                stderr: out.stderr,
            });
        }
    }
    // An unborn HEAD and no index: git treats the missing file as an empty index.

    // Directories stay as the index has them: update-index cannot stage one.
    let paths: Vec<&String> = touched.iter().filter(|p| !tree.join(p).is_dir()).collect();
    if paths.is_empty() {
        return Ok(());
    }
    let out = scratch_git(repo, tree, index)?
        .args(["update-index", "--add", "--remove", "--replace", "--"])
        .args(paths)
        .run()?;
    if !out.success() {
        return Err(ThreeWayError::Setup {
            step: "update-index",
            stderr: out.stderr,
        });
    }
    Ok(())
}

/// What git left at `path` in the scratch tree: `Some(None)` when absent, `None` for a
/// directory (git never replaces one, so there is nothing to report).
fn read_back(tree: &Path, path: &str) -> Result<Option<Option<FileState>>, ThreeWayError> {
    let abs = tree.join(path);
    let meta = match std::fs::symlink_metadata(&abs) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(None)),
        Err(e) if e.raw_os_error() == Some(20) => return Ok(Some(None)),
        Err(e) => return Err(io_err(&abs)(e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&abs).map_err(io_err(&abs))?;
        return Ok(Some(Some(FileState {
            bytes: target.as_os_str().as_encoded_bytes().to_vec().into(),
            mode: MODE_SYMLINK,
        })));
    }
    if meta.is_dir() {
        return Ok(None);
    }
    let bytes = std::fs::read(&abs).map_err(io_err(&abs))?;
    Ok(Some(Some(FileState {
        bytes: bytes.into(),
        mode: mode_of(&meta),
    })))
}

/// Files git named that the patch model does not: git read the headers differently from our
/// parser (a missing `a/`/`b/` prefix makes `-p1` strip a real directory), so whatever it
/// wrote went to the wrong place and must not be reported as applied.
fn stray_paths(c: &Classification, known: &[FileName]) -> Option<Vec<Failure>> {
    let failures: Vec<Failure> = c
        .files
        .iter()
        .filter(|f| {
            !known
                .iter()
                .any(|k| k.path == f.path || k.old_path.as_deref() == Some(f.path.as_str()))
        })
        .map(|f| Failure {
            path: Some(f.path.clone()),
            reason: Reason::Other {
                message: format!(
                    "git read the patch as touching {}, which it does not name (a missing a/ b/ prefix?)",
                    f.path
                ),
            },
        })
        .collect();
    (!failures.is_empty()).then_some(failures)
}

/// The run's verdict from git's classified messages.
fn verdict(c: &Classification, exit_code: Option<i32>) -> Status {
    use apply_output::Outcome as O;
    if c.written && c.files.iter().all(|f| f.outcome != O::Skipped) {
        let conflicted: Vec<String> = c.conflicted_paths().into_iter().map(String::from).collect();
        return if conflicted.is_empty() {
            Status::Clean
        } else {
            Status::Conflicted { paths: conflicted }
        };
    }
    let mut failures: Vec<Failure> = Vec::new();
    for f in &c.files {
        if f.outcome != O::Skipped {
            continue;
        }
        for r in &f.reasons {
            // A file that only failed because another did says nothing about the cause.
            if *r != Reason::Aborted {
                failures.push(Failure {
                    path: Some(f.path.clone()),
                    reason: r.clone(),
                });
            }
        }
    }
    for r in &c.run {
        failures.push(Failure {
            path: None,
            reason: r.clone(),
        });
    }
    if failures.is_empty() {
        failures.push(Failure {
            path: None,
            reason: Reason::Other {
                message: match exit_code {
                    Some(code) => format!("git apply failed with exit code {code}"),
                    None => "git apply was killed by a signal".to_string(),
                },
            },
        });
    }
    Status::Failed { failures }
}

/// Strategy 2 for the planner: a file whose patch names a preimage blob that the object store
/// has is merged by `git apply --3way` in a scratch tree. Anything else (no `index` line,
/// missing blob, git refusing outright) returns `None`, so the text passes run.
pub struct GitThreeWay<'a> {
    /// The repository whose index, objects and files the scratch tree is made from.
    pub repo: &'a Repo,
    /// The patch as parsed, before any reversal: its `raw` text is what git reads.
    pub originals: &'a [FilePatch],
    /// Apply the patch in reverse (`git apply -R`), for undo.
    pub reverse: bool,
}

impl crate::plan::ThreeWay for GitThreeWay<'_> {
    fn apply_binary(
        &self,
        index: usize,
        _fp: &FilePatch,
    ) -> Option<Result<crate::plan::Writes, BinaryError>> {
        self.binary(index)
    }

    fn apply(
        &self,
        index: usize,
        fp: &FilePatch,
        _current: &FileState,
    ) -> Option<crate::plan::MergeResult> {
        use crate::plan::{Base, MergeResult, Strategy};
        let orig = self.originals.get(index)?;
        let ids = orig.index.as_ref()?;
        let pre = if self.reverse { &ids.new } else { &ids.old };
        let link = |m: Option<u32>| m == Some(crate::repo::MODE_LINK);
        if orig.raw.trim().is_empty()
            || link(orig.old_mode)
            || link(orig.new_mode)
            || orig.binary
            || !git_reads_as_parsed(orig)
            || !blob_present(self.repo, pre)
        {
            return None;
        }
        let out = apply(
            self.repo,
            &[orig],
            Options {
                check: false,
                reverse: self.reverse,
            },
        )
        .ok()?;
        let target = fp.new_path.as_deref()?;
        let result = out.paths.iter().find(|p| p.path == target)?;
        let bytes = result.after.as_ref()?.bytes.to_vec();
        let base = Some(Base {
            kind: "blob".into(),
            id: pre.clone(),
            path: fp.old_path.clone().unwrap_or_else(|| target.to_string()),
        });
        match out.status {
            Status::Clean => Some(MergeResult::Clean {
                bytes,
                strategy: Strategy::ThreeWay,
                base,
            }),
            Status::Conflicted { .. } if result.conflicted => {
                let regions = conflict_regions(&bytes);
                Some(MergeResult::Conflicted {
                    bytes,
                    strategy: Strategy::ThreeWay,
                    base,
                    regions,
                })
            }
            _ => None,
        }
    }
}

/// Whether git would read the section's hunks as we did: each `@@ -a,b +c,d @@` header with
/// numbers and with counts that fit its lines. Git skips or misreads a header without
/// numbers (`@@ @@`: a rename's edit silently dropped) and a miscounted one, so such a
/// section is left to the strategies that read our parse.
fn git_reads_as_parsed(fp: &FilePatch) -> bool {
    let headers: Vec<&str> = fp.raw.lines().filter(|l| l.starts_with("@@")).collect();
    headers.len() == fp.hunks.len()
        && headers.iter().zip(&fp.hunks).all(|(line, h)| {
            let counts = header_counts(line);
            counts == Some((h.old_len(), h.new_len()))
        })
}

/// The line counts of a unified hunk header (`@@ -a[,b] +c[,d] @@`), when it has numbers.
fn header_counts(line: &str) -> Option<(usize, usize)> {
    let mut parts = line.strip_prefix("@@ ")?.split(' ');
    let count = |s: &str, sign: char| -> Option<usize> {
        let range = s.strip_prefix(sign)?;
        let mut it = range.splitn(2, ',');
        it.next()?.parse::<u64>().ok()?;
        match it.next() {
            Some(n) => n.parse().ok(),
            None => Some(1),
        }
    };
    let old = count(parts.next()?, '-')?;
    let new = count(parts.next()?, '+')?;
    (parts.next()? == "@@").then_some((old, new))
}

impl GitThreeWay<'_> {
    fn binary(&self, index: usize) -> Option<Result<crate::plan::Writes, BinaryError>> {
        let orig = self.originals.get(index)?;
        if !orig.binary || orig.raw.trim().is_empty() {
            return None;
        }
        let out = match apply(
            self.repo,
            &[orig],
            Options {
                check: false,
                reverse: self.reverse,
            },
        ) {
            Ok(out) => out,
            Err(e) => return Some(Err(BinaryError::Run(e))),
        };
        match out.status {
            Status::Clean => Some(Ok(out
                .paths
                .into_iter()
                .map(|p| (p.path, p.after))
                .collect())),
            _ => {
                let said = out
                    .stderr
                    .lines()
                    .map(str::trim)
                    .find(|l| l.starts_with("error:"))
                    .unwrap_or("git apply refused it")
                    .to_string();
                Some(Err(BinaryError::Refused { said }))
            }
        }
    }
}

/// "lines A-B" for each conflict-marker block in merged text.
pub fn conflict_regions(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    let mut start = None;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("<<<<<<< ") || line == "<<<<<<<" {
            start = Some(i + 1);
        } else if line.starts_with(">>>>>>> ") || line == ">>>>>>>" {
            if let Some(s) = start.take() {
                out.push(format!("conflict markers at lines {s}-{}", i + 1));
            }
        }
    }
    out
}

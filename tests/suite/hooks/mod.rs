//! Hooks (DESIGN §8, issue 6): the pre-llm-apply gate, post-llm-apply verification, the
//! runner's robustness, `hooks install`, the ready-made hooks, and shallow/partial clones
//! that still merge three-way with real remotes.

mod gate;
mod install;
mod ready;
mod robustness;
mod shallow;

use std::path::{Path, PathBuf};

use crate::common::{numbered, TestRepo};

/// Write an executable hook into the repository's hooks directory.
pub fn hook(r: &TestRepo, name: &str, script: &str) -> PathBuf {
    let path = r.abs(".git/hooks").join(name);
    write_exec(&path, script);
    path
}

pub fn write_exec(path: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, script).expect("write hook");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A repository whose HEAD has `f.txt` = l1..l20, and the `git diff` that changes l10.
pub fn setup() -> (TestRepo, String) {
    let r = TestRepo::with(&[("f.txt", &numbered("l", 20))]);
    r.write("f.txt", changed().as_bytes());
    let patch = r.git(&["diff"]);
    r.git(&["checkout", "--", "f.txt"]);
    (r, patch)
}

/// `f.txt` after the patch.
pub fn changed() -> String {
    numbered("l", 20).replace("l10\n", "TEN\n")
}

/// A directory outside the repository where hooks leave what they saw.
pub fn spy() -> tempfile::TempDir {
    tempfile::tempdir().expect("spy dir")
}

pub fn spied(dir: &tempfile::TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.path().join(name))
        .unwrap_or_else(|e| panic!("the hook left no {name}: {e}"))
}

/// Run the binary with `args` and no input.
pub fn cli(r: &TestRepo, args: &[&str]) -> crate::common::Run {
    let out = r
        .cmd(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the binary");
    crate::common::Run::from(out)
}

//! Path confinement: what a patch may name. Pure checks on the path text; the work tree's
//! symlinks are checked by `repo::Files::escapes`.

use crate::patch::kinds::{ErrorKind, Kinded};

/// A path a patch may not name; the file is refused with this as its reason.
#[allow(missing_docs)] // each variant's #[error] message says what it is; the field is the path
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("an empty path")]
    Empty,
    #[error("{0:?} contains a NUL byte")]
    Nul(String),
    #[error("{0} is an absolute path; patches may only name paths inside the work tree")]
    Absolute(String),
    #[error("{0} leaves the work tree through '..'")]
    Climbs(String),
    #[error("{0} is inside .git; patches may not change the repository's own files")]
    InsideGit(String),
    #[error(
        "{0} has a '.' or an empty part, as git does not write a path; name the file from the \
         top of the work tree (two spellings of one file would each be patched from the file \
         as it was)"
    )]
    NotPlain(String),
}

impl Kinded for PathError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Path
    }
}

/// The reason a path would leave the work tree or reach into `.git`.
pub fn check(path: &str) -> Result<(), PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if path.contains('\0') {
        return Err(PathError::Nul(path.to_string()));
    }
    if path.starts_with('/') || path.starts_with('\\') || has_drive(path) {
        return Err(PathError::Absolute(path.to_string()));
    }
    for comp in path.split(['/', '\\']) {
        if comp == ".." {
            return Err(PathError::Climbs(path.to_string()));
        }
        if comp == "." || comp.is_empty() {
            return Err(PathError::NotPlain(path.to_string()));
        }
        if comp.eq_ignore_ascii_case(".git") {
            return Err(PathError::InsideGit(path.to_string()));
        }
    }
    Ok(())
}

fn has_drive(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_tree_are_refused_each_for_its_reason() {
        let s = |p: &str| p.to_string();
        for (p, why) in [
            ("/etc/passwd", PathError::Absolute(s("/etc/passwd"))),
            ("../x", PathError::Climbs(s("../x"))),
            ("a/../../x", PathError::Climbs(s("a/../../x"))),
            (".git/config", PathError::InsideGit(s(".git/config"))),
            ("a/.GIT/hooks/x", PathError::InsideGit(s("a/.GIT/hooks/x"))),
            ("C:/x", PathError::Absolute(s("C:/x"))),
            ("a\0b", PathError::Nul(s("a\0b"))),
            ("./a", PathError::NotPlain(s("./a"))),
            ("a//b", PathError::NotPlain(s("a//b"))),
            ("", PathError::Empty),
        ] {
            assert_eq!(check(p), Err(why), "{p:?}");
        }
        assert_eq!(
            check("a/../../x").expect_err("climbs").to_string(),
            "a/../../x leaves the work tree through '..'"
        );
        for p in ["a", "a/b.rs", "a/..b", ".github/x.yml", "x.git"] {
            assert!(check(p).is_ok(), "{p} must be allowed");
        }
    }
}

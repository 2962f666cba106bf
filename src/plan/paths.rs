//! Path confinement: what a patch may name. Pure checks on the path text; the work tree's
//! symlinks are checked by `repo::Files::escapes`.

/// `Err(reason)` for a path that would leave the work tree or reach into `.git`.
pub fn check(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("an empty path".into());
    }
    if path.contains('\0') {
        return Err(format!("{path:?} contains a NUL byte"));
    }
    if path.starts_with('/') || path.starts_with('\\') || has_drive(path) {
        return Err(format!(
            "{path} is an absolute path; patches may only name paths inside the work tree"
        ));
    }
    for comp in path.split(['/', '\\']) {
        if comp == ".." {
            return Err(format!("{path} leaves the work tree through '..'"));
        }
        if comp.eq_ignore_ascii_case(".git") {
            return Err(format!(
                "{path} is inside .git; patches may not change the repository's own files"
            ));
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
    use super::check;

    #[test]
    fn paths_that_leave_the_tree_are_refused() {
        for p in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            ".git/config",
            "a/.GIT/hooks/x",
            "C:/x",
            "",
        ] {
            assert!(check(p).is_err(), "{p} must be refused");
        }
        for p in ["a", "a/b.rs", "a/..b", ".github/x.yml", "x.git"] {
            assert!(check(p).is_ok(), "{p} must be allowed");
        }
    }
}

//! The paths that exist in a work tree, for suggesting one when a patch names a missing
//! path: the tracked paths from the git index, else a bounded breadth-first walk.

use std::collections::VecDeque;
use std::path::Path;

/// At most this many paths are listed: enough for a suggestion, bounded for huge trees.
const LIMIT: usize = 100_000;
/// Directory entries a walk reads before it stops.
const WALK_ENTRIES: usize = 20_000;

pub fn known_paths(root: &Path) -> Vec<String> {
    tracked(root).unwrap_or_else(|| walk(root))
}

/// The index's paths, when `root` is the top of a repository with a readable index.
fn tracked(root: &Path) -> Option<Vec<String>> {
    let repo = gix::open(root).ok()?;
    if repo.workdir().is_none_or(|w| !same_dir(w, root)) {
        return None;
    }
    let index = repo.index_or_empty().ok()?;
    let out: Vec<String> = index
        .entries()
        .iter()
        .take(LIMIT)
        .map(|e| e.path(&index).to_string())
        .collect();
    (!out.is_empty()).then_some(out)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Breadth first, so the files near the top (where sources usually are) come before deep
/// build output; `.git` and other dot-directories are skipped.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut queue: VecDeque<String> = VecDeque::from([String::new()]);
    let mut seen = 0usize;
    while let Some(rel) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        let mut names: Vec<(String, bool)> = Vec::new();
        for e in entries.flatten() {
            seen += 1;
            if seen > WALK_ENTRIES {
                break;
            }
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            names.push((name, is_dir));
        }
        names.sort();
        for (name, is_dir) in names {
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if is_dir {
                if !name.starts_with('.') {
                    queue.push_back(path);
                }
            } else {
                out.push(path);
            }
        }
        if seen > WALK_ENTRIES || out.len() >= LIMIT {
            break;
        }
    }
    out
}

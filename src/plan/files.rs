//! Whole-file changes: creating, deleting and binary patches (strategy `file` and `git-apply`).

use super::diagnose::{self, Warning, WarningKind};
use super::{base_plan, refused, FilePlan, FileStatus, Options, Overlay, Strategy, Writes};
use crate::patch::{CreateMode, FilePatch, LineKind};
use crate::repo::{link_stays_inside, Entry, FileState, MODE_FILE, MODE_LINK};
use crate::text::file::TextFile;
use crate::text::normalize::{self, Pass};

/// A `GIT binary patch` section: only git can apply it, and only to the bytes it was made
/// from (git checks them against the `index` line), so it goes through `git apply` in a
/// scratch tree, inside the same all-or-nothing plan.
pub(super) fn plan_binary(
    index: usize,
    fp: &FilePatch,
    vfs: &mut Overlay,
    opts: &Options,
) -> std::io::Result<(FilePlan, Writes)> {
    let paths: Vec<&String> = fp.old_path.iter().chain(fp.new_path.iter()).collect();
    if paths.iter().any(|p| vfs.planned.contains_key(p.as_str())) {
        return Ok((
            refused(
                fp,
                "a binary patch cannot follow another change to the same file in one patch".into(),
            ),
            Vec::new(),
        ));
    }
    let Some(engine) = opts.three_way else {
        return Ok((
            refused(
                fp,
                "binary patches are applied by git, which needs a git repository".into(),
            ),
            Vec::new(),
        ));
    };
    match engine.apply_binary(index, fp) {
        Some(Ok(writes)) => {
            let mut plan = base_plan(fp);
            plan.strategy = Strategy::GitApply;
            let unchanged = writes.iter().all(|(path, after)| {
                let now = match vfs.files.read(path) {
                    Ok(Entry::File(f)) => Some(f),
                    _ => None,
                };
                now == *after
            });
            if unchanged {
                plan.status = FileStatus::AlreadyApplied;
                return Ok((plan, Vec::new()));
            }
            Ok((plan, writes))
        }
        Some(Err(why)) => Ok((refused(fp, why.to_string()), Vec::new())),
        None => Ok((
            refused(
                fp,
                "binary patches cannot be applied at text level, and git could not apply this one"
                    .into(),
            ),
            Vec::new(),
        )),
    }
}

/// Why a file the patch creates has no content to create it with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the patch creates this file but its hunk has context or removed lines")]
pub struct NotOnlyAdded;

fn new_content(fp: &FilePatch) -> Result<String, NotOnlyAdded> {
    if let Some(c) = &fp.full_content {
        return Ok(c.clone());
    }
    let size = fp
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .map(|l| l.text.len() + 2)
        .sum();
    let mut s = String::with_capacity(size);
    let mut no_newline = false;
    for h in &fp.hunks {
        for l in &h.lines {
            match l.kind {
                LineKind::Add => {
                    s.push_str(&l.text);
                    s.push_str(if fp.patch_eols && l.crlf {
                        "\r\n"
                    } else {
                        "\n"
                    });
                }
                _ => return Err(NotOnlyAdded),
            }
        }
        no_newline = h.new_no_newline;
    }
    if no_newline {
        if s.ends_with("\r\n") {
            s.truncate(s.len() - 2);
        } else if s.ends_with('\n') {
            s.pop();
        }
    }
    Ok(s)
}

pub(super) fn plan_create(
    fp: &FilePatch,
    vfs: &mut Overlay,
) -> std::io::Result<(FilePlan, Writes)> {
    let path = fp.new_path.clone().expect("a creation has a new path");
    let content = match new_content(fp) {
        Ok(c) => c,
        Err(why) => return Ok((refused(fp, why.to_string()), Vec::new())),
    };
    let mode = fp.new_mode.unwrap_or(MODE_FILE);
    let bytes = match crate::text::bytes::encode(&content) {
        std::borrow::Cow::Borrowed(_) => content.into_bytes(),
        std::borrow::Cow::Owned(b) => b,
    };
    let after = FileState {
        bytes: bytes.into(),
        mode,
    };
    if mode == MODE_LINK && !link_stays_inside(&path, &after.bytes) {
        return Ok((
            refused(
                fp,
                format!(
                    "{path} would be a symbolic link to {}, which leads out of the work tree",
                    String::from_utf8_lossy(&after.bytes)
                ),
            ),
            Vec::new(),
        ));
    }
    let mut plan = base_plan(fp);
    match vfs.read(&path)? {
        Entry::Missing => {}
        Entry::File(cur) => {
            if cur == after || (cur.bytes == after.bytes && fp.new_mode.is_none()) {
                plan.status = FileStatus::AlreadyApplied;
                return Ok((plan, Vec::new()));
            }
            if fp.create_mode == CreateMode::MayReplace {
                plan.warnings.push(Warning::new(
                    WarningKind::Overwrote,
                    None,
                    format!("{path} already existed with other content and was replaced (the snapshot keeps the old content)"),
                ));
            } else {
                return Ok((
                    refused(
                        fp,
                        format!(
                            "{path} already exists, and the patch creates it with other content"
                        ),
                    ),
                    Vec::new(),
                ));
            }
        }
        Entry::Other(what) => {
            return Ok((
                refused(fp, format!("{path} exists as a {what}")),
                Vec::new(),
            ));
        }
    }
    Ok((plan, vec![(path, Some(after))]))
}

pub(super) fn plan_delete(
    fp: &FilePatch,
    vfs: &mut Overlay,
) -> std::io::Result<(FilePlan, Writes)> {
    let path = fp.old_path.clone().expect("a deletion has an old path");
    let cur = match vfs.read(&path)? {
        Entry::File(f) => f,
        Entry::Missing => {
            let mut p = refused(
                fp,
                format!("{path} does not exist, so it cannot be deleted"),
            );
            p.suggested_path = diagnose::closest_path(&path, &vfs.files.known_paths());
            return Ok((p, Vec::new()));
        }
        Entry::Other(what) => {
            return Ok((refused(fp, format!("{path} is a {what}")), Vec::new()));
        }
    };
    if !fp.hunks.is_empty() {
        // The patch says what it deletes: the file must still say that.
        let expected: Vec<&str> = fp
            .hunks
            .iter()
            .flat_map(|h| h.old_lines().map(|l| l.text.as_str()))
            .collect();
        let same = TextFile::decode(&cur.bytes).is_some_and(|t| {
            t.lines.len() == expected.len()
                && t.lines.iter().zip(&expected).all(|(a, b)| {
                    normalize::key(Pass::TrailingWhitespace, a)
                        == normalize::key(Pass::TrailingWhitespace, b)
                })
        });
        if !same {
            return Ok((
                refused(
                    fp,
                    format!("{path} differs from the content the patch deletes; not deleted"),
                ),
                Vec::new(),
            ));
        }
    }
    Ok((base_plan(fp), vec![(path, None)]))
}

//! The diff a run wrote, computed from each change's bytes before and after (not from the
//! patch), so the report shows what really landed on disk: git's unified format, 3 lines of
//! context.

use std::time::{Duration, Instant};

use similar::{udiff::UnifiedHunkHeader, DiffTag};

use crate::plan::Change;
use crate::repo::FileState;

/// How long one file's diff may take before it falls back to a coarser one
/// ([`crate::line_diff`]: Myers for small changes, patience anchors for large ones).
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

/// One file's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The header lines: `diff --git`, mode and rename lines, `---` and `+++`.
    pub header: Vec<String>,
    pub hunks: Vec<DiffHunk>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffHunk {
    /// `@@ -a,b +c,d @@`
    pub header: String,
    pub lines: Vec<DiffLine>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Context,
    Added,
    Removed,
    /// `\ No newline at end of file`
    NoNewline,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: LineKind,
    /// The line with its prefix (` `, `+`, `-`, `\`), without its terminator.
    pub text: String,
}

/// The diffs of a plan's changes, in the order the plan first touched each path. A rename
/// (`renames`: old and new path) that the plan made, old path gone and new path created,
/// shows as one diff.
pub fn diffs(changes: &[Change], renames: &[(&str, &str)]) -> Vec<FileDiff> {
    // (index of the old path's deletion, index of the new path's creation) per rename.
    let pairs: Vec<(usize, usize)> = renames
        .iter()
        .filter_map(|&(o, n)| {
            let gone = changes
                .iter()
                .position(|c| c.path == o && c.after.is_none())?;
            let made = changes
                .iter()
                .position(|c| c.path == n && c.before.is_none())?;
            Some((gone, made))
        })
        .collect();
    let mut shown = vec![false; changes.len()];
    let mut out = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        if shown[i] {
            continue;
        }
        match pairs.iter().find(|(g, m)| *g == i || *m == i) {
            Some(&(g, m)) => {
                shown[g] = true;
                shown[m] = true;
                let (gone, made) = (&changes[g], &changes[m]);
                out.push(file_diff(
                    &gone.path,
                    &made.path,
                    gone.before.as_ref(),
                    made.after.as_ref(),
                ));
            }
            None => out.push(file_diff(
                &c.path,
                &c.path,
                c.before.as_ref(),
                c.after.as_ref(),
            )),
        }
    }
    out
}

fn file_diff(
    old_path: &str,
    new_path: &str,
    before: Option<&FileState>,
    after: Option<&FileState>,
) -> FileDiff {
    let mut header = vec![format!("diff --git a/{old_path} b/{new_path}")];
    match (before, after) {
        (None, Some(a)) => header.push(format!("new file mode {:o}", a.mode)),
        (Some(b), None) => header.push(format!("deleted file mode {:o}", b.mode)),
        (Some(b), Some(a)) => {
            if b.mode != a.mode {
                header.push(format!("old mode {:o}", b.mode));
                header.push(format!("new mode {:o}", a.mode));
            }
            if old_path != new_path {
                header.push(format!("rename from {old_path}"));
                header.push(format!("rename to {new_path}"));
            }
        }
        (None, None) => {}
    }
    let old_bytes = before.map_or(&[][..], |b| &b.bytes[..]);
    let new_bytes = after.map_or(&[][..], |a| &a.bytes[..]);
    if old_bytes == new_bytes {
        return FileDiff {
            header,
            hunks: Vec::new(),
        };
    }
    // Binary as git judges it: a NUL byte. Text that is not UTF-8 is shown through the
    // lossless byte mapping the planner uses.
    let binary = old_bytes.contains(&0) || new_bytes.contains(&0);
    let (Some(old), Some(new)) = (
        crate::bytes::decode(old_bytes).filter(|_| !binary),
        crate::bytes::decode(new_bytes).filter(|_| !binary),
    ) else {
        let a = before.map_or("/dev/null".to_string(), |_| format!("a/{old_path}"));
        let b = after.map_or("/dev/null".to_string(), |_| format!("b/{new_path}"));
        header.push(format!("Binary files {a} and {b} differ"));
        return FileDiff {
            header,
            hunks: Vec::new(),
        };
    };
    header.push(match before {
        Some(_) => format!("--- a/{old_path}"),
        None => "--- /dev/null".to_string(),
    });
    header.push(match after {
        Some(_) => format!("+++ b/{new_path}"),
        None => "+++ /dev/null".to_string(),
    });
    FileDiff {
        header,
        hunks: hunks(&old, &new),
    }
}

fn hunks(old: &str, new: &str) -> Vec<DiffHunk> {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = crate::line_diff::diff(&a, &b, Instant::now() + DIFF_TIMEOUT);
    let mut out = Vec::new();
    for group in similar::group_diff_ops(ops, 3) {
        let mut lines = Vec::new();
        let mut push = |kind: LineKind, sign: char, value: &str| {
            let text = value
                .strip_suffix('\n')
                .map(|v| v.strip_suffix('\r').unwrap_or(v))
                .unwrap_or(value);
            lines.push(DiffLine {
                kind,
                text: format!("{sign}{text}"),
            });
            if !value.ends_with('\n') {
                lines.push(DiffLine {
                    kind: LineKind::NoNewline,
                    text: "\\ No newline at end of file".into(),
                });
            }
        };
        for op in &group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if matches!(tag, DiffTag::Equal) {
                a[old_range]
                    .iter()
                    .for_each(|l| push(LineKind::Context, ' ', l));
                continue;
            }
            if matches!(tag, DiffTag::Delete | DiffTag::Replace) {
                a[old_range]
                    .iter()
                    .for_each(|l| push(LineKind::Removed, '-', l));
            }
            if matches!(tag, DiffTag::Insert | DiffTag::Replace) {
                b[new_range]
                    .iter()
                    .for_each(|l| push(LineKind::Added, '+', l));
            }
        }
        out.push(DiffHunk {
            header: UnifiedHunkHeader::new(&group).to_string(),
            lines,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MODE_FILE;

    fn state(s: &str) -> Option<FileState> {
        Some(FileState {
            bytes: s.as_bytes().to_vec(),
            mode: MODE_FILE,
        })
    }

    fn change(path: &str, before: Option<FileState>, after: Option<FileState>) -> Change {
        Change {
            path: path.into(),
            before,
            after,
        }
    }

    #[test]
    fn a_modification_is_a_git_style_unified_diff() {
        let d = diffs(&[change("f", state("a\nb\nc\n"), state("a\nB\nc\n"))], &[]);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].header, ["diff --git a/f b/f", "--- a/f", "+++ b/f"]);
        assert_eq!(d[0].hunks[0].header, "@@ -1,3 +1,3 @@");
        let text: Vec<&str> = d[0].hunks[0]
            .lines
            .iter()
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(text, [" a", "-b", "+B", " c"]);
    }

    #[test]
    fn creation_deletion_and_missing_newline_read_as_git_writes_them() {
        let d = diffs(
            &[
                change("new", None, state("x")),
                change("old", state("y\n"), None),
            ],
            &[],
        );
        assert_eq!(d[0].header[1], "new file mode 100644");
        assert_eq!(d[0].header[2], "--- /dev/null");
        let kinds: Vec<LineKind> = d[0].hunks[0].lines.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, [LineKind::Added, LineKind::NoNewline]);
        assert_eq!(d[1].header[1], "deleted file mode 100644");
        assert_eq!(d[1].header[3], "+++ /dev/null");
    }

    #[test]
    fn crlf_lines_show_without_their_terminator() {
        let d = diffs(&[change("f", state("a\r\n"), state("b\r\n"))], &[]);
        let text: Vec<&str> = d[0].hunks[0]
            .lines
            .iter()
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(text, ["-a", "+b"]);
    }
}

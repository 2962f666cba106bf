//! The normalised patch hooks read through `GIT_LLM_APPLY_PATCH`: whatever format came in,
//! rendered as one git-style unified diff (a/ b/ prefixes, recomputed counts, the `index`
//! lines the input carried), so a hook needs to understand one format only.

use std::fmt::Write as _;

use crate::patch::{FileOp, FilePatch, Hunk, LineKind, Patch};
use crate::plan::Plan;
use crate::text::quote::quote;

/// Render `patch` (already reversed for `--revert`). Where a hunk had no line numbers, the
/// place the plan found for it is used; numbers in the output are informative, as they are
/// in any patch this tool reads.
pub fn render(patch: &Patch, plan: &Plan) -> String {
    let mut out = String::new();
    for (i, fp) in patch.files.iter().enumerate() {
        let planned = plan.files.get(i).filter(|f| f.path() == fp.display_path());
        let located = |h: usize| planned.and_then(|f| f.hunks.get(h)).and_then(|r| r.line);
        file(&mut out, fp, &located);
    }
    out
}

fn file(out: &mut String, fp: &FilePatch, located: &dyn Fn(usize) -> Option<usize>) {
    let old = fp.old_path.as_deref();
    let new = fp.new_path.as_deref();
    let a = old.or(new).unwrap_or_default();
    let b = new.or(old).unwrap_or_default();
    let _ = writeln!(out, "diff --git {} {}", quote("a/", a), quote("b/", b));
    match fp.op() {
        FileOp::Create => {
            let _ = writeln!(out, "new file mode {:o}", fp.new_mode.unwrap_or(0o100644));
        }
        FileOp::Delete => {
            let _ = writeln!(
                out,
                "deleted file mode {:o}",
                fp.old_mode.unwrap_or(0o100644)
            );
        }
        FileOp::Rename | FileOp::Copy | FileOp::Modify => {
            if let (Some(o), Some(n)) = (fp.old_mode, fp.new_mode) {
                if o != n {
                    let _ = writeln!(out, "old mode {o:o}\nnew mode {n:o}");
                }
            }
            if fp.op() == FileOp::Rename {
                let _ = writeln!(out, "rename from {}", quote("", a));
                let _ = writeln!(out, "rename to {}", quote("", b));
            }
        }
    }
    if let Some(ids) = &fp.index {
        let _ = write!(out, "index {}..{}", ids.old, ids.new);
        match (fp.op(), fp.old_mode, fp.new_mode) {
            (FileOp::Modify | FileOp::Rename, Some(o), Some(n)) if o == n => {
                let _ = write!(out, " {o:o}");
            }
            _ => {}
        }
        out.push('\n');
    }
    if fp.binary {
        if fp.raw.contains("GIT binary patch") {
            if let Some(at) = fp.raw.find("GIT binary patch") {
                out.push_str(&fp.raw[at..]);
                if !out.ends_with('\n') {
                    out.push('\n');
                }
            }
        } else {
            let _ = writeln!(
                out,
                "Binary files {} and {} differ",
                old.map(|p| quote("a/", p))
                    .unwrap_or_else(|| "/dev/null".into()),
                new.map(|p| quote("b/", p))
                    .unwrap_or_else(|| "/dev/null".into())
            );
        }
        return;
    }
    let hunks: Vec<Hunk> = match &fp.full_content {
        Some(content) => vec![whole_file(content)],
        None => fp.hunks.clone(),
    };
    if hunks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "--- {}",
        old.map(|p| quote("a/", p))
            .unwrap_or_else(|| "/dev/null".into())
    );
    let _ = writeln!(
        out,
        "+++ {}",
        new.map(|p| quote("b/", p))
            .unwrap_or_else(|| "/dev/null".into())
    );
    let mut delta: i64 = 0;
    for (n, h) in hunks.iter().enumerate() {
        let (old_len, new_len) = (h.old_len(), h.new_len());
        let old_start = if old_len == 0 {
            h.old_start.unwrap_or(0)
        } else {
            located(n).or(h.old_start).unwrap_or(1)
        };
        // git's convention: an empty side names the line before it.
        let first_new = if old_len == 0 {
            old_start + 1
        } else {
            old_start
        };
        let mut new_start = (first_new as i64 + delta).max(1) as usize;
        if new_len == 0 {
            new_start -= 1;
        }
        delta += new_len as i64 - old_len as i64;
        let section = h
            .section
            .as_deref()
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "@@ -{} +{} @@{section}",
            range(old_start, old_len),
            range(new_start, new_len)
        );
        let last_old = h.lines.iter().rposition(|l| l.kind != LineKind::Add);
        let last_new = h.lines.iter().rposition(|l| l.kind != LineKind::Remove);
        for (i, l) in h.lines.iter().enumerate() {
            let sign = match l.kind {
                LineKind::Context => ' ',
                LineKind::Remove => '-',
                LineKind::Add => '+',
            };
            out.push(sign);
            out.push_str(&l.text);
            if l.crlf && fp.patch_eols {
                out.push('\r');
            }
            out.push('\n');
            let old_end = Some(i) == last_old && h.old_no_newline;
            let new_end = Some(i) == last_new && h.new_no_newline;
            let marked = match l.kind {
                LineKind::Context => old_end || new_end,
                LineKind::Remove => old_end,
                LineKind::Add => new_end,
            };
            if marked {
                out.push_str("\\ No newline at end of file\n");
            }
        }
    }
}

fn range(start: usize, len: usize) -> String {
    if len == 1 {
        start.to_string()
    } else {
        format!("{start},{len}")
    }
}

/// A replacement with the whole new content (Codex `Add File`) as one all-added hunk.
fn whole_file(content: &str) -> Hunk {
    use crate::patch::Line;
    Hunk {
        old_start: Some(0),
        new_start: Some(1),
        lines: content
            .lines()
            .map(|l| Line::new(LineKind::Add, l))
            .collect(),
        new_no_newline: !content.is_empty() && !content.ends_with('\n'),
        ..Hunk::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::{Format, IndexLine, Line};

    fn plan() -> Plan {
        Plan {
            files: Vec::new(),
            notices: Vec::new(),
            changes: Vec::new(),
        }
    }

    #[test]
    fn a_modification_keeps_its_index_line_and_recounts_the_hunk() {
        let fp = FilePatch {
            old_path: Some("src/a.rs".into()),
            new_path: Some("src/a.rs".into()),
            old_mode: Some(0o100644),
            new_mode: Some(0o100644),
            index: Some(IndexLine {
                old: "1234567".into(),
                new: "89abcde".into(),
            }),
            hunks: vec![Hunk {
                old_start: Some(3),
                lines: vec![
                    Line::new(LineKind::Context, "a"),
                    Line::new(LineKind::Remove, "b"),
                    Line::new(LineKind::Add, "B"),
                    Line::new(LineKind::Add, "B2"),
                ],
                ..Hunk::default()
            }],
            ..FilePatch::default()
        };
        let patch = Patch {
            format: Format::Unified,
            files: vec![fp],
            notices: Vec::new(),
        };
        assert_eq!(
            render(&patch, &plan()),
            "diff --git a/src/a.rs b/src/a.rs\nindex 1234567..89abcde 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -3,2 +3,3 @@\n a\n-b\n+B\n+B2\n"
        );
    }

    #[test]
    fn a_created_file_without_final_newline_is_marked() {
        let fp = FilePatch {
            new_path: Some("new file.txt".into()),
            full_content: Some("x\ny".into()),
            ..FilePatch::default()
        };
        let patch = Patch {
            format: Format::Codex,
            files: vec![fp],
            notices: Vec::new(),
        };
        assert_eq!(
            render(&patch, &plan()),
            "diff --git a/new file.txt b/new file.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new file.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
        );
    }
}

//! The diff a run wrote, computed from each change's bytes before and after (not from the
//! patch), so the report shows what really landed on disk: git's unified format, 3 lines of
//! context. It is worked out when the report is rendered: the new bytes are read in their
//! pieces (a spliced file's runs of the old file around the placed hunks' lines), only the
//! stretch around the changes is diffed, and only the lines shown are split out.

use std::time::Instant;

use similar::DiffOp;

use crate::plan::Change;
use crate::repo::FileState;
use crate::text::textdiff::{self, Pieces};

/// The diff lines the human report shows per file unless asked for everything.
pub const SHOWN_LINES: usize = 300;

/// One file's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The header lines: `diff --git`, mode and rename lines, `---` and `+++`.
    pub header: Vec<String>,
    /// The hunks shown, in file order.
    pub hunks: Vec<DiffHunk>,
    /// What the line limit left out.
    pub omitted: Option<Omitted>,
}

/// Diff lines (and the hunks they belong to) not shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Omitted {
    /// Hunks cut short or left out.
    pub hunks: usize,
    /// Lines not shown, over those hunks.
    pub lines: usize,
}

/// One hunk of a file's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffHunk {
    /// `@@ -a,b +c,d @@`
    pub header: String,
    /// The hunk's lines, in order.
    pub lines: Vec<DiffLine>,
}

/// What a diff line is, for choosing its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Unchanged, shown for context.
    Context,
    /// On the new side only.
    Added,
    /// On the old side only.
    Removed,
    /// `\ No newline at end of file`
    NoNewline,
}

/// One line of a hunk as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// What the line is, for choosing its colour.
    pub kind: LineKind,
    /// The line with its prefix (` `, `+`, `-`, `\`), without its terminator.
    pub text: String,
}

/// The diffs of a plan's changes, in the order the plan first touched each path. A rename
/// (`renames`: old and new path) that the plan made, old path gone and new path created,
/// shows as one diff. `limit` caps the lines shown per file (None: all of them).
pub fn diffs(changes: &[Change], renames: &[(&str, &str)], limit: Option<usize>) -> Vec<FileDiff> {
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
                    limit,
                ));
            }
            None => out.push(file_diff(
                &c.path,
                &c.path,
                c.before.as_ref(),
                c.after.as_ref(),
                limit,
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
    limit: Option<usize>,
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
    // The new bytes are read in their pieces: a file the plan spliced is runs of the old
    // file's own bytes around the placed hunks' lines, and nothing joins or copies it.
    let old_all = before.map_or(&[][..], |b| &b.bytes[..]);
    let new = Pieces::new(after.map_or_else(Vec::new, |a| a.bytes.chunks_in_place()));
    if old_all.len() == new.len() && new.common_prefix(old_all) == old_all.len() {
        return FileDiff {
            header,
            hunks: Vec::new(),
            omitted: None,
        };
    }
    // Binary as git judges it: a NUL byte among either side's first 8000 bytes.
    use crate::text::bytes::looks_binary;
    if looks_binary([old_all]) || looks_binary(new.chunks().iter().copied()) {
        let a = before.map_or("/dev/null".to_string(), |_| format!("a/{old_path}"));
        let b = after.map_or("/dev/null".to_string(), |_| format!("b/{new_path}"));
        header.push(format!("Binary files {a} and {b} differ"));
        return FileDiff {
            header,
            hunks: Vec::new(),
            omitted: None,
        };
    }
    header.push(match before {
        Some(_) => format!("--- a/{old_path}"),
        None => "--- /dev/null".to_string(),
    });
    header.push(match after {
        Some(_) => format!("+++ b/{new_path}"),
        None => "+++ /dev/null".to_string(),
    });
    let (hunks, omitted) = hunks(old_all, &new, limit);
    FileDiff {
        header,
        hunks,
        omitted,
    }
}

/// Lines of context around a change, as git shows them.
const CONTEXT: usize = 3;

/// The hunks of the diff from `old` to `new` (text), git's way with 3 lines of context,
/// showing at most `limit` lines; what lies beyond is counted in `omitted`. Only the part
/// around the changes is diffed ([`textdiff::window_of_pieces`]), and only the lines shown
/// are split out and decoded.
fn hunks(old: &[u8], new: &Pieces, limit: Option<usize>) -> (Vec<DiffHunk>, Option<Omitted>) {
    let w = textdiff::window_of_pieces(old, new, CONTEXT);
    let old_part = Pieces::new([w.old]);
    let (old_len, new_len) = (old_part.count_lines(), w.new.count_lines());
    // A file created or deleted is one run of lines.
    let ops = if w.old.is_empty() != w.new.is_empty() {
        vec![if old_len == 0 {
            DiffOp::Insert {
                old_index: 0,
                new_index: 0,
                new_len,
            }
        } else {
            DiffOp::Delete {
                old_index: 0,
                old_len,
                new_index: 0,
            }
        }]
    } else {
        textdiff::diff_pieces(&old_part, &w.new, Instant::now() + textdiff::TIMEOUT)
    };
    let mut a = textdiff::LineReader::new(&old_part, old_len);
    let mut b = textdiff::LineReader::new(&w.new, new_len);
    // The `\ No newline at end of file` marker each side's last line brings, where it has
    // one: a diff line too, counted with its line when that is not shown.
    let ends_bare = |bytes: Option<u8>| bytes.is_some_and(|c| c != b'\n');
    let bare = (
        ends_bare(w.old.last().copied()).then(|| old_len - 1),
        ends_bare(w.new.chunks().last().and_then(|c| c.last()).copied()).then(|| new_len - 1),
    );
    let groups = similar::group_diff_ops(ops, CONTEXT);
    let mut out = Vec::new();
    let mut shown = 0;
    let mut omitted = Omitted::default();
    for group in &groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (old_range, new_range) = (
            first.old_range().start..last.old_range().end,
            first.new_range().start..last.new_range().end,
        );
        let size = group.iter().map(|op| op_lines(op, bare)).sum::<usize>();
        if limit.is_some_and(|l| shown >= l) {
            omitted.hunks += 1;
            omitted.lines += size;
            continue;
        }
        // The hunk's first line, as an offset into `old`, for the heading above it.
        let heading = (old_range.start < old_len)
            .then(|| a.get(old_range.start).as_ptr() as usize - old.as_ptr() as usize)
            .and_then(|at| heading_above(&old[..at]));
        let room = limit.map_or(usize::MAX, |l| l - shown);
        let mut lines = Vec::new();
        let mut cut = 0;
        // Lines past the limit are counted, not split out.
        let mut each = |side: &mut textdiff::LineReader,
                        r: std::ops::Range<usize>,
                        kind: LineKind,
                        sign: char| {
            let last = if sign == '+' { bare.1 } else { bare.0 };
            for k in r.clone() {
                if lines.len() >= room {
                    cut += r.end - k + marker(last, &(k..r.end));
                    return;
                }
                push(&mut lines, kind, sign, side.get(k));
            }
        };
        for op in group {
            let (o, n) = (op.old_range(), op.new_range());
            match op {
                DiffOp::Equal { .. } => each(&mut a, o, LineKind::Context, ' '),
                _ => {
                    each(&mut a, o, LineKind::Removed, '-');
                    each(&mut b, n, LineKind::Added, '+');
                }
            }
        }
        if lines.len() > room {
            // A missing-newline marker went past the limit.
            cut += lines.len() - room;
            lines.truncate(room);
        }
        if cut > 0 {
            omitted.hunks += 1;
            omitted.lines += cut;
        }
        shown += lines.len();
        out.push(DiffHunk {
            header: format!(
                "@@ -{} +{} @@{}",
                range(w.line + old_range.start, old_range.len()),
                range(w.line + new_range.start, new_range.len()),
                heading.map(|h| format!(" {h}")).unwrap_or_default()
            ),
            lines,
        });
    }
    (out, (omitted.lines > 0).then_some(omitted))
}

/// One line of a hunk as shown, and after it git's marker when it has no newline.
fn push(lines: &mut Vec<DiffLine>, kind: LineKind, sign: char, line: &[u8]) {
    let (text, missing_newline) = match line.strip_suffix(b"\n") {
        Some(l) => (l.strip_suffix(b"\r").unwrap_or(l), false),
        None => (line, true),
    };
    let text = crate::text::bytes::decode(text).unwrap_or_else(|| String::from_utf8_lossy(text));
    lines.push(DiffLine {
        kind,
        text: format!("{sign}{text}"),
    });
    if missing_newline {
        lines.push(DiffLine {
            kind: LineKind::NoNewline,
            text: "\\ No newline at end of file".into(),
        });
    }
}

/// The section heading git writes after a hunk's `@@`, by its default rule: the nearest line
/// above the hunk that starts with a letter, `_` or `$`, without trailing whitespace, at most
/// 80 bytes of it.
fn heading_above(before: &[u8]) -> Option<String> {
    let mut end = before.len();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &before[..end - 1]).map_or(0, |i| i + 1);
        let line = &before[start..end];
        if line
            .first()
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'$')
        {
            let text =
                crate::text::bytes::decode(line).unwrap_or_else(|| String::from_utf8_lossy(line));
            let mut text = text.trim_end().to_string();
            if text.len() > 80 {
                let mut cut = 80;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
            }
            return Some(text);
        }
        end = start;
    }
    None
}

/// Lines an operation shows, `\ No newline at end of file` markers included: `bare` is the
/// last line of each side (old, new) where it has no newline.
fn op_lines(op: &DiffOp, bare: (Option<usize>, Option<usize>)) -> usize {
    let (o, n) = (op.old_range(), op.new_range());
    let shown = o.len() + marker(bare.0, &o);
    match op {
        DiffOp::Equal { .. } => shown,
        _ => shown + n.len() + marker(bare.1, &n),
    }
}

/// 1 where lines `r` hold `last`, the line that brings a no-newline marker.
fn marker(last: Option<usize>, r: &std::ops::Range<usize>) -> usize {
    usize::from(last.is_some_and(|l| r.contains(&l)))
}

/// A hunk header's range, as git writes it: `start,count`, the count left out when it is 1,
/// and for no lines the line before.
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MODE_FILE;

    /// The hunks as they were worked out before the new file was read in pieces: from both
    /// files' lines split whole (`old` and `new` a stretch after `lines_before` shared lines
    /// of `old_all`). What [`hunks`] is held to.
    fn whole_file_hunks(
        old: &[u8],
        new: &[u8],
        lines_before: usize,
        limit: Option<usize>,
        old_all: &[u8],
    ) -> (Vec<DiffHunk>, Option<Omitted>) {
        let mut w = textdiff::window(old, new, CONTEXT);
        w.line += lines_before;
        // A file created or deleted is one run of lines: only those shown are split out.
        let (a, b, ops) = if w.old.is_empty() != w.new.is_empty() {
            let most = limit.map_or(usize::MAX, |l| l + 1);
            let (a, b) = (
                textdiff::first_lines(w.old, most),
                textdiff::first_lines(w.new, most),
            );
            let (old_len, new_len) = (textdiff::count_lines(w.old), textdiff::count_lines(w.new));
            let op = if old_len == 0 {
                DiffOp::Insert {
                    old_index: 0,
                    new_index: 0,
                    new_len,
                }
            } else {
                DiffOp::Delete {
                    old_index: 0,
                    old_len,
                    new_index: 0,
                }
            };
            (a, b, vec![op])
        } else {
            let (a, b) = (textdiff::lines(w.old), textdiff::lines(w.new));
            let ops = textdiff::diff(&a, &b, textdiff::TIMEOUT);
            (a, b, ops)
        };
        // Each side's last line without a newline brings a marker line.
        let bare = |side: &[u8]| {
            let n = textdiff::count_lines(side);
            side.last().is_some_and(|&c| c != b'\n').then(|| n - 1)
        };
        let (old_bare, new_bare) = (bare(w.old), bare(w.new));
        let marks = |last: Option<usize>, r: std::ops::Range<usize>| {
            usize::from(last.is_some_and(|l| r.contains(&l)))
        };
        let groups = similar::group_diff_ops(ops, CONTEXT);
        let mut out = Vec::new();
        let mut shown = 0;
        let mut omitted = Omitted::default();
        for group in &groups {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let (old_range, new_range) = (
                first.old_range().start..last.old_range().end,
                first.new_range().start..last.new_range().end,
            );
            let size = group
                .iter()
                .map(|op| {
                    let (o, n) = (op.old_range(), op.new_range());
                    match op {
                        DiffOp::Equal { .. } => o.len() + marks(old_bare, o),
                        _ => o.len() + n.len() + marks(old_bare, o) + marks(new_bare, n),
                    }
                })
                .sum::<usize>();
            if limit.is_some_and(|l| shown >= l) {
                omitted.hunks += 1;
                omitted.lines += size;
                continue;
            }
            let room = limit.map_or(usize::MAX, |l| l - shown);
            let mut lines = Vec::new();
            let mut cut = 0;
            let mut push = |kind: LineKind, sign: char, line: &[u8]| {
                if lines.len() >= room {
                    cut += 1 + usize::from(!line.ends_with(b"\n"));
                    return;
                }
                let (text, missing_newline) = match line.strip_suffix(b"\n") {
                    Some(l) => (l.strip_suffix(b"\r").unwrap_or(l), false),
                    None => (line, true),
                };
                let text = crate::text::bytes::decode(text)
                    .unwrap_or_else(|| String::from_utf8_lossy(text));
                lines.push(DiffLine {
                    kind,
                    text: format!("{sign}{text}"),
                });
                if missing_newline {
                    lines.push(DiffLine {
                        kind: LineKind::NoNewline,
                        text: "\\ No newline at end of file".into(),
                    });
                }
            };
            // Lines not split out (past the limit) are counted as cut.
            let mut each =
                |side: &[&[u8]], r: std::ops::Range<usize>, kind: LineKind, sign: char| {
                    let there = r.start.min(side.len())..r.end.min(side.len());
                    let last = if sign == '+' { new_bare } else { old_bare };
                    let missing = r.len() - there.len() + marks(last, there.end..r.end);
                    side[there].iter().for_each(|l| push(kind, sign, l));
                    missing
                };
            let mut missing = 0;
            for op in group {
                let (o, n) = (op.old_range(), op.new_range());
                match op {
                    DiffOp::Equal { .. } => missing += each(&a, o, LineKind::Context, ' '),
                    _ => {
                        missing += each(&a, o, LineKind::Removed, '-');
                        missing += each(&b, n, LineKind::Added, '+');
                    }
                }
            }
            cut += missing;
            if lines.len() > room {
                // A missing-newline marker went past the limit.
                cut += lines.len() - room;
                lines.truncate(room);
            }
            if cut > 0 {
                omitted.hunks += 1;
                omitted.lines += cut;
            }
            shown += lines.len();
            // The hunk's first line, as an offset into `old`, for the heading above it.
            // (`old` may be a stretch of the whole old file, `old_all`; the heading may be above it.)
            let above = a
                .get(old_range.start)
                .and_then(|l| (l.as_ptr() as usize).checked_sub(old_all.as_ptr() as usize))
                .filter(|&at| at <= old_all.len());
            let heading = above.and_then(|at| heading_above(&old_all[..at]));
            out.push(DiffHunk {
                header: format!(
                    "@@ -{} +{} @@{}",
                    range(w.line + old_range.start, old_range.len()),
                    range(w.line + new_range.start, new_range.len()),
                    heading.map(|h| format!(" {h}")).unwrap_or_default()
                ),
                lines,
            });
        }
        (out, (omitted.lines > 0).then_some(omitted))
    }

    fn state(s: &str) -> Option<FileState> {
        Some(FileState {
            bytes: s.as_bytes().to_vec().into(),
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
        let d = diffs(
            &[change("f", state("a\nb\nc\n"), state("a\nB\nc\n"))],
            &[],
            None,
        );
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
    fn a_file_is_binary_as_git_judges_it_by_a_nul_in_its_first_8000_bytes() {
        let lines: String = (0..1_500).map(|i| format!("line {i}\n")).collect();
        assert!(lines.len() > 8_000);
        let late = format!("{lines}nul\0here\n");
        let changed = late.replacen("line 3\n", "LINE 3\n", 1);
        let d = diffs(&[change("f", state(&late), state(&changed))], &[], None);
        assert_eq!(d[0].hunks.len(), 1, "{:?}", d[0].header);
        assert_eq!(d[0].hunks[0].header, "@@ -1,7 +1,7 @@");
        for (old, new) in [
            (format!("a\0\n{lines}"), format!("b\0\n{lines}")),
            (lines.clone(), format!("\0{lines}")),
        ] {
            let d = diffs(&[change("f", state(&old), state(&new))], &[], None);
            assert_eq!(
                d[0].header.last().map(String::as_str),
                Some("Binary files a/f and b/f differ")
            );
            assert!(d[0].hunks.is_empty());
        }
    }

    #[test]
    fn creation_deletion_and_missing_newline_read_as_git_writes_them() {
        let d = diffs(
            &[
                change("new", None, state("x")),
                change("old", state("y\n"), None),
            ],
            &[],
            None,
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
        let d = diffs(&[change("f", state("a\r\n"), state("b\r\n"))], &[], None);
        let text: Vec<&str> = d[0].hunks[0]
            .lines
            .iter()
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(text, ["-a", "+b"]);
    }

    /// A big file whose splice moved a block of lines below a kept one (a hunk that removes
    /// 200 lines above a context line and adds them again below it), with a change far away
    /// that makes the stretch diffed a big one: the diff finds the move, as git does (the kept
    /// line shown moved instead, 4 changed lines in all), not the 400 lines the splice wrote.
    #[test]
    fn a_block_moved_across_a_kept_line_diffs_as_a_move() {
        use crate::repo::{Content, Part};
        let line = |i: usize| format!("line {i}\n");
        let old: String = (0..3_000).map(line).collect();
        let at = |i: usize| (0..i).map(|k| line(k).len()).sum::<usize>();
        let base = Content::new(old.clone().into_bytes());
        let parts = vec![
            Part::Base(at(200)..at(201)),
            Part::Own((0..200).map(line).collect::<String>().into_bytes()),
            Part::Base(at(201)..at(2_899)),
            Part::Own(b"changed 2899\n".to_vec()),
            Part::Base(at(2_900)..at(3_000)),
        ];
        let after = FileState {
            bytes: Content::spliced(&base, parts),
            mode: MODE_FILE,
        };
        let new = after.bytes.to_vec();
        let before = FileState {
            bytes: base,
            mode: MODE_FILE,
        };
        let shown = file_diff("f", "f", Some(&before), Some(&after), None);
        let changed = shown.hunks.iter().flat_map(|h| &h.lines);
        assert_eq!(changed.filter(|l| l.kind != LineKind::Context).count(), 4);
        let whole = whole_file_hunks(old.as_bytes(), &new, 0, None, old.as_bytes());
        assert_eq!((shown.hunks, shown.omitted), whole);
    }

    /// Cut at any limit, the lines shown and the lines counted as left out add up to the
    /// whole diff's, the `\ No newline at end of file` markers among them, whether a marker
    /// falls before the cut, after it, or in a hunk left out whole.
    #[test]
    fn shown_and_omitted_lines_add_up_to_the_whole_diff_with_its_markers() {
        let cases: [(&str, &str); 4] = [
            ("a\nb\nc", "x\ny\nz"),
            ("a\nb\nc\n", "a\nb\nc"),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nend",
                "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nEND",
            ),
            ("same\nlast", "same\nlast\nmore"),
        ];
        for (old, new) in cases {
            let whole = diffs(&[change("f", state(old), state(new))], &[], None);
            let every: usize = whole[0].hunks.iter().map(|h| h.lines.len()).sum();
            assert!(whole[0].omitted.is_none());
            for limit in 1..=every {
                let cut = diffs(&[change("f", state(old), state(new))], &[], Some(limit));
                let shown: usize = cut[0].hunks.iter().map(|h| h.lines.len()).sum();
                let left = cut[0].omitted.map_or(0, |o| o.lines);
                assert_eq!(shown + left, every, "{old:?} -> {new:?} cut at {limit}");
            }
        }
    }

    /// `old` with the diff's hunks applied, each line checked against `old` on the way (the
    /// lines here all end with a newline).
    fn replay(old: &[u8], hunks: &[DiffHunk]) -> Vec<u8> {
        let old: Vec<&[u8]> = old.split_inclusive(|&c| c == b'\n').collect();
        let mut out = Vec::new();
        let mut at = 0;
        for h in hunks {
            let start: usize = h.header[4..]
                .split([',', ' '])
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let start = if h.lines.iter().any(|l| l.kind != LineKind::Added) {
                start - 1
            } else {
                start
            };
            assert!(start >= at, "hunks out of order");
            old[at..start].iter().for_each(|l| out.extend_from_slice(l));
            at = start;
            for l in &h.lines {
                let text = format!("{}\n", &l.text[1..]);
                match l.kind {
                    LineKind::Context | LineKind::Removed => {
                        assert_eq!(old[at], text.as_bytes(), "line {} of the old file", at + 1);
                        at += 1;
                        if l.kind == LineKind::Context {
                            out.extend_from_slice(text.as_bytes());
                        }
                    }
                    LineKind::Added => out.extend_from_slice(text.as_bytes()),
                    LineKind::NoNewline => unreachable!("every line ends with a newline"),
                }
            }
        }
        old[at..].iter().for_each(|l| out.extend_from_slice(l));
        out
    }

    proptest::proptest! {
        /// Pieces of the old file are diffed over the stretch between the pieces both share;
        /// the result is the diff of the whole files, line numbers and context included.
        #[test]
        fn a_diff_of_pieces_is_the_diff_of_the_whole_files(
            n in 0usize..40,
            no_final_newline: bool,
            edits in proptest::collection::vec((0usize..40, 0usize..4, 0usize..3), 0..4),
            limit in proptest::option::of(1usize..12),
            alphabet in 1usize..8,
            shift in 0usize..8,
        ) {
            use crate::repo::{Content, Part};
            let mut old = Vec::new();
            let mut starts = Vec::new();
            for i in 0..n {
                starts.push(old.len());
                old.extend_from_slice(format!("line {}\n", i % alphabet).as_bytes());
            }
            if no_final_newline && !old.is_empty() {
                old.pop();
            }
            starts.push(old.len());
            let base = Content::new(old.clone());
            // Edits at increasing line numbers: `del` lines replaced by `add` new ones.
            let mut parts = Vec::new();
            let mut at = 0usize;
            let mut edits = edits;
            edits.sort();
            for (line, del, add) in edits {
                let line = line.min(n).max(at);
                let end = (line + del).min(n);
                parts.push(Part::Base(starts[at]..starts[line]));
                let mut own = Vec::new();
                for j in 0..add {
                    own.extend_from_slice(format!("line {}\n", (j + shift) % alphabet).as_bytes());
                }
                parts.push(Part::Own(own));
                at = end;
            }
            parts.push(Part::Base(starts[at]..starts[n]));
            let pieces = Content::spliced(&base, parts);
            let joined = Content::new(pieces.to_vec());
            let before = FileState { bytes: base, mode: MODE_FILE };
            let a = FileState { bytes: pieces, mode: MODE_FILE };
            let b = FileState { bytes: joined, mode: MODE_FILE };
            let shown = file_diff("f", "f", Some(&before), Some(&a), limit);
            proptest::prop_assert_eq!(&shown, &file_diff("f", "f", Some(&before), Some(&b), limit));
            if old != b.bytes.to_vec() {
                let whole = whole_file_hunks(&old, &b.bytes, 0, limit, &old);
                proptest::prop_assert_eq!((shown.hunks, shown.omitted), whole);
            }
        }

        /// Big files with edits close together among repeated lines, spliced as a plan
        /// splices them: the diff goes through the runs the splice kept. It replays the old
        /// file into the new one, shows no more removed or added lines than the edits made,
        /// and cut at a limit it is the first lines of the whole diff.
        #[test]
        fn a_big_spliced_file_diffs_through_the_runs_it_kept(
            seed in 0u64..1_000,
            edits in proptest::collection::vec((0usize..3_000, 0usize..4, 0usize..6), 1..40),
            limit in 1usize..400,
        ) {
            use crate::repo::{Content, Part};
            let mut old = Vec::new();
            let mut starts = Vec::new();
            for i in 0..3_000u64 {
                starts.push(old.len());
                let line = match (i * 7 + seed) % 11 {
                    0 => "\n".to_string(),
                    1 => "}\n".to_string(),
                    _ => format!("fn line_{}() {{}}\n", (i * 31 + seed) % 2_000),
                };
                old.extend_from_slice(line.as_bytes());
            }
            starts.push(old.len());
            let base = Content::new(old.clone());
            let mut parts = Vec::new();
            let mut at = 0usize;
            let mut edits = edits;
            edits.sort();
            let (mut deleted, mut added) = (0, 0);
            for (line, del, add) in edits {
                let line = line.max(at);
                let end = (line + del).min(3_000);
                parts.push(Part::Base(starts[at]..starts[line]));
                let own: String = (0..add).map(|k| if k % 3 == 2 { "}\n".to_string() } else { format!("new {line} {k}\n") }).collect();
                parts.push(Part::Own(own.into_bytes()));
                (deleted, added) = (deleted + end - line, added + add);
                at = end;
            }
            parts.push(Part::Base(starts[at]..starts[3_000]));
            let after = FileState { bytes: Content::spliced(&base, parts), mode: MODE_FILE };
            let before = FileState { bytes: base, mode: MODE_FILE };
            let all = file_diff("f", "f", Some(&before), Some(&after), None);
            let new = after.bytes.to_vec();
            proptest::prop_assert_eq!(replay(&old, &all.hunks), new);
            let count = |kind| all.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.kind == kind).count();
            proptest::prop_assert!(count(LineKind::Removed) <= deleted);
            proptest::prop_assert!(count(LineKind::Added) <= added);
            let cut = file_diff("f", "f", Some(&before), Some(&after), Some(limit));
            let lines = |d: &FileDiff| -> Vec<DiffLine> { d.hunks.iter().flat_map(|h| h.lines.clone()).collect() };
            let (every, first) = (lines(&all), lines(&cut));
            proptest::prop_assert_eq!(&every[..first.len()], &first[..]);
            let left = cut.omitted.map_or(0, |o| o.lines);
            proptest::prop_assert_eq!(first.len() + left, every.len());
        }
    }
}

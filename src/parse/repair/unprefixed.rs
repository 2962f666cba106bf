//! Context lines that lost their leading space: some models write every context line of a
//! hunk exactly as the file has it, without the ` ` prefix.
//!
//! A line that starts with none of ` `, `-`, `+` is read as context only when the file the
//! hunk is about has that very line (trailing whitespace aside); anything else ends the
//! hunk, as before. Once a hunk shows the pattern, its lines that start with a space or a
//! `-` are ambiguous: a context (or removed) line written with its prefix, or an indented
//! line (a `- item` of a list) written without one. The reading under which the hunk's old side occurs in the file decides, and when
//! the file has moved on, each line is read the way the file has it.

use crate::patch::kinds::NoticeKind;
use std::collections::{HashMap, HashSet};

use crate::patch::{Line, LineKind};

/// The notice kind of this repair.
pub const NOTICE: NoticeKind = NoticeKind::ContextPrefixRepaired;

/// The lines of the file a hunk is about, without their trailing whitespace.
pub struct FileLines {
    lines: Vec<String>,
    set: HashSet<String>,
    /// Where each line occurs, for finding a run of lines.
    at: HashMap<String, Vec<usize>>,
}

impl FileLines {
    /// The lines of a file's bytes, trailing whitespace trimmed, indexed for lookup.
    pub fn new(bytes: &[u8]) -> FileLines {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        let set = lines.iter().cloned().collect();
        let mut at: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, l) in lines.iter().enumerate() {
            at.entry(l.clone()).or_default().push(i);
        }
        FileLines { lines, set, at }
    }

    /// Whether the file has `line` as one of its lines. A blank line says nothing.
    pub fn has(&self, line: &str) -> bool {
        let t = line.trim_end();
        !t.trim().is_empty() && self.set.contains(t)
    }

    /// Whether `run` occurs as consecutive lines of the file.
    pub fn has_run(&self, run: &[&str]) -> bool {
        let Some(first) = run.first() else {
            return true;
        };
        let Some(starts) = self.at.get(first.trim_end()) else {
            return false;
        };
        starts.iter().any(|&s| {
            s + run.len() <= self.lines.len()
                && run
                    .iter()
                    .zip(&self.lines[s..])
                    .all(|(r, l)| r.trim_end() == l)
        })
    }
}

/// One line of a hunk's old side, as the reader saw it.
pub enum OldLine<'t> {
    /// A line whose text is settled (removed lines, unprefixed or blank context).
    Fixed(&'t str),
    /// A context line as written, starting with its space.
    Spaced(&'t str),
}

/// For each `Spaced` line of `old`, in order: true when it is the file's line as written
/// (its space is indentation), false when its first space is the context prefix.
pub fn read_spaced(file: &FileLines, old: &[OldLine<'_>]) -> Vec<bool> {
    let spaced: Vec<&str> = old
        .iter()
        .filter_map(|o| match o {
            OldLine::Spaced(raw) => Some(*raw),
            OldLine::Fixed(_) => None,
        })
        .collect();
    if spaced.is_empty() {
        return Vec::new();
    }
    let reading = |whole: bool| -> Vec<&str> {
        old.iter()
            .map(|o| match o {
                OldLine::Fixed(t) => *t,
                OldLine::Spaced(raw) if whole => raw,
                OldLine::Spaced(raw) => &raw[1..],
            })
            .collect()
    };
    if file.has_run(&reading(false)) {
        return vec![false; spaced.len()];
    }
    if file.has_run(&reading(true)) {
        return vec![true; spaced.len()];
    }
    spaced
        .iter()
        .map(|raw| !file.has(&raw[1..]) && file.has(raw))
        .collect()
}

/// Settle a hunk's prefixed lines (`spaced`, indices into `lines` of context lines written
/// with a space and of removed lines, whose text has lost that first character) once the
/// hunk has unprefixed context lines: each read as written gets its character back and is
/// context (an indented line; a `- item` line of a list). How many were.
pub fn settle(
    lines: &mut [&mut Line],
    unprefixed: &[usize],
    spaced: &[usize],
    file: &FileLines,
) -> usize {
    let spaced: Vec<usize> = spaced
        .iter()
        .copied()
        .filter(|&i| i < lines.len())
        .collect();
    if unprefixed.is_empty() || spaced.is_empty() {
        return 0;
    }
    let prefix = |l: &Line| if l.kind == LineKind::Remove { '-' } else { ' ' };
    let raw: Vec<String> = spaced
        .iter()
        .map(|&i| format!("{}{}", prefix(lines[i]), lines[i].text))
        .collect();
    let mut next = 0;
    let old: Vec<OldLine<'_>> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind != LineKind::Add)
        .map(|(i, l)| {
            if spaced.get(next) == Some(&i) {
                next += 1;
                OldLine::Spaced(&raw[next - 1])
            } else {
                OldLine::Fixed(&l.text)
            }
        })
        .collect();
    let whole = read_spaced(file, &old);
    let mut count = 0;
    for ((&i, raw), whole) in spaced.iter().zip(&raw).zip(whole) {
        if whole {
            lines[i].text = raw.as_str().into();
            lines[i].kind = LineKind::Context;
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "fn a() {\n    one();\n     two();\n}\n";

    #[test]
    fn a_line_is_the_files_only_when_it_is_one_of_its_lines() {
        let f = FileLines::new(FILE.as_bytes());
        assert!(f.has("fn a() {"));
        assert!(f.has("fn a() {  "), "trailing whitespace aside");
        assert!(!f.has("fn b() {"));
        assert!(!f.has(""), "a blank line says nothing");
    }

    #[test]
    fn the_reading_under_which_the_old_side_occurs_decides() {
        let f = FileLines::new(FILE.as_bytes());
        // Written without prefixes: `    one();` is the file's line as it stands.
        let old = [
            OldLine::Fixed("fn a() {"),
            OldLine::Spaced("    one();"),
            OldLine::Spaced("     two();"),
        ];
        assert_eq!(read_spaced(&f, &old), vec![true, true]);
        // With the prefix: ` ` + `    one();` reads as the file's line.
        let old = [
            OldLine::Fixed("fn a() {"),
            OldLine::Spaced("     one();"),
            OldLine::Spaced("      two();"),
        ];
        assert_eq!(read_spaced(&f, &old), vec![false, false]);
    }

    #[test]
    fn when_the_file_moved_on_each_line_is_read_as_the_file_has_it() {
        let f = FileLines::new(FILE.as_bytes());
        let old = [
            OldLine::Fixed("gone"),
            OldLine::Spaced("    one();"),
            OldLine::Spaced("      two();"),
        ];
        assert_eq!(read_spaced(&f, &old), vec![true, false]);
    }
}

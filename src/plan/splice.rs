//! Bytes out: placed hunks spliced into a file, keeping its line endings, BOM, final-newline
//! state and (after a whitespace-insensitive match) its indentation style.

use super::locate::Placement;
use super::normalize::indentation;
use super::text::{Eol, TextFile};
use crate::patch::{Hunk, Line, LineKind};

/// Apply placed hunks (any order; regions must not overlap) to `file`. With `patch_eols`,
/// added lines keep the ending the patch gave them; otherwise they take the file's own.
pub fn splice(file: &TextFile, placed: &[(&Hunk, &Placement)], patch_eols: bool) -> TextFile {
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&i| (placed[i].1.start, placed[i].1.end, i));
    let eol = file.dominant_eol();
    let mut lines: Vec<String> = Vec::with_capacity(file.len() + 16);
    let mut eols: Vec<Eol> = Vec::with_capacity(file.len() + 16);
    let mut cursor = 0usize;
    let mut touches_end: Option<&Hunk> = None;
    for &i in &order {
        let (hunk, p) = placed[i];
        while cursor < p.start {
            lines.push(file.lines[cursor].clone());
            eols.push(file.eols[cursor]);
            cursor += 1;
        }
        let indent = IndentMap::learn(hunk, p, file);
        let groups = add_groups(hunk);
        let removed: Vec<usize> = hunk
            .old_lines()
            .zip(&p.mapping)
            .filter(|(l, _)| l.kind == LineKind::Remove)
            .filter_map(|(_, m)| *m)
            .collect();
        let emit_groups_at = |pos: usize, lines: &mut Vec<String>, eols: &mut Vec<Eol>| {
            for (g, &at) in groups.iter().zip(&p.inserts) {
                if at == pos {
                    for l in g {
                        lines.push(indent.apply(&l.text));
                        eols.push(match (patch_eols, l.crlf) {
                            (false, _) => eol,
                            (true, true) => Eol::Crlf,
                            (true, false) => Eol::Lf,
                        });
                    }
                }
            }
        };
        for pos in p.start..p.end {
            emit_groups_at(pos, &mut lines, &mut eols);
            if !removed.contains(&pos) {
                lines.push(file.lines[pos].clone());
                eols.push(file.eols[pos]);
            }
        }
        emit_groups_at(p.end, &mut lines, &mut eols);
        cursor = p.end;
        if p.end == file.len() {
            touches_end = Some(hunk);
        }
    }
    while cursor < file.len() {
        lines.push(file.lines[cursor].clone());
        eols.push(file.eols[cursor]);
        cursor += 1;
    }
    // Line endings: only the last line may lack one, and whether it does is the file's
    // choice unless a hunk at the end of the file says otherwise.
    let final_newline = match touches_end {
        Some(h) if h.new_no_newline => false,
        Some(h) if h.old_no_newline => true,
        _ => file.ends_with_newline(),
    };
    let n = eols.len();
    for (i, e) in eols.iter_mut().enumerate() {
        if i + 1 < n {
            if *e == Eol::None {
                *e = eol;
            }
        } else if !final_newline {
            *e = Eol::None;
        } else if *e == Eol::None {
            *e = eol;
        }
    }
    TextFile {
        bom: file.bom,
        lines,
        eols,
    }
}

/// The added lines of a hunk, one vector per run.
fn add_groups(hunk: &Hunk) -> Vec<Vec<&Line>> {
    let mut groups: Vec<Vec<&Line>> = Vec::new();
    let mut in_group = false;
    for l in &hunk.lines {
        if l.kind == LineKind::Add {
            if !in_group {
                groups.push(Vec::new());
                in_group = true;
            }
            groups.last_mut().expect("a group was just pushed").push(l);
        } else {
            in_group = false;
        }
    }
    groups
}

/// How the file's indentation differs from the patch's, learnt from the lines that matched.
#[derive(Debug, PartialEq, Eq)]
enum IndentMap {
    Same,
    /// The file has `prefix` more in front of every line.
    AddPrefix(String),
    /// The file has `n` characters fewer (the patch's extra prefix is dropped).
    StripPrefix(String),
    /// The patch indents with spaces, the file with one tab per `width` spaces.
    SpacesToTabs(usize),
    /// The patch indents with tabs, the file with `width` spaces per tab.
    TabsToSpaces(usize),
}

impl IndentMap {
    fn learn(hunk: &Hunk, p: &Placement, file: &TextFile) -> IndentMap {
        if !p.pass.ignores_indentation() {
            return IndentMap::Same;
        }
        let pairs: Vec<(&str, &str)> = hunk
            .old_lines()
            .zip(&p.mapping)
            .filter_map(|(l, m)| m.map(|f| (l.text.as_str(), file.lines[f].as_str())))
            .filter(|(a, b)| !a.trim().is_empty() && !b.trim().is_empty())
            .map(|(a, b)| (indentation(a), indentation(b)))
            .collect();
        if pairs.iter().all(|(a, b)| a == b) {
            return IndentMap::Same;
        }
        // A common prefix added or removed.
        let add: Option<&str> = pairs
            .iter()
            .map(|(pa, fi)| fi.strip_suffix(pa))
            .try_fold(None::<&str>, |acc, x| match (acc, x) {
                (_, None) => Err(()),
                (None, Some(x)) => Ok(Some(x)),
                (Some(a), Some(x)) if a == x => Ok(Some(a)),
                _ => Err(()),
            })
            .ok()
            .flatten();
        if let Some(x) = add {
            if !x.is_empty() {
                return IndentMap::AddPrefix(x.to_string());
            }
        }
        let strip: Option<&str> = pairs
            .iter()
            .map(|(pa, fi)| pa.strip_suffix(fi))
            .try_fold(None::<&str>, |acc, x| match (acc, x) {
                (_, None) => Err(()),
                (None, Some(x)) => Ok(Some(x)),
                (Some(a), Some(x)) if a == x => Ok(Some(a)),
                _ => Err(()),
            })
            .ok()
            .flatten();
        if let Some(x) = strip {
            if !x.is_empty() {
                return IndentMap::StripPrefix(x.to_string());
            }
        }
        // Tabs against spaces, with one consistent width.
        let width = |spaces_side: bool| -> Option<usize> {
            let mut w = None;
            for (pa, fi) in &pairs {
                let (sp, tb) = if spaces_side { (pa, fi) } else { (fi, pa) };
                if !sp.chars().all(|c| c == ' ') || !tb.chars().all(|c| c == '\t') {
                    return None;
                }
                if tb.is_empty() {
                    if !sp.is_empty() {
                        return None;
                    }
                    continue;
                }
                if sp.len() % tb.len() != 0 {
                    return None;
                }
                let this = sp.len() / tb.len();
                match w {
                    None => w = Some(this),
                    Some(x) if x == this => {}
                    _ => return None,
                }
            }
            w.filter(|&w| w > 0)
        };
        if let Some(w) = width(true) {
            return IndentMap::SpacesToTabs(w);
        }
        if let Some(w) = width(false) {
            return IndentMap::TabsToSpaces(w);
        }
        IndentMap::Same
    }

    fn apply(&self, line: &str) -> String {
        if line.trim().is_empty() {
            return line.to_string();
        }
        let ind = indentation(line);
        let rest = &line[ind.len()..];
        match self {
            IndentMap::Same => line.to_string(),
            IndentMap::AddPrefix(x) => format!("{x}{line}"),
            IndentMap::StripPrefix(x) => line.strip_prefix(x.as_str()).unwrap_or(line).to_string(),
            IndentMap::SpacesToTabs(w) => {
                let lead = ind.chars().take_while(|c| *c == ' ').count();
                let tail = &ind[lead..];
                format!(
                    "{}{}{}{}",
                    "\t".repeat(lead / w),
                    " ".repeat(lead % w),
                    tail,
                    rest
                )
            }
            IndentMap::TabsToSpaces(w) => {
                let lead = ind.chars().take_while(|c| *c == '\t').count();
                let tail = &ind[lead..];
                format!("{}{}{}", " ".repeat(lead * w), tail, rest)
            }
        }
    }
}

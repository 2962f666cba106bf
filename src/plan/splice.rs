//! Bytes out: placed hunks spliced into a file, keeping its line endings, BOM, final-newline
//! state and (after a whitespace-insensitive match) its indentation style.

use std::borrow::Cow;

use super::locate::Placement;
use super::normalize::indentation;
use super::text::{Eol, Line as TextLine, TextFile};
use crate::patch::{Hunk, Line, LineKind};

/// Apply placed hunks (any order; regions must not overlap) to `file`. With `patch_eols`,
/// added lines keep the ending the patch gave them; otherwise they take the file's own.
pub fn splice<'a>(
    file: &TextFile<'a>,
    placed: &[(&Hunk, &Placement)],
    patch_eols: bool,
) -> TextFile<'a> {
    let mut lines: Vec<TextLine<'a>> = Vec::with_capacity(file.len() + 16);
    let mut eols: Vec<Eol> = Vec::with_capacity(file.len() + 16);
    let ends = walk(file, placed, patch_eols, |line, e| {
        lines.push(line);
        eols.push(e);
    });
    // Only the last line may lack an ending, and it lacks one as `ends` says.
    let n = eols.len();
    for (i, e) in eols.iter_mut().enumerate() {
        if i + 1 < n {
            if *e == Eol::None {
                *e = ends.eol;
            }
        } else if !ends.final_newline {
            *e = Eol::None;
        } else if *e == Eol::None {
            *e = ends.eol;
        }
    }
    TextFile {
        bom: file.bom,
        lines,
        eols,
    }
}

/// [`splice`] straight to the file's bytes, written as the lines come: no vector of the
/// spliced lines, and the lines kept are copied once.
pub fn splice_to_bytes(
    file: &TextFile,
    placed: &[(&Hunk, &Placement)],
    patch_eols: bool,
) -> Vec<u8> {
    let added: usize = placed
        .iter()
        .flat_map(|(h, _)| &h.lines)
        .filter(|l| l.kind == LineKind::Add)
        .map(|l| l.text.len() + 2)
        .sum();
    let kept: usize = file.lines.iter().map(|l| l.len() + 2).sum();
    let mut out = String::with_capacity(kept + added + 3);
    if file.bom {
        out.push('\u{feff}');
    }
    // The ending of the line last written, when it was left off: written once a line
    // follows, as the file's.
    let mut open = false;
    let mut last_eol_len = 0usize;
    let dominant = file.dominant_eol();
    let ends = walk(file, placed, patch_eols, |line, e| {
        if open {
            out.push_str(dominant.as_str());
        }
        out.push_str(&line);
        open = e == Eol::None;
        out.push_str(e.as_str());
        last_eol_len = e.as_str().len();
    });
    if !ends.final_newline {
        out.truncate(out.len() - last_eol_len);
    } else if open {
        out.push_str(ends.eol.as_str());
    }
    match crate::bytes::encode(&out) {
        Cow::Borrowed(_) => out.into_bytes(),
        Cow::Owned(b) => b,
    }
}

/// How a spliced file ends: whether its last line has a newline, and the ending new lines
/// (and a line that stops being the last) take.
struct Ends {
    final_newline: bool,
    eol: Eol,
}

/// Walk the spliced file's lines in order, giving each (the lines kept borrow what
/// `file`'s lines borrow) with the ending it has in `file` or the patch; the caller settles
/// the last line's ending by the returned [`Ends`].
fn walk<'a>(
    file: &TextFile<'a>,
    placed: &[(&Hunk, &Placement)],
    patch_eols: bool,
    mut emit: impl FnMut(TextLine<'a>, Eol),
) -> Ends {
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&i| (placed[i].1.start, placed[i].1.end, i));
    let eol = file.dominant_eol();
    let mut cursor = 0usize;
    let mut touches_end: Option<&Hunk> = None;
    for &i in &order {
        let (hunk, p) = placed[i];
        while cursor < p.start {
            emit(file.lines[cursor].clone(), file.eols[cursor]);
            cursor += 1;
        }
        let indent = IndentMap::learn(hunk, p, file).unwrap_or(IndentMap::Same);
        let groups = add_groups(hunk);
        let group_maps = indent.per_group(hunk, p, file);
        // Per line of the placed region: whether the hunk removes it.
        let mut removed = vec![false; p.end - p.start];
        for (_, m) in hunk
            .old_lines()
            .zip(&p.mapping)
            .filter(|(l, _)| l.kind == LineKind::Remove)
        {
            if let Some(r) = m.and_then(|m| m.checked_sub(p.start)) {
                if let Some(slot) = removed.get_mut(r) {
                    *slot = true;
                }
            }
        }
        let emit_groups_at = |pos: usize, emit: &mut dyn FnMut(TextLine<'a>, Eol)| {
            for ((g, &at), map) in groups.iter().zip(&p.inserts).zip(&group_maps) {
                if at == pos {
                    for l in g {
                        let e = match (patch_eols, l.crlf) {
                            (false, _) => eol,
                            (true, true) => Eol::Crlf,
                            (true, false) => Eol::Lf,
                        };
                        emit(Cow::Owned(map.apply(&l.text)), e);
                    }
                }
            }
        };
        for pos in p.start..p.end {
            emit_groups_at(pos, &mut emit);
            if !removed[pos - p.start] {
                emit(file.lines[pos].clone(), file.eols[pos]);
            }
        }
        emit_groups_at(p.end, &mut emit);
        cursor = p.end;
        if p.end == file.len() {
            touches_end = Some(hunk);
        }
    }
    while cursor < file.len() {
        emit(file.lines[cursor].clone(), file.eols[cursor]);
        cursor += 1;
    }
    // Whether the file ends with a newline is the file's choice unless a hunk at its end
    // says otherwise. Only a change of the marker between the sides changes it: a marker on
    // a context line (both sides) says the file already ends that way, not that it must.
    let final_newline = match touches_end {
        Some(h) if h.new_no_newline && !h.old_no_newline => false,
        Some(h) if h.old_no_newline && !h.new_no_newline => true,
        _ => file.ends_with_newline(),
    };
    Ends { final_newline, eol }
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

/// How the file's indentation differs from the patch's, learnt from the lines that matched
/// after an indentation-blind pass: a constant shift in columns (a SEARCH written with less
/// indentation than the file has) and the file's indentation character (tabs or spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndentMap {
    Same,
    Columns {
        /// Columns the file has more (or fewer) than the patch.
        offset: isize,
        tab_width: usize,
        /// The file indents with tabs (else with spaces).
        tabs: bool,
    },
}

/// Indentation width in columns, tabs advancing to the next multiple of `w`.
fn columns(ind: &str, w: usize) -> usize {
    ind.chars()
        .fold(0, |c, ch| if ch == '\t' { (c / w + 1) * w } else { c + 1 })
}

impl IndentMap {
    /// `Err` when the matched lines disagree on how the indentation differs: then nobody can
    /// say how to indent the added lines, and guessing could change what code means.
    pub fn learn(hunk: &Hunk, p: &Placement, file: &TextFile) -> Result<IndentMap, String> {
        if !p.pass.ignores_indentation() {
            return Ok(IndentMap::Same);
        }
        let pairs: Vec<(&str, &str, bool)> = hunk
            .old_lines()
            .zip(&p.mapping)
            .filter_map(|(l, m)| {
                m.map(|f| {
                    (
                        l.text.as_str(),
                        &*file.lines[f],
                        l.kind == LineKind::Context,
                    )
                })
            })
            .filter(|(a, b, _)| !a.trim().is_empty() && !b.trim().is_empty())
            .map(|(a, b, ctx)| (indentation(a), indentation(b), ctx))
            .collect();
        // Lines unindented on both sides say nothing about the indentation style (they must
        // not out-vote the indented lines' tabs or spaces), but they do say that a line at
        // column 0 stays there: they count against a shift.
        let at_zero = pairs
            .iter()
            .filter(|(a, b, _)| a.is_empty() && b.is_empty())
            .count();
        let pairs: Vec<(&str, &str, bool)> = pairs
            .into_iter()
            .filter(|(a, b, _)| !(a.is_empty() && b.is_empty()))
            .collect();
        // Mostly identical: the few that differ are context the patch (or a drifted file)
        // indents differently, not a different indentation scheme.
        let same = pairs.iter().filter(|(a, b, _)| a == b).count();
        if pairs.is_empty() || same * 3 >= pairs.len() * 2 {
            return Ok(IndentMap::Same);
        }
        let file_tabs = pairs.iter().filter(|(_, f, _)| f.starts_with('\t')).count();
        let file_spaces = pairs.iter().filter(|(_, f, _)| f.starts_with(' ')).count();
        let tabs = file_tabs > 0 && file_tabs >= file_spaces;
        // Every tab width under which the difference is one shift; a shift of zero (only the
        // indentation character differs) is preferred over any other. A context line or two
        // indented apart from a clear majority (at least two thirds, two lines or more) is
        // damage to that line, kept as the file has it; a removed line must agree.
        let total = pairs.len() + at_zero;
        let fits: Vec<(usize, isize)> = [4usize, 8, 2, 3]
            .into_iter()
            .filter_map(|w| {
                let offsets: Vec<(isize, bool)> = pairs
                    .iter()
                    .map(|(pa, fi, ctx)| (columns(fi, w) as isize - columns(pa, w) as isize, *ctx))
                    .chain(std::iter::repeat_n((0, true), at_zero))
                    .collect();
                let first = offsets[0].0;
                if offsets.iter().all(|(o, _)| *o == first) {
                    return Some((w, first));
                }
                let mut candidates: Vec<isize> = offsets.iter().map(|(o, _)| *o).collect();
                candidates.sort_unstable();
                candidates.dedup();
                candidates.into_iter().find_map(|o| {
                    let agree = offsets.iter().filter(|(x, _)| *x == o).count();
                    let dissent_removed = offsets.iter().any(|(x, ctx)| *x != o && !ctx);
                    (agree >= 2 && agree * 3 >= total * 2 && !dissent_removed).then_some((w, o))
                })
            })
            .collect();
        if let Some(&(tab_width, offset)) = fits.iter().find(|(_, o)| *o == 0).or(fits.first()) {
            // A shift that only one context line shows is as likely damage to that line as a
            // different indentation of the whole hunk: the added lines' depth is unknowable.
            let removed_tell = pairs.iter().any(|(_, _, ctx)| !ctx);
            if offset != 0 && pairs.len() < 2 && !removed_tell {
                return Err(
                    "only one context line shows how the patch's indentation differs from the \
                     file's, so the added lines' indentation is uncertain"
                        .into(),
                );
            }
            return Ok(IndentMap::Columns {
                offset,
                tab_width,
                tabs,
            });
        }
        Err(
            "the patch's indentation differs from the file's inconsistently, so the added lines \
             cannot be indented the file's way"
                .into(),
        )
    }

    /// The map for each run of added lines: the file's style, with the shift its nearest
    /// indented neighbour shows (the lines it replaces, else the context above it, else
    /// below). One shift for the whole hunk would move a line that replaces an unindented
    /// line by what some comment block's alignment happened to differ by.
    fn per_group(&self, hunk: &Hunk, p: &Placement, file: &TextFile) -> Vec<IndentMap> {
        let IndentMap::Columns {
            tab_width: w,
            tabs,
            offset: learnt,
        } = *self
        else {
            return add_groups(hunk).iter().map(|_| IndentMap::Same).collect();
        };
        // Old-side lines in hunk order with their shift, where it can be seen.
        let mut shift_at: Vec<Option<isize>> = Vec::new();
        let mut oi = 0;
        let mut group_pos: Vec<usize> = Vec::new(); // old-line index each group precedes
        let mut in_group = false;
        for l in &hunk.lines {
            if l.kind == LineKind::Add {
                if !in_group {
                    group_pos.push(oi);
                    in_group = true;
                }
                continue;
            }
            in_group = false;
            let shift = p.mapping.get(oi).copied().flatten().and_then(|f| {
                let fl = &file.lines[f];
                let (pi, fi) = (indentation(&l.text), indentation(fl));
                // Unindented on both sides, a line says nothing about the shift.
                let blank = l.text.trim().is_empty() || fl.trim().is_empty();
                let unindented = pi.is_empty() && fi.is_empty();
                let telling = !blank && !unindented;
                telling.then(|| columns(fi, w) as isize - columns(pi, w) as isize)
            });
            // A line indented apart from the majority that `learn` saw is damage to that
            // line: it tells nothing about its neighbours.
            let shift = shift.filter(|&s| s == learnt || l.kind == LineKind::Remove);
            shift_at.push(shift);
            oi += 1;
        }
        group_pos
            .into_iter()
            .map(|at| {
                let before = shift_at[..at].iter().rev().flatten().next();
                let after = shift_at[at..].iter().flatten().next();
                let offset = before.or(after).copied().unwrap_or(learnt);
                IndentMap::Columns {
                    offset,
                    tab_width: w,
                    tabs,
                }
            })
            .collect()
    }

    fn apply(&self, line: &str) -> String {
        let IndentMap::Columns {
            offset,
            tab_width: w,
            tabs,
        } = *self
        else {
            return line.to_string();
        };
        if line.trim().is_empty() {
            return line.to_string();
        }
        let ind = indentation(line);
        let rest = &line[ind.len()..];
        let in_file_style = if tabs {
            !ind.starts_with(' ') || columns(ind, w) < w
        } else {
            !ind.contains('\t')
        };
        if offset == 0 && in_file_style {
            // Already written the file's way: keep its exact bytes (tabs for indentation,
            // spaces for alignment and the like).
            return line.to_string();
        }
        let cols = (columns(ind, w) as isize + offset).max(0) as usize;
        let lead = if tabs {
            format!("{}{}", "\t".repeat(cols / w), " ".repeat(cols % w))
        } else {
            " ".repeat(cols)
        };
        format!("{lead}{rest}")
    }
}

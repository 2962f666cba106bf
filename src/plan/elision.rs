//! Hunks with elision lines (`...`, `// ... existing code ...`): placed as their parts around
//! the lines they stand for.

use super::diagnose::{Warning, WarningKind};
use super::locate::{self, DecidedBy, Haystack, Located, Placement, Query};
use super::modify::Hint;
use crate::patch::{FilePatch, Hunk, LineKind};
use crate::text::file::TextFile;
use crate::text::normalize::Pass;

/// Per hunk, what the elision rules placed: the parts of a hunk with elision lines, and a
/// SEARCH block rebuilt with the lines its elisions stood for.
pub(super) type ElisionPlacements = (
    Vec<Option<Vec<(Hunk, Placement)>>>,
    Vec<Option<(Hunk, Placement, Vec<usize>)>>,
);

/// A hunk that fits nowhere as written, with a line standing for unchanged text (`...`,
/// `// ... existing code ...`): its parts around that line are placed one after another,
/// each in one place only, and the lines between them are left alone.
pub(super) fn place_elided(
    fp: &FilePatch,
    text: &TextFile,
    located: &mut [Located],
    hints: &[Hint],
    repeats: &[Option<usize>],
    warnings: &mut Vec<Warning>,
) -> ElisionPlacements {
    let mut elided: Vec<Option<Vec<(Hunk, Placement)>>> = vec![None; fp.hunks.len()];
    let mut rebuilt_hunks: Vec<Option<(Hunk, Placement, Vec<usize>)>> = vec![None; fp.hunks.len()];
    let mut taken: Vec<(usize, usize)> = located
        .iter()
        .filter_map(|l| match l {
            Located::Placed(p) => Some((p.start, p.end)),
            _ => None,
        })
        .collect();
    // One index of the file for every elided hunk: the text does not change here.
    let hay = Haystack::new(&text.lines);
    for (i, h) in fp.hunks.iter().enumerate() {
        let unplaced = matches!(located[i], Located::NotFound { .. });
        if unplaced && repeats[i].is_none() && has_search_elision(h) {
            match place_search_elided(h, &hay, hints[i].searched, &taken) {
                Ok((rebuilt, pl, filled)) => {
                    warnings.push(Warning::new(
                        WarningKind::Elision,
                        Some(i + 1),
                        format!(
                            "hunk {}: the '...' in its SEARCH text stood for {} line(s) of \
                             the file, replaced by the REPLACE text as written",
                            i + 1,
                            filled.iter().sum::<usize>()
                        ),
                    ));
                    located[i] = Located::Placed(pl.clone());
                    taken.push((pl.start, pl.end));
                    rebuilt_hunks[i] = Some((rebuilt, pl, filled));
                }
                Err(why) => {
                    located[i] = Located::NotFound {
                        reason: Some(why.to_string()),
                    }
                }
            }
            continue;
        }
        if !unplaced || repeats[i].is_some() || !has_elision(h) {
            continue;
        }
        // Its parts: the first placed by the hunk's own rules, each next one after the one
        // before, where it must fit in one place only. No part may be placed loosely than
        // a line pass, already be there, or overlap another hunk.
        match place_in_order(elision_pieces(h), &hay, hints[i].searched, &taken)
            .and_then(|pieces| elision_not_in_gap(h, text, pieces))
        {
            Ok(pieces) => {
                let (first, last) = (&pieces[0].1, &pieces[pieces.len() - 1].1);
                warnings.push(Warning::new(
                    WarningKind::Elision,
                    Some(i + 1),
                    format!(
                        "hunk {}: its elision line(s) stood for unchanged text; its parts \
                         were placed at lines {} to {}, and the lines between them kept",
                        i + 1,
                        first.start + 1,
                        last.end
                    ),
                ));
                located[i] = Located::Placed(first.clone());
                // Later hunks' parts may not overlap these.
                taken.extend(pieces.iter().map(|(_, pl)| (pl.start, pl.end)));
                elided[i] = Some(pieces);
            }
            // The hunk's own refusal stands.
            Err(ElisionError::ItselfOnly) => {}
            Err(why) => {
                located[i] = Located::NotFound {
                    reason: Some(why.to_string()),
                }
            }
        }
    }
    (elided, rebuilt_hunks)
}

/// The parts placed, unless the stretch of the file between two of them holds the elision
/// lines between them as the file has them (`...` in a Python stub, a comment `// …`) beside
/// other lines: then the "elision" may be that very line of code, with a line of the hunk
/// lost beside it, and which side of the lost line the hunk's lines go is not said. A
/// stretch that is just those lines reads the same either way.
fn elision_not_in_gap(
    h: &Hunk,
    text: &TextFile,
    pieces: Vec<(Hunk, Placement)>,
) -> Result<Vec<(Hunk, Placement)>, ElisionError> {
    // The elision lines between one part and the next, in order (those before the first
    // part or after the last stand between no two parts).
    let mut between: Vec<Vec<&str>> = Vec::new();
    let (mut lead, mut run): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    let mut in_part = false;
    // Per run between two parts: whether its first elision line is indented deeper than the
    // old-side line before it (the elided lines are inside the block that line opens).
    let mut inside: Vec<bool> = Vec::new();
    let mut last_old: Option<&str> = None;
    for l in &h.lines {
        if l.kind == LineKind::Context && crate::patch::is_elision(&l.text) {
            if in_part {
                if run.is_empty() {
                    inside.push(last_old.is_some_and(|o| indent(&l.text) > indent(o)));
                }
                run.push(l.text.trim());
            } else {
                lead.push(l.text.trim());
            }
        } else {
            if !run.is_empty() {
                between.push(std::mem::take(&mut run));
            }
            if l.kind != LineKind::Add && !l.text.trim().is_empty() {
                last_old = Some(&l.text);
            }
            in_part = true;
        }
    }
    // Parts cut from the end (see `place_in_order`): the elision lines after the last one
    // placed close it.
    if pieces.len() <= between.len() {
        run = between[pieces.len() - 1].clone();
    }
    // Elision lines before the first part or after the last stand for lines without end;
    // the file having one of them as a line close to that part (within `EDGE_REACH` lines
    // of it) reads as that line with lines of the hunk lost beside it, unless it is right
    // there, where both readings agree.
    let trimmed = |r: std::ops::Range<usize>| -> Vec<&str> {
        text.lines[r].iter().map(|l| l.trim()).collect()
    };
    let (first, last) = (&pieces[0].1, &pieces[pieces.len() - 1].1);
    if !lead.is_empty() {
        let above = trimmed(first.start.saturating_sub(lead.len() + EDGE_REACH)..first.start);
        let right_there = above.ends_with(&lead);
        if !right_there && above.iter().any(|l| lead.contains(l)) {
            return Err(ElisionError::ReadsAsCode);
        }
    }
    if !run.is_empty() {
        let below = trimmed(last.end..(last.end + run.len() + EDGE_REACH).min(text.lines.len()));
        let right_there = below.starts_with(&run);
        if !right_there && below.iter().any(|l| run.contains(l)) {
            return Err(ElisionError::ReadsAsCode);
        }
    }
    let gaps: Vec<(Vec<&str>, &Vec<&str>)> = pieces
        .windows(2)
        .zip(&between)
        .map(|(w, marks)| {
            let gap = w[0].1.end..w[1].1.start.max(w[0].1.end);
            (text.lines[gap].iter().map(|l| l.trim()).collect(), marks)
        })
        .collect();
    if gaps.iter().any(|(gap, marks)| reads_as_code(gap, marks)) {
        return Err(ElisionError::ReadsAsCode);
    }
    // An elision indented inside the block the line before it opens (`def g():` then
    // `    ...`), before a part inside it too, stands for lines of that block: a stretch that
    // leaves it (a line indented no deeper than that line, `def f():`) reaches into another
    // block, where the next part may be a look-alike of the one meant.
    for (w, _) in pieces.windows(2).zip(&inside).filter(|(_, &i)| i) {
        let opener = text.lines[..w[0].1.end]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty());
        let gap = &text.lines[w[0].1.end..w[1].1.start.max(w[0].1.end)];
        // The part after it, inside the block too (deeper than the line that opens it); a
        // part as shallow as that line may follow the block's end (`}`, then `fn next`).
        let next = text.lines[w[1].1.start.max(w[0].1.end)..]
            .iter()
            .find(|l| !l.trim().is_empty());
        if let (Some(opener), Some(next)) = (opener, next) {
            if indent(next) > indent(opener)
                && gap
                    .iter()
                    .any(|l| !l.trim().is_empty() && indent(l) <= indent(opener))
            {
                return Err(ElisionError::LeavesBlock);
            }
        }
    }
    // Every "elision" stood for itself alone: the hunk is its lines as written, which fit
    // already and were refused for what they are; the elision reading adds nothing.
    if !gaps.is_empty() && gaps.iter().all(|(gap, marks)| gap == *marks) {
        return Err(ElisionError::ItselfOnly);
    }
    Ok(pieces)
}

/// A line's indentation in columns, a tab reaching the next multiple of 8.
fn indent(line: &str) -> usize {
    super::splice::columns(crate::text::normalize::indentation(line), 8)
}

/// How far from a hunk's first or last part an elision line before or after it is looked
/// for as a line of the file: the context a patch gives on each side.
const EDGE_REACH: usize = 3;

/// Whether a stretch of the file (lines trimmed) that elision lines (`marks`) stand for holds
/// one of those very lines beside other lines: then the "elision" may be that line of code,
/// with a line of the hunk lost beside it. A stretch that is just those lines reads the same
/// either way.
fn reads_as_code(gap: &[&str], marks: &[&str]) -> bool {
    gap.iter().any(|l| marks.contains(l)) && gap != marks
}

fn has_elision(h: &Hunk) -> bool {
    h.lines
        .iter()
        .any(|l| l.kind == LineKind::Context && crate::patch::is_elision(&l.text))
}

/// The parts of a hunk around its elision lines, as hunks of their own.
pub fn elision_pieces(h: &Hunk) -> Vec<Hunk> {
    let mut parts: Vec<Vec<crate::patch::Line>> = vec![Vec::new()];
    for l in &h.lines {
        if l.kind == LineKind::Context && crate::patch::is_elision(&l.text) {
            parts.push(Vec::new());
        } else {
            parts.last_mut().expect("one part at least").push(l.clone());
        }
    }
    let n = parts.len();
    parts
        .into_iter()
        .enumerate()
        .filter(|(_, lines)| !lines.is_empty())
        .map(|(k, lines)| Hunk {
            old_start: if k == 0 { h.old_start } else { None },
            new_start: if k == 0 { h.new_start } else { None },
            section: if k == 0 { h.section.clone() } else { None },
            anchors: if k == 0 {
                h.anchors.clone()
            } else {
                Vec::new()
            },
            lines,
            old_no_newline: k + 1 == n && h.old_no_newline,
            new_no_newline: k + 1 == n && h.new_no_newline,
            at_eof: k + 1 == n && h.at_eof,
            at_bof: k == 0 && h.at_bof,
            eof_by_shape: k + 1 == n && h.eof_by_shape,
            bof_by_shape: k == 0 && h.bof_by_shape,
            reindent: h.reindent,
            // An elision stands for the lines the header counts; the parts are whole.
            short_by: 0,
            old_short_by: 0,
            // A part's place is found, not known.
            known_place: false,
        })
        .collect()
}

/// Why a hunk's elision cannot be filled in from the file: the hunk is not placed, with this
/// as its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the hunk has an elision line, and {}; resend it with the elided lines written out",
    self.what()
)]
pub(super) enum ElisionError {
    Unanchored,
    PartPresent,
    PartAmbiguous,
    PartMissing,
    OutOfOrder,
    Overlaps,
    Unbounded,
    Reindented,
    RebuiltMisfits,
    ReadsAsCode,
    ItselfOnly,
    LeavesBlock,
}

impl ElisionError {
    fn what(self) -> &'static str {
        match self {
            ElisionError::Unanchored => "a part around it has nothing to anchor it",
            ElisionError::PartPresent => "a part of it is already in the file",
            ElisionError::PartAmbiguous => "a part of it fits in several places",
            ElisionError::PartMissing => "a part of it is not in the file",
            ElisionError::OutOfOrder => "a part of it is not in one place after the part before",
            ElisionError::Overlaps => "a part of it overlaps another hunk",
            ElisionError::Unbounded => "it starts or ends the SEARCH text, so nothing bounds it",
            ElisionError::Reindented => "the SEARCH text is indented differently from the file",
            ElisionError::ItselfOnly => "its elision lines stand for themselves alone",
            ElisionError::LeavesBlock => {
                "the lines it would stand for leave the block the line before it opens, so \
                 the part after it may be a look-alike in another block"
            }
            ElisionError::ReadsAsCode => {
                "the file has its elision line among the lines it would stand for, so it may be \
                 that line of code, with a line of the hunk lost beside it"
            }
            ElisionError::RebuiltMisfits => {
                "the SEARCH text with the file's lines in its place does not fit in one place"
            }
        }
    }
}

fn place_in_order(
    pieces: Vec<Hunk>,
    hay: &Haystack,
    hint: Option<usize>,
    taken: &[(usize, usize)],
) -> Result<Vec<(Hunk, Placement)>, ElisionError> {
    // Parts after the last that changes anything write nothing: each is looked for after the
    // part before (one not there refuses the hunk), and not placed, so that it holds no lines
    // another hunk may change; one that fits in several places, or loosely, or is blank, ends
    // the looking (a `}` after `// ... existing code ...`).
    let last_change = pieces
        .iter()
        .rposition(|p| p.lines.iter().any(|l| l.kind != LineKind::Context));
    let at_eof: Vec<bool> = pieces.iter().map(|p| p.at_eof).collect();
    let tail = |k: usize| last_change.is_some_and(|c| k > c) && !at_eof[k];
    if pieces.is_empty()
        || (pieces.iter().enumerate())
            .any(|(k, p)| !tail(k) && p.lines.iter().all(|l| l.text.trim().is_empty()))
    {
        return Err(ElisionError::Unanchored);
    }
    let mut prev_end = 0usize;
    let mut out: Vec<(Hunk, Placement)> = Vec::new();
    for (k, piece) in pieces.into_iter().enumerate() {
        if tail(k) && piece.lines.iter().all(|l| l.text.trim().is_empty()) {
            break;
        }
        let q = Query {
            hunk: &piece,
            hint: if k == 0 { hint } else { Some(prev_end) },
            prev_end,
            ordered: k > 0,
            taken,
            context_width: 3,
            in_turn: false,
            numbers_here: false,
        };
        let pl = match locate::locate(hay, &q) {
            Located::Placed(pl) => pl,
            Located::Ambiguous { .. } if tail(k) => break,
            Located::AlreadyApplied { .. } => return Err(ElisionError::PartPresent),
            Located::Ambiguous { .. } => return Err(ElisionError::PartAmbiguous),
            Located::NotFound { .. } => return Err(ElisionError::PartMissing),
        };
        let follows = k == 0
            || (pl.start >= prev_end
                && matches!(pl.decided_by, DecidedBy::Unique | DecidedBy::Order));
        if !follows {
            return Err(ElisionError::OutOfOrder);
        }
        if tail(k) {
            if pl.pass == Pass::Fuzzy || pl.fuzz.is_some() {
                break;
            }
            prev_end = pl.end;
            continue;
        }
        if pl.pass == Pass::Fuzzy || pl.fuzz.is_some() {
            return Err(ElisionError::OutOfOrder);
        }
        if taken.iter().any(|&(a, b)| pl.start < b && a < pl.end) {
            return Err(ElisionError::Overlaps);
        }
        prev_end = pl.end;
        out.push((piece, pl));
    }
    Ok(out)
}

/// Whether a SEARCH block (a hunk of removed then added lines) has an elision among its
/// removed lines, while its REPLACE is written out.
fn has_search_elision(h: &Hunk) -> bool {
    h.reindent
        && h.lines
            .iter()
            .any(|l| l.kind == LineKind::Remove && crate::patch::is_elision(&l.text))
        && !h
            .lines
            .iter()
            .any(|l| l.kind != LineKind::Remove && crate::patch::is_elision(&l.text))
}

/// A SEARCH block whose `...` stands for lines of the file: its parts around the elisions are
/// found one after another, each in one place, and the block is rebuilt with the file's lines
/// in place of each elision (removed, as the block replaces them; the REPLACE text, written
/// out, brings back what it keeps). Returns the rebuilt hunk, where it fits, and how many
/// lines each elision stood for.
fn place_search_elided(
    h: &Hunk,
    hay: &Haystack,
    hint: Option<usize>,
    taken: &[(usize, usize)],
) -> Result<(Hunk, Placement, Vec<usize>), ElisionError> {
    let mut parts: Vec<Vec<crate::patch::Line>> = vec![Vec::new()];
    for l in h.old_lines() {
        if crate::patch::is_elision(&l.text) {
            parts.push(Vec::new());
        } else {
            let mut c = l.clone();
            c.kind = LineKind::Context;
            parts.last_mut().expect("one part at least").push(c);
        }
    }
    if parts.iter().any(Vec::is_empty) {
        return Err(ElisionError::Unbounded);
    }
    let pieces: Vec<Hunk> = parts
        .into_iter()
        .enumerate()
        .map(|(k, lines)| Hunk {
            old_start: if k == 0 { h.old_start } else { None },
            lines,
            reindent: h.reindent,
            ..Hunk::default()
        })
        .collect();
    let placed = place_in_order(pieces, hay, hint, taken)?;
    // An elision the file has as a line among those it would stand for may be that line of
    // code (a Python stub's `...`), with a line of the SEARCH text lost beside it.
    let marks: Vec<&str> = h
        .old_lines()
        .filter(|l| crate::patch::is_elision(&l.text))
        .map(|l| l.text.trim())
        .collect();
    for (w, mark) in placed.windows(2).zip(&marks) {
        let gap: Vec<&str> = hay.lines()[w[0].1.end..w[1].1.start]
            .iter()
            .map(|l| l.trim())
            .collect();
        if reads_as_code(&gap, std::slice::from_ref(mark)) {
            return Err(ElisionError::ReadsAsCode);
        }
    }
    // The file's own lines carry the file's indentation: with parts that matched only when
    // ignoring indentation, they would out-vote how the REPLACE text is to be re-indented.
    if placed.iter().any(|(_, pl)| pl.pass.ignores_indentation()) {
        return Err(ElisionError::Reindented);
    }
    let filled: Vec<usize> = placed
        .windows(2)
        .map(|w| w[1].1.start - w[0].1.end)
        .collect();
    let mut lines = Vec::with_capacity(h.lines.len());
    let mut k = 0usize;
    for l in &h.lines {
        if l.kind == LineKind::Remove && crate::patch::is_elision(&l.text) {
            let (from, to) = (placed[k].1.end, placed[k + 1].1.start);
            lines.extend(
                hay.lines()[from..to]
                    .iter()
                    .map(|t| crate::patch::Line::new(LineKind::Remove, t.clone())),
            );
            k += 1;
        } else {
            lines.push(l.clone());
        }
    }
    let rebuilt = Hunk { lines, ..h.clone() };
    let start = placed[0].1.start;
    let q = Query {
        hunk: &rebuilt,
        hint: Some(start),
        prev_end: 0,
        ordered: false,
        taken,
        context_width: 3,
        in_turn: false,
        numbers_here: false,
    };
    match locate::locate(hay, &q) {
        Located::Placed(pl) if pl.start == start && pl.fuzz.is_none() => Ok((rebuilt, pl, filled)),
        _ => Err(ElisionError::RebuiltMisfits),
    }
}

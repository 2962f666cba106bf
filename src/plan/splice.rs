//! Bytes out: placed hunks spliced into a file, keeping its line endings, BOM, final-newline
//! state and (after a whitespace-insensitive match) its indentation style.

use std::borrow::Cow;

use super::locate::Placement;
use crate::patch::{Hunk, Line, LineKind};
use crate::repo::{Content, Part};
use crate::text::file::{Eol, Line as TextLine, TextFile};
use crate::text::normalize::indentation;

/// Apply placed hunks (any order; regions must not overlap) to `file`. With `patch_eols`,
/// added lines keep the ending the patch gave them; otherwise they take the file's own.
pub fn splice<'a>(
    file: &TextFile<'a>,
    placed: &[(&Hunk, &Placement)],
    patch_eols: bool,
) -> TextFile<'a> {
    splice_ending_new_lines(file, placed, patch_eols, file.dominant_eol())
}

/// [`splice`], new lines ending in `eol` where the patch does not say.
fn splice_ending_new_lines<'a>(
    file: &TextFile<'a>,
    placed: &[(&Hunk, &Placement)],
    patch_eols: bool,
    eol: Eol,
) -> TextFile<'a> {
    let mut lines: Vec<TextLine<'a>> = Vec::with_capacity(file.len() + 16);
    let mut eols: Vec<Eol> = Vec::with_capacity(file.len() + 16);
    let ends = walk(file, placed, patch_eols, eol, None, |out| match out {
        Out::Line(line, e) => {
            lines.push(line);
            eols.push(e);
        }
        Out::Added(line, e) => {
            lines.push(Cow::Owned(line.into_owned()));
            eols.push(e);
        }
        Out::Kept(run) => {
            lines.extend_from_slice(&file.lines[run.clone()]);
            eols.extend_from_slice(&file.eols[run]);
        }
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

/// The lines of a file of `len` lines that a hunk placed at `p` rewrites when it is spliced in
/// place (overlapping hunks, one after another): its region and a line either side. The lines
/// either side settle the endings as in the whole file: the one before may be a last line
/// without a newline that an insertion after it ends, the one after keeps the end of the file
/// out of reach of a hunk that does not touch it. `None` when the placement reaches outside
/// them (the whole file is then spliced).
pub fn in_place_region(p: &Placement, len: usize) -> Option<std::ops::Range<usize>> {
    let lo = p.start.saturating_sub(1);
    let hi = (p.end + 1).min(len);
    let inside = |at: usize| (lo..=hi).contains(&at);
    let fits = p.start <= p.end
        && inside(p.end)
        && p.mapping.iter().flatten().all(|&m| inside(m) && m < hi)
        && p.inserts.iter().all(|&i| inside(i));
    fits.then_some(lo..hi)
}

/// A hunk placed at `p` spliced into `part`, the lines of [`in_place_region`] (starting at
/// line `lo` of their file), new lines ending in `eol` (the whole file's dominant ending)
/// where the patch does not say.
pub fn splice_part<'a>(
    part: &TextFile<'a>,
    lo: usize,
    hunk: &Hunk,
    p: &Placement,
    patch_eols: bool,
    eol: Eol,
) -> TextFile<'a> {
    let shifted = Placement {
        start: p.start - lo,
        end: p.end - lo,
        mapping: p.mapping.iter().map(|m| m.map(|m| m - lo)).collect(),
        inserts: p.inserts.iter().map(|i| i - lo).collect(),
        ..p.clone()
    };
    splice_ending_new_lines(part, &[(hunk, &shifted)], patch_eols, eol)
}

/// A spliced file as pieces: runs of the original file's bytes, kept as ranges, and text of
/// its own (added lines, endings that changed). Made while the decoded file is at hand and
/// turned into a [`Content`] of pieces after it is dropped, so a big file is never copied.
#[derive(Debug, Default)]
pub struct Pieces {
    parts: Vec<Piece>,
}

#[derive(Debug)]
enum Piece {
    Original(std::ops::Range<usize>),
    Text(String),
}

impl Pieces {
    fn push_original(&mut self, r: std::ops::Range<usize>) {
        if let Some(Piece::Original(last)) = self.parts.last_mut() {
            if last.end == r.start {
                last.end = r.end;
                return;
            }
        }
        self.parts.push(Piece::Original(r));
    }

    fn push_text(&mut self, t: &str) {
        if t.is_empty() {
            return;
        }
        match self.parts.last_mut() {
            Some(Piece::Text(last)) => last.push_str(t),
            _ => {
                // Room for the line's ending, which mostly follows: no second allocation.
                let mut own = String::with_capacity(t.len() + 2);
                own.push_str(t);
                self.parts.push(Piece::Text(own))
            }
        }
    }

    /// Take `n` bytes off the end (a last line's ending).
    fn truncate_end(&mut self, mut n: usize) {
        while n > 0 {
            let Some(last) = self.parts.last_mut() else {
                return;
            };
            let len = match last {
                Piece::Original(r) => r.len(),
                Piece::Text(t) => t.len(),
            };
            if len > n {
                match last {
                    Piece::Original(r) => r.end -= n,
                    Piece::Text(t) => t.truncate(t.len() - n),
                }
                return;
            }
            n -= len;
            self.parts.pop();
        }
    }

    /// The file's content: the original's runs as ranges of `original` (the content the
    /// file was decoded from), the rest encoded back to the bytes it stands for.
    pub fn content(self, original: &Content) -> Content {
        Content::spliced(
            original,
            self.parts.into_iter().map(|p| match p {
                Piece::Original(r) => Part::Base(r),
                Piece::Text(t) => Part::Own(match crate::text::bytes::encode(&t) {
                    // Text that is its own bytes is handed over, not copied.
                    Cow::Borrowed(_) => t.into_bytes(),
                    Cow::Owned(bytes) => bytes,
                }),
            }),
        )
    }
}

/// [`splice`] as [`Pieces`] of `original`, the bytes `file` was decoded from: a kept line
/// that is a slice of `original` followed there by its ending is taken as that range, so
/// runs of kept lines cost one piece, not a copy per line.
/// `retab`: the tab width the patch's hunks show, and per hunk of `placed` whether its added
/// lines take it though the hunk shows nothing of the patch's indentation (as the planner
/// decided by [`unshown_indentation`]).
pub fn pieces(
    file: &TextFile,
    placed: &[(&Hunk, &Placement)],
    patch_eols: bool,
    original: &[u8],
    retab: Option<(usize, &[bool])>,
) -> Pieces {
    let base = original.as_ptr() as usize;
    // Where `line` followed by `eol` stands in `original`, if it does.
    let in_original = |line: &str, eol: Eol| -> Option<std::ops::Range<usize>> {
        let start = (line.as_ptr() as usize).checked_sub(base)?;
        let at = start + line.len();
        // The ending's bytes, compared one by one (a call to compare one byte costs more
        // than the byte, and this runs once per line of the file).
        let end = match eol {
            Eol::Lf if original.get(at) == Some(&b'\n') => at + 1,
            Eol::Crlf
                if original.get(at) == Some(&b'\r') && original.get(at + 1) == Some(&b'\n') =>
            {
                at + 2
            }
            Eol::None if at <= original.len() => at,
            _ => return None,
        };
        Some(start..end)
    };
    let mut out = Pieces::default();
    if file.bom {
        out.push_text("\u{feff}");
    }
    // The ending of the line last written, when it was left off: written once a line
    // follows, as the file's.
    let open = std::cell::Cell::new(false);
    // The length of the ending of the line last written.
    let last_eol_len = std::cell::Cell::new(0usize);
    let dominant = file.dominant_eol();
    let one = |out: &mut Pieces, line: &str, e: Eol| {
        if open.get() {
            out.push_text(dominant.as_str());
        }
        match in_original(line, e) {
            Some(r) => out.push_original(r),
            None => {
                out.push_text(line);
                out.push_text(e.as_str());
            }
        }
        open.set(e == Eol::None);
        last_eol_len.set(e.as_str().len());
    };
    let ends = walk(file, placed, patch_eols, dominant, retab, |o| match o {
        Out::Line(line, e) => one(&mut out, &line, e),
        Out::Added(line, e) => one(&mut out, &line, e),
        Out::Kept(run) => {
            let (lines, eols) = (&file.lines[run.clone()], &file.eols[run]);
            let mut i = 0;
            while i < lines.len() {
                // The first line goes through `one`: it may owe the line before an ending.
                one(&mut out, &lines[i], eols[i]);
                i += 1;
                if open.get() {
                    continue;
                }
                // Then every line that follows on in `original` is one range.
                let (n, span) = contiguous(&lines[i..], &eols[i..], original);
                if n > 0 {
                    out.push_original(span);
                    last_eol_len.set(eols[i + n - 1].as_str().len());
                    i += n;
                }
            }
        }
    });
    if !ends.final_newline {
        out.truncate_end(last_eol_len.get());
    } else if open.get() {
        out.push_text(ends.eol.as_str());
    }
    out
}

/// How many of `lines` (with `eols`) lie one after another in `original`, each followed
/// there by its ending, from the first on, and the bytes they span. A line ending in
/// nothing (the last of a file without a final newline) ends the span.
fn contiguous(
    lines: &[TextLine],
    eols: &[Eol],
    original: &[u8],
) -> (usize, std::ops::Range<usize>) {
    let base = original.as_ptr() as usize;
    let Some(start) = lines
        .first()
        .and_then(|l| (l.as_ptr() as usize).checked_sub(base))
    else {
        return (0, 0..0);
    };
    let mut at = start;
    let mut n = 0;
    for (l, e) in lines.iter().zip(eols) {
        // The same address is the same bytes: nothing else lives inside `original`.
        if l.as_ptr() as usize != base + at {
            break;
        }
        let end = at + l.len();
        at = match e {
            Eol::Lf if original.get(end) == Some(&b'\n') => end + 1,
            Eol::Crlf if original.get(end..end + 2) == Some(b"\r\n") => end + 2,
            _ => break,
        };
        n += 1;
    }
    (n, start..at)
}

/// How a spliced file ends: whether its last line has a newline, and the ending new lines
/// (and a line that stops being the last) take.
struct Ends {
    final_newline: bool,
    eol: Eol,
}

/// What [`walk`] gives, in order.
enum Out<'a, 'h> {
    /// A line with its ending.
    Line(TextLine<'a>, Eol),
    /// An added line as the hunk (of lifetime `'h`) has it or as re-indented, with its
    /// ending: borrowed where it is the hunk's own text, so that writing it out as pieces
    /// copies it once.
    Added(Cow<'h, str>, Eol),
    /// The file's own lines in this range, unchanged, each with its own ending: the runs
    /// between hunks, given whole so that a big file is not walked one call per line.
    Kept(std::ops::Range<usize>),
}

/// Walk the spliced file's lines in order, giving each (the lines kept borrow what
/// `file`'s lines borrow) with the ending it has in `file` or the patch; the caller settles
/// the last line's ending by the returned [`Ends`].
fn walk<'a, 'h>(
    file: &TextFile<'a>,
    placed: &[(&'h Hunk, &Placement)],
    patch_eols: bool,
    eol: Eol,
    retab: Option<(usize, &[bool])>,
    mut emit: impl FnMut(Out<'a, 'h>),
) -> Ends {
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&i| (placed[i].1.start, placed[i].1.end, i));
    let mut cursor = 0usize;
    let mut touches_end: Option<&Hunk> = None;
    let mut tail_deleted = false;
    for &i in &order {
        let (hunk, p) = placed[i];
        if cursor < p.start {
            emit(Out::Kept(cursor..p.start));
        }
        let (partners, indent) = learnt_map(hunk, p, file);
        // A hunk that shows nothing of the patch's indentation takes the tabs its other
        // hunks show, where the planner said so ([`unshown_indentation`]).
        let indent = match retab {
            Some((w, these)) if these[i] && indent == IndentMap::Same => IndentMap::Columns {
                offset: 0,
                tab_width: w,
                tabs: true,
            },
            _ => indent,
        };
        let groups = add_groups(hunk);
        let group_maps = indent.per_group(hunk, p, file, &partners);
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
        // The groups in the order they are emitted (by position, then as the hunk has them),
        // taken in turn as the region is walked: each is looked at once, however many there
        // are (a hunk that changes every other line of a file has one per changed line).
        let count = (groups.len().min(p.inserts.len()))
            .min(group_maps.as_ref().map_or(usize::MAX, Vec::len));
        let mut by_position: Vec<usize> = (0..count).collect();
        by_position.sort_by_key(|&gi| p.inserts[gi]);
        let mut next = by_position.into_iter().peekable();
        let mut emit_groups_at = |pos: usize, emit: &mut dyn FnMut(Out<'a, 'h>)| {
            // One placed outside the region is never emitted (it cannot be, for a placement
            // the planner made).
            while next.next_if(|&gi| p.inserts[gi] < pos).is_some() {}
            while let Some(gi) = next.next_if(|&gi| p.inserts[gi] == pos) {
                let g = &groups[gi];
                let map = group_maps.as_ref().map_or(&IndentMap::Same, |m| &m[gi]);
                for (k, l) in g.iter().enumerate() {
                    let kept = partners
                        .get(gi)
                        .and_then(|ps| ps[k])
                        .and_then(|oi| p.mapping.get(oi).copied().flatten());
                    let e = match (patch_eols, l.crlf) {
                        (false, _) => eol,
                        (true, true) => Eol::Crlf,
                        (true, false) => Eol::Lf,
                    };
                    if let Some(f) = kept {
                        // The patch's own ending where it is authoritative, else the line's.
                        let e = if patch_eols { e } else { file.eols[f] };
                        emit(Out::Line(file.lines[f].clone(), e));
                        continue;
                    }
                    emit(Out::Added(map.apply(&l.text), e));
                }
            }
        };
        for pos in p.start..p.end {
            emit_groups_at(pos, &mut emit);
            if !removed[pos - p.start] {
                emit(Out::Line(file.lines[pos].clone(), file.eols[pos]));
            }
        }
        emit_groups_at(p.end, &mut emit);
        cursor = p.end;
        if p.end == file.len() {
            touches_end = Some(hunk);
            tail_deleted = removed.last() == Some(&true) && deletes_tail(hunk);
        }
    }
    if cursor < file.len() {
        emit(Out::Kept(cursor..file.len()));
    }
    // Whether the file ends with a newline is the file's choice unless a hunk at its end
    // says otherwise. Only a change of the marker between the sides changes it: a marker on
    // a context line (both sides) says the file already ends that way, not that it must.
    // A hunk without markers (SEARCH/REPLACE, Codex) that deletes the last line, the one
    // without a newline, leaves the line before it as it was, newline and all, as git does
    // with the same change as a diff.
    let final_newline = match touches_end {
        Some(h) if h.new_no_newline && !h.old_no_newline => false,
        Some(h) if h.old_no_newline && !h.new_no_newline => true,
        Some(h) if tail_deleted && !h.old_no_newline && !h.new_no_newline => true,
        _ => file.ends_with_newline(),
    };
    Ends { final_newline, eol }
}

/// A placed hunk's unchanged partners and how its added lines are indented. After a loose
/// match, a line the hunk removes and adds back unchanged (a SEARCH block's first or last
/// lines, repeated in its REPLACE) keeps the file's bytes: the patch's copy carries whatever
/// whitespace damage the match forgave. Nor does its indentation say how to indent the lines
/// that are the hunk's own. After an exact match there are none to look for.
fn learnt_map(hunk: &Hunk, p: &Placement, file: &TextFile) -> (Vec<Vec<Option<usize>>>, IndentMap) {
    let partners = if p.pass == crate::text::normalize::Pass::Exact {
        Vec::new()
    } else {
        hunk.unchanged_partners()
    };
    let indent = IndentMap::learn_paired(hunk, p, file, &partners).unwrap_or(IndentMap::Same);
    (partners, indent)
}

/// Which of a file's placed hunks show nothing of how the patch indents
/// ([`tells_no_indentation`]) where the others show that it wrote each of the file's tabs
/// as the same number of spaces (that width, and per hunk whether it does), where the file
/// has no lines of its own indented with spaces and the hunk's added lines are indented by
/// whole tab widths. Their added lines are written with tabs too, so the planner places
/// them as matched ignoring indentation (the report says so, and the proof reads their
/// added lines that way).
pub fn unshown_indentation(
    file: &TextFile,
    placed: &[(&Hunk, &Placement)],
) -> Option<(usize, Vec<bool>)> {
    let unshown: Vec<bool> = placed
        .iter()
        .map(|&(h, p)| tells_no_indentation(h, p, file))
        .collect();
    // The cheaper question first: most patches have no such hunk.
    if !unshown.contains(&true) || !unshown.contains(&false) {
        return None;
    }
    let maps: Vec<IndentMap> = placed
        .iter()
        .map(|&(h, p)| learnt_map(h, p, file).1)
        .collect();
    let w = tabs_written_as_spaces(maps.iter())?;
    // Spaces the file itself indents with (a raw string's lines, a Makefile's conditional,
    // embedded YAML) may be what the patch's spaces are: then they are not the patch's way
    // of writing tabs, and its lines at column 0 say which they are no more than before.
    // Alignment after a tab, or by less than a tab (` * ` in a comment), is no such line.
    let spaces_of_its_own = file.lines.iter().any(|l| {
        let ind = indentation(l);
        ind.starts_with(' ') && columns(ind, w) >= w && !l.trim().is_empty()
    });
    if spaces_of_its_own {
        return None;
    }
    // Nor are lines indented by steps other than the tab width (two-space YAML among
    // four-space tabs) tabs written as spaces, nor those a backtick may open a raw string or
    // template literal around (a Go usage text), whose spaces are its content.
    let by_tabs = |h: &Hunk| {
        let adds = || h.lines.iter().filter(|l| l.kind == LineKind::Add);
        !adds().any(|l| l.text.contains('`'))
            && adds()
                .filter(|l| !l.text.trim().is_empty())
                .all(|l| indentation(&l.text).len() % w == 0)
    };
    let these: Vec<bool> = placed
        .iter()
        .zip(unshown)
        .map(|(&(h, _), u)| u && by_tabs(h))
        .collect();
    these.contains(&true).then_some((w, these))
}

/// The tab width `w` where the hunks of one file that show how the patch indents all say it
/// wrote the file's tabs as `w` spaces each, at the file's own depth (`None` where none
/// shows it, or they differ). A hunk whose old lines sit at column 0 shows nothing, and
/// its added lines are indented as the patch's others are ([`tells_no_indentation`]).
fn tabs_written_as_spaces<'m>(maps: impl Iterator<Item = &'m IndentMap>) -> Option<usize> {
    let mut width = None;
    for m in maps {
        match *m {
            IndentMap::Same => {}
            IndentMap::Columns {
                offset: 0,
                tab_width,
                tabs: true,
            } if width.is_none_or(|w| w == tab_width) => width = Some(tab_width),
            IndentMap::Columns { .. } => return None,
        }
    }
    width
}

/// Whether a placed hunk says nothing of how the patch indents: every old line it has in
/// the file is at column 0 there and in the patch (a new function added after a closing
/// brace), while its own added lines are indented with spaces alone. Such a hunk's added
/// lines are written as the patch's other hunks show it writes the file's tabs.
fn tells_no_indentation(hunk: &Hunk, p: &Placement, file: &TextFile) -> bool {
    let old = hunk.old_lines().count();
    let old_at_column_0 = old > 0
        && p.mapping.len() == old
        && hunk.old_lines().zip(&p.mapping).all(|(l, m)| {
            m.is_none_or(|f| {
                indentation(&l.text).is_empty() && indentation(&file.lines[f]).is_empty()
            })
        });
    let adds = || hunk.lines.iter().filter(|l| l.kind == LineKind::Add);
    old_at_column_0
        && adds().all(|l| !indentation(&l.text).contains('\t'))
        && adds().any(|l| indentation(&l.text).starts_with(' '))
}

/// Whether the hunk's change, read as a line diff of its sides, ends by deleting old lines
/// right after lines it keeps (or deletes and adds nothing): its new side's last line is an
/// old line unchanged. A SEARCH/REPLACE block writes kept lines as removed and added again,
/// so the sides are diffed rather than the line kinds read.
fn deletes_tail(hunk: &Hunk) -> bool {
    let side = |skip: LineKind| -> Vec<&[u8]> {
        hunk.lines
            .iter()
            .filter(|l| l.kind != skip)
            .map(|l| l.text.as_bytes())
            .collect()
    };
    let (old, new) = (side(LineKind::Add), side(LineKind::Remove));
    let ops = crate::text::textdiff::diff(&old, &new, crate::patch::PAIRING_TIME);
    matches!(
        ops.as_slice(),
        [
            ..,
            similar::DiffOp::Equal { .. },
            similar::DiffOp::Delete { .. }
        ] | [similar::DiffOp::Delete { .. }]
    )
}

/// For each old line of a hunk (`n_old` of them), whether it is a removed line that the
/// hunk adds back unchanged (`partners`, [`Hunk::unchanged_partners`]): a SEARCH line its REPLACE
/// keeps, context in all but name. Its indentation in the patch says no more than a context
/// line's does.
fn kept_removed(partners: &[Vec<Option<usize>>], n_old: usize) -> Vec<bool> {
    let mut kept = vec![false; n_old];
    for &oi in partners.iter().flatten().flatten() {
        if let Some(k) = kept.get_mut(oi) {
            *k = true;
        }
    }
    kept
}

/// The added lines of a hunk, one slice of its lines per run (a run's lines stand together).
fn add_groups(hunk: &Hunk) -> Vec<&[Line]> {
    let mut groups = Vec::new();
    let mut start = None;
    for (i, l) in hunk.lines.iter().enumerate() {
        match (l.kind == LineKind::Add, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                groups.push(&hunk.lines[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        groups.push(&hunk.lines[s..]);
    }
    groups
}

/// How the file's indentation differs from the patch's, learnt from the lines that matched
/// after an indentation-blind pass: a constant shift in columns (a SEARCH written with less
/// indentation than the file has) and the file's indentation character (tabs or spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndentMap {
    /// Added lines keep their indentation as the patch has it.
    Same,
    /// Added lines are re-indented by a shift in columns.
    Columns {
        /// Columns the file has more (or fewer) than the patch.
        offset: isize,
        /// The tab width under which the matched lines agree on `offset`.
        tab_width: usize,
        /// The file indents with tabs (else with spaces).
        tabs: bool,
    },
}

/// Why the added lines of a hunk matched ignoring indentation cannot be indented the file's
/// way: a refusal of the hunk (its reason), not a failure of the run.
#[allow(missing_docs)] // each variant's #[error] message says what it is
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IndentError {
    #[error(
        "some context lines have the file's indentation and others none at all, so the added \
         lines' indentation is uncertain"
    )]
    PartlyStripped,
    #[error(
        "the old lines have no indentation while the added lines are as deep as the file's \
         lines there: whether the whole hunk lost its indentation or only its old lines did \
         is uncertain, and with it the added lines' indentation"
    )]
    OldLinesStripped,
    #[error(
        "only one context line shows how the patch's indentation differs from the file's, so \
         the added lines' indentation is uncertain"
    )]
    OneWitness,
    #[error(
        "the patch's indentation differs from the file's inconsistently, so the added lines \
         cannot be indented the file's way"
    )]
    Inconsistent,
}

/// Indentation width in columns, tabs advancing to the next multiple of `w`.
pub(super) fn columns(ind: &str, w: usize) -> usize {
    ind.chars()
        .fold(0, |c, ch| if ch == '\t' { (c / w + 1) * w } else { c + 1 })
}

impl IndentMap {
    /// `Err` when the matched lines disagree on how the indentation differs: then nobody can
    /// say how to indent the added lines, and guessing could change what code means.
    pub fn learn(hunk: &Hunk, p: &Placement, file: &TextFile) -> Result<IndentMap, IndentError> {
        if !p.pass.ignores_indentation() {
            return Ok(IndentMap::Same);
        }
        Self::learn_paired(hunk, p, file, &hunk.unchanged_partners())
    }

    /// [`IndentMap::learn`] with the hunk's [`Hunk::unchanged_partners`] worked out already (any
    /// value where the pass compares indentation: it is not read then).
    fn learn_paired(
        hunk: &Hunk,
        p: &Placement,
        file: &TextFile,
        partners: &[Vec<Option<usize>>],
    ) -> Result<IndentMap, IndentError> {
        if !p.pass.ignores_indentation() {
            return Ok(IndentMap::Same);
        }
        // The hunk's own added lines. A line that a line diff pairs with a removed line of
        // the run just before its own run, word for word (a SEARCH line its REPLACE keeps),
        // is written as the file has it, whatever the patch's indentation: it is not
        // re-indented, so it says nothing about the depth of the lines that are.
        let own_adds: Vec<&Line> = add_groups(hunk)
            .into_iter()
            .enumerate()
            .flat_map(|(gi, g)| {
                let ps = partners.get(gi);
                g.iter()
                    .enumerate()
                    .filter(move |&(k, _)| ps.and_then(|ps| ps.get(k).copied().flatten()).is_none())
                    .map(|(_, l)| l)
            })
            .filter(|l| !l.text.is_empty())
            .collect();
        // Without added lines there is nothing to indent. Lines of whitespace alone are
        // re-indented the file's way where that way is clear, but their depth is no reason
        // to refuse a hunk.
        if own_adds.is_empty() {
            return Ok(IndentMap::Same);
        }
        let learnt = Self::learn_from(hunk, p, file, partners, &own_adds);
        if own_adds.iter().all(|l| l.text.trim().is_empty()) {
            return Ok(learnt.unwrap_or(IndentMap::Same));
        }
        learnt
    }

    /// [`IndentMap::learn`] once the hunk's own added lines are known (`own_adds`, none of
    /// them empty) and which of its added lines repeat removed ones (`partners`).
    fn learn_from(
        hunk: &Hunk,
        p: &Placement,
        file: &TextFile,
        partners: &[Vec<Option<usize>>],
        own_adds: &[&Line],
    ) -> Result<IndentMap, IndentError> {
        let kept = kept_removed(partners, p.mapping.len());
        let pairs: Vec<(&str, &str, bool)> = hunk
            .old_lines()
            .zip(&p.mapping)
            .enumerate()
            .filter_map(|(oi, (l, m))| {
                m.map(|f| {
                    (
                        l.text.as_str(),
                        &*file.lines[f],
                        l.kind == LineKind::Context || kept.get(oi) == Some(&true),
                    )
                })
            })
            .filter(|(a, b, _)| !a.trim().is_empty() && !b.trim().is_empty())
            .map(|(a, b, ctx)| (indentation(a), indentation(b), ctx))
            .collect();
        // Lines unindented on both sides say nothing about the indentation style (they must
        // not out-vote the indented lines' tabs or spaces), but they do say that a line at
        // column 0 stays there: they count against a shift. So do lines indented alike by a
        // single space (a doc comment's ` * ` under `/**`): that is alignment, the same in a
        // file indented with tabs and in one indented with spaces, and a patch that wrote
        // the file's tabs as spaces leaves it as it was.
        let neutral = |a: &str, b: &str| a == b && (a.is_empty() || a == " ");
        let neutral_lines = pairs.iter().filter(|(a, b, _)| neutral(a, b)).count();
        let at_column_0 = pairs.iter().any(|(a, b, _)| a.is_empty() && b.is_empty());
        let pairs: Vec<(&str, &str, bool)> = pairs
            .into_iter()
            .filter(|(a, b, _)| !neutral(a, b))
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
        let total = pairs.len() + neutral_lines;
        // (tab width, shift, whether every line agrees on it)
        let fits: Vec<(usize, isize, bool)> = [4usize, 8, 2, 3]
            .into_iter()
            .filter_map(|w| {
                let offsets: Vec<(isize, bool)> = pairs
                    .iter()
                    .map(|(pa, fi, ctx)| (columns(fi, w) as isize - columns(pa, w) as isize, *ctx))
                    .chain(std::iter::repeat_n((0, true), neutral_lines))
                    .collect();
                let first = offsets[0].0;
                if offsets.iter().all(|(o, _)| *o == first) {
                    return Some((w, first, true));
                }
                let mut candidates: Vec<isize> = offsets.iter().map(|(o, _)| *o).collect();
                candidates.sort_unstable();
                candidates.dedup();
                candidates.into_iter().find_map(|o| {
                    let agree = offsets.iter().filter(|(x, _)| *x == o).count();
                    let dissent_removed = offsets.iter().any(|(x, ctx)| *x != o && !ctx);
                    (agree >= 2 && agree * 3 >= total * 2 && !dissent_removed)
                        .then_some((w, o, false))
                })
            })
            .collect();
        // A tab width under which every line agrees explains the patch; one under which a
        // line dissents calls that line damaged. So the first is preferred, whatever its
        // place in the order above (a patch that wrote each tab as eight spaces, its one
        // indented line disagreeing under four: dotenv's lib/env-options.js).
        let best = fits
            .iter()
            .find(|(_, o, all)| *all && *o == 0)
            .or_else(|| fits.iter().find(|(_, _, all)| *all))
            .or_else(|| fits.iter().find(|(_, o, _)| *o == 0))
            .or(fits.first());
        if let Some(&(tab_width, offset, _)) = best {
            // A shift that only one context line shows is as likely damage to that line as a
            // different indentation of the whole hunk: the added lines' depth is unknowable.
            let removed_tell = pairs.iter().any(|(_, _, ctx)| !ctx);
            // Lines that lost all their indentation and a line that kept exactly the file's:
            // as likely the first stripped (damage to them) as the whole hunk shifted with
            // the kept line damaged the other way, so the added lines' depth is unknowable.
            let kept_exactly = pairs.iter().any(|(pa, fi, _)| pa == fi);
            let shift_only_stripped = pairs.iter().all(|(pa, fi, _)| {
                columns(fi, tab_width) as isize - columns(pa, tab_width) as isize != offset
                    || pa.is_empty()
            });
            if offset != 0 && kept_exactly && shift_only_stripped {
                return Err(IndentError::PartlyStripped);
            }
            // Every old line the hunk shows lost all its indentation, and the added lines
            // kept theirs, exactly as deep as the file's lines there: as likely a hunk whose
            // old lines alone were stripped (the added lines right as written) as one
            // shifted whole (the added lines to go deeper by the shift). Added lines at
            // column 0 are as deep as an old line that stays there, which no shift of the
            // whole hunk explains.
            let old_stripped = pairs.iter().all(|(pa, _, _)| pa.is_empty());
            let add_depths: Vec<usize> = own_adds
                .iter()
                .filter(|l| !l.text.trim().is_empty())
                .map(|l| columns(indentation(&l.text), tab_width))
                .collect();
            let adds_at_file_depth = add_depths.iter().all(|&d| match d {
                0 => at_column_0,
                _ => pairs.iter().any(|(_, fi, _)| columns(fi, tab_width) == d),
            });
            if offset > 0 && old_stripped && !add_depths.is_empty() && adds_at_file_depth {
                return Err(IndentError::OldLinesStripped);
            }
            if offset != 0 && pairs.len() < 2 && !removed_tell {
                return Err(IndentError::OneWitness);
            }
            return Ok(IndentMap::Columns {
                offset,
                tab_width,
                tabs,
            });
        }
        Err(IndentError::Inconsistent)
    }

    /// The map for each run of added lines: the file's style, with the shift its nearest
    /// indented neighbour shows (the lines it replaces, else the context above it, else
    /// below). One shift for the whole hunk would move a line that replaces an unindented
    /// line by what some comment block's alignment happened to differ by.
    /// `None` when every group keeps its lines as written: a pass that compares indentation
    /// matched each line at the file's own (a blank one aside, which tells nothing), so no
    /// line shows a shift for a group to take.
    fn per_group(
        &self,
        hunk: &Hunk,
        p: &Placement,
        file: &TextFile,
        partners: &[Vec<Option<usize>>],
    ) -> Option<Vec<IndentMap>> {
        if *self == IndentMap::Same && !p.pass.ignores_indentation() {
            debug_assert!(
                (self.each_group(hunk, p, file, partners).iter()).all(|m| *m == IndentMap::Same),
                "a {:?} placement matched a line at another indentation",
                p.pass
            );
            return None;
        }
        Some(self.each_group(hunk, p, file, partners))
    }

    /// [`IndentMap::per_group`]'s maps, worked out from the lines (`partners`: the hunk's
    /// [`Hunk::unchanged_partners`]).
    fn each_group(
        &self,
        hunk: &Hunk,
        p: &Placement,
        file: &TextFile,
        partners: &[Vec<Option<usize>>],
    ) -> Vec<IndentMap> {
        // Mostly the same indentation (`Same`): no shift, but for a group both of whose
        // neighbours below show one.
        let (w, tabs, learnt, shifted) = match *self {
            IndentMap::Columns {
                tab_width,
                tabs,
                offset,
            } => (tab_width, tabs, offset, true),
            IndentMap::Same => (4, false, 0, false),
        };
        // Old-side lines in hunk order with their shift, where it can be seen.
        let mut shift_at: Vec<Option<isize>> =
            Vec::with_capacity(if shifted { hunk.lines.len() } else { 0 });
        // The same, before the majority's filter, and whether the file indents it with a tab.
        let mut raw_at: Vec<Option<(isize, bool)>> = Vec::with_capacity(hunk.lines.len());
        let kept = if shifted {
            kept_removed(partners, p.mapping.len())
        } else {
            Vec::new()
        };
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
            let pi = indentation(&l.text);
            let in_file = p
                .mapping
                .get(oi)
                .copied()
                .flatten()
                .map(|f| &*file.lines[f]);
            let shift = in_file.and_then(|fl| {
                let fi = indentation(fl);
                // Unindented on both sides, a line says nothing about the shift (whether
                // blank or not: the cheaper test first).
                if pi.is_empty() && fi.is_empty() {
                    return None;
                }
                let blank = l.text.trim().is_empty() || fl.trim().is_empty();
                (!blank).then(|| columns(fi, w) as isize - columns(pi, w) as isize)
            });
            let tab = in_file.is_some_and(|fl| fl.starts_with('\t'));
            // A line the patch stripped to column 0 is as likely damage to that line alone as
            // the depth the lines around it were written at (fuzz seed 94056): it speaks for
            // no neighbour.
            let stripped = pi.is_empty();
            raw_at.push(shift.filter(|_| !stripped).map(|s| (s, tab)));
            // A line indented apart from the majority that `learn` saw is damage to that
            // line: it tells nothing about its neighbours. Only a learnt shift reads these.
            if shifted {
                let own_removed = l.kind == LineKind::Remove && kept.get(oi) != Some(&true);
                shift_at.push(shift.filter(|&s| s == learnt || own_removed));
            }
            oi += 1;
        }
        // The nearest shift seen before each old line and at or after it, worked out in one
        // pass each way, so that many groups cost no more than one.
        fn nearest<T: Copy>(at: &[Option<T>]) -> (Vec<Option<T>>, Vec<Option<T>>) {
            let mut before = Vec::with_capacity(at.len() + 1);
            let mut seen = None;
            for s in at {
                before.push(seen);
                seen = s.or(seen);
            }
            before.push(seen);
            let mut after = vec![None; at.len() + 1];
            for (i, s) in at.iter().enumerate().rev() {
                after[i] = s.or(after[i + 1]);
            }
            (before, after)
        }
        let (before_at, after_at) = nearest(&shift_at);
        let (raw_before, raw_after) = nearest(&raw_at);
        group_pos
            .into_iter()
            .map(|at| {
                // Unless the lines right around the group agree on another shift: then the
                // group was written as those lines were (a block the patch indented apart
                // from the rest of the hunk), and goes where they are.
                let around = raw_before[at].filter(|b| raw_after[at] == Some(*b));
                if !shifted {
                    return match around {
                        Some((offset, tabs)) if offset != 0 => IndentMap::Columns {
                            offset,
                            tab_width: w,
                            tabs,
                        },
                        _ => IndentMap::Same,
                    };
                }
                let offset = around
                    .map(|(s, _)| s)
                    .or(before_at[at])
                    .or(after_at[at])
                    .unwrap_or(learnt);
                IndentMap::Columns {
                    offset,
                    tab_width: w,
                    tabs,
                }
            })
            .collect()
    }

    fn apply<'l>(&self, line: &'l str) -> Cow<'l, str> {
        let IndentMap::Columns {
            offset,
            tab_width: w,
            tabs,
        } = *self
        else {
            return Cow::Borrowed(line);
        };
        // An empty line stays empty; one of whitespace alone is indentation like any other
        // (a blank line indented with a tab in a file indented with tabs, that the patch
        // wrote as spaces).
        if line.is_empty() {
            return Cow::Borrowed(line);
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
            return Cow::Borrowed(line);
        }
        let cols = (columns(ind, w) as isize + offset).max(0) as usize;
        let lead = if tabs {
            format!("{}{}", "\t".repeat(cols / w), " ".repeat(cols % w))
        } else {
            " ".repeat(cols)
        };
        Cow::Owned(format!("{lead}{rest}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::locate::DecidedBy;
    use crate::text::normalize::Pass;
    use proptest::prelude::*;

    /// One region to edit: the gap after the previous region, its length, which of its lines
    /// are removed, runs of added lines (before which line, how many), CRLF added lines.
    type Edit = (usize, usize, Vec<bool>, Vec<(usize, u8)>, bool);

    /// Hunks over regions of `file` (one region per entry of `edits`, in order, apart):
    /// each region's lines kept or removed, and runs of added lines put before some of them.
    fn hunks(n_lines: usize, edits: &[Edit]) -> Vec<(Hunk, Placement)> {
        let mut out = Vec::new();
        let mut next_free = 0usize;
        for (k, (gap, len, removes, adds, crlf)) in edits.iter().enumerate() {
            let start = next_free + gap;
            if start > n_lines {
                break;
            }
            let end = (start + len).min(n_lines);
            let mut lines = Vec::new();
            let mut inserts = Vec::new();
            let add_at = |pos: usize, lines: &mut Vec<Line>, inserts: &mut Vec<usize>| {
                for &(at, count) in adds {
                    if start + at.min(end - start) == pos && count > 0 {
                        inserts.push(pos);
                        for c in 0..count {
                            let mut l = Line::new(LineKind::Add, format!("added {k}.{at}.{c}"));
                            l.crlf = *crlf;
                            lines.push(l);
                        }
                    }
                }
            };
            for pos in start..end {
                add_at(pos, &mut lines, &mut inserts);
                let removed = removes.get(pos - start).copied().unwrap_or(false);
                let kind = if removed {
                    LineKind::Remove
                } else {
                    LineKind::Context
                };
                lines.push(Line::new(kind, format!("old {pos}")));
            }
            add_at(end, &mut lines, &mut inserts);
            let mapping = (start..end).map(Some).collect();
            let hunk = Hunk {
                lines,
                new_no_newline: end == n_lines && *crlf,
                ..Hunk::default()
            };
            let placement = Placement {
                start,
                end,
                mapping,
                inserts,
                pass: Pass::Exact,
                occurrences: 1,
                decided_by: DecidedBy::Unique,
                fuzz: None,
            };
            out.push((hunk, placement));
            next_free = end + 1;
        }
        out
    }

    proptest! {
        /// A hunk placed by a pass that compares indentation (exact, or blind only to
        /// trailing whitespace) has every group of added lines written as sent, whatever the
        /// indentation of its lines, the file's and the added ones: what `per_group` takes
        /// for granted without looking at the lines.
        #[test]
        fn a_pass_that_compares_indentation_leaves_every_group_as_written(
            file_lines in proptest::collection::vec((0usize..4, any::<bool>(), 0u8..3), 1..30),
            picks in proptest::collection::vec((any::<bool>(), 0usize..3, 0usize..4, any::<bool>()), 1..30),
            trailing in any::<bool>(),
        ) {
            let indents = ["", "    ", "\t", "  \t "];
            let text: String = file_lines
                .iter()
                .enumerate()
                .map(|(i, &(ind, blank, tail))| match blank {
                    true => format!("{}\n", indents[ind]),
                    false => format!("{}line {i}{}\n", indents[ind], " ".repeat(tail as usize)),
                })
                .collect();
            let bytes = Content::new(text.into_bytes());
            let file = TextFile::decode(&bytes).expect("text");
            let pass = if trailing { Pass::TrailingWhitespace } else { Pass::Exact };
            // The hunk's old side is the file's lines from 0 (under `pass`'s key: a trailing
            // pass may drop or add trailing whitespace), each removed or kept, with runs of
            // added lines indented any way before them.
            let mut lines = Vec::new();
            let mut inserts = Vec::new();
            let n = picks.len().min(file.len());
            for (i, &(removed, adds, ind, tail)) in picks.iter().take(n).enumerate() {
                if adds > 0 {
                    inserts.push(i);
                }
                for a in 0..adds {
                    lines.push(Line::new(LineKind::Add, format!("{}added {i}.{a}", indents[ind])));
                }
                let mut old = file.lines[i].to_string();
                if trailing && tail {
                    old = format!("{} ", old.trim_end());
                }
                let kind = if removed { LineKind::Remove } else { LineKind::Context };
                lines.push(Line::new(kind, old));
            }
            let hunk = Hunk { lines, ..Hunk::default() };
            let placement = Placement {
                start: 0,
                end: n,
                mapping: (0..n).map(Some).collect(),
                inserts,
                pass,
                occurrences: 1,
                decided_by: DecidedBy::Unique,
                fuzz: None,
            };
            let learnt = IndentMap::learn(&hunk, &placement, &file).expect("learnt");
            let computed = learnt.each_group(&hunk, &placement, &file, &hunk.unchanged_partners());
            prop_assert!(computed.iter().all(|m| *m == IndentMap::Same), "{computed:?}");
        }

        /// The pieces of a splice are its bytes, whatever the file's endings, final newline,
        /// byte-order mark or encoding, and wherever the hunks fall.
        #[test]
        fn pieces_make_the_spliced_bytes(
            eols in proptest::collection::vec(0u8..3, 0..40),
            final_newline in any::<bool>(),
            bom in any::<bool>(),
            bom_in_line in any::<bool>(),
            latin1 in any::<bool>(),
            patch_eols in any::<bool>(),
            markers in (any::<bool>(), any::<bool>()),
            edits in proptest::collection::vec(
                (0usize..4, 0usize..5, proptest::collection::vec(any::<bool>(), 0..5),
                 proptest::collection::vec((0usize..5, 0u8..3), 0..3), any::<bool>()),
                0..5),
        ) {
            let mut bytes = Vec::new();
            if bom {
                bytes.extend_from_slice("\u{feff}".as_bytes());
            }
            for (i, e) in eols.iter().enumerate() {
                bytes.extend_from_slice(format!("old {i}").as_bytes());
                if latin1 && i % 3 == 1 {
                    bytes.push(0xe9);
                }
                let last = i + 1 == eols.len();
                if !last || final_newline {
                    bytes.extend_from_slice(if *e == 0 { b"\r\n" } else { b"\n" });
                }
            }
            let bytes = Content::new(bytes);
            let Some(mut file) = TextFile::decode(&bytes) else {
                return Ok(());
            };
            if file.bom && bom_in_line {
                // As the planner does for a patch that shows the mark.
                file.bom = false;
                if let Some(first) = file.lines.first_mut() {
                    first.to_mut().insert(0, '\u{feff}');
                }
            }
            let mut hs = hunks(file.len(), &edits);
            // A hunk at the end of the file with any pair of `\ No newline` markers.
            if let Some((h, p)) = hs.last_mut() {
                if p.end == file.len() {
                    (h.old_no_newline, h.new_no_newline) = markers;
                }
            }
            let placed: Vec<(&Hunk, &Placement)> = hs.iter().map(|(h, p)| (h, p)).collect();
            let want = splice(&file, &placed, patch_eols).encode();
            let got = pieces(&file, &placed, patch_eols, &bytes, None).content(&bytes);
            prop_assert_eq!(got.chunks().concat(), want);
            // Each hunk spliced in place (as overlapping hunks are, one after another) is
            // that hunk spliced into the whole file.
            for (h, p) in &placed {
                let whole = splice(&file, &[(h, p)], patch_eols);
                let Some(r) = in_place_region(p, file.len()) else {
                    continue;
                };
                let part = TextFile {
                    bom: false,
                    lines: file.lines[r.clone()].to_vec(),
                    eols: file.eols[r.clone()].to_vec(),
                };
                let spliced = splice_part(&part, r.start, h, p, patch_eols, file.dominant_eol());
                let mut in_place = file.clone();
                in_place.lines.splice(r.clone(), spliced.lines);
                in_place.eols.splice(r, spliced.eols);
                prop_assert_eq!(in_place, whole);
            }
        }
    }
}

//! The guarded fuzzy pass: removed lines matched folded around an anchor, drifted or
//! missing context tolerated, where the added lines go, and the checks a loose fit must pass.

use super::decide::{decide, free, FAR_FROM_HINT};
use super::Haystack;
use super::{keys, DecidedBy, Fuzz, Located, Old, Placement, Query};
use crate::patch::{Hunk, LineKind};
use crate::text::file::Line;
use crate::text::normalize::{is_trivial, key, misremembered, Pass};

/// How many context lines a fuzzy-matched hunk lacks on each side, judged against the
/// patch's context width: a side with fewer lines than the width, where the file has more
/// lines beyond it, lost some. This tells on which side of an insertion a dropped line was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shortfall {
    /// Context lines missing before the hunk's first line (0 at the top of the file).
    pub lead: usize,
    /// Context lines missing after its last line (0 at the end of the file).
    pub trail: usize,
}

/// Where each run of added lines goes, given where the old lines matched. `Err` when the
/// file's own lines around an insertion make its place uncertain. `shortfall` is None for a
/// contiguous match, where no insertion can have a gap.
pub fn insertion_points(
    hunk: &Hunk,
    kinds: &[LineKind],
    mapping: &[Option<usize>],
    file_len: usize,
    gaps: Option<Gaps>,
) -> Result<Vec<usize>, InsertionError> {
    let groups = group_bounds(hunk, kinds.len());
    // Read only where a gap is looked at: a hunk of thousands of groups placed without one
    // builds no vector per group.
    let texts = std::cell::OnceCell::new();
    let re_added = std::cell::OnceCell::new();
    let n = groups.len();
    let sf = gaps.as_ref().map(|g| g.shortfall).unwrap_or_default();
    let m = |i: Option<usize>| i.and_then(|i| mapping[i]);
    let mut out = Vec::with_capacity(n);
    for (gi, &(prev, next)) in groups.iter().enumerate() {
        let first_change =
            gi == 0 && !kinds[..next.unwrap_or(kinds.len())].contains(&LineKind::Remove);
        let last_change =
            gi + 1 == n && !kinds[next.unwrap_or(kinds.len())..].contains(&LineKind::Remove);
        let gap_err = |gap: usize| InsertionError::Gap { gap };
        let at = match (prev, next) {
            // A hunk pinned to an end of the file inserts at that end; lines between its
            // context and that end are acceptable only as context the patch dropped.
            (_, None) if hunk.at_eof => {
                let gap = m(prev).map_or(0, |a| file_len.saturating_sub(a + 1));
                if gap > 0
                    && !(sf.lead >= gap && prev.is_some_and(|p| kinds[p] == LineKind::Context))
                {
                    return Err(gap_err(gap));
                }
                file_len
            }
            (None, _) if hunk.at_bof => {
                let gap = m(next).unwrap_or(0);
                if gap > 0
                    && !(sf.trail >= gap && next.is_some_and(|x| kinds[x] == LineKind::Context))
                {
                    return Err(gap_err(gap));
                }
                0
            }
            _ => match insertion_point(prev, next, kinds, mapping, || {
                hunk.short_by > 0 || re_adds(re_added.get_or_init(|| hunk.unchanged_partners()), gi)
            })
            .and_then(|at| {
                match gaps
                    .as_ref()
                    .and_then(|g| twin_gap(prev, next, kinds, mapping, g.file))
                {
                    Some(gap) => Err(Some(gap)),
                    None => Ok(at),
                }
            }) {
                Ok(at) => at,
                // A neighbour of the insertion is not in the file: no count of lines says
                // where the added lines go.
                Err(None) => return Err(InsertionError::NeighbourMissing),
                Err(Some(Gap { after, before })) => {
                    let gap = before.saturating_sub(after + 1);
                    // Lines that read the same on either side of the gap (a blank line added
                    // next to a blank line) leave nothing to decide.
                    let commutes = gaps.as_ref().is_some_and(|g| {
                        before <= g.file.len() && {
                            let between: Vec<&str> = g
                                .file
                                .line_span(after + 1, before)
                                .iter()
                                .map(|l| &**l)
                                .collect();
                            let added = &texts.get_or_init(|| group_texts(hunk))[gi];
                            let mut one = between.clone();
                            one.extend(added.iter().copied());
                            let mut other: Vec<&str> = added.clone();
                            other.extend(between.iter().copied());
                            // The gap being exactly the added lines, with anything distinctive
                            // in them, looks like the hunk already applied: not a free choice.
                            let already = between == *added && added.iter().any(|t| !is_trivial(t));
                            one == other && !already
                        }
                    });
                    // A short side says where the line was lost only where the other side
                    // of the gap is the hunk's own edge context, whose count is known: a
                    // context line between this insertion and another change is one the
                    // patch may have dropped too (fuzz seed 921288: an insertion, a blank
                    // line, a removal, and two blank lines in the file).
                    // A removed line right after the insertion is another change too (added
                    // lines before removed ones are two changes), so the line may have been
                    // lost between them: the lead decides only for the hunk's one change. A
                    // removed line right before it is a replacement in place.
                    let inner = |i: Option<usize>| i.is_some_and(|i| kinds[i] == LineKind::Context);
                    let lead_lost = first_change && last_change;
                    let trail_lost = last_change && (first_change || !inner(prev));
                    if commutes || (lead_lost && sf.lead >= gap && sf.trail == 0) {
                        before
                    } else if trail_lost && sf.trail >= gap && sf.lead == 0 {
                        after + 1
                    } else {
                        return Err(gap_err(gap));
                    }
                }
            },
        };
        out.push(at);
    }
    Ok(out)
}

/// Why the place of a hunk's added lines among the file's is uncertain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InsertionError {
    /// The file has lines the hunk does not mention next to an insertion.
    #[error(
        "the file has {gap} line(s) next to where lines are inserted that the hunk does not \
         mention, so where they go is uncertain"
    )]
    Gap {
        /// How many.
        gap: usize,
    },
    /// A context line beside an insertion is not in the file.
    #[error(
        "a context line next to where lines are inserted is not in the file, so where they go \
         is uncertain"
    )]
    NeighbourMissing,
}

/// What the fuzzy pass knows about gaps around insertions: which side lost context lines,
/// and the file's lines, to see whether an insertion's side of a gap matters at all.
pub struct Gaps<'h, 'a> {
    /// Which side lost context lines.
    pub shortfall: Shortfall,
    /// The file the hunk matched in.
    pub file: &'h Haystack<'a>,
}

/// The text of each run of added lines.
fn group_texts(hunk: &Hunk) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut in_group = false;
    for l in &hunk.lines {
        if l.kind == LineKind::Add {
            if !in_group {
                out.push(Vec::new());
                in_group = true;
            }
            out.last_mut()
                .expect("a group was just pushed")
                .push(&l.text);
        } else {
            in_group = false;
        }
    }
    out
}

/// Whether the `gi`-th run of added lines adds back a line the removed lines right before it
/// remove ([`Hunk::unchanged_partners`]). A minimal diff (git's) never removes a line and adds
/// it back in one change (it keeps the line), so where a hunk does, a line it lost may have
/// stood between the two runs (a line moved past another: `-a -b  c +b` with ` c` lost reads
/// as a change of `a b` into `b`). A model's hunk may rewrite a block so, lines kept and all:
/// with a file line after its removed lines that the hunk does not mention, its added lines'
/// place is then uncertain too (before or after that line), and it is refused rather than
/// guessed.
fn re_adds(partners: &[Vec<Option<usize>>], gi: usize) -> bool {
    partners
        .get(gi)
        .is_some_and(|p| p.iter().any(Option::is_some))
}

/// For each run of added lines: the old-line index before it and after it.
fn group_bounds(hunk: &Hunk, n_old: usize) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::new();
    let mut oi = 0usize;
    let mut in_group = false;
    for l in &hunk.lines {
        if l.kind == LineKind::Add {
            if !in_group {
                in_group = true;
                out.push((oi.checked_sub(1), (oi < n_old).then_some(oi)));
            }
        } else {
            in_group = false;
            oi += 1;
        }
    }
    out
}

/// Two matched context lines around an insertion with file lines between them. Where an
/// insertion cannot go, `insertion_point` gives one of these, or `None` when a neighbour of
/// the insertion is not in the file at all.
struct Gap {
    after: usize,
    before: usize,
}

/// Where a run of added lines goes among the file's lines, from its neighbours' places (`Err`
/// with the gap where file lines lie between them and nothing says on which side).
///
/// `lost`: whether the hunk may have lost a line next to these added lines (its body lacks
/// lines its header counts, or the added lines add back a removed one: [`re_adds`]).
/// Added lines right after removed ones replace them in place, even with file lines between
/// them and the next line (the file grew there since the patch was made), unless a line may
/// be lost: then those file lines may be the context it lost, on either side of the
/// additions.
fn insertion_point(
    prev: Option<usize>,
    next: Option<usize>,
    kinds: &[LineKind],
    mapping: &[Option<usize>],
    lost: impl Fn() -> bool,
) -> Result<usize, Option<Gap>> {
    let m = |i: Option<usize>| i.and_then(|i| mapping[i]);
    let kind = |i: Option<usize>| i.map(|i| kinds[i]);
    if kind(prev) == Some(LineKind::Remove) {
        if let Some(f) = m(prev) {
            return match m(next) {
                Some(b) if b > f + 1 && lost() => Err(Some(Gap {
                    after: f,
                    before: b,
                })),
                _ => Ok(f + 1),
            };
        }
    }
    if kind(next) == Some(LineKind::Remove) {
        if let Some(f) = m(next) {
            // Added lines before removed ones is not how a diff writes a replacement, so
            // they are two changes; if the file has lines between the context before and
            // the removed lines, the patch dropped one, and which side it was on is unknown.
            match (prev, m(prev)) {
                (Some(_), Some(a)) if a + 1 < f => {
                    return Err(Some(Gap {
                        after: a,
                        before: f,
                    }))
                }
                _ => return Ok(f),
            }
        }
    }
    match (prev, next, m(prev), m(next)) {
        (Some(_), Some(_), Some(a), Some(b)) if b == a + 1 => Ok(b),
        (Some(_), None, Some(a), _) => Ok(a + 1),
        (None, Some(_), _, Some(b)) => Ok(b),
        (Some(_), Some(_), Some(a), Some(b)) => Err(Some(Gap {
            after: a,
            before: b,
        })),
        // A neighbour that did not match: the place is unknown.
        _ => Err(None),
    }
}

/// An insertion between two context lines that are next to each other in the file, where
/// one of them has a twin on its far side (the same line, one the hunk does not mention, the
/// matched lines going on past it): the hunk's line is as likely that twin, and then the
/// unmentioned line lies beside the insertion. Two blank lines between functions and a hunk
/// that shows one: whether the added lines go above or below the other is not known from the
/// alignment (fuzz seeds 911073 and 911160), so the gap that reading opens is judged as any
/// other.
fn twin_gap(
    prev: Option<usize>,
    next: Option<usize>,
    kinds: &[LineKind],
    mapping: &[Option<usize>],
    file: &Haystack,
) -> Option<Gap> {
    let (p, n) = (prev?, next?);
    if kinds[p] != LineKind::Context || kinds[n] != LineKind::Context {
        return None;
    }
    let (a, b) = (mapping[p]?, mapping[n]?);
    if b != a + 1 {
        return None;
    }
    // (A line a windowed haystack does not hold reads as no key, no twin, and the window
    // is given up: the search is run again on the whole file.)
    let key = |i: usize| file.key_span(Pass::Fuzzy, i, i + 1).first().map(|k| &**k);
    let twins = |x: usize, y: usize| key(x).is_some() && key(x) == key(y);
    let below = mapping[n + 1..].iter().flatten().next();
    if below.is_some_and(|&c| c > b + 1) && twins(b + 1, b) {
        return Some(Gap {
            after: a,
            before: b + 1,
        });
    }
    let above = mapping[..p].iter().rev().flatten().next();
    if above.is_some_and(|&d| d + 1 < a) && twins(a - 1, a) {
        return Some(Gap {
            after: a - 1,
            before: b,
        });
    }
    None
}

/// The guarded last pass: removed lines must match (folded), drifted or missing context is
/// tolerated, and the result must be one place.
pub(super) fn fuzzy(hay: &Haystack, q: &Query, old: &Old) -> Located {
    let pass = Pass::Fuzzy;
    let ok = keys(pass, &old.texts);
    let n_old = ok.len();
    if !q.hunk.has_changes() {
        return Located::NotFound { reason: None };
    }
    // The anchor: the longest run of removed lines; for a pure insertion, the end of the file
    // it is pinned to, or else the two context lines around the first insertion, which must
    // still be adjacent in the file.
    let slack = 8 + n_old / 2;
    let runs = removed_runs(q.hunk);
    if runs.is_empty() && (q.hunk.at_eof || q.hunk.at_bof) {
        return fuzzy_at_edge(hay, q, old, &ok, slack);
    }
    let anchors = match fuzzy_anchors(q, runs.clone(), n_old) {
        Ok(anchors) => anchors,
        Err(refusal) => return fuzzy_edge_by_shape(hay, q, old, &ok, slack).unwrap_or(refusal),
    };
    let found = fuzzy_placements(hay, q, old, &ok, anchors, &runs, slack);
    if found.several_readings {
        let mut starts: Vec<usize> = found.placements.iter().map(|p| p.start).collect();
        starts.sort();
        starts.dedup();
        return Located::Ambiguous { pass, starts };
    }
    if found.placements.is_empty() {
        return Located::NotFound {
            reason: found.last_reason,
        };
    }
    choose_fuzzy(hay, q, found)
}

/// A pure insertion pinned to the end (or start) of the file: its context aligned with the
/// file's last (or first) lines.
fn fuzzy_at_edge(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    ok: &[std::borrow::Cow<str>],
    slack: usize,
) -> Located {
    let pass = Pass::Fuzzy;
    let n_old = ok.len();
    let mut mapping: Vec<Option<usize>> = vec![None; n_old];
    if q.hunk.at_eof {
        let lo = hay.len().saturating_sub(n_old + slack);
        let keys = hay.key_span(pass, lo, hay.len());
        align(ok, keys, 0, lo, &mut mapping, true);
    } else {
        let hi = (n_old + slack).min(hay.len());
        align(ok, hay.key_span(pass, 0, hi), 0, 0, &mut mapping, false);
    }
    match validate(q, old, &mapping, hay, false) {
        Ok((start, end, inserts, fuzz)) if free(q.taken, start, end) => {
            Located::Placed(Placement {
                start,
                end,
                mapping,
                inserts,
                pass,
                occurrences: 1,
                decided_by: DecidedBy::Unique,
                fuzz: Some(fuzz),
            })
        }
        Ok(_) => Located::NotFound { reason: None },
        Err(r) => Located::NotFound {
            reason: Some(r.reason()),
        },
    }
}

/// A pure insertion shaped as one at an end of the file (numbered at line 1 with context
/// after it only, or with context before it only), refused by the anchors' rule for want of
/// context on its other side. Its context may still fit loosely at that end with the line
/// beside the insertion being the file's first (or last) line: then nothing lies between
/// the insertion and the end, so no line the patch dropped can stand beside it. That fit is
/// taken when its matched lines lie no further apart than any loose fit's may, the hunk is
/// small (a few lines of context, as damage leaves them), none of its lines is too common
/// to look for, and the context fits nowhere else: each of its lines is tried as an anchor,
/// and a fit away from the end makes two places. `None`: the hunk is refused as before.
fn fuzzy_edge_by_shape(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    ok: &[std::borrow::Cow<str>],
    slack: usize,
) -> Option<Located> {
    // Each context line is looked for as an anchor, around up to `MAX_ANCHORS` places.
    const MOST_LINES: usize = 16;
    if ok.len() > MOST_LINES {
        return None;
    }
    let kinds: Vec<LineKind> = q.hunk.lines.iter().map(|l| l.kind).collect();
    let first_ctx = kinds.iter().position(|k| *k == LineKind::Context)?;
    let last_ctx = kinds.iter().rposition(|k| *k == LineKind::Context)?;
    let all = |r: &[LineKind], k: LineKind| r.iter().all(|x| *x == k);
    if !all(&kinds[first_ctx..=last_ctx], LineKind::Context) {
        return None;
    }
    let (before, after) = (&kinds[..first_ctx], &kinds[last_ctx + 1..]);
    let bof = q.hunk.bof_by_shape && !before.is_empty() && after.is_empty();
    let eof = q.hunk.eof_by_shape && before.is_empty() && !after.is_empty();
    if !(bof || eof) || !all(before, LineKind::Add) || !all(after, LineKind::Add) {
        return None;
    }
    let common =
        (0..ok.len()).any(|j| hay.find_all(Pass::Fuzzy, &ok[j..j + 1]).len() > MAX_ANCHORS);
    if common {
        return None;
    }
    let mut pinned = q.hunk.clone();
    pinned.at_bof = bof;
    pinned.at_eof = eof;
    let Located::Placed(edge) = fuzzy_at_edge(
        hay,
        &Query {
            hunk: &pinned,
            ..*q
        },
        old,
        ok,
        slack,
    ) else {
        return None;
    };
    let beside = if bof {
        edge.mapping.first()
    } else {
        edge.mapping.last()
    };
    let edge_line = if bof { 0 } else { hay.len().checked_sub(1)? };
    if beside.copied().flatten() != Some(edge_line) {
        return None;
    }
    // Matched lines further apart than a loose fit's may be (`MAX_GAP`) are no fit here.
    let matched: Vec<usize> = edge.mapping.iter().flatten().copied().collect();
    if matched.windows(2).any(|w| w[1] - w[0] > MAX_GAP + 1) {
        return None;
    }
    // Numbers far from the end point elsewhere: no reason to prefer the end then.
    if q.hint
        .is_some_and(|h| h.abs_diff(edge.start) > FAR_FROM_HINT)
    {
        return None;
    }
    for j in 0..ok.len() {
        let fits = fuzzy_placements(hay, q, old, ok, vec![(j, 1)], &[], slack);
        let elsewhere = fits.placements.iter().find(|p| {
            if bof {
                p.start != 0
            } else {
                p.end != hay.len()
            }
        });
        if let Some(other) = elsewhere {
            let mut starts = vec![edge.start, other.start];
            starts.sort_unstable();
            return Some(Located::Ambiguous {
                pass: Pass::Fuzzy,
                starts,
            });
        }
    }
    Some(Located::Placed(edge))
}

/// Anchors to try, best first, as (offset in the old side, length). A pure insertion tries
/// its two neighbours (still adjacent), then its whole leading context, then its whole
/// trailing context. `Err`: an insertion without context on both sides, refused.
fn fuzzy_anchors(
    q: &Query,
    runs: Vec<(usize, usize)>,
    n_old: usize,
) -> Result<Vec<(usize, usize)>, Located> {
    Ok(match runs.into_iter().max_by_key(|&(s, l)| (l, std::cmp::Reverse(s))) {
        Some(run) => vec![run],
        None => match first_insertion(q.hunk) {
            Some(oi) if oi > 0 && oi < n_old => {
                // A side with fewer context lines than the patch's width lost one; anchor on
                // the intact side first, so the gap is looked for where the loss was.
                let (pair, lead, trail) = ((oi - 1, 2), (0, oi), (oi, n_old - oi));
                let width = q.context_width;
                let lead_short = q.hunk.leading_context() < width && q.hunk.old_start.is_none_or(|s| s > 1);
                let trail_short = q.hunk.trailing_context() < width;
                match (lead_short, trail_short) {
                    (false, true) => vec![lead, pair, trail],
                    (true, false) => vec![trail, pair, lead],
                    _ => vec![pair, lead, trail],
                }
            }
            _ => {
                return Err(Located::NotFound {
                    reason: Some(
                        "an insertion needs context lines on both sides to be placed without an exact match"
                            .into(),
                    ),
                })
            }
        },
    })
}

/// Most places an anchor is looked for around: a line more common than this places nothing.
const MAX_ANCHORS: usize = 512;

/// The loose fits the first anchor that has any gives.
struct FuzzyFits {
    placements: Vec<Placement>,
    /// For each placement, why its insertion is uncertain, if it is: a place where the lines
    /// fit is still a place (with another fit it makes two), but one the hunk cannot be put in.
    uncertain: Vec<Option<String>>,
    /// Why the last fit tried was not one.
    last_reason: Option<String>,
    /// One alignment read more than one way, each a fit ([`close_removed_runs`]): the
    /// place is ambiguous, whatever would decide between other fits.
    several_readings: bool,
}

/// Every loose fit around each occurrence of an anchor, the anchors tried in turn until one
/// gives a fit.
fn fuzzy_placements(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    ok: &[std::borrow::Cow<str>],
    anchors: Vec<(usize, usize)>,
    runs: &[(usize, usize)],
    slack: usize,
) -> FuzzyFits {
    let pass = Pass::Fuzzy;
    let n_old = ok.len();
    let mut out = FuzzyFits {
        placements: Vec::new(),
        uncertain: Vec::new(),
        last_reason: None,
        several_readings: false,
    };
    for (anchor_off, anchor_len) in anchors {
        let needle = &ok[anchor_off..anchor_off + anchor_len];
        let occurrences = hay.find_all(pass, needle);
        if occurrences.len() > MAX_ANCHORS {
            out.last_reason =
                Some("the hunk's lines are too common in the file to place it by them".into());
            continue;
        }
        let strong_anchor = occurrences.len() == 1
            && old.kinds[anchor_off] == LineKind::Remove
            && old.texts[anchor_off..anchor_off + anchor_len]
                .iter()
                .any(|t| !is_trivial(t));
        for a in occurrences {
            let mut mapping: Vec<Option<usize>> = vec![None; n_old];
            for j in 0..anchor_len {
                mapping[anchor_off + j] = Some(a + j);
            }
            // Left of the anchor.
            let left_lo = a.saturating_sub(anchor_off + slack);
            align(
                &ok[..anchor_off],
                hay.key_span(pass, left_lo, a),
                0,
                left_lo,
                &mut mapping,
                true,
            );
            // Right of the anchor.
            let r_old = anchor_off + anchor_len;
            let r_file = a + anchor_len;
            let r_hi = (r_file + (n_old - r_old) + slack).min(hay.len());
            align(
                &ok[r_old..],
                hay.key_span(pass, r_file, r_hi),
                r_old,
                r_file,
                &mut mapping,
                false,
            );
            keep_compact(&mut mapping, anchor_off, anchor_len);

            let (readings, crowded) = close_removed_runs(ok, runs, hay, mapping);
            let mut fits_here = 0;
            for mapping in readings {
                let (validated, why) = match validate(q, old, &mapping, hay, strong_anchor) {
                    Ok(v) => (v, None),
                    Err(Unfit::Insertion { place, reason }) => (place, Some(reason)),
                    Err(Unfit::Lines(r)) => {
                        out.last_reason = Some(r);
                        continue;
                    }
                };
                let (start, end, inserts, fuzz) = validated;
                if q.hunk.at_eof && end != hay.len() {
                    continue;
                }
                fits_here += 1;
                if !out.placements.iter().any(|p| p.mapping == mapping) {
                    out.uncertain.push(why);
                    out.placements.push(Placement {
                        start,
                        end,
                        mapping,
                        inserts,
                        pass,
                        occurrences: 0,
                        decided_by: DecidedBy::Unique,
                        fuzz: Some(fuzz),
                    });
                }
            }
            out.several_readings |= fits_here > 1 || (crowded && fits_here > 0);
        }
        if !out.placements.is_empty() {
            break;
        }
    }
    out
}

/// One of the loose fits, where the rules and the fit agree on it, or an ambiguity.
fn choose_fuzzy(hay: &Haystack, q: &Query, found: FuzzyFits) -> Located {
    let pass = Pass::Fuzzy;
    let FuzzyFits {
        mut placements,
        mut uncertain,
        ..
    } = found;
    let n = placements.len();
    let starts: Vec<usize> = placements.iter().map(|p| p.start).collect();
    // The rules (hint, anchor, order) and the fit must not point at different places: a
    // loose fit is already a guess, and two guesses that disagree are two places.
    let choice = match (decide(hay, q, &starts), by_fit(&placements)) {
        (Some(a), Some(b)) if a.0 != b.0 => None,
        (Some(a), _) => Some(a),
        (None, b) => b,
    };
    match choice {
        Some((start, decided_by)) => {
            // Two different alignments from the same first line are still two places, unless
            // one of them fits far better than the others, as between places.
            let same: Vec<usize> = (0..n).filter(|&i| placements[i].start == start).collect();
            let at = match same.as_slice() {
                [one] => *one,
                _ => match best_fit(same.iter().map(|&i| &placements[i])) {
                    Some(k) => same[k],
                    None => return Located::Ambiguous { pass, starts },
                },
            };
            if let Some(reason) = uncertain.swap_remove(at) {
                return Located::NotFound {
                    reason: Some(reason),
                };
            }
            let mut p = placements.swap_remove(at);
            p.occurrences = n;
            p.decided_by = decided_by;
            // Far from where the numbers point, a loose fit needs a removed line found nowhere
            // else, or one held in place by such a line while the numbers do not point at it
            // elsewhere; a lone `}` or blank line there proves nothing.
            let far = q.hint.is_some_and(|h| p.start.abs_diff(h) > FAR_FROM_HINT);
            let numbers_name_another = || {
                q.hint
                    .is_some_and(|h| removal_near(hay, q.hunk, h, FAR_FROM_HINT, p.start..p.end))
            };
            let insertion = q.hunk.old_lines().all(|l| l.kind == LineKind::Context);
            let vouched = || {
                if insertion {
                    return pinned_insertion(hay, q.hunk, &p.mapping);
                }
                distinctive_removal(hay, q.hunk)
                    || (pinned_removal(hay, q.hunk, &p.mapping) && !numbers_name_another())
            };
            if far && !vouched() {
                let away = p.start.abs_diff(q.hint.unwrap_or(p.start));
                return Located::NotFound {
                    reason: Some(if insertion {
                        format!(
                            "the only loose fit is {away} lines from the hunk's line numbers and no line of its context found once in the file holds its insertion there"
                        )
                    } else {
                        format!(
                            "the only loose fit is {away} lines from the hunk's line numbers and its removed lines are too common to vouch for it"
                        )
                    }),
                };
            }
            Located::Placed(p)
        }
        None => Located::Ambiguous { pass, starts },
    }
}

/// Whether the hunk removes a line that says something and occurs once in the file.
fn distinctive_removal(hay: &Haystack, hunk: &Hunk) -> bool {
    hunk.lines
        .iter()
        .any(|l| l.kind == LineKind::Remove && found_once(hay, &l.text))
}

/// Whether a removed line of `hunk` that says something is in the file within `within` lines
/// of line `at`, outside the fit `fit`: where the numbers point at such a line, a fit far
/// from them is one of two readings (the context's place, or the numbers' with its context
/// misremembered).
fn removal_near(
    hay: &Haystack,
    hunk: &Hunk,
    at: usize,
    within: usize,
    fit: std::ops::Range<usize>,
) -> bool {
    hunk.lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove && !is_trivial(&l.text))
        .any(|l| {
            hay.positions(Pass::Fuzzy, &key(Pass::Fuzzy, &l.text))
                .iter()
                .map(|&p| p as usize)
                .any(|p| p.abs_diff(at) <= within && !fit.contains(&p))
        })
}

/// The runs of old-side lines (as ranges of their indices) that the fit `mapping` puts on
/// consecutive file lines: within one, where one line is decides where the others are.
fn mapped_runs(mapping: &[Option<usize>]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < mapping.len() {
        let Some(mut at) = mapping[k] else {
            k += 1;
            continue;
        };
        let start = k;
        k += 1;
        while k < mapping.len() && mapping[k] == Some(at + 1) {
            at += 1;
            k += 1;
        }
        out.push(start..k);
    }
    out
}

/// Whether `text` says something and occurs once in the file.
fn found_once(hay: &Haystack, text: &str) -> bool {
    !is_trivial(text) && hay.count(Pass::Fuzzy, &key(Pass::Fuzzy, text)) == 1
}

/// Whether the fit `mapping` (a file line for each old-side line of `hunk`) holds a removed
/// line in place by a line that says something and occurs once in the file: the two in one
/// of its [`mapped_runs`].
fn pinned_removal(hay: &Haystack, hunk: &Hunk, mapping: &[Option<usize>]) -> bool {
    let old: Vec<_> = hunk.old_lines().collect();
    mapped_runs(mapping).into_iter().any(|run| {
        let run = &old[run];
        run.iter().any(|l| l.kind == LineKind::Remove)
            && run.iter().any(|l| found_once(hay, &l.text))
    })
}

/// For a hunk that only adds lines: whether the fit `mapping` holds an insertion in place by
/// a context line that says something and occurs once in the file, in the one of its
/// [`mapped_runs`] that holds both of the insertion's neighbours. The insertion's
/// counterpart of [`pinned_removal`].
fn pinned_insertion(hay: &Haystack, hunk: &Hunk, mapping: &[Option<usize>]) -> bool {
    let old: Vec<&str> = hunk.old_lines().map(|l| l.text.as_str()).collect();
    let runs = mapped_runs(mapping);
    group_bounds(hunk, old.len()).into_iter().any(|bounds| {
        let (Some(prev), Some(next)) = bounds else {
            return false;
        };
        runs.iter()
            .find(|r| r.contains(&prev) && r.contains(&next))
            .is_some_and(|r| old[r.clone()].iter().any(|t| found_once(hay, t)))
    })
}

/// Among loose placements, the one that fits far better than every other: fewer of the
/// hunk's context lines missing and fewer unmentioned file lines inside it. A close second
/// decides nothing.
fn by_fit(placements: &[Placement]) -> Option<(usize, DecidedBy)> {
    best_fit(placements.iter()).map(|i| (placements[i].start, DecidedBy::Fit))
}

/// The index of [`by_fit`]'s placement among `placements`, if one fits far better.
fn best_fit<'p>(placements: impl Iterator<Item = &'p Placement>) -> Option<usize> {
    let cost = |p: &Placement| {
        p.fuzz
            .map_or(0, |f| 2 * f.context_mismatched + f.extra_file_lines)
    };
    let mut ranked: Vec<(usize, usize)> =
        placements.enumerate().map(|(i, p)| (cost(p), i)).collect();
    ranked.sort();
    match ranked.as_slice() {
        [(c1, i), (c2, _), ..] if *c2 >= 2 * c1 + 2 => Some(*i),
        _ => None,
    }
}

/// Most readings of one alignment [`close_removed_runs`] gives; past that it says so, and
/// the place is ambiguous.
const MAX_READINGS: usize = 8;

/// The alignment's readings with each run of removed lines together. An alignment may spread
/// a run out, a file line left between two of its lines: context the patch dropped, which
/// stays. Where the run's lines also lie together, line for line, within that stretch, that
/// is the patch as written, and a repair of it is not a reading at all (picomatch's index.js:
/// a removed blank line paired with the blank line two lines on, not the one right below the
/// removed line above it). A run that lies together at several places there gives one
/// reading each, which the caller takes as an ambiguous place; one that lies together
/// nowhere stays spread out. The flag: more than [`MAX_READINGS`] readings, some left out.
fn close_removed_runs(
    ok: &[std::borrow::Cow<str>],
    runs: &[(usize, usize)],
    hay: &Haystack,
    mapping: Vec<Option<usize>>,
) -> (Vec<Vec<Option<usize>>>, bool) {
    let mut readings = vec![mapping];
    let mut crowded = false;
    for &(s, len) in runs.iter().filter(|(_, len)| *len > 1) {
        let mut next = Vec::new();
        for m in readings {
            let (Some(first), Some(last)) = (m[s], m[s + len - 1]) else {
                next.push(m);
                continue;
            };
            if last - first + 1 == len {
                next.push(m);
                continue;
            }
            let together: Vec<usize> = (first..=(last + 1).saturating_sub(len))
                .filter(|&at| hay.matches_at(Pass::Fuzzy, &ok[s..s + len], at))
                .collect();
            if together.is_empty() {
                next.push(m);
                continue;
            }
            for at in together {
                let mut closed = m.clone();
                for (k, slot) in closed[s..s + len].iter_mut().enumerate() {
                    *slot = Some(at + k);
                }
                next.push(closed);
            }
        }
        crowded |= next.len() > MAX_READINGS;
        next.truncate(MAX_READINGS);
        readings = next;
    }
    (readings, crowded)
}

/// Runs of removed lines as (old-line index, length). Added lines end a run: removed lines
/// on either side of an addition belong to different changes, between which the file may
/// have a line the patch dropped.
fn removed_runs(hunk: &Hunk) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut oi = 0usize;
    let mut open = false;
    for l in &hunk.lines {
        match l.kind {
            LineKind::Remove => {
                match runs.last_mut() {
                    Some(r) if open => r.1 += 1,
                    _ => runs.push((oi, 1)),
                }
                open = true;
                oi += 1;
            }
            LineKind::Add => open = false,
            LineKind::Context => {
                open = false;
                oi += 1;
            }
        }
    }
    runs
}

/// The old-line index before which the hunk's first added line sits.
fn first_insertion(h: &Hunk) -> Option<usize> {
    let mut oi = 0;
    for l in &h.lines {
        match l.kind {
            LineKind::Add => return Some(oi),
            _ => oi += 1,
        }
    }
    None
}

/// Align `old` against `file` (an LCS) and record matches into `mapping`.
/// Most lines a fuzzy placement may skip between two of its matched lines. Beyond that, a
/// match is a look-alike elsewhere (the same `total = 0` in the function above), and it and
/// everything further from the anchor are left unmatched.
const MAX_GAP: usize = 5;

fn keep_compact(mapping: &mut [Option<usize>], anchor_off: usize, anchor_len: usize) {
    let mut edge = mapping[anchor_off];
    let mut broken = false;
    for m in mapping[..anchor_off].iter_mut().rev() {
        match (*m, edge) {
            (Some(f), Some(e)) if !broken && e > f && e - f - 1 <= MAX_GAP => edge = Some(f),
            (Some(_), _) => {
                *m = None;
                broken = true;
            }
            (None, _) => {}
        }
    }
    let mut edge = mapping[anchor_off + anchor_len - 1];
    let mut broken = false;
    for m in mapping[anchor_off + anchor_len..].iter_mut() {
        match (*m, edge) {
            (Some(f), Some(e)) if !broken && f > e && f - e - 1 <= MAX_GAP => edge = Some(f),
            (Some(_), _) => {
                *m = None;
                broken = true;
            }
            (None, _) => {}
        }
    }
}

/// `toward_end`: among equally long alignments prefer matches near the end of both slices
/// (the left side of an anchor), so repeated lines pair with the copy next to the anchor.
fn align<S: AsRef<str>>(
    old: &[S],
    file: &[Line],
    old_base: usize,
    file_base: usize,
    mapping: &mut [Option<usize>],
    toward_end: bool,
) {
    if old.is_empty() || file.is_empty() {
        return;
    }
    let (o, f): (Vec<&str>, Vec<&str>) = if toward_end {
        (
            old.iter().rev().map(AsRef::as_ref).collect(),
            file.iter().rev().map(|l| &**l).collect(),
        )
    } else {
        (
            old.iter().map(AsRef::as_ref).collect(),
            file.iter().map(|l| &**l).collect(),
        )
    };
    for (a, b) in lcs_pairs(&o, &f) {
        let (oi, fi) = if toward_end {
            (old.len() - 1 - a, file.len() - 1 - b)
        } else {
            (a, b)
        };
        mapping[old_base + oi] = Some(file_base + fi);
    }
}

/// A longest common subsequence of `a` and `b` as index pairs, choosing among equally long
/// ones the one whose matches come earliest in `b` (so repeated lines such as blanks pair
/// with the copy nearest the start). Quadratic in the slice lengths, which the fuzzy pass
/// keeps to a hunk's size; very large inputs fall back to Myers.
fn lcs_pairs<T: PartialEq + std::hash::Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        let mut out = Vec::new();
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, a, b) {
            if let similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = op
            {
                out.extend((0..len).map(|k| (old_index + k, new_index + k)));
            }
        }
        return out;
    }
    // suffix[i][j] = LCS length of a[i..] and b[j..]
    let w = m + 1;
    let mut suffix = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            suffix[i * w + j] = if a[i] == b[j] {
                suffix[(i + 1) * w + j + 1] + 1
            } else {
                suffix[(i + 1) * w + j].max(suffix[i * w + j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] && suffix[i * w + j] == suffix[(i + 1) * w + j + 1] + 1 {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if suffix[(i + 1) * w + j] == suffix[i * w + j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// `mapping` with each context line that did not match, but whose line in the file the
/// matched lines fix, mapped to that line where it reads as the hunk's line with one name
/// misremembered ([`misremembered`]): `testCargo` written for `test_cargo`, a plural for a
/// singular. The line's place is fixed when the matched lines on both sides of it are as
/// far apart in the file as in the hunk (no line lost or added between them), or, at an
/// edge of the hunk, by the line right beside it. A line the file has as written, or whose
/// name as written is one of the file's own, is no slip: `test_loads` written beside a
/// `test_load` is another function the file has (review of this rule: the edit landed in
/// the sibling).
fn misremembered_lines(
    kinds: &[LineKind],
    texts: &[&str],
    mapping: &[Option<usize>],
    file: &Haystack,
) -> Vec<Option<usize>> {
    let mut out = mapping.to_vec();
    // For each line, the first matched line at or after it.
    let mut next = vec![None; kinds.len() + 1];
    for i in (0..kinds.len()).rev() {
        next[i] = if mapping[i].is_some() {
            Some(i)
        } else {
            next[i + 1]
        };
    }
    let mut prev: Option<usize> = None;
    for i in 0..kinds.len() {
        if mapping[i].is_some() {
            prev = Some(i);
            continue;
        }
        if kinds[i] != LineKind::Context || is_trivial(texts[i]) {
            continue;
        }
        let at = |p: usize| out[p].expect("a line mapped");
        let place = match (prev, next[i + 1]) {
            (Some(p), Some(n)) => {
                (at(n).checked_sub(at(p)) == Some(n - p)).then(|| at(p) + (i - p))
            }
            (Some(p), None) if p + 1 == i => Some(at(p) + 1),
            (None, Some(n)) if n == i + 1 => at(n).checked_sub(1),
            _ => None,
        };
        let Some(f) = place.filter(|&f| f < file.len()) else {
            continue;
        };
        let slip = file
            .line_or_lack(f)
            .and_then(|line| misremembered(texts[i], line));
        let own = |name: &str| {
            file.has_name(name) || file.count(Pass::Fuzzy, &key(Pass::Fuzzy, texts[i])) > 0
        };
        if slip.is_some_and(|name| !own(&name)) {
            out[i] = Some(f);
            // A line mapped so fixes the place of the one after it at the hunk's end.
            prev = Some(i);
        }
    }
    out
}

type Validated = (usize, usize, Vec<usize>, Fuzz);

/// Why a fuzzy mapping gives no placement.
enum Unfit {
    /// Too few of the hunk's lines are in the file there: not a place it fits.
    Lines(String),
    /// The lines fit there (the place, without insertion points), but where the added lines
    /// go among the file's is uncertain: a place the hunk fits, which must still count
    /// against any other.
    Insertion { place: Validated, reason: String },
}

impl Unfit {
    fn reason(self) -> String {
        match self {
            Unfit::Lines(r) | Unfit::Insertion { reason: r, .. } => r,
        }
    }
}

fn shortfall(hunk: &Hunk, mapping: &[Option<usize>], file_len: usize, width: usize) -> Shortfall {
    let first = mapping.iter().flatten().min().copied().unwrap_or(0);
    let last = mapping.iter().flatten().max().copied().unwrap_or(0);
    let lead = hunk.leading_context();
    let trail = hunk.trailing_context();
    Shortfall {
        lead: if first > 0 && !hunk.at_bof {
            width.saturating_sub(lead)
        } else {
            0
        },
        trail: if last + 1 < file_len && !hunk.at_eof {
            width.saturating_sub(trail)
        } else {
            0
        },
    }
}

/// The guards of the fuzzy pass: every removed line matched and each run of them contiguous;
/// at least half the context, and some on each side of the change, still there; enough
/// meaningful lines matched; every insertion point certain.
/// `strong_anchor`: the hunk's removed lines occur once in the file and say something, so
/// they are their own place: no meaningful line of context needs to be there too (the rest
/// of the guards still hold: half the context there, some on each side, certain insertions).
fn validate(
    q: &Query,
    old: &Old,
    mapping: &[Option<usize>],
    file: &Haystack,
    strong_anchor: bool,
) -> Result<Validated, Unfit> {
    let (hunk, context_width) = (q.hunk, q.context_width);
    let file_len = file.len();
    let kinds = &old.kinds;
    for (i, k) in kinds.iter().enumerate() {
        if *k == LineKind::Remove {
            let Some(f) = mapping[i] else {
                return Err(Unfit::Lines(
                    "a removed line is not in the file near the others".into(),
                ));
            };
            // The next removed line may sit a line or two further on (a dropped context
            // line that stays), never far away.
            if i + 1 < kinds.len() && kinds[i + 1] == LineKind::Remove {
                match mapping[i + 1] {
                    Some(g) if g > f && g - f <= 3 => {}
                    _ => {
                        return Err(Unfit::Lines(
                            "the removed lines are not together in the file".into(),
                        ))
                    }
                }
            }
        }
    }
    // The guards below count a misremembered context line as there; the placement and its
    // fuzz do not (it stays unmatched, and mismatched).
    let strict = mapping;
    let filled;
    let mapping = if q.in_turn {
        strict
    } else {
        filled = misremembered_lines(kinds, &old.texts, strict, file);
        &filled
    };
    let ctx_total = kinds.iter().filter(|k| **k == LineKind::Context).count();
    let count_ctx = |m: &[Option<usize>]| {
        kinds
            .iter()
            .zip(m)
            .filter(|(k, m)| **k == LineKind::Context && m.is_some())
            .count()
    };
    let ctx_matched = count_ctx(mapping);
    if ctx_matched * 2 < ctx_total {
        return Err(Unfit::Lines(format!(
            "only {ctx_matched} of {ctx_total} context lines are in the file"
        )));
    }
    let first_change = kinds.iter().position(|k| *k == LineKind::Remove);
    let last_change = kinds.iter().rposition(|k| *k == LineKind::Remove);
    let (lead, trail) = match (first_change, last_change) {
        (Some(f), Some(l)) => (f, kinds.len() - 1 - l),
        _ => {
            let oi = first_insertion(hunk).unwrap_or(0);
            (oi, kinds.len() - oi)
        }
    };
    let side_ok = |range: std::ops::Range<usize>| {
        range.is_empty() || range.into_iter().any(|i| mapping[i].is_some())
    };
    if !side_ok(0..lead) || !side_ok(kinds.len() - trail..kinds.len()) {
        return Err(Unfit::Lines(
            "no context line on one side of the change is in the file".into(),
        ));
    }
    let meaningful_total = old.texts.iter().filter(|t| !is_trivial(t)).count();
    let meaningful = old
        .texts
        .iter()
        .zip(mapping)
        .filter(|(t, m)| m.is_some() && !is_trivial(t))
        .count();
    let needed = if strong_anchor { 1 } else { 3 };
    if meaningful < meaningful_total.min(needed) {
        return Err(Unfit::Lines(
            "too few distinctive lines of the hunk are in the file".into(),
        ));
    }
    let shortfall = shortfall(hunk, strict, file_len, context_width);
    let matched: Vec<usize> = strict.iter().flatten().copied().collect();
    let inserts = insertion_points(
        hunk,
        kinds,
        mapping,
        file_len,
        Some(Gaps { shortfall, file }),
    );
    // Where the insertion is uncertain, the place is the lines' alone.
    let at: &[usize] = inserts.as_deref().unwrap_or_default();
    let start = matched
        .iter()
        .chain(at)
        .copied()
        .min()
        .expect("removed or context lines matched");
    let end = matched
        .iter()
        .map(|f| f + 1)
        .chain(at.iter().copied())
        .max()
        .expect("removed or context lines matched");
    let fuzz = Fuzz {
        context_mismatched: ctx_total - count_ctx(strict),
        extra_file_lines: (end - start) - matched.len(),
    };
    match inserts {
        Ok(inserts) => Ok((start, end, inserts, fuzz)),
        // The lines fit here: a place the hunk may be meant for, only not one it can be
        // put in.
        Err(reason) => Err(Unfit::Insertion {
            place: (start, end, Vec::new(), fuzz),
            reason: reason.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn lines(t: &[&'static str]) -> Vec<Line<'static>> {
        t.iter().map(|l| Cow::Borrowed(*l)).collect()
    }

    fn closed(
        file: &[&'static str],
        run: &[&'static str],
        at: Vec<Option<usize>>,
    ) -> Vec<Vec<Option<usize>>> {
        let file = lines(file);
        let hay = Haystack::new(&file);
        let ok: Vec<Cow<str>> = run.iter().map(|l| key(Pass::Fuzzy, l)).collect();
        close_removed_runs(&ok, &[(0, run.len())], &hay, at).0
    }

    #[test]
    fn a_spread_run_that_lies_together_in_its_stretch_is_read_together() {
        // `a` at 0 and `b` at 3, with `a b` together at 0: the patch as written.
        let got = closed(&["a", "b", "x", "b"], &["a", "b"], vec![Some(0), Some(3)]);
        assert_eq!(got, vec![vec![Some(0), Some(1)]]);
    }

    #[test]
    fn a_run_that_lies_together_twice_in_its_stretch_gives_two_readings() {
        let got = closed(
            &["a", "a", "b", "a", "a", "b"],
            &["a", "a", "b"],
            vec![Some(0), Some(3), Some(5)],
        );
        assert_eq!(
            got,
            vec![
                vec![Some(0), Some(1), Some(2)],
                vec![Some(3), Some(4), Some(5)]
            ]
        );
    }

    #[test]
    fn a_run_that_lies_together_nowhere_stays_spread_out_and_a_run_together_is_left_alone() {
        let spread = vec![Some(0), Some(2)];
        assert_eq!(
            closed(&["a", "x", "b"], &["a", "b"], spread.clone()),
            vec![spread]
        );
        let together = vec![Some(1), Some(2)];
        assert_eq!(
            closed(&["b", "a", "b", "a", "b"], &["a", "b"], together.clone()),
            vec![together]
        );
    }
}

//! The line passes, strictest first: where the hunk's old side fits under each, whether its
//! new side is there already, and the readings at a fit (edges, anchors, bare insertions)
//! that refuse a fit another reading explains as well.

use super::decide::{
    already_at, anchor_positions, decide, free, says_nothing, FAR_FROM_HINT, NEAR,
};
use super::fuzzy::{fuzzy, insertion_points};
use super::Haystack;
use super::{keys, old_side, DecidedBy, Located, Old, Placement, Query};
use crate::patch::{Hunk, LineKind};
use crate::text::normalize::{is_trivial, key, Pass};

/// Where one hunk goes in `hay`. A hunk with no old lines goes where its numbers (or the end
/// of the file) say; any other is looked up under the line passes, strictest first, then as
/// trailing blank lines past the file's end, then as a new side already there, last fuzzily.
pub fn locate(hay: &Haystack, q: &Query) -> Located {
    if let Some(refusal) = lost_its_changes(q.hunk) {
        return refusal;
    }
    let old = old_side(q.hunk);
    let new_texts: Vec<&str> = q.hunk.new_lines().map(|l| l.text.as_str()).collect();

    if old.texts.is_empty() {
        return locate_bare_insertion(hay, q, &new_texts);
    }
    let anchor_gone = anchor_missing(hay, q);

    for pass in Pass::LINE_PASSES {
        if let Some(found) = at_pass(hay, q, &old, &new_texts, pass, anchor_gone) {
            return found;
        }
    }

    if let Some(found) = blank_lines_past_eof(hay, q, &old, &new_texts) {
        return found;
    }
    if let Some(found) = new_side_there(hay, q, &old, &new_texts) {
        return found;
    }
    fuzzy(hay, q, &old)
}

/// A body that changes nothing, short of a header that counts more lines: what it was to
/// change is what it lost (alt corpus execa-f169dacb: a hunk cut at a fence in its context,
/// its 28 added lines read as prose after it). Found, it would read as already applied.
fn lost_its_changes(h: &crate::patch::Hunk) -> Option<Located> {
    h.lost_its_changes().then(|| Located::NotFound {
        reason: Some(format!(
            "the hunk changes nothing, but its header counts {} more line(s) than its body \
             has: the lines it changes are missing from it; resend the hunk whole",
            h.short_by
        )),
    })
}

/// The hunk's old side looked up under one line pass: `None` when it fits nowhere under it
/// (the next pass is tried), else what its fits decide.
fn at_pass(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    new_texts: &[&str],
    pass: Pass,
    anchor_gone: Option<&str>,
) -> Option<Located> {
    let needle = keys(pass, &old.texts);
    let (starts, above_anchor) = pinned_fits(hay, q, pass, &needle);
    if starts.is_empty() {
        return None;
    }
    // The anchor was the author's word on where the hunk goes; without it, lines that
    // say nothing of their own, or fit in several places, do not place the hunk.
    if let Some(anchor) = anchor_gone {
        if starts.len() > 1 || says_nothing(q.hunk) {
            return Some(Located::NotFound {
                reason: Some(anchor_missing_refusal(anchor, &starts)),
            });
        }
    }
    // Braces and blank lines alone that fit only with their indentation changed say
    // nothing of where they belong: a run of `}` at other depths is found almost
    // anywhere. Nor may a looser pass pick among such fits.
    let punctuation = |t: &&str| !t.chars().any(char::is_alphanumeric);
    if pass.ignores_indentation() && old.texts.iter().all(punctuation) {
        if let [one] = starts.as_slice() {
            return Some(Located::NotFound {
                reason: Some(format!(
                    "the hunk's lines are braces and blank lines alone, which fit (at line \
                     {}) only with their indentation changed: too little to place it by; \
                     resend it with a line that says more, exactly as the file has it",
                    one + 1
                )),
            });
        }
        return Some(Located::Ambiguous { pass, starts });
    }
    match decide(hay, q, &starts) {
        Some((start, decided_by)) => {
            // The anchors told this fit from those above them.
            let decided_by = match decided_by {
                DecidedBy::Unique if above_anchor => DecidedBy::Anchor,
                other => other,
            };
            let fit = Fit {
                pass,
                start,
                end: start + needle.len(),
                occurrences: starts.len(),
                decided_by,
            };
            Some(at_fit(hay, q, old, new_texts, fit))
        }
        // A looser pass only adds candidates; it must not pick one of them over the
        // stricter matches that were already undecidable.
        None => Some(Located::Ambiguous { pass, starts }),
    }
}

/// The one fit a line pass decided on: the old side matched at `start..end`.
pub(super) struct Fit {
    pass: Pass,
    start: usize,
    end: usize,
    occurrences: usize,
    decided_by: DecidedBy,
}

/// What a decided fit is: the hunk placed there, already applied there, or refused because
/// another reading of the hunk (a nearer loose fit, additions at an edge) fits as well.
fn at_fit(hay: &Haystack, q: &Query, old: &Old, new_texts: &[&str], fit: Fit) -> Located {
    let Fit {
        pass,
        start,
        end,
        occurrences,
        decided_by,
    } = fit;
    // A structured edit that found its old text exactly here knows its place: the readings
    // that weigh a guess (added lines beside their twin: applied already, or a repeat?) are
    // not asked.
    let known =
        q.hunk.known_place && pass == Pass::Exact && q.numbers_here && q.hint == Some(start);
    if !known {
        if let Some(other) = other_reading(hay, q, old, new_texts, &fit) {
            return other;
        }
    }
    let mapping: Vec<Option<usize>> = (start..end).map(Some).collect();
    let inserts = insertion_points(q.hunk, &old.kinds, &mapping, hay.len(), None)
        .expect("a contiguous match always has insertion points");
    Located::Placed(Placement {
        start,
        end,
        mapping,
        inserts,
        pass,
        occurrences,
        decided_by,
        fuzz: None,
    })
}

/// What refuses, or reads otherwise, a fit whose place is inferred: its new side already
/// there, a nearer loose fit, additions at an edge that another reading explains as well.
/// `None`: the hunk is placed at the fit.
fn other_reading(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    new_texts: &[&str],
    fit: &Fit,
) -> Option<Located> {
    let &Fit {
        pass,
        start,
        end,
        decided_by,
        ..
    } = fit;
    if already_at(hay, q.hunk, pass, start, old.texts.len(), new_texts) {
        if q.hunk.short_by > 0 {
            return Some(short_body_refusal(q.hunk, start, true));
        }
        // `diff`'s shape says the hunk reaches that end of the file, and its new
        // side does: as git reads it, applied already.
        let (n_old, n_new) = (old.texts.len(), new_texts.len());
        let ends = q.hunk.eof_by_shape && start + n_new == hay.len();
        let starts = q.hunk.bof_by_shape && start + n_old == n_new;
        if ends || starts {
            return Some(Located::AlreadyApplied {
                start: if ends { start } else { 0 },
                pass,
            });
        }
        return Some(repeat_or_applied_refusal(q.hunk, start));
    }
    // The old side matched only loosely where the new side is there more strictly:
    // a change of whitespace or punctuation that has already been made. Only a
    // new side that covers the very region the old side matched says so: a
    // shorter one (a deletion's context) is there whether or not it was applied.
    if let Some(stricter) = Pass::LINE_PASSES.into_iter().find(|p| *p < pass) {
        if new_texts.len() == old.texts.len()
            && hay.matches_at(stricter, &keys(stricter, new_texts), start)
        {
            return Some(Located::AlreadyApplied {
                start,
                pass: stricter,
            });
        }
    }
    if let Some(rival) = nearer_loose_fit(hay, q, old, pass, start, decided_by) {
        let mut starts = vec![start, rival];
        starts.sort();
        return Some(Located::Ambiguous {
            pass: Pass::Fuzzy,
            starts,
        });
    }
    if let Some(refusal) = edge_additions_unsure(hay, q, start, end) {
        return Some(refusal);
    }
    match edge_by_shape(hay, q, start, end) {
        EdgeReading::BesideContext => {}
        EdgeReading::AtEdge(pinned) => {
            let pq = Query {
                hunk: &pinned,
                ..*q
            };
            return Some(match fuzzy(hay, &pq, old) {
                placed @ Located::Placed(_) => placed,
                _ => two_edge_readings(hay, &pinned, start, end),
            });
        }
        EdgeReading::Both(pinned) => {
            return Some(two_edge_readings(hay, &pinned, start, end));
        }
    }
    None
}

/// The old side is nowhere: maybe the new side is already there — where the hunk would
/// land, by the same rules that place it. Loosely matched, it counts only when the added
/// lines say something (a lone `}` matches too easily). `None`: the fuzzy pass decides.
fn new_side_there(hay: &Haystack, q: &Query, old: &Old, new_texts: &[&str]) -> Option<Located> {
    if !q.hunk.has_changes() {
        return None;
    }
    let (removed, added) = own_change(q.hunk, old, new_texts);
    let distinctive = added.iter().any(|t| !is_trivial(t));
    // A deletion: the new side is only lines the old side has too.
    let deletion = added.is_empty() && !removed.is_empty();
    // The new side found under a looser pass tells that the change is made only when the
    // change is not made of what that pass folds. A change of whitespace within lines is no
    // change under the passes that fold it, and its new side is found there whether or not
    // it was made (alt set q, camino-1c322ef4: a doc comment re-indented, read as already
    // applied). Sides that read alike exactly too (a `...` that is code, a JavaScript spread
    // or a Python stub the REPLACE keeps) share nothing a pass folds.
    let alike_exactly = std::cell::OnceCell::new();
    let folded = |pass: Pass| {
        sides_alike(pass, &old.texts, new_texts)
            && !*alike_exactly.get_or_init(|| sides_alike(Pass::Exact, &old.texts, new_texts))
    };
    for pass in Pass::LINE_PASSES {
        if pass > Pass::Exact && (!distinctive || folded(pass)) {
            break;
        }
        let needle = keys(pass, new_texts);
        if needle.is_empty() {
            break;
        }
        let (starts, _) = pinned_fits(hay, q, pass, &needle);
        if starts.is_empty() {
            continue;
        }
        let Some((start, _)) = decide(hay, q, &starts) else {
            // In several places: no evidence of this hunk's place. The fuzzy pass may
            // still find the old side.
            break;
        };
        // The old side may still fit loosely elsewhere — the same lines in a sibling
        // function the patch does not mean. Nearer the hint, that is the place; with no
        // hint to tell them apart, it is two places.
        let end = start + needle.len();
        let old_fit = fuzzy(hay, q, old);
        if let Located::Placed(p) = &old_fit {
            let elsewhere = p.end <= start || p.start >= end;
            match q.hint {
                Some(h) if elsewhere && p.start.abs_diff(h) + 3 <= start.abs_diff(h) => {
                    return Some(old_fit);
                }
                None if elsewhere => {
                    let mut starts = vec![start, p.start];
                    starts.sort();
                    return Some(Located::Ambiguous {
                        pass: Pass::Fuzzy,
                        starts,
                    });
                }
                _ => {}
            }
        }
        // The old side fits loosely too, perhaps with the line the body lacks in a gap:
        // then "not yet applied" explains the file as well as "already applied". A body
        // without counts (a Codex or SEARCH/REPLACE hunk, a numberless header) may lack
        // lines as well as one whose header says so. And where the added lines say
        // nothing (a blank line, a brace), the line the body may lack is as likely the
        // one that shows the change is not made: such lines are beside most lines.
        let maybe_short = q.hunk.short_by > 0 || q.hunk.old_start.is_none();
        let old_fits = !matches!(old_fit, Located::NotFound { .. });
        let old_here = match &old_fit {
            Located::Placed(p) => p.start < end + 3 && p.end + 3 > start,
            Located::Ambiguous { starts, .. } => starts.iter().any(|&s| s.abs_diff(start) <= 3),
            _ => false,
        };
        // A deletion's new side is lines its old side has too (its context, or a REPLACE
        // that keeps part of its SEARCH), there whether or not the other lines went: where
        // its old side fits there as well, or a line it removes still stands right there,
        // the file says nothing of which (fuzz seed 950740: a dropped `}` between the kept
        // lines and the removed `module.exports`).
        if deletion {
            // Beside the kept lines, not among them: a removed line may read as a kept one
            // (a duplicate line deleted).
            let (lo, hi) = (start.saturating_sub(3), (end + 3).min(hay.len()));
            let beside = |k: usize| hay.key_span(pass, k, k + 1).first().map(|l| &**l);
            let standing = (lo..start).chain(end..hi).find(|&k| {
                removed
                    .iter()
                    .any(|t| !is_trivial(t) && beside(k) == Some(&*key(pass, t)))
            });
            if old_here || standing.is_some() {
                return Some(Located::NotFound {
                    reason: Some(format!(
                        "the lines this deletion keeps are at line {}, but {}, so whether it \
                         is already made is uncertain; resend the hunk with all its context lines",
                        start + 1,
                        match standing {
                            Some(k) =>
                                format!("a line it removes is still there, at line {}", k + 1),
                            None => "its old side fits there too".to_string(),
                        }
                    )),
                });
            }
        }
        if maybe_short && (old_fits || !distinctive) {
            return Some(short_body_refusal(q.hunk, start, old_fits));
        }
        return Some(Located::AlreadyApplied { start, pass });
    }
    None
}

/// A body short of its header (lines dropped, or counts wrong) matched the file at
/// `start..end`, and lines it adds come first or last, beside a context line, with no line
/// of the file's after (or before) them in the hunk. The lines the header counts and the
/// body lacks may sit between those additions and the rest of the body, that is, the
/// additions may belong up to that many lines further out. Where that gives a different
/// file, nothing tells the two readings apart, and the hunk is refused.
///
/// The numbers rule out one side when they pin the body: a body at exactly the header's
/// start lacks no line before it, and one exactly `short_by` lines after it lacks none
/// after it.
fn edge_additions_unsure(hay: &Haystack, q: &Query, start: usize, end: usize) -> Option<Located> {
    let (h, k) = (q.hunk, q.hunk.old_short_by);
    let (first, last) = edge_additions(h)?;
    let texts = |r: std::ops::Range<usize>| -> Vec<&str> {
        h.lines[r].iter().map(|l| l.text.as_str()).collect()
    };
    let (first, last) = (first.map(texts), last.map(texts));
    let differs = |block: &[&str], lo: usize, hi: usize| reads_differently(hay, block, lo, hi);
    let after_ruled_out = q.hint.is_some_and(|s| start == s + k);
    let before_ruled_out = q.hint.is_some_and(|s| start == s);
    let hi = (end + k).min(hay.len());
    let lo = start.saturating_sub(k);
    let unsure = match (&last, &first) {
        (Some(block), _) if !after_ruled_out && hi > end && differs(block, end, hi) => {
            Some((end, hi, "last"))
        }
        (_, Some(block)) if !before_ruled_out && lo < start && differs(block, lo, start) => {
            Some((lo, start, "first"))
        }
        _ => None,
    };
    let (lo, hi, which) = unsure?;
    Some(Located::NotFound {
        reason: Some(format!(
            "the hunk's header counts {k} more line(s) than its body has, and the lines it adds \
             come {which} with no line of the file beyond them: the missing line(s) may be {}, \
             which would put the additions on the other side of them, a different file; resend \
             the hunk with all its lines (or with counts that match them)",
            if hi - lo == 1 {
                format!("line {hi}")
            } else {
                format!("lines {}-{hi}", lo + 1)
            }
        )),
    })
}

/// The lines a hunk adds first and last (as ranges of its lines), where [`edge_additions`]
/// finds them.
pub type EdgeAdditions = (
    Option<std::ops::Range<usize>>,
    Option<std::ops::Range<usize>>,
);

/// A body whose old side is short of its header (`old_short_by`: a context or removed line
/// lost; a new side alone short is a miscount), and the lines it adds first and last where they
/// stand beside a context line (as ranges of its lines): a missing line may sit between such
/// additions and the rest of the body, so that they go on its other side. `None` for a body
/// not short, or all additions (placed by other rules), or without such additions. Lines
/// right after (or before) removed lines replace them, wherever a dropped line was.
pub fn edge_additions(h: &crate::patch::Hunk) -> Option<EdgeAdditions> {
    let n = h.lines.len();
    let is_add = |l: &&crate::patch::Line| l.kind == LineKind::Add;
    let lead = h.lines.iter().take_while(is_add).count();
    let trail = h.lines.iter().rev().take_while(is_add).count();
    if h.old_short_by == 0 || trail == n {
        return None;
    }
    let beside_context = |i: usize| h.lines[i].kind == LineKind::Context;
    let last = (trail > 0 && beside_context(n - trail - 1)).then_some(n - trail..n);
    let first = (lead > 0 && beside_context(lead)).then_some(0..lead);
    (first.is_some() || last.is_some()).then_some((first, last))
}

/// Where `diff`'s one-sided shape (see [`Hunk::eof_by_shape`]) puts the additions of a hunk
/// that matches `start..end` a few lines short of that end of the file.
enum EdgeReading {
    /// No other reading: the additions go beside the context, as a model writes them.
    BesideContext,
    /// At the end of the file, past lines the patch lost from its context (the hunk pinned).
    AtEdge(Hunk),
    /// Either; the hunk pinned, for the refusal's words.
    Both(Hunk),
}

/// The additions come last (first), after (before) a context line, and the file has a few
/// more lines there, no more than the patch's context width leaves room for beside the
/// hunk's context. Then the hunk may be `diff`'s, at the end of the file with those lines
/// lost from its context (the corpus's interior context line dropped, counts recomputed), as
/// git reads it, or a model's, with the additions right beside the context. With the context
/// whole, no lost line explains the file's extra lines: beside the context it is. Between
/// the two, one thing tells them apart: additions that would land before a line indented
/// deeper than any of them cut the block that line belongs to (a top-level `def` between a
/// function's last two lines), which no model means, so the end of the file it is; otherwise
/// the hunk is refused.
fn edge_by_shape(hay: &Haystack, q: &Query, start: usize, end: usize) -> EdgeReading {
    let h = q.hunk;
    let n = h.lines.len();
    let is_add = |l: &&crate::patch::Line| l.kind == LineKind::Add;
    let lead_adds = h.lines.iter().take_while(is_add).count();
    let trail_adds = h.lines.iter().rev().take_while(is_add).count();
    if trail_adds == n {
        return EdgeReading::BesideContext;
    }
    let texts = |r: std::ops::Range<usize>| -> Vec<&str> {
        h.lines[r].iter().map(|l| l.text.as_str()).collect()
    };
    let differs = |block: &[&str], lo: usize, hi: usize| reads_differently(hay, block, lo, hi);
    let beside_context = |i: usize| h.lines[i].kind == LineKind::Context;
    let lost = |context: usize| q.context_width.saturating_sub(context);
    let len = hay.len();
    if h.eof_by_shape
        && trail_adds > 0
        && beside_context(n - trail_adds - 1)
        && end < len
        && len - end <= lost(h.leading_context())
    {
        let block = texts(n - trail_adds..n);
        if !differs(&block, end, len) {
            return EdgeReading::BesideContext;
        }
        let mut pinned = h.clone();
        pinned.at_eof = true;
        let depth = |t: &str| crate::text::normalize::indentation(t).len();
        let shallowest = block
            .iter()
            .filter(|t| !t.trim().is_empty())
            .map(|t| depth(t))
            .min();
        let next = hay
            .key_span(Pass::Exact, end, len)
            .iter()
            .find(|t| !t.trim().is_empty())
            .map(|t| depth(t));
        return match (shallowest, next) {
            (Some(s), Some(g)) if g > s => EdgeReading::AtEdge(pinned),
            _ => EdgeReading::Both(pinned),
        };
    }
    if h.bof_by_shape
        && lead_adds > 0
        && beside_context(lead_adds)
        && start > 0
        && start <= lost(h.trailing_context())
        && differs(&texts(0..lead_adds), 0, start)
    {
        let mut pinned = h.clone();
        pinned.at_bof = true;
        return EdgeReading::Both(pinned);
    }
    EdgeReading::BesideContext
}

/// The first of the hunk's Codex `@@` anchors that is not in the file (or not after the one
/// before it), when the whole file is searched.
fn anchor_missing<'h>(hay: &Haystack, q: &Query<'h>) -> Option<&'h str> {
    // In a window of the text, an anchor outside it is not missing: only a search of the
    // whole text (which a window that lacks lines asks for anyway) can say.
    if q.hunk.anchors.is_empty()
        || hay.window.is_some()
        || !anchor_positions(hay, q, None).is_empty()
    {
        return None;
    }
    let (mut known, mut found) = (Vec::new(), None);
    for a in &q.hunk.anchors {
        known.push(a.clone());
        let part = Hunk {
            anchors: known.clone(),
            ..Hunk::default()
        };
        if anchor_positions(hay, &Query { hunk: &part, ..*q }, None).is_empty() {
            found = Some(a.as_str());
            break;
        }
    }
    found.or(q.hunk.anchors.last().map(String::as_str))
}

/// Whether a placed hunk's `@@` anchor is missing from the file: a warning in the report.
pub fn anchor_missing_warning(lines: &Haystack, hunk: &Hunk) -> Option<String> {
    let q = Query {
        hunk,
        hint: None,
        prev_end: 0,
        ordered: false,
        taken: &[],
        context_width: 3,
        in_turn: false,
        numbers_here: false,
    };
    anchor_missing(lines, &q).map(|a| {
        format!(
            "its @@ anchor {a:?} is not in the file; placed by its other lines alone (check that \
             the edit is where you meant it)"
        )
    })
}

fn anchor_missing_refusal(anchor: &str, starts: &[usize]) -> String {
    let fits = match starts {
        [one] => format!("fit once (line {}) but say nothing of their own", one + 1),
        many => format!(
            "fit at {} places (lines {})",
            many.len(),
            many.iter()
                .take(8)
                .map(|s| (s + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "the hunk's @@ anchor {anchor:?} is not in the file, and its other lines {fits}: \
         without the anchor nothing says where it goes; re-read the file and resend the hunk \
         with its anchor as the file has it"
    )
}

/// The refusal of a hunk whose additions [`edge_by_shape`] would put at an end of the file
/// that lines the hunk does not mention keep from them: beside the context, as a model means
/// it, or at the end, as `diff`'s shape says — two files.
fn two_edge_readings(hay: &Haystack, pinned: &Hunk, start: usize, end: usize) -> Located {
    let (lo, hi, before, side, edge) = if pinned.at_eof {
        (end, hay.len(), "before", "after", "end")
    } else {
        (0, start, "after", "before", "start")
    };
    let lines = if hi - lo == 1 {
        format!("line {hi} of the file is")
    } else {
        format!("lines {}-{hi} of the file are", lo + 1)
    };
    Located::NotFound {
        reason: Some(format!(
            "the hunk has context {before} its added lines only, which diff writes only at the \
             {edge} of a file, but {lines} {side} that context: the additions go either right \
             {side} the context, or {side} those lines if the patch lost them from its context \
             (two different files); resend the hunk with a context line {side} the addition to \
             say which"
        )),
    }
}

/// Whether `block` put beside the file's lines `lo..hi` reads differently on their other
/// side: where it does, which side the block goes is a choice that matters.
fn reads_differently(hay: &Haystack, block: &[&str], lo: usize, hi: usize) -> bool {
    let span = hay.key_span(Pass::Exact, lo, hi);
    let others = || span.iter().map(|l| &**l);
    let a = block.iter().copied().chain(others());
    let b = others().chain(block.iter().copied());
    span.len() != hi - lo || !a.eq(b)
}

/// A hunk whose body is short of its header looks already applied at `start`. The lines it
/// lacks may be the ones that, put back, show the change is not there yet (a line the
/// change duplicates, dropped from the context, leaves a body whose new side the unchanged
/// file already has). Neither reading is safe, so the hunk is refused. A body without counts
/// (Codex, SEARCH/REPLACE, a numberless header) is refused the same way where its old side
/// fits there too around a line it does not mention (`old_fits`), or where the lines it adds
/// say nothing (blank, punctuation).
fn short_body_refusal(hunk: &Hunk, start: usize, old_fits: bool) -> Located {
    let why = if hunk.short_by > 0 {
        "its header counts more lines than its body has, and a missing line may be what shows \
         the change is not there yet; resend the hunk with all its lines (or with counts that \
         match them)"
    } else if old_fits {
        "its old side fits there too with a line of the file between (perhaps a line the hunk \
         lost), so whether the change is already made is uncertain; resend the hunk with all its \
         context lines"
    } else {
        "the lines it adds say nothing of their own (blank lines or punctuation, if any), and a \
         context line the hunk may have lost could be what shows the change is not made yet; \
         resend the hunk with all its context lines"
    };
    Located::NotFound {
        reason: Some(format!(
            "the hunk's new side is already at line {}, but {why}",
            start + 1
        )),
    }
}

/// A hunk with context on one side only whose old side is in the file with its added
/// lines already beside it, on the side without context: the file reads the same whether
/// the hunk was applied already or is meant to add those lines a second time (a repeated
/// line, a copied block). Neither reading is safe, so the hunk is refused.
fn repeat_or_applied_refusal(hunk: &Hunk, start: usize) -> Located {
    let side = if hunk.trailing_context() == 0 {
        "after"
    } else {
        "before"
    };
    Located::NotFound {
        reason: Some(format!(
            "the hunk's context is at line {}, with its added lines already {side} it: either \
             the hunk is already applied, or it adds those lines a second time; resend it with \
             a context line {side} the addition to say which",
            start + 1
        )),
    }
}

/// Where `needle` (keyed for `pass`) occurs, keeping only ends of the file the hunk is
/// pinned to, and, for a Codex hunk whose `@@` anchors are in the file, only places from the
/// first line they lead to on: Codex looks for the hunk's lines after its anchors, so a fit
/// above them is not the hunk's (fuzz seed 72282: a blank line and `/**` near the top of the
/// file, the anchor's class further down). The anchor line itself may be the first line.
/// Also whether the anchors ruled out a fit.
fn pinned_fits<S: AsRef<str>>(
    hay: &Haystack,
    q: &Query,
    pass: Pass,
    needle: &[S],
) -> (Vec<usize>, bool) {
    let mut starts = hay.find_all(pass, needle);
    if q.hunk.at_eof {
        starts.retain(|&s| s + needle.len() == hay.len());
    }
    if q.hunk.at_bof {
        starts.retain(|&s| s == 0);
    }
    let found = starts.len();
    if !q.hunk.anchors.is_empty() && found > 0 {
        if let Some(&first) = anchor_positions(hay, q, None).iter().min() {
            starts.retain(|&s| s >= first);
        }
    }
    let ruled_out = starts.len() < found;
    (starts, ruled_out)
}

/// Whether the two sides of a hunk read alike under `pass`, compared in order, a `...` on the
/// old side standing for any lines (the new side is the old side's pattern).
fn sides_alike(pass: Pass, old: &[&str], new: &[&str]) -> bool {
    let new: Vec<_> = new.iter().map(|t| key(pass, t)).collect();
    let parts: Vec<Vec<_>> = old
        .split(|t| crate::patch::is_elision(t))
        .map(|part| part.iter().map(|t| key(pass, t)).collect())
        .collect();
    fits_pattern(&parts, &new)
}

/// Whether `lines` are the runs of `parts` in order, the first at the start and the last at
/// the end, with any lines between two runs (what the `...` between them stands for).
fn fits_pattern<T: PartialEq>(parts: &[Vec<T>], lines: &[T]) -> bool {
    let [first, middle @ .., last] = parts else {
        return parts.first().is_some_and(|p| p.as_slice() == lines);
    };
    if first.len() + last.len() > lines.len() || !lines.starts_with(first) || !lines.ends_with(last)
    {
        return false;
    }
    // Each middle run at its first place after the one before: the earliest leaves the most
    // room for the rest.
    let mut at = first.len();
    let end = lines.len() - last.len();
    for part in middle {
        match find_run(&lines[at..end], part) {
            Some(i) => at += i + part.len(),
            None => return false,
        }
    }
    true
}

/// Where `run` first stands in `lines`, in time linear in both (Knuth-Morris-Pratt): a
/// SEARCH of thousands of lines with a `...` costs its length, not its length squared.
fn find_run<T: PartialEq>(lines: &[T], run: &[T]) -> Option<usize> {
    if run.is_empty() {
        return Some(0);
    }
    // For each prefix of `run`, the length of its longest proper border.
    let mut border = vec![0usize; run.len()];
    let mut k = 0;
    for i in 1..run.len() {
        while k > 0 && run[i] != run[k] {
            k = border[k - 1];
        }
        if run[i] == run[k] {
            k += 1;
        }
        border[i] = k;
    }
    let mut k = 0;
    for (i, line) in lines.iter().enumerate() {
        while k > 0 && *line != run[k] {
            k = border[k - 1];
        }
        if *line == run[k] {
            k += 1;
        }
        if k == run.len() {
            return Some(i + 1 - k);
        }
    }
    None
}

/// The lines a hunk removes and adds of its own, as (removed, added): its removed and added
/// lines, or, in a hunk without context lines (a SEARCH/REPLACE block, every line of which is
/// removed or added), what a line diff of its SEARCH against its REPLACE does not pair. A
/// block that keeps its SEARCH's lines and adds a `}` adds a brace, not the lines it keeps
/// (fuzz seed 950764: "already applied" where the file's `}` at another depth stood in for
/// the added one); one whose REPLACE keeps part of its SEARCH is a deletion.
fn own_change<'t>(
    hunk: &'t Hunk,
    old: &Old<'t>,
    new_texts: &[&'t str],
) -> (Vec<&'t str>, Vec<&'t str>) {
    if hunk.lines.iter().any(|l| l.kind == LineKind::Context) {
        let of = |kind| {
            (hunk.lines.iter())
                .filter(move |l| l.kind == kind)
                .map(|l| l.text.as_str())
                .collect()
        };
        return (of(LineKind::Remove), of(LineKind::Add));
    }
    let (a, b): (Vec<&[u8]>, Vec<&[u8]>) = (
        old.texts.iter().map(|l| l.as_bytes()).collect(),
        new_texts.iter().map(|l| l.as_bytes()).collect(),
    );
    let ops = crate::text::textdiff::diff(&a, &b, crate::text::textdiff::TIMEOUT);
    let changed = |op: &&similar::DiffOp| !matches!(op, similar::DiffOp::Equal { .. });
    (
        ops.iter()
            .filter(changed)
            .flat_map(|op| old.texts[op.old_range()].iter().copied())
            .collect(),
        ops.iter()
            .filter(changed)
            .flat_map(|op| new_texts[op.new_range()].iter().copied())
            .collect(),
    )
}

/// A hunk whose trailing context ends in blank lines the file does not have, because the
/// file ends right before them (its last blank line lost with its final newline, or trimmed
/// by an editor): blank lines at the end of a file are whitespace. The rest must occur once in
/// the file, ending exactly at its end.
fn blank_lines_past_eof(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    new_texts: &[&str],
) -> Option<Located> {
    let k = q
        .hunk
        .lines
        .iter()
        .rev()
        .take_while(|l| l.kind == LineKind::Context && l.text.trim().is_empty())
        .count();
    if k == 0 || k >= old.texts.len() {
        return None;
    }
    let keep = old.texts.len() - k;
    for pass in Pass::LINE_PASSES {
        let needle = keys(pass, &old.texts[..keep]);
        let all = hay.find_all(pass, &needle);
        let starts: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&s| s + keep == hay.len() && free(q.taken, s, hay.len()))
            .collect();
        match starts.as_slice() {
            [] => continue,
            // The rest found anywhere else too is a second place (where the blank lines may
            // still be, or lost as well).
            [start] if all.len() == 1 => {
                let start = *start;
                let new_keep = new_texts.len().saturating_sub(k);
                if new_keep > 0
                    && hay.len() >= new_keep
                    && hay.matches_at(
                        pass,
                        &keys(pass, &new_texts[..new_keep]),
                        hay.len() - new_keep,
                    )
                {
                    return Some(Located::AlreadyApplied {
                        start: hay.len() - new_keep,
                        pass,
                    });
                }
                // Added lines right before the missing blank lines go at the end of the file:
                // the blank lines are read as lines just past it, which no insertion may go
                // beyond (added lines between or after them would lose the blank lines that
                // parted them from the rest).
                let past: Vec<Option<usize>> = (start..hay.len() + k).map(Some).collect();
                let inserts = match insertion_points(q.hunk, &old.kinds, &past, hay.len() + k, None)
                {
                    Ok(i) if i.iter().all(|&at| at <= hay.len()) => i,
                    _ => return None,
                };
                let mut mapping = past;
                mapping.truncate(keep);
                mapping.extend(std::iter::repeat_n(None, k));
                return Some(Located::Placed(Placement {
                    start,
                    end: hay.len(),
                    mapping,
                    inserts,
                    pass: pass.max(Pass::Whitespace),
                    occurrences: 1,
                    decided_by: DecidedBy::Unique,
                    fuzz: None,
                }));
            }
            _ => return None,
        }
    }
    None
}

/// A unique match far from the hint, while the text near the hint still fits loosely: the
/// block may have been copied elsewhere while the intended place drifted. That is two places,
/// not one. Returns the nearer loose start.
fn nearer_loose_fit(
    hay: &Haystack,
    q: &Query,
    old: &Old,
    pass: Pass,
    start: usize,
    decided_by: DecidedBy,
) -> Option<usize> {
    let hint = q.hint?;
    let dist = start.abs_diff(hint);
    // A fit picked from several by its numbers or heading is a weaker choice than the only
    // one: a looser fit nearer the numbers (within NEAR) contests it. Damage to the
    // indentation of a whole hunk moves its true place to a looser pass, while a short
    // context (`}` lines) still fits exactly somewhere else nearby.
    let contested = matches!(decided_by, DecidedBy::Hint | DecidedBy::Anchor);
    if dist <= FAR_FROM_HINT && !(contested && dist > 0) {
        return None;
    }
    // In order (a Codex patch's hunks, an elided hunk's parts), a fit before the part or hunk
    // before is out of order, and contests nothing.
    let nearer = |s: usize| {
        let d = s.abs_diff(hint);
        s != start
            && !(q.ordered && s < q.prev_end)
            && (d * 2 < dist || (contested && d < dist && d <= NEAR))
    };
    for looser in Pass::LINE_PASSES.into_iter().filter(|p| *p > pass) {
        let needle = keys(looser, &old.texts);
        if let Some(s) = hay
            .find_all(looser, &needle)
            .into_iter()
            .find(|&s| nearer(s))
        {
            return Some(s);
        }
    }
    match fuzzy(hay, q, old) {
        Located::Placed(p) if nearer(p.start) => Some(p.start),
        Located::Ambiguous { starts, .. } => starts.into_iter().find(|&s| nearer(s)),
        _ => None,
    }
}

/// A hunk with no old lines at all: only its numbers (or end-of-file) can place it.
fn locate_bare_insertion(hay: &Haystack, q: &Query, new_texts: &[&str]) -> Located {
    let at = if hay.is_empty() {
        Some(0)
    } else if !q.hunk.anchors.is_empty() {
        // Lines added under `@@ anchor` with no other line: Codex's own apply_patch appends
        // them at the end of the file, while the anchor suggests right after it (the
        // innermost anchor line, searched after the previous hunk first, then anywhere). Only
        // where the two are one place is that place certain.
        let mut found = anchor_positions(hay, q, Some(q.prev_end));
        if found.is_empty() {
            found = anchor_positions(hay, q, None);
        }
        match found.as_slice() {
            [] => {
                return Located::NotFound {
                    reason: Some("the hunk's @@ anchor line is not in the file".into()),
                }
            }
            [p] if p + 1 == hay.len() => Some(p + 1),
            [p] => {
                return Located::NotFound {
                    reason: Some(format!(
                        "the hunk adds lines under its @@ anchor (line {}) with no context or \
                         removed line: right after the anchor, or at the end of the file as \
                         Codex's apply_patch puts them? Resend it with a context line from \
                         where they go",
                        p + 1
                    )),
                }
            }
            many => {
                return Located::Ambiguous {
                    pass: Pass::Whitespace,
                    starts: many.iter().map(|p| p + 1).collect(),
                }
            }
        }
    } else if q.hunk.at_eof {
        Some(hay.len())
    } else {
        // Only a line number would place it, and line numbers are never trusted.
        None
    };
    let Some(at) = at else {
        return Located::NotFound {
            reason: Some(
                "the hunk has no context or removed lines, and a line number alone does not place it; resend it with a few lines of context"
                    .into(),
            ),
        };
    };
    // Already there? At the end of the file the added lines would precede `at`; elsewhere
    // they would follow it. Only a block that says something counts as evidence.
    let needle = keys(Pass::Exact, new_texts);
    let already = !needle.is_empty()
        && new_texts.iter().any(|t| !is_trivial(t))
        && if at == hay.len() && at >= needle.len() {
            hay.matches_at(Pass::Exact, &needle, at - needle.len())
        } else {
            hay.matches_at(Pass::Exact, &needle, at)
        };
    if already {
        let start = if at == hay.len() {
            at - needle.len()
        } else {
            at
        };
        return Located::AlreadyApplied {
            start,
            pass: Pass::Exact,
        };
    }
    Located::Placed(Placement {
        start: at,
        end: at,
        mapping: Vec::new(),
        inserts: vec![at],
        pass: Pass::Exact,
        occurrences: 1,
        decided_by: if q.hunk.anchors.is_empty() {
            DecidedBy::Hint
        } else {
            DecidedBy::Anchor
        },
        fuzz: None,
    })
}

#[cfg(test)]
mod tests {
    use super::{find_run, fits_pattern};
    use proptest::prelude::*;

    proptest! {
        /// The linear search finds a run where the plain one does, at the same first place.
        #[test]
        fn find_run_is_the_first_place_a_run_stands(
            lines in prop::collection::vec(0u8..3, 0..40),
            run in prop::collection::vec(0u8..3, 0..5),
        ) {
            let plain = (0..=lines.len().saturating_sub(run.len()))
                .find(|&i| i + run.len() <= lines.len() && lines[i..i + run.len()] == run[..]);
            prop_assert_eq!(find_run(&lines, &run), plain);
        }
    }

    #[test]
    fn a_pattern_takes_any_lines_for_each_elision_and_keeps_the_order() {
        let parts = |p: &[&[u8]]| p.iter().map(|x| x.to_vec()).collect::<Vec<_>>();
        assert!(fits_pattern(&parts(&[b"ab"]), b"ab"));
        assert!(!fits_pattern(&parts(&[b"ab"]), b"ba"));
        assert!(fits_pattern(&parts(&[b"a", b"c"]), b"abbc"));
        assert!(fits_pattern(&parts(&[b"a", b"b", b"c"]), b"axbyc"));
        assert!(!fits_pattern(&parts(&[b"a", b"b", b"c"]), b"acxb"));
        // The runs around an elision may not overlap.
        assert!(!fits_pattern(&parts(&[b"ab", b"bc"]), b"abc"));
        assert!(fits_pattern(&parts(&[b"", b""]), b"anything"));
    }
}

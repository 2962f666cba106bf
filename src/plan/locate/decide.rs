//! The rules that decide between a hunk's fits: its numbers, its heading or anchors, the
//! patch's order, the file's shape; and already-applied detection at a fit.

use super::{keys, DecidedBy, Haystack, Query};
use crate::patch::Hunk;
use crate::text::normalize::{is_trivial, key, Pass};

pub(super) fn free(taken: &[(usize, usize)], s: usize, e: usize) -> bool {
    taken.iter().all(|&(a, b)| e <= a || s >= b)
}

/// A hunk with no trailing (or leading) context that matched where its added lines already
/// follow (or precede) the old block: applying it again would duplicate them.
pub(super) fn already_at(
    hay: &Haystack,
    hunk: &Hunk,
    pass: Pass,
    start: usize,
    old_len: usize,
    new_texts: &[&str],
) -> bool {
    if new_texts.len() <= old_len {
        return false;
    }
    let needle = keys(pass, new_texts);
    (hunk.trailing_context() == 0 && hay.matches_at(pass, &needle, start))
        || (hunk.leading_context() == 0
            && start + old_len >= needle.len()
            && hay.matches_at(pass, &needle, start + old_len - needle.len()))
}

/// Choose among candidate starts, or `None` when nothing decides (ambiguous).
pub(super) fn decide(hay: &Haystack, q: &Query, starts: &[usize]) -> Option<(usize, DecidedBy)> {
    if starts.len() == 1 {
        return Some((starts[0], DecidedBy::Unique));
    }
    let mut pool: Vec<usize> = starts.to_vec();
    if q.ordered {
        let after: Vec<usize> = starts
            .iter()
            .copied()
            .filter(|&s| s >= q.prev_end)
            .collect();
        if !q.hunk.anchors.is_empty() {
            if let Some(c) = by_anchor(
                hay,
                &after,
                &anchor_positions(hay, q, Some(q.prev_end)),
                true,
            ) {
                return Some((c, DecidedBy::Anchor));
            }
            if let Some(c) = by_anchor(hay, starts, &anchor_positions(hay, q, None), true) {
                // A fit before the previous hunk, chosen by an anchor above both, while the
                // order of the patch leaves fits after it: two readings, neither decides.
                if c < q.prev_end && !after.is_empty() {
                    return None;
                }
                return Some((c, DecidedBy::Anchor));
            }
        }
        if after.len() == 1 {
            return Some((after[0], DecidedBy::Order));
        }
        if !after.is_empty() {
            pool = after;
        }
    } else {
        // Line numbers first: a heading decides only what the numbers cannot, but one that
        // is only below where they point says they are off.
        if let Some(c) = by_hint(&pool, q.hint, q.hunk.short_by) {
            if heading_only_below(hay, q, c) || numbers_alone_unsure(q) {
                return None;
            }
            // Numbers a little off that point away from where the shape says: two opinions.
            if q.hint != Some(c) && by_shape(hay, q, &pool).is_some_and(|s| s != c) {
                return None;
            }
            return Some((c, DecidedBy::Hint));
        }
        if q.hunk.section.is_some() || !q.hunk.anchors.is_empty() {
            if let Some(c) = by_anchor(hay, starts, &anchor_positions(hay, q, None), false) {
                // Numbers that are near another fit than the heading's are a second opinion
                // against it: then nothing decides.
                if nearest_near(&pool, q.hint).is_some_and(|n| n != c) {
                    return None;
                }
                if by_shape(hay, q, &pool).is_some_and(|s| s != c) {
                    return None;
                }
                return Some((c, DecidedBy::Anchor));
            }
        }
        // Last, the shape: git's reading of context on one side only, as weak as a heading.
        let c = by_shape(hay, q, &pool)?;
        if nearest_near(&pool, q.hint).is_some_and(|n| n != c) {
            return None;
        }
        return Some((c, DecidedBy::Shape));
    }
    by_hint(&pool, q.hint, q.hunk.short_by)
        .filter(|&c| !heading_only_below(hay, q, c) && !numbers_alone_unsure(q))
        .map(|c| (c, DecidedBy::Hint))
}

/// The one fit at the end (or start) of the file that the hunk's shape points to (see
/// [`Hunk::eof_by_shape`]). Old lines that say nothing of their own (a `}` at the end of
/// the file) are too weak for the shape to place them by.
fn by_shape(hay: &Haystack, q: &Query, starts: &[usize]) -> Option<usize> {
    let h = q.hunk;
    if says_nothing(h) {
        return None;
    }
    let n = h.old_len();
    let at_end = |s: &usize| h.eof_by_shape && s + n == hay.len();
    let at_start = |s: &usize| h.bof_by_shape && *s == 0;
    let mut fits = starts.iter().filter(|s| at_end(s) || at_start(s));
    match (fits.next(), fits.next()) {
        (Some(&one), None) => Some(one),
        _ => None,
    }
}

/// Numbers are all that tell apart the fits of a hunk whose old lines say nothing of their
/// own (braces, blank lines, `*`). A body short of its header lost lines, and where they were
/// (before it or inside) moves its start off the numbers by an unknown amount: the fit the
/// numbers then point at is a guess (fuzz seed 52920: a lone ` *` of a doc comment, its line
/// before lost and the numbers stale, with a ` *` one line off them).
fn numbers_alone_unsure(q: &Query) -> bool {
    q.hunk.short_by > 0 && says_nothing(q.hunk)
}

/// Whether every old line of `hunk` says nothing of its own (braces, blank lines, a lone
/// `*`): such lines fit in many places, so they are weak evidence of where the hunk goes.
pub fn says_nothing(hunk: &Hunk) -> bool {
    hunk.old_lines().all(|l| is_trivial(&l.text))
}

/// The hunk's `@@ … @@` heading is in the file, but nowhere above the lines it would cover
/// from `start`, only below them: git writes the heading that comes before a hunk (a model
/// may name one its first lines hold), so numbers pointing there are off.
fn heading_only_below(hay: &Haystack, q: &Query, start: usize) -> bool {
    if q.hunk.section.is_none() || !q.hunk.anchors.is_empty() {
        return false;
    }
    let end = start + q.hunk.old_len();
    let at = anchor_positions(hay, q, None);
    !at.is_empty() && at.iter().all(|&p| p >= end)
}

/// Lines between a match and its hint beyond which a looser fit near the hint competes.
pub(super) const FAR_FROM_HINT: usize = 20;

/// How far from the hint a fit may be for the numbers to point at it.
pub(super) const NEAR: usize = 20;

/// The candidates as (distance from the hint, start), nearest first.
fn by_distance(starts: &[usize], hint: usize) -> Vec<(usize, usize)> {
    let mut by_dist: Vec<(usize, usize)> = starts.iter().map(|&s| (s.abs_diff(hint), s)).collect();
    by_dist.sort();
    by_dist
}

/// The nearest candidate to the hint, when the hint is close to it (numbers a model got a
/// little wrong) and every other fit is many times further away. A hint midway between
/// two fits, or far from all of them, decides nothing: numbers that are off by much may be
/// off towards the wrong copy. A body `short_by` lines short of its header may start that many
/// lines off its numbers (its dropped leading lines): fits that much nearer or further are
/// as near as each other.
fn by_hint(starts: &[usize], hint: Option<usize>, short_by: usize) -> Option<usize> {
    let by = by_distance(starts, hint?);
    if let [(d1, _), (d2, _), ..] = by.as_slice() {
        if short_by > 0 && *d2 <= d1 + short_by {
            return None;
        }
    }
    match by.as_slice() {
        [(_, s)] => Some(*s),
        // Exactly at the numbers (git's own rule): any other fit a few lines off loses.
        [(0, s), (d2, _), ..] if *d2 >= 3 => Some(*s),
        // Off by some lines: another fit ten times as far is needed to trust them.
        [(d1, s), (d2, _), ..] if *d1 <= NEAR && *d2 >= 10 * d1 => Some(*s),
        _ => None,
    }
}

/// The one candidate nearest the hint, when it is within [`NEAR`]: the fit the numbers
/// point at, even where they do not decide alone.
fn nearest_near(starts: &[usize], hint: Option<usize>) -> Option<usize> {
    match by_distance(starts, hint?).as_slice() {
        [(d1, s), (d2, _), ..] if d1 < d2 && *d1 <= NEAR => Some(*s),
        [(d1, s)] if *d1 <= NEAR => Some(*s),
        _ => None,
    }
}

/// The single candidate inside the block an anchor line opens (the lines after it that are
/// indented deeper, up to the first line that is not): a heading such as `class Foo:` owns
/// both copies of a block inside the class, so it decides nothing there, while `def b():`
/// does decide between a copy in `a` and one in `b`. With `first_after` (Codex's rule) an
/// anchor that opens no block still picks the first fit after it.
fn by_anchor(
    hay: &Haystack,
    starts: &[usize],
    anchors: &[usize],
    first_after: bool,
) -> Option<usize> {
    if anchors.is_empty() || starts.is_empty() {
        return None;
    }
    // A candidate is an anchor's when that anchor is the nearest one above it and it lies
    // inside the block the anchor opens.
    let owner = |s: usize| anchors.iter().copied().filter(|&a| a <= s).max();
    let inside: Vec<usize> = starts
        .iter()
        .copied()
        .filter(|&s| owner(s).is_some_and(|a| s < block_end(hay, a)))
        .collect();
    match inside.as_slice() {
        [one] => return Some(*one),
        // Two fits in one anchor's block (a class heading over two methods): undecided.
        [_, _, ..] => return None,
        [] => {}
    }
    if !first_after {
        return None;
    }
    // No fit inside an anchor's block: the first one after an anchor is taken (Codex's own
    // rule), but only where it is the only one after it (up to the next anchor): a second
    // one there (a copy of the lines further down) is as much "after the anchor".
    let mut chosen: Vec<usize> = anchors
        .iter()
        .filter_map(|&a| {
            let next = anchors.iter().copied().filter(|&b| b > a).min();
            let after: Vec<usize> = starts
                .iter()
                .copied()
                .filter(|&s| s >= a && next.is_none_or(|b| s < b))
                .collect();
            match after.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        })
        .collect();
    chosen.sort();
    chosen.dedup();
    match chosen.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The end of the block that line `a` opens: the first later line, indented no deeper than
/// `a`, that closes it (`}`, `end`, `)`…, itself included) or opens a sibling (it starts with
/// the anchor's own first word, or a declaration keyword). Other shallow lines — the inside
/// of a string literal, a preprocessor line, a label — do not end it.
fn block_end(hay: &Haystack, a: usize) -> usize {
    const OPENERS: &[&str] = &[
        "def",
        "class",
        "async",
        "fn",
        "pub",
        "impl",
        "trait",
        "struct",
        "enum",
        "mod",
        "function",
        "export",
        "func",
        "type",
        "interface",
        "module",
        "package",
        "public",
        "private",
        "protected",
        "static",
        "@",
        "#[",
        "sub",
        "proc",
        "describe(",
        "it(",
        "test(",
    ];
    let width = |l: &str| {
        crate::text::normalize::indentation(l)
            .chars()
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum::<usize>()
    };
    let first_word = |l: &str| l.split_whitespace().next().unwrap_or("").to_string();
    let own = width(hay.line(a));
    let own_word = first_word(hay.line(a));
    for i in a + 1..hay.len() {
        // Past a window's part: the window is to take in the lines from here.
        let Some(l) = hay.line_or_lack(i) else {
            return hay.len();
        };
        let t = l.trim();
        if t.is_empty() || width(l) > own {
            continue;
        }
        if t.starts_with(['}', ')', ']']) || t == "end" || t.starts_with("end ") {
            return i + 1;
        }
        let w = first_word(l);
        if w == own_word || OPENERS.iter().any(|o| t.starts_with(o)) {
            return i;
        }
    }
    hay.len()
}

/// Lines of the file that the hunk's anchors name: Codex `@@ x` lines (each narrowing the
/// next), else the unified `@@ … @@ section` heading (which git may have truncated).
pub(super) fn anchor_positions(hay: &Haystack, q: &Query, from: Option<usize>) -> Vec<usize> {
    let find = |text: &str, prefix_ok: bool| -> Vec<usize> {
        for pass in [Pass::Whitespace, Pass::Unicode] {
            let k = key(pass, text).into_owned();
            if k.is_empty() {
                return Vec::new();
            }
            let mut v: Vec<usize> = hay
                .positions(pass, &k)
                .iter()
                .map(|&p| p as usize)
                .filter(|&p| {
                    hay.key_span(pass, p, p + 1)
                        .first()
                        .is_some_and(|l| **l == *k)
                })
                .collect();
            if v.is_empty() && prefix_ok && hay.whole() {
                let keys = hay.keys(pass);
                v = (0..hay.len())
                    .filter(|&p| keys[p].starts_with(&k))
                    .collect();
            }
            if !v.is_empty() {
                return v;
            }
        }
        Vec::new()
    };
    if !q.hunk.anchors.is_empty() {
        let mut current: Vec<usize> = vec![from.unwrap_or(0)];
        let mut first = true;
        for a in &q.hunk.anchors {
            let pos = find(a, true);
            // Each anchor must follow the previous one; keep the nearest follower of each.
            let mut next: Vec<usize> = current
                .iter()
                .filter_map(|&c| {
                    pos.iter()
                        .copied()
                        .filter(|&p| if first { p >= c } else { p > c })
                        .min()
                })
                .collect();
            if first {
                next = pos.iter().copied().filter(|&p| p >= current[0]).collect();
            }
            next.sort();
            next.dedup();
            current = next;
            first = false;
            if current.is_empty() {
                break;
            }
        }
        return current;
    }
    match &q.hunk.section {
        Some(s) => find(s, true),
        None => Vec::new(),
    }
}

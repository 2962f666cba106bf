//! Why a hunk did not fit and what the file has instead (diagnostics), what a fit that
//! worked should still say (warnings), and the closest existing path for a missing one.
//!
//! A diagnosis must let the sender fix its hunk in one try and fit in a model's context, so
//! everything here is bounded: the closest region is found through the per-pass line index
//! (only the positions of the hunk's own lines are read, never a scan of the file per hunk),
//! and what is kept of lines, regions and differences is capped.

use similar::{Algorithm, DiffTag};

use super::locate::{Haystack, Located, Placement};
use crate::patch::{FilePatch, Hunk, LineKind};
use crate::text::file::Line;
use crate::text::normalize::{fold, is_trivial, key, Pass};

mod paths;
mod warnings;
#[cfg(test)]
mod tests;

pub use paths::{closest_path, MAX_KNOWN_PATHS};
pub use warnings::{order_warnings, placement_warnings, Warning, WarningKind, FAR_FROM_HINT};

/// Old-side lines of a failed hunk kept in its diagnostic.
const MAX_EXPECTED: usize = 8;
/// File lines of the closest region kept.
const MAX_REGION: usize = 10;
/// Differing lines described.
const MAX_DIFFERENCES: usize = 3;
/// Characters kept of any one line (minified files have very long ones).
const MAX_TEXT: usize = 300;
/// Positions of one line consulted when clustering; beyond this the nearest to the hint.
const MAX_POSITIONS: usize = 64;
/// File lines one `// ... existing code ...` line of a hunk may stand for when clustering.
const ELISION_SPAN: usize = 200;
// ------------------------------------------------------------------------------ diagnostics

/// Why one hunk could not be placed, and what the file has instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The line (1-based) the search started from: the `@@` numbers moved by the offsets of
    /// earlier hunks. Absent when the hunk has no numbers (the whole file was searched).
    pub searched_from: Option<usize>,
    /// The hunk's `@@` section heading or Codex `@@` anchors (outermost first, joined by ` > `).
    pub anchor: Option<String>,
    /// How many old-side lines (context and removed) the hunk has.
    pub expected_lines: usize,
    /// The hunk's old side as the patch has it, numbered from 1; long hunks keep their first
    /// and last lines only.
    pub expected: Vec<NumberedLine>,
    /// What was found, most telling first.
    pub findings: Vec<Finding>,
    /// The file region that looks most like the hunk's old side.
    pub closest: Option<Closest>,
    /// One sentence saying what to do.
    pub advice: String,
}

/// A line of the hunk (numbered within its old side) or of the file (numbered in the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberedLine {
    /// 1-based.
    pub line: usize,
    /// The text without its line terminator (cut at 300 characters, ending in `…`).
    pub text: String,
}

/// A fact about a failed hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The hunk fits at several places (1-based first lines) and nothing decides.
    Ambiguous {
        /// The first line of each place it fits.
        lines: Vec<usize>,
    },
    /// The hunk's result is mostly in the file already, starting at `line`.
    AlreadyApplied {
        /// Where the new side starts (1-based).
        line: usize,
        /// Lines of the hunk's new side found there.
        matched: usize,
        /// Lines of the hunk's new side.
        total: usize,
    },
    /// The hunk belongs before an earlier hunk of the file: hunks must come in file order.
    OutOfOrder {
        /// Where the hunk belongs (1-based), by its numbers or by where its lines are.
        line: usize,
        /// The earlier hunk it comes before (1-based).
        previous_hunk: usize,
        /// Where that earlier hunk is (1-based).
        previous_line: usize,
    },
    /// The hunk fits at `line`, but an earlier hunk (`hunk`) already changes those lines.
    Overlaps {
        /// Where the hunk's lines are (1-based).
        line: usize,
        /// The earlier hunk that changes them (1-based).
        hunk: usize,
    },
    /// The hunk fits at `line`, but it must end at the end of the file and does not there.
    NotAtEnd {
        /// Where the hunk's lines are (1-based).
        line: usize,
    },
    /// The hunk fits at `line`, but it must start at the top of the file and does not there.
    NotAtStart {
        /// Where the hunk's lines are (1-based).
        line: usize,
    },
    /// None of the hunk's distinctive lines is anywhere in the file.
    NoLines,
    /// The hunk's lines are in another file of the patch, from `line` on: it was sent
    /// for the wrong file.
    InOtherFile {
        /// The other file, as the patch names it.
        path: String,
        /// Where the hunk's lines start in it (1-based).
        line: usize,
    },
}

/// The region of the file most like the hunk's old side, and how they differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    /// First line of the region (1-based).
    pub start: usize,
    /// Last line of the region (1-based, inclusive).
    pub end: usize,
    /// Old-side lines of the hunk found in the region, ignoring whitespace and typographic
    /// substitutions.
    pub matched: usize,
    /// The region as the file has it; long regions keep the lines around the differences.
    pub lines: Vec<NumberedLine>,
    /// How many differing lines there are in all.
    pub difference_count: usize,
    /// The first differences (at most three), those that prevent a match first.
    pub differences: Vec<Difference>,
}

/// How one line of the hunk differs from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// What differs.
    pub kind: DifferenceKind,
    /// Position in the hunk's old side (1-based), when a hunk line is involved.
    pub hunk_line: Option<usize>,
    /// Line in the file (1-based), when a file line is involved.
    pub file_line: Option<usize>,
    /// The hunk's line.
    pub expected: Option<String>,
    /// The file's line.
    pub actual: Option<String>,
    /// The first column (1-based, in characters) where the two lines differ.
    pub column: Option<usize>,
    /// Where in the file (0-based) it is, or would be for a missing line: what to show.
    pub at: usize,
}

/// What kind of difference a line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DifferenceKind {
    /// Different text (the file changed, or the patch misremembers it).
    Content,
    /// The patch has `...` or `…` where the file has more text or more lines.
    Truncated,
    /// The patch has a line the file does not have there.
    MissingLine,
    /// The file has a line the patch does not have there.
    ExtraLine,
    /// The patch has a blank line the file does not have there.
    MissingBlankLine,
    /// The file has a blank line the patch does not have there.
    ExtraBlankLine,
    /// Only spaces and tabs differ (indentation, trailing or inner whitespace).
    Whitespace,
    /// Typographic quotes or dashes, ellipses, non-breaking or zero-width characters.
    Unicode,
}

impl DifferenceKind {
    /// Whether a matching pass tolerates this difference (so it does not prevent a match).
    pub fn tolerated(self) -> bool {
        matches!(self, DifferenceKind::Whitespace | DifferenceKind::Unicode)
    }

    /// A few words for the human report, saying what differs.
    pub fn describe(self) -> &'static str {
        match self {
            DifferenceKind::Content => "content differs",
            DifferenceKind::Truncated => "the patch cuts it short with `...`",
            DifferenceKind::MissingLine => "the file does not have this line here",
            DifferenceKind::ExtraLine => "the file has a line the hunk lacks",
            DifferenceKind::MissingBlankLine => "the file has no blank line here",
            DifferenceKind::ExtraBlankLine => "the file has a blank line the hunk lacks",
            DifferenceKind::Whitespace => "whitespace only",
            DifferenceKind::Unicode => "Unicode punctuation or invisible characters",
        }
    }
}

/// Diagnose every failed hunk of a file: one entry per hunk, `None` for those that fit.
/// `searched[i]` is where hunk i's search started (0-based).
pub fn diagnose(
    fp: &FilePatch,
    lines: &[Line],
    located: &[Located],
    searched: &[Option<usize>],
) -> Vec<Option<Diagnostic>> {
    let hay = Haystack::new(lines);
    let path = fp.display_path();
    let placed = Placed::new(located);
    located
        .iter()
        .enumerate()
        .map(|(i, loc)| match loc {
            Located::Ambiguous { starts, .. } => Some(ambiguous(fp, i, starts, &placed, searched)),
            Located::NotFound { reason } => {
                let mut d = not_found(&hay, fp, i, &placed, searched, path);
                // A rule that refused the place says how to resend: that is the advice, not
                // the lines the file has there (they may be the hunk's own). An elision the
                // file cannot take keeps its own advice.
                let elided = d.closest.as_ref().is_some_and(|c| {
                    c.differences.first().map(|x| x.kind) == Some(DifferenceKind::Truncated)
                });
                if let Some(advice) = reason.as_deref().and_then(own_advice).filter(|_| !elided) {
                    d.advice = advice;
                }
                Some(d)
            }
            _ => None,
        })
        .collect()
}

/// The resend instruction a refusal's reason ends with (`…; resend the hunk with …`), if it
/// has one.
fn own_advice(reason: &str) -> Option<String> {
    let at = reason.to_ascii_lowercase().rfind("resend")?;
    Some(format!("r{}", &reason[at + 1..]))
}

/// The hunks of a file as located, with, for each, the nearest earlier hunk that was placed
/// (its number and 0-based start): worked out once, not by a walk back from every hunk.
struct Placed<'l> {
    all: &'l [Located],
    previous: Vec<Option<(usize, usize)>>,
    /// The placed regions as (start, end, hunk index), by start, when no two overlap (as
    /// hunks placed in the original text never do): the regions a range overlaps are then
    /// found by bisection. `None`: every hunk is looked at.
    regions: Option<Vec<(usize, usize, usize)>>,
}

impl<'l> Placed<'l> {
    fn new(all: &'l [Located]) -> Placed<'l> {
        let mut last = None;
        let previous = all
            .iter()
            .enumerate()
            .map(|(j, l)| {
                let before = last;
                if let Located::Placed(p) = l {
                    last = Some((j + 1, p.start));
                }
                before
            })
            .collect();
        let mut regions: Vec<(usize, usize, usize)> = all
            .iter()
            .enumerate()
            .filter_map(|(k, l)| match l {
                Located::Placed(p) => Some((p.start, p.end, k)),
                _ => None,
            })
            .collect();
        regions.sort_unstable();
        let disjoint = regions
            .windows(2)
            .all(|w| w[0].1 <= w[1].0 && w[0].0 < w[0].1 && w[1].0 < w[1].1);
        Placed {
            all,
            previous,
            regions: disjoint.then_some(regions),
        }
    }

    /// The first hunk before hunk `i` whose placed region overlaps lines `s..e`.
    fn overlapping(&self, s: usize, e: usize, i: usize) -> Option<usize> {
        let overlaps = |p: &Placement| !(e <= p.start || s >= p.end);
        let Some(regions) = &self.regions else {
            return self.all[..i].iter().position(|l| match l {
                Located::Placed(p) => overlaps(p),
                _ => false,
            });
        };
        // Disjoint and by start, so by end too: those overlapping are one stretch.
        let from = regions.partition_point(|r| r.1 <= s);
        let to = regions.partition_point(|r| r.0 < e);
        regions
            .get(from..to.max(from))?
            .iter()
            .filter(|r| r.2 < i && !(e <= r.0 || s >= r.1))
            .map(|r| r.2)
            .min()
    }
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

fn old_texts(h: &Hunk) -> Vec<String> {
    h.old_lines().map(|l| l.text.to_string()).collect()
}

fn new_texts(h: &Hunk) -> Vec<String> {
    h.new_lines().map(|l| l.text.to_string()).collect()
}

fn anchor_of(h: &Hunk) -> Option<String> {
    if !h.anchors.is_empty() {
        return Some(clip(&h.anchors.join(" > ")));
    }
    h.section
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(clip)
}

/// The hunk's old side, numbered; a long one keeps its head and its tail.
fn expected_lines(texts: &[String]) -> Vec<NumberedLine> {
    let keep = |i: usize| NumberedLine {
        line: i + 1,
        text: clip(&texts[i]),
    };
    if texts.len() <= MAX_EXPECTED {
        return (0..texts.len()).map(keep).collect();
    }
    let head = MAX_EXPECTED - 3;
    (0..head)
        .chain(texts.len() - 3..texts.len())
        .map(keep)
        .collect()
}

fn base(fp: &FilePatch, i: usize, searched: &[Option<usize>]) -> Diagnostic {
    let h = &fp.hunks[i];
    let texts = old_texts(h);
    Diagnostic {
        searched_from: searched.get(i).copied().flatten().map(|s| s + 1),
        anchor: anchor_of(h),
        expected_lines: texts.len(),
        expected: expected_lines(&texts),
        findings: Vec::new(),
        closest: None,
        advice: String::new(),
    }
}

fn ambiguous(
    fp: &FilePatch,
    i: usize,
    starts: &[usize],
    located: &Placed,
    searched: &[Option<usize>],
) -> Diagnostic {
    let mut d = base(fp, i, searched);
    d.findings.push(Finding::Ambiguous {
        lines: starts.iter().map(|s| s + 1).collect(),
    });
    // Where it belongs is what is unknown, so only its numbers can say it is out of order.
    if let Some(f) = out_of_order(fp, i, None, located) {
        d.findings.push(f);
    }
    d.advice = if fp.hunks[i].reindent {
        "add lines to the SEARCH block until it occurs only at the intended place, and resend it"
            .into()
    } else if fp.hunks[i].old_start.is_some() {
        "add context lines that occur only at the intended place (or fix the @@ line numbers so they point there), and resend the hunk".into()
    } else {
        "add context lines that occur only at the intended place (or an @@ anchor line naming the enclosing function), and resend the hunk".into()
    };
    d
}

/// The hunk comes before an earlier one: by its numbers, or by where its lines are.
fn out_of_order(
    fp: &FilePatch,
    i: usize,
    found: Option<usize>,
    located: &Placed,
) -> Option<Finding> {
    if i == 0 {
        return None;
    }
    let here = fp.hunks[i].old_start;
    let there = fp.hunks[i - 1].old_start;
    if let (Some(a), Some(b)) = (here, there) {
        if a < b {
            return Some(Finding::OutOfOrder {
                line: a,
                previous_hunk: i,
                previous_line: b,
            });
        }
    }
    let found = found?;
    let (pi, ps) = located.previous[i]?;
    (found < ps).then_some(Finding::OutOfOrder {
        line: found + 1,
        previous_hunk: pi,
        previous_line: ps + 1,
    })
}

fn keyed(pass: Pass, lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| key(pass, l).into_owned()).collect()
}

fn not_found(
    hay: &Haystack,
    fp: &FilePatch,
    i: usize,
    located: &Placed,
    searched: &[Option<usize>],
    path: &str,
) -> Diagnostic {
    let h = &fp.hunks[i];
    let mut d = base(fp, i, searched);
    let old = old_texts(h);
    let near = searched.get(i).copied().flatten();

    // The hunk's text is there, but a rule kept it from that place.
    if let Some(finding) = blocked_fit(hay, h, &old, located, i) {
        let line = match &finding {
            Finding::Overlaps { line, .. }
            | Finding::NotAtEnd { line }
            | Finding::NotAtStart { line } => *line,
            _ => 0,
        };
        d.advice = match &finding {
            Finding::Overlaps { hunk, .. } => format!(
                "hunks {hunk} and {} change the same lines: merge them into one hunk and resend",
                i + 1
            ),
            Finding::NotAtEnd { .. } => format!(
                "the hunk's lines are at line {line}, not at the end of {path}: add the lines that follow them as context (or drop the end-of-file marker) and resend"
            ),
            _ => format!(
                "the hunk's lines are at line {line}, not at the top of {path}: add the lines before them as context and fix the @@ numbers, then resend"
            ),
        };
        d.findings.push(finding);
        if let Some(f) = out_of_order(fp, i, Some(line.saturating_sub(1)), located) {
            d.findings.push(f);
        }
        return d;
    }

    let closest = closest_region(hay, &old, near);
    let applied = already_applied(hay, h, near, closest.as_ref().map_or(0, |c| c.matched));
    if let Some(f) = &applied {
        d.findings.push(f.clone());
    }
    match &closest {
        None => {
            if applied.is_none() {
                d.findings.push(Finding::NoLines);
            }
        }
        Some(c) => {
            if let Some(f) = out_of_order(fp, i, Some(c.start - 1), located) {
                d.findings.push(f);
            }
        }
    }
    d.advice = advice_for(path, &d.findings, closest.as_ref(), h.reindent);
    d.closest = closest;
    d
}

/// `search_replace`: the hunk is a SEARCH/REPLACE block, whose SEARCH text is what must match.
fn advice_for(
    path: &str,
    findings: &[Finding],
    closest: Option<&Closest>,
    search_replace: bool,
) -> String {
    for f in findings {
        match f {
            Finding::AlreadyApplied { .. } => {
                return format!(
                    "the change looks already applied: re-read {path} and send only what is still missing"
                )
            }
            Finding::NoLines => {
                return format!(
                    "none of the hunk's lines are in {path}: check that this is the right file, re-read it, and resend the hunk"
                )
            }
            _ => {}
        }
    }
    let Some(c) = closest else {
        return format!(
            "re-read {path} and resend the hunk with its lines exactly as the file has them"
        );
    };
    let first = c.differences.first().map(|d| d.kind);
    match first {
        Some(DifferenceKind::Truncated) => format!(
            "write out every line: `...` cannot stand for lines of the file; re-read lines {}-{} of {path} and resend the hunk",
            c.start, c.end
        ),
        Some(DifferenceKind::Whitespace | DifferenceKind::Unicode) => format!(
            "copy lines {}-{} of {path} exactly (whitespace and punctuation included) into the hunk's context and resend",
            c.start, c.end
        ),
        _ if search_replace => format!(
            "re-read lines {}-{} of {path} and resend the block with a SEARCH text copied exactly from there",
            c.start, c.end
        ),
        _ => format!(
            "re-read lines {}-{} of {path} and resend the hunk with its context and removed lines exactly as they are there",
            c.start, c.end
        ),
    }
}

/// The hunk fits under some pass but was kept out by a rule: an earlier hunk took the
/// place, or it must end at the end (or start at the top) of the file.
fn blocked_fit(
    hay: &Haystack,
    h: &Hunk,
    old: &[String],
    located: &Placed,
    i: usize,
) -> Option<Finding> {
    if old.is_empty() {
        return None;
    }
    for pass in Pass::LINE_PASSES {
        let starts = hay.find_all(pass, &keyed(pass, old));
        let Some(&first) = starts.first() else {
            continue;
        };
        for &s in &starts {
            if let Some(k) = located.overlapping(s, s + old.len(), i) {
                return Some(Finding::Overlaps {
                    line: s + 1,
                    hunk: k + 1,
                });
            }
        }
        if h.at_eof && !starts.iter().any(|&s| s + old.len() == hay.len()) {
            return Some(Finding::NotAtEnd { line: first + 1 });
        }
        if h.at_bof && !starts.contains(&0) {
            return Some(Finding::NotAtStart { line: first + 1 });
        }
        return None;
    }
    None
}

/// The hunk's new side is mostly in the file, more so than its old side: it looks applied.
fn already_applied(
    hay: &Haystack,
    h: &Hunk,
    near: Option<usize>,
    old_matched: usize,
) -> Option<Finding> {
    if !h.lines.iter().any(|l| l.kind == LineKind::Add) {
        return None;
    }
    let new = new_texts(h);
    let (start, end, pairs) = cluster(hay, &new, near)?;
    let matched = pairs.len();
    let old_len = h.old_len();
    // Every distinctive added line must be there, and the new side must fit better than the
    // old side does: otherwise this is drift, not an earlier application.
    let region: Vec<&str> = (start..end).map(|f| &*hay.keys(Pass::Unicode)[f]).collect();
    let added_there = h
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Add && !is_trivial(&l.text))
        .all(|l| region.contains(&fold(&l.text).as_str()));
    let added_any = h
        .lines
        .iter()
        .any(|l| l.kind == LineKind::Add && !is_trivial(&l.text));
    let new_ratio = matched as f64 / new.len().max(1) as f64;
    let old_ratio = old_matched as f64 / old_len.max(1) as f64;
    (added_any && added_there && new_ratio >= 0.8 && new_ratio > old_ratio).then_some(
        Finding::AlreadyApplied {
            line: start + 1,
            matched,
            total: new.len(),
        },
    )
}

/// A region `(start, end, pairs)`: see [`cluster`].
type Cluster = (usize, usize, Vec<(usize, usize)>);

/// The file region where most of `texts` is, aligned: `(start, end, pairs)` with `pairs`
/// the (text index, file line) matches, all 0-based, `end` exclusive. Reads only the index
/// positions of the texts' own lines, a bounded number per line.
fn cluster(hay: &Haystack, texts: &[String], near: Option<usize>) -> Option<Cluster> {
    let n = texts.len();
    if n == 0 || hay.is_empty() {
        return None;
    }
    let pass = Pass::Unicode;
    let keys = hay.keys(pass);
    let wanted = keyed(pass, texts);
    let mut votes: Vec<(usize, usize)> = Vec::new();
    for (j, k) in wanted.iter().enumerate() {
        if is_trivial(&texts[j]) {
            continue;
        }
        // Positions are ascending: a common line contributes only those nearest the hint,
        // found by bisection, so its count does not matter.
        let all = hay.positions(pass, k);
        let around = if all.len() > MAX_POSITIONS {
            let centre = near.unwrap_or(0) as u32;
            let mid = all.partition_point(|&p| p < centre);
            let lo = mid
                .saturating_sub(MAX_POSITIONS / 2)
                .min(all.len() - MAX_POSITIONS);
            &all[lo..lo + MAX_POSITIONS]
        } else {
            all
        };
        votes.extend(
            around
                .iter()
                .map(|&p| p as usize)
                .filter(|&p| keys[p] == *k)
                .map(|p| (p, j)),
        );
    }
    if votes.is_empty() {
        return None;
    }
    votes.sort_unstable();
    // The window of the hunk's length plus some drift that holds the most distinct lines;
    // a line of `...` may stand for many file lines, so each widens it.
    let elisions = texts.iter().filter(|t| is_elision(t)).count();
    let width = n + 8 + n / 2 + ELISION_SPAN * elisions.min(4);
    let mut count = vec![0usize; n];
    let mut distinct = 0usize;
    let mut best: Option<(usize, usize, usize)> = None; // (distinct, lo index, hi index)
    let mut lo = 0usize;
    for hi in 0..votes.len() {
        let (p, j) = votes[hi];
        if count[j] == 0 {
            distinct += 1;
        }
        count[j] += 1;
        while votes[lo].0 + width <= p {
            let jj = votes[lo].1;
            count[jj] -= 1;
            if count[jj] == 0 {
                distinct -= 1;
            }
            lo += 1;
        }
        let better = match best {
            None => true,
            Some((bd, blo, _)) => {
                distinct > bd
                    || (distinct == bd
                        && near.is_some_and(|c| votes[lo].0.abs_diff(c) < votes[blo].0.abs_diff(c)))
            }
        };
        if better {
            best = Some((distinct, lo, hi));
        }
    }
    let (_, blo, bhi) = best.expect("there is at least one vote");
    // Align the hunk against the window widened by the hunk's length on each side, then
    // keep the region from the first to the last distinctive match, widened by the hunk
    // lines before and after them.
    let from = votes[blo].0.saturating_sub(n);
    let to = (votes[bhi].0 + n + 1).min(hay.len());
    let pairs = align(&wanted, &keys[from..to], from);
    let distinctive: Vec<&(usize, usize)> = pairs
        .iter()
        .filter(|(j, _)| !is_trivial(&texts[*j]))
        .collect();
    let (&&(ja, fa), &&(jb, fb)) = (distinctive.first()?, distinctive.last()?);
    let start = fa.saturating_sub(ja);
    let end = (fb + (n - jb)).min(hay.len());
    let pairs = align(&wanted, &keys[start..end], start);
    Some((start, end, pairs))
}

/// Match `wanted` against `file` (keys of one pass), as (wanted index, file line) pairs.
fn align(wanted: &[String], file: &[Line], file_base: usize) -> Vec<(usize, usize)> {
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let file: Vec<&str> = file.iter().map(|l| &**l).collect();
    let mut out = Vec::new();
    for op in similar::capture_diff_slices(Algorithm::Myers, &wanted, &file) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            out.extend((0..len).map(|k| (old_index + k, file_base + new_index + k)));
        }
    }
    out
}

/// The closest region of the file to the hunk's old side, with its differences.
fn closest_region(hay: &Haystack, old: &[String], near: Option<usize>) -> Option<Closest> {
    let (start, end, _) = cluster(hay, old, near)?;
    let region: Vec<&str> = (start..end).map(|f| hay.line(f)).collect();
    let wanted = keyed(Pass::Unicode, old);
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let region_keys: Vec<&str> = hay.keys(Pass::Unicode)[start..end]
        .iter()
        .map(|l| &**l)
        .collect();
    let ops = similar::capture_diff_slices(Algorithm::Myers, &wanted, &region_keys);
    let mut diffs: Vec<Difference> = Vec::new();
    let mut matched = 0usize;
    for op in &ops {
        let (tag, o, f) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                matched += o.len();
                for (oi, fi) in o.zip(f) {
                    let (e, a) = (&old[oi], region[fi]);
                    if e != a {
                        diffs.push(pair(classify(e, a), oi, start + fi, e, a));
                    }
                }
            }
            _ => gap(old, &region, o, f, start, &mut diffs),
        }
    }
    let difference_count = diffs.len();
    // Those that prevent a match first, each group in hunk order.
    diffs.sort_by_key(|d| (d.kind.tolerated(), d.hunk_line.or(d.file_line)));
    diffs.truncate(MAX_DIFFERENCES);
    let lines = region_lines(hay, start, end, &diffs);
    Some(Closest {
        start: start + 1,
        end: end.max(start + 1),
        matched,
        lines,
        difference_count,
        differences: diffs,
    })
}

/// The region's lines to show: all of a short region, else those around the differences.
fn region_lines(
    hay: &Haystack,
    start: usize,
    end: usize,
    diffs: &[Difference],
) -> Vec<NumberedLine> {
    let numbered = |f: usize| NumberedLine {
        line: f + 1,
        text: clip(hay.line(f)),
    };
    if end - start <= MAX_REGION {
        return (start..end).map(numbered).collect();
    }
    // The line before, at and after each difference; then, up to the limit, the lines
    // nearest the first one.
    let mut keep: Vec<usize> = Vec::new();
    for d in diffs {
        let f = d.at.clamp(start, end - 1);
        keep.extend(f.saturating_sub(1).max(start)..(f + 2).min(end));
    }
    keep.sort_unstable();
    keep.dedup();
    keep.truncate(MAX_REGION);
    let focus = diffs.first().map_or(start, |d| d.at.clamp(start, end - 1));
    let mut around = (start..end).collect::<Vec<_>>();
    around.sort_by_key(|&f| (f.abs_diff(focus), f));
    for f in around {
        if keep.len() >= MAX_REGION {
            break;
        }
        if !keep.contains(&f) {
            keep.push(f);
        }
    }
    keep.sort_unstable();
    keep.into_iter().map(numbered).collect()
}

/// A difference between a hunk line and a file line (0-based indices in).
fn pair(kind: DifferenceKind, oi: usize, fi: usize, e: &str, a: &str) -> Difference {
    Difference {
        kind,
        hunk_line: Some(oi + 1),
        file_line: Some(fi + 1),
        expected: Some(clip(e)),
        actual: Some(clip(a)),
        column: first_difference(e, a),
        at: fi,
    }
}

/// The first column (1-based, in characters) where two lines differ.
pub fn first_difference(a: &str, b: &str) -> Option<usize> {
    let mut ai = a.chars();
    let mut bi = b.chars();
    let mut col = 1;
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return None,
            (x, y) if x == y => col += 1,
            _ => return Some(col),
        }
    }
}

fn collapse_ascii_ws(s: &str) -> String {
    s.split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What kind of difference two lines that should be equal show.
pub fn classify(expected: &str, actual: &str) -> DifferenceKind {
    if collapse_ascii_ws(expected) == collapse_ascii_ws(actual) {
        return DifferenceKind::Whitespace;
    }
    if fold(expected) == fold(actual) {
        return DifferenceKind::Unicode;
    }
    if truncation_prefix(expected).is_some_and(|p| actual.trim_start().starts_with(p)) {
        return DifferenceKind::Truncated;
    }
    DifferenceKind::Content
}

/// For a line the patch cut short with an ellipsis (`foo(a, ...`), the text before it.
fn truncation_prefix(line: &str) -> Option<&str> {
    let at = line.find("...").or_else(|| line.find('…'))?;
    let p = line[..at].trim();
    (p.chars().filter(|c| c.is_alphanumeric()).count() >= 3).then_some(p)
}

/// A line that stands for lines the patch left out: `// ... existing code ...`, `# …`.
fn is_elision(line: &str) -> bool {
    if !(line.contains("...") || line.contains('…')) {
        return false;
    }
    let rest: String = line
        .replace("...", " ")
        .replace('…', " ")
        .replace("<!--", " ")
        .replace("-->", " ")
        .replace("/*", " ")
        .replace("*/", " ")
        .replace("//", " ")
        .replace('#', " ")
        .replace("--", " ");
    // What remains is prose about the elision ("existing code", "rest unchanged"), not code.
    !rest.contains(['(', ')', '=', ';', '{', '}', '[', ']', '<', '>', '"', '\''])
}

/// Differences inside a stretch where the hunk and the file do not line up.
fn gap(
    old: &[String],
    region: &[&str],
    o: std::ops::Range<usize>,
    f: std::ops::Range<usize>,
    base: usize,
    out: &mut Vec<Difference>,
) {
    let here = base + f.start;
    let mut olds: Vec<usize> = o.collect();
    let mut files: Vec<usize> = f.collect();
    // A line of `...` stands for every file line of the gap.
    if let Some(pos) = olds.iter().position(|&oi| is_elision(&old[oi])) {
        let oi = olds[pos];
        out.push(Difference {
            kind: DifferenceKind::Truncated,
            hunk_line: Some(oi + 1),
            file_line: files.first().map(|fi| base + fi + 1),
            expected: Some(clip(&old[oi])),
            actual: files.first().map(|&fi| clip(region[fi])),
            column: None,
            at: here,
        });
        olds.remove(pos);
        files.clear();
    }
    let blank = |s: &str| s.trim().is_empty();
    let (old_blank, old_text): (Vec<usize>, Vec<usize>) =
        olds.iter().partition(|&&oi| blank(&old[oi]));
    let (file_blank, file_text): (Vec<usize>, Vec<usize>) =
        files.iter().partition(|&&fi| blank(region[fi]));
    for &oi in old_blank.iter().skip(file_blank.len()) {
        out.push(Difference {
            kind: DifferenceKind::MissingBlankLine,
            hunk_line: Some(oi + 1),
            file_line: None,
            expected: Some(clip(&old[oi])),
            actual: None,
            column: None,
            at: here,
        });
    }
    for &fi in file_blank.iter().skip(old_blank.len()) {
        out.push(Difference {
            kind: DifferenceKind::ExtraBlankLine,
            hunk_line: None,
            file_line: Some(base + fi + 1),
            expected: None,
            actual: Some(clip(region[fi])),
            column: None,
            at: base + fi,
        });
    }
    // Pair the rest: in order when the counts agree, else only lines that look alike.
    let mut used = vec![false; file_text.len()];
    let mut next = 0usize;
    for &oi in &old_text {
        let e = &old[oi];
        let found = if old_text.len() == file_text.len() {
            (next < file_text.len()).then_some(next)
        } else {
            (next..file_text.len()).find(|&k| alike(e, region[file_text[k]]))
        };
        match found {
            Some(k) => {
                used[k] = true;
                next = k + 1;
                let a = region[file_text[k]];
                out.push(pair(classify(e, a), oi, base + file_text[k], e, a));
            }
            None => out.push(Difference {
                kind: DifferenceKind::MissingLine,
                hunk_line: Some(oi + 1),
                file_line: None,
                expected: Some(clip(e)),
                actual: None,
                column: None,
                at: here,
            }),
        }
    }
    for (k, &fi) in file_text.iter().enumerate() {
        if !used[k] {
            out.push(Difference {
                kind: DifferenceKind::ExtraLine,
                hunk_line: None,
                file_line: Some(base + fi + 1),
                expected: None,
                actual: Some(clip(region[fi])),
                column: None,
                at: base + fi,
            });
        }
    }
}

/// Two lines similar enough to be one line edited (character-level similarity).
fn alike(a: &str, b: &str) -> bool {
    let (a, b) = (clip(a.trim()), clip(b.trim()));
    similar::TextDiff::from_chars(a.as_str(), b.as_str()).ratio() >= 0.5
}

/// For each hunk none of whose lines is in its file, look in the patch's other files (read
/// through `read`, each at most once): a hunk sent for the wrong file says where it belongs.
/// `diagnostics` are the hunks' diagnostics in patch order, each with its file's and its
/// hunk's index (0-based).
pub fn look_in_other_files<'d>(
    patches: &[FilePatch],
    diagnostics: impl Iterator<Item = (usize, usize, &'d mut Diagnostic)>,
    read: impl Fn(&str) -> Option<Vec<Line<'static>>>,
) {
    let mut cache: Vec<(String, Option<Vec<Line<'static>>>)> = Vec::new();
    for (i, k, d) in diagnostics {
        if !d.findings.contains(&Finding::NoLines) {
            continue;
        }
        let old = old_texts(&patches[i].hunks[k]);
        let wanted = old.iter().filter(|t| !is_trivial(t)).count();
        let own = patches[i].display_path();
        for (j, other) in patches.iter().enumerate() {
            let path = other.display_path();
            if j == i || path == own {
                continue;
            }
            let lines = match cache.iter().find(|(p, _)| p == path) {
                Some((_, l)) => l,
                None => {
                    cache.push((path.to_string(), read(path)));
                    &cache.last().expect("just pushed").1
                }
            };
            let Some(lines) = lines else { continue };
            let hay = Haystack::new(lines);
            let Some((start, _, pairs)) = cluster(&hay, &old, None) else {
                continue;
            };
            let found = pairs.iter().filter(|(t, _)| !is_trivial(&old[*t])).count();
            if found * 2 > wanted {
                d.findings = vec![Finding::InOtherFile {
                    path: path.to_string(),
                    line: start + 1,
                }];
                d.advice = format!(
                    "these lines are in {path}, not in {own}: send the hunk as a change to {path}"
                );
                break;
            }
        }
    }
}

// ---------------------------------------------------------------------------- making visible

/// `line` with the characters a reader cannot see spelled as escapes: tabs (`\t`, when
/// `tabs`), CR (`\r`), no-break, zero-width and other invisible or control characters
/// (`\u{a0}`), and trailing spaces (`\u{20}`). Backslashes are doubled only in a line that
/// got an escape, so plain lines stay verbatim and escaped ones stay unambiguous.
pub fn visible(line: &str, tabs: bool) -> String {
    let trailing_from = line.trim_end_matches(' ').len();
    let mut out = String::with_capacity(line.len());
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            '\t' if tabs => {
                out.push_str("\\t");
                escaped = true;
            }
            '\t' => out.push(c),
            '\r' => {
                out.push_str("\\r");
                escaped = true;
            }
            ' ' if i >= trailing_from => {
                out.push_str("\\u{20}");
                escaped = true;
            }
            c if invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
                escaped = true;
            }
            c => out.push(c),
        }
    }
    if escaped && line.contains('\\') {
        // Redo with literal backslashes doubled, so `\t` in the source stays distinguishable.
        return visible(&line.replace('\\', "\u{0}"), tabs).replace("\\u{0}", "\\\\");
    }
    out
}

fn invisible(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{a0}'
                | '\u{ad}'
                | '\u{2000}'..='\u{200f}'
                | '\u{2028}'..='\u{202f}'
                | '\u{205f}'..='\u{2064}'
                | '\u{3000}'
                | '\u{feff}'
        )
}

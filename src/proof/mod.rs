//! The proof: before anything is approved, each planned file is checked against the patch,
//! independently of the code that located the hunks. The difference between a file's
//! original and planned bytes must be exactly the patch's removed and added lines (modulo the
//! match pass the plan names, and the merge regions of a three-way strategy); nothing outside
//! the placed hunks may change; every hunk called applied must be in the output; and putting
//! the original lines back at the same places must give back the original bytes.
//!
//! The planner hands over its claims ([`Evidence`]): where each hunk landed, which file
//! lines its old side matched, where its added lines went, and the bytes it means to write.
//! This module re-derives the result from those claims with its own, simple rules and
//! compares. Its cost is linear in the file plus the patch; what it holds follows the hunks:
//! the derived result is runs (kept stretches of the original, runs of added lines), the
//! original has an index of line starts, and the planned file is only walked. The gate
//! approves a write only with a [`Proof`], which only [`prove`] makes.

mod derived;
mod lines;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::patch::{FileOp, FilePatch, Hunk, LineKind, Patch};
use crate::plan::locate::Placement;
use crate::plan::{Claim, FilePlan, FileStatus, Plan, Strategy};
use crate::repo::{FileState, MODE_FILE};
use crate::text::normalize::{key, Pass};
use crate::text::rope::Rope;
use derived::{Derived, Seg};
use lines::{strip_bom, Index, Line, Lines};

/// Evidence that a plan was checked. Its field is private: only [`prove`] makes one, and the
/// gate needs one to approve a write.
#[derive(Debug)]
pub struct Proof {
    /// The paths whose planned content was proven, in the plan's order of changes.
    paths: Vec<String>,
}

impl Proof {
    /// Whether this proof was made for exactly these planned changes.
    pub fn covers(&self, plan: &Plan) -> bool {
        self.paths.len() == plan.changes.len()
            && self
                .paths
                .iter()
                .zip(&plan.changes)
                .all(|(p, c)| *p == c.path)
    }
}

/// Why a plan failed its proof: a bug in planning, caught before any write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The file whose planned change failed.
    pub path: String,
    /// 1-based hunk number, when one hunk is at fault.
    pub hunk: Option<usize>,
    /// What did not hold, in one sentence.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.hunk {
            Some(h) => write!(f, "{}, hunk {h}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Check every file plan that would write (or claims it need not) against its file patch.
pub fn prove(patch: &Patch, plan: &Plan) -> Result<Proof, Failure> {
    if patch.files.len() != plan.files.len() {
        return Err(Failure {
            path: String::new(),
            hunk: None,
            message: format!(
                "the plan has {} file plans for {} file patches",
                plan.files.len(),
                patch.files.len()
            ),
        });
    }
    // Each path's state as the file plans so far leave it, and as it was first seen.
    let mut now: HashMap<String, Option<FileState>> = HashMap::new();
    let mut first: Vec<(String, Option<FileState>)> = Vec::new();
    for (fp, p) in patch.files.iter().zip(&plan.files) {
        let counts = p.ok() || p.status == FileStatus::Conflicted;
        if !counts {
            if !p.evidence.writes.is_empty() {
                return Err(fail(p, None, "a refused file plan carries writes"));
            }
            continue;
        }
        let ev = &p.evidence;
        let seen_at = fp.old_path.as_deref().or(fp.new_path.as_deref());
        if let Some(path) = seen_at {
            match now.get(path) {
                Some(state) if *state != ev.before => return Err(fail(
                    p,
                    None,
                    "the plan read this file in another state than the earlier file plans left it",
                )),
                Some(_) => {}
                None => {
                    now.insert(path.to_string(), ev.before.clone());
                    first.push((path.to_string(), ev.before.clone()));
                }
            }
        }
        check_file(fp, p)?;
        for (path, after) in &ev.writes {
            if !now.contains_key(path) {
                // A path first met as a write target (a rename's or a creation's new path):
                // it was absent, as the file plan checked, or it is the destination a move
                // replaces.
                let was = ev
                    .replaced
                    .clone()
                    .filter(|_| fp.new_path.as_deref() == Some(path.as_str()));
                first.push((path.clone(), was));
            }
            now.insert(path.clone(), after.clone());
        }
    }
    // The plan's net changes must be exactly what the checked file plans add up to.
    let changed: Vec<&(String, Option<FileState>)> = first
        .iter()
        .filter(|(path, before)| now.get(path) != Some(before))
        .collect();
    let mut paths = Vec::with_capacity(plan.changes.len());
    for c in &plan.changes {
        let Some((_, before)) = changed.iter().find(|(p, _)| *p == c.path) else {
            return Err(Failure {
                path: c.path.clone(),
                hunk: None,
                message: "the plan changes this path, but no checked file plan does".into(),
            });
        };
        if *before != c.before || now.get(&c.path) != Some(&c.after) {
            return Err(Failure {
                path: c.path.clone(),
                hunk: None,
                message: "the planned change differs from what the file plans add up to".into(),
            });
        }
        paths.push(c.path.clone());
    }
    if let Some((path, _)) = changed
        .iter()
        .find(|(p, _)| !plan.changes.iter().any(|c| c.path == *p))
    {
        return Err(Failure {
            path: path.clone(),
            hunk: None,
            message: "a file plan changes this path, but the plan does not list the change".into(),
        });
    }
    Ok(Proof { paths })
}

fn fail(p: &FilePlan, hunk: Option<usize>, message: impl Into<String>) -> Failure {
    Failure {
        path: p.path().to_string(),
        hunk,
        message: message.into(),
    }
}

/// The single write a file plan makes to its new path, after the old path's removal for a
/// rename; checks that nothing else is written.
fn the_write<'e>(fp: &FilePatch, p: &'e FilePlan) -> Result<Option<&'e FileState>, Failure> {
    let ev = &p.evidence;
    let expected: Vec<(&str, bool)> = match fp.op() {
        FileOp::Create => vec![(new_path(fp), true)],
        FileOp::Delete => vec![(old_path(fp), false)],
        FileOp::Rename => vec![(old_path(fp), false), (new_path(fp), true)],
        FileOp::Modify | FileOp::Copy => vec![(new_path(fp), true)],
    };
    if ev.writes.is_empty() {
        return Ok(None);
    }
    let shape: Vec<(&str, bool)> = ev
        .writes
        .iter()
        .map(|(path, after)| (path.as_str(), after.is_some()))
        .collect();
    if shape != expected {
        return Err(fail(
            p,
            None,
            format!("the plan writes {shape:?} where the patch calls for {expected:?}"),
        ));
    }
    Ok(ev.writes.iter().find_map(|(_, a)| a.as_ref()))
}

fn old_path(fp: &FilePatch) -> &str {
    fp.old_path.as_deref().unwrap_or_default()
}

fn new_path(fp: &FilePatch) -> &str {
    fp.new_path.as_deref().unwrap_or_default()
}

fn check_file(fp: &FilePatch, p: &FilePlan) -> Result<(), Failure> {
    let ev = &p.evidence;
    let after = the_write(fp, p)?;
    if p.strategy == Strategy::GitApply || fp.binary {
        // Git applies a binary patch only to the bytes its `index` line names (it checks
        // them): the write's shape, checked above, is what is ours to check.
        return if p.strategy == Strategy::GitApply && fp.binary {
            Ok(())
        } else {
            Err(fail(
                p,
                None,
                "a binary patch planned by another strategy than git apply",
            ))
        };
    }
    if p.status == FileStatus::AlreadyApplied {
        if !ev.writes.is_empty() {
            return Err(fail(p, None, "an already-applied file plan writes"));
        }
        return match p.strategy {
            Strategy::Exact | Strategy::Text if !fp.hunks.is_empty() => {
                let before = ev
                    .before
                    .as_ref()
                    .ok_or_else(|| fail(p, None, "already applied to a file that is absent"))?;
                check_text(fp, p, before, before)
            }
            _ => Ok(()),
        };
    }
    if ev.writes.is_empty() {
        return Err(fail(p, None, "the plan says applied but writes nothing"));
    }
    match fp.op() {
        FileOp::Delete => {
            let before = ev
                .before
                .as_ref()
                .ok_or_else(|| fail(p, None, "deletes a file that is absent"))?;
            check_deleted_content(fp, p, before)
        }
        FileOp::Create => check_created(fp, p, after.expect("a creation writes content")),
        FileOp::Modify | FileOp::Rename | FileOp::Copy => {
            let before = ev
                .before
                .as_ref()
                .ok_or_else(|| fail(p, None, "modifies a file that is absent"))?;
            let after = after.expect("a modification writes content");
            let mode = fp.new_mode.unwrap_or(before.mode);
            if after.mode != mode {
                return Err(fail(
                    p,
                    None,
                    format!(
                        "planned mode {:o}, the patch calls for {mode:o}",
                        after.mode
                    ),
                ));
            }
            if fp.hunks.is_empty() {
                if after.bytes != before.bytes {
                    return Err(fail(
                        p,
                        None,
                        "the patch has no hunks, but the planned content differs",
                    ));
                }
                return Ok(());
            }
            match (p.status, p.strategy) {
                (FileStatus::Conflicted, _) => Ok(()),
                (_, Strategy::Exact | Strategy::Text) => check_text(fp, p, before, after),
                (_, Strategy::ThreeWay | Strategy::HistoryThreeWay) => {
                    check_merge(fp, p, before, after)
                }
                (_, Strategy::File | Strategy::GitApply | Strategy::None) => Err(fail(
                    p,
                    None,
                    "a file-level strategy for a patch with hunks",
                )),
            }
        }
    }
}

/// A deletion that shows what it deletes must find exactly that (up to trailing white
/// space, as the planner allows).
fn check_deleted_content(fp: &FilePatch, p: &FilePlan, before: &FileState) -> Result<(), Failure> {
    if fp.hunks.is_empty() {
        return Ok(());
    }
    let (_, bytes) = strip_bom(&before.bytes, false);
    let mut expected = fp
        .hunks
        .iter()
        .flat_map(|h| h.old_lines().map(|l| l.text.as_str()));
    // Line for line, and neither side longer.
    let same = Lines::new(bytes).all(|a| {
        expected.next().is_some_and(|b| {
            key(Pass::TrailingWhitespace, &a.text()) == key(Pass::TrailingWhitespace, b)
        })
    }) && expected.next().is_none();
    if same {
        Ok(())
    } else {
        Err(fail(
            p,
            None,
            "deletes a file whose content is not what the patch deletes",
        ))
    }
}

/// A created file holds exactly the patch's lines.
fn check_created(fp: &FilePatch, p: &FilePlan, after: &FileState) -> Result<(), Failure> {
    if after.mode != fp.new_mode.unwrap_or(MODE_FILE) {
        return Err(fail(p, None, "the created file's mode is not the patch's"));
    }
    if let Some(content) = &fp.full_content {
        return if after.bytes[..] == *crate::text::bytes::encode(content) {
            Ok(())
        } else {
            Err(fail(
                p,
                None,
                "the created file's content is not the patch's",
            ))
        };
    }
    let (_, bytes) = strip_bom(&after.bytes, false);
    let mut added = fp
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind == LineKind::Add);
    // Line for line, and neither side longer.
    let same = Lines::new(bytes).all(|a| {
        added
            .next()
            .is_some_and(|b| a.content == &*crate::text::bytes::encode(&b.text))
    }) && added.next().is_none();
    if same {
        Ok(())
    } else {
        Err(fail(
            p,
            None,
            "the created file's lines are not the patch's",
        ))
    }
}

/// The text strategies: re-derive the planned lines from the claims, then compare.
fn check_text(
    fp: &FilePatch,
    p: &FilePlan,
    before: &FileState,
    after: &FileState,
) -> Result<(), Failure> {
    let ev = &p.evidence;
    if ev.claims.len() != fp.hunks.len() {
        return Err(fail(
            p,
            None,
            format!(
                "{} placements for {} hunks",
                ev.claims.len(),
                fp.hunks.len()
            ),
        ));
    }
    let (old_bom, old) = strip_bom(&before.bytes, ev.bom_in_text);
    // The planned file may be pieces of the original: it is walked chunk by chunk.
    let mut new = after.bytes.chunks();
    let new_bom = lines::strip_bom_chunks(&mut new, ev.bom_in_text);
    let new = new.as_slice();
    if old_bom != new_bom {
        return Err(fail(p, None, "the byte-order mark changed"));
    }
    // The original is indexed sparsely; the planned file is only ever walked.
    let orig = Index::new(old);
    // Pieces of the planned file that are stretches of the original are counted from its
    // index; only the new bytes are scanned.
    let new_len = lines::count_chunks_in(new, &orig);
    let mut cur = Derived::original(&orig);
    // Hunks proved one after another: the text as the claims so far left it, in a rope.
    let mut turn = ev.sequential.then(|| Rope::new(cur.segs().to_vec()));
    let mut touches_end = false;
    let mut final_newline: Option<bool> = None;
    let mut placed: Vec<(usize, &Hunk, &Placement)> = Vec::new();
    for (i, (h, claim)) in fp.hunks.iter().zip(&ev.claims).enumerate() {
        match claim {
            Claim::Unplaced => {
                return Err(fail(
                    p,
                    Some(i + 1),
                    "the hunk was not placed, yet the file applies",
                ))
            }
            Claim::AlreadyApplied { start, pass } => match &turn {
                Some(turn) => {
                    // The lines the check reads: the new or old side's, and one past them.
                    let reach = h.old_len().max(h.new_len()) + 1;
                    let window = derived_of(&orig, turn.get(*start, start.saturating_add(reach)));
                    check_already(p, i, h, (&window, *start), turn.len(), *start, *pass)?;
                }
                None => check_already(p, i, h, (&cur, 0), cur.len(), *start, *pass)?,
            },
            Claim::Repeat { of } => {
                let original = fp.hunks.get(*of).filter(|_| *of < i);
                let applied = matches!(
                    ev.claims.get(*of),
                    Some(
                        Claim::Placed(_)
                            | Claim::AlreadyApplied { .. }
                            | Claim::Elided { .. }
                            | Claim::Rebuilt { .. }
                    )
                );
                if !original.is_some_and(|o| o.lines == h.lines) || !applied {
                    return Err(fail(
                        p,
                        Some(i + 1),
                        format!("called a repeat of hunk {}, which it is not", of + 1),
                    ));
                }
            }
            Claim::Rebuilt {
                hunk,
                placement,
                filled,
            } => {
                if ev.sequential {
                    return Err(fail(
                        p,
                        Some(i + 1),
                        "a rebuilt hunk among overlapping hunks",
                    ));
                }
                check_rebuilt(p, i, h, hunk, filled)?;
                placed.push((i, hunk, placement));
                if placement.end == cur.len() {
                    final_newline = marker_says(h).or(final_newline);
                }
            }
            Claim::Elided { pieces } => {
                if ev.sequential {
                    return Err(fail(
                        p,
                        Some(i + 1),
                        "an elided hunk among overlapping hunks",
                    ));
                }
                check_pieces(p, i, h, pieces)?;
                for (piece, pl) in pieces {
                    placed.push((i, piece, pl));
                }
                if let Some((_, pl)) = pieces.last() {
                    if pl.end == cur.len() {
                        final_newline = marker_says(h).or(final_newline);
                    }
                }
            }
            Claim::Placed(pl) => {
                let len = match turn.as_mut() {
                    Some(turn) => {
                        apply_in_place(p, &orig, turn, (i, h, pl), &mut touches_end)?;
                        turn.len()
                    }
                    None => {
                        placed.push((i, h, pl));
                        cur.len()
                    }
                };
                if pl.end == len || touches_end {
                    final_newline = marker_says(h).or(final_newline);
                }
            }
        }
    }
    if !ev.sequential {
        placed.sort_by_key(|(i, _, pl)| (pl.start, pl.end, *i));
        cur = apply_claims(p, &cur, &placed, &mut touches_end)?;
    }
    if let Some(turn) = turn {
        cur = derived_of(&orig, turn.into_vec());
    }
    compare(p, &cur, new, new_len, touches_end, final_newline)?;
    if !ev.sequential {
        reverse(p, &placed, &orig, new, new_len)?;
    }
    Ok(())
}

/// A rebuilt SEARCH block is the block with each removed elision line replaced by `filled`
/// removed lines, and nothing else changed; the placement check then holds those lines to the
/// file.
fn check_rebuilt(
    p: &FilePlan,
    i: usize,
    h: &Hunk,
    rebuilt: &Hunk,
    filled: &[usize],
) -> Result<(), Failure> {
    let bad = || {
        fail(
            p,
            Some(i + 1),
            "the rebuilt SEARCH block is not the block with its elisions filled in",
        )
    };
    let mut at = 0usize;
    let mut k = 0usize;
    for l in &h.lines {
        if l.kind == LineKind::Remove && crate::patch::is_elision(&l.text) {
            let n = *filled.get(k).ok_or_else(bad)?;
            let run = rebuilt.lines.get(at..at + n).ok_or_else(bad)?;
            if run.iter().any(|r| r.kind != LineKind::Remove) {
                return Err(bad());
            }
            at += n;
            k += 1;
        } else {
            if rebuilt.lines.get(at) != Some(l) {
                return Err(bad());
            }
            at += 1;
        }
    }
    let pins = rebuilt.at_bof == h.at_bof && rebuilt.at_eof == h.at_eof;
    if at == rebuilt.lines.len() && k == filled.len() && pins {
        Ok(())
    } else {
        Err(bad())
    }
}

/// What a hunk that reaches the end of the file says of the final newline: only a change of
/// the `\ No newline` marker between its sides says anything.
fn marker_says(h: &Hunk) -> Option<bool> {
    match (h.old_no_newline, h.new_no_newline) {
        (false, true) => Some(false),
        (true, false) => Some(true),
        _ => None,
    }
}

/// An elided hunk's parts are exactly its runs of lines between elision lines, with the
/// hunk's pins on the first and last, placed in order.
fn check_pieces(
    p: &FilePlan,
    i: usize,
    h: &Hunk,
    pieces: &[(Hunk, Placement)],
) -> Result<(), Failure> {
    let mut runs: Vec<Vec<&crate::patch::Line>> = vec![Vec::new()];
    for l in &h.lines {
        if l.kind == LineKind::Context && crate::patch::is_elision(&l.text) {
            runs.push(Vec::new());
        } else {
            runs.last_mut().expect("a run").push(l);
        }
    }
    runs.retain(|r| !r.is_empty());
    // The parts placed are the runs in order; runs after them (cut from the end) change
    // nothing and do not end the file.
    let cut = &runs[pieces.len().min(runs.len())..];
    let same = runs.len() >= pieces.len()
        && runs.iter().zip(pieces).all(|(r, (piece, _))| {
            r.len() == piece.lines.len() && r.iter().zip(&piece.lines).all(|(a, b)| **a == *b)
        })
        && cut.iter().flatten().all(|l| l.kind == LineKind::Context)
        && (cut.is_empty() || !h.at_eof);
    let pins = pieces.first().is_some_and(|(f, _)| f.at_bof == h.at_bof)
        && pieces
            .last()
            .is_some_and(|(l, _)| l.at_eof == (h.at_eof && cut.is_empty()))
        && pieces
            .windows(2)
            .all(|w| w[1].1.start >= w[0].1.end && !w[0].0.at_eof && !w[1].0.at_bof);
    if same && pins {
        Ok(())
    } else {
        Err(fail(
            p,
            Some(i + 1),
            "the parts placed for the elided hunk are not its lines around its elisions, in order",
        ))
    }
}

/// Apply non-overlapping placements, sorted by start, to `cur`: the proof's own splice. Runs
/// outside the regions are carried over whole; a region is walked line by line.
fn apply_claims<'a>(
    p: &FilePlan,
    cur: &Derived<'a>,
    placed: &[(usize, &'a Hunk, &Placement)],
    touches_end: &mut bool,
) -> Result<Derived<'a>, Failure> {
    let mut out = Derived::empty(cur.orig());
    let mut cursor = 0usize;
    for &(i, h, pl) in placed {
        check_region(p, cur.len(), i, h, pl, cursor)?;
        out.extend_from(cur, cursor, pl.start);
        walk_region(p, cur, 0, i, h, pl, &mut out)?;
        cursor = pl.end;
        if pl.end == cur.len() {
            *touches_end = true;
        }
    }
    out.extend_from(cur, cursor, cur.len());
    Ok(out)
}

/// One placement applied to `turn` (the text as the claims before it left it) in place, as
/// [`apply_claims`] applies it: for hunks proved one after another, where copying the whole
/// text per hunk would cost hunks × runs. Only the region's runs are read and replaced.
fn apply_in_place<'a>(
    p: &FilePlan,
    orig: &'a Index<'a>,
    turn: &mut Rope<Seg<'a>>,
    (i, h, pl): (usize, &'a Hunk, &Placement),
    touches_end: &mut bool,
) -> Result<(), Failure> {
    let len = turn.len();
    check_region(p, len, i, h, pl, 0)?;
    let window = derived_of(orig, turn.get(pl.start, pl.end));
    let local = Placement {
        start: 0,
        end: pl.end - pl.start,
        // A line before the region stays outside it (past its end), as the checks see it.
        mapping: pl
            .mapping
            .iter()
            .map(|m| m.map(|m| m.checked_sub(pl.start).unwrap_or(usize::MAX)))
            .collect(),
        inserts: pl
            .inserts
            .iter()
            .map(|&x| x.checked_sub(pl.start).unwrap_or(usize::MAX))
            .collect(),
        ..pl.clone()
    };
    let mut region = Derived::empty(orig);
    walk_region(p, &window, pl.start, i, h, &local, &mut region)?;
    if pl.end == len {
        *touches_end = true;
    }
    #[cfg(debug_assertions)]
    let whole = apply_claims(
        p,
        &derived_of(orig, turn.get(0, len)),
        &[(i, h, pl)],
        &mut false,
    )?;
    turn.replace(pl.start, pl.end, region.segs().to_vec());
    #[cfg(debug_assertions)]
    {
        let now = derived_of(orig, turn.get(0, turn.len()));
        debug_assert!(
            now.len() == whole.len() && now.items(0, now.len()).eq(whole.items(0, whole.len())),
            "a placement applied in place is the placement applied whole"
        );
    }
    Ok(())
}

/// A derived text of `runs`, in order.
fn derived_of<'a>(orig: &'a Index<'a>, runs: Vec<Seg<'a>>) -> Derived<'a> {
    let mut d = Derived::empty(orig);
    for seg in runs {
        d.push(seg);
    }
    d
}

/// The checks of a placement's region against `cur` that come before its lines are walked:
/// inside the file, after `cursor` (the end of the region before it), and at the end of the
/// file it is pinned to.
fn check_region(
    p: &FilePlan,
    len: usize,
    i: usize,
    h: &Hunk,
    pl: &Placement,
    cursor: usize,
) -> Result<(), Failure> {
    let at = Some(i + 1);
    if pl.start < cursor || pl.end < pl.start || pl.end > len {
        return Err(fail(
            p,
            at,
            format!(
                "the region {}..{} overlaps an earlier hunk's or leaves the file ({} lines)",
                pl.start + 1,
                pl.end,
                len
            ),
        ));
    }
    if h.at_bof && pl.start != 0 {
        return Err(fail(
            p,
            at,
            "the hunk must start the file but was placed later",
        ));
    }
    if h.at_eof && pl.end != len {
        return Err(fail(
            p,
            at,
            "the hunk must end the file but was placed earlier",
        ));
    }
    Ok(())
}

/// A placement's region of `cur` as the hunk leaves it, appended to `out`: its old side checked
/// against the region, its added lines put in at their insertion points. `cur` starts at line
/// `base` of the file (for messages).
fn walk_region<'a>(
    p: &FilePlan,
    cur: &Derived<'a>,
    base: usize,
    i: usize,
    h: &'a Hunk,
    pl: &Placement,
    out: &mut Derived<'a>,
) -> Result<(), Failure> {
    let at = Some(i + 1);
    let removed = check_mapping(p, i, h, pl, cur, base)?;
    let runs = added_runs(h);
    if runs.len() != pl.inserts.len() {
        return Err(fail(
            p,
            at,
            format!(
                "{} insertion points for {} runs of added lines",
                pl.inserts.len(),
                runs.len()
            ),
        ));
    }
    if pl.inserts.windows(2).any(|w| w[0] > w[1])
        || pl.inserts.iter().any(|&x| x < pl.start || x > pl.end)
    {
        return Err(fail(
            p,
            at,
            "added lines are placed outside the hunk's region or out of order",
        ));
    }
    // Added lines read as the patch's under the pass the hunk matched by: a line the hunk
    // repeats unchanged keeps the file's bytes, which the pass forgave (splice).
    let loose = if h.reindent || pl.pass.ignores_indentation() {
        Some(pl.pass.max(Pass::Whitespace))
    } else {
        (pl.pass != Pass::Exact).then_some(pl.pass)
    };
    // Region lines from `keep` on are kept up to the next removed line or insertion
    // point; the insertion points are in order, so the runs go in as the walk reaches
    // them.
    let mut next = 0usize;
    let mut keep = pl.start;
    for pos in pl.start..=pl.end {
        let gone = pos < pl.end && removed[pos - pl.start];
        if gone || pos == pl.end || pl.inserts.get(next) == Some(&pos) {
            out.extend_from(cur, keep, pos);
            while pl.inserts.get(next) == Some(&pos) {
                out.push(Seg::Added {
                    lines: runs[next],
                    hunk: i as u32,
                    loose,
                });
                next += 1;
            }
            keep = if gone { pos + 1 } else { pos };
        }
    }
    Ok(())
}

/// The hunk's old side against the region: every removed line matched to a file line that
/// reads the same under the pass, in order, inside the region. Returns which region lines
/// the hunk removes.
fn check_mapping(
    p: &FilePlan,
    i: usize,
    h: &Hunk,
    pl: &Placement,
    cur: &Derived,
    base: usize,
) -> Result<Vec<bool>, Failure> {
    let at = Some(i + 1);
    let old: Vec<_> = h.old_lines().collect();
    if old.len() != pl.mapping.len() {
        return Err(fail(p, at, "the old side and its mapping differ in length"));
    }
    let mut removed = vec![false; pl.end - pl.start];
    let mut last: Option<usize> = None;
    let mut matched = 0usize;
    for (line, m) in old.iter().zip(&pl.mapping) {
        let Some(m) = *m else {
            if line.kind == LineKind::Remove {
                return Err(fail(
                    p,
                    at,
                    format!("removed line {:?} is not matched in the file", line.text),
                ));
            }
            continue;
        };
        if m < pl.start || m >= pl.end || last.is_some_and(|l| m <= l) {
            return Err(fail(
                p,
                at,
                "the old side's lines are matched out of order or outside the region",
            ));
        }
        last = Some(m);
        matched += 1;
        let reads = match pl.pass {
            Pass::Exact => cur.reads_as(cur.at(m), &line.text),
            pass => key(pass, &line.text) == key(pass, &cur.text(cur.at(m))),
        };
        if !reads {
            return Err(fail(
                p,
                at,
                format!(
                    "line {} of the file does not read as the hunk's {:?} under the {} pass",
                    base + m + 1,
                    line.text,
                    pl.pass.as_str()
                ),
            ));
        }
        if line.kind == LineKind::Remove {
            removed[m - pl.start] = true;
        }
    }
    // Without fuzz, the region is the old side, line for line.
    if pl.pass != Pass::Fuzzy && pl.fuzz.is_none() && matched != pl.end - pl.start {
        let blank_tail = old.len() > matched
            && old[matched..]
                .iter()
                .all(|l| l.kind == LineKind::Context && l.text.trim().is_empty());
        if !blank_tail {
            return Err(fail(
                p,
                at,
                "the region has lines the hunk does not account for",
            ));
        }
    }
    Ok(removed)
}

/// The runs of added lines of a hunk, in order.
fn added_runs(h: &Hunk) -> Vec<&[crate::patch::Line]> {
    h.lines
        .chunk_by(|a, b| (a.kind == LineKind::Add) == (b.kind == LineKind::Add))
        .filter(|run| run[0].kind == LineKind::Add)
        .collect()
}

/// An already-applied hunk: its new side is at `start`, where it would land by its pins, and
/// its removed lines are not still there to be removed.
fn check_already(
    p: &FilePlan,
    i: usize,
    h: &Hunk,
    (cur, base): (&Derived, usize),
    total: usize,
    start: usize,
    pass: Pass,
) -> Result<(), Failure> {
    // `cur` holds the file's lines from line `base` on (all of them, or as many as are
    // read), of `total` lines in all.
    let lines = |a: usize, b: usize| cur.items(a - base, b - base);
    let at = Some(i + 1);
    let new: Vec<&str> = h.new_lines().map(|l| l.text.as_str()).collect();
    // Blank context past the end of the file is whitespace (the planner's rule too).
    let blank_tail = new
        .iter()
        .rev()
        .zip(h.lines.iter().rev())
        .take_while(|(t, l)| l.kind == LineKind::Context && t.trim().is_empty())
        .count();
    let fits = |n: usize| {
        start + n <= total
            && new[..n]
                .iter()
                .zip(lines(start, start + n))
                .all(|(a, b)| key(pass, a) == key(pass, &cur.text(b)))
    };
    let n = if fits(new.len()) {
        new.len()
    } else if blank_tail > 0
        && start + new.len() - blank_tail == total
        && fits(new.len() - blank_tail)
    {
        new.len() - blank_tail
    } else {
        return Err(fail(
            p,
            at,
            format!(
                "called already applied, but its new side is not at line {}",
                start + 1
            ),
        ));
    };
    if h.at_bof && start != 0 {
        return Err(fail(
            p,
            at,
            "called already applied, but not at the start of the file it must start",
        ));
    }
    if h.at_eof && start + n != total {
        return Err(fail(
            p,
            at,
            "called already applied, but not at the end of the file it must end",
        ));
    }
    let removes = h.lines.iter().any(|l| l.kind == LineKind::Remove);
    if removes {
        let old: Vec<&str> = h.old_lines().map(|l| l.text.as_str()).collect();
        let old_there = start + old.len() <= total
            && old
                .iter()
                .zip(lines(start, start + old.len()))
                .all(|(a, b)| key(Pass::Unicode, a) == key(Pass::Unicode, &cur.text(b)));
        let same_bytes = old.len() == new.len()
            && start + new.len() <= total
            && new
                .iter()
                .zip(lines(start, start + new.len()))
                .all(|(a, b)| *a == cur.text(b));
        if old_there && !same_bytes {
            return Err(fail(
                p,
                at,
                format!(
                    "called already applied, but its removed lines are still at line {}",
                    start + 1
                ),
            ));
        }
    }
    Ok(())
}

/// The derived lines against the planned file (`planned`, of `planned_len` lines): kept lines
/// byte for byte (their terminators too, but for a line that stops or starts being the
/// last), added lines modulo their pass. The planned file is walked once; a kept run is one
/// comparison of bytes, line by line only where that finds a difference.
fn compare(
    p: &FilePlan,
    derived: &Derived,
    planned: &lines::Chunks,
    planned_len: usize,
    touches_end: bool,
    final_newline: Option<bool>,
) -> Result<(), Failure> {
    if derived.len() != planned_len {
        return Err(fail(
            p,
            None,
            format!(
                "the planned file has {} lines where applying the hunks gives {}",
                planned_len,
                derived.len()
            ),
        ));
    }
    let n = derived.len();
    let orig = derived.orig();
    let mut got_lines = Lines::chunked(planned);
    let mut idx = 0usize;
    for seg in derived.segs() {
        match *seg {
            Seg::Kept { from, len } => {
                // All but the run's last line end in a newline (only the original's last
                // line may not) and none is the file's last: equal bytes are equal lines.
                let mut k = from;
                if len > 1 {
                    let span = orig.span(from, from + len - 1);
                    if got_lines.skip_prefix(span) {
                        idx += len - 1;
                        k += len - 1;
                    }
                }
                for k in k..from + len {
                    let Line { content, eol } = orig.line(k);
                    let got = next_planned(&mut got_lines);
                    let last = idx + 1 == n;
                    if content != got.content {
                        return Err(fail(
                            p,
                            None,
                            format!("line {} of the planned file is not the file's own", idx + 1),
                        ));
                    }
                    let eol_free =
                        (last && touches_end) || eol.is_empty() || (last && got.eol.is_empty());
                    if !eol_free && eol != got.eol {
                        return Err(fail(
                            p,
                            None,
                            format!("the line ending of line {} changed", idx + 1),
                        ));
                    }
                    idx += 1;
                }
            }
            Seg::Added { lines, hunk, loose } => {
                for l in lines {
                    let text = l.text.as_str();
                    let got = next_planned(&mut got_lines);
                    let last = idx + 1 == n;
                    let same = match loose {
                        None => *crate::text::bytes::encode(text) == *got.content,
                        Some(pass) => key(pass, text) == key(pass, &got.text()),
                    };
                    if !same {
                        return Err(fail(
                            p,
                            Some(hunk as usize + 1),
                            format!(
                                "line {} of the planned file should be the added line {text:?}",
                                idx + 1
                            ),
                        ));
                    }
                    if got.eol.is_empty() && !last {
                        return Err(fail(
                            p,
                            Some(hunk as usize + 1),
                            "an added line lost its line ending",
                        ));
                    }
                    idx += 1;
                }
            }
        }
    }
    if let (Some(want), Some(&end)) = (final_newline, planned.iter().rev().find_map(|c| c.last())) {
        // The last line lacks its terminator exactly when the bytes do not end in one.
        if want == (end != b'\n') {
            return Err(fail(
                p,
                None,
                "the file's final newline is not what the patch's end-of-file marker says",
            ));
        }
    }
    Ok(())
}

/// The next planned line, when the planned file has as many lines as the derived one.
fn next_planned<'a>(walk: &mut Lines<'a>) -> Line<'a> {
    walk.next()
        .expect("the planned file has as many lines as the derived one, counted above")
}

/// Going back: walking the planned lines with the same placements, dropping the added lines
/// and putting back the file lines the hunks removed, must give the original lines. The
/// restored lines are compared with the original's as the walk makes them.
fn reverse(
    p: &FilePlan,
    placed: &[(usize, &Hunk, &Placement)],
    orig: &Index,
    planned: &lines::Chunks,
    planned_len: usize,
) -> Result<(), Failure> {
    let mut walk = Lines::chunked(planned);
    let mut n = 0usize; // position in the planned lines
    let mut o = 0usize; // position in the original lines
    let mut r = 0usize; // lines restored so far
                        // Whether the restored lines so far are the original's; once not, only the counting
                        // goes on (a planned file too short still says so).
    let mut same = true;
    for &(i, h, pl) in placed {
        let k = pl.start.saturating_sub(o);
        if same {
            same = same_contents(orig, r, k, &mut walk);
        }
        n += k;
        o += k;
        r += k;
        let mut removed = vec![false; pl.end - pl.start];
        for (_, m) in h
            .old_lines()
            .zip(&pl.mapping)
            .filter(|(l, _)| l.kind == LineKind::Remove)
        {
            if let Some(slot) = m
                .and_then(|m| m.checked_sub(pl.start))
                .and_then(|m| removed.get_mut(m))
            {
                *slot = true;
            }
        }
        let runs = added_runs(h);
        // The added lines standing before `pos` (insertion points are in order).
        let mut next = 0usize;
        let mut skip_at = |pos: usize| -> usize {
            let mut skip = 0;
            while pl.inserts.get(next) == Some(&pos) {
                skip += runs.get(next).map_or(0, |r| r.len());
                next += 1;
            }
            skip
        };
        for pos in pl.start..=pl.end {
            let skip = skip_at(pos);
            n += skip;
            if same {
                for _ in 0..skip {
                    walk.next();
                }
            }
            if pos == pl.end {
                break;
            }
            if removed[pos - pl.start] {
                // The original's own line goes back in (where it came from it is itself:
                // nothing to read).
                same = same
                    && r < orig.len()
                    && (pos == r || orig.line(pos).content == orig.line(r).content);
            } else {
                if same {
                    let got = walk.next().map(|l| l.content).unwrap_or_default();
                    same = r < orig.len() && got == orig.line(r).content;
                }
                n += 1;
            }
            o += 1;
            r += 1;
        }
        if n > planned_len {
            return Err(fail(
                p,
                Some(i + 1),
                "the planned file is shorter than its hunks need",
            ));
        }
    }
    let tail = planned_len - n;
    let same = same && r + tail == orig.len() && same_contents(orig, r, tail, &mut walk);
    if same {
        Ok(())
    } else {
        Err(fail(
            p,
            None,
            "taking the hunks back out of the planned file does not give the original",
        ))
    }
}

/// Whether the next `k` planned lines read as the original's lines `from..from + k`
/// (content, not terminators): one comparison of bytes when they are the same, line by line
/// when not.
fn same_contents(orig: &Index, from: usize, k: usize, walk: &mut Lines) -> bool {
    if k == 0 {
        return true;
    }
    if from + k > orig.len() {
        return false;
    }
    let mut at = from;
    // All but the last of these lines end in a newline, so equal bytes are equal lines.
    let span = orig.span(from, from + k - 1);
    if walk.skip_prefix(span) {
        at += k - 1;
    }
    (at..from + k).all(|o| {
        walk.next()
            .is_some_and(|l| l.content == orig.line(o).content)
    })
}

/// A three-way merge changes the file by the patch's lines and no others: no line's count
/// grows by more than the patch adds of it, or shrinks by more than the patch removes, and
/// every run of added lines stands in the result.
fn check_merge(
    fp: &FilePatch,
    p: &FilePlan,
    before: &FileState,
    after: &FileState,
) -> Result<(), Failure> {
    let (_, old) = strip_bom(&before.bytes, false);
    let (_, new) = strip_bom(&after.bytes, false);
    let mut delta: HashMap<&[u8], i64> = HashMap::new();
    for l in Lines::new(new) {
        *delta.entry(l.content).or_default() += 1;
    }
    for l in Lines::new(old) {
        *delta.entry(l.content).or_default() -= 1;
    }
    let mut budget: HashMap<Vec<u8>, (i64, i64)> = HashMap::new();
    for h in &fp.hunks {
        for l in &h.lines {
            let e = budget
                .entry(crate::text::bytes::encode(&l.text).into_owned())
                .or_default();
            match l.kind {
                LineKind::Add => e.0 += 1,
                LineKind::Remove => e.1 += 1,
                LineKind::Context => {}
            }
        }
    }
    for (line, d) in &delta {
        let (add, rem) = budget.get(*line).copied().unwrap_or_default();
        if *d > add || -*d > rem {
            return Err(fail(
                p,
                None,
                format!(
                    "the merge changes the count of the line {:?} by {d}, which the patch does not",
                    String::from_utf8_lossy(line)
                ),
            ));
        }
    }
    drop(delta);
    // Where each added line stands in the result (only those: the rest is not looked for),
    // by the byte offset of its line.
    let mut at: HashMap<&[u8], Vec<usize>> = budget
        .iter()
        .filter(|(_, (add, _))| *add > 0)
        .map(|(line, _)| (line.as_slice(), Vec::new()))
        .collect();
    let mut offset = 0usize;
    for l in Lines::new(new) {
        if let Some(positions) = at.get_mut(l.content) {
            positions.push(offset);
        }
        offset += l.content.len() + l.eol.len();
    }
    for (i, h) in fp.hunks.iter().enumerate() {
        for run in added_runs(h) {
            let run: Vec<Vec<u8>> = run
                .iter()
                .map(|l| crate::text::bytes::encode(&l.text).into_owned())
                .collect();
            let (k, rare) = run
                .iter()
                .enumerate()
                .min_by_key(|(_, t)| at.get(t.as_slice()).map_or(0, Vec::len))
                .expect("a run has a line");
            let present = at.get(rare.as_slice()).is_some_and(|positions| {
                positions.iter().any(|&pos| {
                    lines_back(new, pos, k).is_some_and(|start| {
                        let mut walk = Lines::new(&new[start..]);
                        run.iter()
                            .all(|t| walk.next().is_some_and(|l| t.as_slice() == l.content))
                    })
                })
            });
            if !present {
                return Err(fail(
                    p,
                    Some(i + 1),
                    "the merged file lacks the hunk's added lines",
                ));
            }
        }
    }
    Ok(())
}

/// The offset of the line `k` lines before the line starting at `offset`, if there is one.
fn lines_back(bytes: &[u8], offset: usize, k: usize) -> Option<usize> {
    let mut start = offset;
    for _ in 0..k {
        // The newline that ends the line before, then the start of that line.
        let before = start.checked_sub(1)?;
        start = memchr::memrchr(b'\n', &bytes[..before]).map_or(0, |j| j + 1);
    }
    Some(start)
}

//! Modifying a file (renames and mode changes included): its hunks located in order, the
//! strategy chain of DESIGN §4 tried, and the file's new bytes.

use std::collections::HashMap;

use super::diagnose::{self, Warning, WarningKind};
use super::elision;
use super::locate::{self, names, DecidedBy, Haystack, Located, Placement, Query};
use super::{
    base_plan, refused, sequential, splice, Claim, FilePlan, FileStatus, HunkResult, HunkStatus,
    MergeResult, Options, Overlay, Strategy, Writes,
};
use crate::patch::{CreateMode, FilePatch, Hunk};
use crate::repo::{link_stays_inside, Content, Entry, FileState, MODE_LINK};
use crate::text::file::TextFile;
use crate::text::normalize::Pass;

/// The paths a modification reads and writes, and the mode it leaves.
struct Target {
    old: String,
    new: String,
    renamed: bool,
    mode: u32,
}

impl Target {
    /// The writes that put `bytes` at the new path (and remove the old one after a rename).
    fn writes(&self, bytes: Content) -> Writes {
        let mut writes: Writes = Vec::new();
        if self.renamed {
            writes.push((self.old.clone(), None));
        }
        writes.push((
            self.new.clone(),
            Some(FileState {
                bytes,
                mode: self.mode,
            }),
        ));
        writes
    }
}

/// Where the text passes put each hunk, with what the repeat and elision rules made of them.
struct Placed<'a> {
    located: Vec<Located>,
    hints: Vec<Hint>,
    /// Per hunk: the earlier hunk it repeats line for line.
    repeats: Vec<Option<usize>>,
    /// Per hunk with elision lines: its parts and where each was put.
    elided: Vec<Option<Vec<(Hunk, Placement)>>>,
    /// Per SEARCH block with elisions: the block rebuilt with the file's lines, where it fits,
    /// and how many lines each elision stood for.
    rebuilt: Vec<Option<(Hunk, Placement, Vec<usize>)>>,
    /// The text the hunks left, when they were located one after another.
    sequential_text: Option<TextFile<'a>>,
    /// The tab width the patch's other hunks show, and per hunk whether its added lines take
    /// it ([`retab_unshown`]).
    retab: Option<(usize, Vec<bool>)>,
}

pub(super) fn plan_modify(
    index: usize,
    fp: &FilePatch,
    vfs: &mut Overlay,
    opts: &Options,
) -> std::io::Result<(FilePlan, Writes)> {
    let old = fp.old_path.clone().expect("a modification has an old path");
    let new = fp.new_path.clone().expect("a modification has a new path");
    let Existing { cur, replaced } = match file_to_modify(fp, vfs, &old, &new)? {
        Ok(found) => found,
        Err(refusal) => return Ok((refusal, Vec::new())),
    };
    let link = cur.mode == MODE_LINK;
    let mut plan = base_plan(fp);
    if replaced.is_some() {
        plan.warnings.push(Warning::new(
            WarningKind::Overwrote,
            None,
            format!(
                "{new} already existed and was replaced by the moved {old} (the snapshot keeps \
                 the old content)"
            ),
        ));
    }
    plan.evidence.replaced = replaced;
    let mode = match fp.new_mode {
        Some(m) if m != cur.mode => {
            plan.mode_change = Some((cur.mode, m));
            m
        }
        _ => cur.mode,
    };
    let target = Target {
        renamed: old != new,
        old,
        new,
        mode,
    };

    if fp.hunks.is_empty() {
        if !target.renamed && plan.mode_change.is_none() {
            plan.status = FileStatus::AlreadyApplied;
            return Ok((plan, Vec::new()));
        }
        return Ok((plan, target.writes(cur.bytes.clone())));
    }

    // Binary or text as git judges the file on disk, before this apply: an earlier section
    // of the patch for the same file may move a late NUL to its start, and the file is still
    // the text it was (git applies both sections).
    let binary = match vfs.original(&target.old)? {
        Entry::File(f) => crate::text::bytes::looks_binary([&f.bytes[..]]),
        _ => crate::text::bytes::looks_binary([&cur.bytes[..]]),
    };
    if binary {
        let why = format!(
            "{} is binary as git judges it (a NUL byte among its first {} bytes), and a binary \
             file is not changed at text level (a `git diff --binary` patch of it applies \
             where its blobs are stored)",
            target.old,
            crate::text::bytes::BINARY_SNIFF
        );
        return Ok((refused(fp, why), Vec::new()));
    }
    let Some((text, bom_moved)) = decoded(fp, &cur) else {
        let why = format!(
            "{} holds characters U+10FF00..U+10FFFF, which stand for raw bytes here, so its \
             text cannot be told from its bytes; it is not patched at text level",
            target.old
        );
        return Ok((refused(fp, why), Vec::new()));
    };
    let mut placed = locate_and_place(fp, &text, &mut plan.warnings);
    if placed.sequential_text.is_none() && !tabs_are_syntax(&target.new) {
        retab_unshown(fp, &text, &mut placed);
    }
    plan.evidence.claims = claims(&placed);
    plan.evidence.sequential = placed.sequential_text.is_some();
    plan.evidence.bom_in_text = bom_moved;
    let exact_everywhere = exact_everywhere(&placed);

    // A three-way engine reads the work tree, so only for paths this plan has not changed.
    let untouched =
        !link && !vfs.planned.contains_key(&target.old) && !vfs.planned.contains_key(&target.new);
    if !exact_everywhere && untouched {
        if let Some(result) = merged(index, fp, &cur, opts, &placed.located) {
            return Ok(merged_plan(plan, result, fp, &cur, &target));
        }
    }
    Ok(text_plan(
        plan,
        fp,
        &cur,
        text,
        placed,
        &target,
        exact_everywhere,
    ))
}

/// The file a modification patches, as the plan so far leaves it.
struct Existing {
    cur: FileState,
    /// The file a move replaces (Codex's rule).
    replaced: Option<FileState>,
}

/// The file to modify; or, as the error, the plan that refuses it (or finds a rename
/// already made).
fn file_to_modify(
    fp: &FilePatch,
    vfs: &Overlay,
    old: &str,
    new: &str,
) -> std::io::Result<Result<Existing, FilePlan>> {
    let renamed = old != new;
    let cur = match vfs.read(old)? {
        Entry::File(f) => f,
        Entry::Missing => return Ok(Err(missing_file(fp, vfs, old, new)?)),
        Entry::Other(what) => {
            return Ok(Err(refused(
                fp,
                format!("{old} is a {what}; only regular files are patched"),
            )))
        }
    };
    let mut replaced: Option<FileState> = None;
    if renamed {
        match vfs.read(new)? {
            Entry::Missing => {}
            Entry::File(existing) if fp.create_mode == CreateMode::MayReplace => {
                replaced = Some(existing);
            }
            _ => {
                return Ok(Err(refused(
                    fp,
                    format!("cannot rename {old} to {new}: {new} already exists"),
                )))
            }
        }
    }
    // A symbolic link is patched only by a symlink patch (its target is its content); a text
    // patch meant for the file it points at names that file.
    let link = cur.mode == MODE_LINK;
    if link != (fp.old_mode.or(fp.new_mode) == Some(MODE_LINK)) {
        let what = if link {
            format!(
                "{old} is a symbolic link to {}; patch the file it points at, or send a symlink \
                 patch (mode 120000)",
                String::from_utf8_lossy(&cur.bytes)
            )
        } else {
            format!("{old} is a regular file, and the patch treats it as a symbolic link")
        };
        return Ok(Err(refused(fp, what)));
    }
    Ok(Ok(Existing { cur, replaced }))
}

/// The plan for a file to modify that is not there: a rename already made, or a refusal
/// naming the closest path (or how to send a new file).
fn missing_file(fp: &FilePatch, vfs: &Overlay, old: &str, new: &str) -> std::io::Result<FilePlan> {
    // A rename that already happened: check the hunks against the new path.
    if old != new {
        if let Entry::File(target) = vfs.read(new)? {
            if let Some(text) = TextFile::decode(&target.bytes) {
                let (results, _) = locate_all(fp, &text);
                if !results.is_empty()
                    && results
                        .iter()
                        .all(|r| matches!(r, Located::AlreadyApplied { .. }))
                    || fp.hunks.is_empty()
                {
                    let mut plan = base_plan(fp);
                    plan.status = FileStatus::AlreadyApplied;
                    return Ok(plan);
                }
            }
        }
    }
    let mut p = refused(fp, format!("{old} does not exist"));
    p.suggested_path = diagnose::closest_path(old, &vfs.files.known_paths());
    if p.suggested_path.is_none() {
        // No near name: perhaps the file was meant to be made.
        p.problems.push(format!(
            "to create {old}, send it as a new file: in a unified diff, `--- /dev/null` \
             and `+++ b/{old}` with one `@@ -0,0 +1,N @@` hunk of added lines; in a \
             Codex patch, `*** Add File: {old}`; in SEARCH/REPLACE, the path and a block \
             with an empty SEARCH"
        ));
    }
    Ok(p)
}

/// The text of a file judged text (a NUL in it is a character) as the patch sees it, and
/// whether its byte-order mark was moved into the first line; `None` where
/// [`TextFile::decode_counted`] has none.
fn decoded<'a>(fp: &FilePatch, cur: &'a FileState) -> Option<(TextFile<'a>, bool)> {
    // Decoded by two threads only where no thread is hashing the file meanwhile.
    let two = !cur.bytes.hashing_ahead();
    let (mut text, counted) = TextFile::decode_counted(&cur.bytes, two)?;
    if let Some(n) = counted {
        cur.bytes.know_text_lines(n);
    }
    // A patch that shows the byte-order mark (a `git diff` of the file) treats it as part of
    // the first line, and may remove it with that line; one that does not (most models'
    // patches) leaves it where it is.
    let patch_shows_bom = fp
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .any(|l| l.text.starts_with('\u{feff}'));
    let bom_moved = text.bom && patch_shows_bom;
    if bom_moved {
        text.bom = false;
        if let Some(first) = text.lines.first_mut() {
            first.to_mut().insert(0, '\u{feff}');
        }
    }
    Some((text, bom_moved))
}

/// Every hunk located by the text passes, repeats counted once, hunks out of a Codex patch's
/// order refused where their lines say too little, and hunks with elision lines placed as
/// their parts.
fn locate_and_place<'a>(
    fp: &FilePatch,
    text: &TextFile<'a>,
    warnings: &mut Vec<Warning>,
) -> Placed<'a> {
    // Hunks made in turn are each an edit of their own, a repeat too; they are located in
    // turn from the start.
    let repeats = if fp.in_turn {
        vec![None; fp.hunks.len()]
    } else {
        repeated_hunks(fp)
    };
    let (mut located, hints, sequential_text) = if repeats.iter().any(Option::is_some) {
        locate_once_each(fp, text, &repeats, warnings)
    } else {
        locate_hunks(fp, text, fp.in_turn)
    };
    if fp.ordered {
        refuse_weak_out_of_order(&fp.hunks, &mut located);
    }
    let (elided, rebuilt) = if sequential_text.is_none() {
        elision::place_elided(fp, text, &mut located, &hints, &repeats, warnings)
    } else {
        (vec![None; fp.hunks.len()], vec![None; fp.hunks.len()])
    };
    Placed {
        located,
        hints,
        repeats,
        elided,
        rebuilt,
        sequential_text,
        retab: None,
    }
}

/// A hunk repeated verbatim (a model repeating itself) is one edit: located once, the copy
/// reported as already applied. A repeat at other numbers is a second edit.
fn locate_once_each<'a>(
    fp: &FilePatch,
    text: &TextFile<'a>,
    repeats: &[Option<usize>],
    warnings: &mut Vec<Warning>,
) -> (Vec<Located>, Vec<Hint>, Option<TextFile<'a>>) {
    let once = FilePatch {
        hunks: fp
            .hunks
            .iter()
            .zip(repeats)
            .filter(|(_, r)| r.is_none())
            .map(|(h, _)| h.clone())
            .collect(),
        ..fp.clone()
    };
    let (located, hints, seq) = locate_hunks(&once, text, false);
    let mut slot = Vec::with_capacity(fp.hunks.len());
    let mut k = 0usize;
    for r in repeats {
        slot.push(if r.is_none() {
            k += 1;
            k - 1
        } else {
            usize::MAX
        });
    }
    let mut all = Vec::with_capacity(fp.hunks.len());
    let mut all_hints = Vec::with_capacity(fp.hunks.len());
    let mut hints = hints.into_iter();
    for (i, r) in repeats.iter().enumerate() {
        match r {
            None => {
                all.push(located[slot[i]].clone());
                all_hints.push(hints.next().expect("a hint per located hunk"));
            }
            Some(of) => {
                all.push(match &located[slot[*of]] {
                    Located::Placed(p) => Located::AlreadyApplied {
                        start: p.start,
                        pass: p.pass,
                    },
                    other => other.clone(),
                });
                all_hints.push(Hint {
                    stated: None,
                    searched: None,
                });
                warnings.push(Warning::new(
                    WarningKind::DuplicateHunk,
                    Some(i + 1),
                    format!(
                        "hunk {} repeats hunk {} line for line; it was applied once",
                        i + 1,
                        of + 1
                    ),
                ));
            }
        }
    }
    (all, all_hints, seq)
}

/// What the plan claims of each hunk, for the proof to check.
fn claims(placed: &Placed) -> Vec<Claim> {
    placed
        .located
        .iter()
        .zip(&placed.repeats)
        .zip(&placed.elided)
        .zip(&placed.rebuilt)
        .map(|(((l, r), e), b)| match (l, r) {
            _ if e.is_some() => Claim::Elided {
                pieces: e.clone().expect("checked"),
            },
            _ if b.is_some() => {
                let (hunk, placement, filled) = b.clone().expect("checked");
                Claim::Rebuilt {
                    hunk,
                    placement,
                    filled,
                }
            }
            (_, Some(of)) => Claim::Repeat { of: *of },
            (Located::Placed(p), None) => Claim::Placed(p.clone()),
            (Located::AlreadyApplied { start, pass }, None) => Claim::AlreadyApplied {
                start: *start,
                pass: *pass,
            },
            (Located::Ambiguous { .. } | Located::NotFound { .. }, None) => Claim::Unplaced,
        })
        .collect()
}

/// Whether every hunk was placed exactly, whole, at the line its numbers state.
fn exact_everywhere(placed: &Placed) -> bool {
    placed
        .located
        .iter()
        .zip(&placed.hints)
        .zip(&placed.elided)
        .all(|((l, h), e)| match l {
            Located::Placed(p) => e.is_none() && p.pass == Pass::Exact && Some(p.start) == h.stated,
            _ => false,
        })
}

/// Strategies 2 and 3: `git apply --3way`, else a base found in history.
fn merged(
    index: usize,
    fp: &FilePatch,
    cur: &FileState,
    opts: &Options,
    located: &[Located],
) -> Option<MergeResult> {
    // Strategy 3 only where the text passes are not certain, as git apply --3way merges
    // only what does not apply directly: context found exactly and in one place stands
    // (a merge would call a block the file moved a conflict, and the history search
    // costs more); a looser fit, an ambiguity or no fit defers to a base found in history.
    opts.three_way
        .and_then(|tw| tw.apply(index, fp, cur))
        .or_else(|| {
            opts.history
                .filter(|_| !certain(located))
                .and_then(|h| h.apply(index, fp, cur))
        })
}

/// The plan a three-way merge made: clean, or with conflict markers.
fn merged_plan(
    mut plan: FilePlan,
    result: MergeResult,
    fp: &FilePatch,
    cur: &FileState,
    target: &Target,
) -> (FilePlan, Writes) {
    match result {
        MergeResult::Clean {
            bytes,
            strategy,
            base,
        } => {
            plan.strategy = strategy;
            plan.base = base;
            plan.hunks = (1..=fp.hunks.len())
                .map(|i| HunkResult::new(i, HunkStatus::Applied))
                .collect();
            if bytes == *cur.bytes && !target.renamed && plan.mode_change.is_none() {
                plan.status = FileStatus::AlreadyApplied;
                return (plan, Vec::new());
            }
            (plan, target.writes(bytes.into()))
        }
        MergeResult::Conflicted {
            bytes,
            strategy,
            base,
            regions,
        } => {
            plan.strategy = strategy;
            plan.base = base;
            plan.status = FileStatus::Conflicted;
            plan.conflicts = regions;
            plan.hunks = (1..=fp.hunks.len())
                .map(|i| HunkResult::new(i, HunkStatus::Conflicted))
                .collect();
            (plan, target.writes(bytes.into()))
        }
    }
}

/// Strategies 1 and 4: the file as the text passes placed the hunks (exact when every hunk
/// sits at its numbers), or refused with a diagnostic per hunk not placed.
fn text_plan(
    mut plan: FilePlan,
    fp: &FilePatch,
    cur: &FileState,
    text: TextFile,
    mut placed: Placed,
    target: &Target,
    exact_everywhere: bool,
) -> (FilePlan, Writes) {
    let sequential_text = placed.sequential_text.take();
    let results = hunk_results(fp, &text, &placed, &mut plan);
    plan.warnings
        .extend(diagnose::order_warnings(&placed.located));
    if results.failed {
        let searched: Vec<Option<usize>> = placed.hints.iter().map(|h| h.searched).collect();
        let diagnostics = diagnose::diagnose(fp, &text.lines, &placed.located, &searched);
        for (r, d) in plan.hunks.iter_mut().zip(diagnostics) {
            r.diagnostic = d.map(Box::new);
        }
        plan.status = FileStatus::Refused;
        let n = plan
            .hunks
            .iter()
            .filter(|h| matches!(h.status, HunkStatus::Ambiguous | HunkStatus::NotFound))
            .count();
        plan.problems.push(format!(
            "{n} of {} hunk(s) could not be placed",
            plan.hunks.len()
        ));
        return (plan, Vec::new());
    }
    // After an indentation-blind match, the added lines must be indentable the file's way
    // (hunks applied one after another were checked as they went).
    let mut failed = false;
    for ((hunk, p), &i) in results
        .placed
        .iter()
        .zip(&results.placed_from)
        .filter(|_| sequential_text.is_none())
    {
        if let Err(why) = splice::IndentMap::learn(hunk, p, &text) {
            plan.hunks[i].status = HunkStatus::NotFound;
            plan.hunks[i].reason = Some(why.to_string());
            failed = true;
        }
    }
    if failed {
        plan.status = FileStatus::Refused;
        plan.problems.push(
            "a hunk matched only when ignoring indentation that differs inconsistently".into(),
        );
        return (plan, Vec::new());
    }
    plan.strategy = if exact_everywhere {
        Strategy::Exact
    } else {
        Strategy::Text
    };
    if results.all_already && !target.renamed && plan.mode_change.is_none() {
        plan.status = FileStatus::AlreadyApplied;
        return (plan, Vec::new());
    }
    // The counts are those of the hunks this plan applies, not of those already there.
    // A line a hunk removes and adds back unchanged (a SEARCH/REPLACE block) is neither.
    // When those are the patch's hunks, every one as sent, the plan was made with their
    // counts (`base_plan`): a big hunk's lines are not diffed a second time.
    let as_sent = fp.full_content.is_none()
        && results.placed.len() == fp.hunks.len()
        && (results.placed.iter().zip(&fp.hunks)).all(|((h, _), f)| std::ptr::eq(*h, f));
    if !as_sent {
        (plan.added, plan.removed) = results.placed.iter().fold((0, 0), |(a, r), (h, _)| {
            let (adds, rems) = h.added_removed();
            (a + adds, r + rems)
        });
    }
    let bytes = match sequential_text {
        Some(t) => t.encode().into(),
        None => {
            // Whether each hunk spliced (a hunk's parts never) takes the other hunks' tabs.
            let retab = placed.retab.as_ref().map(|(w, by_hunk)| {
                let each = results
                    .placed_from
                    .iter()
                    .map(|&i| by_hunk[i])
                    .collect::<Vec<_>>();
                (*w, each)
            });
            let retab = retab.as_ref().map(|(w, each)| (*w, each.as_slice()));
            let pieces = splice::pieces(&text, &results.placed, fp.patch_eols, &cur.bytes, retab);
            // The decoded lines go before the new bytes come.
            drop(text);
            pieces.content(&cur.bytes)
        }
    };
    if target.mode == MODE_LINK && !link_stays_inside(&target.new, &bytes) {
        plan.status = FileStatus::Refused;
        plan.problems.push(format!(
            "{} would become a symbolic link to {}, which leads out of the work tree",
            target.new,
            String::from_utf8_lossy(&bytes)
        ));
        return (plan, Vec::new());
    }
    (plan, target.writes(bytes))
}

/// Hunks placed as matched whose added lines the splice writes with the file's tabs, as the
/// patch's other hunks show it wrote them as spaces ([`splice::unshown_indentation`]): placed
/// as matched ignoring indentation, so that the report and the proof read them so.
fn retab_unshown(fp: &FilePatch, text: &TextFile, placed: &mut Placed) {
    // Hunks placed whole (not as parts around elisions, nor rebuilt from the file's lines).
    let whole: Vec<usize> = (0..placed.located.len())
        .filter(|&i| placed.elided[i].is_none() && placed.rebuilt[i].is_none())
        .filter(|&i| matches!(placed.located[i], Located::Placed(_)))
        .collect();
    let pairs: Vec<(&Hunk, &Placement)> = whole
        .iter()
        .filter_map(|&i| match &placed.located[i] {
            Located::Placed(p) => Some((&fp.hunks[i], p)),
            _ => None,
        })
        .collect();
    let Some((w, unshown)) = splice::unshown_indentation(text, &pairs) else {
        return;
    };
    let mut by_hunk = vec![false; placed.located.len()];
    for (&i, retab) in whole.iter().zip(unshown) {
        if let (true, Located::Placed(p)) = (retab, &mut placed.located[i]) {
            p.pass = p.pass.max(Pass::Whitespace);
            by_hunk[i] = true;
        }
    }
    placed.retab = Some((w, by_hunk));
}

/// Whether the file at `path` is one whose tabs are its syntax, not its style: a makefile
/// (`Makefile`, `Makefile.am`, `GNUmakefile`, `rules.mk`, `Kbuild`...), where a line
/// indented with a tab is a recipe and one indented with spaces is not.
fn tabs_are_syntax(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    ["makefile", "gnumakefile", "bsdmakefile", "kbuild"]
        .iter()
        .any(|m| lower.starts_with(m))
        || [".mk", ".mak", ".make"].iter().any(|e| lower.ends_with(e))
}

/// The hunks to splice, in patch order (an elided hunk as its parts), each with the patch
/// hunk it comes from; and whether any hunk failed, or all were there already.
struct HunkResults<'p> {
    placed: Vec<(&'p Hunk, &'p Placement)>,
    placed_from: Vec<usize>,
    failed: bool,
    all_already: bool,
}

/// Each hunk's result in the report, its warnings, and the loosest pass the file needed.
fn hunk_results<'p>(
    fp: &'p FilePatch,
    text: &TextFile,
    placed: &'p Placed,
    plan: &mut FilePlan,
) -> HunkResults<'p> {
    // The file's lines indexed once more only where some hunk has Codex anchors to look up.
    let anchor_hay = fp
        .hunks
        .iter()
        .any(|h| !h.anchors.is_empty())
        .then(|| Haystack::new(&text.lines));
    let mut out = HunkResults {
        placed: Vec::new(),
        placed_from: Vec::new(),
        failed: false,
        all_already: true,
    };
    let mut loosest: Option<Pass> = None;
    for (i, (loc, hint)) in placed.located.iter().zip(&placed.hints).enumerate() {
        let mut r = HunkResult::new(i + 1, HunkStatus::Applied);
        r.hint = fp.hunks[i].old_start;
        match loc {
            Located::Placed(p) => {
                out.all_already = false;
                r.line = Some(p.start + 1);
                r.offset = hint.stated.map(|h| p.start as i64 - h as i64);
                r.pass = Some(p.pass);
                r.occurrences = Some(p.occurrences);
                r.decided_by = Some(p.decided_by);
                r.fuzz = p.fuzz;
                loosest = loosest.max(Some(p.pass));
                plan.warnings
                    .extend(diagnose::placement_warnings(i + 1, p, hint.searched));
                let missing = anchor_hay
                    .as_ref()
                    .and_then(|hay| locate::anchor_missing_warning(hay, &fp.hunks[i]));
                if let Some(w) = missing {
                    plan.warnings.push(diagnose::Warning::new(
                        diagnose::WarningKind::AnchorMissing,
                        Some(i + 1),
                        format!("hunk {}: {w}", i + 1),
                    ));
                }
                match (&placed.elided[i], &placed.rebuilt[i]) {
                    (_, Some((rebuilt, pl, _))) => {
                        out.placed.push((rebuilt, pl));
                        out.placed_from.push(i);
                    }
                    (Some(pieces), None) => {
                        for (h, pl) in pieces {
                            loosest = loosest.max(Some(pl.pass));
                            out.placed.push((h, pl));
                            out.placed_from.push(i);
                        }
                    }
                    (None, None) => {
                        out.placed.push((&fp.hunks[i], p));
                        out.placed_from.push(i);
                    }
                }
            }
            Located::AlreadyApplied { start, pass } => {
                r.status = HunkStatus::AlreadyApplied;
                r.line = Some(start + 1);
                r.pass = Some(*pass);
            }
            Located::Ambiguous { pass, starts } => {
                out.failed = true;
                r.status = HunkStatus::Ambiguous;
                r.pass = Some(*pass);
                r.occurrences = Some(starts.len());
                r.candidates = starts.iter().map(|s| s + 1).collect();
                r.reason = Some(format!(
                    "the hunk fits at {} places (lines {}) and nothing decides between them",
                    starts.len(),
                    starts
                        .iter()
                        .map(|s| (s + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Located::NotFound { reason } => {
                out.failed = true;
                r.status = HunkStatus::NotFound;
                r.reason = Some(reason.clone().unwrap_or_else(|| {
                    "the hunk's context and removed lines are not in the file".into()
                }));
            }
        }
        plan.hunks.push(r);
    }
    plan.pass = loosest;
    out
}

/// In a patch whose hunks come in file order (Codex), a hunk whose old lines say nothing
/// of their own (braces, blank lines) is placed by that order as much as by its lines: where
/// it lands on the wrong side of a hunk next to it in the patch, it is refused, not trusted.
/// (Hunks with lines of substance out of order are a reordered patch, and only warned of.)
fn refuse_weak_out_of_order(hunks: &[Hunk], located: &mut [Located]) {
    let placed: Vec<(usize, usize)> = located
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l {
            Located::Placed(p) => Some((i, p.start)),
            _ => None,
        })
        .collect();
    let mut refuse = Vec::new();
    for pair in placed.windows(2) {
        let ((a, at_a), (b, at_b)) = (pair[0], pair[1]);
        if at_b >= at_a {
            continue;
        }
        for (i, other) in [(a, b), (b, a)] {
            if locate::says_nothing(&hunks[i]) {
                refuse.push((i, other));
            }
        }
    }
    for (i, other) in refuse {
        located[i] = Located::NotFound {
            reason: Some(format!(
                "its lines say too little to place it by themselves, and where they fit puts it \
                 on the wrong side of hunk {}, against the patch's order; resend it with a line \
                 of context that says where it goes",
                other + 1
            )),
        };
    }
}

/// For each hunk, the earlier hunk it repeats line for line, when its numbers do not say it
/// is meant for another place (the same numbers, or none on either).
fn repeated_hunks(fp: &FilePatch) -> Vec<Option<usize>> {
    // A lone hunk repeats nothing: its lines (maybe a whole file's) need no hashing.
    if fp.hunks.len() < 2 {
        return vec![None; fp.hunks.len()];
    }
    // Hunks are grouped by their lines first, so each is compared only with its look-alikes.
    let mut seen: HashMap<
        &[crate::patch::Line],
        Vec<usize>,
        std::hash::BuildHasherDefault<crate::text::hash::Fast>,
    > = HashMap::default();
    fp.hunks
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let earlier = seen.entry(&h.lines[..]).or_default();
            let first = earlier.iter().copied().find(|&j| {
                let e = &fp.hunks[j];
                e.anchors == h.anchors
                    && (e.old_start == h.old_start
                        || e.old_start.is_none()
                        || h.old_start.is_none())
            });
            earlier.push(i);
            first
        })
        .collect()
}

/// Whether the text passes' placement leaves no doubt: every hunk's old lines found exactly
/// and in one place only, or its result already there.
fn certain(located: &[Located]) -> bool {
    located.iter().all(|l| match l {
        Located::Placed(p) => {
            p.pass == Pass::Exact && p.decided_by == DecidedBy::Unique && p.fuzz.is_none()
        }
        Located::AlreadyApplied { .. } => true,
        Located::Ambiguous { .. } | Located::NotFound { .. } => false,
    })
}

/// A hunk's position as its numbers state it (0-based).
pub(crate) struct Hint {
    pub(super) stated: Option<usize>,
    /// Where the search started: `stated` moved by the offsets of earlier hunks.
    pub(super) searched: Option<usize>,
}

/// Locate every hunk of a file in order, carrying the offset of each placed hunk to the
/// next one's hint.
fn locate_all(fp: &FilePatch, text: &TextFile) -> (Vec<Located>, Vec<Hint>) {
    let (located, hints, _) = locate_hunks(fp, text, false);
    (located, hints)
}

/// Locate every hunk of a file in order, carrying the offset of each placed hunk to the
/// next one's hint. With `sequential`, each hunk is located in the text the earlier ones
/// left (as `git apply` does), and that text is returned: the way to apply hunks whose
/// regions overlap. Without it, all are located in the original text (no quadratic cost);
/// the caller switches to sequential when two placements overlap.
pub(crate) fn locate_hunks<'a>(
    fp: &FilePatch,
    text: &TextFile<'a>,
    sequential: bool,
) -> (Vec<Located>, Vec<Hint>, Option<TextFile<'a>>) {
    // The text as the hunks so far left it: only hunks located one after another need it.
    let mut current =
        sequential.then(|| sequential::InTurn::new(text, fp.hunks.iter().flat_map(names)));
    let mut delta: i64 = 0;
    let mut prev_end = 0usize;
    let mut taken: Vec<(usize, usize)> = Vec::new();
    // The same regions ordered, to find an overlap in logarithmic time: they never overlap
    // one another (the first overlap ends this batch), so only the last region starting
    // before a placement's end can reach into it.
    let mut taken_sorted: std::collections::BTreeSet<(usize, usize)> = Default::default();
    let mut out = Vec::new();
    let mut hints = Vec::new();
    // The patch's context width: the widest context side of its hunks, so that a patch
    // made with -U2 does not make every two-line side look short. With a single side to go
    // by, git's default of three is the better guess.
    // (A hunk at line 1 has only as much leading context as the file had: that side
    // says nothing about the width.)
    let sides: Vec<usize> = fp
        .hunks
        .iter()
        .flat_map(|h| {
            let lead = if h.old_start.is_some_and(|s| s <= 1) {
                0
            } else {
                h.leading_context()
            };
            [lead, h.trailing_context()]
        })
        .filter(|&n| n > 0)
        .collect();
    let widest = sides.iter().copied().max().unwrap_or(0);
    let context_width = if sides.len() <= 1 {
        widest.max(3)
    } else {
        widest
    };
    let wanted = fp.hunks.iter().flat_map(names);
    let mut batch_hay = (!sequential).then(|| Haystack::for_lines(&text.lines, wanted));
    // What each hunk's query saw besides its hint, for `numbers_against_neighbours`.
    let mut seen: Vec<(Option<i64>, usize, usize)> = Vec::new();
    for h in &fp.hunks {
        let stated = h.old_start.map(|s| {
            if h.old_len() == 0 {
                s as i64
            } else {
                s as i64 - 1
            }
        });
        let hint = stated.map(|s| (s + delta).max(0) as usize);
        seen.push((stated, prev_end, taken.len()));
        let q = Query {
            hunk: h,
            hint,
            prev_end,
            ordered: fp.ordered,
            taken: &taken,
            context_width,
            in_turn: current.is_some(),
            numbers_here: current.is_some() == fp.in_turn,
        };
        let mut loc = match (&batch_hay, &mut current) {
            (Some(hay), _) => locate::locate(hay, &q),
            // The text changes after every hunk.
            (None, Some(current)) => current.locate(&q),
            (None, None) => unreachable!("hunks are located in the original or in turn"),
        };
        match &loc {
            Located::Placed(p) => {
                let overlaps = taken_sorted
                    .range(..(p.end, 0))
                    .next_back()
                    .is_some_and(|&(a, b)| p.start < b && a < p.end);
                if overlaps && !sequential {
                    drop(batch_hay.take());
                    return locate_hunks(fp, text, true);
                }
                // Hunks made in turn state where they go in the text in turn: one placed off
                // its number (an insertion into an empty text) moves no other.
                if let (Some(s), false) = (stated, fp.in_turn) {
                    delta = p.start as i64 - s;
                }
                if let Some(current) = current.as_mut() {
                    match current.apply(h, p, fp.patch_eols) {
                        Ok(()) => {
                            // Later hunks' numbers still count lines of the original text,
                            // unless they were made in turn.
                            if !fp.in_turn {
                                delta += h.new_len() as i64 - h.old_len() as i64;
                            }
                            prev_end = p.start + h.new_len();
                        }
                        Err(why) => {
                            loc = Located::NotFound {
                                reason: Some(why.to_string()),
                            };
                        }
                    }
                } else {
                    prev_end = p.end;
                    taken.push((p.start, p.end));
                    taken_sorted.insert((p.start, p.end));
                }
            }
            Located::AlreadyApplied { start, .. } => {
                prev_end = *start;
            }
            _ => {}
        }
        out.push(loc);
        hints.push(Hint {
            stated: stated.map(|s| s.max(0) as usize),
            searched: hint,
        });
    }
    if let Some(hay) = &batch_hay {
        numbers_against_neighbours(fp, hay, &mut out, &seen, &taken, context_width);
    }
    (out, hints, current.map(sequential::InTurn::into_text))
}

/// A hunk placed by its numbers (or its heading) among several fits trusts them; the nearest
/// hunks of the same file that fit in one place only (before and after it in the patch) show
/// how far the numbers are off around it. Where either offset points the hunk at another of
/// its fits, the numbers say two things and nothing decides: a patch whose numbers are stale
/// for the whole file (lines added at its top) must not land its first hunk on a copy that
/// happens to sit at the stale number.
fn numbers_against_neighbours(
    fp: &FilePatch,
    hay: &Haystack,
    out: &mut [Located],
    seen: &[(Option<i64>, usize, usize)],
    taken: &[(usize, usize)],
    context_width: usize,
) {
    let offsets: Vec<Option<i64>> = out
        .iter()
        .zip(seen)
        .map(|(loc, (stated, ..))| match (loc, stated) {
            (Located::Placed(p), Some(s))
                if p.decided_by == DecidedBy::Unique && !p.mapping.is_empty() =>
            {
                Some(p.start as i64 - s)
            }
            _ => None,
        })
        .collect();
    for i in 0..out.len() {
        let Located::Placed(p) = &out[i] else {
            continue;
        };
        let (Some(stated), prev_end, taken_then) = seen[i] else {
            continue;
        };
        // A heading that chose among the fits is one opinion too: numbers that point the
        // hunk at another fit are a second one against it.
        let chosen = matches!(p.decided_by, DecidedBy::Hint | DecidedBy::Anchor);
        if !chosen || p.occurrences < 2 || p.mapping.is_empty() {
            continue;
        }
        let own = p.start as i64 - stated;
        let before = offsets[..i].iter().rev().flatten().next();
        let after = offsets[i + 1..].iter().flatten().next();
        let rival = [before, after]
            .into_iter()
            .flatten()
            .filter(|&&o| o.abs_diff(own) >= 3)
            .find_map(|&o| {
                let q = Query {
                    hunk: &fp.hunks[i],
                    hint: Some((stated + o).max(0) as usize),
                    prev_end,
                    ordered: fp.ordered,
                    taken: &taken[..taken_then],
                    context_width,
                    in_turn: false,
                    numbers_here: false,
                };
                match locate::locate(hay, &q) {
                    Located::Placed(other) if other.start != p.start => Some(other.start),
                    _ => None,
                }
            });
        if let Some(r) = rival {
            let mut starts = vec![p.start, r];
            starts.sort_unstable();
            out[i] = Located::Ambiguous {
                pass: p.pass,
                starts,
            };
        }
    }
}

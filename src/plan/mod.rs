//! Planning: where every hunk lands and what every file becomes, in memory, before anything
//! is written. A hunk that does not fit is an outcome in the plan, not an error.
//!
//! Strategies per file, in order (DESIGN §4): the hunks apply exactly at their numbers;
//! `git apply --3way` when the preimage blob exists; a base found in history; the text passes.

pub mod diagnose;
mod elision;
mod files;
pub mod history;
pub mod locate;
pub mod merge;
mod modify;
pub mod paths;
pub mod sequential;
pub mod splice;
pub mod three_way;

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::patch::{FileOp, FilePatch, Hunk, Notice, Patch};
use crate::repo::{Entry, FileState, Files};
use crate::text::file::TextFile;
use crate::text::normalize::Pass;
use diagnose::{Diagnostic, Warning};
use locate::{DecidedBy, Fuzz, Placement};

/// What planning may do besides the text passes.
#[derive(Default)]
pub struct Options<'a> {
    /// Strategy 2: `git apply --3way` for files whose preimage blob is present.
    pub three_way: Option<&'a dyn ThreeWay>,
    /// Strategy 3: a merge against a base found in history ([`history::History`]); asked
    /// only when strategy 2 had nothing and the text passes are not certain.
    pub history: Option<&'a dyn ThreeWay>,
}

/// A three-way engine for one file: given the file patch and the file's current state,
/// produce the merged result, or say it cannot help (blob missing…) so text passes run.
pub trait ThreeWay {
    /// `index` is the file's position in the patch; `fp` its (possibly reversed) change.
    fn apply(&self, index: usize, fp: &FilePatch, current: &FileState) -> Option<MergeResult>;

    /// A binary section, applied by git to the work tree's bytes: the writes it makes, or why
    /// git refused. `None` when this engine cannot apply binary patches.
    fn apply_binary(
        &self,
        _index: usize,
        _fp: &FilePatch,
    ) -> Option<Result<Writes, three_way::BinaryError>> {
        None
    }
}

/// What a three-way strategy produced for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeResult {
    /// Merged without overlapping changes.
    Clean {
        /// The merged file's content.
        bytes: Vec<u8>,
        /// The strategy that merged it (3way or history-3way).
        strategy: Strategy,
        /// The base the merge used.
        base: Option<Base>,
    },
    /// Merged with conflict markers where both sides changed the same lines.
    Conflicted {
        /// The merged file's content, markers included.
        bytes: Vec<u8>,
        /// The strategy that merged it (3way or history-3way).
        strategy: Strategy,
        /// The base the merge used.
        base: Option<Base>,
        /// One sentence per block of markers, naming its lines ("conflict markers at lines A-B").
        regions: Vec<String>,
    },
}

/// Where a three-way base came from. `kind` is `blob` (strategy 2: `id` is the `index` line's
/// blob id), or for strategy 3 `index` (`id`: the staged blob), `commit` or `snapshot` (`id`:
/// a commit whose tree holds the base at `path` — for a snapshot, its pre- or post-apply
/// commit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// `blob`, `index`, `commit` or `snapshot`.
    pub kind: String,
    /// The blob or commit id, in hex.
    pub id: String,
    /// The path the base was read at (before a rename, the old path).
    pub path: String,
}

/// How a file's change was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Every hunk applied exactly where its numbers say.
    Exact,
    /// `git apply --3way` with the preimage blob named by the `index` line.
    ThreeWay,
    /// A three-way merge against a base found in history or a snapshot.
    HistoryThreeWay,
    /// Located by the text passes (offsets, whitespace, Unicode, fuzzy).
    Text,
    /// Whole-file operations: create, delete, rename without content changes, mode changes.
    File,
    /// A binary patch, applied by `git apply` to the bytes it was made from.
    GitApply,
    /// None: the file was refused before any strategy was tried (a missing file, a path
    /// outside the work tree…).
    None,
}

impl Strategy {
    /// Its name in the report (`3way`, `history-3way`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
            Strategy::ThreeWay => "3way",
            Strategy::HistoryThreeWay => "history-3way",
            Strategy::Text => "text",
            Strategy::File => "file",
            Strategy::GitApply => "git-apply",
            Strategy::None => "none",
        }
    }
}

/// What the plan does with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    /// Its change is planned.
    Applied,
    /// The file already is what the patch makes it: nothing to write.
    AlreadyApplied,
    /// A three-way merge left conflict markers in it.
    Conflicted,
    /// It cannot be applied; `problems` says why.
    Refused,
}

/// Where one hunk stands in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkStatus {
    /// Placed, or merged cleanly.
    Applied,
    /// Its new side is in the file already, or it repeats an earlier hunk.
    AlreadyApplied,
    /// It fits in several places and nothing decides between them.
    Ambiguous,
    /// Not placed: it fits nowhere, or its lines cannot be fitted to the place (`reason` says).
    NotFound,
    /// Its file merged with conflicts (a merge does not say which hunk made them).
    Conflicted,
}

/// One hunk's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkResult {
    /// 1-based, in patch order.
    pub index: usize,
    /// Where it stands.
    pub status: HunkStatus,
    /// 1-based first line of the matched region in the file as it was.
    pub line: Option<usize>,
    /// The line the hunk's numbers pointed at (1-based), when it had numbers.
    pub hint: Option<usize>,
    /// `line` minus the stated line: how far the hunk moved.
    pub offset: Option<i64>,
    /// The matching pass that placed (or looked for) the hunk.
    pub pass: Option<Pass>,
    /// How many places fit under the pass that decided.
    pub occurrences: Option<usize>,
    /// Which rule chose this place among the ones that fit.
    pub decided_by: Option<DecidedBy>,
    /// For the fuzzy pass: how far the file's region strays from the hunk.
    pub fuzz: Option<Fuzz>,
    /// For an ambiguous hunk: every 1-based line where it fits.
    pub candidates: Vec<usize>,
    /// For a hunk that was not placed: why, in one sentence.
    pub reason: Option<String>,
    /// For a hunk that could not be placed: why, and what the file has instead.
    pub diagnostic: Option<Box<Diagnostic>>,
}

impl HunkResult {
    fn new(index: usize, status: HunkStatus) -> HunkResult {
        HunkResult {
            index,
            status,
            line: None,
            hint: None,
            offset: None,
            pass: None,
            occurrences: None,
            decided_by: None,
            fuzz: None,
            candidates: Vec::new(),
            reason: None,
            diagnostic: None,
        }
    }
}

/// One path's bytes and mode before and after (None = absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path, repository-relative.
    pub path: String,
    /// As the work tree has it before the apply.
    pub before: Option<FileState>,
    /// As the apply leaves it.
    pub after: Option<FileState>,
}

/// The plan for one file patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePlan {
    /// The patch's path before (None for a creation).
    pub old_path: Option<String>,
    /// The patch's path after (None for a deletion).
    pub new_path: Option<String>,
    /// What the patch does to the file: modify, create, delete, rename or copy.
    pub op: FileOp,
    /// What the plan does with it.
    pub status: FileStatus,
    /// How its new content was computed.
    pub strategy: Strategy,
    /// The loosest pass any hunk needed.
    pub pass: Option<Pass>,
    /// The base of a three-way merge.
    pub base: Option<Base>,
    /// One per hunk, in patch order.
    pub hunks: Vec<HunkResult>,
    /// Lines the patch adds to this file.
    pub added: usize,
    /// Lines the patch removes from this file.
    pub removed: usize,
    /// Why the file was refused (empty otherwise).
    pub problems: Vec<String>,
    /// What applied but deserves a second look.
    pub warnings: Vec<Warning>,
    /// For a path that does not exist: the closest one that does.
    pub suggested_path: Option<String>,
    /// Old and new mode when the patch changes it.
    pub mode_change: Option<(u32, u32)>,
    /// For a conflict: the regions named by the merge.
    pub conflicts: Vec<String>,
    /// What the planner claims, for the proof to check; not part of the report.
    pub evidence: Evidence,
}

/// What planning claims about one file patch, so that the proof stage can check the planned
/// bytes against the patch without trusting the code that located the hunks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Evidence {
    /// The file at the old path as this plan found it (None: absent; for a creation, the
    /// new path).
    pub before: Option<FileState>,
    /// Every write this file plan makes, in order (None: the path is removed).
    pub writes: Vec<(String, Option<FileState>)>,
    /// For the text strategies: per hunk, in patch order, where it was put.
    pub claims: Vec<Claim>,
    /// The hunks were located one after another, each in the text the earlier ones left
    /// (overlapping hunks), rather than all in the original text.
    pub sequential: bool,
    /// The patch shows the byte-order mark, so it is part of the first line.
    pub bom_in_text: bool,
    /// A move's destination as it was, when the move replaces it (Codex's rule).
    pub replaced: Option<FileState>,
}

/// Where the text strategy put one hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Located in the file as it was.
    Placed(Placement),
    /// The hunk's new side is already at `start` (0-based) under `pass`.
    AlreadyApplied {
        /// The file line, 0-based, where the new side starts.
        start: usize,
        /// The pass under which it matched.
        pass: Pass,
    },
    /// A verbatim repeat of hunk `of` (0-based), applied once with it.
    Repeat {
        /// The earlier hunk it repeats.
        of: usize,
    },
    /// A hunk with elision lines, placed as its parts around them, in file order.
    Elided {
        /// Each part as a hunk of its own, with its place.
        pieces: Vec<(Hunk, Placement)>,
    },
    /// A SEARCH block whose elisions stood for `filled` lines of the file each: `hunk` is the
    /// block with those lines in their place, and `placement` where it fits.
    Rebuilt {
        /// The block with the elided lines filled in from the file.
        hunk: Hunk,
        /// Where the rebuilt block fits.
        placement: Placement,
        /// Per elision, in order: how many file lines it stood for.
        filled: Vec<usize>,
    },
    /// Not placed (the file plan is refused then).
    Unplaced,
}

impl FilePlan {
    /// The path after the change, or the old one for a deletion.
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .expect("a file plan has a path")
    }

    /// Whether it applies (or is applied already) with no conflict.
    pub fn ok(&self) -> bool {
        matches!(
            self.status,
            FileStatus::Applied | FileStatus::AlreadyApplied
        )
    }
}

/// The whole plan: per file outcomes, the notices, and the writes it would make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// One per file patch, in patch order.
    pub files: Vec<FilePlan>,
    /// What parsing repaired or noticed, carried from the patch to the report.
    pub notices: Vec<Notice>,
    /// Per touched path, in first-touched order: state before the apply and after it,
    /// counting only file plans that succeeded (conflicted ones included: they carry markers).
    pub changes: Vec<Change>,
}

impl Plan {
    /// Whether every file applies cleanly or is applied already.
    pub fn all_ok(&self) -> bool {
        self.files.iter().all(FilePlan::ok)
    }

    /// Whether a three-way merge left any file with conflict markers.
    pub fn any_conflict(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.status == FileStatus::Conflicted)
    }
}

/// Plan `patch` against `files`. Nothing is written.
pub fn plan(patch: &Patch, files: &dyn Files, opts: &Options) -> Result<Plan, std::io::Error> {
    let mut vfs = Overlay {
        files,
        planned: BTreeMap::new(),
        originals: Vec::new(),
        read: Default::default(),
    };
    let mut out = Vec::new();
    for (index, fp) in patch.files.iter().enumerate() {
        let before_path = fp.old_path.as_deref().or(fp.new_path.as_deref());
        let before = match before_path.map(|p| vfs.read(p)).transpose()? {
            Some(Entry::File(f)) => Some(f),
            _ => None,
        };
        let (mut file_plan, writes) = plan_file(index, fp, &mut vfs, opts)?;
        file_plan.evidence.before = before;
        if file_plan.ok() || file_plan.status == FileStatus::Conflicted {
            for (path, after) in &writes {
                vfs.set(path, after.clone())?;
            }
            file_plan.evidence.writes = writes;
        }
        out.push(file_plan);
    }
    let diagnostics = out.iter_mut().enumerate().flat_map(|(i, p)| {
        p.hunks
            .iter_mut()
            .enumerate()
            .filter_map(move |(k, h)| Some((i, k, h.diagnostic.as_deref_mut()?)))
    });
    diagnose::look_in_other_files(&patch.files, diagnostics, |path| match files.read(path) {
        Ok(Entry::File(f)) => TextFile::decode(&f.bytes).map(|t| {
            t.lines
                .into_iter()
                .map(|l| Cow::Owned(l.into_owned()))
                .collect()
        }),
        _ => None,
    });
    let changes = vfs.changes()?;
    Ok(Plan {
        files: out,
        notices: patch.notices.clone(),
        changes,
    })
}

/// The work tree as the plan so far would leave it.
struct Overlay<'a> {
    files: &'a dyn Files,
    planned: BTreeMap<String, Option<FileState>>,
    originals: Vec<String>,
    /// What each path held when first read: each file is read once, and every state of it
    /// the plan keeps shares those bytes.
    read: std::cell::RefCell<BTreeMap<String, Entry>>,
}

impl Overlay<'_> {
    fn read(&self, path: &str) -> std::io::Result<Entry> {
        match self.planned.get(path) {
            Some(Some(f)) => Ok(Entry::File(f.clone())),
            Some(None) => Ok(Entry::Missing),
            None => self.original(path),
        }
    }

    /// `path` as the work tree has it, before this plan.
    fn original(&self, path: &str) -> std::io::Result<Entry> {
        if let Some(e) = self.read.borrow().get(path) {
            return Ok(e.clone());
        }
        let e = self.files.read(path)?;
        self.read.borrow_mut().insert(path.to_string(), e.clone());
        Ok(e)
    }

    /// Why `path` cannot be written beside what the plan writes already, if it cannot: a
    /// directory of it is a file or a symbolic link the plan writes (beyond a link, the file
    /// has another name, patched from the file as it was), or the plan writes files under it.
    fn path_in_conflict(&self, path: &str) -> Option<String> {
        for (at, _) in path.match_indices('/') {
            let dir = &path[..at];
            if let Some(Some(f)) = self.planned.get(dir) {
                let what = if f.mode == crate::repo::MODE_LINK {
                    "a symbolic link, where git does not patch"
                } else {
                    "a file"
                };
                return Some(format!(
                    "{path} lies beyond {dir}, which an earlier change of this patch makes {what}"
                ));
            }
        }
        let under = format!("{path}/");
        let (inner, _) = self
            .planned
            .range(under.clone()..)
            .take_while(|(p, _)| p.starts_with(&under))
            .find(|(_, f)| f.is_some())?;
        Some(format!(
            "{path} is a directory for an earlier change of this patch, which writes {inner}"
        ))
    }

    fn set(&mut self, path: &str, after: Option<FileState>) -> std::io::Result<()> {
        if !self.planned.contains_key(path) {
            self.originals.push(path.to_string());
        }
        self.planned.insert(path.to_string(), after);
        Ok(())
    }

    fn changes(&self) -> std::io::Result<Vec<Change>> {
        let mut out = Vec::new();
        for path in &self.originals {
            let before = match self.original(path)? {
                Entry::File(f) => Some(f),
                _ => None,
            };
            let after = self.planned.get(path).cloned().flatten();
            if before != after {
                out.push(Change {
                    path: path.clone(),
                    before,
                    after,
                });
            }
        }
        Ok(out)
    }
}

/// The writes one file plan makes, in order: each path and its state after (None: removed).
pub type Writes = Vec<(String, Option<FileState>)>;

fn refused(fp: &FilePatch, problem: String) -> FilePlan {
    let mut p = base_plan(fp);
    p.status = FileStatus::Refused;
    // Refused before any strategy was tried.
    p.strategy = Strategy::None;
    p.problems.push(problem);
    p
}

fn base_plan(fp: &FilePatch) -> FilePlan {
    let (added, removed) = fp.added_removed();
    FilePlan::new(
        fp.old_path.clone(),
        fp.new_path.clone(),
        fp.op(),
        added,
        removed,
    )
}

impl FilePlan {
    /// A file-level plan that applies, before any hunk, strategy detail or problem is known.
    pub fn new(
        old_path: Option<String>,
        new_path: Option<String>,
        op: FileOp,
        added: usize,
        removed: usize,
    ) -> FilePlan {
        FilePlan {
            old_path,
            new_path,
            op,
            status: FileStatus::Applied,
            strategy: Strategy::File,
            pass: None,
            base: None,
            hunks: Vec::new(),
            added,
            removed,
            problems: Vec::new(),
            warnings: Vec::new(),
            suggested_path: None,
            mode_change: None,
            conflicts: Vec::new(),
            evidence: Evidence::default(),
        }
    }
}

fn plan_file(
    index: usize,
    fp: &FilePatch,
    vfs: &mut Overlay,
    opts: &Options,
) -> std::io::Result<(FilePlan, Writes)> {
    for p in fp.old_path.iter().chain(fp.new_path.iter()) {
        if let Err(why) = paths::check(p) {
            return Ok((refused(fp, why.to_string()), Vec::new()));
        }
        if vfs.files.escapes(p) {
            return Ok((
                refused(
                    fp,
                    format!("{p} leads through a symlink out of the work tree"),
                ),
                Vec::new(),
            ));
        }
        if let Some(link) = vfs.files.beyond_link(p) {
            return Ok((
                refused(
                    fp,
                    format!(
                        "{p} lies beyond the symbolic link {link}, where git does not patch (the \
                         file has another name, and two names for it would each be patched from \
                         the file as it was); name it by the path the link leads to"
                    ),
                ),
                Vec::new(),
            ));
        }
    }
    if let Some(why) = fp.new_path.as_deref().and_then(|p| vfs.path_in_conflict(p)) {
        return Ok((refused(fp, why), Vec::new()));
    }
    if fp.binary {
        return files::plan_binary(index, fp, vfs, opts);
    }
    match fp.op() {
        FileOp::Create => files::plan_create(fp, vfs),
        FileOp::Delete => files::plan_delete(fp, vfs),
        FileOp::Modify | FileOp::Rename | FileOp::Copy => modify::plan_modify(index, fp, vfs, opts),
    }
}

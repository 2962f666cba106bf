//! Planning: where every hunk lands and what every file becomes, in memory, before anything
//! is written. A hunk that does not fit is an outcome in the plan, not an error.
//!
//! Strategies per file, in order (DESIGN §4): the hunks apply exactly at their numbers;
//! `git apply --3way` when the preimage blob exists; a base found in history; the text passes.

#![allow(missing_docs)] // documented once plan/ is split (issue 40)

pub mod diagnose;
pub mod git_output;
pub mod history;
pub mod locate;
pub mod merge;
pub mod normalize;
pub mod paths;
pub mod sequential;
pub mod splice;
pub mod text;
pub mod three_way;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Serialize;

use crate::patch::{CreateMode, FileOp, FilePatch, Hunk, LineKind, Notice, Patch};
use crate::repo::{link_stays_inside, Content, Entry, FileState, Files, MODE_FILE, MODE_LINK};
use diagnose::{Diagnostic, Warning, WarningKind};
use locate::{DecidedBy, Fuzz, Haystack, Located, Placement, Query};
use normalize::Pass;
use text::TextFile;

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
    fn apply_binary(&self, _index: usize, _fp: &FilePatch) -> Option<Result<Writes, String>> {
        None
    }
}

/// What a three-way strategy produced for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeResult {
    Clean {
        bytes: Vec<u8>,
        strategy: Strategy,
        base: Option<Base>,
    },
    Conflicted {
        bytes: Vec<u8>,
        strategy: Strategy,
        base: Option<Base>,
        regions: Vec<String>,
    },
}

/// Where a three-way base came from. `kind` is `blob` (strategy 2: `id` is the `index` line's
/// blob id), or for strategy 3 `index` (`id`: the staged blob), `commit` or `snapshot` (`id`:
/// a commit whose tree holds the base at `path` — for a snapshot, its pre- or post-apply
/// commit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Base {
    pub kind: String,
    pub id: String,
    pub path: String,
}

/// How a file's change was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Every hunk applied exactly where its numbers say.
    Exact,
    /// `git apply --3way` with the preimage blob named by the `index` line.
    #[serde(rename = "3way")]
    ThreeWay,
    /// A three-way merge against a base found in history or a snapshot.
    #[serde(rename = "history-3way")]
    HistoryThreeWay,
    /// Located by the text passes (offsets, whitespace, Unicode, fuzzy).
    Text,
    /// Whole-file operations: create, delete, rename without content changes, mode changes.
    File,
    /// A binary patch, applied by `git apply` to the bytes it was made from.
    #[serde(rename = "git-apply")]
    GitApply,
    /// None: the file was refused before any strategy was tried (a missing file, a path
    /// outside the work tree…).
    None,
}

impl Strategy {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileStatus {
    Applied,
    AlreadyApplied,
    Conflicted,
    Refused,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HunkStatus {
    Applied,
    AlreadyApplied,
    Ambiguous,
    NotFound,
    Conflicted,
}

/// One hunk's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HunkResult {
    /// 1-based, in patch order.
    pub index: usize,
    pub status: HunkStatus,
    /// 1-based first line of the matched region in the file as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The line the hunk's numbers pointed at (1-based), when it had numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<usize>,
    /// `line` minus the stated line: how far the hunk moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// The matching pass that placed (or looked for) the hunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass: Option<Pass>,
    /// How many places fit under the pass that decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fuzz: Option<Fuzz>,
    /// For an ambiguous hunk: every 1-based line where it fits.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<usize>,
    /// For a hunk that was not placed: why, in one sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a hunk that could not be placed: why, and what the file has instead.
    #[serde(skip_serializing_if = "Option::is_none")]
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
    pub path: String,
    pub before: Option<FileState>,
    pub after: Option<FileState>,
}

/// The plan for one file patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePlan {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub op: FileOp,
    pub status: FileStatus,
    pub strategy: Strategy,
    /// The loosest pass any hunk needed.
    pub pass: Option<Pass>,
    pub base: Option<Base>,
    pub hunks: Vec<HunkResult>,
    pub added: usize,
    pub removed: usize,
    /// Why the file was refused (empty otherwise).
    pub problems: Vec<String>,
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
    Placed(Placement),
    /// The hunk's new side is already at `start` (0-based) under `pass`.
    AlreadyApplied {
        start: usize,
        pass: Pass,
    },
    /// A verbatim repeat of hunk `of` (0-based), applied once with it.
    Repeat {
        of: usize,
    },
    /// A hunk with elision lines, placed as its parts around them, in file order.
    Elided {
        pieces: Vec<(Hunk, Placement)>,
    },
    /// A SEARCH block whose elisions stood for `filled` lines of the file each: `hunk` is the
    /// block with those lines in their place, and `placement` where it fits.
    Rebuilt {
        hunk: Hunk,
        placement: Placement,
        filled: Vec<usize>,
    },
    /// Not placed (the file plan is refused then).
    Unplaced,
}

impl FilePlan {
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .expect("a file plan has a path")
    }

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
    pub files: Vec<FilePlan>,
    pub notices: Vec<Notice>,
    /// Per touched path, in first-touched order: state before the apply and after it,
    /// counting only file plans that succeeded (conflicted ones included: they carry markers).
    pub changes: Vec<Change>,
}

impl Plan {
    pub fn all_ok(&self) -> bool {
        self.files.iter().all(FilePlan::ok)
    }

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
    diagnose::look_in_other_files(&patch.files, &mut out, |path| match files.read(path) {
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
            return Ok((refused(fp, why), Vec::new()));
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
    }
    if fp.binary {
        return plan_binary(index, fp, vfs, opts);
    }
    match fp.op() {
        FileOp::Create => plan_create(fp, vfs),
        FileOp::Delete => plan_delete(fp, vfs),
        FileOp::Modify | FileOp::Rename | FileOp::Copy => plan_modify(index, fp, vfs, opts),
    }
}

/// A `GIT binary patch` section: only git can apply it, and only to the bytes it was made
/// from (git checks them against the `index` line), so it goes through `git apply` in a
/// scratch tree, inside the same all-or-nothing plan.
fn plan_binary(
    index: usize,
    fp: &FilePatch,
    vfs: &mut Overlay,
    opts: &Options,
) -> std::io::Result<(FilePlan, Writes)> {
    let paths: Vec<&String> = fp.old_path.iter().chain(fp.new_path.iter()).collect();
    if paths.iter().any(|p| vfs.planned.contains_key(p.as_str())) {
        return Ok((
            refused(
                fp,
                "a binary patch cannot follow another change to the same file in one patch".into(),
            ),
            Vec::new(),
        ));
    }
    let Some(engine) = opts.three_way else {
        return Ok((
            refused(
                fp,
                "binary patches are applied by git, which needs a git repository".into(),
            ),
            Vec::new(),
        ));
    };
    match engine.apply_binary(index, fp) {
        Some(Ok(writes)) => {
            let mut plan = base_plan(fp);
            plan.strategy = Strategy::GitApply;
            let unchanged = writes.iter().all(|(path, after)| {
                let now = match vfs.files.read(path) {
                    Ok(Entry::File(f)) => Some(f),
                    _ => None,
                };
                now == *after
            });
            if unchanged {
                plan.status = FileStatus::AlreadyApplied;
                return Ok((plan, Vec::new()));
            }
            Ok((plan, writes))
        }
        Some(Err(why)) => Ok((refused(fp, why), Vec::new())),
        None => Ok((
            refused(
                fp,
                "binary patches cannot be applied at text level, and git could not apply this one"
                    .into(),
            ),
            Vec::new(),
        )),
    }
}

fn new_content(fp: &FilePatch) -> Result<String, String> {
    if let Some(c) = &fp.full_content {
        return Ok(c.clone());
    }
    let size = fp
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .map(|l| l.text.len() + 2)
        .sum();
    let mut s = String::with_capacity(size);
    let mut no_newline = false;
    for h in &fp.hunks {
        for l in &h.lines {
            match l.kind {
                LineKind::Add => {
                    s.push_str(&l.text);
                    s.push_str(if fp.patch_eols && l.crlf {
                        "\r\n"
                    } else {
                        "\n"
                    });
                }
                _ => {
                    return Err(
                        "the patch creates this file but its hunk has context or removed lines"
                            .into(),
                    )
                }
            }
        }
        no_newline = h.new_no_newline;
    }
    if no_newline {
        if s.ends_with("\r\n") {
            s.truncate(s.len() - 2);
        } else if s.ends_with('\n') {
            s.pop();
        }
    }
    Ok(s)
}

fn plan_create(fp: &FilePatch, vfs: &mut Overlay) -> std::io::Result<(FilePlan, Writes)> {
    let path = fp.new_path.clone().expect("a creation has a new path");
    let content = match new_content(fp) {
        Ok(c) => c,
        Err(why) => return Ok((refused(fp, why), Vec::new())),
    };
    let mode = fp.new_mode.unwrap_or(MODE_FILE);
    let bytes = match crate::bytes::encode(&content) {
        std::borrow::Cow::Borrowed(_) => content.into_bytes(),
        std::borrow::Cow::Owned(b) => b,
    };
    let after = FileState {
        bytes: bytes.into(),
        mode,
    };
    if mode == MODE_LINK && !link_stays_inside(&path, &after.bytes) {
        return Ok((
            refused(
                fp,
                format!(
                    "{path} would be a symbolic link to {}, which leads out of the work tree",
                    String::from_utf8_lossy(&after.bytes)
                ),
            ),
            Vec::new(),
        ));
    }
    let mut plan = base_plan(fp);
    match vfs.read(&path)? {
        Entry::Missing => {}
        Entry::File(cur) => {
            if cur == after || (cur.bytes == after.bytes && fp.new_mode.is_none()) {
                plan.status = FileStatus::AlreadyApplied;
                return Ok((plan, Vec::new()));
            }
            if fp.create_mode == CreateMode::MayReplace {
                plan.warnings.push(Warning::new(
                    WarningKind::Overwrote,
                    None,
                    format!("{path} already existed with other content and was replaced (the snapshot keeps the old content)"),
                ));
            } else {
                return Ok((
                    refused(
                        fp,
                        format!(
                            "{path} already exists, and the patch creates it with other content"
                        ),
                    ),
                    Vec::new(),
                ));
            }
        }
        Entry::Other(what) => {
            return Ok((
                refused(fp, format!("{path} exists as a {what}")),
                Vec::new(),
            ));
        }
    }
    Ok((plan, vec![(path, Some(after))]))
}

fn plan_delete(fp: &FilePatch, vfs: &mut Overlay) -> std::io::Result<(FilePlan, Writes)> {
    let path = fp.old_path.clone().expect("a deletion has an old path");
    let cur = match vfs.read(&path)? {
        Entry::File(f) => f,
        Entry::Missing => {
            let mut p = refused(
                fp,
                format!("{path} does not exist, so it cannot be deleted"),
            );
            p.suggested_path = diagnose::closest_path(&path, &vfs.files.known_paths());
            return Ok((p, Vec::new()));
        }
        Entry::Other(what) => {
            return Ok((refused(fp, format!("{path} is a {what}")), Vec::new()));
        }
    };
    if !fp.hunks.is_empty() {
        // The patch says what it deletes: the file must still say that.
        let expected: Vec<&str> = fp
            .hunks
            .iter()
            .flat_map(|h| h.old_lines().map(|l| l.text.as_str()))
            .collect();
        let same = TextFile::decode(&cur.bytes).is_some_and(|t| {
            t.lines.len() == expected.len()
                && t.lines.iter().zip(&expected).all(|(a, b)| {
                    normalize::key(Pass::TrailingWhitespace, a)
                        == normalize::key(Pass::TrailingWhitespace, b)
                })
        });
        if !same {
            return Ok((
                refused(
                    fp,
                    format!("{path} differs from the content the patch deletes; not deleted"),
                ),
                Vec::new(),
            ));
        }
    }
    Ok((base_plan(fp), vec![(path, None)]))
}

fn plan_modify(
    index: usize,
    fp: &FilePatch,
    vfs: &mut Overlay,
    opts: &Options,
) -> std::io::Result<(FilePlan, Writes)> {
    let old = fp.old_path.clone().expect("a modification has an old path");
    let new = fp.new_path.clone().expect("a modification has a new path");
    let renamed = old != new;
    let cur = match vfs.read(&old)? {
        Entry::File(f) => f,
        Entry::Missing => {
            // A rename that already happened: check the hunks against the new path.
            if renamed {
                if let Entry::File(target) = vfs.read(&new)? {
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
                            return Ok((plan, Vec::new()));
                        }
                    }
                }
            }
            let mut p = refused(fp, format!("{old} does not exist"));
            p.suggested_path = diagnose::closest_path(&old, &vfs.files.known_paths());
            if p.suggested_path.is_none() {
                // No near name: perhaps the file was meant to be made.
                p.problems.push(format!(
                    "to create {old}, send it as a new file: in a unified diff, `--- /dev/null` \
                     and `+++ b/{old}` with one `@@ -0,0 +1,N @@` hunk of added lines; in a \
                     Codex patch, `*** Add File: {old}`; in SEARCH/REPLACE, the path and a block \
                     with an empty SEARCH"
                ));
            }
            return Ok((p, Vec::new()));
        }
        Entry::Other(what) => {
            return Ok((
                refused(
                    fp,
                    format!("{old} is a {what}; only regular files are patched"),
                ),
                Vec::new(),
            ))
        }
    };
    let mut replaced: Option<FileState> = None;
    if renamed {
        match vfs.read(&new)? {
            Entry::Missing => {}
            Entry::File(existing) if fp.create_mode == CreateMode::MayReplace => {
                replaced = Some(existing);
            }
            _ => {
                return Ok((
                    refused(
                        fp,
                        format!("cannot rename {old} to {new}: {new} already exists"),
                    ),
                    Vec::new(),
                ))
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
        return Ok((refused(fp, what), Vec::new()));
    }
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

    let mut writes: Writes = Vec::new();
    let push_writes = |writes: &mut Writes, bytes: Content| {
        if renamed {
            writes.push((old.clone(), None));
        }
        writes.push((new.clone(), Some(FileState { bytes, mode })));
    };

    if fp.hunks.is_empty() {
        if !renamed && plan.mode_change.is_none() {
            plan.status = FileStatus::AlreadyApplied;
            return Ok((plan, writes));
        }
        push_writes(&mut writes, cur.bytes.clone());
        return Ok((plan, writes));
    }

    // Decoded by two threads only where no thread is hashing the file meanwhile.
    let two = !cur.bytes.hashing_ahead();
    let Some((mut text, counted)) = TextFile::decode_counted(&cur.bytes, two) else {
        return Ok((
            refused(
                fp,
                format!("{old} is not UTF-8 text; only text files are patched at text level"),
            ),
            Vec::new(),
        ));
    };
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

    // A hunk repeated verbatim (a model repeating itself) is one edit: located once, the
    // copy reported as already applied. A repeat at other numbers is a second edit.
    let repeats = repeated_hunks(fp);
    let (located, hints, sequential_text) = if repeats.iter().any(Option::is_some) {
        let once = FilePatch {
            hunks: fp
                .hunks
                .iter()
                .zip(&repeats)
                .filter(|(_, r)| r.is_none())
                .map(|(h, _)| h.clone())
                .collect(),
            ..fp.clone()
        };
        let (located, hints, seq) = locate_hunks(&once, &text, false);
        let mut slot = Vec::with_capacity(fp.hunks.len());
        let mut k = 0usize;
        for r in &repeats {
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
                    plan.warnings.push(Warning::new(
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
    } else {
        locate_hunks(fp, &text, false)
    };
    // A hunk that fits nowhere as written, with a line standing for unchanged text (`...`,
    // `// ... existing code ...`): its parts around that line are placed one after another,
    // each in one place only, and the lines between them are left alone.
    let mut located = located;
    if fp.ordered {
        refuse_weak_out_of_order(&fp.hunks, &mut located);
    }
    let mut elided: Vec<Option<Vec<(Hunk, Placement)>>> = vec![None; fp.hunks.len()];
    let mut rebuilt_hunks: Vec<Option<(Hunk, Placement, Vec<usize>)>> = vec![None; fp.hunks.len()];
    if sequential_text.is_none() {
        let taken: Vec<(usize, usize)> = located
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
                        plan.warnings.push(Warning::new(
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
                        rebuilt_hunks[i] = Some((rebuilt, pl, filled));
                    }
                    Err(why) => located[i] = Located::NotFound { reason: Some(why) },
                }
                continue;
            }
            if !unplaced || repeats[i].is_some() || !has_elision(h) {
                continue;
            }
            // Its parts: the first placed by the hunk's own rules, each next one after the one
            // before, where it must fit in one place only. No part may be placed loosely than
            // a line pass, already be there, or overlap another hunk.
            match place_in_order(elision_pieces(h), &hay, hints[i].searched, &taken) {
                Ok(pieces) => {
                    let (first, last) = (&pieces[0].1, &pieces[pieces.len() - 1].1);
                    plan.warnings.push(Warning::new(
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
                    elided[i] = Some(pieces);
                }
                Err(why) => located[i] = Located::NotFound { reason: Some(why) },
            }
        }
    }
    plan.evidence.claims = located
        .iter()
        .zip(&repeats)
        .zip(&elided)
        .zip(&rebuilt_hunks)
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
        .collect();
    plan.evidence.sequential = sequential_text.is_some();
    plan.evidence.bom_in_text = bom_moved;
    let exact_everywhere = located
        .iter()
        .zip(&hints)
        .zip(&elided)
        .all(|((l, h), e)| match l {
            Located::Placed(p) => e.is_none() && p.pass == Pass::Exact && Some(p.start) == h.stated,
            _ => false,
        });

    // A three-way engine reads the work tree, so only for paths this plan has not changed.
    let untouched = !link && !vfs.planned.contains_key(&old) && !vfs.planned.contains_key(&new);
    if !exact_everywhere && untouched {
        // Strategy 3 only where the text passes are not certain, as git apply --3way merges
        // only what does not apply directly: context found exactly and in one place stands
        // (a merge would call a block the file moved a conflict, and the history search
        // costs more); a looser fit, an ambiguity or no fit defers to a base found in history.
        let merged = opts
            .three_way
            .and_then(|tw| tw.apply(index, fp, &cur))
            .or_else(|| {
                opts.history
                    .filter(|_| !certain(&located))
                    .and_then(|h| h.apply(index, fp, &cur))
            });
        if let Some(result) = merged {
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
                    if bytes == *cur.bytes && !renamed && plan.mode_change.is_none() {
                        plan.status = FileStatus::AlreadyApplied;
                    } else {
                        push_writes(&mut writes, bytes.into());
                    }
                    return Ok((plan, writes));
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
                    push_writes(&mut writes, bytes.into());
                    return Ok((plan, writes));
                }
            }
        }
    }

    // The file's lines indexed once more only where some hunk has Codex anchors to look up.
    let anchor_hay = fp
        .hunks
        .iter()
        .any(|h| !h.anchors.is_empty())
        .then(|| Haystack::new(&text.lines));
    let mut placed: Vec<(&Hunk, &Placement)> = Vec::new();
    // For each entry of `placed`: the patch's hunk it comes from (an elided hunk has parts).
    let mut placed_from: Vec<usize> = Vec::new();
    let mut failed = false;
    let mut all_already = true;
    let mut loosest: Option<Pass> = None;
    for (i, (loc, hint)) in located.iter().zip(&hints).enumerate() {
        let mut r = HunkResult::new(i + 1, HunkStatus::Applied);
        r.hint = fp.hunks[i].old_start;
        match loc {
            Located::Placed(p) => {
                all_already = false;
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
                match (&elided[i], &rebuilt_hunks[i]) {
                    (_, Some((rebuilt, pl, _))) => {
                        placed.push((rebuilt, pl));
                        placed_from.push(i);
                    }
                    (Some(pieces), None) => {
                        for (h, pl) in pieces {
                            loosest = loosest.max(Some(pl.pass));
                            placed.push((h, pl));
                            placed_from.push(i);
                        }
                    }
                    (None, None) => {
                        placed.push((&fp.hunks[i], p));
                        placed_from.push(i);
                    }
                }
            }
            Located::AlreadyApplied { start, pass } => {
                r.status = HunkStatus::AlreadyApplied;
                r.line = Some(start + 1);
                r.pass = Some(*pass);
            }
            Located::Ambiguous { pass, starts } => {
                failed = true;
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
                failed = true;
                r.status = HunkStatus::NotFound;
                r.reason = Some(reason.clone().unwrap_or_else(|| {
                    "the hunk's context and removed lines are not in the file".into()
                }));
            }
        }
        plan.hunks.push(r);
    }
    plan.pass = loosest;
    plan.warnings.extend(diagnose::order_warnings(&located));
    if failed {
        let searched: Vec<Option<usize>> = hints.iter().map(|h| h.searched).collect();
        let diagnostics = diagnose::diagnose(fp, &text.lines, &located, &searched);
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
        return Ok((plan, Vec::new()));
    }
    // After an indentation-blind match, the added lines must be indentable the file's way
    // (hunks applied one after another were checked as they went).
    for ((hunk, p), &i) in placed
        .iter()
        .zip(&placed_from)
        .filter(|_| sequential_text.is_none())
    {
        if let Err(why) = splice::IndentMap::learn(hunk, p, &text) {
            plan.hunks[i].status = HunkStatus::NotFound;
            plan.hunks[i].reason = Some(why);
            failed = true;
        }
    }
    if failed {
        plan.status = FileStatus::Refused;
        plan.problems.push(
            "a hunk matched only when ignoring indentation that differs inconsistently".into(),
        );
        return Ok((plan, Vec::new()));
    }
    plan.strategy = if exact_everywhere {
        Strategy::Exact
    } else {
        Strategy::Text
    };
    if all_already && !renamed && plan.mode_change.is_none() {
        plan.status = FileStatus::AlreadyApplied;
        return Ok((plan, writes));
    }
    // The counts are those of the hunks this plan applies, not of those already there.
    // A line a hunk removes and adds back unchanged (a SEARCH/REPLACE block) is neither.
    (plan.added, plan.removed) = placed.iter().fold((0, 0), |(a, r), (h, _)| {
        let (adds, rems) = h.added_removed();
        (a + adds, r + rems)
    });
    let bytes = match sequential_text {
        Some(t) => t.encode().into(),
        None => {
            let pieces = splice::pieces(&text, &placed, fp.patch_eols, &cur.bytes);
            // The decoded lines go before the new bytes come.
            drop(text);
            pieces.content(&cur.bytes)
        }
    };
    if mode == MODE_LINK && !link_stays_inside(&new, &bytes) {
        plan.status = FileStatus::Refused;
        plan.problems.push(format!(
            "{new} would become a symbolic link to {}, which leads out of the work tree",
            String::from_utf8_lossy(&bytes)
        ));
        return Ok((plan, Vec::new()));
    }
    push_writes(&mut writes, bytes);
    Ok((plan, writes))
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
        })
        .collect()
}

fn elision_refusal(what: &str) -> String {
    format!("the hunk has an elision line, and {what}; resend it with the elided lines written out")
}

fn place_in_order(
    pieces: Vec<Hunk>,
    hay: &Haystack,
    hint: Option<usize>,
    taken: &[(usize, usize)],
) -> Result<Vec<(Hunk, Placement)>, String> {
    let why = elision_refusal;
    if pieces.is_empty()
        || pieces
            .iter()
            .any(|p| p.lines.iter().all(|l| l.text.trim().is_empty()))
    {
        return Err(why("a part around it has nothing to anchor it"));
    }
    let mut prev_end = 0usize;
    let mut out: Vec<(Hunk, Placement)> = Vec::new();
    for (k, piece) in pieces.into_iter().enumerate() {
        let q = Query {
            hunk: &piece,
            hint: if k == 0 { hint } else { Some(prev_end) },
            prev_end,
            ordered: k > 0,
            taken,
            context_width: 3,
        };
        let pl = match locate::locate(hay, &q) {
            Located::Placed(pl) => pl,
            Located::AlreadyApplied { .. } => {
                return Err(why("a part of it is already in the file"))
            }
            Located::Ambiguous { .. } => return Err(why("a part of it fits in several places")),
            Located::NotFound { .. } => return Err(why("a part of it is not in the file")),
        };
        let follows = k == 0
            || (pl.start >= prev_end
                && matches!(pl.decided_by, DecidedBy::Unique | DecidedBy::Order));
        if pl.pass == Pass::Fuzzy || pl.fuzz.is_some() || !follows {
            return Err(why(
                "a part of it is not in one place after the part before",
            ));
        }
        if taken.iter().any(|&(a, b)| pl.start < b && a < pl.end) {
            return Err(why("a part of it overlaps another hunk"));
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
) -> Result<(Hunk, Placement, Vec<usize>), String> {
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
        return Err(elision_refusal(
            "it starts or ends the SEARCH text, so nothing bounds it",
        ));
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
    // The file's own lines carry the file's indentation: with parts that matched only when
    // ignoring indentation, they would out-vote how the REPLACE text is to be re-indented.
    if placed.iter().any(|(_, pl)| pl.pass.ignores_indentation()) {
        return Err(elision_refusal(
            "the SEARCH text is indented differently from the file",
        ));
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
    };
    match locate::locate(hay, &q) {
        Located::Placed(pl) if pl.start == start && pl.fuzz.is_none() => Ok((rebuilt, pl, filled)),
        _ => Err(elision_refusal(
            "the SEARCH text with the file's lines in its place does not fit in one place",
        )),
    }
}

/// For each hunk, the earlier hunk it repeats line for line, when its numbers do not say it
/// is meant for another place (the same numbers, or none on either).
fn repeated_hunks(fp: &FilePatch) -> Vec<Option<usize>> {
    // Hunks are grouped by their lines first, so each is compared only with its look-alikes.
    let mut seen: HashMap<&[crate::patch::Line], Vec<usize>> = HashMap::new();
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
    stated: Option<usize>,
    /// Where the search started: `stated` moved by the offsets of earlier hunks.
    searched: Option<usize>,
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
                if let Some(s) = stated {
                    delta = p.start as i64 - s;
                }
                if let Some(current) = current.as_mut() {
                    match current.apply(h, p, fp.patch_eols) {
                        Ok(()) => {
                            // Later hunks' numbers still count lines of the original text.
                            delta += h.new_len() as i64 - h.old_len() as i64;
                            prev_end = p.start + h.new_len();
                        }
                        Err(why) => {
                            loc = Located::NotFound { reason: Some(why) };
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

/// The lines a hunk may look up in a file: its own, its anchors and its section heading.
pub(crate) fn names(h: &Hunk) -> impl Iterator<Item = &str> {
    h.lines
        .iter()
        .map(|l| l.text.as_str())
        .chain(h.anchors.iter().map(String::as_str))
        .chain(h.section.as_deref())
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

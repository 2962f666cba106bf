//! Strategy 3: find the version of a file a patch was written against — in the index, at
//! HEAD, in recent first-parent history or in a ghost snapshot — and three-way merge the patch
//! into the file as it is now.
//!
//! A patch without a usable `index` line still says which version it was written against:
//! every hunk sits exactly at its stated line numbers in that version (a hunk without numbers:
//! exactly, and in one place only). The search tries the versions nearest in time first and
//! takes the first that fits, so the same repository always gives the same base:
//!
//! 1. the index entry;
//! 2. walking the first-parent line from HEAD, for each commit: the states ghost snapshots
//!    recorded while HEAD was that commit (newest snapshot first, its post-apply state before
//!    its pre-apply one), then the file as that commit has it. Only commits whose version
//!    differs from their child's count as new versions, and the walk ends after
//!    `llm-apply.historyDepth` commits that touched the file (default [`DEFAULT_DEPTH`]; HEAD's
//!    own version is always tried), where the file did not exist, at a shallow clone's
//!    boundary, or after [`WALK_LIMIT`] commits in all;
//! 3. the states of snapshots recorded on commits the walk did not reach, newest first.
//!
//! A version identical to one tried before is not tried again. Renames are not followed.
//!
//! With a base, theirs = base + patch and ours = the file now; `merge` combines them with
//! `git merge-file`'s rules. Nothing here reads the work tree: the caller hands in the file.

use std::borrow::Cow;
use std::collections::HashSet;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::ObjectId;

use super::locate::{edge_additions, insertion_points, DecidedBy, Haystack, Placement};
use super::merge::{self, Labels, MergeOutcome};
use super::{splice, Base, MergeResult, Strategy, ThreeWay};
use crate::patch::{FilePatch, Hunk, LineKind};
use crate::repo::{FileState, Repo};
use crate::text::file::{Line, TextFile};
use crate::text::normalize::{is_trivial, Pass};

/// The git config key bounding how many commits that touched a file are searched.
pub const DEPTH_CONFIG_KEY: &str = "llm-apply.historyDepth";
/// Commits that touched the file searched when `llm-apply.historyDepth` is not set.
pub const DEFAULT_DEPTH: usize = 50;
/// First-parent commits walked at most, whatever the depth: a file untouched for a long
/// time would otherwise make every search walk the whole history for nothing.
pub const WALK_LIMIT: usize = 2_000;

/// Where a candidate version came from, as the report names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The file's index entry.
    Index,
    /// A commit on HEAD's first-parent line.
    Commit,
    /// A state a ghost snapshot recorded.
    Snapshot,
}

impl Source {
    /// Its name as a [`Base`]'s `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Index => "index",
            Source::Commit => "commit",
            Source::Snapshot => "snapshot",
        }
    }
}

/// A version of a file some earlier apply recorded (a ghost snapshot's pre- or post-apply
/// content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedState {
    /// HEAD when the state was recorded; `None` on an unborn branch.
    pub head: Option<ObjectId>,
    /// A commit whose tree holds this content at the path: how the report names the base.
    pub commit: ObjectId,
    /// The content itself.
    pub blob: ObjectId,
}

/// The states earlier applies recorded. The snapshot module implements it; the planner
/// cannot use that module itself, as it comes later in the pipeline.
pub trait RecordedStates {
    /// Every recorded state of `path`, newest first. A broken record is left out: the search
    /// for a base is a best effort, and a refusal later says what did not fit.
    fn states(&self, path: &str) -> Vec<RecordedState>;
}

/// Why the base search cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The depth setting is not a count of commits.
    #[error("git config {key} is {value:?}, not a number of commits (0 or more)")]
    Config {
        /// The config key.
        key: &'static str,
        /// Its value as written (empty when it has none).
        value: String,
    },
}

impl crate::patch::kinds::Kinded for HistoryError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Config
    }
}

/// The base finder for one repository.
pub struct History<'a> {
    /// The repository whose index, commits and objects are searched.
    pub repo: &'a Repo,
    /// Commits that touched a file whose versions are searched, besides HEAD's version.
    pub depth: usize,
    /// The snapshots' recorded states, searched too when given.
    pub recorded: Option<&'a dyn RecordedStates>,
}

/// The version a patch fits and what the search cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// The nearest version the patch fits, if any.
    pub found: Option<Found>,
    /// What the search read on the way.
    pub stats: Stats,
}

/// What one base search cost, as `examples/bench_history.rs` reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Versions whose content was read and tested.
    pub versions: usize,
    /// First-parent commits visited.
    pub commits: usize,
    /// Of those, commits whose version of the file differs from their parent's.
    pub touching: usize,
}

/// A version in which every hunk applies exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Where the version came from, as the report names it.
    pub base: Base,
    /// The version's content, in the work tree's line-ending and BOM conventions.
    pub bytes: Vec<u8>,
    /// How the hunks' numbers were read to recognise it.
    pub numbers: Numbers,
}

/// How a version must hold the hunks to be the one the patch was written against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Numbers {
    /// Each hunk at its stated line numbers exactly (a hunk without numbers: in one place).
    #[default]
    Exact,
    /// As `Exact`, or, for a hunk not at its numbers, at the one place its old lines occur:
    /// numbers gone stale (lines added or removed above since) still name one version when
    /// the hunk occurs once in it. Tried only when no version holds the hunks exactly.
    Stale,
}

/// The depth from `llm-apply.historyDepth`, else [`DEFAULT_DEPTH`].
pub fn depth_from_config(repo: &Repo) -> Result<usize, HistoryError> {
    let config = repo.repo.config_snapshot();
    let bad = || HistoryError::Config {
        key: DEPTH_CONFIG_KEY,
        value: config
            .string(DEPTH_CONFIG_KEY)
            .map(|v| v.to_string())
            .unwrap_or_default(),
    };
    match config.try_integer(DEPTH_CONFIG_KEY) {
        Ok(None) => Ok(DEFAULT_DEPTH),
        Ok(Some(n)) => usize::try_from(n).map_err(|_| bad()),
        Err(_) => Err(bad()),
    }
}

impl History<'_> {
    /// The nearest version of `fp`'s file in which every hunk applies exactly. `None` when
    /// the patch gives too little to recognise a version by, when `current` fits already
    /// (the text passes place it exactly then, with nothing to merge), or when a hunk without
    /// numbers is ambiguous in `current`.
    pub fn search(&self, fp: &FilePatch, current: &FileState) -> Search {
        let mut stats = Stats::default();
        let Some(path) = fp.old_path.as_deref() else {
            return Search { found: None, stats };
        };
        if fp.full_content.is_some() || !recognisable(fp) {
            return Search { found: None, stats };
        }
        let Some(now) = lines_of(&current.bytes) else {
            return Search { found: None, stats };
        };
        let now = Haystack::new(&now);
        if fit(fp, &now, Numbers::Exact).is_some() || ambiguous_now(fp, &now, Numbers::Exact) {
            return Search { found: None, stats };
        }
        // Stale numbers count only where the file as it is does not hold every hunk in one
        // place already (the text passes place those) and no hunk occurs in it more than once.
        let stale_allowed =
            fit(fp, &now, Numbers::Stale).is_none() && !ambiguous_now(fp, &now, Numbers::Stale);
        let found_at = |v: &Version, bytes: &[u8], numbers| Found {
            base: Base {
                kind: v.source.as_str().to_string(),
                id: v.id.to_string(),
                path: path.to_string(),
            },
            bytes: like_work_tree(bytes, &current.bytes),
            numbers,
        };
        // One walk, each version read once: the nearest that holds the hunks at their
        // numbers, else the nearest that holds them with stale numbers.
        let mut versions = Versions::new(self, path);
        let mut tried: HashSet<ObjectId> = HashSet::new();
        let mut stale: Option<Found> = None;
        let found = loop {
            let Some(v) = versions.next() else {
                break stale;
            };
            if !tried.insert(v.blob) {
                continue;
            }
            let Ok(mut blob) = self.repo.repo.find_blob(v.blob) else {
                // A partial clone may lack it; the next version may still be there.
                continue;
            };
            stats.versions += 1;
            let bytes = blob.take_data();
            let Some(lines) = lines_of(&bytes) else {
                continue;
            };
            let lines = Haystack::new(&lines);
            if fit(fp, &lines, Numbers::Exact).is_some() {
                break Some(found_at(&v, &bytes, Numbers::Exact));
            }
            if stale.is_none() && stale_allowed && fit(fp, &lines, Numbers::Stale).is_some() {
                stale = Some(found_at(&v, &bytes, Numbers::Stale));
            }
        };
        stats.commits = versions.walked;
        stats.touching = versions.touching;
        Search { found, stats }
    }
}

impl ThreeWay for History<'_> {
    fn apply(&self, _index: usize, fp: &FilePatch, current: &FileState) -> Option<MergeResult> {
        let found = self.search(fp, current).found?;
        merge_onto(fp, found, &current.bytes)
    }
}

/// Three-way merge of `fp` applied to `found` into `current`. `None` when a text is not
/// UTF-8 or the patch does not fit the base after all (it was tested on the same bytes, so
/// only a line-ending conversion could make it differ).
pub fn merge_onto(fp: &FilePatch, found: Found, current: &[u8]) -> Option<MergeResult> {
    let base_text = TextFile::decode(&found.bytes)?;
    let placements = fit(fp, &Haystack::new(&base_text.lines), found.numbers)?;
    let placed: Vec<(&Hunk, &Placement)> = fp.hunks.iter().zip(&placements).collect();
    let theirs = splice::splice(&base_text, &placed, fp.patch_eols).encode();
    let base = std::str::from_utf8(&found.bytes).ok()?;
    let ours = std::str::from_utf8(current).ok()?;
    let theirs = std::str::from_utf8(&theirs).ok()?;
    // The labels git apply --3way writes, so both merge strategies' markers read the same.
    let labels = Labels {
        ours: "ours",
        base: "base",
        theirs: "theirs",
    };
    Some(match merge::merge(base, ours, theirs, &labels) {
        MergeOutcome::Clean(text) => MergeResult::Clean {
            bytes: text.into_bytes(),
            strategy: Strategy::HistoryThreeWay,
            base: Some(found.base),
        },
        MergeOutcome::Conflicted { text, conflicts } => MergeResult::Conflicted {
            bytes: text.into_bytes(),
            strategy: Strategy::HistoryThreeWay,
            base: Some(found.base),
            regions: conflicts
                .iter()
                .map(|c| {
                    format!(
                        "conflict markers at lines {}-{}",
                        c.merged.start,
                        c.merged.end().unwrap_or(c.merged.start)
                    )
                })
                .collect(),
        },
    })
}

/// Whether a version can be recognised by the patch at all: some hunk must have an old line
/// with content. A patch of blank lines and braces fits too many versions by chance.
fn recognisable(fp: &FilePatch) -> bool {
    !fp.hunks.is_empty()
        && fp
            .hunks
            .iter()
            .any(|h| h.old_lines().any(|l| !is_trivial(&l.text)))
}

/// `fit` on raw bytes, as the search tests each version: split, not decoded into owned lines
/// (most versions fail at the first hunk, and history can hold many large versions).
#[cfg(test)]
fn fit_bytes(fp: &FilePatch, bytes: &[u8], numbers: Numbers) -> bool {
    lines_of(bytes).is_some_and(|lines| fit(fp, &Haystack::new(&lines), numbers).is_some())
}

/// The lines of UTF-8 text as [`TextFile`] sees them (no BOM, no terminators); `None` for
/// anything else (a binary file by git's rule, which [`TextFile`] follows, included).
fn lines_of(bytes: &[u8]) -> Option<Vec<Line<'_>>> {
    let text = std::str::from_utf8(bytes).ok()?;
    if crate::text::bytes::looks_binary([text.as_bytes()]) {
        return None;
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Some(
        text.split_inclusive('\n')
            .map(|l| {
                let l = l.strip_suffix('\n').unwrap_or(l);
                Cow::Borrowed(l.strip_suffix('\r').unwrap_or(l))
            })
            .collect(),
    )
}

/// Whether some hunk a version is recognised by its one place in (without numbers, or with
/// `Numbers::Stale` any hunk) occurs exactly more than once in the file as it is. A model
/// that read this file could not have meant one place, so a version in which the hunk
/// occurs once is no evidence of which; the text passes' ambiguity rules decide instead.
fn ambiguous_now(fp: &FilePatch, lines: &Haystack, numbers: Numbers) -> bool {
    let by_place = |h: &&Hunk| h.old_start.is_none() || numbers == Numbers::Stale;
    fp.hunks.iter().filter(by_place).any(|h| {
        let old: Vec<&str> = h.old_lines().map(|l| l.text.as_str()).collect();
        !old.is_empty() && lines.find_all(Pass::Exact, &old).len() > 1
    })
}

/// Where every hunk of `fp` sits in `lines` if they are the version the patch was written
/// against: at its stated line numbers exactly, or, without numbers (or not at them, with
/// `Numbers::Stale`), at the one place its old lines occur. `None` when some hunk does not
/// sit so, or hunks overlap.
fn fit(fp: &FilePatch, lines: &Haystack, numbers: Numbers) -> Option<Vec<Placement>> {
    let mut out: Vec<Placement> = Vec::with_capacity(fp.hunks.len());
    for h in &fp.hunks {
        // A body short of its header, adding lines at an edge beside its context, does not
        // say on which side of the missing lines they go: it sits in no version exactly,
        // whatever its numbers (fuzz seed 2600307: a hunk appending at the end of the file
        // that lost its last context line put the lines before it). The text passes, which
        // refuse such a hunk where the two readings differ, decide.
        // Nor does a body that changes nothing while its header counts more lines: the
        // lines it changes are what it lost.
        if edge_additions(h).is_some() || h.lost_its_changes() {
            return None;
        }
        let old: Vec<&str> = h.old_lines().map(|l| l.text.as_str()).collect();
        let kinds: Vec<LineKind> = h.old_lines().map(|l| l.kind).collect();
        let (start, decided_by) = match h.old_start {
            Some(stated) => {
                // Git's numbering: an empty old side names the line after which it inserts.
                let at = if old.is_empty() {
                    stated
                } else {
                    stated.checked_sub(1)?
                };
                if lines.matches_at(Pass::Exact, &old, at) {
                    (at, DecidedBy::Hint)
                } else if numbers == Numbers::Stale && !old.is_empty() {
                    (only_place(lines, &old)?, DecidedBy::Unique)
                } else {
                    return None;
                }
            }
            None if old.is_empty() => {
                // Only an end of the file places an insertion without numbers or context.
                if h.at_eof || lines.is_empty() {
                    (lines.len(), DecidedBy::Unique)
                } else {
                    return None;
                }
            }
            None => (only_place(lines, &old)?, DecidedBy::Unique),
        };
        // A stated insertion point past the end of this version does not sit in it.
        let end = start.checked_add(old.len()).filter(|&e| e <= lines.len())?;
        if (h.at_eof && end != lines.len()) || (h.at_bof && start != 0) {
            return None;
        }
        if out.iter().any(|p| !(end <= p.start || start >= p.end)) {
            return None;
        }
        let mapping: Vec<Option<usize>> = (start..end).map(Some).collect();
        let inserts = insertion_points(h, &kinds, &mapping, lines.len(), None).ok()?;
        out.push(Placement {
            start,
            end,
            mapping,
            inserts,
            pass: Pass::Exact,
            occurrences: 1,
            decided_by,
            fuzz: None,
        });
    }
    Some(out)
}

/// The one start where `old` (not empty) occurs in `lines`; `None` when nowhere or twice.
fn only_place(lines: &Haystack, old: &[&str]) -> Option<usize> {
    match lines.find_all(Pass::Exact, old).as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// `version` in the conventions `current` uses: git stores text with LF where the work tree
/// has CRLF (`core.autocrlf`, `eol` attributes), and a BOM can come and go the same way. A
/// merge across such a difference would see every line changed. Only uniform conventions
/// are converted; mixed ones are merged as they are.
fn like_work_tree(version: &[u8], current: &[u8]) -> Vec<u8> {
    const BOM: &[u8] = "\u{feff}".as_bytes();
    let (v_bom, v_body) = match version.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, version),
    };
    let c_bom = current.starts_with(BOM);
    let body = match (eol_style(v_body), eol_style(current)) {
        (Some(false), Some(true)) => v_body.replace("\n", "\r\n"),
        (Some(true), Some(false)) => v_body.replace("\r\n", "\n"),
        _ => v_body.to_vec(),
    };
    let mut out = Vec::with_capacity(body.len() + 3);
    if c_bom || (v_bom && current.is_empty()) {
        out.extend_from_slice(BOM);
    }
    out.extend_from_slice(&body);
    out
}

/// `Some(true)` when every line ends in CRLF, `Some(false)` when every line ends in a bare
/// LF, `None` for mixed endings or no line ending at all.
fn eol_style(bytes: &[u8]) -> Option<bool> {
    let lf = bytes.iter().filter(|&&b| b == b'\n').count();
    if lf == 0 {
        return None;
    }
    let crlf = bytes.windows(2).filter(|w| w == b"\r\n").count();
    match crlf {
        0 => Some(false),
        n if n == lf => Some(true),
        _ => None,
    }
}

/// One candidate version: where it came from, the id that names it, its blob.
struct Version {
    source: Source,
    /// The commit holding the version (commit, snapshot) or the blob itself (index).
    id: ObjectId,
    blob: ObjectId,
}

/// The candidate versions of one path, nearest first, produced lazily: the walk stops as
/// soon as a version fits.
struct Versions<'h, 'a> {
    history: &'h History<'a>,
    path: &'h str,
    lookup: PathLookup,
    /// Versions found but not handed out yet, in order.
    queue: std::collections::VecDeque<Version>,
    index_done: bool,
    /// The next first-parent commit to visit.
    next_commit: Option<ObjectId>,
    /// The file's blob in the commit visited last (its child, for the next one).
    child_blob: Option<ObjectId>,
    walked: usize,
    touching: usize,
    /// Recorded states not handed out yet (loaded on first need).
    recorded: Option<Vec<RecordedState>>,
}

impl<'h, 'a> Versions<'h, 'a> {
    fn new(history: &'h History<'a>, path: &'h str) -> Versions<'h, 'a> {
        Versions {
            history,
            path,
            lookup: PathLookup::new(path),
            queue: Default::default(),
            index_done: false,
            next_commit: history.repo.repo.head_id().ok().map(|id| id.detach()),
            child_blob: None,
            walked: 0,
            touching: 0,
            recorded: None,
        }
    }

    fn next(&mut self) -> Option<Version> {
        loop {
            if let Some(v) = self.queue.pop_front() {
                return Some(v);
            }
            if !self.index_done {
                self.index_done = true;
                if let Some(v) = self.index_version() {
                    return Some(v);
                }
                continue;
            }
            if let Some(commit) = self.next_commit.take() {
                self.visit(commit);
                continue;
            }
            // The walk is over: snapshots recorded on commits it did not reach.
            let rest: Vec<RecordedState> = self.recorded_states().drain(..).collect();
            if rest.is_empty() {
                return None;
            }
            for s in rest {
                self.queue.push_back(Version {
                    source: Source::Snapshot,
                    id: s.commit,
                    blob: s.blob,
                });
            }
        }
    }

    fn index_version(&self) -> Option<Version> {
        use gix::index::entry::{Mode, Stage};
        // The index is read once per run, not once per file of the patch.
        let index = self.history.repo.index()?;
        let entry = index.entry_by_path_and_stage(BStr::new(self.path), Stage::Unconflicted)?;
        if entry.mode != Mode::FILE && entry.mode != Mode::FILE_EXECUTABLE {
            return None;
        }
        Some(Version {
            source: Source::Index,
            id: entry.id,
            blob: entry.id,
        })
    }

    fn recorded_states(&mut self) -> &mut Vec<RecordedState> {
        let (recorded, path) = (self.history.recorded, self.path);
        self.recorded
            .get_or_insert_with(|| recorded.map(|r| r.states(path)).unwrap_or_default())
    }

    /// Queue what `commit` contributes: the snapshot states recorded on it, then its own
    /// version of the file when that is a new one; and decide whether the walk goes on.
    fn visit(&mut self, commit: ObjectId) {
        let repo = &self.history.repo.repo;
        if self.walked >= WALK_LIMIT {
            return;
        }
        // A shallow clone's boundary or a missing object ends the history we can see.
        let Ok(c) = repo.find_commit(commit) else {
            return;
        };
        let Ok(tree) = c.tree_id() else {
            return;
        };
        self.walked += 1;
        let blob = self.lookup.blob_at(repo, tree.detach());

        let states = self.recorded_states();
        let mut on_commit = Vec::new();
        states.retain(|s| {
            if s.head == Some(commit) {
                on_commit.push(s.clone());
                false
            } else {
                true
            }
        });
        for s in on_commit {
            self.queue.push_back(Version {
                source: Source::Snapshot,
                id: s.commit,
                blob: s.blob,
            });
        }

        let first = self.walked == 1;
        if !first && blob != self.child_blob {
            // The child touched the file: this commit's version is one older version.
            self.touching += 1;
            if self.touching > self.history.depth {
                return;
            }
        }
        let Some(blob) = blob else {
            // The file did not exist here: nothing older is a version of it.
            return;
        };
        if first || Some(blob) != self.child_blob {
            self.queue.push_back(Version {
                source: Source::Commit,
                id: commit,
                blob,
            });
        }
        self.child_blob = Some(blob);
        self.next_commit = c.parent_ids().next().map(|p| p.detach());
    }
}

/// Looks one path up in successive commits' trees, reusing what the previous commit's
/// lookup found wherever a tree on the way is the same object (most commits leave most
/// directories alone).
struct PathLookup {
    components: Vec<BString>,
    /// Per depth: the tree looked in last and the entry found there.
    cache: Vec<Option<Looked>>,
}

/// A tree and what it holds under one name (id and mode), if anything.
type Looked = (ObjectId, Option<(ObjectId, gix::objs::tree::EntryMode)>);

impl PathLookup {
    fn new(path: &str) -> PathLookup {
        let components: Vec<BString> = path.split('/').map(BString::from).collect();
        let cache = vec![None; components.len()];
        PathLookup { components, cache }
    }

    /// The blob of a regular file at the path in `root`; `None` when absent, not a regular
    /// file, or unreadable.
    fn blob_at(&mut self, repo: &gix::Repository, root: ObjectId) -> Option<ObjectId> {
        let mut tree = root;
        let last = self.components.len() - 1;
        for (depth, name) in self.components.iter().enumerate() {
            let entry = match &self.cache[depth] {
                Some((id, entry)) if *id == tree => *entry,
                _ => {
                    let t = repo.find_tree(tree).ok()?;
                    let entry = t
                        .find_entry(name.clone())
                        .map(|e| (e.oid().to_owned(), e.mode()));
                    self.cache[depth] = Some((tree, entry));
                    entry
                }
            };
            let (id, mode) = entry?;
            if depth == last {
                return mode.is_blob().then_some(id);
            }
            if !mode.is_tree() {
                return None;
            }
            tree = id;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::Line;

    /// A version of a file is searched as the planner reads the file: binary (no lines) only
    /// for a NUL among its first 8000 bytes; one further on is a character of its text.
    #[test]
    fn a_version_is_binary_to_the_search_as_git_judges_it() {
        assert!(lines_of(b"a\x00b\nc\n").is_none());
        let mut late = "pad\n".repeat(2000).into_bytes();
        late.extend_from_slice(b"x\x00y\n");
        let lines = lines_of(&late).expect("text");
        assert_eq!(lines.len(), 2001);
        assert_eq!(lines[2000], "x\u{0}y");
        assert!(
            lines_of(b"\xff\n").is_none(),
            "not UTF-8: no lines, as before"
        );
    }

    fn hunk(old_start: Option<usize>, lines: &[(char, &str)]) -> Hunk {
        Hunk {
            old_start,
            new_start: old_start,
            lines: lines
                .iter()
                .map(|(k, t)| {
                    let kind = match k {
                        ' ' => LineKind::Context,
                        '-' => LineKind::Remove,
                        _ => LineKind::Add,
                    };
                    Line::new(kind, *t)
                })
                .collect(),
            ..Hunk::default()
        }
    }

    fn patch(hunks: Vec<Hunk>) -> FilePatch {
        FilePatch {
            old_path: Some("f".into()),
            new_path: Some("f".into()),
            hunks,
            ..FilePatch::default()
        }
    }

    #[test]
    fn a_numbered_hunk_fits_only_at_its_stated_line() {
        let p = patch(vec![hunk(
            Some(2),
            &[(' ', "alpha"), ('-', "beta"), ('+', "BETA")],
        )]);
        assert!(fit_bytes(&p, b"x\nalpha\nbeta\n", Numbers::Exact));
        assert!(
            !fit_bytes(&p, b"alpha\nbeta\n", Numbers::Exact),
            "one line off is not this version"
        );
        assert!(
            fit_bytes(&p, b"x\r\nalpha\r\nbeta\r\n", Numbers::Exact),
            "line endings are not content"
        );
    }

    #[test]
    fn stale_numbers_fit_where_the_hunk_occurs_once() {
        let p = patch(vec![hunk(
            Some(2),
            &[(' ', "alpha"), ('-', "beta"), ('+', "BETA")],
        )]);
        let moved = b"x\ny\nz\nalpha\nbeta\n";
        assert!(!fit_bytes(&p, moved, Numbers::Exact));
        assert!(fit_bytes(&p, moved, Numbers::Stale));
        assert!(
            !fit_bytes(&p, b"alpha\nbeta\nq\nalpha\nbeta\n", Numbers::Stale),
            "twice off its numbers is no evidence of a version"
        );
        assert!(!fit_bytes(&p, b"alpha\nq\n", Numbers::Stale));
    }

    #[test]
    fn a_numberless_hunk_fits_where_it_occurs_once() {
        let p = patch(vec![hunk(None, &[(' ', "alpha"), ('-', "beta")])]);
        assert!(fit_bytes(&p, b"q\nalpha\nbeta\n", Numbers::Exact));
        assert!(
            !fit_bytes(&p, b"alpha\nbeta\nalpha\nbeta\n", Numbers::Exact),
            "twice is no evidence of a version"
        );
        assert!(!fit_bytes(&p, b"alpha\n", Numbers::Exact));
    }

    #[test]
    fn overlapping_hunks_do_not_fit() {
        let p = patch(vec![
            hunk(Some(1), &[(' ', "alpha"), ('-', "beta")]),
            hunk(Some(2), &[('-', "beta"), ('+', "b")]),
        ]);
        let lines = lines_of(b"alpha\nbeta\n").expect("text");
        assert!(fit(&p, &Haystack::new(&lines), Numbers::Exact).is_none());
        assert!(fit(&p, &Haystack::new(&lines), Numbers::Stale).is_none());
    }

    #[test]
    fn a_patch_of_braces_and_blank_lines_recognises_no_version() {
        assert!(!recognisable(&patch(vec![hunk(
            Some(3),
            &[(' ', "}"), ('-', ""), ('+', "  ")]
        )])));
        assert!(recognisable(&patch(vec![hunk(
            Some(3),
            &[(' ', "}"), ('-', "return x;")]
        )])));
    }

    #[test]
    fn versions_take_the_work_tree_conventions() {
        assert_eq!(like_work_tree(b"a\nb\n", b"a\r\nc\r\n"), b"a\r\nb\r\n");
        assert_eq!(like_work_tree(b"a\r\nb\r\n", b"a\nc\n"), b"a\nb\n");
        assert_eq!(
            like_work_tree(b"a\nb\r\n", b"a\r\n"),
            b"a\nb\r\n",
            "mixed endings are left alone"
        );
        assert_eq!(
            like_work_tree(b"a\n", "\u{feff}a\n".as_bytes()),
            "\u{feff}a\n".as_bytes()
        );
        assert_eq!(like_work_tree("\u{feff}a\n".as_bytes(), b"a\n"), b"a\n");
    }

    #[test]
    fn merging_onto_a_base_carries_the_change_past_later_edits() {
        let p = patch(vec![hunk(
            Some(2),
            &[(' ', "two"), ('-', "three"), ('+', "THREE"), (' ', "four")],
        )]);
        let found = Found {
            base: Base {
                kind: "commit".into(),
                id: "0".repeat(40),
                path: "f".into(),
            },
            bytes: b"one\ntwo\nthree\nfour\nfive\nsix\nseven\n".to_vec(),
            numbers: Numbers::Exact,
        };
        let ours = b"zero\none\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n";
        match merge_onto(&p, found, ours) {
            Some(MergeResult::Clean {
                bytes, strategy, ..
            }) => {
                assert_eq!(bytes, b"zero\none\ntwo\nTHREE\nfour\nfive\nsix\nSEVEN\n");
                assert_eq!(strategy, Strategy::HistoryThreeWay);
            }
            other => panic!("expected a clean merge, got {other:?}"),
        }
    }
}

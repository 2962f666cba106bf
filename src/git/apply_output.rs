//! Reading what `git apply` printed: per file, whether it applied, conflicted or was skipped, and why.
//!
//! Git's messages are not a stable interface: their wording and even their order changed across
//! versions (2.32 reversed `--3way`, 2.35 reworded empty input, 2.54 changed line references), so
//! every rule here is written against recorded transcripts of many versions
//! (`tests/fixtures/git-transcripts`). The rules that matter:
//!
//! - A message that names no path belongs to the file of the last `Checking patch X...` line
//!   (without `-v` there is none, so it waits for the next message that names a path).
//! - No single `error:` line means failure: git prints errors on runs that then succeed (a missing
//!   blob before a successful direct application, a failed hunk before a clean three-way merge).
//!   Only the terminal ones (`X: patch does not apply`, `does not match index`, …) do.
//! - `Applied patch X cleanly.` is printed for conflicted files too; only `U X` and
//!   `… with conflicts.` mark a conflict. Per file: conflicted > applied > skipped.
//! - When any file fails outright git writes nothing, although it may already have printed
//!   "applied" lines for the others; those files are then skipped with [`Reason::Aborted`].
//! - Paths are C-quoted in some messages and raw in others; both are read back to the same path.

use crate::text::quote::{quoted_end, unquote};
use std::fmt;

/// What became of one file of the patch (or, under `--check`, what would become of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Applied cleanly, directly or through a clean three-way merge.
    Applied,
    /// Three-way merged with overlapping changes: conflict markers (and unmerged index entries).
    Conflicted,
    /// Not written: it failed, was excluded, had rejected hunks, or another file's failure
    /// stopped the whole run.
    Skipped,
}

impl Outcome {
    /// Its lower-case name, as the transcript tests record it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::Conflicted => "conflicted",
            Outcome::Skipped => "skipped",
        }
    }
}

/// A message git printed, recognised. Per-file reasons explain a file's outcome; run-wide ones
/// (bad input, bad options, whitespace summaries) concern the whole invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The preimage blob named by the `index` line is not in the object store, so no three-way
    /// merge was possible (git may still have applied the patch directly).
    MissingBlob,
    /// A hunk did not apply at its place (`patch failed: X:N`); a three-way merge may still
    /// have rescued the file. `line` is the hunk's old start line.
    HunkFailed {
        /// The hunk's old start line, as git printed it.
        line: u64,
    },
    /// The file's patch does not apply (terminal).
    PatchDoesNotApply,
    /// The work-tree file differs from its index entry, which `--index`/`--3way` require equal.
    DoesNotMatchIndex,
    /// The file is not in the index, which `--index`/`--3way` need.
    DoesNotExistInIndex,
    /// A creation patch, but the path is already in the index.
    AlreadyExistsInIndex,
    /// A creation (or rename) patch, but the path already exists in the work tree.
    AlreadyExistsInWorkTree,
    /// The file to change or delete does not exist.
    NoSuchFile,
    /// Git could not read the file's current content for a three-way merge.
    CannotReadCurrent,
    /// A `Binary files differ` patch without full blob ids cannot be applied.
    BinaryNeedsFullIndex,
    /// A binary patch whose data is missing or does not fit the file.
    BinaryDoesNotApply,
    /// The file's mode is not the one the patch expects (a warning; the patch still applies).
    TypeMismatch {
        /// The mode the file has.
        found: u32,
        /// The mode the patch's header names.
        expected: u32,
    },
    /// With `--reject`: these hunks (1-based) were written to a `.rej` file; the others applied.
    Rejected {
        /// The numbers git gave them in its `Rejected hunk #N.` lines.
        hunks: Vec<u64>,
    },
    /// Left out by `--include`/`--exclude`.
    Excluded,
    /// Nothing was written because another file, or the run as a whole, failed.
    Aborted,
    /// The input holds no patch git recognises ("unrecognized input", "No valid patches").
    NoPatchInInput,
    /// The patch text is corrupt (a hunk's counts do not match its lines, garbage in a hunk).
    CorruptPatch {
        /// The patch line git pointed at, when it named one.
        line: Option<u64>,
    },
    /// A hunk without a file header before it.
    FragmentWithoutHeader {
        /// The patch line of the hunk, when git named it.
        line: Option<u64>,
    },
    /// A `diff --git` header whose paths do not survive stripping the leading component (-p).
    MissingFilename {
        /// The patch line of the header, when git named it.
        line: Option<u64>,
    },
    /// Git refused its command line (unknown option, incompatible options).
    Usage {
        /// Git's message: its `usage:` line, or the error's text after `error: `.
        message: String,
    },
    /// Added lines with whitespace errors; `refused` under `--whitespace=error`.
    WhitespaceErrors {
        /// How many lines git counted.
        lines: u64,
        /// Whether git refused the patch for them rather than only warning.
        refused: bool,
    },
    /// Lines fixed by `--whitespace=fix`.
    WhitespaceFixed {
        /// How many lines git fixed.
        lines: u64,
    },
    /// A `warning:` line we do not otherwise know.
    Warning {
        /// The line's text after `warning: `.
        message: String,
    },
    /// An `error:` or `fatal:` line we do not otherwise know.
    Other {
        /// The text after `error: `, or a `fatal:` line whole.
        message: String,
    },
}

impl Reason {
    /// A stable machine name, for reports and test tables.
    pub fn kind(&self) -> &'static str {
        match self {
            Reason::MissingBlob => "missing-blob",
            Reason::HunkFailed { .. } => "hunk-failed",
            Reason::PatchDoesNotApply => "patch-does-not-apply",
            Reason::DoesNotMatchIndex => "does-not-match-index",
            Reason::DoesNotExistInIndex => "does-not-exist-in-index",
            Reason::AlreadyExistsInIndex => "already-exists-in-index",
            Reason::AlreadyExistsInWorkTree => "already-exists-in-work-tree",
            Reason::NoSuchFile => "no-such-file",
            Reason::CannotReadCurrent => "cannot-read-current",
            Reason::BinaryNeedsFullIndex => "binary-needs-full-index",
            Reason::BinaryDoesNotApply => "binary-does-not-apply",
            Reason::TypeMismatch { .. } => "type-mismatch",
            Reason::Rejected { .. } => "rejected",
            Reason::Excluded => "excluded",
            Reason::Aborted => "aborted",
            Reason::NoPatchInInput => "no-patch",
            Reason::CorruptPatch { .. } => "corrupt-patch",
            Reason::FragmentWithoutHeader { .. } => "fragment-without-header",
            Reason::MissingFilename { .. } => "missing-filename",
            Reason::Usage { .. } => "usage",
            Reason::WhitespaceErrors { refused: false, .. } => "whitespace-errors",
            Reason::WhitespaceErrors { refused: true, .. } => "whitespace-refused",
            Reason::WhitespaceFixed { .. } => "whitespace-fixed",
            Reason::Warning { .. } => "warning",
            Reason::Other { .. } => "other",
        }
    }

    /// Whether this message alone means git wrote nothing. Errors that git recovers from
    /// (a missing blob before direct application, a failed hunk before a three-way merge,
    /// a rejected hunk under `--reject`) are not failures.
    pub fn is_failure(&self) -> bool {
        match self {
            Reason::PatchDoesNotApply
            | Reason::DoesNotMatchIndex
            | Reason::DoesNotExistInIndex
            | Reason::AlreadyExistsInIndex
            | Reason::AlreadyExistsInWorkTree
            | Reason::NoSuchFile
            | Reason::CannotReadCurrent
            | Reason::BinaryNeedsFullIndex
            | Reason::BinaryDoesNotApply
            | Reason::NoPatchInInput
            | Reason::CorruptPatch { .. }
            | Reason::FragmentWithoutHeader { .. }
            | Reason::MissingFilename { .. }
            | Reason::Usage { .. }
            | Reason::Other { .. } => true,
            Reason::WhitespaceErrors { refused, .. } => *refused,
            Reason::MissingBlob
            | Reason::HunkFailed { .. }
            | Reason::TypeMismatch { .. }
            | Reason::Rejected { .. }
            | Reason::Excluded
            | Reason::Aborted
            | Reason::WhitespaceFixed { .. }
            | Reason::Warning { .. } => false,
        }
    }
}

fn at_line(line: &Option<u64>) -> String {
    line.map(|n| format!(" at patch line {n}"))
        .unwrap_or_default()
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::MissingBlob => write!(
                f,
                "repository lacks the necessary blob for a three-way merge"
            ),
            Reason::HunkFailed { line } => write!(f, "hunk at line {line} does not apply"),
            Reason::PatchDoesNotApply => write!(f, "patch does not apply"),
            Reason::DoesNotMatchIndex => write!(f, "work-tree file does not match the index"),
            Reason::DoesNotExistInIndex => write!(f, "file does not exist in the index"),
            Reason::AlreadyExistsInIndex => write!(f, "file already exists in the index"),
            Reason::AlreadyExistsInWorkTree => {
                write!(f, "file already exists in the working tree")
            }
            Reason::NoSuchFile => write!(f, "no such file"),
            Reason::CannotReadCurrent => write!(f, "cannot read the file's current content"),
            Reason::BinaryNeedsFullIndex => {
                write!(f, "binary patch cannot be applied without full blob ids")
            }
            Reason::BinaryDoesNotApply => write!(f, "binary patch does not apply"),
            Reason::TypeMismatch { found, expected } => {
                write!(f, "file has mode {found:o}, the patch expects {expected:o}")
            }
            Reason::Rejected { hunks } => {
                let list: Vec<String> = hunks.iter().map(|h| format!("#{h}")).collect();
                write!(f, "rejected hunks {}", list.join(", "))
            }
            Reason::Excluded => write!(f, "excluded by --include/--exclude"),
            Reason::Aborted => write!(f, "not written because another part of the patch failed"),
            Reason::NoPatchInInput => write!(f, "no patch in the input"),
            Reason::CorruptPatch { line } => write!(f, "corrupt patch{}", at_line(line)),
            Reason::FragmentWithoutHeader { line } => {
                write!(f, "hunk without a file header{}", at_line(line))
            }
            Reason::MissingFilename { line } => {
                write!(f, "diff header lacks a file name{}", at_line(line))
            }
            Reason::Usage { message } => write!(f, "git rejected its arguments: {message}"),
            Reason::WhitespaceErrors { lines, refused } => write!(
                f,
                "{lines} added line(s) with whitespace errors{}",
                if *refused { " (refused)" } else { "" }
            ),
            Reason::WhitespaceFixed { lines } => {
                write!(f, "{lines} line(s) applied after fixing whitespace errors")
            }
            Reason::Warning { message } | Reason::Other { message } => f.write_str(message),
        }
    }
}

/// A file the caller knows the patch touches. Passing them lets the classifier report files git
/// stayed silent about (without `-v` a clean file is never named) and map a rename's old path
/// (which some messages use) to its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileName {
    /// The path after the patch (the old path for a deletion), repository-relative.
    pub path: String,
    /// The path before, when it differs (renames and copies).
    pub old_path: Option<String>,
}

impl FileName {
    /// A file known by one path.
    pub fn new(path: impl Into<String>) -> FileName {
        FileName {
            path: path.into(),
            old_path: None,
        }
    }

    /// A file the patch renames (or copies) from `old_path` to `path`.
    pub fn renamed(old_path: impl Into<String>, path: impl Into<String>) -> FileName {
        FileName {
            path: path.into(),
            old_path: Some(old_path.into()),
        }
    }

    /// The names a patch file is known by: its display path, and its old path for a rename.
    pub fn of(file: &crate::patch::FilePatch) -> FileName {
        let path = file.display_path().to_string();
        let old_path = file.old_path.clone().filter(|old| *old != path);
        FileName { path, old_path }
    }
}

/// One file's classified result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileResult {
    /// The caller's [`FileName::path`], or the path git printed for a file the caller did not name.
    pub path: String,
    /// The path before a rename or copy, when known.
    pub old_path: Option<String>,
    /// What became of the file, decided from all of git's messages about the run.
    pub outcome: Outcome,
    /// What git said about this file, in order.
    pub reasons: Vec<Reason>,
}

impl FileResult {
    /// Whether any of its reasons is of this [`Reason::kind`].
    pub fn has(&self, kind: &str) -> bool {
        self.reasons.iter().any(|r| r.kind() == kind)
    }
}

/// Everything one `git apply` run said, sorted by file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// The caller's files first, in their order, then any other file git named.
    pub files: Vec<FileResult>,
    /// Messages about the run as a whole.
    pub run: Vec<Reason>,
    /// Whether git wrote its result (or, under `--check`, would write it): exit 0, or exit 1
    /// with conflicts or rejects only.
    pub written: bool,
}

impl Classification {
    /// The result for a path, matched on the new path first, then on a rename's old path.
    pub fn file(&self, path: &str) -> Option<&FileResult> {
        self.files.iter().find(|f| f.path == path).or_else(|| {
            self.files
                .iter()
                .find(|f| f.old_path.as_deref() == Some(path))
        })
    }

    /// The paths git left with conflict markers, in the order of [`Classification::files`].
    pub fn conflicted_paths(&self) -> Vec<&str> {
        self.files
            .iter()
            .filter(|f| f.outcome == Outcome::Conflicted)
            .map(|f| f.path.as_str())
            .collect()
    }
}

/// Per-file facts gathered while reading, before the run-wide verdict.
#[derive(Debug, Default)]
struct Claims {
    applied: bool,
    conflicted: bool,
    /// How many of the file's reasons came before git moved on to another attempt
    /// ("Falling back to direct application...") or reported the file applied: failures
    /// among them were the abandoned attempt's, not the file's.
    superseded: usize,
}

struct Reader<'a> {
    known: &'a [FileName],
    files: Vec<FileResult>,
    claims: Vec<Claims>,
    run: Vec<Reason>,
    /// The file of the last `Checking patch` (or `Applying patch … with rejects`) line.
    current: Option<usize>,
    /// Pathless messages seen before any `Checking patch` line (no `-v`): they belong to the
    /// next file a message names.
    pending: Vec<Reason>,
    /// The file the latest message named, for a pathless line that ends its attempt.
    last_named: Option<usize>,
}

impl<'a> Reader<'a> {
    fn new(known: &'a [FileName]) -> Reader<'a> {
        let files = known
            .iter()
            .map(|k| FileResult {
                path: k.path.clone(),
                old_path: k.old_path.clone(),
                outcome: Outcome::Skipped,
                reasons: Vec::new(),
            })
            .collect::<Vec<_>>();
        let claims = known.iter().map(|_| Claims::default()).collect();
        Reader {
            known,
            files,
            claims,
            run: Vec::new(),
            current: None,
            pending: Vec::new(),
            last_named: None,
        }
    }

    /// The entry for a path as git printed it (quoted or raw); created when unknown.
    fn entry(&mut self, printed: &str) -> usize {
        let path = unquote(printed);
        self.entry_for(path, None)
    }

    fn entry_for(&mut self, path: String, old_path: Option<String>) -> usize {
        let found = self.files.iter().position(|f| f.path == path).or_else(|| {
            self.files
                .iter()
                .position(|f| f.old_path.as_deref() == Some(path.as_str()))
        });
        let idx = match found {
            Some(i) => i,
            None => {
                self.files.push(FileResult {
                    path,
                    old_path,
                    outcome: Outcome::Skipped,
                    reasons: Vec::new(),
                });
                self.claims.push(Claims::default());
                self.files.len() - 1
            }
        };
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.files[idx].reasons.extend(pending);
        }
        self.last_named = Some(idx);
        idx
    }

    /// The file's attempt so far is over and another follows (or it applied): what went
    /// wrong until now no longer decides its outcome. 2.32-2.34 print two errors for a
    /// created file under `--3way` before falling back and applying it cleanly.
    fn supersede(&mut self, idx: usize) {
        self.claims[idx].superseded = self.files[idx].reasons.len();
    }

    /// Whether a failure the file's latest attempt met is among its reasons.
    fn live_failure(file: &FileResult, claims: &Claims) -> bool {
        file.reasons[claims.superseded.min(file.reasons.len())..]
            .iter()
            .any(Reason::is_failure)
    }

    /// The entry for a patch name as `Checking patch`/`Applied patch` print it: one C-quoted
    /// name, or `OLD => NEW` for a rename.
    fn entry_for_patch_name(&mut self, printed: &str) -> usize {
        // A raw name may itself contain " => "; a caller-known path wins over splitting it.
        let whole = unquote(printed);
        if self.known.iter().any(|k| k.path == whole) {
            return self.entry_for(whole, None);
        }
        match split_rename(printed) {
            Some((old, new)) => self.entry_for(new, Some(old)),
            None => self.entry_for(whole, None),
        }
    }

    fn note(&mut self, idx: usize, reason: Reason) {
        self.files[idx].reasons.push(reason);
    }

    /// A message that names no path: for the current file, else held for the next named one.
    fn note_current(&mut self, reason: Reason) {
        match self.current {
            Some(idx) => self.note(idx, reason),
            None => self.pending.push(reason),
        }
    }

    fn read(&mut self, text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
            i += 1;
            if line == "error: while searching for:" {
                // The hunk's preimage follows verbatim (any text, blank lines included) and
                // always ends before git's "patch failed" line.
                if let Some(end) = lines[i..]
                    .iter()
                    .position(|l| l.starts_with("error: patch failed: "))
                {
                    i += end;
                }
                continue;
            }
            if line.starts_with("usage: ") {
                // The option summary follows; nothing after it is a message.
                if !self.run.iter().any(|r| matches!(r, Reason::Usage { .. })) {
                    self.run.push(Reason::Usage {
                        message: line.to_string(),
                    });
                }
                break;
            }
            if is_whitespace_report(line) {
                // `FILE:N: trailing whitespace.` is followed by the offending line, verbatim.
                i += 1;
                continue;
            }
            self.line(line);
        }
    }

    fn line(&mut self, line: &str) {
        if let Some(name) = between(line, "Checking patch ", "...") {
            self.current = Some(self.entry_for_patch_name(name));
        } else if let Some(name) = between(line, "Applied patch to '", "' cleanly.") {
            let idx = self.entry_for(name.to_string(), None);
            self.claims[idx].applied = true;
            self.supersede(idx);
        } else if let Some(name) = between(line, "Applied patch to '", "' with conflicts.") {
            let idx = self.entry_for(name.to_string(), None);
            self.claims[idx].conflicted = true;
        } else if let Some(name) = between(line, "Applied patch ", " cleanly.") {
            let idx = self.entry_for_patch_name(name);
            self.claims[idx].applied = true;
            self.supersede(idx);
        } else if line == "Falling back to direct application..." {
            // From 2.32 `--3way` tries the merge first; errors before this line were the
            // merge's (for the file being checked, or without -v the last one named).
            if let Some(idx) = self.current.or(self.last_named) {
                self.supersede(idx);
            }
        } else if let Some(rest) = line.strip_prefix("Applying patch ") {
            // "Applying patch X with 1 reject..." / "with 2 rejects...".
            let name = rest.rsplit_once(" with ").map_or(rest, |(n, _)| n);
            let idx = self.entry_for_patch_name(name);
            self.current = Some(idx);
            self.note(idx, Reason::Rejected { hunks: Vec::new() });
        } else if let Some(n) = between(line, "Rejected hunk #", ".") {
            if let (Some(idx), Ok(n)) = (self.current, n.parse::<u64>()) {
                let rejected = self.files[idx]
                    .reasons
                    .iter_mut()
                    .rev()
                    .find_map(|r| match r {
                        Reason::Rejected { hunks } => Some(hunks),
                        _ => None,
                    });
                match rejected {
                    Some(hunks) => hunks.push(n),
                    None => self.note(idx, Reason::Rejected { hunks: vec![n] }),
                }
            }
        } else if let Some(name) = between(line, "Skipped patch '", "'.") {
            let idx = self.entry_for(name.to_string(), None);
            self.note(idx, Reason::Excluded);
        } else if let Some(name) = line.strip_prefix("U ") {
            let idx = self.entry_for(name.to_string(), None);
            self.claims[idx].conflicted = true;
        } else if let Some(msg) = line.strip_prefix("error: ") {
            self.error(msg);
        } else if let Some(msg) = line.strip_prefix("warning: ") {
            self.warning(msg);
        } else if let Some(msg) = line.strip_prefix("fatal: ") {
            self.note_current_or_run(Reason::Other {
                message: format!("fatal: {msg}"),
            });
        }
        // Anything else is progress ("Falling back to three-way merge...", "Performing
        // three-way merge...", "Hunk #1 succeeded at 6 (offset 3 lines).", "Context
        // reduced to ...") and says nothing about the outcome.
    }

    fn note_current_or_run(&mut self, reason: Reason) {
        match self.current {
            Some(idx) => self.note(idx, reason),
            None => self.run.push(reason),
        }
    }

    fn error(&mut self, msg: &str) {
        const PER_PATH_SUFFIXES: [(&str, Reason); 6] = [
            (": patch does not apply", Reason::PatchDoesNotApply),
            (": does not match index", Reason::DoesNotMatchIndex),
            (": does not exist in index", Reason::DoesNotExistInIndex),
            (": already exists in index", Reason::AlreadyExistsInIndex),
            (
                ": already exists in working directory",
                Reason::AlreadyExistsInWorkTree,
            ),
            (": No such file or directory", Reason::NoSuchFile),
        ];
        for (suffix, reason) in PER_PATH_SUFFIXES {
            if let Some(name) = msg.strip_suffix(suffix) {
                let idx = self.entry(name);
                self.note(idx, reason);
                return;
            }
        }
        if let Some(rest) = msg.strip_prefix("patch failed: ") {
            if let Some((name, n)) = rest.rsplit_once(':') {
                if let Ok(line) = n.parse::<u64>() {
                    let idx = self.entry_for(name.to_string(), None);
                    self.note(idx, Reason::HunkFailed { line });
                    return;
                }
            }
        }
        if msg.starts_with("repository lacks the necessary blob") {
            self.note_current(Reason::MissingBlob);
            return;
        }
        let quoted_path_messages: [(&str, &str, Reason); 4] = [
            (
                "cannot read the current contents of '",
                "'",
                Reason::CannotReadCurrent,
            ),
            (
                "cannot apply binary patch to '",
                "' without full index line",
                Reason::BinaryNeedsFullIndex,
            ),
            (
                "missing binary patch data for '",
                "'",
                Reason::BinaryDoesNotApply,
            ),
            (
                "binary patch does not apply to '",
                "'",
                Reason::BinaryDoesNotApply,
            ),
        ];
        for (prefix, suffix, reason) in quoted_path_messages {
            if let Some(name) = between(msg, prefix, suffix) {
                let idx = self.entry_for(name.to_string(), None);
                if !self.files[idx].reasons.contains(&reason) {
                    self.note(idx, reason);
                }
                return;
            }
        }
        if msg == "unrecognized input" || msg.starts_with("No valid patches in input") {
            self.run.push(Reason::NoPatchInInput);
        } else if let Some(rest) = msg.strip_prefix("corrupt patch at ") {
            self.run.push(Reason::CorruptPatch {
                line: patch_line(rest),
            });
        } else if let Some(rest) = msg.strip_prefix("patch with only garbage at ") {
            self.run.push(Reason::CorruptPatch {
                line: patch_line(rest),
            });
        } else if let Some(rest) = msg.strip_prefix("patch fragment without header at ") {
            let place = rest.split_once(": ").map_or(rest, |(p, _)| p);
            self.run.push(Reason::FragmentWithoutHeader {
                line: patch_line(place),
            });
        } else if msg.starts_with("git diff header lacks filename information") {
            self.run.push(Reason::MissingFilename {
                line: patch_line(msg),
            });
        } else if msg.starts_with("unknown option")
            || msg.starts_with("unknown switch")
            || msg.contains("cannot be used together")
        {
            self.run.push(Reason::Usage {
                message: msg.to_string(),
            });
        } else if let Some((lines, rest)) = leading_count(msg) {
            if rest.contains("adds whitespace error") || rest.contains("add whitespace error") {
                self.run.push(Reason::WhitespaceErrors {
                    lines,
                    refused: true,
                });
            } else {
                self.note_current_or_run(Reason::Other {
                    message: msg.to_string(),
                });
            }
        } else {
            self.note_current_or_run(Reason::Other {
                message: msg.to_string(),
            });
        }
    }

    fn warning(&mut self, msg: &str) {
        if let Some((name, modes)) = msg.rsplit_once(" has type ") {
            if let Some((found, expected)) = modes.split_once(", expected ") {
                if let (Ok(found), Ok(expected)) = (
                    u32::from_str_radix(found, 8),
                    u32::from_str_radix(expected, 8),
                ) {
                    let idx = self.entry_for(name.to_string(), None);
                    self.note(idx, Reason::TypeMismatch { found, expected });
                    return;
                }
            }
        }
        if let Some((lines, rest)) = leading_count(msg) {
            if rest.contains("applied after fixing whitespace errors") {
                self.run.push(Reason::WhitespaceFixed { lines });
                return;
            }
            if rest.contains("whitespace error") {
                self.run.push(Reason::WhitespaceErrors {
                    lines,
                    refused: false,
                });
                return;
            }
        }
        if msg.starts_with("squelched ") {
            // The count of whitespace errors not shown; the summary line follows.
            return;
        }
        self.note_current_or_run(Reason::Warning {
            message: msg.to_string(),
        });
    }

    fn finish(mut self, exit_code: Option<i32>) -> Classification {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            if self.files.len() == 1 {
                self.files[0].reasons.extend(pending);
            } else {
                self.run.extend(pending);
            }
        }
        let failed = self.run.iter().any(Reason::is_failure)
            || self
                .files
                .iter()
                .zip(&self.claims)
                .any(|(f, c)| Self::live_failure(f, c));
        let conflicts = self.claims.iter().any(|c| c.conflicted);
        let rejects = self.files.iter().any(|f| f.has("rejected"));
        // Git applies all or nothing (unless --reject); exit 1 without a terminal error is a
        // run that wrote conflicts or rejects. Exit 128/129 is bad input or usage.
        let written = match exit_code {
            Some(0) => true,
            Some(1) => !failed && (conflicts || rejects),
            _ => false,
        };
        for (file, claims) in self.files.iter_mut().zip(&self.claims) {
            let own_failure =
                Self::live_failure(file, claims) || file.has("rejected") || file.has("excluded");
            file.outcome = if !written {
                if !own_failure {
                    file.reasons.push(Reason::Aborted);
                }
                Outcome::Skipped
            } else if claims.conflicted {
                Outcome::Conflicted
            } else if own_failure {
                Outcome::Skipped
            } else {
                // Silence about a file in a run that wrote means it applied: without -v
                // git names no clean file.
                Outcome::Applied
            };
        }
        Classification {
            files: self.files,
            run: self.run,
            written,
        }
    }
}

/// Classify one `git apply` run (any of `-v`, `--3way`, `--check`, `-R`, `--reject`,
/// `--include/--exclude`) from its output and exit code. `known` are the files the patch
/// touches, as the caller parsed them; files git names that are not among them are added.
pub fn classify(
    stdout: &str,
    stderr: &str,
    exit_code: Option<i32>,
    known: &[FileName],
) -> Classification {
    let mut reader = Reader::new(known);
    // Every recorded version prints everything to stderr; stdout is read the same way in
    // case a future one moves progress there.
    reader.read(stderr);
    reader.read(stdout);
    reader.finish(exit_code)
}

/// `text` between `prefix` and `suffix`, when it has both.
fn between<'t>(text: &'t str, prefix: &str, suffix: &str) -> Option<&'t str> {
    text.strip_prefix(prefix)?.strip_suffix(suffix)
}

/// `N line(s) …` → (N, rest).
fn leading_count(msg: &str) -> Option<(u64, &str)> {
    let (n, rest) = msg.split_once(' ')?;
    Some((n.parse().ok()?, rest))
}

/// The patch line a parse error points at: "line 13", "(line 5)" (before 2.54) or
/// "../p.patch:13", "<stdin>:13" (from 2.54).
fn patch_line(text: &str) -> Option<u64> {
    let text = text.trim_end_matches(['.', ')']);
    if let Some(pos) = text.rfind("line ") {
        if let Ok(n) = text[pos + 5..].trim().parse() {
            return Some(n);
        }
    }
    text.rsplit_once(':')
        .and_then(|(_, n)| n.trim().parse().ok())
}

/// `FILE:N: trailing whitespace.` and its siblings (git's whitespace rule names, joined by
/// ", "), which git follows with the offending line.
fn is_whitespace_report(line: &str) -> bool {
    let Some(body) = line.strip_suffix('.') else {
        return false;
    };
    let Some((place, what)) = body.rsplit_once(": ") else {
        return false;
    };
    let Some((_, n)) = place.rsplit_once(':') else {
        return false;
    };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    const RULES: [&str; 7] = [
        "trailing whitespace",
        "space before tab in indent",
        "indent with spaces",
        "tab in indent",
        "new blank line at EOF",
        "indent with non-tab characters",
        "incomplete line",
    ];
    what.split(", ").all(|w| RULES.contains(&w))
}

/// `OLD => NEW` as `say_patch_name` prints a rename (each side C-quoted when needed).
fn split_rename(printed: &str) -> Option<(String, String)> {
    if printed.starts_with('"') {
        let end = quoted_end(printed)?;
        let rest = printed[end..].strip_prefix(" => ")?;
        return Some((unquote(&printed[..end]), unquote(rest)));
    }
    let (old, new) = printed.split_once(" => ")?;
    Some((unquote(old), unquote(new)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(f: &FileResult) -> Vec<&'static str> {
        f.reasons.iter().map(Reason::kind).collect()
    }

    #[test]
    fn quoted_paths_are_unquoted_to_utf8() {
        assert_eq!(
            unquote(r#""dir with space/\303\274n\303\257 c\303\266d\303\251.txt""#),
            "dir with space/ünï cödé.txt"
        );
        assert_eq!(
            unquote(r#""tab\there \"q\" back\\slash""#),
            "tab\there \"q\" back\\slash"
        );
        assert_eq!(unquote("plain name.txt"), "plain name.txt");
        // A raw name that merely starts with a quote is not a quoted string.
        assert_eq!(unquote(r#""half"open.txt"#), r#""half"open.txt"#);
    }

    #[test]
    fn quoted_and_raw_spellings_of_one_path_meet_in_one_entry() {
        let stderr = "Checking patch \"dir/\\303\\274.txt\"...\n\
                      Applied patch to 'dir/ü.txt' with conflicts.\n\
                      Applied patch \"dir/\\303\\274.txt\" cleanly.\n\
                      U dir/ü.txt\n";
        let c = classify("", stderr, Some(1), &[]);
        assert_eq!(c.files.len(), 1);
        assert_eq!(c.files[0].path, "dir/ü.txt");
        assert_eq!(c.files[0].outcome, Outcome::Conflicted);
        assert!(c.written);
    }

    #[test]
    fn pathless_message_belongs_to_the_last_checking_line() {
        let stderr = "Checking patch a.txt...\n\
                      Applied patch to 'a.txt' cleanly.\n\
                      Checking patch b.txt...\n\
                      error: repository lacks the necessary blob to perform 3-way merge.\n\
                      Falling back to direct application...\n\
                      Checking patch c.txt...\n\
                      Applied patch a.txt cleanly.\n\
                      Applied patch b.txt cleanly.\n\
                      Applied patch c.txt cleanly.\n";
        let c = classify("", stderr, Some(0), &[]);
        let b = c.file("b.txt").expect("b.txt is named");
        assert_eq!(kinds(b), ["missing-blob"]);
        assert_eq!(b.outcome, Outcome::Applied);
        assert!(c.file("a.txt").expect("a").reasons.is_empty());
    }

    #[test]
    fn pathless_message_without_verbose_waits_for_the_next_named_path() {
        let stderr = "Applied patch to 'a.txt' cleanly.\n\
                      error: repository lacks the necessary blob to perform 3-way merge.\n\
                      Falling back to direct application...\n\
                      error: patch failed: b.txt:2\n\
                      error: b.txt: patch does not apply\n\
                      Applied patch to 'c.txt' cleanly.\n";
        let known = [
            FileName::new("a.txt"),
            FileName::new("b.txt"),
            FileName::new("c.txt"),
        ];
        let c = classify("", stderr, Some(1), &known);
        assert_eq!(
            kinds(&c.files[1]),
            ["missing-blob", "hunk-failed", "patch-does-not-apply"]
        );
        // b failed outright, so git wrote nothing, whatever it said about a and c.
        assert!(!c.written);
        assert_eq!(c.files[0].outcome, Outcome::Skipped);
        assert_eq!(kinds(&c.files[0]), ["aborted"]);
        assert_eq!(c.files[2].outcome, Outcome::Skipped);
    }

    #[test]
    fn errors_of_an_abandoned_three_way_attempt_do_not_fail_the_file() {
        // git 2.32-2.34, --3way on a created file, without and with -v: two errors, then the
        // fallback applies it cleanly and git exits 0.
        let quiet = "error: new.txt: does not exist in index\n\
                     error: cannot read the current contents of 'new.txt'\n\
                     Falling back to direct application...\n";
        let verbose = "Checking patch a.txt...\n\
                       Applied patch to 'a.txt' cleanly.\n\
                       Checking patch new.txt...\n\
                       error: new.txt: does not exist in index\n\
                       error: cannot read the current contents of 'new.txt'\n\
                       Falling back to direct application...\n\
                       Applied patch a.txt cleanly.\n\
                       Applied patch new.txt cleanly.\n";
        for stderr in [quiet, verbose] {
            let known = [FileName::new("a.txt"), FileName::new("new.txt")];
            let c = classify("", stderr, Some(0), &known);
            assert!(c.written, "{stderr}");
            let f = c.file("new.txt").expect("named");
            assert_eq!(f.outcome, Outcome::Applied, "{stderr}");
            assert_eq!(kinds(f), ["does-not-exist-in-index", "cannot-read-current"]);
            assert_eq!(c.file("a.txt").expect("a").outcome, Outcome::Applied);
        }
        // The same errors with no fallback after them are final.
        let failed = "Checking patch new.txt...\n\
                      error: new.txt: does not exist in index\n\
                      error: cannot read the current contents of 'new.txt'\n\
                      error: new.txt: patch does not apply\n";
        let c = classify("", failed, Some(1), &[FileName::new("new.txt")]);
        assert!(!c.written);
        assert_eq!(c.files[0].outcome, Outcome::Skipped);
    }

    #[test]
    fn applied_cleanly_does_not_hide_a_conflict() {
        let stderr = "Checking patch a.txt...\n\
                      Applied patch to 'a.txt' with conflicts.\n\
                      Applied patch a.txt cleanly.\n\
                      U a.txt\n";
        let c = classify("", stderr, Some(1), &[FileName::new("a.txt")]);
        assert_eq!(c.files[0].outcome, Outcome::Conflicted);
        assert_eq!(c.conflicted_paths(), ["a.txt"]);
    }

    #[test]
    fn preimage_dump_is_not_read_as_messages() {
        // Context lines that look like git's own messages must not count.
        let stderr = "Checking patch a.txt...\n\
                      error: while searching for:\n\
                      U a.txt\n\
                      Applied patch to 'a.txt' cleanly.\n\
                      \n\
                      error: a.txt: does not match index\n\
                      \n\
                      error: patch failed: a.txt:1\n\
                      error: a.txt: patch does not apply\n";
        let c = classify("", stderr, Some(1), &[]);
        assert_eq!(kinds(&c.files[0]), ["hunk-failed", "patch-does-not-apply"]);
        assert_eq!(c.files[0].outcome, Outcome::Skipped);
    }

    #[test]
    fn silent_files_of_a_clean_run_are_applied() {
        let c = classify("", "", Some(0), &[FileName::new("a.txt")]);
        assert_eq!(c.files[0].outcome, Outcome::Applied);
        assert!(c.files[0].reasons.is_empty());
    }

    #[test]
    fn rename_is_known_by_its_new_path_and_its_old_one() {
        let known = [FileName::renamed("a.txt", "renamed.txt")];
        let c = classify(
            "",
            "error: a.txt: No such file or directory\n",
            Some(1),
            &known,
        );
        assert_eq!(c.files.len(), 1);
        assert_eq!(kinds(&c.files[0]), ["no-such-file"]);
        let c = classify(
            "",
            "Checking patch a.txt => renamed.txt...\nApplied patch a.txt => renamed.txt cleanly.\n",
            Some(0),
            &[],
        );
        assert_eq!(c.files.len(), 1);
        assert_eq!(c.files[0].path, "renamed.txt");
        assert_eq!(c.files[0].old_path.as_deref(), Some("a.txt"));
        assert_eq!(c.files[0].outcome, Outcome::Applied);
    }

    #[test]
    fn rejected_hunks_are_listed() {
        let stderr = "Checking patch a.txt...\n\
                      error: while searching for:\n\
                      x\n\
                      \n\
                      error: patch failed: a.txt:8\n\
                      Applying patch a.txt with 2 rejects...\n\
                      Hunk #1 applied cleanly.\n\
                      Rejected hunk #2.\n\
                      Rejected hunk #3.\n";
        let c = classify("", stderr, Some(1), &[]);
        assert!(c.written);
        assert_eq!(c.files[0].outcome, Outcome::Skipped);
        assert!(c.files[0]
            .reasons
            .contains(&Reason::Rejected { hunks: vec![2, 3] }));
    }

    #[test]
    fn parse_errors_give_their_patch_line_in_old_and_new_wording() {
        for (stderr, line) in [
            ("error: corrupt patch at line 13\n", 13),
            ("error: corrupt patch at ../p.patch:13\n", 13),
            ("error: corrupt patch at <stdin>:13\n", 13),
        ] {
            let c = classify("", stderr, Some(128), &[]);
            assert_eq!(
                c.run,
                [Reason::CorruptPatch { line: Some(line) }],
                "{stderr}"
            );
        }
        let c = classify(
            "",
            "error: git diff header lacks filename information when removing 1 leading pathname component (line 5)\n",
            Some(128),
            &[],
        );
        assert_eq!(c.run, [Reason::MissingFilename { line: Some(5) }]);
        let c = classify(
            "",
            "error: patch fragment without header at ../p.patch:1: @@ -1,6 +1,6 @@\n",
            Some(128),
            &[],
        );
        assert_eq!(c.run, [Reason::FragmentWithoutHeader { line: Some(1) }]);
    }

    #[test]
    fn whitespace_report_skips_the_offending_line() {
        let stderr = "../p.patch:10: trailing whitespace.\n\
                      error: x.txt: patch does not apply\n\
                      warning: 1 line adds whitespace errors.\n";
        let c = classify("", stderr, Some(0), &[FileName::new("a.txt")]);
        assert_eq!(c.files.len(), 1, "the echoed patch line is not a message");
        assert_eq!(
            c.run,
            [Reason::WhitespaceErrors {
                lines: 1,
                refused: false
            }]
        );
    }

    #[test]
    fn unknown_error_counts_as_a_failure_of_the_current_file() {
        let stderr = "Checking patch a.txt...\nerror: something new happened\n";
        let c = classify("", stderr, Some(1), &[]);
        assert_eq!(c.files[0].outcome, Outcome::Skipped);
        assert_eq!(kinds(&c.files[0]), ["other"]);
    }
}

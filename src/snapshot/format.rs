//! The text of ghost commits: a summary line for people, then `llm-apply-*` trailers that are
//! the machine-readable record. Pure (no repository), so every malformation is tested on strings.
//!
//! A snapshot commit's message ends in one paragraph of `key: value` lines, a valid git trailer
//! block (`git interpret-trailers --parse` reads it):
//!
//! ```text
//! llm-apply snapshot 7: Fix the off-by-one in the parser (2 files, +3 -1)
//!
//! <one paragraph of prose>
//!
//! llm-apply-format: 1
//! llm-apply-sequence: 7
//! llm-apply-time: 1700000000 +0100
//! llm-apply-tool-version: 0.1.0
//! llm-apply-nonce: <16 hex digits>
//! llm-apply-patch-sha256: <64 hex digits>
//! llm-apply-intent: Fix the off-by-one in the parser        (optional)
//! llm-apply-undoes: 3                                       (optional)
//! llm-apply-session: agent-run-42                           (optional)
//! llm-apply-files: 2
//! llm-apply-added: 3
//! llm-apply-removed: 1
//! llm-apply-head: <commit id> | unborn
//! llm-apply-post-commit: <commit id>
//! llm-apply-path: <before> <after> <path>                   (one per touched path)
//! llm-apply-lines: <added>,<removed> ...                    (optional, one per touched path)
//! llm-apply-worktree: <work-tree path>                      (optional)
//! llm-apply-index: <before> <after> <path>                  (optional, one per staged path)
//! ```
//!
//! `llm-apply-worktree` names the work tree the apply wrote (absolute, quoted like a path):
//! `undo` without an id takes the newest snapshot of the worktree it runs in, and refuses
//! another worktree's unless told to work there. Snapshots written before the key existed
//! have none and belong to every worktree, as they did then.
//!
//! `llm-apply-index` records, for an `--index` apply, each index entry the apply changed:
//! stage 0 before and after (`absent` when the path had none). Undo puts an entry back when
//! it still holds what the apply staged.
//!
//! `llm-apply-lines` records, for each `llm-apply-path` line in order, the lines the apply
//! added and removed at that path as its report counted them, or `-` where it could not
//! tell: undo reports the reversed counts without diffing the file. One key for all paths,
//! not one per path, because readers before it reject a key they do not know that appears
//! twice. Snapshots without it undo as before, counting by diff.
//!
//! `llm-apply-undoes` marks the snapshot taken before an undo: the sequence of the snapshot
//! that undo rolled back. Undoing such a snapshot brings the rolled-back change back.
//!
//! `<before>`/`<after>` are `absent` or `<mode>:<blob id>` with mode `100644` or `100755`.
//! A path is written as it is unless it holds a control character or a backslash, starts with
//! a double quote or starts or ends with white space; then it is double-quoted with C escapes
//! (`\"`, `\\`, `\n`, `\t`, `\r`, `\ooo` octal bytes), like git's quoted paths.
//!
//! The nonce makes every ghost commit unique: a ref update that finds the ref already at the
//! very commit it wants to write counts as success, so two identical commits (same content,
//! same second) could otherwise both "create" one snapshot number or one undo marker.
//!
//! An undo marker commit carries `llm-apply-format`, `llm-apply-undone: <sequence>`,
//! `llm-apply-time`, `llm-apply-tool-version` and `llm-apply-nonce`. Keys this version does not know are ignored,
//! so later versions can add keys; a change of meaning raises `llm-apply-format`.

use std::collections::{BTreeMap, HashSet};

use gix::date::Time;
use gix::ObjectId;

use super::digest::PatchDigest;
use crate::repo::{MODE_EXEC, MODE_FILE};
use crate::text::textdiff::LineCounts;

/// The newest metadata format this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;

/// The longest intent kept, in characters: enough for a sentence, short enough for `log`.
const MAX_INTENT_CHARS: usize = 200;
/// The part of the intent shown in the commit's summary line.
const MAX_SUMMARY_CHARS: usize = 60;

/// What a touched path held at one moment: a blob with its mode, or no file at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recorded {
    /// No file at the path (a directory may stand there; it is not the path's content).
    Absent,
    /// A blob with its mode.
    Blob {
        /// The blob's id.
        id: ObjectId,
        /// `0o100644` or `0o100755`.
        mode: u32,
    },
}

/// One touched path with its recorded state before and after the apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathRecord {
    pub path: String,
    pub before: Recorded,
    pub after: Recorded,
    /// The lines the apply added and removed here (`llm-apply-lines`); `None` when not
    /// recorded. Always `None` for index records.
    pub lines: Option<LineCounts>,
}

/// Everything a snapshot commit's message records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SnapshotRecord {
    pub sequence: u64,
    pub time: Time,
    pub tool_version: String,
    pub nonce: String,
    pub patch_sha256: PatchDigest,
    pub intent: Option<String>,
    /// The snapshot whose undo this snapshot records, for snapshots taken before an undo.
    pub undoes: Option<u64>,
    /// The session the apply was made in (`--session`), undone together by `undo --session`.
    pub session: Option<String>,
    pub files: u64,
    pub added: u64,
    pub removed: u64,
    /// The commit HEAD pointed to, `None` on an unborn branch.
    pub head: Option<ObjectId>,
    /// The commit whose tree holds the touched paths as the apply left them.
    pub post_commit: ObjectId,
    pub paths: Vec<PathRecord>,
    /// The work tree the apply wrote; `None` in snapshots older than the key.
    pub worktree: Option<String>,
    /// The index entries an `--index` apply changed (before = the entry it replaced).
    pub index: Vec<PathRecord>,
}

/// What an undo marker's message records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UndoneRecord {
    pub sequence: u64,
    pub time: Time,
    pub tool_version: String,
    pub nonce: String,
}

/// Why a ghost commit's message cannot be read as llm-apply metadata.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
pub enum MetaError {
    #[error("the message is not UTF-8")]
    NotUtf8,
    #[error("the message does not end in an llm-apply metadata block")]
    NoMetadata,
    #[error("metadata line {line:?} is not `llm-apply-<key>: <value>`")]
    BadLine { line: String },
    #[error(
        "metadata format {found} is newer than this git-llm-apply reads (up to {FORMAT_VERSION})"
    )]
    UnsupportedFormat { found: u32 },
    #[error("metadata key {key} is missing")]
    MissingKey { key: &'static str },
    #[error("metadata key {key} appears more than once")]
    DuplicateKey { key: String },
    #[error("metadata key {key} has a bad value {value:?}: {reason}")]
    BadValue {
        key: &'static str,
        value: String,
        reason: &'static str,
    },
    #[error("metadata names the path {path:?} more than once")]
    DuplicatePath { path: String },
    #[error("metadata lists no touched path")]
    NoPaths,
    #[error("expected {expected} metadata, found {found} metadata")]
    WrongKind {
        expected: &'static str,
        found: &'static str,
    },
}

const K_FORMAT: &str = "llm-apply-format";
const K_SEQUENCE: &str = "llm-apply-sequence";
const K_UNDONE: &str = "llm-apply-undone";
const K_TIME: &str = "llm-apply-time";
const K_TOOL: &str = "llm-apply-tool-version";
const K_NONCE: &str = "llm-apply-nonce";
const K_PATCH: &str = "llm-apply-patch-sha256";
const K_INTENT: &str = "llm-apply-intent";
const K_UNDOES: &str = "llm-apply-undoes";
const K_SESSION: &str = "llm-apply-session";
const K_FILES: &str = "llm-apply-files";
const K_ADDED: &str = "llm-apply-added";
const K_REMOVED: &str = "llm-apply-removed";
const K_HEAD: &str = "llm-apply-head";
const K_POST: &str = "llm-apply-post-commit";
const K_PATH: &str = "llm-apply-path";
const K_WORKTREE: &str = "llm-apply-worktree";
const K_INDEX: &str = "llm-apply-index";
const K_LINES: &str = "llm-apply-lines";

const NONCE_HEX_DIGITS: usize = 16;

/// A value no other ghost commit has: this process, this instant, this call.
pub(crate) fn new_nonce() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!(
        "{} {nanos} {} {:?}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed),
        std::thread::current().id()
    );
    PatchDigest::of(seed.as_bytes()).to_string()[..NONCE_HEX_DIGITS].to_string()
}

/// Reduce free text to one line fit for a trailer: the first non-blank line, control characters
/// blanked, trimmed and shortened. `None` when nothing is left.
pub(crate) fn one_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let cleaned: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_INTENT_CHARS)
        .collect();
    let cleaned = cleaned.trim();
    (!cleaned.is_empty()).then(|| cleaned.to_string())
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// A session name as `--session` takes it: 1 to 128 printable characters, no white space.
pub fn valid_session(text: &str) -> bool {
    !text.is_empty()
        && text.chars().count() <= 128
        && text.chars().all(|c| !c.is_whitespace() && !c.is_control())
}

pub(crate) fn render_snapshot(r: &SnapshotRecord) -> String {
    use std::fmt::Write as _;
    let summary = r
        .intent
        .as_deref()
        .map(|i| truncate_chars(i, MAX_SUMMARY_CHARS))
        .unwrap_or_else(|| "apply a patch".to_string());
    let plural = if r.files == 1 { "" } else { "s" };
    let mut m = format!(
        "llm-apply snapshot {seq}: {summary} ({files} file{plural}, +{added} -{removed})\n\n\
         Recorded by git-llm-apply before it wrote anything, so the apply can be undone\n\
         (`git llm-apply undo {seq}`). The tree is HEAD's with the touched paths as they were\n\
         in the work tree; the last parent holds them as the apply left them.\n\n",
        seq = r.sequence,
        files = r.files,
        added = r.added,
        removed = r.removed,
    );
    // Writing to a String cannot fail.
    let mut line = |key: &str, value: &dyn std::fmt::Display| {
        writeln!(m, "{key}: {value}").expect("writing to a String");
    };
    line(K_FORMAT, &FORMAT_VERSION);
    line(K_SEQUENCE, &r.sequence);
    line(K_TIME, &render_time(r.time));
    line(K_TOOL, &r.tool_version);
    line(K_NONCE, &r.nonce);
    line(K_PATCH, &r.patch_sha256);
    if let Some(intent) = &r.intent {
        line(K_INTENT, intent);
    }
    if let Some(undoes) = &r.undoes {
        line(K_UNDOES, undoes);
    }
    if let Some(session) = &r.session {
        line(K_SESSION, session);
    }
    line(K_FILES, &r.files);
    line(K_ADDED, &r.added);
    line(K_REMOVED, &r.removed);
    match r.head {
        Some(head) => line(K_HEAD, &head),
        None => line(K_HEAD, &"unborn"),
    }
    line(K_POST, &r.post_commit);
    let state_line = |p: &PathRecord| {
        format!(
            "{} {} {}",
            render_state(p.before),
            render_state(p.after),
            quote_path(&p.path)
        )
    };
    for p in &r.paths {
        line(K_PATH, &state_line(p));
    }
    if r.paths.iter().any(|p| p.lines.is_some()) {
        let counts: Vec<String> = r
            .paths
            .iter()
            .map(|p| match p.lines {
                Some(c) => format!("{},{}", c.added, c.removed),
                None => "-".to_string(),
            })
            .collect();
        line(K_LINES, &counts.join(" "));
    }
    if let Some(w) = &r.worktree {
        line(K_WORKTREE, &quote_path(w));
    }
    for p in &r.index {
        line(K_INDEX, &state_line(p));
    }
    m
}

pub(crate) fn render_undone(r: &UndoneRecord) -> String {
    format!(
        "llm-apply undone {seq}\n\n\
         Snapshot {seq} was rolled back; this marker keeps it listed as undone.\n\n\
         {K_FORMAT}: {FORMAT_VERSION}\n\
         {K_UNDONE}: {seq}\n\
         {K_TIME}: {time}\n\
         {K_TOOL}: {tool}\n\
         {K_NONCE}: {nonce}\n",
        seq = r.sequence,
        time = render_time(r.time),
        tool = r.tool_version,
        nonce = r.nonce,
    )
}

/// The trailer block: the last paragraph, every line `llm-apply-<key>: <value>`.
struct Fields<'a> {
    single: BTreeMap<&'a str, &'a str>,
    paths: Vec<&'a str>,
    index: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    fn parse(message: &'a [u8]) -> Result<Fields<'a>, MetaError> {
        let text = std::str::from_utf8(message).map_err(|_| MetaError::NotUtf8)?;
        let text = text.trim_end_matches('\n');
        let block = match text.rfind("\n\n") {
            Some(i) => &text[i + 2..],
            None => text,
        };
        if !block.starts_with("llm-apply-") {
            return Err(MetaError::NoMetadata);
        }
        let mut fields = Fields {
            single: BTreeMap::new(),
            paths: Vec::new(),
            index: Vec::new(),
        };
        for line in block.split('\n') {
            let bad = || MetaError::BadLine {
                line: line.to_string(),
            };
            let (key, value) = line.split_once(':').ok_or_else(bad)?;
            let valid_key = key.starts_with("llm-apply-")
                && key
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !valid_key {
                return Err(bad());
            }
            let value = value.strip_prefix(' ').unwrap_or(value);
            if key == K_PATH {
                fields.paths.push(value);
            } else if key == K_INDEX {
                fields.index.push(value);
            } else if fields.single.insert(key, value).is_some() {
                return Err(MetaError::DuplicateKey {
                    key: key.to_string(),
                });
            }
        }
        let version = fields.number(K_FORMAT)?;
        let version =
            u32::try_from(version).map_err(|_| MetaError::UnsupportedFormat { found: u32::MAX })?;
        if version > FORMAT_VERSION {
            return Err(MetaError::UnsupportedFormat { found: version });
        }
        if version == 0 {
            return Err(MetaError::BadValue {
                key: K_FORMAT,
                value: "0".to_string(),
                reason: "formats start at 1",
            });
        }
        Ok(fields)
    }

    fn get(&self, key: &'static str) -> Result<&'a str, MetaError> {
        self.single
            .get(key)
            .copied()
            .ok_or(MetaError::MissingKey { key })
    }

    fn number(&self, key: &'static str) -> Result<u64, MetaError> {
        let value = self.get(key)?;
        parse_decimal(value).ok_or_else(|| MetaError::BadValue {
            key,
            value: value.to_string(),
            reason: "expected a decimal number",
        })
    }

    fn sequence(&self, key: &'static str) -> Result<u64, MetaError> {
        match self.number(key)? {
            0 => Err(MetaError::BadValue {
                key,
                value: "0".to_string(),
                reason: "sequences start at 1",
            }),
            n => Ok(n),
        }
    }

    fn time(&self) -> Result<Time, MetaError> {
        let value = self.get(K_TIME)?;
        parse_time(value).ok_or_else(|| MetaError::BadValue {
            key: K_TIME,
            value: value.to_string(),
            reason: "expected `<seconds> <+|-HHMM>`",
        })
    }

    fn tool_version(&self) -> Result<String, MetaError> {
        let value = self.get(K_TOOL)?;
        if value.is_empty() || value.contains(char::is_whitespace) {
            return Err(MetaError::BadValue {
                key: K_TOOL,
                value: value.to_string(),
                reason: "expected a version without spaces",
            });
        }
        Ok(value.to_string())
    }

    fn nonce(&self) -> Result<String, MetaError> {
        let value = self.get(K_NONCE)?;
        let ok = value.len() == NONCE_HEX_DIGITS
            && value
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !ok {
            return Err(MetaError::BadValue {
                key: K_NONCE,
                value: value.to_string(),
                reason: "expected 16 lower-case hex digits",
            });
        }
        Ok(value.to_string())
    }

    fn object_id(&self, key: &'static str, value: &str) -> Result<ObjectId, MetaError> {
        parse_object_id(value).ok_or_else(|| MetaError::BadValue {
            key,
            value: value.to_string(),
            reason: "expected a full lower-case object id",
        })
    }
}

/// Plain decimal without sign, leading zeros or spaces, so each number has one spelling.
fn parse_decimal(value: &str) -> Option<u64> {
    let ok = !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_digit())
        && (value == "0" || !value.starts_with('0'));
    ok.then(|| value.parse().ok()).flatten()
}

fn parse_object_id(value: &str) -> Option<ObjectId> {
    let lower_hex = value
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !lower_hex {
        return None;
    }
    ObjectId::from_hex(value.as_bytes()).ok()
}

pub(crate) fn parse_snapshot(message: &[u8]) -> Result<SnapshotRecord, MetaError> {
    let f = Fields::parse(message)?;
    if f.single.contains_key(K_UNDONE) {
        return Err(MetaError::WrongKind {
            expected: "snapshot",
            found: "undo marker",
        });
    }
    let sequence = f.sequence(K_SEQUENCE)?;
    let time = f.time()?;
    let tool_version = f.tool_version()?;
    let nonce = f.nonce()?;
    let patch = f.get(K_PATCH)?;
    let patch_sha256 = patch.parse().map_err(|_| MetaError::BadValue {
        key: K_PATCH,
        value: patch.to_string(),
        reason: "expected 64 lower-case hex digits",
    })?;
    let intent = match f.single.get(K_INTENT) {
        None => None,
        Some(text) => match one_line(text) {
            Some(clean) if clean == *text => Some(clean),
            _ => {
                return Err(MetaError::BadValue {
                    key: K_INTENT,
                    value: text.to_string(),
                    reason: "expected one trimmed, non-empty line",
                })
            }
        },
    };
    let undoes = match f.single.get(K_UNDOES) {
        None => None,
        Some(_) => Some(f.sequence(K_UNDOES)?),
    };
    let session = match f.single.get(K_SESSION) {
        None => None,
        Some(text) if valid_session(text) => Some(text.to_string()),
        Some(text) => {
            return Err(MetaError::BadValue {
                key: K_SESSION,
                value: text.to_string(),
                reason: "expected a session name (no spaces or control characters)",
            })
        }
    };
    let head = match f.get(K_HEAD)? {
        "unborn" => None,
        value => Some(f.object_id(K_HEAD, value)?),
    };
    let post_commit = f.object_id(K_POST, f.get(K_POST)?)?;
    if f.paths.is_empty() {
        return Err(MetaError::NoPaths);
    }
    let mut seen = HashSet::new();
    let mut paths = Vec::with_capacity(f.paths.len());
    for value in &f.paths {
        let record = parse_path_line(K_PATH, value)?;
        if !seen.insert(record.path.clone()) {
            return Err(MetaError::DuplicatePath { path: record.path });
        }
        paths.push(record);
    }
    if let Some(value) = f.single.get(K_LINES) {
        let bad = || MetaError::BadValue {
            key: K_LINES,
            value: value.to_string(),
            reason: "expected one `<added>,<removed>` or `-` per touched path",
        };
        let entries: Vec<&str> = value.split(' ').collect();
        if entries.len() != paths.len() {
            return Err(bad());
        }
        for (p, entry) in paths.iter_mut().zip(entries) {
            p.lines = match entry {
                "-" => None,
                counts => {
                    let (a, r) = counts.split_once(',').ok_or_else(bad)?;
                    let number = |t| parse_decimal(t).and_then(|n| usize::try_from(n).ok());
                    Some(LineCounts::new(
                        number(a).ok_or_else(bad)?,
                        number(r).ok_or_else(bad)?,
                    ))
                }
            };
        }
    }
    let worktree = match f.single.get(K_WORKTREE) {
        None => None,
        Some(text) => Some(unquote_path(text).ok_or_else(|| MetaError::BadValue {
            key: K_WORKTREE,
            value: text.to_string(),
            reason: "expected a path",
        })?),
    };
    let mut staged = HashSet::new();
    let mut index = Vec::with_capacity(f.index.len());
    for value in &f.index {
        let record = parse_path_line(K_INDEX, value)?;
        if !staged.insert(record.path.clone()) {
            return Err(MetaError::DuplicatePath { path: record.path });
        }
        index.push(record);
    }
    Ok(SnapshotRecord {
        sequence,
        time,
        tool_version,
        nonce,
        patch_sha256,
        intent,
        undoes,
        session,
        files: f.number(K_FILES)?,
        added: f.number(K_ADDED)?,
        removed: f.number(K_REMOVED)?,
        head,
        post_commit,
        paths,
        worktree,
        index,
    })
}

pub(crate) fn parse_undone(message: &[u8]) -> Result<UndoneRecord, MetaError> {
    let f = Fields::parse(message)?;
    if !f.single.contains_key(K_UNDONE) {
        return Err(MetaError::WrongKind {
            expected: "undo marker",
            found: "snapshot",
        });
    }
    Ok(UndoneRecord {
        sequence: f.sequence(K_UNDONE)?,
        time: f.time()?,
        tool_version: f.tool_version()?,
        nonce: f.nonce()?,
    })
}

fn parse_path_line(key: &'static str, value: &str) -> Result<PathRecord, MetaError> {
    let bad = |reason| MetaError::BadValue {
        key,
        value: value.to_string(),
        reason,
    };
    let mut parts = value.splitn(3, ' ');
    let (Some(before), Some(after), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("expected `<before> <after> <path>`"));
    };
    let before = parse_state(before).ok_or_else(|| bad("bad before-state"))?;
    let after = parse_state(after).ok_or_else(|| bad("bad after-state"))?;
    let path = unquote_path(path).ok_or_else(|| bad("bad path"))?;
    Ok(PathRecord {
        path,
        before,
        after,
        lines: None,
    })
}

fn render_state(state: Recorded) -> String {
    match state {
        Recorded::Absent => "absent".to_string(),
        Recorded::Blob { id, mode } => format!("{mode:o}:{id}"),
    }
}

fn parse_state(text: &str) -> Option<Recorded> {
    if text == "absent" {
        return Some(Recorded::Absent);
    }
    let (mode, id) = text.split_once(':')?;
    let mode = match mode {
        "100644" => MODE_FILE,
        "100755" => MODE_EXEC,
        "120000" => crate::repo::MODE_LINK,
        _ => return None,
    };
    Some(Recorded::Blob {
        id: parse_object_id(id)?,
        mode,
    })
}

fn render_time(t: Time) -> String {
    let sign = if t.offset < 0 { '-' } else { '+' };
    let abs = t.offset.unsigned_abs();
    format!(
        "{} {sign}{:02}{:02}",
        t.seconds,
        abs / 3600,
        (abs % 3600) / 60
    )
}

fn parse_time(text: &str) -> Option<Time> {
    let (seconds, offset) = text.split_once(' ')?;
    let negative = seconds.starts_with('-');
    let digits = seconds.strip_prefix('-').unwrap_or(seconds);
    let magnitude = i64::try_from(parse_decimal(digits)?).ok()?;
    let seconds = if negative { -magnitude } else { magnitude };
    let (sign, hhmm) = match offset.as_bytes().first()? {
        b'+' => (1, &offset[1..]),
        b'-' => (-1, &offset[1..]),
        _ => return None,
    };
    if hhmm.len() != 4 || !hhmm.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = hhmm[..2].parse().ok()?;
    let minutes: i32 = hhmm[2..].parse().ok()?;
    if minutes >= 60 {
        return None;
    }
    Some(Time {
        seconds,
        offset: sign * (hours * 3600 + minutes * 60),
    })
}

fn needs_quoting(path: &str) -> bool {
    path.starts_with('"')
        || path.starts_with(char::is_whitespace)
        || path.ends_with(char::is_whitespace)
        || path.chars().any(|c| c == '\\' || c.is_control())
}

/// Write a path so that it survives a line-based trailer intact.
pub(crate) fn quote_path(path: &str) -> String {
    if !needs_quoting(path) {
        return path.to_string();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Read a path written by [`quote_path`]; `None` for anything it would not have written.
pub(crate) fn unquote_path(text: &str) -> Option<String> {
    let Some(inner) = text.strip_prefix('"') else {
        return (!text.is_empty() && !needs_quoting(text)).then(|| text.to_string());
    };
    let inner = inner.strip_suffix('"')?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut it = inner.bytes();
    while let Some(b) = it.next() {
        match b {
            b'"' => return None,
            b'\\' => match it.next()? {
                b'"' => bytes.push(b'"'),
                b'\\' => bytes.push(b'\\'),
                b'n' => bytes.push(b'\n'),
                b't' => bytes.push(b'\t'),
                b'r' => bytes.push(b'\r'),
                d0 @ b'0'..=b'3' => {
                    let d1 = it.next().filter(|d| (b'0'..=b'7').contains(d))?;
                    let d2 = it.next().filter(|d| (b'0'..=b'7').contains(d))?;
                    bytes.push(((d0 - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0'));
                }
                _ => return None,
            },
            b => bytes.push(b),
        }
    }
    let path = String::from_utf8(bytes).ok()?;
    (!path.is_empty()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).expect("40 hex digits")
    }

    fn record() -> SnapshotRecord {
        SnapshotRecord {
            sequence: 7,
            time: Time {
                seconds: 1_700_000_000,
                offset: -(5 * 3600 + 30 * 60),
            },
            tool_version: "0.1.0".to_string(),
            nonce: "0123456789abcdef".to_string(),
            patch_sha256: PatchDigest::of(b"the patch"),
            intent: Some("Fix the off-by-one: in the parser".to_string()),
            undoes: None,
            session: Some("agent-7".to_string()),
            files: 2,
            added: 3,
            removed: 1,
            head: Some(id(1)),
            post_commit: id(2),
            paths: vec![
                PathRecord {
                    path: "src/lib.rs".to_string(),
                    before: Recorded::Blob {
                        id: id(3),
                        mode: MODE_FILE,
                    },
                    after: Recorded::Blob {
                        id: id(4),
                        mode: MODE_EXEC,
                    },
                    lines: Some(LineCounts::new(3, 1)),
                },
                PathRecord {
                    path: "new dir/ü \"quoted\"\nline\\x\u{1}".to_string(),
                    before: Recorded::Absent,
                    after: Recorded::Blob {
                        id: id(5),
                        mode: MODE_FILE,
                    },
                    lines: None,
                },
                PathRecord {
                    path: " gone ".to_string(),
                    before: Recorded::Blob {
                        id: id(6),
                        mode: MODE_FILE,
                    },
                    after: Recorded::Absent,
                    lines: Some(LineCounts::new(0, 12)),
                },
            ],
            worktree: Some("/work/tree with space".to_string()),
            index: vec![PathRecord {
                path: "src/lib.rs".to_string(),
                before: Recorded::Blob {
                    id: id(3),
                    mode: MODE_FILE,
                },
                after: Recorded::Blob {
                    id: id(4),
                    mode: MODE_EXEC,
                },
                lines: None,
            }],
        }
    }

    #[test]
    fn line_counts_are_one_key_in_path_order_and_optional() {
        let text = render_snapshot(&record());
        assert_eq!(
            text.matches("llm-apply-lines:").count(),
            1,
            "one key: readers before it refuse an unknown key that repeats"
        );
        assert!(text.contains("\nllm-apply-lines: 3,1 - 0,12\n"));
        assert_eq!(parse_snapshot(text.as_bytes()), Ok(record()));

        // A snapshot from before the key: every path without counts.
        let old: String = text
            .lines()
            .filter(|l| !l.starts_with(K_LINES))
            .map(|l| format!("{l}\n"))
            .collect();
        let mut expected = record();
        for p in &mut expected.paths {
            p.lines = None;
        }
        assert_eq!(parse_snapshot(old.as_bytes()), Ok(expected.clone()));
        assert!(
            !render_snapshot(&expected).contains(K_LINES),
            "no counts, no key"
        );

        for bad in [
            "3,1 -",
            "3,1 - 0,12 1,1",
            "3;1 - 0,12",
            "03,1 - 0,12",
            "3,x - 0,12",
            "",
        ] {
            let text = text.replace(
                "llm-apply-lines: 3,1 - 0,12",
                &format!("llm-apply-lines: {bad}"),
            );
            assert!(
                matches!(
                    parse_snapshot(text.as_bytes()),
                    Err(MetaError::BadValue { key: K_LINES, .. })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_snapshot_without_worktree_or_index_keys_reads_as_before() {
        let mut r = record();
        r.worktree = None;
        r.index = Vec::new();
        let text = render_snapshot(&r);
        assert!(!text.contains("llm-apply-worktree"));
        assert!(!text.contains("llm-apply-index"));
        assert_eq!(parse_snapshot(text.as_bytes()), Ok(r));
        let full = render_snapshot(&record());
        assert!(full.contains("llm-apply-worktree: /work/tree with space\n"));
        assert_eq!(parse_snapshot(full.as_bytes()), Ok(record()));
    }

    fn with_line_replaced(from: &str, to: &str) -> String {
        let text = render_snapshot(&record());
        assert!(text.contains(from), "fixture must contain {from:?}");
        text.replacen(from, to, 1)
    }

    #[test]
    fn snapshot_metadata_round_trips() {
        let r = record();
        let text = render_snapshot(&r);
        assert_eq!(parse_snapshot(text.as_bytes()), Ok(r));
        assert!(text.starts_with(
            "llm-apply snapshot 7: Fix the off-by-one: in the parser (2 files, +3 -1)\n"
        ));
        assert!(text.contains("llm-apply-time: 1700000000 -0530\n"));
    }

    #[test]
    fn snapshot_without_intent_or_head_round_trips() {
        let mut r = record();
        r.intent = None;
        r.head = None;
        let text = render_snapshot(&r);
        assert!(text.contains("llm-apply-head: unborn\n"));
        assert_eq!(parse_snapshot(text.as_bytes()), Ok(r));
    }

    #[test]
    fn the_snapshot_of_an_undo_names_what_it_undoes() {
        let mut r = record();
        r.undoes = Some(3);
        let text = render_snapshot(&r);
        assert!(text.contains("llm-apply-undoes: 3\n"));
        assert_eq!(parse_snapshot(text.as_bytes()), Ok(r));
        for bad in ["0", "03", "x", ""] {
            let text = text.replace("llm-apply-undoes: 3", &format!("llm-apply-undoes: {bad}"));
            assert!(parse_snapshot(text.as_bytes()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn undone_metadata_round_trips_and_is_not_a_snapshot() {
        let r = UndoneRecord {
            sequence: 3,
            time: Time {
                seconds: 5,
                offset: 3600,
            },
            tool_version: "1.2.3".to_string(),
            nonce: new_nonce(),
        };
        let text = render_undone(&r);
        assert_eq!(parse_undone(text.as_bytes()), Ok(r));
        assert!(matches!(
            parse_snapshot(text.as_bytes()),
            Err(MetaError::WrongKind { .. })
        ));
        assert!(matches!(
            parse_undone(render_snapshot(&record()).as_bytes()),
            Err(MetaError::WrongKind { .. })
        ));
    }

    #[test]
    fn paths_survive_quoting() {
        for path in [
            "plain/path.rs",
            "with space.txt",
            "\"q",
            "a\\b",
            "tab\there",
            "é/ü",
            " x",
            "x ",
        ] {
            let quoted = quote_path(path);
            assert!(!quoted.contains('\n'));
            assert_eq!(unquote_path(&quoted).as_deref(), Some(path), "{quoted}");
        }
        assert_eq!(unquote_path("\"unterminated"), None);
        assert_eq!(unquote_path("\"bad\\q\""), None);
        assert_eq!(unquote_path("\"stray\"quote\""), None);
        assert_eq!(unquote_path("\"\\377\""), None, "not UTF-8");
        assert_eq!(unquote_path(""), None);
        assert_eq!(unquote_path("\"\""), None);
    }

    #[test]
    fn one_line_keeps_the_first_non_blank_line() {
        assert_eq!(one_line("\n  Fix it \nmore"), Some("Fix it".to_string()));
        assert_eq!(one_line(" \n\t"), None);
        assert_eq!(one_line("a\u{7}b"), Some("a b".to_string()));
        assert_eq!(one_line(&"x".repeat(500)).map(|s| s.len()), Some(200));
    }

    #[test]
    fn malformed_metadata_is_a_typed_error() {
        type Case = (String, fn(&MetaError) -> bool);
        let cases: Vec<Case> = vec![
            (String::from_utf8_lossy(b"x").into_owned(), |e| {
                *e == MetaError::NoMetadata
            }),
            ("summary\n\nprose only\n".to_string(), |e| {
                *e == MetaError::NoMetadata
            }),
            (
                with_line_replaced(
                    "llm-apply-files: 2\n",
                    "llm-apply-files: 2\nnot a trailer\n",
                ),
                |e| matches!(e, MetaError::BadLine { .. }),
            ),
            (
                with_line_replaced("llm-apply-format: 1", "llm-apply-format: 2"),
                |e| *e == MetaError::UnsupportedFormat { found: 2 },
            ),
            (
                with_line_replaced("llm-apply-format: 1", "llm-apply-format: 0"),
                |e| matches!(e, MetaError::BadValue { .. }),
            ),
            (with_line_replaced("llm-apply-sequence: 7\n", ""), |e| {
                *e == MetaError::MissingKey { key: K_SEQUENCE }
            }),
            (
                with_line_replaced("llm-apply-sequence: 7", "llm-apply-sequence: 07"),
                |e| {
                    matches!(
                        e,
                        MetaError::BadValue {
                            key: K_SEQUENCE,
                            ..
                        }
                    )
                },
            ),
            (
                with_line_replaced("llm-apply-sequence: 7", "llm-apply-sequence: 0"),
                |e| {
                    matches!(
                        e,
                        MetaError::BadValue {
                            key: K_SEQUENCE,
                            ..
                        }
                    )
                },
            ),
            (
                with_line_replaced(
                    "llm-apply-added: 3",
                    "llm-apply-added: 3\nllm-apply-added: 4",
                ),
                |e| matches!(e, MetaError::DuplicateKey { .. }),
            ),
            (with_line_replaced("-0530", "-05x0"), |e| {
                matches!(e, MetaError::BadValue { key: K_TIME, .. })
            }),
            (
                with_line_replaced("llm-apply-head: 0101", "llm-apply-head: zz01"),
                |e| matches!(e, MetaError::BadValue { key: K_HEAD, .. }),
            ),
            (
                with_line_replaced("llm-apply-post-commit: 02", "llm-apply-post-commit: 2"),
                |e| matches!(e, MetaError::BadValue { key: K_POST, .. }),
            ),
            (with_line_replaced("100644:0303", "100600:0303"), |e| {
                matches!(e, MetaError::BadValue { key: K_PATH, .. })
            }),
            (with_line_replaced(" src/lib.rs", ""), |e| {
                matches!(e, MetaError::BadValue { key: K_PATH, .. })
            }),
            (with_line_replaced("src/lib.rs", "\" gone \""), |e| {
                matches!(e, MetaError::DuplicatePath { .. })
            }),
            (
                with_line_replaced("llm-apply-patch-sha256: ", "llm-apply-patch-sha256: 00"),
                |e| matches!(e, MetaError::BadValue { key: K_PATCH, .. }),
            ),
            (
                with_line_replaced("llm-apply-tool-version: 0.1.0", "llm-apply-tool-version: "),
                |e| matches!(e, MetaError::BadValue { key: K_TOOL, .. }),
            ),
            (
                with_line_replaced("llm-apply-nonce: 0123456789abcdef", "llm-apply-nonce: 0123"),
                |e| matches!(e, MetaError::BadValue { key: K_NONCE, .. }),
            ),
            (
                with_line_replaced("llm-apply-intent: Fix", "llm-apply-intent:  Fix"),
                |e| matches!(e, MetaError::BadValue { key: K_INTENT, .. }),
            ),
            (
                with_line_replaced("llm-apply-files: 2", "Llm-apply-files: 2"),
                |e| *e == MetaError::NoMetadata || matches!(e, MetaError::BadLine { .. }),
            ),
        ];
        for (text, expected) in cases {
            let err = parse_snapshot(text.as_bytes()).expect_err(&text);
            assert!(expected(&err), "unexpected {err:?} for\n{text}");
        }
        assert_eq!(
            parse_snapshot(b"\xff\n\nllm-apply-format: 1"),
            Err(MetaError::NotUtf8)
        );
        let no_paths: String = render_snapshot(&record())
            .lines()
            .filter(|l| !l.starts_with(K_PATH))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(parse_snapshot(no_paths.as_bytes()), Err(MetaError::NoPaths));
    }

    #[test]
    fn unknown_keys_are_ignored_for_forward_compatibility() {
        let text = with_line_replaced(
            "llm-apply-files: 2",
            "llm-apply-files: 2\nllm-apply-future-key: x",
        );
        assert_eq!(parse_snapshot(text.as_bytes()), Ok(record()));
    }

    #[test]
    fn nonces_differ_between_calls() {
        let (a, b) = (new_nonce(), new_nonce());
        assert_ne!(a, b);
        assert_eq!(a.len(), NONCE_HEX_DIGITS);
    }

    #[test]
    fn time_offsets_round_trip() {
        for (seconds, offset) in [
            (0, 0),
            (-86_400, 0),
            (1_700_000_000, 3600 * 14),
            (1, -(3600 * 12 + 45 * 60)),
        ] {
            let t = Time { seconds, offset };
            assert_eq!(parse_time(&render_time(t)), Some(t));
        }
        assert_eq!(parse_time("1 +0060"), None);
        assert_eq!(parse_time("1 0100"), None);
        assert_eq!(parse_time("+1 +0100"), None);
    }
}

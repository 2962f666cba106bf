//! Structured edits as agents' edit tools send them (`{path, old_string, new_string,
//! replace_all}`, a MultiEdit list, the text-editor tool's `create` / `str_replace` /
//! `insert`, and line ranges named by the hashes `view` shows), turned into the same `Patch`
//! a SEARCH/REPLACE block with a path becomes.
//!
//! An `old_string` found exactly in the file is widened to the whole lines it lies in, and
//! the hunk carries the line it starts at, so a fragment of a line (`foo(1)` in
//! `x = foo(1) + 2`) edits that line and nothing else. One found nowhere exactly is handed to
//! the planner as a SEARCH block is, so its whitespace and Unicode ladder finds it (a tab
//! shown as spaces, a U+00A0, CRLF). An `old_string` found exactly more than once is refused
//! with every place, unless `replace_all`.

use crate::patch::kinds::{ErrorKind, Kinded, NoticeKind};
use serde_json::Value;
use sha2::Digest as _;

use super::{ParseError, PathProbe};
use crate::patch::{CreateMode, FilePatch, Format, Hunk, Line, LineKind, Notice, Patch};

/// One edit, every choice named; paths are relative to the top of the work tree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum EditOp {
    /// Replace `old` by `new` (every occurrence with `all`).
    Replace {
        /// The file, relative to the top of the work tree.
        path: String,
        /// The text to find.
        old: String,
        /// What it becomes.
        new: String,
        /// Replace every occurrence, not only a unique one.
        all: bool,
        /// How many occurrences the sender counted (Gemini CLI's `expected_replacements`):
        /// any other number is a refusal.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected: Option<usize>,
        /// The `view_token` the sender saw: the edit is refused if the file changed since.
        token: Option<String>,
    },
    /// Replace lines `start..=end` (1-based), each named by its number and the hash `view`
    /// showed for it, by `new`.
    Lines {
        /// The file, relative to the top of the work tree.
        path: String,
        /// The first line replaced.
        start: Anchor,
        /// The last line replaced.
        end: Anchor,
        /// What the lines become.
        new: String,
        /// The `view_token` the sender saw: the edit is refused if the file changed since.
        token: Option<String>,
    },
    /// Insert `text` after line `after` (0: at the top).
    Insert {
        /// The file, relative to the top of the work tree.
        path: String,
        /// The line the text goes after (0: before the first).
        after: usize,
        /// The text inserted.
        text: String,
        /// The `view_token` the sender saw: the edit is refused if the file changed since.
        token: Option<String>,
    },
    /// Create a file that does not exist yet.
    #[allow(missing_docs)] // `path` and `text`: where, and the whole file's content
    Create { path: String, text: String },
}

impl EditOp {
    /// The file the edit is for.
    pub fn path(&self) -> &str {
        match self {
            EditOp::Replace { path, .. }
            | EditOp::Lines { path, .. }
            | EditOp::Insert { path, .. }
            | EditOp::Create { path, .. } => path,
        }
    }

    /// The file the edit is for, to resolve it in place.
    pub fn path_mut(&mut self) -> &mut String {
        match self {
            EditOp::Replace { path, .. }
            | EditOp::Lines { path, .. }
            | EditOp::Insert { path, .. }
            | EditOp::Create { path, .. } => path,
        }
    }
}

/// A line as `view` names it: `12:a3f` (number and hash) or a bare number.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Anchor {
    /// The 1-based line number.
    pub line: usize,
    /// The hash `view` showed for the line, when the sender gave it.
    pub hash: Option<String>,
}

/// What a request asks for: edits to apply (all or nothing), or a file to view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Edits to apply, all or nothing.
    Edits(Vec<EditOp>),
    /// A file or directory to show.
    View(ViewRequest),
}

/// `view`: a file (or a directory's listing), optionally a line range, optionally with the
/// per-line hashes an edit can name lines by.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ViewRequest {
    /// The file or directory, relative to the top of the work tree.
    pub path: String,
    /// 1-based first line.
    pub start: Option<usize>,
    /// 1-based last line; `None` (or -1 as the text-editor tool sends it) is the end.
    pub end: Option<usize>,
    /// Show each line's hash, for edits that name lines.
    pub hashes: bool,
}

/// The hash `view` shows for a line (its text without the line ending): three hex digits,
/// enough to tell a changed line from the one that was viewed, short enough to retype.
pub fn line_hash(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    format!("{:03x}", crate::text::hash::of(line.as_bytes()) & 0xfff)
}

/// The token `view` returns for a file's bytes: an edit that passes it is refused when the
/// file changed since.
pub fn view_token(bytes: &[u8]) -> String {
    let digest = sha2::Sha256::digest(bytes);
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// A number sent as a JSON number or as a string of digits (some clients send every
/// argument as a string).
pub fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A boolean sent as a JSON boolean or as the string `true` / `false`.
pub fn boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

fn bad(message: impl Into<String>) -> ParseError {
    ParseError::Syntax {
        line: 1,
        message: message.into(),
    }
}

/// The request a JSON document makes: an edit object (`path` or `file_path`, `old_string`
/// or `old_str`, ...), a MultiEdit object (`file_path` and `edits`), `{"edits": [...]}`, a list
/// of edit objects, or a text-editor tool call (`command`: `view`, `create`, `str_replace`,
/// `insert`).
pub fn request(value: &Value) -> Result<Request, ParseError> {
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                return Err(bad("the list of edits is empty"));
            }
            let mut ops = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match request(item).map_err(|e| numbered(i, e))? {
                    Request::Edits(more) => ops.extend(more),
                    Request::View(_) => {
                        return Err(bad(format!(
                            "edit {}: a view goes alone, not in a list of edits",
                            i + 1
                        )))
                    }
                }
            }
            Ok(Request::Edits(ops))
        }
        Value::Object(map) => {
            if let Some(command) = map.get("command") {
                return command_request(command, map);
            }
            let path = path_of(map);
            if let Some(edits) = map.get("edits") {
                let Value::Array(items) = edits else {
                    return Err(bad("'edits' is not a list"));
                };
                if items.is_empty() {
                    return Err(bad("the list of edits is empty"));
                }
                let mut ops = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let Value::Object(inner) = item else {
                        return Err(numbered(i, bad("an edit is an object")));
                    };
                    // MultiEdit: the path is given once, beside the list.
                    let mut inner = inner.clone();
                    if path_of(&inner).is_none() {
                        if let Some(p) = &path {
                            inner.insert("path".into(), Value::String(p.clone()));
                        }
                    }
                    if let Some(t) = map.get("view_token") {
                        inner.entry("view_token").or_insert(t.clone());
                    }
                    ops.push(edit_object(&inner).map_err(|e| numbered(i, e))?);
                }
                return Ok(Request::Edits(ops));
            }
            Ok(Request::Edits(vec![edit_object(map)?]))
        }
        _ => Err(bad("an edit is a JSON object or a list of them")),
    }
}

fn numbered(i: usize, e: ParseError) -> ParseError {
    match e {
        ParseError::Syntax { message, .. } => bad(format!("edit {}: {message}", i + 1)),
        other => other,
    }
}

type Map = serde_json::Map<String, Value>;

fn path_of(map: &Map) -> Option<String> {
    ["path", "file_path", "filePath"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

fn text_of(map: &Map, keys: &[&str]) -> Result<Option<String>, ParseError> {
    for k in keys {
        match map.get(*k) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => return Ok(Some(s.clone())),
            Some(_) => return Err(bad(format!("'{k}' is not a string"))),
        }
    }
    Ok(None)
}

fn required_path(map: &Map) -> Result<String, ParseError> {
    match path_of(map) {
        Some(p) if !p.is_empty() => Ok(p),
        _ => Err(bad("no 'path' (or 'file_path') given")),
    }
}

fn flag(map: &Map, key: &str) -> Result<bool, ParseError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(v) => boolean(v).ok_or_else(|| bad(format!("'{key}' is not true or false"))),
    }
}

fn token_of(map: &Map) -> Result<Option<String>, ParseError> {
    text_of(map, &["view_token"])
}

fn anchor(v: &Value, key: &str) -> Result<Anchor, ParseError> {
    let wrong = || {
        bad(format!(
            "'{key}' names a line as view shows it: its number and hash, e.g. \"12:a3f\""
        ))
    };
    match v {
        Value::Number(n) => Ok(Anchor {
            line: n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(wrong)?,
            hash: None,
        }),
        Value::String(s) => {
            let (num, hash) = match s.trim().split_once(':') {
                Some((n, h)) => (n, Some(h.trim().to_ascii_lowercase())),
                None => (s.trim(), None),
            };
            let line = super::line_number(num.trim()).ok_or_else(wrong)?;
            Ok(Anchor { line, hash })
        }
        _ => Err(wrong()),
    }
}

/// One edit object: `old_string`/`new_string` (also `old_str`/`new_str`), or `start`/`end`
/// line anchors with `new_string`.
fn edit_object(map: &Map) -> Result<EditOp, ParseError> {
    let path = required_path(map)?;
    let token = token_of(map)?;
    let new = text_of(map, &["new_string", "new_str", "newString"])?;
    if let Some(start) = map.get("start").filter(|v| !v.is_null()) {
        let start = anchor(start, "start")?;
        let end = match map.get("end").filter(|v| !v.is_null()) {
            Some(e) => anchor(e, "end")?,
            None => start.clone(),
        };
        let Some(new) = new else {
            return Err(bad("no 'new_string' for the lines to replace"));
        };
        if text_of(map, &["old_string", "old_str", "oldString"])?.is_some() {
            return Err(bad(
                "give either 'old_string' or the 'start'/'end' lines, not both",
            ));
        }
        return Ok(EditOp::Lines {
            path,
            start,
            end,
            new,
            token,
        });
    }
    let Some(old) = text_of(map, &["old_string", "old_str", "oldString"])? else {
        return Err(bad(
            "no 'old_string' given (or 'start'/'end' lines as view shows them)",
        ));
    };
    let expected = match map.get("expected_replacements") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            number(v)
                .filter(|n| *n >= 1)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad("'expected_replacements' is not a count of 1 or more"))?,
        ),
    };
    Ok(EditOp::Replace {
        path,
        old,
        new: new.unwrap_or_default(),
        all: flag(map, "replace_all")? || flag(map, "replaceAll")?,
        expected,
        token,
    })
}

/// A text-editor tool call (Anthropic's `str_replace_based_edit_tool`, OpenHands' and
/// SWE-agent's `str_replace_editor`).
fn command_request(command: &Value, map: &Map) -> Result<Request, ParseError> {
    let Some(command) = command.as_str() else {
        return Err(bad("'command' is not a string"));
    };
    match command {
        "view" => {
            let path = required_path(map)?;
            let (mut start, mut end) = (None, None);
            match map.get("view_range") {
                None | Some(Value::Null) => {}
                Some(range) => {
                    let parsed: Option<Vec<i64>> = match range {
                        Value::Array(items) => items.iter().map(number).collect(),
                        // "[3, 9]" sent as a string.
                        Value::String(s) => serde_json::from_str::<Vec<Value>>(s)
                            .ok()
                            .and_then(|v| v.iter().map(number).collect()),
                        _ => None,
                    };
                    match parsed.as_deref() {
                        Some([a, b]) if *a >= 1 && (*b == -1 || *b >= *a) => {
                            start = Some(*a as usize);
                            end = (*b != -1).then_some(*b as usize);
                        }
                        _ => {
                            return Err(bad(
                                "'view_range' is [first, last] (1-based; last -1 for the end of the file)",
                            ))
                        }
                    }
                }
            }
            Ok(Request::View(ViewRequest {
                path,
                start,
                end,
                hashes: flag(map, "hashes")?,
            }))
        }
        "create" => {
            let path = required_path(map)?;
            let Some(text) = text_of(map, &["file_text", "content"])? else {
                return Err(bad("create needs 'file_text'"));
            };
            Ok(Request::Edits(vec![EditOp::Create { path, text }]))
        }
        "str_replace" => Ok(Request::Edits(vec![edit_object(map)?])),
        "insert" => {
            let path = required_path(map)?;
            let after = map
                .get("insert_line")
                .and_then(number)
                .filter(|n| *n >= 0)
                .ok_or_else(|| bad("insert needs 'insert_line', a line number (0: the top)"))?;
            let Some(text) = text_of(map, &["new_str", "insert_text", "new_string"])? else {
                return Err(bad("insert needs 'new_str' (or 'insert_text')"));
            };
            Ok(Request::Edits(vec![EditOp::Insert {
                path,
                after: after as usize,
                text,
                token: token_of(map)?,
            }]))
        }
        "undo_edit" => Err(bad(
            "undo_edit is not offered: every edit is recorded, and the undo tool (or `git llm-apply undo`) takes it back by its id",
        )),
        other => Err(bad(format!(
            "unknown command '{other}': the commands are view, create, str_replace and insert"
        ))),
    }
}

/// A file's text as the edits see it: without a byte-order mark, CRLF read as LF (the
/// planner keeps the file's own endings when it writes).
struct Text {
    text: String,
    bytes: Vec<u8>,
}

fn read_text(probe: &dyn PathProbe, path: &str) -> Option<Text> {
    let bytes = probe.content(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Some(Text {
        text: text.replace("\r\n", "\n"),
        bytes,
    })
}

fn lf(s: &str) -> String {
    s.replace("\r\n", "\n")
}

/// `text` cut into lines without their `\n` (a final newline ends the last line).
fn lines_of(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        v.pop();
    }
    v
}

/// The 1-based line that byte `at` of `text` lies on.
fn line_at(text: &str, at: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count() + 1
}

/// A structured edit that cannot be made as sent: refused (exit status 1), nothing written.
/// `which` is how messages name the edit (`edit 2: ` when there are several, else empty).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{which}{path}: {why}")]
pub struct EditRefused {
    /// `edit N: ` when the request has several edits, else empty.
    pub which: String,
    /// The file the edit is for.
    pub path: String,
    /// What stops it.
    pub why: EditRefusal,
}

/// What stops a structured edit; each says its report kind.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditRefusal {
    #[error(
        "the file changed since it was viewed (its view_token is no longer {token}); view it \
         again and resend the edit"
    )]
    StaleToken { token: String },
    #[error("the file already exists; create makes new files only (edit it with str_replace)")]
    CreateExists,
    #[error("an empty old_string creates a file, and this one exists; give the text to replace")]
    EmptyOldExists,
    #[error(
        "the lines this edit changes are not UTF-8 text, which edits cannot name exactly; \
         nothing was written (convert the file to UTF-8 to edit them)"
    )]
    NotUtf8,
    /// `lines`: where the occurrences are, when there are any.
    #[error(
        "old_string occurs {found} times{}, not the {expected} that expected_replacements \
         says; nothing was written",
        lines.as_ref().map(|l| format!(" (at lines {l})")).unwrap_or_default()
    )]
    CountMismatch {
        found: usize,
        lines: Option<String>,
        expected: usize,
    },
    #[error(
        "old_string occurs {count} times (at lines {lines}); add lines around it so it occurs \
         once, or set replace_all to replace every one"
    )]
    NotUnique { count: usize, lines: String },
    #[error("no such file to edit")]
    NoFileToEdit,
    #[error("there is no line {line} (the file has {len}); view it again")]
    NoSuchLine { line: usize, len: usize },
    #[error(
        "line {line} is not the one viewed (its hash is now {now}, not {viewed}); view it \
         again and resend the edit"
    )]
    LineChanged {
        line: usize,
        now: String,
        viewed: String,
    },
    #[error("no such file to insert into")]
    NoFileToInsert,
    #[error("edits to a file made in the same request: put its whole text in the create")]
    EditsAfterCreate,
    #[error(
        "in a list of edits to one file, each old_string must be found exactly in the text the \
         edits before it leave, and this one is not (it may need a looser match, or have been \
         made already); nothing was written: send it in a call of its own, where the looser \
         passes can place it"
    )]
    NotExactInList,
}

impl Kinded for EditRefusal {
    fn kind(&self) -> ErrorKind {
        match self {
            EditRefusal::StaleToken { .. }
            | EditRefusal::NoSuchLine { .. }
            | EditRefusal::LineChanged { .. } => ErrorKind::ChangedSinceView,
            EditRefusal::CreateExists
            | EditRefusal::EmptyOldExists
            | EditRefusal::EditsAfterCreate => ErrorKind::Exists,
            EditRefusal::NotUtf8 => ErrorKind::Encoding,
            EditRefusal::CountMismatch { .. } | EditRefusal::NotUnique { .. } => {
                ErrorKind::Ambiguous
            }
            EditRefusal::NoFileToEdit | EditRefusal::NoFileToInsert => ErrorKind::Missing,
            EditRefusal::NotExactInList => ErrorKind::Ambiguous,
        }
    }
}

impl Kinded for EditRefused {
    fn kind(&self) -> ErrorKind {
        self.why.kind()
    }
}

/// The edit at `at` refused for `why`.
fn refused(at: &Target, why: EditRefusal) -> ParseError {
    ParseError::Refused(EditRefused {
        which: at.which.clone(),
        path: at.path.clone(),
        why,
    })
}

/// The edits as one patch: each file's edits become its hunks, in order. Edits to one file
/// apply in order, each to the text the ones before it leave: while each is found exactly,
/// that text is known here, and each edit's hunks are made against it (the file patch is
/// then located in turn, `FilePatch::in_turn`). An edit found nowhere exactly goes to the
/// planner's passes when it is its file's only edit; in a list, what those passes make of it
/// is not known here, so the list is refused.
pub fn to_patch(ops: &[EditOp], probe: &dyn PathProbe) -> Result<Patch, ParseError> {
    let mut files: Vec<FilePatch> = Vec::new();
    let mut notices = Vec::new();
    let mut turns: std::collections::HashMap<String, Turn> = std::collections::HashMap::new();
    let mut edits_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for op in ops {
        *edits_of.entry(op.path()).or_default() += 1;
    }
    for (n, op) in ops.iter().enumerate() {
        let path = op.path().to_string();
        let which = if ops.len() > 1 {
            format!("edit {}: ", n + 1)
        } else {
            String::new()
        };
        let turn = turns.entry(path.clone()).or_insert_with(|| Turn {
            current: read_text(probe, &path),
        });
        let at = Target {
            current: turn.current.take(),
            which,
            path,
        };
        check_view_token(op, &at)?;
        let in_turn = edits_of.get(at.path.as_str()).is_some_and(|&k| k > 1);
        let fp = file_patch_for(&mut files, &at.path);
        fp.in_turn = in_turn;
        let before = fp.hunks.len();
        let made = match op {
            EditOp::Create { text, .. } => {
                add_create(&at, fp, probe, text)?;
                Made::Created
            }
            EditOp::Replace {
                old,
                new,
                all,
                expected,
                ..
            } => add_replace(&at, fp, &mut notices, old, new, *all, *expected)?,
            EditOp::Lines {
                start, end, new, ..
            } => add_lines(&at, fp, start, end, new)?,
            EditOp::Insert { after, text, .. } => add_insert(&at, fp, *after, text)?,
        };
        // What a looser pass makes of an edit only the plan knows, so no edit after it could
        // be made against the text it leaves; and text an earlier edit of the list wrote is
        // no sign that this one was sent before.
        if in_turn && matches!(made, Made::Loose) {
            return Err(refused(&at, EditRefusal::NotExactInList));
        }
        if in_turn {
            count_in_turn(&mut fp.hunks[before..]);
        }
        turn.current = at.current;
        if let (Made::Text(text), Some(cur)) = (made, turn.current.as_mut()) {
            cur.text = text;
        }
    }
    refuse_edits_to_created(&files)?;
    Ok(Patch {
        format: Format::SearchReplace,
        files,
        notices,
    })
}

/// What the edits so far in a request leave of one file: its text (the file's own bytes
/// kept, for the `view_token` and the encoding).
struct Turn {
    current: Option<Text>,
}

/// What an edit makes of its file's text: the text after it, known exactly; a change only
/// the plan knows (a loose match, a resent edit, a missing file); or a new file.
enum Made {
    Text(String),
    Loose,
    Created,
}

/// The numbers of one edit's hunks, made against one text, as they count in turn: each
/// moved by the lines the hunks before it add or remove.
fn count_in_turn(hunks: &mut [Hunk]) {
    let mut shift: i64 = 0;
    for h in hunks {
        h.old_start = h.old_start.map(|n| (n as i64 + shift).max(0) as usize);
        h.new_start = h.old_start;
        shift += h.new_len() as i64 - h.old_len() as i64;
    }
}

/// What one edit's checks and messages need: how messages name it (`edit 2: ` when there are
/// several), its file, and that file's text now (`None`: it does not exist).
struct Target {
    which: String,
    path: String,
    current: Option<Text>,
}

/// An edit that carries a `view_token` is refused unless the file still has it.
fn check_view_token(op: &EditOp, at: &Target) -> Result<(), ParseError> {
    let token = match op {
        EditOp::Replace { token, .. }
        | EditOp::Lines { token, .. }
        | EditOp::Insert { token, .. } => token.as_deref(),
        EditOp::Create { .. } => None,
    };
    if let Some(t) = token {
        let now = at.current.as_ref().map(|c| view_token(&c.bytes));
        if now.as_deref() != Some(t.trim()) {
            return Err(refused(
                at,
                EditRefusal::StaleToken {
                    token: t.to_string(),
                },
            ));
        }
    }
    Ok(())
}

/// The file patch that gathers `path`'s edits, begun with its first one.
fn file_patch_for<'f>(files: &'f mut Vec<FilePatch>, path: &str) -> &'f mut FilePatch {
    let idx = match files
        .iter()
        .position(|f| f.new_path.as_deref() == Some(path))
    {
        Some(i) => i,
        None => {
            files.push(FilePatch {
                old_path: Some(path.to_string()),
                new_path: Some(path.to_string()),
                ..FilePatch::default()
            });
            files.len() - 1
        }
    };
    &mut files[idx]
}

/// `create`: the file's whole text, refused when the file exists or has edits already.
fn add_create(
    at: &Target,
    fp: &mut FilePatch,
    probe: &dyn PathProbe,
    text: &str,
) -> Result<(), ParseError> {
    if probe.exists(&at.path) || !fp.hunks.is_empty() || fp.full_content.is_some() {
        return Err(refused(at, EditRefusal::CreateExists));
    }
    fp.old_path = None;
    fp.full_content = Some(lf(text));
    fp.create_mode = CreateMode::MustNotExist;
    Ok(())
}

/// `str_replace`: an empty `old` creates the file; in a missing file the planner looks for
/// it; otherwise its occurrences become hunks.
fn add_replace(
    at: &Target,
    fp: &mut FilePatch,
    notices: &mut Vec<Notice>,
    old: &str,
    new: &str,
    all: bool,
    expected: Option<usize>,
) -> Result<Made, ParseError> {
    let Target {
        which,
        path,
        current,
    } = at;
    let (old, new) = (lf(old), lf(new));
    if old == new {
        return Err(bad(format!(
            "{which}{path}: old_string and new_string are the same: nothing to change"
        )));
    }
    if old.is_empty() {
        if current.is_some() || !fp.hunks.is_empty() || fp.full_content.is_some() {
            return Err(refused(at, EditRefusal::EmptyOldExists));
        }
        fp.old_path = None;
        fp.full_content = Some(new);
        return Ok(Made::Loose);
    }
    let Some(cur) = current else {
        // Left to the planner, which says the file is missing and names the
        // nearest path.
        fp.hunks.push(search_block(&old, &new));
        return Ok(Made::Loose);
    };
    let before = fp.hunks.len();
    let made = replace_occurrences(at, cur, fp, notices, &old, &new, all, expected)?;
    // A line that is not UTF-8 reads with U+FFFD in it: a hunk holding one would
    // not match the file's bytes, so the edit is refused as what it is.
    let lossy = |h: &Hunk| h.lines.iter().any(|l| l.text.contains('\u{fffd}'));
    if std::str::from_utf8(&cur.bytes).is_err()
        && !old.contains('\u{fffd}')
        && fp.hunks[before..].iter().any(lossy)
    {
        return Err(refused(at, EditRefusal::NotUtf8));
    }
    Ok(made)
}

/// The hunks for `old`'s occurrences in the file `cur`: one, every one (with `all`), or a
/// resent edit's; refused when their count is not the one asked for.
#[allow(clippy::too_many_arguments)] // the edit's own fields, each used once
fn replace_occurrences(
    at: &Target,
    cur: &Text,
    fp: &mut FilePatch,
    notices: &mut Vec<Notice>,
    old: &str,
    new: &str,
    all: bool,
    expected: Option<usize>,
) -> Result<Made, ParseError> {
    let path = &at.path;
    let found: Vec<usize> = cur.text.match_indices(old).map(|(i, _)| i).collect();
    let done: Vec<usize> = if found.is_empty() && !new.is_empty() {
        cur.text
            .match_indices(new)
            .map(|(i, _)| i)
            .take(2)
            .collect()
    } else {
        Vec::new()
    };
    // A count the sender gave must be the count found (none found exactly, a
    // single one may still be found loosely).
    if let Some(n) = expected {
        if found.len() != n && !(found.is_empty() && n == 1) {
            return Err(refused(
                at,
                EditRefusal::CountMismatch {
                    found: found.len(),
                    lines: (!found.is_empty()).then(|| line_numbers(&cur.text, &found)),
                    expected: n,
                },
            ));
        }
    }
    let all = all || expected.is_some_and(|n| n > 1);
    // Each occurrence is a known place, not a guess, unless the file reads at every one of
    // them as the edit already made there: then the edit may be a resent one, and the
    // planner's rules for added lines beside their twin decide (refused where that reading
    // and a second copy are both possible). One occurrence among several that only happens
    // to sit beside its replacement's extra lines does not make the edit a resent one.
    let known = !found.iter().all(|&i| made_around(&cur.text, i, old, new));
    let placed = |group: &[usize]| Hunk {
        known_place: known,
        ..widened(&cur.text, group, old.len(), new)
    };
    match found.len() {
        // Not there, but its replacement is, once, and tells: the edit as it would
        // read had it been made, so the planner finds it already applied (a resent
        // edit).
        0 if done.len() == 1 && looks_made(&cur.text, done[0], new) => {
            fp.hunks
                .push(widened(&cur.text, &done, new.len(), old).reversed());
            Ok(Made::Loose)
        }
        0 => {
            fp.hunks.push(search_block(old, new));
            Ok(Made::Loose)
        }
        1 => {
            fp.hunks.push(placed(&found));
            Ok(Made::Text(cur.text.replacen(old, new, 1)))
        }
        k if all => {
            for group in groups(&cur.text, &found, old.len()) {
                fp.hunks.push(placed(&group));
            }
            notices.push(Notice::for_path(
                NoticeKind::ReplacedAll,
                path,
                format!("replace_all: {k} occurrences replaced"),
            ));
            Ok(Made::Text(cur.text.replace(old, new)))
        }
        k => Err(refused(
            at,
            EditRefusal::NotUnique {
                count: k,
                lines: line_numbers(&cur.text, &found),
            },
        )),
    }
}

/// Whether `old`, found at byte `i` of `text`, lies where it would in `new` had the edit
/// been made there: `new` holds `old` at some offset `k`, and `text` holds `new` from
/// `i - k` (`a` → `a\nb`, at a place the file reads `a\nb` already).
fn made_around(text: &str, i: usize, old: &str, new: &str) -> bool {
    let offsets = 0..=new.len().saturating_sub(old.len());
    new.len() >= old.len()
        && offsets
            .filter(|&k| new.get(k..).is_some_and(|n| n.starts_with(old)))
            .any(|k| i >= k && text.get(i - k..).is_some_and(|t| t.starts_with(new)))
}

/// Whether `new`, found once at byte `i` of `text` where `old` is not, says the edit was
/// made already. A replacement that covers whole lines of the file where it stands, or says
/// enough to be found by chance rarely (six characters or more besides blanks), is evidence
/// of a resent edit; a short fragment of a line (`x` in `let x = 2;`) is found by chance too
/// often to say the edit was made.
fn looks_made(text: &str, i: usize, new: &str) -> bool {
    let telling = new.chars().filter(|c| !c.is_whitespace()).count() >= 6;
    let whole_lines = || {
        let t = text.as_bytes();
        let starts = i == 0 || t[i - 1] == b'\n';
        let end = i + new.len();
        let ends = end == t.len()
            || t[end] == b'\n'
            || (t[end] == b'\r' && t.get(end + 1) == Some(&b'\n'))
            || new.ends_with('\n');
        starts && ends
    };
    telling || whole_lines()
}

/// The lines byte offsets `at` of `text` lie on, for a message: `3, 17`.
fn line_numbers(text: &str, at: &[usize]) -> String {
    at.iter()
        .map(|&i| line_at(text, i).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Line-anchored replace: lines `start..=end` become `new`, refused when an anchor's line is
/// gone or its hash differs from the one viewed.
fn add_lines(
    at: &Target,
    fp: &mut FilePatch,
    start: &Anchor,
    end: &Anchor,
    new: &str,
) -> Result<Made, ParseError> {
    let Target { which, current, .. } = at;
    let Some(cur) = current else {
        return Err(refused(at, EditRefusal::NoFileToEdit));
    };
    let lines = lines_of(&cur.text);
    for a in [start, end] {
        let Some(line) = a.line.checked_sub(1).and_then(|i| lines.get(i)) else {
            return Err(refused(
                at,
                EditRefusal::NoSuchLine {
                    line: a.line,
                    len: lines.len(),
                },
            ));
        };
        if let Some(h) = &a.hash {
            let now = line_hash(line);
            if *h != now {
                return Err(refused(
                    at,
                    EditRefusal::LineChanged {
                        line: a.line,
                        now,
                        viewed: h.clone(),
                    },
                ));
            }
        }
    }
    if end.line < start.line {
        return Err(bad(format!(
            "{which}'end' (line {}) comes before 'start' (line {})",
            end.line, start.line
        )));
    }
    let old: Vec<&str> = lines[start.line - 1..end.line].to_vec();
    let new = lf(new);
    let new_lines = lines_of(&new);
    let mut hunk = hunk_of(&old, &new_lines, start.line);
    hunk.at_eof = end.line == lines.len();
    hunk.old_no_newline = hunk.at_eof && !cur.text.ends_with('\n');
    // The file's last line keeps its missing newline, unless the new text's last line is
    // empty: without one, that line would be no line at all.
    hunk.new_no_newline = hunk.old_no_newline && new_lines.last().is_some_and(|l| !l.is_empty());
    let made = Made::Text(spliced(&cur.text, &hunk));
    fp.hunks.push(hunk);
    Ok(made)
}

/// `insert`: `text` after line `after` (0: at the top), refused past the file's end.
fn add_insert(
    at: &Target,
    fp: &mut FilePatch,
    after: usize,
    text: &str,
) -> Result<Made, ParseError> {
    let Target {
        which,
        path,
        current,
    } = at;
    let Some(cur) = current else {
        return Err(refused(at, EditRefusal::NoFileToInsert));
    };
    let lines = lines_of(&cur.text);
    if after > lines.len() {
        return Err(bad(format!(
            "{which}{path}: insert_line {after} is past the end (the file has {} lines)",
            lines.len()
        )));
    }
    let text = lf(text);
    let added = lines_of(&text);
    // The line before (or, at the top, after) the insertion is the context that
    // places it; its number says which of several such lines it is.
    let mut hunk = Hunk::default();
    if after == 0 {
        hunk.lines = added.iter().map(|t| Line::new(LineKind::Add, *t)).collect();
        if let Some(first) = lines.first() {
            hunk.lines.push(Line::new(LineKind::Context, *first));
        }
        hunk.at_bof = true;
        hunk.old_start = Some(1);
        hunk.new_start = Some(1);
    } else {
        hunk.lines
            .push(Line::new(LineKind::Context, lines[after - 1]));
        hunk.lines
            .extend(added.iter().map(|t| Line::new(LineKind::Add, *t)));
        hunk.old_start = Some(after);
        hunk.new_start = Some(after);
        if after == lines.len() && !cur.text.ends_with('\n') {
            hunk.at_eof = true;
            hunk.old_no_newline = true;
        }
    }
    let made = Made::Text(spliced(&cur.text, &hunk));
    fp.hunks.push(hunk);
    Ok(made)
}

/// A file made by `create` (or an empty old_string) takes no other edit.
fn refuse_edits_to_created(files: &[FilePatch]) -> Result<(), ParseError> {
    if let Some(f) = files
        .iter()
        .find(|f| f.full_content.is_some() && !f.hunks.is_empty())
    {
        return Err(ParseError::Refused(EditRefused {
            which: String::new(),
            path: f.display_path().to_string(),
            why: EditRefusal::EditsAfterCreate,
        }));
    }
    Ok(())
}

/// An `old_string` not found exactly: a SEARCH/REPLACE block, for the planner's ladder.
/// Lines both sides share at either end are context, kept as the file has them, so the
/// report counts only what changed.
fn search_block(old: &str, new: &str) -> Hunk {
    let mut hunk = hunk_of(&lines_of(old), &lines_of(new), 0);
    hunk.old_start = None;
    hunk.new_start = None;
    hunk.reindent = true;
    hunk
}

/// Occurrences whose widened lines overlap or touch go in one hunk.
fn groups(text: &str, at: &[usize], len: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut last_end = 0usize;
    for &s in at {
        let (ls, _) = span(text, s, s + len);
        match out.last_mut() {
            Some(g) if ls <= last_end => g.push(s),
            _ => out.push(vec![s]),
        }
        last_end = span(text, s, s + len).1;
    }
    out
}

/// The whole lines `text[s..e]` lies in, as a byte range ending after the last `\n`.
fn span(text: &str, s: usize, e: usize) -> (usize, usize) {
    let ls = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let le = if e > s && text.as_bytes()[e - 1] == b'\n' {
        e
    } else {
        text[e..].find('\n').map_or(text.len(), |i| e + i + 1)
    };
    (ls, le)
}

/// One hunk for the occurrences `at` (all within one run of lines): those lines as they
/// are, and as they are with each occurrence replaced, at the line they start on.
fn widened(text: &str, at: &[usize], len: usize, new: &str) -> Hunk {
    let first = at[0];
    let last = *at.last().expect("a group is never empty");
    let (ls, mut le) = span(text, first, last + len);
    let replaced = |le: usize| {
        let mut out = String::new();
        let mut from = ls;
        for &s in at {
            out.push_str(&text[from..s]);
            out.push_str(new);
            from = s + len;
        }
        out.push_str(&text[from..le]);
        out
    };
    let mut after = replaced(le);
    // A replacement that drops the line's newline joins it to the next line: that line is
    // part of the change too.
    while !after.is_empty() && !after.ends_with('\n') && le < text.len() {
        le = text[le..].find('\n').map_or(text.len(), |i| le + i + 1);
        after = replaced(le);
    }
    let before = &text[ls..le];
    let start = line_at(text, ls);
    let mut hunk = hunk_of(&lines_of(before), &lines_of(&after), start);
    hunk.at_eof = le == text.len();
    if hunk.at_eof && !text.ends_with('\n') {
        hunk.old_no_newline = true;
        hunk.new_no_newline = !after.is_empty() && !after.ends_with('\n');
    }
    if hunk.at_eof && !after.is_empty() && !after.ends_with('\n') {
        hunk.new_no_newline = true;
    }
    hunk
}

/// A hunk from old to new lines at 1-based line `start`: lines both share at either end are
/// context, so the report counts only what changed.
fn hunk_of(old: &[&str], new: &[&str], start: usize) -> Hunk {
    let (head, tail) = crate::patch::shared_ends(old, new);
    let mut lines: Vec<Line> = Vec::new();
    lines.extend(old[..head].iter().map(|t| Line::new(LineKind::Context, *t)));
    lines.extend(
        old[head..old.len() - tail]
            .iter()
            .map(|t| Line::new(LineKind::Remove, *t)),
    );
    lines.extend(
        new[head..new.len() - tail]
            .iter()
            .map(|t| Line::new(LineKind::Add, *t)),
    );
    lines.extend(
        old[old.len() - tail..]
            .iter()
            .map(|t| Line::new(LineKind::Context, *t)),
    );
    Hunk {
        lines,
        old_start: Some(start),
        new_start: Some(start),
        ..Hunk::default()
    }
}

/// `text` with `hunk` made exactly at its number: the text an edit's own hunk leaves, as
/// the planner makes it there. A hunk reaching the end of the text ends it with a newline
/// unless it says otherwise.
fn spliced(text: &str, hunk: &Hunk) -> String {
    let lines = lines_of(text);
    let old_len = hunk.old_len();
    let start = match hunk.old_start {
        Some(s) if old_len > 0 => s - 1,
        _ => 0,
    };
    let end = (start + old_len).min(lines.len());
    let mut out: Vec<&str> = lines[..start].to_vec();
    out.extend(hunk.new_lines().map(|l| l.text.as_str()));
    let new_last = hunk.new_len() > 0;
    out.extend_from_slice(&lines[end..]);
    // The last line unchanged by the hunk keeps the text's own ending.
    let last_kept = hunk
        .lines
        .last()
        .is_some_and(|l| l.kind == LineKind::Context);
    let newline = if end < lines.len() || last_kept {
        text.ends_with('\n')
    } else if new_last {
        !hunk.new_no_newline
    } else {
        true
    };
    let mut joined = out.join("\n");
    if newline && !out.is_empty() {
        joined.push('\n');
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MemFiles;

    fn files(list: &[(&str, &str)]) -> MemFiles {
        list.iter()
            .fold(MemFiles::default(), |m, (p, c)| m.with(p, c))
    }

    fn replace(path: &str, old: &str, new: &str, all: bool) -> EditOp {
        EditOp::Replace {
            path: path.into(),
            old: old.into(),
            new: new.into(),
            all,
            expected: None,
            token: None,
        }
    }

    #[test]
    fn a_fragment_of_a_line_edits_that_whole_line_at_its_number() {
        let m = files(&[("a.py", "x = 1\ny = foo(1) + 2\nz = 3\n")]);
        let p = to_patch(&[replace("a.py", "foo(1)", "foo(2)", false)], &m).unwrap();
        let h = &p.files[0].hunks[0];
        assert_eq!(h.old_start, Some(2));
        assert_eq!(
            h.lines,
            vec![
                Line::new(LineKind::Remove, "y = foo(1) + 2"),
                Line::new(LineKind::Add, "y = foo(2) + 2")
            ]
        );
    }

    #[test]
    fn two_exact_occurrences_are_refused_with_both_lines() {
        let m = files(&[("a.py", "f()\ng()\nf()\n")]);
        let e = to_patch(&[replace("a.py", "f()", "h()", false)], &m).unwrap_err();
        let ParseError::Refused(refused) = e else {
            panic!("{e:?}")
        };
        assert_eq!(
            refused.why,
            EditRefusal::NotUnique {
                count: 2,
                lines: "1, 3".into()
            }
        );
        assert_eq!(refused.kind(), ErrorKind::Ambiguous);
        assert_eq!(
            refused.to_string(),
            "a.py: old_string occurs 2 times (at lines 1, 3); add lines around it so it occurs \
             once, or set replace_all to replace every one"
        );
    }

    #[test]
    fn replace_all_makes_one_hunk_per_run_of_lines() {
        let m = files(&[("a.py", "f() f()\ng()\nf()\n")]);
        let p = to_patch(&[replace("a.py", "f()", "h()", true)], &m).unwrap();
        let hunks = &p.files[0].hunks;
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].lines[1], Line::new(LineKind::Add, "h() h()"));
        assert_eq!(hunks[1].old_start, Some(3));
    }

    #[test]
    fn a_replacement_that_drops_a_newline_takes_in_the_next_line() {
        let m = files(&[("a", "a\nb\nc\n")]);
        let p = to_patch(&[replace("a", "a\n", "x", false)], &m).unwrap();
        let h = &p.files[0].hunks[0];
        assert_eq!(
            h.lines,
            vec![
                Line::new(LineKind::Remove, "a"),
                Line::new(LineKind::Remove, "b"),
                Line::new(LineKind::Add, "xb"),
            ]
        );
    }

    #[test]
    fn line_anchors_with_a_stale_hash_are_refused() {
        let m = files(&[("a", "one\ntwo\n")]);
        let op = EditOp::Lines {
            path: "a".into(),
            start: Anchor {
                line: 2,
                // Never a hash `view` shows: those are hex digits.
                hash: Some("zzz".into()),
            },
            end: Anchor {
                line: 2,
                hash: None,
            },
            new: "TWO\n".into(),
            token: None,
        };
        let e = to_patch(&[op], &m).unwrap_err();
        let ParseError::Refused(refused) = e else {
            panic!("{e:?}")
        };
        assert!(
            matches!(refused.why, EditRefusal::LineChanged { line: 2, .. }),
            "{refused:?}"
        );
        assert_eq!(refused.kind(), ErrorKind::ChangedSinceView);
    }

    #[test]
    fn requests_in_every_shape_read_the_same() {
        let want = Request::Edits(vec![replace("a", "x", "y", true)]);
        for text in [
            r#"{"path":"a","old_string":"x","new_string":"y","replace_all":true}"#,
            r#"{"file_path":"a","old_string":"x","new_string":"y","replace_all":"true"}"#,
            r#"{"file_path":"a","edits":[{"old_string":"x","new_string":"y","replace_all":true}]}"#,
            r#"[{"path":"a","old_str":"x","new_str":"y","replace_all":true}]"#,
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(request(&v).unwrap(), want, "{text}");
        }
        let v: Value =
            serde_json::from_str(r#"{"command":"view","path":"a","view_range":["2","-1"]}"#)
                .unwrap();
        assert_eq!(
            request(&v).unwrap(),
            Request::View(ViewRequest {
                path: "a".into(),
                start: Some(2),
                end: None,
                hashes: false
            })
        );
    }
}

//! `view`: a file's lines with their numbers (optionally each line's hash, which `edit` takes
//! as an anchor), or a directory's entries. Read-only: it takes no lock and writes nothing.

use crate::report::kinds::{ErrorKind, Kinded};
use std::path::{Path, PathBuf};

use super::session;
use crate::parse::edit::{line_hash, view_token, ViewRequest};
use crate::report::view::ViewReport;
use crate::report::Report;

/// Lines one view shows at most: a longer range is cut, and the note says where to go on.
pub const MAX_LINES: usize = 2000;
/// Bytes of lines one view shows at most (about 12k tokens): the lines past it are left for
/// the next view, as those past [`MAX_LINES`] are.
pub const MAX_BYTES: usize = 48 * 1024;
/// Characters of one line shown at most.
pub const MAX_LINE_CHARS: usize = 2000;

/// `view` in `dir` (default: the current directory).
pub struct ViewOptions {
    /// What to show.
    pub request: ViewRequest,
    /// Run as if started here; `None` is the current directory.
    pub dir: Option<PathBuf>,
    /// The git config as the caller read it there, with the repository opened to read it
    /// (a server keeps both between calls); `None` opens the repository here.
    pub config: Option<crate::git::config::Pending>,
}

/// Why a view shows nothing: a refusal of the request (each field is the path as given or
/// made relative to the top).
#[allow(missing_docs)] // each variant's #[error] message says what it is
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("{0}: outside the work tree")]
    Outside(String),
    #[error("{0}: no such file or directory")]
    Missing(String),
    #[error("{rel}: {source}")]
    Read {
        rel: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: a binary file; view shows text")]
    Binary(String),
}

impl Kinded for ViewError {
    fn kind(&self) -> ErrorKind {
        match self {
            ViewError::Outside(_) => ErrorKind::Path,
            ViewError::Missing(_) => ErrorKind::Missing,
            ViewError::Read { .. } => ErrorKind::Io,
            ViewError::Binary(_) => ErrorKind::Binary,
        }
    }
}

impl ViewError {
    /// Its report: every view error is a refusal of the request.
    fn report(self) -> Box<Report> {
        let mut r = session::failed(&self);
        r.status = crate::report::RunStatus::Refused;
        r
    }
}

/// Show a file with line numbers (or a directory's entries), bounded; a bad request is a
/// refusal report.
pub fn run(options: ViewOptions) -> Result<ViewReport, Box<Report>> {
    let ViewOptions {
        request,
        dir,
        config,
    } = options;
    let cwd = session::start_dir(dir)?;
    // The top of the work tree: from the repository the config reader opened, when it did.
    let root = match session::repo_of(config.as_ref(), &cwd) {
        Ok(Some(r)) => r.work_dir,
        _ => cwd.clone(),
    };
    let rel = relative(&request.path, &root)
        .ok_or_else(|| ViewError::Outside(request.path.clone()).report())?;
    let full = root.join(&rel);
    let inside = root.canonicalize().ok().and_then(|r| {
        full.canonicalize()
            .ok()
            .map(|f| f.starts_with(&r) && !f.components().any(|c| c.as_os_str() == ".git"))
    });
    match inside {
        None => return Err(ViewError::Missing(rel).report()),
        Some(false) => return Err(ViewError::Outside(rel).report()),
        Some(true) => {}
    }
    if full.is_dir() {
        return Ok(directory(&full, &rel));
    }
    let bytes = match std::fs::read(&full) {
        Ok(b) => b,
        Err(source) => return Err(ViewError::Read { rel, source }.report()),
    };
    if crate::text::bytes::looks_binary([&bytes[..]]) {
        return Err(ViewError::Binary(rel).report());
    }
    Ok(file(&rel, &bytes, &request))
}

/// A path as given (absolute, or relative to the top), relative to the top; `None` when it
/// climbs out.
fn relative(path: &str, root: &Path) -> Option<String> {
    let p = Path::new(path);
    let rel = if p.is_absolute() {
        let real = root.canonicalize().ok()?;
        let resolved = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        resolved
            .strip_prefix(&real)
            .or_else(|_| p.strip_prefix(root))
            .ok()?
            .to_path_buf()
    } else {
        p.to_path_buf()
    };
    if rel
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return None;
    }
    let s = rel.to_str()?.replace('\\', "/");
    Some(if s.is_empty() { ".".into() } else { s })
}

fn file(rel: &str, bytes: &[u8], request: &ViewRequest) -> ViewReport {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    let total = lines.len();
    let first = request.start.unwrap_or(1).max(1);
    let asked_last = request.end.unwrap_or(total).min(total);
    let mut last = asked_last.min(first.saturating_add(MAX_LINES - 1));
    let mut content = String::new();
    let mut long = false;
    if first <= last {
        for (i, line) in lines[first - 1..last].iter().enumerate() {
            // Long lines make few lines many bytes: a view stops at a size a model's context
            // takes in, and says where to go on.
            if content.len() >= MAX_BYTES {
                last = first + i - 1;
                break;
            }
            let line = line.strip_suffix('\r').unwrap_or(line);
            let shown = match line.char_indices().nth(MAX_LINE_CHARS) {
                Some((cut, _)) => {
                    long = true;
                    &line[..cut]
                }
                None => line,
            };
            let n = first + i;
            if request.hashes {
                content.push_str(&format!("{n}:{}|{shown}\n", line_hash(line)));
            } else {
                content.push_str(&format!("{n:>6}\t{shown}\n"));
            }
        }
    }
    let mut notes = Vec::new();
    if first > total && total > 0 {
        notes.push(format!(
            "the file has {total} lines; nothing from line {first} on"
        ));
    } else if total == 0 {
        notes.push("the file is empty".to_string());
    }
    if last < asked_last {
        notes.push(format!(
            "lines {first}-{last} of {total} shown; view from line {} for more",
            last + 1
        ));
    }
    if long {
        notes.push(format!(
            "lines longer than {MAX_LINE_CHARS} characters are cut"
        ));
    }
    ViewReport {
        path: rel.to_string(),
        kind: "file".into(),
        first_line: if first <= last { first } else { 0 },
        last_line: if first <= last { last } else { 0 },
        total_lines: total,
        view_token: Some(view_token(bytes)),
        content,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

/// A directory's entries two levels deep, as the text-editor tool lists them: hidden ones and
/// `.git` left out.
fn directory(full: &Path, rel: &str) -> ViewReport {
    let mut entries = Vec::new();
    let more = list(full, "", 1, &mut entries);
    let mut content = entries.join("\n");
    if !content.is_empty() {
        content.push('\n');
    }
    ViewReport {
        path: rel.to_string(),
        kind: "directory".into(),
        first_line: 0,
        last_line: 0,
        total_lines: entries.len(),
        view_token: None,
        content,
        note: more.then(|| format!("the first {MAX_ENTRIES} entries are shown")),
    }
}

const MAX_ENTRIES: usize = 1000;

/// Adds `dir`'s entries (and its subdirectories' down to depth 2); true when some were left
/// out.
fn list(dir: &Path, prefix: &str, depth: usize, entries: &mut Vec<String>) -> bool {
    let mut names: Vec<(String, bool)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            (!name.starts_with('.')).then(|| (name, e.path().is_dir()))
        })
        .collect();
    names.sort();
    for (name, is_dir) in names {
        if entries.len() >= MAX_ENTRIES {
            return true;
        }
        let shown = format!("{prefix}{name}{}", if is_dir { "/" } else { "" });
        entries.push(shown.clone());
        if is_dir && depth < 2 && list(&dir.join(&name), &shown, depth + 1, entries) {
            return true;
        }
    }
    false
}

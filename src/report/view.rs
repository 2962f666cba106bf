//! What `view` shows, as data: a file's lines with their numbers (and hashes), or a
//! directory's listing; rendered as text by [`ViewReport::text`] and as JSON by serde.

use schemars::JsonSchema;
use serde::Serialize;

/// One `view`: the lines shown, and what an edit needs to name them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ViewReport {
    /// The path as given, relative to the top of the work tree.
    pub path: String,
    /// `file` or `directory`.
    pub kind: String,
    /// The first line shown (1-based; 0 for an empty file or a directory).
    pub first_line: usize,
    /// The last line shown.
    pub last_line: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Pass it to `edit` as `view_token`: the edit is then refused if the file changed since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view_token: Option<String>,
    /// The lines (or entries) as shown: `N\ttext`, or `N:hash|text` with hashes.
    pub content: String,
    /// What was left out and how to see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ViewReport {
    /// The text a model reads: the content, then the note.
    pub fn text(&self) -> String {
        let mut out = self.content.clone();
        if let Some(n) = &self.note {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("({n})\n"));
        }
        out
    }
}

//! The tool-call envelope cline's `replace_in_file` and Roo Code's `apply_diff` put around
//! their blocks: `<replace_in_file>` / `<apply_diff>` and `<diff>` tags (read like fences)
//! and the file in `<path>…</path>` (read as the block's path line).

/// The tool-call tags around blocks: `<replace_in_file>`, `<apply_diff>`, `<diff>` and
/// their closing tags. `Some(true)` for a closing tag.
pub(super) fn wrapper_tag(trimmed: &str) -> Option<bool> {
    const TAGS: [&str; 3] = ["replace_in_file", "apply_diff", "diff"];
    let inner = trimmed.strip_prefix('<')?.strip_suffix('>')?;
    let (closing, name) = match inner.strip_prefix('/') {
        Some(n) => (true, n),
        None => (false, inner),
    };
    TAGS.contains(&name).then_some(closing)
}

/// `<path>src/a.ts</path>`: the file a tool call edits.
pub(super) fn path_tag(trimmed: &str) -> Option<&str> {
    let p = trimmed
        .strip_prefix("<path>")?
        .strip_suffix("</path>")?
        .trim();
    (!p.is_empty()).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_tags_are_the_wrapper_and_the_path() {
        assert_eq!(wrapper_tag("<diff>"), Some(false));
        assert_eq!(wrapper_tag("</replace_in_file>"), Some(true));
        assert_eq!(wrapper_tag("<div>"), None);
        assert_eq!(path_tag("<path>src/a.ts</path>"), Some("src/a.ts"));
        assert_eq!(path_tag("<path></path>"), None);
    }
}

//! The colours of the human report, as git colours a diff: file headers bold, hunk headers
//! cyan, added lines green, removed lines red, everything else dim. Whether to colour at
//! all is decided by the CLI (flag, `NO_COLOR`, git's config, terminal).

/// A role a piece of the report plays; each has one colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `diff --git`, `---`, `+++`, mode and rename lines.
    FileHeader,
    /// `@@ -a,b +c,d @@`
    HunkHeader,
    Added,
    Removed,
    /// Context lines and other secondary text.
    Dim,
    /// A file that applied (its status letter).
    Good,
    /// A refusal, a conflict, an error.
    Bad,
    /// A warning or a note that needs a look.
    Warn,
    /// The total line.
    Strong,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::FileHeader | Style::Strong => "\x1b[1m",
            Style::HunkHeader => "\x1b[36m",
            Style::Added | Style::Good => "\x1b[32m",
            Style::Removed | Style::Bad => "\x1b[31m",
            Style::Dim => "\x1b[2m",
            Style::Warn => "\x1b[33m",
        }
    }
}

const RESET: &str = "\x1b[m";

/// Paints text in a style, or leaves it alone when colour is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pub enabled: bool,
}

impl Palette {
    pub const PLAIN: Palette = Palette { enabled: false };
    pub const COLOR: Palette = Palette { enabled: true };

    pub fn paint(&self, style: Style, text: &str) -> String {
        if !self.enabled || text.is_empty() {
            return text.to_string();
        }
        format!("{}{text}{RESET}", style.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_leaves_text_alone_and_colour_wraps_it() {
        assert_eq!(Palette::PLAIN.paint(Style::Added, "+x"), "+x");
        assert_eq!(Palette::COLOR.paint(Style::Added, "+x"), "\x1b[32m+x\x1b[m");
        assert_eq!(Palette::COLOR.paint(Style::Removed, ""), "");
    }
}

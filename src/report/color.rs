//! The colours of the human report, the way `git diff` colours a diff: each piece has a slot
//! (`color.diff.<slot>` for the diff, `color.llm-apply.<slot>` for our own lines), each slot
//! git's default unless configured, in git's colour syntax. Whether to colour at all is
//! decided by the CLI (flag, `NO_COLOR`, git's config, terminal).

/// A role a piece of the report plays; each has one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `diff --git`, `---`, `+++`, mode and rename lines (`color.diff.meta`).
    FileHeader,
    /// `@@ -a,b +c,d @@` (`color.diff.frag`).
    HunkHeader,
    /// The text after a hunk header (`color.diff.func`).
    Func,
    /// `color.diff.new`
    Added,
    /// `color.diff.old`
    Removed,
    /// Unchanged lines of the diff (`color.diff.context`, formerly `color.diff.plain`).
    Context,
    /// Trailing whitespace an added line brings (`color.diff.whitespace`).
    Whitespace,
    /// Line numbers and other secondary text (`color.llm-apply.secondary`).
    Dim,
    /// A file that applied: its status letter (`color.llm-apply.applied`).
    Good,
    /// A refusal, a conflict, an error (`color.llm-apply.refused`).
    Bad,
    /// A warning or a note that needs a look (`color.llm-apply.warning`).
    Warn,
    /// The total line (`color.llm-apply.summary`).
    Strong,
}

/// Each slot: its style, its config key, git's default for it, and that default's escape
/// sequence ([`parse`] of the default, written out so that a report's colours cost no parsing
/// unless the config sets a slot; a test checks each against [`parse`]).
pub const SLOTS: [(Style, &str, &str, &str); 12] = [
    (Style::FileHeader, "color.diff.meta", "bold", "\x1b[1m"),
    (Style::HunkHeader, "color.diff.frag", "cyan", "\x1b[36m"),
    (Style::Func, "color.diff.func", "normal", ""),
    (Style::Added, "color.diff.new", "green", "\x1b[32m"),
    (Style::Removed, "color.diff.old", "red", "\x1b[31m"),
    (Style::Context, "color.diff.context", "normal", ""),
    (
        Style::Whitespace,
        "color.diff.whitespace",
        "normal red",
        "\x1b[41m",
    ),
    (Style::Dim, "color.llm-apply.secondary", "dim", "\x1b[2m"),
    (Style::Good, "color.llm-apply.applied", "green", "\x1b[32m"),
    (Style::Bad, "color.llm-apply.refused", "red", "\x1b[31m"),
    (Style::Warn, "color.llm-apply.warning", "yellow", "\x1b[33m"),
    (Style::Strong, "color.llm-apply.summary", "bold", "\x1b[1m"),
];

fn slot(style: Style) -> usize {
    SLOTS
        .iter()
        .position(|(s, _, _, _)| *s == style)
        .expect("every style has a slot")
}

const RESET: &str = "\x1b[m";

/// The escape sequence of every slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colors {
    codes: [std::borrow::Cow<'static, str>; SLOTS.len()],
}

impl Default for Colors {
    /// git's defaults.
    fn default() -> Colors {
        Colors {
            codes: SLOTS.map(|(_, _, _, code)| std::borrow::Cow::Borrowed(code)),
        }
    }
}

/// A `color.*` value git would not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "git config {key} is '{value}', not a colour (e.g. 'bold red', 'blue reverse', 208, #ff8700)"
)]
pub struct BadColor {
    /// The config key, as the user spelt it.
    pub key: String,
    /// The value git would not read.
    pub value: String,
}

impl crate::patch::kinds::Kinded for BadColor {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Config
    }
}

impl Colors {
    /// git's defaults with the configured slots replaced: `entries` are `(key, value)` pairs
    /// as `git config` lists them (keys in any case; the last one wins). Keys of other slots
    /// are ignored.
    pub fn from_config(entries: &[(String, String)]) -> Result<Colors, BadColor> {
        let mut c = Colors::default();
        for (key, value) in entries {
            let key_lc = key.to_ascii_lowercase();
            // `plain` is what git called `context` before 2.8.
            let key_lc = if key_lc == "color.diff.plain" {
                "color.diff.context".to_string()
            } else {
                key_lc
            };
            let Some(i) = SLOTS.iter().position(|(_, k, _, _)| *k == key_lc) else {
                continue;
            };
            c.codes[i] = parse(value)
                .ok_or_else(|| BadColor {
                    key: key.clone(),
                    value: value.clone(),
                })?
                .into();
        }
        Ok(c)
    }

    fn code(&self, style: Style) -> &str {
        &self.codes[slot(style)]
    }
}

/// Paints text in a style, or leaves it alone when colour is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette<'c> {
    colors: Option<&'c Colors>,
}

static DEFAULT: std::sync::LazyLock<Colors> = std::sync::LazyLock::new(Colors::default);

impl<'c> Palette<'c> {
    /// No colour: text passes through unchanged.
    pub const PLAIN: Palette<'static> = Palette { colors: None };

    /// git's default colours.
    pub fn color() -> Palette<'static> {
        Palette {
            colors: Some(&DEFAULT),
        }
    }

    /// The configured colours, or none when colour is off.
    pub fn with(colors: Option<&'c Colors>) -> Palette<'c> {
        Palette { colors }
    }

    /// Whether colour is on.
    pub fn enabled(&self) -> bool {
        self.colors.is_some()
    }

    /// The text wrapped in the style's escape codes; empty text and unset slots stay bare, so
    /// no stray reset codes reach a pipe.
    pub fn paint(&self, style: Style, text: &str) -> String {
        match self.colors.map(|c| c.code(style)) {
            Some(code) if !code.is_empty() && !text.is_empty() => {
                format!("{code}{text}{RESET}")
            }
            _ => text.to_string(),
        }
    }
}

/// A colour in git's syntax (`git help config`, "color"): up to two colours (foreground,
/// then background) — `normal`, `default`, the eight names, `bright` ones, 0-255, `#rrggbb`
/// — and attributes (`bold`, `dim`, `italic`, `ul`, `blink`, `reverse`, `strike`, each also
/// with `no`/`no-` before it, and `reset`), in any order, lower case as git wants them.
/// `None` when git would refuse it.
/// Normal everything is the empty string: no escape at all.
pub fn parse(value: &str) -> Option<String> {
    let mut reset = false;
    // (attribute, its code): git writes them in attribute order, whatever order was typed.
    let mut attrs: Vec<(u8, u8)> = Vec::new();
    let mut colors: Vec<Option<String>> = Vec::new();
    for w in value.split_ascii_whitespace() {
        if w == "reset" {
            reset = true;
            continue;
        }
        if let Some(a) = attribute(w) {
            attrs.push(a);
            continue;
        }
        if colors.len() == 2 {
            return None;
        }
        colors.push(Some(color(w)?).filter(|c| !c.is_empty()));
    }
    attrs.sort_unstable();
    let mut codes: Vec<u8> = attrs.into_iter().map(|(_, code)| code).collect();
    codes.dedup();
    let mut parts: Vec<String> = Vec::new();
    if reset {
        parts.push(String::new());
    }
    parts.extend(codes.iter().map(u8::to_string));
    for (i, c) in colors.iter().enumerate() {
        if let Some(c) = c {
            // A background is the foreground's code moved by ten (40s, 100s, 48;…).
            parts.push(if i == 0 { c.clone() } else { background(c) });
        }
    }
    if parts.is_empty() {
        return Some(String::new());
    }
    Some(format!("\x1b[{}m", parts.join(";")))
}

/// An attribute word: the attribute (its "on" code) and the code it writes.
fn attribute(w: &str) -> Option<(u8, u8)> {
    let (off, name) = match w.strip_prefix("no-").or_else(|| w.strip_prefix("no")) {
        Some(rest) => (true, rest),
        None => (false, w),
    };
    let on = match name {
        "bold" => 1,
        "dim" => 2,
        "italic" => 3,
        "ul" => 4,
        "blink" => 5,
        "reverse" => 7,
        "strike" => 9,
        _ => return None,
    };
    let code = match (off, on) {
        (false, n) => n,
        // git turns bold and dim off together, with 22.
        (true, 1 | 2) => 22,
        (true, n) => 20 + n,
    };
    Some((on, code))
}

/// A foreground colour's code; empty for `normal` (leave it as it is).
fn color(w: &str) -> Option<String> {
    const NAMES: [&str; 8] = [
        "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    ];
    if w == "normal" {
        return Some(String::new());
    }
    if w == "default" {
        return Some("39".into());
    }
    if let Some(i) = NAMES.iter().position(|n| *n == w) {
        return Some((30 + i).to_string());
    }
    if let Some(i) = w
        .strip_prefix("bright")
        .and_then(|b| NAMES.iter().position(|n| *n == b))
    {
        return Some((90 + i).to_string());
    }
    if let Some(hex) = w.strip_prefix('#') {
        if hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits");
            return Some(format!("38;2;{};{};{}", byte(0), byte(2), byte(4)));
        }
        return None;
    }
    match w.parse::<i32>().ok()? {
        -1 => Some(String::new()),
        n @ 0..=7 => Some((30 + n).to_string()),
        n @ 8..=15 => Some((90 + n - 8).to_string()),
        n @ 16..=255 => Some(format!("38;5;{n}")),
        _ => None,
    }
}

fn background(fg: &str) -> String {
    match fg.strip_prefix("38;") {
        Some(rest) => format!("48;{rest}"),
        None => {
            let n: u16 = fg.parse().expect("a plain colour code");
            (n + 10).to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_leaves_text_alone_and_colour_wraps_it() {
        assert_eq!(Palette::PLAIN.paint(Style::Added, "+x"), "+x");
        assert_eq!(
            Palette::color().paint(Style::Added, "+x"),
            "\x1b[32m+x\x1b[m"
        );
        assert_eq!(Palette::color().paint(Style::Removed, ""), "");
        // Context is not dimmed unless configured, as in git diff.
        assert_eq!(Palette::color().paint(Style::Context, " x"), " x");
    }

    #[test]
    fn gits_colour_syntax_reads_as_git_writes_it() {
        for (value, code) in [
            ("normal", ""),
            ("", ""),
            ("red", "\x1b[31m"),
            ("bold red", "\x1b[1;31m"),
            ("red bold", "\x1b[1;31m"),
            ("blue reverse", "\x1b[7;34m"),
            ("ul dim", "\x1b[2;4m"),
            ("green black", "\x1b[32;40m"),
            ("normal red", "\x1b[41m"),
            ("brightred", "\x1b[91m"),
            ("default", "\x1b[39m"),
            ("208", "\x1b[38;5;208m"),
            ("3", "\x1b[33m"),
            ("12", "\x1b[94m"),
            ("#ff8700", "\x1b[38;2;255;135;0m"),
            ("white #000000", "\x1b[37;48;2;0;0;0m"),
            ("nobold", "\x1b[22m"),
            ("no-ul italic", "\x1b[3;24m"),
            ("reset green", "\x1b[;32m"),
            ("#FF8700", "\x1b[38;2;255;135;0m"),
        ] {
            assert_eq!(parse(value).as_deref(), Some(code), "{value:?}");
        }
        for bad in [
            "purple",
            "256",
            "#ff87",
            "red green blue",
            "-2",
            "boldish",
            "BOLD Blue",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn each_default_escape_is_what_its_default_parses_to() {
        for (style, key, default, code) in SLOTS {
            assert_eq!(parse(default).as_deref(), Some(code), "{key}");
            assert_eq!(Colors::default().code(style), code, "{key}");
        }
    }

    #[test]
    fn configured_slots_replace_the_defaults_and_a_bad_one_names_key_and_value() {
        let e = |k: &str, v: &str| (k.to_string(), v.to_string());
        let c = Colors::from_config(&[
            e("color.diff.new", "blue"),
            e("color.diff.plain", "dim"),
            e("color.llm-apply.summary", "ul"),
            e("color.diff.commit", "nonsense-but-not-ours"),
        ])
        .expect("valid");
        let p = Palette::with(Some(&c));
        assert_eq!(p.paint(Style::Added, "+x"), "\x1b[34m+x\x1b[m");
        assert_eq!(p.paint(Style::Context, " x"), "\x1b[2m x\x1b[m");
        assert_eq!(p.paint(Style::Strong, "t"), "\x1b[4mt\x1b[m");
        assert_eq!(p.paint(Style::Removed, "-x"), "\x1b[31m-x\x1b[m");
        let err = Colors::from_config(&[e("color.diff.old", "purple")]).expect_err("bad");
        assert_eq!(
            err.to_string(),
            "git config color.diff.old is 'purple', not a colour (e.g. 'bold red', 'blue reverse', 208, #ff8700)"
        );
    }
}

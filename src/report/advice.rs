//! Whose words a report's advice is in: the command line's (`git llm-apply undo 11`) or an
//! MCP client's (`call undo with id: 11`).
//!
//! Only the report's own prose is reworded: its errors, problems, warnings, notices, advice
//! and snapshot line. What it quotes is shown as it is: the diff of what was written, the
//! lines a diagnostic quotes from the file or the patch, a hook's output, a file that `view`
//! shows. A file holding `rm --force` is shown holding `rm --force`.
//!
//! A piece of prose may quote too (a warning names a hunk's `@@` anchor, a notice lists
//! paths), so the rules match the advice's own phrases (`git llm-apply undo 11`, `--partial
//! keeps what applies`), never a bare option: quoted text is reworded only where it holds
//! one of those phrases itself.

use std::borrow::Cow;

/// Whose words the advice is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Advice {
    /// The command line's: `git llm-apply undo 11`, `--partial`.
    #[default]
    Cli,
    /// An MCP client's: `call undo with id: 11`, `partial: true`.
    ToolCalls,
}

impl Advice {
    /// `text` (one piece of the report's prose) in these words.
    pub fn word(self, text: &str) -> Cow<'_, str> {
        match self {
            Advice::Cli => Cow::Borrowed(text),
            Advice::ToolCalls => as_tool_calls(text),
        }
    }
}

/// The command line's advice in `text` as tool calls.
fn as_tool_calls(text: &str) -> Cow<'_, str> {
    let rules = tool_call_rules();
    // One pass finds whether any rule applies: most pieces of prose hold no advice.
    if !rules.any.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for (re, with, needle) in &rules.each {
        // A rule whose literal the text lacks cannot match: its search (with captures, the
        // slow kind) is not run. A text a rule leaves as it is is kept, not copied.
        if !out.contains(needle) {
            continue;
        }
        if let Cow::Owned(changed) = re.replace_all(&out, *with) {
            out = changed;
        }
    }
    Cow::Owned(out)
}

/// The rewrites [`as_tool_calls`] makes, in order (each with a literal every match of it
/// holds), and one pattern matching wherever any of them does.
struct ToolCallRules {
    any: regex::Regex,
    each: Vec<(regex::Regex, &'static str, &'static str)>,
}

/// [`ToolCallRules`], compiled once per process (every tool call's report goes through them).
fn tool_call_rules() -> &'static ToolCallRules {
    static RULES: std::sync::OnceLock<ToolCallRules> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        let rules: [(&str, &str, &str); 9] = [
            (
                r"undo with: git llm-apply undo (\d+)",
                "to take it back, call undo with id: $1",
                "undo with: git llm-apply undo ",
            ),
            (
                r"git llm-apply undo (\d+) --force",
                "call undo with id: $1, force: true",
                " --force",
            ),
            (
                r"git llm-apply undo --session (\S+)",
                "call undo with session: $1",
                "undo --session ",
            ),
            (
                r"git llm-apply undo (\d+)",
                "call undo with id: $1",
                "git llm-apply undo ",
            ),
            (
                r"git llm-apply log lists them",
                "the log tool lists them",
                "git llm-apply log lists them",
            ),
            (r"git llm-apply (undo|log)\b", "call $1", "git llm-apply "),
            (
                r"--partial (keeps what applies|writes the markers)",
                "partial: true $1",
                "--partial ",
            ),
            (
                r"--force restores the pre-apply content",
                "force: true restores the pre-apply content",
                "--force restores the pre-apply content",
            ),
            (
                r"--full-diff shows them",
                "call view to read the files as they are now",
                "--full-diff shows them",
            ),
        ];
        let compile = |pattern: &str| regex::Regex::new(pattern).expect("a valid pattern");
        let any = rules
            .map(|(pattern, ..)| format!("(?:{pattern})"))
            .join("|");
        ToolCallRules {
            any: compile(&any),
            each: rules
                .into_iter()
                .map(|(pattern, with, needle)| (compile(pattern), with, needle))
                .collect(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Advice;

    /// Each rule rewrites the advice it is for (the one-pass check lets every one of them
    /// through), in order; text with no advice in it is left as it is; the command line's
    /// words are left as they are.
    #[test]
    fn every_rule_rewrites_its_advice_and_other_text_is_left_as_it_is() {
        for (cli, tool) in [
            (
                "applied (undo with: git llm-apply undo 3)",
                "applied (to take it back, call undo with id: 3)",
            ),
            (
                "or: git llm-apply undo 4 --force",
                "or: call undo with id: 4, force: true",
            ),
            (
                "git llm-apply undo --session s1",
                "call undo with session: s1",
            ),
            ("run git llm-apply undo 5", "run call undo with id: 5"),
            ("git llm-apply log lists them", "the log tool lists them"),
            ("see git llm-apply log", "see call log"),
            (
                "(all or nothing; --partial keeps what applies)",
                "(all or nothing; partial: true keeps what applies)",
            ),
            (
                "resend it (--partial writes the markers)",
                "resend it (partial: true writes the markers)",
            ),
            (
                "since; --force restores the pre-apply content anyway",
                "since; force: true restores the pre-apply content anyway",
            ),
            (
                "not shown (--full-diff shows them)",
                "not shown (call view to read the files as they are now)",
            ),
        ] {
            assert_eq!(Advice::ToolCalls.word(cli), tool, "{cli:?}");
            assert_eq!(Advice::Cli.word(cli), cli);
        }
        // Options quoted in prose (an anchor, a path) are not advice.
        for plain in [
            "M f.txt (+1 -1) via exact",
            "a -- b",
            "git llm-applying",
            "",
            "hunk 1: its @@ anchor \"parse --force handling\" is not in the file",
            "scripts/--partial.sh cannot be taken back",
        ] {
            assert_eq!(Advice::ToolCalls.word(plain), plain);
        }
    }

    proptest::proptest! {
        /// The literal each rule is skipped without changes nothing: texts made of the
        /// rules' own pieces, run together in any order (so matches touch, nest and fall
        /// short), come out as every rule's search run over them in order makes them.
        #[test]
        fn skipping_rules_by_their_literals_changes_nothing(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "undo with: ", "git llm-apply ", "git llm-apply undo ", "undo", "log",
                    " lists them", "--session ", "s1", "12", "7", " --force", " ", "x", "é",
                    "--partial ", "keeps what applies", "writes the markers",
                    "--force restores the pre-apply content", "--full-diff shows them",
                ]),
                0..12,
            )
        ) {
            let text = parts.concat();
            let mut every = text.clone();
            for (re, with, _) in &super::tool_call_rules().each {
                every = re.replace_all(&every, *with).into_owned();
            }
            proptest::prop_assert_eq!(Advice::ToolCalls.word(&text).into_owned(), every);
        }
    }
}

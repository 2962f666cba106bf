//! The manual, `git-llm-apply(1)`: generated from the clap definitions (synopsis, every option
//! of every command) by clap_mangen, with the sections clap cannot know written here
//! (description, formats, strategies, exit status, configuration, files, examples). Also
//! `install-man`, which puts it where `man` looks for a binary cargo installed, so that
//! `git help llm-apply` and `git llm-apply --help` (which git turns into `git help`) open it.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_mangen::roff::{bold, italic, roman, Inline, Roff};
use clap_mangen::Man;

use super::args::{Args, InstallManArgs};
use super::Outcome;
use crate::git::config::KEYS;
use crate::report::color::SLOTS;
use crate::report::RunStatus;

/// When the page last changed in substance (the `.TH` line's date; roff needs one there for
/// the fields after it to keep their places).
const DATE: &str = "2026-12-01";

/// The page's file name, as `man` and `git help` look it up.
pub const FILE_NAME: &str = "git-llm-apply.1";

/// The whole page, in roff.
pub fn page() -> String {
    let cmd = Args::command();
    let man = Man::new(cmd.clone())
        .title("GIT-LLM-APPLY")
        .section("1")
        .date(DATE)
        .source(format!("git-llm-apply {}", env!("CARGO_PKG_VERSION")))
        .manual("Git Manual");
    let mut out: Vec<u8> = Vec::new();
    let rendered = man
        .render_title(&mut out)
        .and_then(|()| man.render_name_section(&mut out));
    rendered.expect("rendering into memory cannot fail");
    let mut roff = Roff::new();
    synopsis(&mut roff, &cmd);
    description(&mut roff);
    out.extend(roff.render().into_bytes());
    man.render_options_section(&mut out)
        .expect("rendering into memory cannot fail");
    out.extend(commands(&cmd).into_bytes());
    let mut roff = Roff::new();
    formats(&mut roff);
    strategies(&mut roff);
    exit_status(&mut roff);
    configuration(&mut roff);
    files(&mut roff);
    examples(&mut roff);
    see_also(&mut roff);
    out.extend(roff.render().into_bytes());
    String::from_utf8(out).expect("the page is UTF-8")
}

/// One usage line per command, as clap spells them (`-h` shows the same).
fn synopsis(r: &mut Roff, cmd: &clap::Command) {
    section(r, "SYNOPSIS");
    let mut lines = vec![usage(cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("git llm-apply {}", sub.get_name());
        if sub.has_subcommands() {
            for leaf in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
                let leaf_name = format!("{name} {}", leaf.get_name());
                lines.push(usage(leaf.clone().bin_name(leaf_name)));
            }
        } else {
            lines.push(usage(sub.clone().bin_name(name)));
        }
    }
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            r.control("br", []);
        }
        r.text([bold(l.clone())]);
    }
}

fn usage(mut cmd: clap::Command) -> String {
    let text = cmd.render_usage().to_string();
    text.trim_start_matches("Usage:").trim().to_string()
}

/// Each subcommand's synopsis, description and options, under COMMANDS (clap_mangen would
/// point to one page per subcommand; one page is what `git help` opens).
fn commands(cmd: &clap::Command) -> String {
    let mut out = Roff::new();
    out.control("SH", ["COMMANDS"]);
    let mut text = out.render();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("git llm-apply {}", sub.get_name());
        let sub = sub.clone().bin_name(&name).display_name(&name);
        let mut heading = Roff::new();
        heading.control("SS", [name.as_str()]);
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            heading.text([roman(about.to_string())]);
        }
        text.push_str(&heading.render());
        if sub.has_subcommands() {
            for leaf in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
                let leaf_name = format!("{name} {}", leaf.get_name());
                let mut r = Roff::new();
                r.control("TP", []);
                r.text([bold(leaf_name.clone())]);
                if let Some(about) = leaf.get_about() {
                    r.text([roman(about.to_string())]);
                }
                text.push_str(&r.render());
                let options = options_of(leaf.clone().bin_name(&leaf_name));
                if !options.is_empty() {
                    text.push_str(".RS\n");
                    text.push_str(&options);
                    text.push_str(".RE\n");
                }
            }
        } else {
            text.push_str(&options_of(sub));
        }
    }
    text
}

/// A command's options as `.TP` entries (clap_mangen's OPTIONS section without its heading).
fn options_of(cmd: clap::Command) -> String {
    let visible = cmd
        .get_arguments()
        .any(|a| !a.is_hide_set() && !a.is_global_set());
    if !visible {
        return String::new();
    }
    // Global options are described once, under OPTIONS.
    let ids: Vec<clap::Id> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.get_id().clone())
        .collect();
    let cmd = ids
        .iter()
        .fold(cmd, |c, id| c.mut_arg(id.clone(), |a| a.hide(true)));
    let mut out: Vec<u8> = Vec::new();
    Man::new(cmd)
        .render_options_section(&mut out)
        .expect("rendering into memory cannot fail");
    let text = String::from_utf8(out).expect("the page is UTF-8");
    text.lines()
        .filter(|l| !l.starts_with(".SH"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn section(r: &mut Roff, name: &str) {
    r.control("SH", [name]);
}

fn para(r: &mut Roff, text: impl Into<Vec<Inline>>) {
    r.control("PP", []);
    r.text(text);
}

fn item(r: &mut Roff, term: impl Into<Vec<Inline>>, text: &str) {
    r.control("TP", []);
    r.text(term);
    r.text([roman(text)]);
}

fn description(r: &mut Roff) {
    section(r, "DESCRIPTION");
    r.text([roman(
        "Applies the patches that LLM coding agents write, and that people paste, to a git work \
         tree: it recovers the intended edit from an imperfect patch (stale line numbers, \
         miscounted hunk headers, missing a/ b/ prefixes, whitespace or Unicode drift, a \
         markdown fence around the diff, a file that moved on), never edits the wrong place \
         (when the location is not certain it refuses, with a diagnostic meant for the model \
         that sent the patch), and makes every apply undoable.",
    )]);
    para(
        r,
        [roman(
            "Everything is planned in memory first; a refusal leaves every file, the index and \
             HEAD as they were. Before the first write, the state of every path the apply \
             touches is recorded as a ghost commit under refs/llm-apply/, which ",
        ),
        bold("git llm-apply undo"),
        roman(" takes back."),
        ],
    );
    para(
        r,
        [
            roman(
                "What was written (the diff, one line per file, the snapshot, the total) goes to \
             standard output; refusals, warnings, notices and errors go to standard error. \
             With ",
            ),
            bold("--json"),
            roman(
                " the report is one JSON document on standard output whatever happened (its \
             schema: ",
            ),
            bold("--json-schema"),
            roman("). The diff is coloured as git diff colours it (see CONFIGURATION)."),
        ],
    );
}

fn formats(r: &mut Roff) {
    section(r, "FORMATS");
    r.text([roman(
        "The format is detected (--format forces one); each becomes the same model, and every \
         repair the input needed is reported as a notice.",
    )]);
    item(
        r,
        [bold("unified")],
        "Unified diffs as git diff and diff -u write them, and as models mangle them: git's \
         extended headers, quoted paths, /dev/null, \\ No newline at end of file; hunk counts \
         are recomputed and line numbers are hints, never trusted. git format-patch mail \
         (one or several patches) is read too.",
    );
    item(
        r,
        [bold("codex")],
        "Codex apply_patch: *** Begin Patch ... *** End Patch with Add, Delete, Update and \
         Move, @@ anchors and *** End of File, and the lenient variants models emit.",
    );
    item(
        r,
        [bold("search-replace")],
        "SEARCH/REPLACE blocks as aider, cline and Roo Code write them; without a path only \
         when exactly one tracked file holds the SEARCH text.",
    );
    para(
        r,
        [roman(
            "Any of them may sit inside markdown fences with prose around them. Elision lines \
             (..., // ... existing code ...) stand for unchanged text between two unique \
             anchors. Input that stops inside a hunk is refused: a partial edit is never \
             applied.",
        )],
    );
}

fn strategies(r: &mut Roff) {
    section(r, "STRATEGIES");
    r.text([roman(
        "For each file, in order (-v says which were tried; the report names the one used):",
    )]);
    item(
        r,
        [bold("exact")],
        "every hunk applies where its line numbers say, as git apply would.",
    );
    item(
        r,
        [bold("3way")],
        "the patch names its preimage blob (an index line) and the object store has it: a \
         three-way merge by git apply --3way against a temporary index, so the user's index \
         is never changed; overlapping edits are a conflict.",
    );
    item(
        r,
        [bold("history-3way")],
        "no usable blob: the nearest version of the file (the index, HEAD, recent commits, \
         earlier snapshots; llm-apply.historyDepth) in which every hunk applies exactly is \
         the base of a three-way merge.",
    );
    item(
        r,
        [bold("text")],
        "the text passes: exact, then ignoring trailing whitespace, then indentation, then \
         folding Unicode punctuation and spaces, and a last guarded pass for drifted context. \
         A hunk that fits in several places with nothing to decide between them is refused \
         as ambiguous.",
    );
    item(
        r,
        [bold("file")],
        "whole-file operations: creations, deletions, renames and mode changes.",
    );
    para(
        r,
        [roman(
            "A hunk whose result is already there is reported as already applied and changes \
             nothing. Paths are confined to the work tree.",
        )],
    );
}

fn exit_status(r: &mut Roff) {
    section(r, "EXIT STATUS");
    let rows: [(RunStatus, &str); 5] = [
        (
            RunStatus::Applied,
            "everything applied, or was already applied, or --check found that it would",
        ),
        (
            RunStatus::Refused,
            "nothing written: a refusal (no match, an ambiguity, a conflict, a path outside the \
             work tree, a hook's veto, a failed --verify, nothing to undo)",
        ),
        (
            RunStatus::Error,
            "bad input, usage or configuration (an unparseable patch, an unknown option, an \
             invalid llm-apply.* or color.* value); nothing written",
        ),
        (
            RunStatus::Partial,
            "partially applied: only with --partial, the files that applied were written",
        ),
        (
            RunStatus::Busy,
            "busy: another run held this work tree's lock past llm-apply.lockTimeout; nothing \
             written, retry",
        ),
    ];
    for (status, text) in rows {
        item(r, [bold(status.exit_code().to_string())], text);
    }
    para(
        r,
        [roman(
            "The --json document's exit_code is always the process's exit status.",
        )],
    );
}

fn configuration(r: &mut Roff) {
    section(r, "CONFIGURATION");
    r.text([roman(
        "Settings are read from git config, every level git reads (git -c included). An \
         invalid value is an error naming the key and the value (exit status 2), whichever \
         key it is.",
    )]);
    for k in KEYS {
        item(
            r,
            [bold(k.name)],
            &format!("{} (default: {}).", upper_first(k.about), k.default),
        );
    }
    para(
        r,
        [roman(
            "Colours: --color, then NO_COLOR, then color.diff and color.ui decide whether the \
             report is coloured. Each piece has a slot, in git's colour syntax (normal, \
             black, red, green, yellow, blue, magenta, cyan, white, bright..., 0-255, \
             #rrggbb; bold, dim, italic, ul, blink, reverse, strike, and no- before any):",
        )],
    );
    for (_, key, default, _) in SLOTS {
        item(r, [bold(key)], &format!("default: {default}"));
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn files(r: &mut Roff) {
    section(r, "FILES");
    item(
        r,
        [bold("refs/llm-apply/<n>")],
        "the ghost snapshot of apply n; git llm-apply log lists them, undo takes one back.",
    );
    item(
        r,
        [bold("$GIT_DIR/llm-apply/")],
        "the worktree's lock and the journal that lets an interrupted apply be completed or \
         rolled back on the next run.",
    );
    item(
        r,
        [bold("pre-llm-apply"), roman(", "), bold("post-llm-apply")],
        "hooks, found where git finds hooks (core.hooksPath, else $GIT_DIR/hooks). The pre \
         hook reads the plan as JSON and may veto; the post hook reads the result, and with \
         --verify its failure rolls the apply back. git llm-apply hooks install puts the \
         ready-made ones behind a dispatcher in pre-llm-apply.d/ and post-llm-apply.d/.",
    );
    item(
        r,
        [bold("<bin>/../share/man/man1/git-llm-apply.1")],
        "this page, as git llm-apply install-man puts it.",
    );
}

fn examples(r: &mut Roff) {
    section(r, "EXAMPLES");
    let ex: [(&str, &str); 9] = [
        (
            "git llm-apply fix.patch",
            "Apply a patch file (several: all or nothing).",
        ),
        (
            "agent-output | git llm-apply",
            "Read the patch from standard input.",
        ),
        (
            "git llm-apply --check --json fix.patch",
            "Plan everything, write nothing, and say in JSON what would happen.",
        ),
        (
            "git llm-apply --partial fix.patch",
            "Keep the files that apply when others do not (exit status 3).",
        ),
        ("git llm-apply log", "The recorded applies, newest first."),
        ("git llm-apply undo", "Take back the most recent apply."),
        (
            "git llm-apply hooks install path-policy",
            "Refuse patches that touch protected paths (llm-apply.protect).",
        ),
        (
            "git config color.diff.new blue",
            "Show added lines in blue, here as in git diff.",
        ),
        (
            "source <(git llm-apply completions bash)",
            "Complete git llm-apply <TAB> in bash (after git's own completion); put the line \
             in ~/.bashrc to keep it.",
        ),
    ];
    for (cmd, what) in ex {
        r.control("TP", []);
        r.text([bold(cmd)]);
        r.text([roman(what)]);
    }
}

fn see_also(r: &mut Roff) {
    section(r, "SEE ALSO");
    r.text([
        bold("git-apply"),
        roman("(1), "),
        bold("git-config"),
        roman("(1), "),
        bold("githooks"),
        roman("(5); the JSON report: "),
        italic("docs/json.md"),
        roman(" in the source."),
    ]);
}

/// Why the manual could not be installed.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, thiserror::Error)]
pub enum ManError {
    #[error("cannot tell where this binary is: {0}")]
    Exe(#[source] std::io::Error),
    #[error("{} has no directory", .0.display())]
    NoDirectory(PathBuf),
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write in {}: {source}", dir.display())]
    TempFile {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Persist {
        path: PathBuf,
        #[source]
        source: tempfile::PersistError,
    },
}

impl crate::report::kinds::Kinded for ManError {
    fn kind(&self) -> crate::report::kinds::ErrorKind {
        crate::report::kinds::ErrorKind::Io
    }
}

/// Where the page goes for the running binary: `<bin>/../share/man/man1/`, where `man` looks
/// for a program found in `<bin>` on PATH (`cargo install` puts it in `~/.cargo/bin`).
fn default_dir() -> Result<PathBuf, ManError> {
    let exe = std::env::current_exe().map_err(ManError::Exe)?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let bin = exe
        .parent()
        .ok_or_else(|| ManError::NoDirectory(exe.clone()))?;
    let root = bin.parent().unwrap_or(bin);
    Ok(root.join("share").join("man").join("man1"))
}

/// `git llm-apply install-man [--dir DIR] [--print]`.
pub fn run(args: InstallManArgs) -> Outcome {
    let InstallManArgs { dir, print } = args;
    let text = page();
    if print {
        return Outcome::text(text, String::new(), RunStatus::Applied);
    }
    let dir = match dir.map(Ok).unwrap_or_else(default_dir) {
        Ok(d) => d,
        Err(e) => return Outcome::text(String::new(), format!("error: {e}\n"), RunStatus::Error),
    };
    match install(&dir, &text) {
        Ok(path) => Outcome::done(
            format!(
                "installed the manual: {} (git help llm-apply and man git-llm-apply open it)\n",
                path.display()
            ),
            String::new(),
            RunStatus::Applied,
        ),
        Err(e) => Outcome::text(String::new(), format!("error: {e}\n"), RunStatus::Error),
    }
}

fn install(dir: &Path, text: &str) -> Result<PathBuf, ManError> {
    std::fs::create_dir_all(dir).map_err(|source| ManError::CreateDir {
        dir: dir.to_path_buf(),
        source,
    })?;
    let path = dir.join(FILE_NAME);
    let write_error = |source| ManError::Write {
        path: path.clone(),
        source,
    };
    // Through a temporary file, so a reader never sees half a page.
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|source| ManError::TempFile {
        dir: dir.to_path_buf(),
        source,
    })?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(write_error)?;
    tmp.persist(&path).map_err(|source| ManError::Persist {
        path: path.clone(),
        source,
    })?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every option clap knows, of every command: `--long` and `-s`.
    fn clap_options() -> BTreeSet<String> {
        fn walk(cmd: &clap::Command, out: &mut BTreeSet<String>) {
            for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                if let Some(l) = a.get_long() {
                    out.insert(format!("--{l}"));
                }
                if let Some(s) = a.get_short() {
                    out.insert(format!("-{s}"));
                }
            }
            for s in cmd.get_subcommands() {
                walk(s, out);
            }
        }
        let mut cmd = Args::command();
        cmd.build();
        let mut out = BTreeSet::new();
        walk(&cmd, &mut out);
        out
    }

    /// Every option the page lists as one (roff: `\fB\-\-no\-snapshot\fR`, `\fB\-x\fR`).
    fn page_options(page: &str) -> BTreeSet<String> {
        let re =
            regex::Regex::new(r"\\fB((?:\\-){1,2}[A-Za-z](?:[A-Za-z0-9]|\\-)*)").expect("regex");
        re.captures_iter(page)
            .map(|c| c[1].replace("\\-", "-"))
            .collect()
    }

    /// Every long option the page mentions anywhere, in prose too.
    fn mentioned(page: &str) -> BTreeSet<String> {
        let re = regex::Regex::new(r"\\-\\-([a-z0-9]+(?:\\-[a-z0-9]+)*)").expect("regex");
        re.captures_iter(page)
            .map(|c| format!("--{}", c[1].replace("\\-", "-")))
            .collect()
    }

    #[test]
    fn the_page_lists_every_option_clap_knows_and_no_other() {
        let page = page();
        let known = clap_options();
        let listed = page_options(&page);
        let missing: Vec<_> = known.difference(&listed).collect();
        let unknown: Vec<_> = listed.difference(&known).collect();
        assert!(
            missing.is_empty(),
            "options missing from the page: {missing:?}"
        );
        assert!(
            unknown.is_empty(),
            "the page names options clap does not know: {unknown:?}"
        );
        assert!(known.contains("--quiet") && known.contains("--check"));
        // The hand-written sections name no option that does not exist (git's own aside).
        let stale: Vec<_> = mentioned(&page)
            .into_iter()
            .filter(|o| !known.contains(o) && o != "--3way")
            .collect();
        assert!(
            stale.is_empty(),
            "the page mentions unknown options: {stale:?}"
        );
    }

    #[test]
    fn the_page_has_the_hand_written_sections_and_every_config_key() {
        let page = page();
        for s in [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH COMMANDS",
            ".SH FORMATS",
            ".SH STRATEGIES",
            ".SH \"EXIT STATUS\"",
            ".SH CONFIGURATION",
            ".SH FILES",
            ".SH EXAMPLES",
        ] {
            assert!(page.contains(s), "{s} missing");
        }
        for k in KEYS {
            assert!(
                page.contains(&format!("\\fB{}\\fR", k.name.replace('-', "\\-"))),
                "{} missing",
                k.name
            );
        }
    }
}

//! The binary side: parse arguments, run a command, map its outcome to an exit status in
//! one place (DESIGN §2), print the report.

mod apply;
mod args;
mod color;
mod completions;
mod edit;
mod hooks;
mod log;
mod man;
mod tools;
pub mod panic;
mod undo;

use crate::report::kinds::ErrorKind;
use std::io::IsTerminal;
use std::path::PathBuf;

use crate::git::config::{Config, Pending};
use crate::report::color::{Colors, Palette};
use crate::report::human::{ShownDiff, Verbosity};
use crate::report::log::LogReport;
use crate::report::{self, Report, RunStatus};
use crate::run::CheckedConfigError;

/// Options that do not go together, found before any command runs.
#[derive(Debug, thiserror::Error)]
enum UsageError {
    #[error(
        "apply options and PATCH do not go with a subcommand (give `log`, `undo` or `hooks` \
         their own options after their name)"
    )]
    ApplyWithSubcommand,
    #[error(
        "--revert without PATCH rolls back the most recent apply; of the apply options only \
         --check, --json and --force go with it"
    )]
    RevertOptions,
    #[error("--force only applies to undoing (--revert without PATCH, or undo)")]
    ForceWithoutUndo,
}

impl crate::report::kinds::Kinded for UsageError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Usage
    }
}

/// What a command hands back: what to print and whether it is JSON.
pub struct Outcome {
    /// What to print.
    pub shown: Shown,
    /// Whether it is printed as JSON.
    pub json: bool,
}

/// The kinds of output a run prints.
pub enum Shown {
    /// The report of an apply, a check or an undo (also every error).
    Run(Report),
    /// The `log` listing.
    Log(LogReport),
    /// A helper command's plain text (`hooks`, the manual, completions), each stream's part,
    /// and how it ended. `done`: stdout only says what was done, so `-q` drops it (otherwise
    /// it is what was asked for: a listing, a page, a script).
    Text {
        /// What goes to standard output.
        stdout: String,
        /// What goes to standard error.
        stderr: String,
        /// How it ended, for the exit status.
        status: RunStatus,
        /// Standard output only says what was done.
        done: bool,
    },
}

impl Outcome {
    /// A run's report, as JSON or as text.
    pub fn run(report: Report, json: bool) -> Outcome {
        Outcome {
            shown: Shown::Run(report),
            json,
        }
    }

    /// A helper's plain text: what it asked for, not a note of what was done.
    pub fn text(stdout: String, stderr: String, status: RunStatus) -> Outcome {
        Outcome {
            shown: Shown::Text {
                stdout,
                stderr,
                status,
                done: false,
            },
            json: false,
        }
    }

    /// Like [`Outcome::text`], for a command whose stdout reports what it changed.
    pub fn done(stdout: String, stderr: String, status: RunStatus) -> Outcome {
        Outcome {
            shown: Shown::Text {
                stdout,
                stderr,
                status,
                done: true,
            },
            json: false,
        }
    }

    /// How the run ends: the one place an outcome becomes the process's exit status, through
    /// [`RunStatus::exit_code`] (DESIGN §2).
    fn status(&self) -> RunStatus {
        match &self.shown {
            Shown::Run(r) => r.status,
            // A listing that could be read (an unreadable one is a `Run` error).
            Shown::Log(_) => RunStatus::Applied,
            Shown::Text { status, .. } => *status,
        }
    }
}

/// How the human report is printed: whether each stream gets colour, and how much it says.
struct Printing<'a> {
    color: &'a dyn Fn(Stream) -> bool,
    colors: &'a Colors,
    verbosity: Verbosity,
    diff: ShownDiff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

/// The command line as [`clap::Parser::try_parse`] reads it, errors formatted alike: an apply
/// or an `edit` with plain switches without clap ([`fast_args`]), anything else by clap
/// ([`parse_with_clap`]).
fn parse_args() -> Result<args::Args, clap::Error> {
    if let Some(args) = fast_args(std::env::args_os().skip(1)) {
        return Ok(args);
    }
    parse_with_clap(std::env::args_os())
}

/// The calls agents make most, read without building the parser: `git llm-apply [SWITCH...]
/// [PATCH...]` and `git llm-apply [SWITCH...] edit --json-input [SWITCH...]`. Clap builds every
/// subcommand's arguments before it reads a word: a one-line apply ran 1.87M instructions with
/// it and 1.57M without (callgrind), `--json` 1.92M and 1.65M, and it took about 80 KiB of heap
/// (massif).
///
/// Each SWITCH takes no value, needs no other and excludes none: for an apply `--check`,
/// `--json`, `--partial`, `--index`, `--no-snapshot`, `--verify`; for `edit` `--json-input`,
/// `--json`, `--check`, `--no-snapshot`; anywhere `-q` (`--quiet`) and `--full-diff`. Each is
/// taken before, between or after the patches, and at most once: a switch given twice is left
/// to clap (which refuses it, but for a global one given once on each side of `edit`). `-` is
/// a patch (standard input), and with no patch the patch is read from standard input too.
///
/// `None` for anything else (another option, another subcommand, a word that is not UTF-8,
/// `edit` without `--json-input`), which clap reads; a test checks that both read every
/// combination alike.
fn fast_args(words: impl Iterator<Item = std::ffi::OsString>) -> Option<args::Args> {
    let mut a = args::Args {
        command: None,
        apply: args::ApplyArgs {
            patches: Vec::new(),
            check: false,
            json: false,
            partial: false,
            format: args::FormatArg::Auto,
            revert: false,
            index: false,
            no_snapshot: false,
            force: false,
            verify: false,
            label: None,
            session: None,
        },
        dir: None,
        color: args::ColorArg::Auto,
        quiet: false,
        verbose: false,
        full_diff: false,
        json_schema: false,
    };
    // `edit`'s switches once its name has come.
    let mut edit: Option<args::EditArgs> = None;
    for word in words {
        let word = word.into_string().ok()?;
        let flag = match (word.as_str(), edit.as_mut()) {
            ("-q" | "--quiet", _) => &mut a.quiet,
            ("--full-diff", _) => &mut a.full_diff,
            ("--json-input", Some(e)) => &mut e.json_input,
            ("--json", Some(e)) => &mut e.json,
            ("--check", Some(e)) => &mut e.check,
            ("--no-snapshot", Some(e)) => &mut e.no_snapshot,
            (_, Some(_)) => return None,
            ("--check", None) => &mut a.apply.check,
            ("--json", None) => &mut a.apply.json,
            ("--partial", None) => &mut a.apply.partial,
            ("--index", None) => &mut a.apply.index,
            ("--no-snapshot", None) => &mut a.apply.no_snapshot,
            ("--verify", None) => &mut a.apply.verify,
            // After a patch, clap reads `edit` as another patch (and refuses the switches
            // after it); after an apply switch, the run refuses a subcommand.
            ("edit", None) if !a.apply.any_given() => {
                edit = Some(args::EditArgs {
                    json_input: false,
                    json: false,
                    check: false,
                    no_snapshot: false,
                    label: None,
                    session: None,
                });
                continue;
            }
            (w, None) if (w.starts_with('-') && w != "-") || args::SUBCOMMANDS.contains(&w) => {
                return None
            }
            (_, None) => {
                a.apply.patches.push(word);
                continue;
            }
        };
        if std::mem::replace(flag, true) {
            return None;
        }
    }
    if let Some(e) = edit {
        // Clap's to refuse: the request comes only as JSON.
        if !e.json_input {
            return None;
        }
        a.command = Some(args::Command::Edit(e));
    }
    Some(a)
}

/// Parsed by clap; the parser and its matches are not dropped (taking apart every
/// subcommand's arguments cost a one-line apply 53,600 instructions when measured with
/// callgrind), and the process ends soon after.
fn parse_with_clap(
    words: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<args::Args, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = args::Args::command();
    let parsed = cmd.try_get_matches_from_mut(words).and_then(|mut matches| {
        let args = args::Args::from_arg_matches_mut(&mut matches);
        std::mem::forget(matches);
        args.map_err(|e| e.format(&mut cmd))
    });
    std::mem::forget(cmd);
    parsed
}

/// The command line's entry: parse the arguments, run the command, print, and give the
/// exit status (DESIGN §2).
pub fn main() -> u8 {
    record_stdio_for_tests();
    print_config_for_tests();
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            let status = if e.use_stderr() {
                RunStatus::Error
            } else {
                RunStatus::Applied
            };
            let _ = e.print();
            return exit(status);
        }
    };
    if args.json_schema {
        write(Stream::Stdout, &report::json::schema());
        return exit(RunStatus::Applied);
    }
    let here = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let choice = args.color;
    let color = |stream: Stream| {
        let tty = match stream {
            Stream::Stdout => std::io::stdout().is_terminal(),
            Stream::Stderr => std::io::stderr().is_terminal(),
        };
        color::enabled(choice, &here, tty, None)
    };
    let verbosity = match (args.quiet, args.verbose) {
        (true, _) => Verbosity::Quiet,
        (false, true) => Verbosity::Verbose,
        (false, false) => Verbosity::Normal,
    };
    if verbosity == Verbosity::Verbose {
        crate::git::record_commands();
    }
    let diff = if args.full_diff {
        ShownDiff::Whole
    } else {
        ShownDiff::Cut(report::diff::SHOWN_LINES)
    };
    let bare = Printing {
        color: &color,
        colors: &Colors::default(),
        verbosity,
        diff,
    };
    if args.command.is_some() && args.apply.any_given() {
        let report = Report::failed(&UsageError::ApplyWithSubcommand);
        return emit(Outcome::run(report, false), &bare);
    }
    // Every `llm-apply.*` key is checked before any command reads one, the same way for all,
    // and the colours with them. An apply reads and parses its patch while git config is
    // read (it waits for the config before anything it decides with it); every other command
    // waits for it first.
    let pending = (reads_config(&args) && here.is_dir()).then(|| Pending::start(&here));
    let checked = |pending: &Option<Pending>| -> Result<Option<Config>, CheckedConfigError> {
        pending.as_ref().map(crate::run::checked_config).transpose()
    };
    let json = wants_json(&args);
    let config_error = |e: CheckedConfigError| emit(Outcome::run(Report::failed(&e), json), &bare);
    let is_apply = args.command.is_none();
    if !is_apply {
        if let Err(e) = checked(&pending) {
            return config_error(e);
        }
    }
    // -q shows only errors: no progress line either.
    if matches!(args.command, None | Some(args::Command::Undo(_))) && verbosity != Verbosity::Quiet
    {
        crate::run::progress::start();
    }
    let outcome = match args.command {
        None => apply::run(
            args.apply,
            args.dir,
            pending.clone(),
            verbosity == Verbosity::Quiet,
        ),
        Some(args::Command::Log(a)) => log::run(a, args.dir, pending.clone()),
        Some(args::Command::Undo(a)) => undo::run(a, args.dir, pending.clone()),
        Some(args::Command::Hooks(h)) => hooks::run(h, args.dir),
        Some(args::Command::InstallMan(a)) => man::run(a),
        Some(args::Command::Completions(a)) => completions::run(a),
        Some(args::Command::Tools(a)) => tools::run(a),
        Some(args::Command::Edit(a)) => edit::run(a, args.dir, pending.clone()),
        Some(args::Command::Mcp(m)) => {
            // stdout carries protocol messages only: nothing else is printed there.
            let args::McpArgs { no_snapshot } = m;
            return exit(crate::mcp::serve(args.dir, no_snapshot));
        }
    };
    // An invalid config is the error whatever the apply said: it wrote nothing, as it waits
    // for the config before it writes. The report's colours are git's, as its config sets them.
    let (colors, color_setting) = match checked(&pending) {
        Ok(Some(c)) => match Colors::from_config(&c.colors) {
            Ok(colors) => (colors, Some(c.color_diff)),
            Err(e) => return config_error(e.into()),
        },
        Ok(None) => (Colors::default(), None),
        Err(e) => return config_error(e),
    };
    // Each stream is asked about once.
    let asked: [std::cell::OnceCell<bool>; 2] = Default::default();
    let color = |stream: Stream| {
        *asked[stream as usize].get_or_init(|| {
            let tty = match stream {
                Stream::Stdout => std::io::stdout().is_terminal(),
                Stream::Stderr => std::io::stderr().is_terminal(),
            };
            let setting = color_setting.as_ref().map(|s| s.as_deref());
            color::enabled(choice, &here, tty, setting)
        })
    };
    let printing = Printing {
        color: &color,
        colors: &colors,
        verbosity,
        diff,
    };
    emit(outcome, &printing)
}

/// Test-only (documented in tests/README): `GIT_LLM_APPLY_TEST_STDIO=FILE` writes to FILE
/// what standard input, output and error are as the CLI starts (`/proc/self/fd/N`'s target,
/// or `closed`), one line each, so a test sees that the binary's start opened `/dev/null` on
/// the closed ones. They are read before FILE is opened, which would take a closed one's
/// number.
fn record_stdio_for_tests() {
    #[cfg(all(debug_assertions, target_os = "linux"))]
    if let Some(file) = std::env::var_os("GIT_LLM_APPLY_TEST_STDIO") {
        let seen: String = (0..3)
            .map(
                |fd| match std::fs::read_link(format!("/proc/self/fd/{fd}")) {
                    Ok(target) => format!("{}\n", target.display()),
                    Err(_) => "closed\n".to_string(),
                },
            )
            .collect();
        let _ = std::fs::write(file, seen);
    }
}

/// Test-only (documented in tests/README): `GIT_LLM_APPLY_TEST_PRINT_CONFIG=1` prints the
/// config entries the run would read, as `git config -z --get-regexp` prints them, and exits,
/// so a test can hold our reading against git's.
fn print_config_for_tests() {
    #[cfg(debug_assertions)]
    if std::env::var_os("GIT_LLM_APPLY_TEST_PRINT_CONFIG").is_some() {
        use std::io::Write as _;
        let code = match crate::git::config::entries(std::path::Path::new(".")) {
            Ok(entries) => {
                let mut out = Vec::new();
                for (k, v) in entries {
                    out.extend_from_slice(k.as_bytes());
                    if let Some(v) = v {
                        out.push(b'\n');
                        out.extend_from_slice(v.as_bytes());
                    }
                    out.push(0);
                }
                let _ = std::io::stdout().write_all(&out);
                0
            }
            Err(e) => {
                eprintln!("{e}");
                2
            }
        };
        std::process::exit(code);
    }
}

/// Whether the command reads git config (the hook helpers read only their stdin; the manual
/// and the completions are the same everywhere).
fn reads_config(args: &args::Args) -> bool {
    use args::{Command, HooksCommand};
    !matches!(
        args.command,
        Some(
            Command::Hooks(HooksCommand::PlanPaths | HooksCommand::PlanSize)
                | Command::InstallMan(_)
                | Command::Completions(_)
        )
    )
}

/// Whether the command asked for its report as JSON.
fn wants_json(args: &args::Args) -> bool {
    match &args.command {
        None => args.apply.json,
        Some(args::Command::Log(a)) => a.json,
        Some(args::Command::Undo(a)) => a.json,
        Some(args::Command::Edit(a)) => a.json,
        Some(
            args::Command::Hooks(_)
            | args::Command::InstallMan(_)
            | args::Command::Completions(_)
            | args::Command::Tools(_)
            | args::Command::Mcp(_),
        ) => false,
    }
}

/// Print the outcome, each part on its stream, and end with its exit status.
fn emit(o: Outcome, printing: &Printing<'_>) -> u8 {
    crate::run::progress::finish();
    let status = o.status();
    let palette =
        |stream| Palette::with(Some(printing.colors).filter(|_| (printing.color)(stream)));
    let (stdout, mut stderr) = match o.shown {
        Shown::Run(mut r) => {
            if o.json {
                // Standard error's part only: no diff is worked out for it.
                let plain = report::human::Options {
                    diff: ShownDiff::Hidden,
                    ..report::human::Options::PLAIN
                };
                let said = report::human::render_with(&r, &plain).stderr;
                r.message = (!said.trim().is_empty()).then_some(said);
                (report::json::render(&r), String::new())
            } else {
                let options = report::human::Options {
                    stdout: palette(Stream::Stdout),
                    stderr: palette(Stream::Stderr),
                    verbosity: printing.verbosity,
                    diff: printing.diff,
                    advice: report::advice::Advice::Cli,
                };
                let shown = report::human::render_with(&r, &options);
                (shown.stdout, shown.stderr)
            }
        }
        Shown::Log(l) if o.json => (report::json::render_log(&l), String::new()),
        Shown::Log(l) => {
            let shown =
                report::human::render_log(&l, printing.verbosity, report::advice::Advice::Cli);
            (shown.stdout, shown.stderr)
        }
        Shown::Text {
            stdout,
            stderr,
            done,
            ..
        } => {
            if done && printing.verbosity == Verbosity::Quiet {
                (String::new(), stderr)
            } else {
                (stdout, stderr)
            }
        }
    };
    if printing.verbosity == Verbosity::Verbose {
        stderr.insert_str(
            0,
            &report::human::render_commands(&crate::git::commands_run()),
        );
    }
    write(Stream::Stderr, &stderr);
    write(Stream::Stdout, &stdout);
    exit(status)
}

/// Write to a stream, ignoring a reader that went away (`git llm-apply log | head -1`): what
/// it did not read is its choice, and the exit status is decided already.
fn write(stream: Stream, text: &str) {
    use std::io::Write as _;
    if text.is_empty() {
        return;
    }
    let _ = match stream {
        Stream::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
        Stream::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
    };
}

fn exit(status: RunStatus) -> u8 {
    u8::try_from(status.exit_code()).expect("exit codes are 0 to 4")
}

#[cfg(test)]
mod tests {
    use super::{args, fast_args, parse_with_clap};
    use std::ffi::OsString;

    /// The switches [`fast_args`] reads itself, as typed.
    const PLAIN_FLAGS: [&str; 9] = [
        "--check",
        "--json",
        "--partial",
        "--index",
        "--no-snapshot",
        "--verify",
        "-q",
        "--quiet",
        "--full-diff",
    ];

    fn words(w: &[&str]) -> Vec<OsString> {
        w.iter().map(OsString::from).collect()
    }

    /// The members of `all` whose bits are set in `set`, in order: every subset once as `set`
    /// runs from 0 to `1 << all.len()`.
    fn subset(all: &[&'static str], set: u32) -> Vec<&'static str> {
        (0..all.len())
            .filter(|i| set & 1 << i != 0)
            .map(|i| all[i])
            .collect()
    }

    /// `w` (the words after the program's name) as clap reads it.
    fn clap(w: &[&str]) -> Result<args::Args, clap::Error> {
        parse_with_clap(words(&[&["git-llm-apply"], w].concat()))
    }

    /// Patches alone are read as clap reads them, to the last field.
    #[test]
    fn patches_alone_are_read_as_clap_reads_them() {
        for w in [
            &["a.patch"][..],
            &["a.patch", "b.diff"],
            &["dir with space/x.patch", "é.patch"],
            &["a=b", "./undo", "logs"],
            &[""],
            &["-"],
            &["-", "a.patch", "-"],
            &[],
        ] {
            let fast = fast_args(words(w).into_iter()).expect("patches alone");
            let clap = clap(w).expect("clap reads it");
            assert_eq!(format!("{fast:?}"), format!("{clap:?}"), "{w:?}");
        }
    }

    /// `w` is read by [`fast_args`] as clap reads it, or left to clap, which refuses it (as it
    /// does every command line these tests give here that the fast reading leaves).
    fn read_alike(w: &[&str]) {
        let clap = clap(w);
        match fast_args(words(w).into_iter()) {
            Some(fast) => {
                let clap = clap.unwrap_or_else(|e| panic!("{w:?}: clap refused: {e}"));
                assert_eq!(format!("{fast:?}"), format!("{clap:?}"), "{w:?}");
            }
            None => assert!(clap.is_err(), "{w:?}: declined, but clap reads it"),
        }
    }

    /// Every set of `edit`'s switches, with every set of the global ones before or after, is
    /// read as clap reads it; `edit` without `--json-input` is left to clap, which refuses it.
    #[test]
    fn edit_switches_are_read_as_clap_reads_them() {
        const EDIT: [&str; 4] = ["--json-input", "--json", "--check", "--no-snapshot"];
        const GLOBAL: [&str; 3] = ["-q", "--quiet", "--full-diff"];
        for e in 0u32..1 << EDIT.len() {
            for g in 0u32..1 << GLOBAL.len() {
                let (e, g) = (subset(&EDIT, e), subset(&GLOBAL, g));
                read_alike(&[&g[..], &["edit"], &e[..]].concat());
                read_alike(&[&["edit"], &e[..], &g[..]].concat());
                read_alike(&[&["edit"], &g[..], &e[..]].concat());
            }
        }
        // Global switches on both sides of `edit`, each once, are read alike.
        read_alike(&["-q", "edit", "--json-input", "--full-diff"]);
        read_alike(&["--full-diff", "edit", "-q", "--json-input"]);
        // Clap refuses these: after a patch, `edit` is a patch and `--json-input` unknown;
        // after `edit`, a patch or a second `edit` is unknown.
        for w in [
            &["a.patch", "edit", "--json-input"][..],
            &["edit", "--json-input", "a.patch"],
            &["edit", "--json-input", "edit"],
        ] {
            read_alike(w);
            assert!(fast_args(words(w).into_iter()).is_none(), "{w:?}");
        }
        // Clap reads these, and they are left to it: an apply switch before a subcommand
        // (which the run then refuses), a global switch on both sides of `edit`, a switch
        // with a value.
        for w in [
            &["--json", "edit", "--json-input"][..],
            &["-q", "edit", "--json-input", "-q"],
            &["--full-diff", "edit", "--json-input", "--full-diff"],
            &["edit", "--json-input", "--label", "x"],
        ] {
            assert!(fast_args(words(w).into_iter()).is_none(), "{w:?}");
            assert!(clap(w).is_ok(), "{w:?}");
        }
    }

    /// Every set of the plain switches, before, between and after the patches, is read as
    /// clap reads it; where the fast reading declines (a switch given twice, as `-q` with
    /// `--quiet`), clap refuses the command line.
    #[test]
    fn plain_switches_are_read_as_clap_reads_them() {
        // The sets run from none of the switches to all of them.
        assert_eq!(
            subset(&PLAIN_FLAGS, (1 << PLAIN_FLAGS.len()) - 1),
            PLAIN_FLAGS
        );
        assert!(subset(&PLAIN_FLAGS, 0).is_empty());
        for set in 0u32..1 << PLAIN_FLAGS.len() {
            let flags = subset(&PLAIN_FLAGS, set);
            let (front, back) = flags.split_at(flags.len() / 2);
            let layouts: [Vec<&str>; 4] = [
                [&flags[..], &["a.patch", "b.patch"]].concat(),
                [&["a.patch", "-"], &flags[..]].concat(),
                [front, &["a.patch"], back, &["b.patch"]].concat(),
                flags.clone(),
            ];
            for w in layouts {
                read_alike(&w);
            }
        }
        // A switch twice is left to clap, which refuses it.
        for flag in PLAIN_FLAGS {
            let w = [flag, "a.patch", flag];
            assert!(fast_args(words(&w).into_iter()).is_none(), "{w:?}");
            assert!(clap(&w).is_err(), "{w:?}");
        }
    }

    /// Anything else goes to clap: other options (and switches written otherwise), `--`, a
    /// subcommand's name anywhere, a word that is not UTF-8.
    #[test]
    fn anything_else_is_left_to_clap() {
        for w in [
            &["a.patch", "-v"][..],
            &["-qv", "a.patch"],
            &["--json=true", "a.patch"],
            &["--revert", "a.patch"],
            &["--format", "unified", "a.patch"],
            &["--color", "a.patch"],
            &["--", "a.patch"],
            &["-C", "dir", "a.patch"],
            &["log"],
            &["a.patch", "undo"],
            &["help"],
        ] {
            assert!(fast_args(words(w).into_iter()).is_none(), "{w:?}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let bad = OsString::from_vec(vec![b'a', 0xff]);
            assert!(fast_args([bad].into_iter()).is_none());
        }
    }

    /// The names the fast reading leaves to clap are every name clap takes as a
    /// subcommand, aliases and its own `help` included.
    #[test]
    fn the_subcommand_names_are_clap_s() {
        use clap::CommandFactory;
        let mut cmd = args::Args::command();
        cmd.build();
        let mut names: Vec<String> = cmd
            .get_subcommands()
            .flat_map(|c| {
                std::iter::once(c.get_name().to_string())
                    .chain(c.get_all_aliases().map(str::to_string))
            })
            .collect();
        names.sort();
        let mut ours: Vec<String> = args::SUBCOMMANDS.iter().map(|s| s.to_string()).collect();
        ours.sort();
        assert_eq!(ours, names);
    }
}

//! The binary side: parse arguments, run a command, map its outcome to an exit status in
//! one place (DESIGN §2), print the report.

mod apply;
mod apply_hooks;
mod args;
mod color;
mod hooks;
mod session;
mod log;
pub mod panic;
mod undo;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::report::log::LogReport;
use crate::report::{self, Report};

/// What a command hands back: what to print and whether it is JSON.
pub struct Outcome {
    pub shown: Shown,
    pub json: bool,
}

/// The two kinds of output a run prints.
pub enum Shown {
    /// The report of an apply, a check or an undo (also every error).
    Run(Report),
    /// The `log` listing.
    Log(LogReport),
}

impl Outcome {
    pub fn run(report: Report, json: bool) -> Outcome {
        Outcome {
            shown: Shown::Run(report),
            json,
        }
    }
}

pub fn main() -> ExitCode {
    let args = match args::Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if args.json_schema {
        print!("{}", report::json::schema());
        return ExitCode::SUCCESS;
    }
    let here = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let choice = args.color;
    let color = |to_stderr: bool| {
        let tty = if to_stderr {
            std::io::stderr().is_terminal()
        } else {
            std::io::stdout().is_terminal()
        };
        color::enabled(choice, &here, tty)
    };
    if args.command.is_some() && args.apply.any_given() {
        let report = Report::error(
            "usage",
            "apply options and PATCH do not go with a subcommand (give `log`, `undo` or `hooks` \
             their own options after their name)",
        );
        return emit(&Outcome::run(report, false), &color);
    }
    let outcome = match args.command {
        None => apply::run(args.apply, args.dir),
        Some(args::Command::Log(a)) => log::run(a, args.dir),
        Some(args::Command::Undo(a)) => undo::run(a, args.dir),
        Some(args::Command::Hooks(h)) => return hooks::run(h, args.dir),
    };
    emit(&outcome, &color)
}

/// Print the report and turn its exit status into the process's. `color(to_stderr)` says
/// whether the human report gets colour on that stream.
fn emit(o: &Outcome, color: &dyn Fn(bool) -> bool) -> ExitCode {
    let (text, code) = match (&o.shown, o.json) {
        (Shown::Run(r), true) => (report::json::render(r), r.exit_code),
        (Shown::Run(r), false) => {
            let palette = report::color::Palette {
                enabled: color(r.exit_code == 2),
            };
            (report::human::render_with(r, palette), r.exit_code)
        }
        (Shown::Log(l), true) => (report::json::render_log(l), 0),
        (Shown::Log(l), false) => (report::human::render_log(l), 0),
    };
    if !o.json && code == 2 {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    ExitCode::from(u8::try_from(code).expect("exit codes are 0 to 3"))
}

//! The binary side: parse arguments, run a command, map its outcome to an exit status in
//! one place (DESIGN §2), print the report.

mod apply;
mod args;

use std::process::ExitCode;

use clap::Parser;

use crate::report::{self, Report};

/// What a command hands back: the report to print and whether it is JSON.
pub struct Outcome {
    pub report: Report,
    pub json: bool,
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
    let outcome = match args.command {
        None => apply::run(args.apply, args.dir),
        Some(c) => match c {},
    };
    emit(&outcome)
}

/// Print the report and turn its exit status into the process's.
fn emit(o: &Outcome) -> ExitCode {
    let r = &o.report;
    if o.json {
        print!("{}", report::json::render(r));
    } else {
        let text = report::human::render(r);
        if r.exit_code == 2 {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
    ExitCode::from(u8::try_from(r.exit_code).expect("exit codes are 0 to 3"))
}

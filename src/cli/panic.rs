//! A panic anywhere still keeps the promise of the command line: with `--json` one document
//! on stdout (an error of kind `internal`), without it one line on stderr, exit status 2, and
//! the panic's own text on stderr either way. Nothing here is reached on any input that works.

use crate::report::kinds::{ErrorKind, Kinded};
use std::io::Write as _;
use std::panic::{self, UnwindSafe};
use std::sync::Mutex;

use crate::report::{self, Report};

/// A panic, as the report says it: the panic's text on one line.
#[derive(Debug, thiserror::Error)]
#[error("internal error (a bug in git-llm-apply; please report it): {0}")]
struct Panicked(String);

impl Kinded for Panicked {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }
}

/// What the panic hook saw: the message and where, on one line.
static SEEN: Mutex<Option<String>> = Mutex::new(None);

/// Run `main`, turning a panic into the error report (exit status 2).
pub fn guard(main: impl FnOnce() -> u8 + UnwindSafe) -> u8 {
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    panic::set_hook(Box::new(|info| {
        // The progress line, if one is drawn, goes before anything is written: the backtrace
        // below, the error after.
        crate::run::progress::finish_on_panic();
        let text = info.to_string().replace('\n', " ");
        let trace = std::backtrace::Backtrace::capture();
        if trace.status() == std::backtrace::BacktraceStatus::Captured {
            eprintln!("{trace}");
        }
        *SEEN.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
    }));
    let outcome = panic::catch_unwind(|| {
        inject();
        main()
    });
    match outcome {
        Ok(code) => code,
        Err(_) => {
            let text = SEEN
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .unwrap_or_else(|| "a panic without a message".to_string());
            let panicked = Panicked(text);
            let report = Report::failed(&panicked);
            // Written, not printed: a closed pipe must not panic again here.
            let _ = writeln!(std::io::stderr(), "error: {panicked}");
            if json {
                let _ = write!(std::io::stdout(), "{}", report::json::render(&report));
            }
            super::exit(report.status)
        }
    }
}

/// Test builds panic on request, so the tests can see what a panic becomes.
fn inject() {
    #[cfg(debug_assertions)]
    if let Some(m) = std::env::var_os("GIT_LLM_APPLY_TEST_PANIC") {
        panic!("injected for a test: {}", m.to_string_lossy());
    }
}

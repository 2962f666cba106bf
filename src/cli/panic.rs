//! A panic anywhere still keeps the promise of the command line: with `--json` one document
//! on stdout (an error of kind `internal`), without it one line on stderr, exit status 2, and
//! the panic's own text on stderr either way. Nothing here is reached on any input that works.

use std::io::Write;
use std::panic::{self, UnwindSafe};
use std::process::ExitCode;
use std::sync::Mutex;

use crate::report::{self, Report};

/// What the panic hook saw: the message and where, on one line.
static SEEN: Mutex<Option<String>> = Mutex::new(None);

/// Run `main`, turning a panic into the error report (exit status 2).
pub fn guard(main: impl FnOnce() -> ExitCode + UnwindSafe) -> ExitCode {
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', " ");
        let trace = std::backtrace::Backtrace::capture();
        if trace.status() == std::backtrace::BacktraceStatus::Captured {
            let _ = writeln!(std::io::stderr(), "{trace}");
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
            let message =
                format!("internal error (a bug in git-llm-apply; please report it): {text}");
            // Written without `print!`, which panics itself when the stream is closed.
            let _ = writeln!(std::io::stderr(), "error: {message}");
            if json {
                let doc = report::json::render(&Report::error("internal", message));
                let mut out = std::io::stdout();
                let _ = out.write_all(doc.as_bytes()).and_then(|()| out.flush());
            }
            ExitCode::from(2)
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

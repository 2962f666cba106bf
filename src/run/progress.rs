//! Progress on standard error for a run that takes a while: one line naming the stage being
//! worked on, drawn only once the run has gone on for a second, and only when the CLI turned
//! it on for a terminal. The MCP server never turns it on (its stderr is a log), nor does a
//! run whose stderr is a pipe: stages are then silent no-ops.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes on before its progress is shown.
const DELAY: Duration = Duration::from_secs(1);

struct Progress {
    bar: ProgressBar,
    /// Set when the run is done: a spinner must not appear after that.
    done: Arc<Mutex<bool>>,
}

static PROGRESS: OnceLock<Progress> = OnceLock::new();

/// Turn progress on for this process when standard error is a terminal.
pub fn start() {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() || PROGRESS.get().is_some() {
        return;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message("working");
    let done = Arc::new(Mutex::new(false));
    let (shown, finished) = (bar.clone(), Arc::clone(&done));
    if PROGRESS.set(Progress { bar, done }).is_err() {
        return;
    }
    std::thread::spawn(move || {
        std::thread::sleep(DELAY);
        let finished = finished.lock().unwrap_or_else(|e| e.into_inner());
        if !*finished {
            shown.set_draw_target(ProgressDrawTarget::stderr());
            shown.enable_steady_tick(Duration::from_millis(120));
        }
    });
}

/// Name the stage the run is in now.
pub fn stage(what: &'static str) {
    if let Some(p) = PROGRESS.get() {
        p.bar.set_message(what);
    }
}

/// The run is done: take the progress line off the terminal before the report is printed.
pub fn finish() {
    if let Some(p) = PROGRESS.get() {
        let mut done = p.done.lock().unwrap_or_else(|e| e.into_inner());
        *done = true;
        p.bar.finish_and_clear();
    }
}

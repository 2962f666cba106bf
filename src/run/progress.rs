//! Progress on standard error for a run that takes a while: one line naming the stage being
//! worked on, drawn only once the run has gone on for a second, and only when the CLI turned
//! it on for a terminal. The MCP server never turns it on (its stderr is a log), nor does a
//! run whose stderr is a pipe: stages are then silent no-ops. While a patch is being typed or
//! pasted into the terminal it is held off (`hold`), as it would be drawn into the text.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes on before its progress is shown.
const DELAY: Duration = Duration::from_secs(1);

struct Progress {
    bar: ProgressBar,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    /// The run is done: a spinner must not appear after that.
    done: bool,
    /// The patch is being typed or pasted on the terminal: a spinner would be drawn into it.
    held: bool,
    /// How many delays have begun: only the latest may draw, so a delay that a hold
    /// interrupted does not draw after the hold ends.
    delays: u32,
}

static PROGRESS: OnceLock<Progress> = OnceLock::new();

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

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
    let progress = Progress {
        bar,
        state: Arc::default(),
    };
    if PROGRESS.set(progress).is_err() {
        return;
    }
    if let Some(p) = PROGRESS.get() {
        delay(p);
    }
}

/// Show the progress line once a delay has passed, unless the run is done, held, or a later
/// delay has begun by then.
fn delay(p: &Progress) {
    let (shown, state) = (p.bar.clone(), Arc::clone(&p.state));
    let this = {
        let mut s = lock(&state);
        s.delays += 1;
        s.delays
    };
    std::thread::spawn(move || {
        std::thread::sleep(DELAY);
        let s = lock(&state);
        if !s.done && !s.held && s.delays == this {
            shown.set_draw_target(ProgressDrawTarget::stderr());
            shown.enable_steady_tick(Duration::from_millis(120));
        }
    });
}

/// Draw nothing until the run names its next stage: the patch is being read from the
/// terminal, where a spinner would land in the text being pasted. Called right after
/// [`start`], before its delay has passed.
pub fn hold() {
    if let Some(p) = PROGRESS.get() {
        lock(&p.state).held = true;
    }
}

/// Name the stage the run is in now.
pub fn stage(what: &'static str) {
    if let Some(p) = PROGRESS.get() {
        p.bar.set_message(what);
        let resumed = std::mem::take(&mut lock(&p.state).held);
        if resumed {
            // The time spent typing the patch is not the run's.
            p.bar.reset_elapsed();
            delay(p);
        }
    }
}

/// The run is done: take the progress line off the terminal before the report is printed.
pub fn finish() {
    if let Some(p) = PROGRESS.get() {
        let mut state = lock(&p.state);
        state.done = true;
        p.bar.finish_and_clear();
    }
}

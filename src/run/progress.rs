//! Progress on standard error for a run that takes a while: one line naming the stage being
//! worked on, drawn only once the run has gone on for a second, and only when the CLI turned
//! it on for a terminal. The MCP server never turns it on (its stderr is a log), nor does a
//! run whose stderr is a pipe: stages are then silent no-ops. While a patch is being typed or
//! pasted into the terminal it is held off (`hold`), as it would be drawn into the text.
//!
//! Drawn here rather than by a progress-bar crate: one line, redrawn in place, is all it
//! is, and the crate brought the maths library into every process's start (its `pow`).

use std::io::Write as _;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a run goes on before its progress is shown.
const DELAY: Duration = Duration::from_secs(1);

/// How often the line is drawn again once shown.
const TICK: Duration = Duration::from_millis(120);

/// The spinner's frames, one per tick.
const FRAMES: [char; 8] = ['⠁', '⠂', '⠄', '⡀', '⢀', '⠠', '⠐', '⠈'];

struct Progress {
    state: Arc<Mutex<State>>,
}

struct State {
    /// The run is done: a spinner must not appear after that.
    done: bool,
    /// The patch is being typed or pasted on the terminal: a spinner would be drawn into it.
    held: bool,
    /// How many delays have begun: only the latest may draw, so a delay that a hold
    /// interrupted does not draw after the hold ends.
    delays: u32,
    /// The stage being worked on.
    stage: &'static str,
    /// Since when the run has been working (the time a patch was being typed is not counted).
    since: Instant,
    /// How many characters of the line are on the terminal (0: none), to be written over
    /// when it is drawn again or cleared.
    shown: usize,
}

static PROGRESS: OnceLock<Progress> = OnceLock::new();

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Turn progress on for this process when standard error is a terminal (not under `-q`,
/// which shows only errors: the caller does not call this then).
pub fn start() {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() || PROGRESS.get().is_some() {
        return;
    }
    let progress = Progress {
        state: Arc::new(Mutex::new(State {
            done: false,
            held: false,
            delays: 0,
            stage: "working",
            since: Instant::now(),
            shown: 0,
        })),
    };
    if PROGRESS.set(progress).is_err() {
        return;
    }
    if let Some(p) = PROGRESS.get() {
        delay(p);
    }
}

/// Draw the progress line once a delay has passed, and again every tick, until the run is
/// done, held, or a later delay has begun.
fn delay(p: &Progress) {
    let state = Arc::clone(&p.state);
    let this = {
        let mut s = lock(&state);
        s.delays += 1;
        s.delays
    };
    std::thread::spawn(move || {
        std::thread::sleep(DELAY);
        for frame in FRAMES.iter().cycle() {
            {
                let mut s = lock(&state);
                if s.done || s.held || s.delays != this {
                    return;
                }
                let text = format!("{frame} {} ({})", s.stage, elapsed(s.since.elapsed()));
                // Cut to the terminal's width: a line that wrapped would not be cleared whole.
                let text: String = text.chars().take(width().saturating_sub(1)).collect();
                // Written under the lock, so that `finish` clears it after, never before.
                let mut err = std::io::stderr().lock();
                let _ = err
                    .write_all(redraw(s.shown, &text).as_bytes())
                    .and_then(|()| err.flush());
                s.shown = text.chars().count();
            }
            std::thread::sleep(TICK);
        }
    });
}

/// The width of the terminal standard error is on (80 where it cannot be asked).
fn width() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: winsize is plain integers, for which all zeroes is a value.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        // SAFETY: TIOCGWINSZ only fills the winsize it is given, which lives across the call.
        let asked = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) };
        if asked == 0 && size.ws_col > 0 {
            return usize::from(size.ws_col);
        }
    }
    80
}

/// Take the line off the terminal, where it was drawn.
fn clear(s: &mut State) {
    let shown = std::mem::take(&mut s.shown);
    if shown > 0 {
        let mut err = std::io::stderr().lock();
        let _ = err
            .write_all(erase(shown).as_bytes())
            .and_then(|()| err.flush());
    }
}

/// `text` written over a line of `shown` characters: back to the line's start, and spaces
/// over what the new text leaves. Plain characters, not a terminal's escape sequences, so
/// that every console shows it alike (a Windows console takes no escapes unless asked to).
fn redraw(shown: usize, text: &str) -> String {
    let pad = shown.saturating_sub(text.chars().count());
    format!("\r{text}{}", " ".repeat(pad))
}

/// A line of `shown` characters taken off the terminal: written over with spaces, the cursor
/// back at its start for what is printed next.
fn erase(shown: usize) -> String {
    format!("\r{}\r", " ".repeat(shown))
}

/// `4s`, `1m 5s`.
fn elapsed(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m {}s", s / 60, s % 60)
    }
}

/// Draw nothing until the run names its next stage: the patch is being read from the
/// terminal, where a spinner would land in the text being pasted. Called right after
/// [`start`], before its delay has passed.
pub fn hold() {
    if let Some(p) = PROGRESS.get() {
        let mut s = lock(&p.state);
        s.held = true;
        // Drawn already (the run was slow to get here): not left above the text typed.
        clear(&mut s);
    }
}

/// Name the stage the run is in now.
pub fn stage(what: &'static str) {
    // Test builds panic on request as a stage begins, so that a test sees what a panic does
    // to a line drawn already.
    #[cfg(debug_assertions)]
    if std::env::var_os("GIT_LLM_APPLY_TEST_PANIC_AT").is_some_and(|at| at == what) {
        panic!("injected for a test at: {what}");
    }
    if let Some(p) = PROGRESS.get() {
        let resumed = {
            let mut s = lock(&p.state);
            s.stage = what;
            let resumed = std::mem::take(&mut s.held);
            if resumed {
                // The time spent typing the patch is not the run's.
                s.since = Instant::now();
            }
            resumed
        };
        if resumed {
            delay(p);
        }
    }
}

/// The run is done: take the progress line off the terminal before the report is printed.
pub fn finish() {
    if let Some(p) = PROGRESS.get() {
        finish_locked(&mut lock(&p.state));
    }
}

fn finish_locked(s: &mut State) {
    s.done = true;
    clear(s);
}

/// [`finish`] from a panic hook: the lock is waited for a moment only, as the panicking
/// thread may be the one holding it (then the line stays, rather than the process hanging).
pub fn finish_on_panic() {
    let Some(p) = PROGRESS.get() else { return };
    let until = Instant::now() + Duration::from_millis(50);
    loop {
        match p.state.try_lock() {
            Ok(mut s) => return finish_locked(&mut s),
            Err(std::sync::TryLockError::Poisoned(e)) => return finish_locked(&mut e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{elapsed, erase, redraw};
    use std::time::Duration;

    /// A line drawn again covers the whole of the one before, and one taken off leaves
    /// blanks over all of it with the cursor at the line's start.
    #[test]
    fn a_line_is_written_over_whole() {
        assert_eq!(redraw(0, "⠁ planning (1s)"), "\r⠁ planning (1s)");
        assert_eq!(
            redraw(20, "⠂ writing (2s)"),
            format!("\r⠂ writing (2s){}", " ".repeat(6))
        );
        assert_eq!(erase(3), "\r   \r");
    }

    #[test]
    fn elapsed_time_reads_in_seconds_then_minutes() {
        assert_eq!(elapsed(Duration::from_millis(4_900)), "4s");
        assert_eq!(elapsed(Duration::from_secs(65)), "1m 5s");
    }
}

//! Helper threads started before they are needed, so that work handed to another thread
//! starts at once.
//!
//! A thread created while its creator is busy may wait for the creator's core: on some
//! kernels (seen on this project's 2-core machines) a new thread is queued where it was
//! created, and starts only when its creator blocks, 1 to 4 ms later, while the other core
//! is idle. A thread that is already running and parked is woken on a free core in tens of
//! microseconds. So [`warm`] starts a few parked helpers at the start of a run (one thread
//! starts the rest, so the main thread goes on), [`spawn`] and [`join`] hand work to an idle
//! one, and where none is idle they start a thread as before. Work never waits for a helper
//! to come free: each piece of work gets a thread of its own, so pieces that wait for each
//! other cannot deadlock.

use std::any::Any;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The helpers parked now, each waiting on its own channel, with its thread id.
static IDLE: Mutex<Vec<(Sender<Job>, Tid)>> = Mutex::new(Vec::new());

#[cfg(all(target_os = "linux", not(feature = "portable")))]
type Tid = libc::pid_t;
#[cfg(any(not(target_os = "linux"), feature = "portable"))]
type Tid = ();

/// How many helpers [`warm_for_big_work`] starts: enough for the work a one-file apply of a
/// big file hands out at once (hashing the file read, then the new content, comparing,
/// writing its blob, decoding and diffing halves).
const HELPERS: usize = 6;

/// The smallest work handed to another thread: a file or patch of this size (hashing a file
/// read ahead, `repo::Content`). Below it nothing is handed out, and no helper is started:
/// starting one costs more than the work it would take over (scripts/bench.sh, the
/// one-line rows).
pub const BIG: usize = 1 << 20;

/// Start the helpers big work will want, once something big is met (a file or patch of
/// [`BIG`] bytes or more), so that they are parked by the time work is handed to them.
pub fn warm_for_big_work() {
    warm(HELPERS);
}

/// Start helpers until `n` are parked (those already parked count). Only a head start:
/// where a thread cannot be started, work later starts its own.
pub fn warm(n: usize) {
    affinity::remember();
    let idle = IDLE.lock().unwrap_or_else(|e| e.into_inner()).len();
    if idle >= n {
        return;
    }
    // One new thread starts the rest: each thread starts on the core of the thread that
    // created it and runs at once, and this one has better things to do meanwhile.
    let _ = start(Some(Box::new(move || {
        for _ in idle + 1..n {
            if start(None).is_err() {
                return;
            }
        }
    })));
}

/// Start a helper, running `first` before it parks.
fn start(first: Option<Job>) -> io::Result<()> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("llm-apply helper".into())
        .spawn(move || helper(first, tx, rx))
        .map(drop)
}

/// A helper's life: run each job it is handed, parking in between. `me` is its own
/// channel's sender, handed out each time it parks.
// Without thread pinning a helper's id is `()`: the same code serves both builds.
#[cfg_attr(
    any(not(target_os = "linux"), feature = "portable"),
    allow(clippy::let_unit_value)
)]
fn helper(first: Option<Job>, me: Sender<Job>, jobs: Receiver<Job>) {
    if let Some(job) = first {
        job();
    }
    let tid = affinity::me();
    loop {
        IDLE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((me.clone(), tid));
        match jobs.recv() {
            Ok(job) => {
                // Woken where it was sent; from here on the scheduler places it freely.
                affinity::anywhere();
                job();
            }
            Err(_) => return,
        }
    }
}

/// Run `job` on an idle helper, or on a new one when none is idle (`Err`: no thread could
/// be started, and the job was dropped unrun).
fn run(job: Job) -> io::Result<()> {
    affinity::remember();
    let parked = IDLE.lock().unwrap_or_else(|e| e.into_inner()).pop();
    let Some((tx, tid)) = parked else {
        return start(Some(job));
    };
    // A parked helper is blocked in `recv` on a channel it holds open: it takes the job, on
    // another core than this thread's.
    affinity::away_from_caller(tid);
    match tx.send(job) {
        Ok(()) => Ok(()),
        Err(mpsc::SendError(job)) => start(Some(job)),
    }
}

/// Where helpers run. Woken on the core of the thread that handed them work, a helper may
/// take that core from it (the kernel favours a thread that slept) while the other core
/// idles; so a helper is woken with the caller's core ruled out, and allowed every core again
/// once it runs.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
mod affinity {
    use std::sync::OnceLock;

    /// The cores the process may run on, as it started.
    fn all() -> Option<&'static libc::cpu_set_t> {
        static ALL: OnceLock<Option<libc::cpu_set_t>> = OnceLock::new();
        ALL.get_or_init(|| {
            // SAFETY: a zeroed cpu_set_t is an empty set; the call fills it.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                let size = std::mem::size_of::<libc::cpu_set_t>();
                (libc::sched_getaffinity(0, size, &mut set) == 0).then_some(set)
            }
        })
        .as_ref()
    }

    /// Note the cores this thread may use (before any helper's are narrowed) as every
    /// core; otherwise the first helper woken would take its own narrowed set for it.
    pub fn remember() {
        all();
    }

    pub fn me() -> libc::pid_t {
        // SAFETY: no arguments, no memory.
        unsafe { libc::gettid() }
    }

    /// Let the calling thread run on every core the process may use.
    pub fn anywhere() {
        if let Some(set) = all() {
            // SAFETY: a valid set, for the calling thread (0).
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set);
            }
        }
    }

    /// Keep thread `tid` off the core the calling thread runs on now, where another is left.
    pub fn away_from_caller(tid: libc::pid_t) {
        let Some(all) = all() else {
            return;
        };
        // SAFETY: sched_getcpu has no arguments; the set is a copy of a valid one, changed
        // with the libc macros, and given to a thread of this process.
        unsafe {
            let here = libc::sched_getcpu();
            if here < 0 {
                return;
            }
            let mut set = *all;
            libc::CPU_CLR(here as usize, &mut set);
            if libc::CPU_COUNT(&set) > 0 {
                libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set);
            }
        }
    }
}

#[cfg(any(not(target_os = "linux"), feature = "portable"))]
mod affinity {
    pub fn remember() {}
    pub fn me() {}
    pub fn anywhere() {}
    pub fn away_from_caller(_: ()) {}
}

/// Work handed to another thread with [`spawn`]: its result, once done.
pub struct Handle<T> {
    done: Receiver<std::thread::Result<T>>,
}

impl<T> Handle<T> {
    /// Wait for the work; `Err` holds its panic, as [`std::thread::JoinHandle::join`] does.
    pub fn join(self) -> std::thread::Result<T> {
        self.done.recv().unwrap_or_else(|_| Err(lost()))
    }
}

fn lost() -> Box<dyn Any + Send> {
    Box::new("the helper thread ended without an answer")
}

/// Run `f` on another thread (an idle helper where there is one).
pub fn spawn<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> io::Result<Handle<T>> {
    let (tx, rx) = mpsc::channel();
    run(Box::new(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
    }))?;
    Ok(Handle { done: rx })
}

/// `a()` here and `b()` on another thread at once, both free to borrow from the caller.
/// `None` for `b` when no thread could be started for it (it did not run) or it panicked;
/// a panic of `a` goes on once `b` is done.
pub fn join<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, Option<B>) {
    let (tx, rx) = mpsc::channel::<std::thread::Result<B>>();
    let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(b)));
    });
    // SAFETY: the job borrows from the caller's frame (through `b`). It is only lifted to
    // 'static to be handed over; `Wait` below blocks until the job has finished (its sender
    // is dropped when it returns or unwinds), on every way out of this function, unwinding
    // included, so nothing it borrows ends before it does. When no thread takes it, `run`
    // returns it dropped, unrun.
    let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
    let started = run(job).is_ok();
    /// Waits, when dropped while the job may still run, until it has finished.
    struct Wait<'r, B>(&'r Receiver<std::thread::Result<B>>, bool);
    impl<B> Drop for Wait<'_, B> {
        fn drop(&mut self) {
            if self.1 {
                // Returns once the job sent its result or dropped its sender.
                let _ = self.0.recv();
            }
        }
    }
    let mut wait = Wait(&rx, started);
    let mine = a();
    let theirs = if started {
        wait.1 = false;
        rx.recv().ok().and_then(Result::ok)
    } else {
        None
    };
    drop(wait);
    (mine, theirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_helpers_and_answers() {
        warm(2);
        let handles: Vec<Handle<u64>> = (0..8u64)
            .map(|i| spawn(move || i * i).expect("a thread"))
            .collect();
        let got: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(got, (0..8u64).map(|i| i * i).collect::<Vec<_>>());
    }

    #[test]
    fn a_panic_comes_back_as_an_error_and_the_helper_lives_on() {
        warm(1);
        let h = spawn(|| -> u8 { panic!("on purpose") }).expect("a thread");
        assert!(h.join().is_err());
        assert_eq!(spawn(|| 7).unwrap().join().unwrap(), 7);
    }

    #[test]
    fn join_borrows_and_runs_both() {
        warm(1);
        let data: Vec<u32> = (1..=1000).collect();
        let (left, right) = data.split_at(500);
        let (a, b) = join(|| left.iter().sum::<u32>(), || right.iter().sum::<u32>());
        assert_eq!(a + b.expect("b ran"), 500_500);
    }

    #[test]
    fn work_that_waits_for_other_work_gets_a_thread_of_its_own() {
        // Two pieces where the first waits for the second: with one helper parked, the
        // second must start on a new thread rather than queue behind the first.
        warm(1);
        let (tx, rx) = mpsc::channel::<u32>();
        let waiter = spawn(move || rx.recv().unwrap() + 1).unwrap();
        let sender = spawn(move || tx.send(41).unwrap()).unwrap();
        sender.join().unwrap();
        assert_eq!(waiter.join().unwrap(), 42);
    }

    #[test]
    fn a_panic_in_join_waits_for_the_other_side_first() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let done = AtomicBool::new(false);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            join(
                || panic!("here"),
                || {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    done.store(true, Ordering::SeqCst);
                },
            )
        }));
        assert!(caught.is_err());
        assert!(
            done.load(Ordering::SeqCst),
            "b finished before join unwound"
        );
    }
}

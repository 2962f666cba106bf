//! The one thread that runs the server's tool calls, in the order they come, while the
//! protocol goes on on the runtime's thread.
//!
//! A call is synchronous work on the files, and calls run one at a time: one thread keeps
//! what a call may use again (`run/kept.rs` keeps the config and repository per thread) warm
//! for the next. The protocol is not on it, so a call that takes a while (a slow hook) does
//! not hold up answers already made, pings, or the reading of a cancellation. A call cancelled
//! while it waits in the queue does not run; one cancelled after it began runs to its end, as
//! a call that may be writing must, and its answer is dropped.
//!
//! Work that follows a call ([`Calls::later`]: the prune after an apply) waits until no call
//! has come for a moment, so that it never takes a core from a call's answer on its way out.
//!
//! When the session ends, [`Calls::close`] waits for the call that is running, and no call
//! still queued begins: the process never ends in the middle of a write. Later work still
//! waiting runs then, before the thread ends: a client that leaves at once after its last
//! answer still has its snapshots beyond `llm-apply.keep` dropped.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

type Job = Box<dyn FnOnce() + Send>;

/// What the call thread is given.
enum Work {
    /// A call, run in its turn.
    Call(Job),
    /// Work after a call ([`Calls::later`]).
    Later(Job),
    /// The session has ended ([`Calls::close`]).
    Close,
}

/// How long no call must have come before later work runs: longer than an answer takes to be
/// written and read (a fraction of a millisecond), shorter than the pause an agent makes.
const IDLE: Duration = Duration::from_millis(5);

/// How long later work waits at most while calls keep coming: then it runs before the next.
const LATER_AT_MOST: Duration = Duration::from_secs(1);

/// The call thread's queue.
#[derive(Debug, Clone)]
pub struct Calls {
    queue: mpsc::Sender<Work>,
    gate: Arc<Gate>,
    /// Disconnected when the thread has ended ([`Calls::close`] waits for that).
    ended: Arc<Mutex<mpsc::Receiver<()>>>,
}

/// Held while a call runs; `closed` once the session has ended (no call begins after that).
#[derive(Debug, Default)]
struct Gate {
    running: Mutex<()>,
    closed: AtomicBool,
}

impl Calls {
    /// Start the thread.
    pub fn start() -> std::io::Result<Calls> {
        let (queue, work) = mpsc::channel::<Work>();
        let (alive, ended) = mpsc::channel::<()>();
        let gate = Arc::new(Gate::default());
        let ours = Arc::clone(&gate);
        std::thread::Builder::new()
            .name("llm-apply call".into())
            .spawn(move || {
                serve(&work, &ours);
                drop(alive);
            })?;
        Ok(Calls {
            queue,
            gate,
            ended: Arc::new(Mutex::new(ended)),
        })
    }

    /// Run `f` on the call thread after the calls queued before it, and give its result, or
    /// its panic. `None` when the session has ended and it will not run.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<std::thread::Result<T>> {
        let (answer, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            // The caller is gone (the request was cancelled): the call is not made.
            if answer.is_closed() {
                return;
            }
            // The caller may go while it runs: the answer is then dropped.
            let _ = answer.send(catch_unwind(AssertUnwindSafe(f)));
        });
        self.queue.send(Work::Call(job)).ok()?;
        result.await.ok()
    }

    /// Run `f` on the call thread once no call has come for a moment ([`IDLE`]), before the
    /// next call when calls have kept coming for [`LATER_AT_MOST`], or when the session ends;
    /// it answers no one. It replaces later work given before and not yet run (the newest
    /// covers what an older one would do: each prune drops everything beyond
    /// `llm-apply.keep`).
    pub fn later(&self, f: impl FnOnce() + Send + 'static) {
        let _ = self.queue.send(Work::Later(Box::new(move || {
            let _ = catch_unwind(AssertUnwindSafe(f));
        })));
    }

    /// End the session's calls: wait for the one running and for later work still waiting,
    /// and let no other call begin.
    pub fn close(&self) {
        self.gate.closed.store(true, Ordering::SeqCst);
        let _ = self.queue.send(Work::Close);
        // Nothing is ever sent on it: this returns when the thread has ended.
        let _ = self
            .ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
    }
}

/// The call thread: each call in its turn, later work when the calls pause or the session
/// ends.
fn serve(work: &mpsc::Receiver<Work>, gate: &Gate) {
    let mut later: Option<(Job, Instant)> = None;
    loop {
        let next = match &later {
            None => work.recv().ok(),
            Some((_, since)) => {
                let wait = LATER_AT_MOST.saturating_sub(since.elapsed()).min(IDLE);
                match work.recv_timeout(wait) {
                    Ok(w) => Some(w),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        run_later(&mut later, gate);
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => None,
                }
            }
        };
        let job = match next {
            None | Some(Work::Close) => break,
            Some(Work::Later(job)) => {
                // The newest replaces the one waiting, and waits from when that one began.
                let since = later.map_or_else(Instant::now, |(_, since)| since);
                later = Some((job, since));
                continue;
            }
            Some(Work::Call(job)) => job,
        };
        // Later work that has waited its longest goes first.
        if later
            .as_ref()
            .is_some_and(|(_, since)| since.elapsed() >= LATER_AT_MOST)
        {
            run_later(&mut later, gate);
        }
        let running = gate.running.lock().unwrap_or_else(PoisonError::into_inner);
        // Read under the lock: `close` sets it before it waits for the thread.
        if gate.closed.load(Ordering::SeqCst) {
            break;
        }
        job();
        drop(running);
    }
    run_later(&mut later, gate);
}

/// Run the later work waiting, if any.
fn run_later(later: &mut Option<(Job, Instant)>, gate: &Gate) {
    if let Some((job, _)) = later.take() {
        let _running = gate.running.lock().unwrap_or_else(PoisonError::into_inner);
        job();
    }
}

#[cfg(test)]
mod tests {
    use super::Calls;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    }

    /// Calls run one after another on one thread, in the order they were sent, and the
    /// runtime's own tasks go on while one runs.
    #[test]
    fn calls_run_in_order_on_one_thread_while_the_runtime_goes_on() {
        let calls = Calls::start().expect("thread");
        runtime().block_on(async {
            let first = calls.run(|| {
                std::thread::sleep(Duration::from_millis(200));
                std::thread::current().id()
            });
            let second = calls.run(|| std::thread::current().id());
            let ticks = Arc::new(AtomicUsize::new(0));
            let t = Arc::clone(&ticks);
            let ticker = tokio::spawn(async move {
                for _ in 0..5 {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    t.fetch_add(1, Ordering::SeqCst);
                }
            });
            let (a, b) = tokio::join!(first, second);
            let (a, b) = (a.unwrap().unwrap(), b.unwrap().unwrap());
            assert_eq!(a, b);
            assert_ne!(a, std::thread::current().id());
            // The ticker finished while the first call slept.
            assert_eq!(ticks.load(Ordering::SeqCst), 5);
            ticker.await.unwrap();
        });
    }

    /// Later work waits for a pause in the calls: a call that comes at once runs first, and
    /// of two later jobs given before a pause only the newer runs.
    #[test]
    fn later_work_runs_in_a_pause_and_only_the_newest() {
        let calls = Calls::start().expect("thread");
        let rt = runtime();
        let ran = Arc::new(std::sync::Mutex::new(Vec::new()));
        // A first call holds the thread while the later work and a second call are queued.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let c = calls.clone();
        let first = rt.spawn(async move { c.run(move || wait.recv().unwrap()).await });
        rt.block_on(async { tokio::time::sleep(Duration::from_millis(20)).await });
        let (a, b) = (Arc::clone(&ran), Arc::clone(&ran));
        calls.later(move || a.lock().unwrap().push("older"));
        calls.later(move || b.lock().unwrap().push("newer"));
        let (c, seen) = (calls.clone(), Arc::clone(&ran));
        let second = rt.spawn(async move { c.run(move || seen.lock().unwrap().clone()).await });
        rt.block_on(async { tokio::time::sleep(Duration::from_millis(20)).await });
        go.send(()).unwrap();
        assert!(rt.block_on(first).unwrap().is_some());
        let at_call = rt.block_on(second).unwrap().unwrap().unwrap();
        assert!(
            at_call.is_empty(),
            "later work ran before the call: {at_call:?}"
        );
        let start = std::time::Instant::now();
        while ran.lock().unwrap().is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "later work never ran"
            );
            std::thread::sleep(super::IDLE);
        }
        std::thread::sleep(super::IDLE * 4);
        assert_eq!(*ran.lock().unwrap(), ["newer"]);
    }

    /// Later work does not wait for ever while calls keep coming: with calls queued back to
    /// back (no pause for it to run in), it runs before one of them once it has waited
    /// [`super::LATER_AT_MOST`], not after the last.
    #[test]
    fn later_work_runs_while_calls_keep_coming_once_it_has_waited_its_longest() {
        const CALLS: usize = 1000;
        let calls = Calls::start().expect("thread");
        let rt = runtime();
        // A first call holds the thread while the later work and the calls are queued.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let c = calls.clone();
        let first = rt.spawn(async move { c.run(move || wait.recv().unwrap()).await });
        rt.block_on(async { tokio::time::sleep(Duration::from_millis(20)).await });
        let finished = Arc::new(AtomicUsize::new(0));
        let at_later = Arc::new(std::sync::Mutex::new(None));
        let (f, a) = (Arc::clone(&finished), Arc::clone(&at_later));
        calls.later(move || {
            *a.lock().unwrap() = Some((f.load(Ordering::SeqCst), std::time::Instant::now()));
        });
        let queued: Vec<_> = (0..CALLS)
            .map(|_| {
                let (c, f) = (calls.clone(), Arc::clone(&finished));
                rt.spawn(async move {
                    c.run(move || {
                        std::thread::sleep(super::IDLE / 2);
                        f.fetch_add(1, Ordering::SeqCst);
                    })
                    .await
                })
            })
            .collect();
        rt.block_on(async { tokio::time::sleep(Duration::from_millis(20)).await });
        let released = std::time::Instant::now();
        go.send(()).unwrap();
        assert!(rt.block_on(first).unwrap().is_some());
        for q in queued {
            assert!(rt.block_on(q).unwrap().is_some());
        }
        let (calls_done, when) = at_later.lock().unwrap().expect("later work ran");
        assert!(
            calls_done < CALLS,
            "later work waited for every call to end ({calls_done})"
        );
        assert!(
            when.duration_since(released) >= super::LATER_AT_MOST,
            "later work ran after {:?}, with calls waiting",
            when.duration_since(released)
        );
    }

    /// Later work still waiting when the session ends runs before `close` returns (a client
    /// that leaves at once after its answer still has its prune), and no queued call begins.
    #[test]
    fn later_work_waiting_when_the_session_ends_runs_before_close_returns() {
        let calls = Calls::start().expect("thread");
        let done = Arc::new(AtomicUsize::new(0));
        let d = Arc::clone(&done);
        calls.later(move || {
            std::thread::sleep(Duration::from_millis(50));
            d.fetch_add(1, Ordering::SeqCst);
        });
        calls.close();
        assert_eq!(done.load(Ordering::SeqCst), 1);
        assert!(runtime().block_on(calls.run(|| 1)).is_none());
    }

    /// A panic is the caller's to report, and the thread takes the next call.
    #[test]
    fn a_panic_is_given_back_and_the_next_call_runs() {
        let calls = Calls::start().expect("thread");
        runtime().block_on(async {
            let failed = calls.run(|| -> u32 { panic!("boom") }).await.unwrap();
            assert!(failed.is_err());
            assert_eq!(calls.run(|| 7).await.unwrap().unwrap(), 7);
        });
    }

    /// A call whose caller went away (a cancelled request) while it waited is not made.
    #[test]
    fn a_call_cancelled_while_it_waits_is_not_made() {
        let calls = Calls::start().expect("thread");
        let made = Arc::new(AtomicUsize::new(0));
        let rt = runtime();
        let c = calls.clone();
        let first = rt.spawn(async move {
            c.run(|| std::thread::sleep(Duration::from_millis(300)))
                .await
        });
        let (c, m) = (calls.clone(), Arc::clone(&made));
        let second = rt.spawn(async move { c.run(move || m.fetch_add(1, Ordering::SeqCst)).await });
        rt.block_on(async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            second.abort();
            assert!(first.await.unwrap().is_some());
            // A call queued after the cancelled one runs: the thread went on past it.
            assert_eq!(calls.run(|| 5).await.unwrap().unwrap(), 5);
        });
        assert_eq!(made.load(Ordering::SeqCst), 0);
    }

    /// Closing waits for the running call, and a call queued behind it never begins.
    #[test]
    fn closing_waits_for_the_running_call_and_starts_no_other() {
        let calls = Calls::start().expect("thread");
        let done = Arc::new(AtomicUsize::new(0));
        let rt = runtime();
        let (d1, d2) = (Arc::clone(&done), Arc::clone(&done));
        let c = calls.clone();
        let first = rt.spawn(async move {
            c.run(move || {
                std::thread::sleep(Duration::from_millis(300));
                d1.fetch_add(1, Ordering::SeqCst);
            })
            .await
        });
        let c = calls.clone();
        let second =
            rt.spawn(async move { c.run(move || d2.fetch_add(10, Ordering::SeqCst)).await });
        // Both are queued and the first is running.
        rt.block_on(async { tokio::time::sleep(Duration::from_millis(100)).await });
        calls.close();
        assert_eq!(
            done.load(Ordering::SeqCst),
            1,
            "close waited for the running call"
        );
        assert!(rt.block_on(first).unwrap().is_some());
        assert!(
            rt.block_on(second).unwrap().is_none(),
            "the queued call never ran"
        );
        assert_eq!(done.load(Ordering::SeqCst), 1);
    }
}

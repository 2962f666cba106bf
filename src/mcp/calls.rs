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
//! When the session ends, [`Calls::close`] waits for the call that is running, and no call
//! still queued begins: the process never ends in the middle of a write.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};

type Job = Box<dyn FnOnce() + Send>;

/// The call thread's queue.
#[derive(Debug, Clone)]
pub struct Calls {
    queue: mpsc::Sender<Job>,
    gate: Arc<Gate>,
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
        let (queue, jobs) = mpsc::channel::<Job>();
        let gate = Arc::new(Gate::default());
        let ours = Arc::clone(&gate);
        std::thread::Builder::new()
            .name("llm-apply call".into())
            .spawn(move || {
                for job in jobs {
                    let running = ours.running.lock().unwrap_or_else(PoisonError::into_inner);
                    // Read under the lock: `close` sets it before it waits for the lock.
                    if ours.closed.load(Ordering::SeqCst) {
                        return;
                    }
                    job();
                    drop(running);
                }
            })?;
        Ok(Calls { queue, gate })
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
        self.queue.send(job).ok()?;
        result.await.ok()
    }

    /// Run `f` on the call thread after the calls queued before it, answering no one: work
    /// that follows a call's answer (the answer is sent while it runs). It does not run once
    /// the session has ended.
    pub fn later(&self, f: impl FnOnce() + Send + 'static) {
        let _ = self.queue.send(Box::new(move || {
            let _ = catch_unwind(AssertUnwindSafe(f));
        }));
    }

    /// End the session's calls: wait for the one running, and let no other begin.
    pub fn close(&self) {
        self.gate.closed.store(true, Ordering::SeqCst);
        drop(
            self.gate
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
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

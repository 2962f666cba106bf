//! Test-only fault injection at file-system mutations (compiled in debug builds only).
//!
//! Every mutation an apply or an undo makes through this crate (an object, a ref, the lock,
//! the journal, a work-tree file or directory, the index) first calls [`mutation`]. With
//! `GIT_LLM_APPLY_TEST_ABORT_AFTER_MUTATIONS=K` the process aborts, as `kill -9` would, before
//! its (K+1)th mutation: K of them happened, nothing after. With
//! `GIT_LLM_APPLY_TEST_TRACE_MUTATIONS=FILE` each one is appended to FILE as `N what`, so a
//! test can count the points and kill at each in turn.

#[cfg(debug_assertions)]
pub(crate) fn mutation(what: &str) {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    static COUNT: AtomicUsize = AtomicUsize::new(0);
    static SETTINGS: OnceLock<(Option<usize>, Option<std::path::PathBuf>)> = OnceLock::new();
    let (abort_after, trace) = SETTINGS.get_or_init(|| {
        (
            std::env::var("GIT_LLM_APPLY_TEST_ABORT_AFTER_MUTATIONS")
                .ok()
                .and_then(|v| v.parse().ok()),
            std::env::var_os("GIT_LLM_APPLY_TEST_TRACE_MUTATIONS").map(Into::into),
        )
    });
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if abort_after.is_some_and(|k| n > k) {
        std::process::abort();
    }
    if let Some(path) = trace {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{n} {what}");
        }
    }
}

#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn mutation(_what: &str) {}

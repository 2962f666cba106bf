//! The `git-llm-apply` binary: the process set up, the allocator tuned (`sys::alloc`), then a
//! trampoline into the CLI, behind the panic guard.
//!
//! On glibc Linux the binary starts at its own C `main`, not through Rust's runtime start.
//! That start also finds the main thread's stack guard, for the message a stack overflow
//! prints: glibc learns it by reading and parsing `/proc/self/maps`, a twentieth of the
//! instructions of a one-line apply (measured with callgrind). What else that start does
//! and the CLI relies on is done here: standard input, output and error are open (on
//! `/dev/null` if they were closed, so that no file this run opens takes their place), and
//! SIGPIPE is ignored (a closed pipe is an error the CLI reports, not a silent death). Rust's
//! `std::env::args` reads the arguments glibc hands every initializer, so they are there as
//! before, and standard output is flushed before the exit status goes back. A stack overflow
//! still kills the process (SIGSEGV), without that message.

// Not in the test build of this crate, whose harness brings its own `main`.
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    start();
    let code = run();
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    libc::c_int::from(code)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(run())
}

fn run() -> u8 {
    git_llm_apply::sys::alloc::tune();
    git_llm_apply::cli::panic::guard(git_llm_apply::cli::main)
}

/// Standard input, output and error open, and SIGPIPE ignored, as Rust's runtime start
/// leaves them.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn start() {
    // SAFETY: fcntl only asks about a descriptor; open and signal take a valid C string and
    // a valid disposition. Nothing else runs yet.
    unsafe {
        for fd in 0..3 {
            // A closed descriptor: the lowest free one, which /dev/null now takes.
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
                && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == -1
            {
                libc::abort();
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

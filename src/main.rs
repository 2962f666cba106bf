//! The `git-llm-apply` binary: the allocator tuned (`sys::alloc`), then a trampoline into the
//! CLI, behind the panic guard.

fn main() -> std::process::ExitCode {
    git_llm_apply::sys::alloc::tune();
    git_llm_apply::cli::panic::guard(git_llm_apply::cli::main)
}

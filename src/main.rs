//! The `git-llm-apply` binary: a trampoline into the CLI, behind the panic guard.

fn main() -> std::process::ExitCode {
    git_llm_apply::cli::panic::guard(git_llm_apply::cli::main)
}

//! The `git-llm-apply` binary: a trampoline into the CLI.

fn main() -> std::process::ExitCode {
    git_llm_apply::cli::main()
}

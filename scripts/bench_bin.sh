# Sourced by scripts/bench.sh and scripts/bench-instructions.sh from the checkout's top: sets
# `bin`, the binary they measure: $GIT_LLM_APPLY_BENCH_BIN, else this checkout's release build.
if [ -n "${GIT_LLM_APPLY_BENCH_BIN:-}" ]; then
  bin=$(realpath "$GIT_LLM_APPLY_BENCH_BIN")
else
  cargo build --release --quiet
  bin=$PWD/target/release/git-llm-apply
fi

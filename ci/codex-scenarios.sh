#!/usr/bin/env bash
# Run every Codex apply_patch scenario in ../shared/codex-scenarios through git llm-apply and
# print "N passed, M failed". Scenarios that differ from upstream on purpose are listed below
# (reasons in README.md, "Codex scenarios"); any other failure fails this script.
# Without ../shared it says so and exits 0.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/../shared/codex-scenarios
if [ ! -x "$dir/run.sh" ]; then
  echo "codex-scenarios: $dir not found; skipped"
  exit 0
fi
# Deliberate differences from upstream Codex:
#   010: a Move onto an existing file is refused (upstream overwrites it)
#   015: all or nothing (upstream keeps the files written before the failing one)
expected_failures=" 015_failure_after_partial_success_leaves_changes "
cargo build --release --quiet --manifest-path "$root/Cargo.toml" || exit 1
bin=$root/target/release/git-llm-apply
out=$("$dir/run.sh" -s "$dir/scenarios" "$bin --format codex - < \"\$PATCH_FILE\"" 2>&1)
echo "$out"
unexpected=0
while read -r verdict name _; do
  [ "$verdict" = FAIL ] || continue
  case $expected_failures in
    *" $name "*) echo "codex-scenarios: $name differs on purpose (see README)" ;;
    *) echo "codex-scenarios: UNEXPECTED failure: $name"; unexpected=1 ;;
  esac
done <<< "$out"
exit $unexpected

#!/usr/bin/env bash
# Issue 14's scale case through the release binary: a code-like file of LINES lines (default
# 1,000,000) and a patch of HUNKS one-line hunks (default LINES/10, 3 lines of context each
# side), applied in a temporary repository; then `undo` (human output, as a user runs it) and
# `undo --json`, each from a copy of the applied state, timed with /usr/bin/time (seconds,
# peak KiB). The undo must give back the original file byte for byte.
#
# Usage: scripts/bench-scale.sh [LINES] [HUNKS]
set -euo pipefail

lines=${1:-1000000}
hunks=${2:-$((lines / 10))}
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
cargo build --quiet --release --bin git-llm-apply
bin="$PWD/$CARGO_TARGET_DIR/release/git-llm-apply"
[[ $CARGO_TARGET_DIR = /* ]] && bin="$CARGO_TARGET_DIR/release/git-llm-apply"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git init -q -b main "$work/repo"
python3 scripts/gen-scale.py "$work/repo/big.rs" "$work/big.patch" "$lines" "$hunks"
git -C "$work/repo" add big.rs
git -C "$work/repo" -c user.name=Bench -c user.email=bench@example.com commit -qm base

cd "$work/repo"
/usr/bin/time -f "apply ($hunks hunks, $lines lines): %e s, %M KiB" "$bin" -q ../big.patch
cp -a "$work/repo" "$work/applied"
for args in "undo" "undo --json"; do
    rm -rf "$work/repo" && cp -a "$work/applied" "$work/repo" && cd "$work/repo"
    # shellcheck disable=SC2086
    /usr/bin/time -f "$args: %e s, %M KiB" "$bin" $args >/dev/null
    git show HEAD:big.rs | cmp -s - big.rs || { echo "undo did not restore big.rs" >&2; exit 1; }
done

#!/usr/bin/env bash
# The repositories of a row of scripts/bench.sh (also scripts/bench-instructions.sh's):
# `bench_setup.sh ROW DIR ARGS...` generates the row's files (scripts/bench_gen.py), commits
# DIR/ours in a new repository and copies that repository to DIR/git.
set -euo pipefail
row=$1 d=$2
shift 2
mkdir -p "$d/ours"
python3 "$(dirname "$0")/bench_gen.py" "$row" "$d" "$@"
git -c init.defaultBranch=main -C "$d/ours" init -q
git -C "$d/ours" config user.name bench
git -C "$d/ours" config user.email bench@example.invalid
# No automatic gc: the commit of row H's 100,000 files would start one in the background,
# packing the loose objects while they are copied below (and while runs are timed).
git -C "$d/ours" config gc.auto 0
git -C "$d/ours" add -A
git -C "$d/ours" commit -q -m 'bench: base'
cp -a "$d/ours" "$d/git"
git -C "$d/git" update-index -q --refresh >/dev/null || true
# The setup's own writes reach the disk before any run is timed, not during the first ones.
sync

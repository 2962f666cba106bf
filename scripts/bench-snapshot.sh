#!/usr/bin/env bash
# Time one snapshot (snapshot::create) of one touched file in repositories of 100, 10,000 and
# 100,000 files, laid out 100 files per directory. The cost must follow the touched path, not
# the repository: the three times should be close.
#
# Usage: scripts/bench-snapshot.sh [runs per size, default 7]
set -euo pipefail

runs=${1:-7}
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

cargo build --quiet --release --example bench_snapshot
bench="$CARGO_TARGET_DIR/release/examples/bench_snapshot"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for n in 100 10000 100000; do
    repo="$work/repo-$n"
    git init -q -b main "$repo"
    # One commit with n small files, written as a fast-import stream (seconds, not minutes).
    awk -v n="$n" 'BEGIN {
        print "commit refs/heads/main"
        print "committer Bench <bench@example.com> 1700000000 +0000"
        print "data 4"
        print "base"
        for (i = 0; i < n; i++) {
            content = sprintf("file %d\n", i)
            printf "M 100644 inline d%04d/f%03d.txt\ndata %d\n%s\n", int(i / 100), i % 100, length(content), content
        }
    }' | git -C "$repo" fast-import --quiet
    git -C "$repo" reset -q --hard main
    touched=$(printf 'd%04d/f050.txt' $((n / 200)))
    printf '%7d files: ' "$n"
    "$bench" "$repo" "$touched" "$runs"
done

#!/usr/bin/env bash
# Time a one-file apply WITH its snapshot through the release binary (`git-llm-apply PATCH`,
# process start to exit: lock, plan, ghost commit, journal, write, prune), and, for
# reference, the same apply with --no-snapshot and `snapshot::create` alone, in repositories
# of 100, 10,000 and 100,000 files laid out 100 files per directory. The cost must follow
# the touched path, not the repository: the three times should be close.
#
# Usage: scripts/bench-snapshot.sh [runs per size, default 7]
set -euo pipefail

runs=${1:-7}
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

cargo build --quiet --release --bin git-llm-apply --example bench_snapshot
bench="$CARGO_TARGET_DIR/release/examples/bench_snapshot"
bin="$CARGO_TARGET_DIR/release/git-llm-apply"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }

# Median of the numbers on stdin, in ms with two decimals (input in ns).
median_ms() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1e6 }'; }

# Apply $patch $runs times in $repo (each followed by an untimed undo to reset the file),
# printing each apply's wall time in ns. Extra arguments go to the timed apply.
time_applies() {
    local repo=$1 patch=$2
    shift 2
    for ((r = 0; r < runs; r++)); do
        local t0 t1
        t0=$(now_ns)
        "$bin" -C "$repo" "$@" "$patch" >/dev/null
        t1=$(now_ns)
        echo $((t1 - t0))
        if [[ " $* " == *" --no-snapshot "* ]]; then
            "$bin" -C "$repo" --no-snapshot --revert "$patch" >/dev/null
        else
            "$bin" -C "$repo" undo >/dev/null
        fi
    done
}

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
    dir=$((n / 200))
    touched=$(printf 'd%04d/f050.txt' "$dir")
    store=$("$bench" "$repo" "$touched" "$runs")
    git -C "$repo" checkout -q -- "$touched"

    patch="$work/patch-$n.diff"
    printf -- '--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-file %d\n+patched\n' \
        "$touched" "$touched" $((dir * 100 + 50)) >"$patch"
    with=$(time_applies "$repo" "$patch" | median_ms)
    without=$(time_applies "$repo" "$patch" --no-snapshot | median_ms)
    printf '%7d files: apply with snapshot %s ms, with --no-snapshot %s ms (median of %d); store: %s\n' \
        "$n" "$with" "$without" "$runs" "$store"
done

#!/usr/bin/env bash
# Instructions, not seconds: rows H and I of scripts/bench.sh (a one-line patch to one small
# file of a 100-file repository, snapshot included) counted with valgrind's callgrind, against
# `git apply` of the same patch counted the same way. The counts repeat to the instruction for
# the same binary and inputs whatever else the machine does, where the wall times of those
# rows move by a tenth between runs with the disk's state; use them to tell whether a change
# to the small-call path pays, and bench.sh for the times the goals are set in.
#
#   CLI  a whole `git-llm-apply PATCH` process (a first apply: its result's blob is removed
#        before the run), loader and all, against a whole `git apply PATCH` process.
#   MCP  one warm `apply_patch` call of `git-llm-apply mcp`: the server's count after 22
#        calls less its count after 2, over 20, against a whole `git apply PATCH` process.
#
# Not what they cost in time: the kernel's work (file creation, the disk) is not counted, and
# under valgrind SHA-NI and other instructions the CPU has may be emulated or not taken.
#
#   scripts/bench-instructions.sh [FILES]      FILES: the repository's size (default 100)
#
# Environment: GIT_LLM_APPLY_BENCH_BIN=PATH measures this binary (otherwise: cargo build
# --release). Needs valgrind and python3.
set -euo pipefail
files=${1:-100}
[[ $files =~ ^[1-9][0-9]*$ ]] && ((files > 5)) || { echo "FILES must be an integer above 5" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
cd "$(dirname "$0")/.."
source scripts/bench_bin.sh
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
work=$(mktemp -d "${TMPDIR:-/tmp}/llm-apply-instr.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The repositories of row H (bench.sh's set-up): FILES files of 50 lines, 100 to a directory,
# in $work/ours and a copy in $work/git; the patch changes line 20 of d05/e00/f5.txt.
scripts/bench_setup.sh H "$work" "$files"
file=d05/e00/f5.txt
blob=$(git -C "$work/ours" hash-object -- "$work/expected")

# count OUT CMD...: run CMD under callgrind; print the instructions it ran.
count() {
  local out=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" ||
    { cat "$out.log" >&2; echo "failed: $*" >&2; exit 1; }
  awk '/^summary:/ { print $2 }' "$out"
}
fresh() {
  git -C "$1" checkout -q -- "$file"
  rm -f "$1/.git/objects/${blob:0:2}/${blob:2}"
}
check() { cmp -s "$1/$file" "$work/expected" || { echo "$2: $file is not the expected result" >&2; exit 1; }; }

fresh "$work/git"
g=$(cd "$work/git" && count "$work/git.cg" git apply "$work/patch")
check "$work/git" "git apply"
# One untimed apply first, as bench.sh's first run: the snapshot refs and their directories
# exist from then on, as they do for every later call.
fresh "$work/ours"
(cd "$work/ours" && "$bin" -q "$work/patch")
fresh "$work/ours"
o=$(cd "$work/ours" && count "$work/ours.cg" "$bin" "$work/patch")
check "$work/ours" "git-llm-apply"

# Row I's client (bench.sh's), with the server under callgrind: it makes RUNS + 1 calls (the
# first warms the server), each after the file is put back and the result's blob removed,
# and checks every answer. The count of 22 calls less that of 2, over 20, is one warm call.
mcp() {
  local n=$1
  printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s %s "$@"\n' \
    "$work/mcp$n.cg" "$bin" >"$work/server$n"
  chmod +x "$work/server$n"
  BENCH_MCP_PING=0 python3 scripts/bench_mcp.py "$work/server$n" "$work/ours" "$work/git" "$work/patch" "$file" \
    "$work/expected" "$n" >/dev/null 2>"$work/mcp$n.log" || { cat "$work/mcp$n.log" >&2; exit 1; }
  awk '/^summary:/ { print $2 }' "$work/mcp$n.cg"
}
m2=$(mcp 1)
m22=$(mcp 21)
m=$(((m22 - m2) / 20))

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
echo "instructions (callgrind), one-line patch, $files-file repository"
printf '%-44s %12s %10s\n' "what" "instructions" "vs git"
printf '%-44s %12s %10s\n' "git apply PATCH (whole process)" "$g" "1.00x"
printf '%-44s %12s %10s\n' "git-llm-apply PATCH (whole process)" "$o" "$(ratio "$o" "$g")"
printf '%-44s %12s %10s\n' "MCP apply_patch, one warm call" "$m" "$(ratio "$m" "$g")"

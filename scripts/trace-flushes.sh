#!/usr/bin/env bash
# The flushes and renames a binary makes (strace), for comparing two builds: in a fresh
# repository with `llm-apply.fsync` set to FSYNC, an apply (a small file changed, a 1.8 MB one
# changed, a new file in a directory), its undo, and the same apply with --no-snapshot. Prints
# each step's fsync and rename calls (temporary names, pids, fds and object ids normalised),
# then the per-step counts and what the files hold at the end.
#
#   scripts/trace-flushes.sh BINARY FSYNC     FSYNC: true or false
#
# Two builds do the same flushes when their outputs are the same (each step's calls are
# sorted: the threads' calls interleave differently from run to run).
set -euo pipefail
bin=$(realpath "$1")
fsync=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir "$repo"
cd "$repo"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.com
git init -q
git config llm-apply.fsync "$fsync"
printf 'a\nb\n' > small.txt
mkdir sub
seq 1 200000 | sed 's/^/line /' > sub/big.txt
git add -A
git commit -qm base
sed -i 's/^line 50000$/line 50000 changed/' sub/big.txt
printf 'a\nc\n' > small.txt
echo new > sub/new.txt
git add -N sub/new.txt
git diff > "$work/patch"
git checkout -q -- .
rm -f sub/new.txt
out=$work/out
: > "$out"
for step in apply undo no-snapshot; do
  case $step in
    apply) args=("$work/patch") ;;
    undo) args=(undo) ;;
    no-snapshot) args=(--no-snapshot "$work/patch") ;;
  esac
  # One file per thread (-ff): no call is split in two where threads interleave.
  rm -f "$work"/trace.*
  strace -ff -qq -e trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat \
    -o "$work/trace" "$bin" "${args[@]}" > /dev/null 2>&1 || echo "$step: exit $?" >> "$out"
  cat "$work"/trace.* | sed -E -e 's/\([0-9]+\)/(FD)/g' -e 's/fsync\([0-9]+/fsync(FD/' \
    -e 's/\.llm-apply-[A-Za-z0-9]+\.tmp/.llm-apply-X.tmp/g' \
    -e 's/tmp_obj_llm-apply-[0-9]+-[A-Za-z0-9]+/tmp_obj_X/g' \
    -e 's/\.[0-9]+\.[0-9a-f]+\.tmp/.PID.N.tmp/g' -e 's/(journal|git-binary)\.[0-9]+\.tmp/\1.PID.tmp/g' \
    -e 's/objects\/[0-9a-f]{2}\/[0-9a-f]{38}/objects\/OBJ/g' -e "s|$repo|REPO|g" \
    | { grep -v SIGCHLD || true; } | sort | sed "s/^/$step: /" >> "$out"
done
cat "$out"
for step in apply undo no-snapshot; do
  printf '%s: %s fsync, %s renames\n' "$step" \
    "$(grep "^$step:" "$out" | grep -c 'fsync(FD' || true)" \
    "$(grep "^$step:" "$out" | grep -c 'rename' || true)"
done
printf 'small.txt: %s; sub/big.txt line 50000: %s\n' "$(tr '\n' ' ' < small.txt)" "$(sed -n 50000p sub/big.txt)"

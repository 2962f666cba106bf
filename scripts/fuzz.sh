#!/usr/bin/env bash
# Robustness fuzzing: valid unified, Codex and SEARCH/REPLACE patches for this repository's own
# files, mutated (lines dropped, duplicated, swapped; cut off; huge numbers; NUL, invalid UTF-8,
# CR, long lines; a context line changed; paths aimed outside the tree) and applied in temp
# repositories. Fails on a panic, a timeout, a write outside the work tree or into .git beyond
# the tool's own refs and folder, a refusal that wrote, and an exit 0 that differs from the
# unmutated patch's result when only a context line changed and its place is still unique.
# See scripts/fuzz.py for the details.
#
#   scripts/fuzz.sh [-n ITERATIONS] [-t SECONDS] [-s SEED] [-j JOBS] [-b BINARY] [-o DIR]
#
# ITERATIONS and SECONDS bound the run (each job gets its share of ITERATIONS, and stops at
# SECONDS); the default is 500 iterations. A fixed SEED (default 1) makes a run repeatable: job
# k uses SEED+k. Without -b the release binary is built first. Failing cases are kept in DIR
# (default: a temp folder, named at the end). Exit status 0: nothing found; 1: failures.
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=0 seconds=0 seed=1 jobs=1 bin="" out=""
while getopts "n:t:s:j:b:o:" opt; do
  case $opt in
    n) iterations=$OPTARG ;;
    t) seconds=$OPTARG ;;
    s) seed=$OPTARG ;;
    j) jobs=$OPTARG ;;
    b) bin=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
done
if [ "$iterations" = 0 ] && [ "$seconds" = 0 ]; then iterations=500; fi
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$PWD/target}/release/git-llm-apply
fi
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/git-llm-apply-fuzz-XXXXXX")
mkdir -p "$out"
pids=()
for ((k = 0; k < jobs; k++)); do
  share=$(( iterations / jobs + (k < iterations % jobs ? 1 : 0) ))
  if [ "$iterations" != 0 ] && [ "$share" = 0 ]; then continue; fi
  python3 scripts/fuzz.py --bin "$bin" --iterations "$share" --seconds "$seconds" \
    --seed $((seed + k)) --out "$out/job$k" --progress 5000 >"$out/job$k.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
total = {}
for n in sorted(os.listdir(out)):
    if not n.endswith('.log'):
        continue
    lines = open(os.path.join(out, n)).read().splitlines()
    for l in lines:
        if l.startswith('FAIL '):
            print(l)
    last = [l for l in lines if l.startswith('{')]
    if not last:
        print(f'{n}: no tally (the job failed):', *lines[-5:], sep='\n')
        total['broken_jobs'] = total.get('broken_jobs', 0) + 1
        continue
    for k, v in json.loads(last[-1]).items():
        total[k] = round(total.get(k, 0) + v, 1)
print('fuzz:', json.dumps(total))
PY
if [ $status = 0 ]; then
  rm -rf "$out"
else
  echo "fuzz: failing cases in $out"
fi
exit $status

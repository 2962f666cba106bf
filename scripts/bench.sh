#!/usr/bin/env bash
# Benchmark the planner on a big file: a 2,000-hunk patch with shifted line numbers applied
# to a 200,000-line file. Prints wall time and peak memory (GNU time), best of 3.
#   scripts/bench.sh [LINES] [HUNKS]
# GIT_LLM_APPLY_BENCH_BIN=PATH measures another build (e.g. an older commit's) the same way.
set -euo pipefail
lines=${1:-200000}
hunks=${2:-2000}
cd "$(dirname "$0")/.."
if [ -n "${GIT_LLM_APPLY_BENCH_BIN:-}" ]; then
  bin=$GIT_LLM_APPLY_BENCH_BIN
else
  cargo build --release --quiet
  bin=$PWD/target/release/git-llm-apply
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$lines" "$hunks" <<'PY'
import sys, random
work, n, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(7)
# Realistic repetition: every 10th line is blank and every 25th a lone brace.
lines = []
for i in range(n):
    if i % 10 == 9:
        lines.append('')
    elif i % 25 == 24:
        lines.append('}')
    else:
        lines.append(f'    let value_{i} = compute({i}, "{rng.randrange(10**6)}");')
open(f'{work}/big.rs', 'w').write('\n'.join(lines) + '\n')
out = ['--- a/big.rs', '+++ b/big.rs']
step = n // h
for k in range(h):
    at = k * step + step // 2          # 0-based line to change
    shift = 17 + (k % 5)               # stale numbers
    ctx = lines[at - 3:at], lines[at + 1:at + 4]
    out.append(f'@@ -{at - 3 + 1 + shift},7 +{at - 3 + 1 + shift},7 @@')
    out += [' ' + l for l in ctx[0]] + ['-' + lines[at], '+' + lines[at] + ' // edited'] + [' ' + l for l in ctx[1]]
open(f'{work}/big.patch', 'w').write('\n'.join(out) + '\n')
PY
cd "$work"
cp big.rs big.orig
best=""
for i in 1 2 3; do
  cp big.orig big.rs
  /usr/bin/time -f '%e %M' -o t.txt "$bin" --json big.patch > report.json
  read -r secs kb < t.txt
  echo "run $i: ${secs}s, peak ${kb} KiB"
  if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; bestkb=$kb; fi
done
python3 - <<'PY'
import json
r = json.load(open('report.json'))
f = r['files'][0]
assert r['status'] == 'applied', r['status']
assert len(f['hunks']) == sum(1 for h in f['hunks'] if h['status'] == 'applied')
print(f"applied {len(f['hunks'])} hunks, offsets {sorted(set(h['offset'] for h in f['hunks']))}")
PY
echo "bench: $lines-line file, $hunks hunks with shifted numbers: best ${best}s, peak ${bestkb} KiB"

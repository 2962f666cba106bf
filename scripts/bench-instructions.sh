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
#   MCP  one warm `apply_patch` call of `git-llm-apply mcp`: the server's count after 21
#        calls less its count after 1, over 20, against a whole `git apply PATCH` process.
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
if [ -n "${GIT_LLM_APPLY_BENCH_BIN:-}" ]; then
  bin=$(realpath "$GIT_LLM_APPLY_BENCH_BIN")
else
  cargo build --release --quiet
  bin=$PWD/target/release/git-llm-apply
fi
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
work=$(mktemp -d "${TMPDIR:-/tmp}/llm-apply-instr.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The repository of row H: FILES files of 50 lines, 100 to a directory; the patch changes
# line 20 of d05/e00/f5.txt.
python3 - "$work" "$files" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    sub = f'{d}/ours/d{i % 100:02d}/e{(i // 100) % 100:02d}'
    os.makedirs(sub, exist_ok=True)
    with open(f'{sub}/f{i}.txt', 'w') as f:
        f.write(''.join(f'line {i} {j}\n' for j in range(1, 51)))
lines = [f'line 5 {j}' for j in range(1, 51)]
new = list(lines)
new[19] += ' changed'
with open(f'{d}/patch', 'w') as f:
    f.write('--- a/d05/e00/f5.txt\n+++ b/d05/e00/f5.txt\n@@ -18,5 +18,5 @@\n')
    f.write(''.join(f' {l}\n' for l in lines[17:19]) + f'-{lines[19]}\n+{new[19]}\n')
    f.write(''.join(f' {l}\n' for l in lines[20:22]))
with open(f'{d}/expected', 'w') as f:
    f.write(''.join(l + '\n' for l in new))
PY
git -c init.defaultBranch=main -C "$work/ours" init -q
git -C "$work/ours" config user.name bench
git -C "$work/ours" config user.email bench@example.invalid
git -C "$work/ours" config gc.auto 0
git -C "$work/ours" add -A
git -C "$work/ours" commit -q -m 'bench: base'
cp -a "$work/ours" "$work/git"
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

# The MCP client: initialize, then CALLS apply_patch calls, each after the file is put back
# and the result's blob removed; every answer is checked.
cat >"$work/mcp.py" <<'PY'
import json, os, subprocess, sys
cmd, repo, patch, path, expected, blob, calls = sys.argv[1:8]
want = open(expected, 'rb').read()
srv = subprocess.Popen(cmd.split('\t'), cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def call(i, method, params=None):
    msg = {'jsonrpc': '2.0', 'method': method}
    if i is not None:
        msg['id'] = i
    if params is not None:
        msg['params'] = params
    srv.stdin.write((json.dumps(msg) + '\n').encode())
    srv.stdin.flush()
    while i is not None:
        reply = json.loads(srv.stdout.readline())
        if reply.get('id') == i:
            return reply
call(0, 'initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                       'clientInfo': {'name': 'bench', 'version': '1'}})
call(None, 'notifications/initialized')
for i in range(int(calls)):
    subprocess.run(['git', '-C', repo, 'checkout', '-q', '--', path], check=True)
    try:
        os.remove(os.path.join(repo, '.git', 'objects', blob[:2], blob[2:]))
    except FileNotFoundError:
        pass
    reply = call(i + 1, 'tools/call', {'name': 'apply_patch', 'arguments': {'patch': open(patch).read()}})
    if 'error' in reply or reply['result'].get('isError'):
        sys.exit(f'apply_patch failed: {json.dumps(reply)[:2000]}')
    if open(os.path.join(repo, path), 'rb').read() != want:
        sys.exit(f'{path} is not the expected result')
srv.stdin.close()
sys.exit(srv.wait())
PY
mcp() {
  local n=$1 vg
  vg=$(printf '%s\t' valgrind --tool=callgrind --callgrind-out-file="$work/mcp$n.cg" "$bin")
  python3 "$work/mcp.py" "${vg}mcp" "$work/ours" "$work/patch" "$file" "$work/expected" "$blob" "$n" \
    2>"$work/mcp$n.log" || { cat "$work/mcp$n.log" >&2; exit 1; }
  awk '/^summary:/ { print $2 }' "$work/mcp$n.cg"
}
m1=$(mcp 1)
m21=$(mcp 21)
m=$(((m21 - m1) / 20))

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
echo "instructions (callgrind), one-line patch, $files-file repository"
printf '%-44s %12s %10s\n' "what" "instructions" "vs git"
printf '%-44s %12s %10s\n' "git apply PATCH (whole process)" "$g" "1.00x"
printf '%-44s %12s %10s\n' "git-llm-apply PATCH (whole process)" "$o" "$(ratio "$o" "$g")"
printf '%-44s %12s %10s\n' "MCP apply_patch, one warm call" "$m" "$(ratio "$m" "$g")"

#!/usr/bin/env bash
# Scale benchmark (issue 14): each row of the issue's table, measured side by side with
# `git apply` on the same machine in the same run. Every row runs in a real git repository
# (the file committed), as agents use the tool: ours runs plain `git-llm-apply PATCH` (which
# writes a ghost-commit snapshot: part of the cost), git runs `git apply PATCH` in an identical
# copy. Each run is the whole process's wall time (to the microsecond, from before its fork
# to after its wait, as GNU time measures it but finer than its 10 ms) and peak RSS; a row shows
# the median time and the largest peak RSS of its runs, and after every timed run the file's
# bytes are compared with the expected result (a mismatch aborts, exit 1). Every run of ours
# is a first apply: the result's blob, which the previous run stored, is removed first.
#
#   scripts/bench.sh [LINES] [HUNKS]      LINES/HUNKS: row B's file and patch (200000 2000)
#
# Environment:
#   GIT_LLM_APPLY_BENCH_BIN=PATH  measure this binary (otherwise: cargo build --release)
#   BENCH_ROWS=ABCDEFGHIJ         run only these rows
#   BENCH_RUNS=5                  timed runs per row (the median is reported)
#   BENCH_RUNS_FAST=15            timed runs for rows A, A', H, H', I and J (at least BENCH_RUNS): their
#                                 runs take some 30 ms, and a few milliseconds of the
#                                 machine's noise would otherwise decide a median of 5
#   BENCH_RUNS_HUGE=1             timed runs for row D
#   BENCH_HUGE_MB=1100            row D's file size in MB (10^6 bytes)
#   BENCH_SKIP_HUGE=1             skip row D
#   BENCH_SMALL_REPOS="100 10000 100000"  row H's and I's repository sizes (files)
#   BENCH_TIMEOUT=900             seconds before one run is killed (reported as FAIL)
#   TMPDIR                        where the repositories are made (row D needs ~5x its size)
#
# The rows (goal in brackets):
#   A  one hunk replacing 5,000 lines of a 10 MiB file           [<= git apply's time]
#   A' the same with --check --json (planning alone)             [<= git apply --check's time]
#   B  2,000 one-line hunks, numbers shifted by 17-21, 200,000 lines [<= 0.1x git apply's time]
#   C  peak memory, one 5,000-line hunk on an 8 MB file  [<= 2x(file + patch) + 16 MiB]
#   D  one-line patch to a 1.1 GB file                   [<= 2x git apply's time, RSS <= 2x file]
#   E  64 MB new-file patch, human report                [<= 1 s, stdout <= 64 KiB]
#   F  undo of a 100,000-hunk apply (1,000,000 lines)    [<= 2 s; git not run: no undo]
#   G  overlapping hunks (each pair: the second's context holds the first's new line), applied
#      one after another, in a file whose second half repeats its first (every line a hunk
#      looks up is also far away): 1,000 pairs on 200,000 lines, then 10,000 on 2,000,000
#                                                        [time ratio <= 15x: ten times the work;
#                                                         hunks x file would be 100x. git apply
#                                                         refuses these patches, so is not run]
#   H  a one-line patch to one small file, snapshot included, in repositories of 100, 10,000
#      and 100,000 files (the call agents make most)          [<= git apply's time, each size]
#   H' the same with --no-snapshot, beside each size's H: what of H the snapshot is [no goal]
#   I  the same through the MCP server: an `apply_patch` round trip (request written to reply
#      read) on a warm server, against a whole `git apply` process  [<= 0.5x git apply's time]
#   I' a `ping` round trip on the same server after each call: the transport's share [no goal]
#   J  one hunk changing every other line of a file of N two-line functions (N groups of added
#      lines), N = 10,000, 20,000, 40,000           [40,000: <= git apply's time; the time for
#                                                    40,000 <= 5x that for 10,000: linear]
# Each of H, I and J also answers where the small-work thresholds sit (threads::BIG, the
# mapping and two-halves thresholds): a helper thread or mapping used below them shows here.
# Exit status: 0 when every result was right (whether or not the goals are met), 1 otherwise.
set -euo pipefail
lines=${1:-200000}
hunks=${2:-2000}
rows=${BENCH_ROWS:-ABCDEFGHIJ}
small_repos=${BENCH_SMALL_REPOS:-100 10000 100000}
runs=${BENCH_RUNS:-5}
runs_fast=${BENCH_RUNS_FAST:-$((runs > 15 ? runs : 15))}
runs_huge=${BENCH_RUNS_HUGE:-1}
huge_mb=${BENCH_HUGE_MB:-1100}
timeout_s=${BENCH_TIMEOUT:-900}
die() { echo "bench: $*" >&2; exit 1; }
[[ $rows =~ ^[A-J]+$ ]] || die "BENCH_ROWS must be letters from ABCDEFGHIJ, not '$rows'"
for n in $small_repos; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "BENCH_SMALL_REPOS must be positive integers, not '$n'"; done
for v in lines hunks runs runs_fast runs_huge huge_mb timeout_s; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, not '${!v}'"
done
((lines / hunks >= 8)) || die "row B needs LINES/HUNKS >= 8 (3 lines of context each side)"
command -v python3 >/dev/null || die "needs python3"

cd "$(dirname "$0")/.."
source scripts/bench_bin.sh
[ -x "$bin" ] || die "no executable at $bin"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export LC_ALL=C
work=$(mktemp -d "${TMPDIR:-/tmp}/llm-apply-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
started=$SECONDS

# The timer: `timer.py OUT CMD...` runs CMD (stdin, stdout and stderr its own) and writes
# "SECONDS PEAK_KIB" to OUT: the wall time from before the fork to after the wait, and the
# child's peak RSS (its own, as GNU time's %M). Exits with CMD's status (128+N for signal N).
cat >"$work/timer.py" <<'PY'
import os, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
try:
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
except OSError as e:
    sys.exit(f'timer: cannot run {cmd[0]}: {e}')
_, status, usage = os.wait4(pid, 0)
secs = time.perf_counter() - start
with open(out, 'w') as f:
    f.write(f'{secs:.6f} {usage.ru_maxrss}\n')
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
PY

# The set-up of each row's repositories (scripts/bench_setup.sh, which runs the generator,
# scripts/bench_gen.py) and row I's MCP client are scripts of their own, which
# scripts/bench-instructions.sh uses too.
mcp=$PWD/scripts/bench_mcp.py

mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }
# A/B, with B floored at 0.001 s.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b < 0.001) b = 0.001; printf "%.2fx", a / b }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
size() { stat -c %s "$1"; }

# setup ROW DIR ARGS...: the row's files generated and committed (scripts/bench_setup.sh).
setup() { "$PWD/scripts/bench_setup.sh" "$@"; }

# restore REPO FILE MODE: put FILE back as committed (MODE new: remove it).
restore() {
  if [ "$3" = new ]; then rm -f "${1:?}/$2"; else git -C "$1" checkout -q -- "$2"; fi
}

# step WHO LABEL REPO FILE EXPECTED CMD...: run CMD in REPO under timeout and the timer, then
# check that REPO/FILE is EXPECTED. Sets S_SECS (or S_BAD: timeout, killed), S_KB, S_BYTES.
step() {
  local who=$1 label=$2 repo=$3 file=$4 expected=$5 rc=0 t0=$SECONDS
  shift 5
  S_SECS='' S_KB='' S_BAD=''
  (cd "$repo" && exec timeout -k 10 "$timeout_s" python3 "$work/timer.py" "$work/time.txt" "$@") \
    </dev/null >"$work/stdout.txt" 2>"$work/stderr.txt" || rc=$?
  S_BYTES=$(size "$work/stdout.txt")
  if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && ((SECONDS - t0 >= timeout_s)); }; then
    S_BAD=timeout
    echo "  $label $who: TIMEOUT (killed after ${timeout_s} s)"
    return
  fi
  if [ "$rc" -gt 128 ]; then
    S_BAD=killed
    echo "  $label $who: killed by signal $((rc - 128)) after $((SECONDS - t0)) s"
    return
  fi
  if [ "$rc" -ne 0 ]; then
    head -c 4000 "$work/stderr.txt" >&2
    die "$label $who: exit status $rc (command: $*)"
  fi
  read -r S_SECS S_KB < <(tail -n 1 "$work/time.txt")
  cmp -s "$repo/$file" "$expected" || die "$label $who: $file is not the expected result (command: $*)"
  if [ -n "${CHECK_JSON:-}" ] && [ "$who" = ours ]; then
    python3 - "$work/stdout.txt" <<'PY' || die "$label $who: the --json report is not a clean check"
import json, sys
r = json.load(open(sys.argv[1]))
assert r['status'] == 'checked' and r['exit_code'] == 0, (r['status'], r['exit_code'])
assert all(h['status'] == 'applied' for f in r['files'] for h in f['hunks'])
PY
  fi
  echo "  $label $who: ${S_SECS} s, peak $(mib "$S_KB"), stdout ${S_BYTES} bytes"
}

# pairs LABEL N DIR FILE MODE EXPECTED: N runs of GIT_CMD in DIR/git (none when GIT_CMD is
# empty: G_BAD is then "-") and OURS_CMD in DIR/ours, each after restoring FILE; when
# GIT_PRE/OURS_PRE are set they run first, untimed, and must leave PRE_EXPECTED. Sets GT GK (git's times and peaks), OT OK OB (ours' and its stdout
# sizes), G_BAD and O_BAD (a run that timed out or was killed; later runs are skipped).
pairs() {
  local label=$1 n=$2 d=$3 file=$4 mode=$5 expected=$6 i
  GT=() GK=() OT=() OK=() OB=() G_BAD='' O_BAD=''
  ((${#GIT_CMD[@]})) || G_BAD=-
  for ((i = 1; i <= n; i++)); do
    if [ -z "$G_BAD" ]; then
      restore "$d/git" "$file" "$mode"
      if ((${#GIT_PRE[@]})); then
        step git "$label run $i (untimed)" "$d/git" "$file" "$PRE_EXPECTED" "${GIT_PRE[@]}"
        G_BAD=$S_BAD
      fi
      if [ -z "$G_BAD" ]; then
        step git "$label run $i" "$d/git" "$file" "$expected" "${GIT_CMD[@]}"
        G_BAD=$S_BAD
        [ -n "$G_BAD" ] || { GT+=("$S_SECS"); GK+=("$S_KB"); }
      fi
    fi
    if [ -z "$O_BAD" ]; then
      restore "$d/ours" "$file" "$mode"
      fresh_object "$d/ours" "$file" "$expected"
      if ((${#OURS_PRE[@]})); then
        step ours "$label run $i (untimed)" "$d/ours" "$file" "$PRE_EXPECTED" "${OURS_PRE[@]}"
        O_BAD=${S_BAD:+$S_BAD (apply before undo)}
      fi
      if [ -z "$O_BAD" ]; then
        step ours "$label run $i" "$d/ours" "$file" "$expected" "${OURS_CMD[@]}"
        O_BAD=$S_BAD
        [ -n "$O_BAD" ] || { OT+=("$S_SECS"); OK+=("$S_KB"); OB+=("$S_BYTES"); }
      fi
    fi
    if [ -n "$G_BAD" ] && [ -n "$O_BAD" ]; then break; fi
  done
  if [ -z "$G_BAD" ]; then GTM=$(median "${GT[@]}") GKM=$(maxof "${GK[@]}"); else GTM='' GKM=''; fi
  if [ -z "$O_BAD" ]; then OTM=$(median "${OT[@]}") OKM=$(maxof "${OK[@]}") OBM=$(maxof "${OB[@]}"); else OTM='' OKM='' OBM=''; fi
}
GIT_PRE=() OURS_PRE=() PRE_EXPECTED=''

# fresh_object REPO FILE EXPECTED: make ours' next run a first apply. A run that writes
# stores EXPECTED's blob in the snapshot; a later run would find it stored and skip that
# work, which no real apply of a new change can. So the blob's loose object is removed
# before each run, unless it is the blob HEAD holds at FILE (a --check or undo row).
fresh_object() {
  local id head
  id=$(git -C "$1" hash-object -- "$3")
  head=$(git -C "$1" rev-parse -q --verify "HEAD:$2" 2>/dev/null || true)
  [ "$id" = "$head" ] || rm -f "$1/.git/objects/${id:0:2}/${id:2}"
}

# The table: row | work | git apply | ours | ours/git | ours peak RSS | goal | measured | result
table=()
add_row() { local IFS='|'; table+=("$*"); }
git_cell() { if [ -n "$G_BAD" ]; then echo "$G_BAD"; else echo "$GTM s, $(mib "$GKM")"; fi; }
ours_cell() { if [ -n "$O_BAD" ]; then echo "$O_BAD"; else echo "$OTM s"; fi; }
rss_cell() { if [ -n "$O_BAD" ]; then echo -; else mib "$OKM"; fi; }
ratio_cell() { if [ -n "$O_BAD" ] || [ -n "$G_BAD" ]; then echo -; else ratio "$OTM" "$GTM"; fi; }
verdict() { if "$@"; then echo PASS; else echo FAIL; fi; }
# time_goal ROW WORK FACTOR GOAL: ours' time <= FACTOR x git's.
time_goal() {
  local ok=false
  if [ -z "$O_BAD" ] && [ -z "$G_BAD" ] && le "$OTM" "$(awk -v g="$GTM" -v f="$3" 'BEGIN { if (g < 0.001) g = 0.001; print g * f }')"; then ok=true; fi
  add_row "$1" "$2" "$(git_cell)" "$(ours_cell)" "$(ratio_cell)" "$(rss_cell)" "$4" "$(ratio_cell) git" "$(verdict $ok)"
}

row_A() {
  local d=$work/A
  echo "A: setup (10 MiB file, one hunk replacing 5,000 lines)"
  setup A "$d"
  GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
  pairs A "$runs_fast" "$d" big.rs modify "$d/expected"
  time_goal A "one hunk replacing 5,000 lines of a 10 MiB file" 1 "<= git apply's time"
  time_goal A "the same, issue 36's goal" 0.5 "<= 0.5x git apply's time"
  GIT_CMD=(git apply --check "$d/patch") OURS_CMD=("$bin" --check --json "$d/patch")
  CHECK_JSON=1 pairs "A'" "$runs_fast" "$d" big.rs modify "$d/orig"
  time_goal "A'" "A with --check --json (vs git apply --check)" 1 "<= git apply --check's time"
  rm -rf "$d"
}

row_B() {
  local d=$work/B
  echo "B: setup ($lines-line file, $hunks one-line hunks, numbers shifted by 17-21)"
  setup B "$d" "$lines" "$hunks"
  GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
  pairs B "$runs" "$d" big.rs modify "$d/expected"
  time_goal B "$hunks stale one-line hunks, $lines-line file" 0.1 "<= 0.1x git apply's time"
  rm -rf "$d"
}

row_C() {
  local d=$work/C fsize psize bound ok=false
  echo "C: setup (8 MB file, one hunk replacing 5,000 lines)"
  setup C "$d"
  fsize=$(size "$d/orig") psize=$(size "$d/patch")
  bound=$(((2 * (fsize + psize) + 16 * 1024 * 1024) / 1024)) # KiB, as the timer's peak
  GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
  pairs C "$runs" "$d" big.rs modify "$d/expected"
  if [ -z "$O_BAD" ] && ((OKM <= bound)); then ok=true; fi
  local measured=-
  [ -n "$O_BAD" ] || measured="$(rss_cell) = $(awk -v a="$OKM" -v b="$bound" 'BEGIN { printf "%.2f", a / b }')x bound $(mib "$bound") (file $fsize B, patch $psize B)"
  add_row C "peak memory, 5,000-line hunk on an 8 MB file" "$(git_cell)" "$(ours_cell)" "$(ratio_cell)" "$(rss_cell)" "RSS <= 2x(file+patch)+16 MiB" "$measured" "$(verdict $ok)"
  rm -rf "$d"
}

row_D() {
  local d=$work/D fsize ok=false measured=-
  if [ -n "${BENCH_SKIP_HUGE:-}" ] && [ "${BENCH_SKIP_HUGE}" != 0 ]; then
    echo "D: skipped (BENCH_SKIP_HUGE)"
    add_row D "one-line patch to a ${huge_mb} MB file" - - - - "<= 2x git apply's time, RSS <= 2x file" "skipped" "skipped"
    return
  fi
  echo "D: setup running: writing a ${huge_mb} MB file and committing it to git (this takes a while)"
  local t0=$SECONDS
  setup D "$d" "$huge_mb"
  fsize=$(size "$d/expected")
  echo "D: setup took $((SECONDS - t0)) s (file $fsize bytes)"
  GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
  pairs D "$runs_huge" "$d" big.rs modify "$d/expected"
  if [ -z "$O_BAD" ] && [ -z "$G_BAD" ] && le "$OTM" "$(awk -v g="$GTM" 'BEGIN { if (g < 0.001) g = 0.001; print 2 * g }')" &&
    ((OKM <= 2 * fsize / 1024)); then ok=true; fi
  [ -n "$O_BAD" ] || measured="$(ratio_cell) git; RSS $(awk -v a="$OKM" -v f="$fsize" 'BEGIN { printf "%.2f", a * 1024 / f }')x file"
  add_row D "one-line patch to a ${huge_mb} MB file" "$(git_cell)" "$(ours_cell)" "$(ratio_cell)" "$(rss_cell)" "<= 2x git apply's time, RSS <= 2x file" "$measured" "$(verdict $ok)"
  rm -rf "$d"
}

row_E() {
  local d=$work/E ok=false measured=-
  echo "E: setup (a patch adding one 64 MB file)"
  setup E "$d"
  GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
  pairs E "$runs" "$d" new.rs new "$d/expected"
  if [ -z "$O_BAD" ] && le "$OTM" 1 && ((OBM <= 65536)); then ok=true; fi
  [ -n "$O_BAD" ] || measured="$OTM s; human report $OBM bytes on stdout"
  add_row E "64 MB new-file patch, human report" "$(git_cell)" "$(ours_cell)" "$(ratio_cell)" "$(rss_cell)" "<= 1 s, stdout <= 64 KiB" "$measured" "$(verdict $ok)"
  rm -rf "$d"
}

row_F() {
  local d=$work/F ok=false measured=-
  # git has no undo, and git apply of this patch is no reference either: it is quadratic in
  # the hunks (it took over 900 s here), so git is not run.
  echo "F: setup (1,000,000-line file, 100,000 one-line hunks; timed: undo after an untimed apply)"
  setup F "$d"
  OURS_PRE=("$bin" "$d/patch") PRE_EXPECTED=$d/expected
  GIT_CMD=() OURS_CMD=("$bin" undo)
  pairs F "$runs" "$d" big.rs modify "$d/orig"
  GIT_PRE=() OURS_PRE=() PRE_EXPECTED=''
  if [ -z "$O_BAD" ] && le "$OTM" 2; then ok=true; fi
  [ -n "$O_BAD" ] || measured="$OTM s"
  add_row F "undo of a 100,000-hunk apply (1,000,000 lines)" "- (no undo)" "$(ours_cell)" "$(ratio_cell)" "$(rss_cell)" "<= 2 s" "$measured" "$(verdict $ok)"
  rm -rf "$d"
}

row_G() {
  local small=$work/G1 big=$work/G2 ok=false measured=- t1 o1 k1
  # git apply refuses a hunk whose context holds an earlier hunk's new line: not run.
  echo "G: setup (1,000 overlapping pairs of hunks on 200,000 lines)"
  setup G "$small" 200000 1000
  GIT_CMD=() OURS_CMD=("$bin" "$small/patch")
  pairs G1 "$runs" "$small" big.rs modify "$small/expected"
  t1=$OTM o1=$O_BAD k1=$OKM
  rm -rf "$small"
  echo "G: setup (10,000 overlapping pairs of hunks on 2,000,000 lines)"
  setup G "$big" 2000000 10000
  OURS_CMD=("$bin" "$big/patch")
  pairs G2 "$runs" "$big" big.rs modify "$big/expected"
  if [ -z "$o1" ] && [ -z "$O_BAD" ] && le "$OTM" "$(awk -v t="$t1" 'BEGIN { if (t < 0.001) t = 0.001; print 15 * t }')"; then ok=true; fi
  [ -n "$o1" ] || [ -n "$O_BAD" ] || measured="$t1 s, then $OTM s: $(ratio "$OTM" "$t1")"
  add_row G "overlapping hunk pairs, halves alike: 1,000 on 200,000 lines, 10,000 on 2,000,000" "- (refuses)" "${o1:-$t1 s}; $(ours_cell)" - "$(mib "${k1:-0}"); $(rss_cell)" "time ratio <= 15x (hunks x file: 100x)" "$measured" "$(verdict $ok)"
  rm -rf "$big"
}

# small_repo N: the row H/I repository of N files (made once, kept for both rows).
small_repo() {
  local d=$work/H$1
  if [ ! -d "$d" ]; then
    echo "H/I: setup ($1 files)" >&2
    setup H "$d" "$1"
  fi
  echo "$d"
}

row_H() {
  local n d
  for n in $small_repos; do
    d=$(small_repo "$n")
    GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
    pairs "H $n files" "$runs_fast" "$d" d05/e00/f5.txt modify "$d/expected"
    time_goal "H" "one-line patch, snapshot included, $n-file repository" 1 "<= git apply's time"
    local with=$OTM with_bad=$O_BAD
    # The same without the snapshot: what of H is the snapshot's (no goal of its own).
    OURS_CMD=("$bin" --no-snapshot "$d/patch")
    pairs "H' $n files" "$runs_fast" "$d" d05/e00/f5.txt modify "$d/expected"
    local share=-
    if [ -z "$with_bad" ] && [ -z "$O_BAD" ]; then
      share="snapshot: $(awk -v a="$with" -v b="$OTM" 'BEGIN { printf "%+.3f ms", (a - b) * 1000 }') over H'"
    fi
    add_row "H'" "H with --no-snapshot, $n-file repository" "$(git_cell)" "$(ours_cell)" "$(ratio_cell)" "$(rss_cell)" "- (tells H's snapshot share)" "$share" -
  done
}


row_I() {
  local n d gt ot pt ok
  for n in $small_repos; do
    d=$(small_repo "$n")
    read -r gt ot pt < <(BENCH_MCP_PING=1 python3 "$mcp" "$bin" "$d/ours" "$d/git" "$d/patch" d05/e00/f5.txt "$d/expected" "$runs_fast") ||
      die "I $n files: the MCP round trip failed"
    git -C "$d/ours" checkout -q -- d05/e00/f5.txt
    git -C "$d/git" checkout -q -- d05/e00/f5.txt
    echo "  I $n files: git apply ${gt} s, MCP apply_patch round trip ${ot} s, ping round trip ${pt} s"
    ok=false
    le "$ot" "$(awk -v g="$gt" 'BEGIN { print g * 0.5 }')" && ok=true
    add_row I "MCP apply_patch round trip (warm server), $n-file repository" "$gt s" "$ot s" "$(ratio "$ot" "$gt")" - "<= 0.5x a git apply process" "$(ratio "$ot" "$gt") git" "$(verdict $ok)"
    # A ping on the same server: the transport's own share of each call (no goal of its own).
    add_row "I'" "MCP ping round trip (the pipes, the MCP library, the client), $n-file repository" "$gt s" "$pt s" "$(ratio "$pt" "$gt")" - "- (tells I's transport share)" "$(ratio "$pt" "$gt") git" -
  done
}

row_J() {
  local n d first='' firstn='' ok measured
  for n in 10000 20000 40000; do
    d=$work/J$n
    echo "J: setup ($n functions, one hunk changing every other line)"
    setup J "$d" "$n"
    GIT_CMD=(git apply "$d/patch") OURS_CMD=("$bin" "$d/patch")
    pairs "J $n" "$runs_fast" "$d" big.rs modify "$d/expected"
    if [ -z "$first" ]; then first=$OTM firstn=$n; fi
    time_goal J "one hunk, $n groups of added lines (every other line)" 1 "<= git apply's time"
    rm -rf "$d"
  done
  ok=false measured=-
  if [ -n "$first" ] && [ -z "$O_BAD" ]; then
    le "$OTM" "$(awk -v t="$first" 'BEGIN { if (t < 0.001) t = 0.001; print 5 * t }')" && ok=true
    measured="$first s at $firstn, $OTM s at 40000: $(ratio "$OTM" "$first")"
  fi
  add_row J "linear in groups: 40,000 against 10,000" - - - - "time ratio <= 5x (4x the groups)" "$measured" "$(verdict $ok)"
}

echo "bench: git-llm-apply scale (issue 14)"
echo "cores (nproc): $(nproc)"
echo "binary: $bin"
echo "$(git --version); runs: $runs per row (median time, largest peak RSS), rows A and A': $runs_fast, row D: $runs_huge; timeout ${timeout_s} s per run"
echo "work dir: $work"
for ((r = 0; r < ${#rows}; r++)); do
  "row_${rows:r:1}"
done
rm -rf "$work"/H[0-9]*

echo
echo "cores (nproc): $(nproc); git apply column: median time, largest peak RSS; ours: median time"
{
  echo "row|work|git apply|ours|ours/git|ours peak RSS|goal|measured|result"
  printf '%s\n' "${table[@]}"
} | awk -F'|' '
  { n = NR; for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }; if (NF > nf) nf = NF }
  END {
    for (r = 1; r <= n; r++) {
      line = ""
      for (i = 1; i <= nf; i++) line = line (i > 1 ? " | " : "") sprintf("%-" w[i] "s", c[r, i])
      print line
      if (r == 1) { line = ""; for (i = 1; i <= nf; i++) { d = ""; for (j = 0; j < w[i]; j++) d = d "-"; line = line (i > 1 ? "-|-" : "") d }; print line }
    }
  }'
elapsed=$((SECONDS - started))
echo "bench: total $((elapsed / 60)) min $((elapsed % 60)) s"

#!/usr/bin/env bash
# Score the release binary on the shared corpus (../shared/corpus, all three waves: damage, then the
# hunk shapes models write), once per git binary of the matrix, and fail on any WRONG or DAMAGED
# case or a category below its target.
# Without ../shared it says so and exits 0: the project's own tests do not need it.
#   ci/corpus.sh [EXTRA run.py ARGS...]        e.g. ci/corpus.sh --category drift,conflict
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$root/../shared/corpus
if [ ! -f "$shared/run.py" ]; then
  echo "corpus: $shared not found; the corpus check is skipped"
  exit 0
fi
cd "$root" || exit 2
python3 "$shared/make_corpus.py" >/dev/null || { echo "corpus: make_corpus.py failed"; exit 1; }
cargo build --release --quiet || exit 1
bin=$root/target/release/git-llm-apply
cache=${GIT_MATRIX_CACHE:-${CARGO_TARGET_DIR:-$root/target}/git-matrix}
mkdir -p "$cache"

gits=()
for g in /usr/bin/git /usr/local/bin/git ${GIT_MATRIX:-} "$cache/bullseye/usr/bin/git"; do
  [ -x "$g" ] || continue
  real=$(readlink -f "$g")
  dup=0
  for h in "${gits[@]+"${gits[@]}"}"; do [ "$(readlink -f "$h")" = "$real" ] && dup=1; done
  [ $dup = 0 ] && gits+=("$g")
done

failed=0
for i in "${!gits[@]}"; do
  g=${gits[$i]}
  shim=$cache/corpus-path-$i
  rm -rf "$shim" && mkdir -p "$shim" && ln -s "$g" "$shim/git"
  envs=(GIT_LLM_APPLY_GIT="$g" PATH="$shim:$PATH")
  case $g in */bullseye/*) envs+=(GIT_EXEC_PATH="$cache/bullseye/usr/lib/git-core") ;; esac
  version=$(env "${envs[@]}" git --version | awk '{print $3}')
  out=$cache/corpus-$version.json
  echo "=== corpus with git $version ($g)"
  env "${envs[@]}" python3 "$shared/run.py" --tool git-llm-apply --cmd "$bin {patch}" \
    --wave every --jobs 2 --quiet --json "$out" "$@" | tail -n 1
  if ! python3 "$root/scripts/corpus-table.py" "$out" -v --check; then
    failed=1
  fi
done
exit $failed

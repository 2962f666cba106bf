#!/usr/bin/env bash
# Run the test suite once per git binary, so that every git version we support is exercised
# (DESIGN §9: git's `apply` messages are not a stable API).
#
# usage: ci/git-matrix.sh [CARGO_TEST_ARGS...]      e.g. ci/git-matrix.sh --test three_way
#
# The gits, each once (by real path), in this order:
#   /usr/bin/git, /usr/local/bin/git                 when present
#   every binary listed in $GIT_MATRIX               (separated by spaces or colons)
#   Debian bullseye's git 2.30.2, unpacked by ../shared/tools/get-git-bullseye.sh when
#   ../shared exists (set GIT_MATRIX_NO_FETCH=1 to skip it); kept in $GIT_MATRIX_CACHE
#   (default: $CARGO_TARGET_DIR/git-matrix, else target/git-matrix)
# Each run sets GIT_LLM_APPLY_GIT to that git and puts a directory holding only it first on
# PATH, so our binary, the tests and the test helpers all run the same git.
# Prints each git's version with its result; exits non-zero when any run fails.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${GIT_MATRIX_CACHE:-${CARGO_TARGET_DIR:-$root/target}/git-matrix}
mkdir -p "$cache"

gits=()        # binaries to run
exec_paths=()  # GIT_EXEC_PATH for each ('' = the binary's own)
add_git() {
  local bin=$1 exec_path=${2:-} real g
  if [ ! -x "$bin" ]; then
    echo "git-matrix: $bin not found, skipped" >&2
    return
  fi
  real=$(readlink -f "$bin")
  for g in "${gits[@]+"${gits[@]}"}"; do
    [ "$(readlink -f "$g")" = "$real" ] && return
  done
  gits+=("$bin")
  exec_paths+=("$exec_path")
}

add_git /usr/bin/git
add_git /usr/local/bin/git
matrix=${GIT_MATRIX:-}
for g in ${matrix//:/ }; do add_git "$g"; done

fetch=$root/../shared/tools/get-git-bullseye.sh
if [ -d "$root/../shared" ] && [ -z "${GIT_MATRIX_NO_FETCH:-}" ]; then
  bullseye=$cache/bullseye
  if [ ! -x "$bullseye/usr/bin/git" ]; then
    echo "git-matrix: fetching git 2.30 (Debian bullseye) into $bullseye" >&2
    if [ ! -x "$fetch" ] || ! "$fetch" "$bullseye" >/dev/null; then
      echo "git-matrix: WARNING: could not fetch git 2.30; the pre-2.32 --3way era is not covered" >&2
    fi
  fi
  # Debian's build looks for its helpers under /usr/lib/git-core unless told otherwise.
  [ -x "$bullseye/usr/bin/git" ] && add_git "$bullseye/usr/bin/git" "$bullseye/usr/lib/git-core"
fi

if [ ${#gits[@]} -eq 0 ]; then
  echo "git-matrix: no git binary found" >&2
  exit 2
fi

results=()
failed=0
for i in "${!gits[@]}"; do
  bin=${gits[$i]}
  exec_path=${exec_paths[$i]}
  # A directory whose only entry is this git, first on PATH: tests that run plain `git`
  # get the same one as the library.
  shim=$cache/path-$i
  rm -rf "$shim" && mkdir -p "$shim" && ln -s "$bin" "$shim/git"
  run_env=(GIT_LLM_APPLY_GIT="$bin" PATH="$shim:$PATH")
  [ -n "$exec_path" ] && run_env+=(GIT_EXEC_PATH="$exec_path")
  version=$(env "${run_env[@]}" git --version 2>&1 | awk '{print $3}')
  echo "=== git-matrix: git $version ($bin): cargo test $*"
  if (cd "$root" && env "${run_env[@]}" cargo test "$@"); then
    results+=("git $version  $bin  PASS")
  else
    rc=$?
    results+=("git $version  $bin  FAIL (cargo test exit $rc)")
    failed=1
  fi
done

echo "=== git-matrix results"
for r in "${results[@]}"; do echo "git-matrix: $r"; done
exit $failed

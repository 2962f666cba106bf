#!/usr/bin/env bash
# Build the Linux x86-64 release artefacts of this tree into DIST (default dist/): the Python
# wheel (maturin, manylinux tag checked by maturin) and the npm tarballs of the launcher and of
# @git-llm-apply/linux-x64-gnu. Nothing is published; docs/release.md says what CI does with them.
#   scripts/build-linux-artifacts.sh [--python] [--npm] [DIST]    (neither flag: both)
# maturin is taken from PATH, else installed from PyPI into target/maturin-venv. The release
# build is the one `cargo build --release --locked` makes, so an earlier release build is reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=0 npm=0 dist=$root/dist
for arg in "$@"; do
  case $arg in
    --python) python=1 ;;
    --npm) npm=1 ;;
    -*) echo "usage: $0 [--python] [--npm] [DIST]" >&2; exit 2 ;;
    *) dist=$arg ;;
  esac
done
if [ $python = 0 ] && [ $npm = 0 ]; then python=1 npm=1; fi
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
cd "$root"

if [ $python = 1 ]; then
  maturin=$(command -v maturin || true)
  if [ -z "$maturin" ]; then
    venv=$root/target/maturin-venv
    [ -x "$venv/bin/maturin" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet 'maturin>=1.5,<2'; }
    maturin=$venv/bin/maturin
  fi
  rm -f "$dist"/git_llm_apply-*.whl
  "$maturin" build --release --locked --out "$dist" --quiet
  ls "$dist"/git_llm_apply-*.whl
fi

if [ $npm = 1 ]; then
  cargo build --release --locked --quiet
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  node npm/scripts/platform-package.js linux-x64-gnu target/release/git-llm-apply "$work/linux-x64-gnu"
  # The release profile keeps symbols (bench and perf read them); the published binary does not.
  if command -v strip >/dev/null; then strip "$work/linux-x64-gnu/bin/git-llm-apply"; fi
  rm -f "$dist"/git-llm-apply-*.tgz "$dist"/git-llm-apply-linux-x64-gnu-*.tgz
  (cd "$work/linux-x64-gnu" && npm pack --silent --pack-destination "$dist" >/dev/null)
  (cd npm/git-llm-apply && npm pack --silent --pack-destination "$dist" >/dev/null)
  ls "$dist"/*.tgz
fi

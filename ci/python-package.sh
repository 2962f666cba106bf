#!/usr/bin/env bash
# The Python package as a user gets it: the wheel built here (maturin from PyPI) installed into a
# fresh venv, then python/tests run with pytest against that install (not the source tree), with
# PATH holding no other git-llm-apply. Fails on any failure, and when pytest collects no tests.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$root/scripts/build-linux-artifacts.sh" --python "$tmp/dist" || exit 1
python3 -m venv "$tmp/venv" || exit 1
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check "$tmp"/dist/git_llm_apply-*.whl 'pytest>=7' || exit 1

# The venv's bin first and no cargo bin dirs: the package must find the binary it installed.
clean_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/target/' -e '\.cargo/bin' | paste -sd: -)
cd "$tmp" || exit 1
GIT_LLM_APPLY_EXPECT_INSTALLED=1 PATH="$tmp/venv/bin:$clean_path" \
  "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
rc=$?
if [ $rc = 5 ]; then echo "ci/python-package.sh: pytest collected no tests" >&2; fi
exit $rc

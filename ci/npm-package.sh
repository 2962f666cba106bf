#!/usr/bin/env bash
# The npm packages as a user gets them: `npm pack` of the launcher and of the linux-x64-gnu
# platform package built here, installed into a temp project; then `npx git-llm-apply --version`,
# node's test runner over npm/test (API, launcher, generated types) against that install, and
# `tsc --strict` over npm/test/typecheck.ts (TypeScript from npm). Fails on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ci/npm-package.sh: $*" >&2; exit 1; }

"$root/scripts/build-linux-artifacts.sh" --npm "$tmp/dist" || exit 1
mkdir "$tmp/project" && cd "$tmp/project" || exit 1
printf '{"name":"gla-npm-test","version":"1.0.0","private":true}\n' > package.json
npm install --no-audit --no-fund --loglevel=error \
  "$tmp"/dist/git-llm-apply-linux-x64-gnu-*.tgz "$tmp"/dist/git-llm-apply-[0-9]*.tgz \
  typescript@5 || fail "npm install"

want="git-llm-apply $(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
got=$(npx --no-install git-llm-apply --version) || fail "npx git-llm-apply --version failed"
[ "$got" = "$want" ] || fail "npx git-llm-apply --version printed '$got', expected '$want'"
echo "npx git-llm-apply --version: $got"

cp "$root"/npm/test/*.js "$root"/npm/test/typecheck.ts . || exit 1
ls ./*.test.js >/dev/null 2>&1 || fail "no tests"
GIT_LLM_APPLY_NPM_DIR="$root/npm" node --test --test-reporter=spec ./*.test.js || fail "node --test"
npx --no-install tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 \
  typecheck.ts || fail "tsc over typecheck.ts"

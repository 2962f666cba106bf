#!/usr/bin/env bash
# The README's set-up line in this clone: `cargo install --locked --path .` into a temporary
# root, then git finds the installed binary as `git llm-apply` and its manual installs. The
# release build in target/ is reused (--target-dir), so this costs a copy, not a build.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ci/cargo-install.sh: $*" >&2; exit 1; }

cargo install --locked --quiet --path "$root" --root "$tmp" --target-dir "$root/target" || fail "cargo install"
want="git-llm-apply $(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
got=$(PATH="$tmp/bin:$PATH" git llm-apply --version) || fail "git llm-apply --version"
[ "$got" = "$want" ] || fail "git llm-apply --version printed '$got', expected '$want'"
[ "$(PATH="$tmp/bin:$PATH" command -v git-llm-apply)" = "$tmp/bin/git-llm-apply" ] || fail "not the installed binary"
PATH="$tmp/bin:$PATH" git-llm-apply install-man >/dev/null || fail "install-man"
[ -s "$tmp/share/man/man1/git-llm-apply.1" ] || fail "no manual in $tmp/share/man/man1"
echo "cargo install --locked --path .: $got, manual installed"

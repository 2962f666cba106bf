#!/usr/bin/env bash
# The agent-facing checks with independent tools, in a venv this script creates: one MCP
# session through the official Python SDK (`mcp` from PyPI) and the Codex Lark grammar
# against our Codex fixtures (`lark`), plus the `tools --for` JSON as JSON Schema documents.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TMPDIR:-/tmp}/git-llm-apply-ci-venv"
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update && apt-get install -y --no-install-recommends python3-venv python3-pip
  fi
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check mcp lark jsonschema
cargo build --quiet
bin="${CARGO_TARGET_DIR:-target}/debug/git-llm-apply"
"$venv/bin/python" ci/mcp-client.py "$bin"
grammar="$(mktemp)"
trap 'rm -f "$grammar"' EXIT
"$bin" tools --for codex > "$grammar"
"$venv/bin/python" ci/lark-grammar.py "$grammar" ../shared/codex-scenarios/scenarios

#!/usr/bin/env python3
"""Check the Lark grammar that `git llm-apply tools --for codex` prints against our Codex
fixtures: every canonical patch parses, and the patches Codex itself rejects as malformed do
not. Run with the `lark` package (ci/agent-clients.sh installs it in a venv).

Usage: lark-grammar.py GRAMMAR_JSON_FROM_TOOLS [SCENARIOS_DIR]
"""
import json
import pathlib
import sys

from lark import Lark
from lark.exceptions import LarkError

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Our fixtures that exercise what the reader forgives beyond the canonical format (prose or
# a heredoc around the patch, unprefixed context, no end marker): outside the grammar, which
# is what a model is asked to write.
LENIENT = ("lenient", "unprefixed", "no-end", "prose", "fence", "cut-off", "heredoc")
# Codex scenarios whose patch is malformed on purpose: the grammar must refuse them.
MALFORMED = {"005_rejects_empty_patch", "008_rejects_empty_update_hunk",
             "013_rejects_invalid_hunk_header"}
# Codex scenarios that pad the markers with white space: forgiven by readers, not canonical.
PADDED = {"017_whitespace_padded_hunk_header", "018_whitespace_padded_patch_markers",
          "020_whitespace_padded_patch_marker_lines"}


def main():
    tools = json.loads(pathlib.Path(sys.argv[1]).read_text())
    grammar = tools[0]["format"]["definition"]
    # Both of Lark's parsers: Earley takes any context-free grammar; LALR(1) (what
    # constrained decoders compile such grammars to) refuses one with a conflict.
    parsers = [Lark(grammar, start="start"), Lark(grammar, start="start", parser="lalr")]
    failures, checked = [], 0

    def expect(name, text, ok):
        nonlocal checked
        checked += 1
        for parser in parsers:
            try:
                parser.parse(text)
                parsed = True
            except LarkError as e:
                parsed = False
                why = str(e).splitlines()[0]
            if parsed != ok:
                kind = parser.options.parser
                failures.append(f"{name} ({kind}): {'did not parse: ' + why if ok else 'parsed but is malformed'}")

    for d in sorted((ROOT / "tests/fixtures/formats").glob("codex-*")):
        if any(w in d.name for w in LENIENT):
            continue
        expect(d.name, (d / "patch").read_text(), True)
    if len(sys.argv) > 2 and pathlib.Path(sys.argv[2]).is_dir():
        for d in sorted(pathlib.Path(sys.argv[2]).iterdir()):
            patch = d / "patch.txt"
            if not patch.is_file() or d.name in PADDED:
                continue
            expect(d.name, patch.read_text(), d.name not in MALFORMED)
    for f in failures:
        print("lark-grammar:", f, file=sys.stderr)
    print(f"lark-grammar: {checked - len(failures)} of {checked} fixtures as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""List the Rust functions longer than N lines, longest first.

usage: scripts/long-fns.py [-n N] [PATH ...]      (default: -n 100 src)

A function's length runs from the line of its `fn` keyword to the line of the
brace closing its body, both counted. Functions are found by brace matching
over the source with comments, strings and character literals blanked out, so
a brace inside a string or a comment is not counted; a nested `fn` is listed
on its own and also counts in the length of the function around it.
The last line printed is a summary: functions seen, over N, the longest.
"""

import argparse
import os
import re
import sys


def blank(src):
    """The source with comments, strings and char literals replaced by spaces
    (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(src)

    def keep_lines(text):
        return "".join(c if c == "\n" else " " for c in text)

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(keep_lines(src[i:j]))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(keep_lines(src[i:j]))
            i = j
        elif re.match(r'b?(r#*)?"', src[i:i + 260]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'(b?)(r?)(#*)"', src[i:i + 260])
            hashes = m.group(3)
            j = i + m.end()
            if m.group(2):  # raw: ends at the quote with as many hashes
                end = src.find('"' + hashes, j)
                j = n if end < 0 else end + 1 + len(hashes)
            else:
                while j < n and src[j] != '"':
                    j += 2 if src[j] == "\\" else 1
                j += 1
            out.append(keep_lines(src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F_]*\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'\n])'", src[i:i + 16])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def functions(src):
    """(name, first line, last line) of every fn item with a body."""
    text = blank(src)
    line_at = []
    line = 1
    for ch in text:
        line_at.append(line)
        if ch == "\n":
            line += 1
    found = []
    for m in FN.finditer(text):
        j, parens = m.end(), 0
        while j < len(text):
            ch = text[j]
            if ch in "([":
                parens += 1
            elif ch in ")]":
                parens -= 1
            elif parens == 0 and ch in "{;":
                break
            j += 1
        if j >= len(text) or text[j] == ";":
            continue  # a declaration without a body
        depth, k = 0, j
        while k < len(text):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        k = min(k, len(text) - 1)
        found.append((m.group(1), line_at[m.start()], line_at[k]))
    return found


def rust_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".rs"):
                    yield os.path.join(root, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=100, help="list functions longer than this (lines)")
    ap.add_argument("paths", nargs="*", default=["src"])
    args = ap.parse_args()
    rows, seen = [], 0
    for path in rust_files(args.paths):
        with open(path, encoding="utf-8") as f:
            src = f.read()
        for name, first, last in functions(src):
            seen += 1
            rows.append((last - first + 1, path, first, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    over = [r for r in rows if r[0] > args.n]
    for length, path, first, name in over:
        print(f"{length:5}  {path}:{first}  {name}")
    longest = f"{rows[0][0]} lines ({rows[0][1]}:{rows[0][2]} {rows[0][3]})" if rows else "none"
    print(f"{seen} functions, {len(over)} over {args.n} lines, longest {longest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Write the scale benchmark's inputs (issue 14): a code-like file of N lines (every 10th
blank, every 25th a lone `}`) and a unified diff of one-line hunks, one every 10 lines, with 3
context lines on each side.

Usage: scripts/gen-scale.py FILE PATCH [LINES, default 1000000] [HUNKS, default LINES/10]
"""
import sys


def line(i):
    if i % 10 == 0:
        return ""
    if i % 25 == 0:
        return "}"
    return f"    let value_{i} = compute(input, {i % 997});"


def changed(i):
    text = line(i)
    return "} // changed" if text == "}" else text[:-1] + " + 1;"


def main():
    path, patch = sys.argv[1], sys.argv[2]
    lines = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    hunks = int(sys.argv[4]) if len(sys.argv) > 4 else lines // 10
    assert hunks * 10 <= lines, "one hunk per 10 lines at most"
    name = path.rsplit("/", 1)[-1]
    with open(path, "w") as f:
        f.writelines(line(i) + "\n" for i in range(1, lines + 1))
    with open(patch, "w") as p:
        p.write(f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n")
        for k in range(hunks):
            target = 10 * k + 5
            start = target - 3
            p.write(f"@@ -{start},7 +{start},7 @@\n")
            for i in range(start, target):
                p.write(f" {line(i)}\n")
            p.write(f"-{line(target)}\n+{changed(target)}\n")
            for i in range(target + 1, target + 4):
                p.write(f" {line(i)}\n")


main()

#!/usr/bin/env python3
"""Measure how big the MCP server's answers are for the large inputs of issue 37: 2,000
numberless hunks, 1,000 new files, 2,000 conflicts, and a 20 MiB patch. For each: the bytes
of the JSON-RPC answer in brief mode (the default) and with detail: true, the bytes of the
CLI's --json report, and the wall time of the brief call. Raw JSON-RPC over the server's
stdio; temporary repositories; nothing outside them is touched.

Usage: scripts/mcp-sizes.py [PATH/TO/git-llm-apply]   (default target/debug/git-llm-apply)
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/git-llm-apply")


def git(repo, *args, text=True):
    return subprocess.run(["git", "-C", repo, "-c", "user.name=m", "-c", "user.email=m@example.invalid",
                           *args], check=True, capture_output=True, text=text).stdout


def repo_with(files):
    repo = tempfile.mkdtemp(prefix="mcp-sizes-")
    git(repo, "init", "-q")
    for name, text in files.items():
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    return repo


def numbered(n):
    return "".join(f"line {i}\n" for i in range(n))


def numberless():
    repo = repo_with({"a.txt": numbered(6000)})
    p = "--- a/a.txt\n+++ b/a.txt\n" + "".join(
        f"@@ @@\n line {3*k}\n-line {3*k+1}\n+LINE {3*k+1}\n line {3*k+2}\n" for k in range(2000))
    return repo, p


def new_files():
    repo = repo_with({"keep.txt": "x\n"})
    p = "".join(f"--- /dev/null\n+++ b/dir/file{k}.txt\n@@ -0,0 +1,3 @@\n+one {k}\n+two\n+three\n"
                for k in range(1000))
    return repo, p


def conflicts():
    base = numbered(10000).splitlines()
    repo = repo_with({"a.txt": "\n".join(base) + "\n"})

    def write(word):
        lines = list(base)
        for k in range(2000):
            lines[5 * k + 2] = f"{word} {k}"
        with open(os.path.join(repo, "a.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    write("THEIRS")
    p = git(repo, "diff")
    write("OURS")
    return repo, p


def big():
    repo = repo_with({"keep.txt": "x\n"})
    n = 20971
    p = f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{n} @@\n" + ("+" + "x" * 1000 + "\n") * n
    return repo, p


def call(repo, patch, detail):
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "apply_patch", "arguments": {"patch": patch, "check": True, "detail": detail}}},
    ]
    data = "".join(json.dumps(m) + "\n" for m in msgs)
    start = time.monotonic()
    out = subprocess.run([BIN, "-C", repo, "mcp"], input=data, capture_output=True, text=True).stdout
    took = time.monotonic() - start
    for line in out.splitlines():
        if json.loads(line).get("id") == 2:
            return len(line.encode()), took
    raise SystemExit(f"no answer: {out[:500]}")


def main():
    print(f"{'input':<22} {'brief B':>9} {'detail B':>10} {'--json B':>10} {'brief s':>8}")
    for name, make in [("2000 numberless hunks", numberless), ("1000 new files", new_files),
                       ("2000 conflicts", conflicts), ("20 MiB new file", big)]:
        repo, patch = make()
        brief, took = call(repo, patch, False)
        detail, _ = call(repo, patch, True)
        cli = subprocess.run([BIN, "-C", repo, "--json", "--check"], input=patch,
                             capture_output=True, text=True).stdout
        print(f"{name:<22} {brief:>9} {detail:>10} {len(cli.encode()):>10} {took:>8.2f}")
        subprocess.run(["rm", "-rf", repo])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""One end-to-end session with `git llm-apply mcp` through an independent client, the
official MCP Python SDK: list tools, apply, a refused call, undo. Any difference from what
is expected fails (exit 1). Also checks that `tools --for openai|anthropic` print valid
JSON Schema documents (jsonschema, which the SDK depends on).

Usage: mcp-client.py PATH/TO/git-llm-apply
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN = os.path.abspath(sys.argv[1])
FIX = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
WRONG = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-x\n+y\n c\n"
problems = []


def expect(what, got, want):
    if got != want:
        problems.append(f"{what}: got {got!r}, expected {want!r}")


def field(obj, snake, camel):
    """A result's field under either spelling (the SDK renamed them across major versions)."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


def read(repo):
    with open(os.path.join(repo, "f.txt")) as f:
        return f.read()


async def session(repo):
    params = StdioServerParameters(command=BIN, args=["-C", repo, "mcp"], cwd=repo)
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as s:
            init = await s.initialize()
            expect("server name", field(init, "server_info", "serverInfo").name, "git-llm-apply")
            tools = await s.list_tools()
            expect("tools", [t.name for t in tools.tools], ["apply_patch", "undo", "log"])
            expect("apply_patch requires", field(tools.tools[0], "input_schema", "inputSchema").get("required"), ["patch"])

            applied = await s.call_tool("apply_patch", {"patch": FIX, "label": "ci"})
            expect("apply isError", field(applied, "is_error", "isError"), False)
            expect("apply status", (field(applied, "structured_content", "structuredContent") or {}).get("status"), "applied")
            expect("file after apply", read(repo), "a\nB\nc\n")

            refused = await s.call_tool("apply_patch", {"patch": WRONG})
            expect("refusal isError", field(refused, "is_error", "isError"), True)
            text = refused.content[0].text if refused.content else ""
            expect("refusal names the hunk", "not found" in text, True)
            expect("refusal status", (field(refused, "structured_content", "structuredContent") or {}).get("status"), "refused")
            expect("file after refusal", read(repo), "a\nB\nc\n")

            undone = await s.call_tool("undo", {})
            expect("undo isError", field(undone, "is_error", "isError"), False)
            expect("file after undo", read(repo), "a\nb\nc\n")

            log = await s.call_tool("log", {"limit": 5})
            entries = (field(log, "structured_content", "structuredContent") or {}).get("snapshots", [])
            expect("log entries", len(entries), 2)
            expect("label", entries[-1].get("intent") if entries else None, "ci")


def schemas():
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        problems.append("jsonschema is not installed")
        return
    for api, key in (("openai", ("function", "parameters")), ("anthropic", ("input_schema",))):
        out = subprocess.run([BIN, "tools", "--for", api], check=True, capture_output=True)
        for tool in json.loads(out.stdout):
            schema = tool
            for k in key:
                schema = schema[k]
            try:
                Draft202012Validator.check_schema(schema)
            except Exception as e:  # the validator's SchemaError
                problems.append(f"tools --for {api}: {e}")
            if tool.get("name", tool.get("function", {}).get("name")) == "apply_patch":
                v = Draft202012Validator(schema)
                expect(f"{api}: a valid call", list(v.iter_errors({"patch": "x"})), [])
                expect(f"{api}: a call without patch is invalid",
                       bool(list(v.iter_errors({"check": True}))), True)


def main():
    with tempfile.TemporaryDirectory() as repo:
        git(repo, "init", "-q")
        with open(os.path.join(repo, "f.txt"), "w") as f:
            f.write("a\nb\nc\n")
        git(repo, "add", "f.txt")
        git(repo, "-c", "user.name=ci", "-c", "user.email=ci@example.invalid",
            "commit", "-qm", "initial")
        asyncio.run(session(repo))
    schemas()
    for p in problems:
        print("mcp-client:", p, file=sys.stderr)
    print("mcp-client:", "FAILED" if problems else "the Python SDK session went as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

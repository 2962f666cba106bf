#!/usr/bin/env python3
"""End-to-end sessions with `git llm-apply mcp` through an independent client, the official
MCP Python SDK (which also checks each result's structured content against the tool's output
schema): list tools, apply, a refused call, undo; then the edit and view tools on the cases
agents' edit tools meet (exact, whitespace drift, a tab shown as spaces, U+00A0, CRLF), each
with the loosest pass reported and taken back by undo with its id, two fits refused with
both lines, replace_all, and a file changed after view refused. Any difference from what is
expected fails (exit 1). Also checks that `tools --for openai|openai-chat|anthropic` print
valid JSON Schema documents (jsonschema, which the SDK depends on).

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
            expect("tools", [t.name for t in tools.tools], ["apply_patch", "edit", "view", "undo", "log"])
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


EDIT_CASES = [
    # name, file before (bytes), edit arguments, file after, loosest pass
    ("exact", b"x = 1\ny = foo(1) + 2\n",
     {"old_string": "foo(1)", "new_string": "foo(2)"}, b"x = 1\ny = foo(2) + 2\n", "exact"),
    ("whitespace drifted", b"a = 1   \nb = 2\n",
     {"old_string": "a = 1\nb = 2\n", "new_string": "a = 1\nb = 3\n"}, b"a = 1   \nb = 3\n",
     "trailing-whitespace"),
    ("tab shown as spaces", b"def f():\n\treturn 1\n",
     {"old_string": "def f():\n    return 1", "new_string": "def f():\n    return 2"},
     b"def f():\n\treturn 2\n", "whitespace"),
    ("no-break space", "y\u00a0= 3\nz = 4\n".encode(),
     {"old_string": "y = 3\n", "new_string": "y = 5\n"}, b"y = 5\nz = 4\n", "unicode"),
    ("CRLF", b"one\r\ntwo\r\nthree\r\n",
     {"old_string": "two\nthree", "new_string": "TWO\nthree"}, b"one\r\nTWO\r\nthree\r\n", "exact"),
]


def write_bytes(repo, name, data):
    with open(os.path.join(repo, name), "wb") as f:
        f.write(data)


def read_bytes(repo, name):
    with open(os.path.join(repo, name), "rb") as f:
        return f.read()


def snapshot_id(result):
    ref = (field(result, "structured_content", "structuredContent") or {}).get("snapshot", "")
    return int(ref.rsplit("/", 1)[-1]) if ref else None


async def edits(repo):
    params = StdioServerParameters(command=BIN, args=["-C", repo, "mcp"], cwd=repo)
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as s:
            await s.initialize()
            for name, before, args, after, want_pass in EDIT_CASES:
                write_bytes(repo, "e.py", before)
                git(repo, "add", "e.py")
                git(repo, "-c", "user.name=ci", "-c", "user.email=ci@example.invalid",
                    "commit", "-qm", name)
                r = await s.call_tool("edit", {"path": "e.py", **args})
                sc = field(r, "structured_content", "structuredContent") or {}
                expect(f"{name}: isError", field(r, "is_error", "isError"), False)
                expect(f"{name}: file after", read_bytes(repo, "e.py"), after)
                files = sc.get("files") or [{}]
                expect(f"{name}: pass", files[0].get("pass"), want_pass)
                u = await s.call_tool("undo", {"id": snapshot_id(r)})
                expect(f"{name}: undo isError", field(u, "is_error", "isError"), False)
                expect(f"{name}: file after undo", read_bytes(repo, "e.py"), before)

            write_bytes(repo, "e.py", b"f()\ng()\nf()\n")
            r = await s.call_tool("edit", {"path": "e.py", "old_string": "f()", "new_string": "h()"})
            text = r.content[0].text if r.content else ""
            expect("two fits: isError", field(r, "is_error", "isError"), True)
            expect("two fits: both lines named", "at lines 1, 3" in text, True)
            expect("two fits: file unchanged", read_bytes(repo, "e.py"), b"f()\ng()\nf()\n")

            r = await s.call_tool("edit", {"path": "e.py", "old_string": "f()", "new_string": "h()",
                                           "replace_all": True})
            expect("replace_all: isError", field(r, "is_error", "isError"), False)
            expect("replace_all: file", read_bytes(repo, "e.py"), b"h()\ng()\nh()\n")
            u = await s.call_tool("undo", {"id": snapshot_id(r)})
            expect("replace_all: undone", read_bytes(repo, "e.py"), b"f()\ng()\nf()\n")

            v = await s.call_tool("view", {"path": "e.py", "hashes": True})
            vc = field(v, "structured_content", "structuredContent") or {}
            expect("view: numbered with hashes", (vc.get("content") or "").startswith("1:"), True)
            token = vc.get("view_token")
            write_bytes(repo, "e.py", b"f()\ng()\nf()\nmore\n")
            r = await s.call_tool("edit", {"path": "e.py", "old_string": "g()", "new_string": "G()",
                                           "view_token": token})
            sc = field(r, "structured_content", "structuredContent") or {}
            expect("changed after view: isError", field(r, "is_error", "isError"), True)
            expect("changed after view: kind",
                   [e.get("kind") for e in sc.get("errors", [])], ["changed-since-view"])
            expect("changed after view: file unchanged", read_bytes(repo, "e.py"),
                   b"f()\ng()\nf()\nmore\n")


def schemas():
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        problems.append("jsonschema is not installed")
        return
    for api, key in (("openai", ("parameters",)), ("openai-chat", ("function", "parameters")),
                     ("anthropic", ("input_schema",))):
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
                call = {"patch": "x"}
                if api.startswith("openai"):
                    # Strict mode: every argument is sent, null where it has no value.
                    call = {k: None for k in schema["properties"]} | call
                expect(f"{api}: a valid call", list(v.iter_errors(call)), [])
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
        asyncio.run(edits(repo))
    schemas()
    for p in problems:
        print("mcp-client:", p, file=sys.stderr)
    print("mcp-client:", "FAILED" if problems else "the Python SDK session went as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

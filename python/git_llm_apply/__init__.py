"""git_llm_apply: apply LLM-written patches to a git work tree, undoably, from Python.

A thin typed layer over the `git-llm-apply` binary: every call runs it with `--json` and returns
the report as dataclasses generated from its JSON Schema; nothing here re-decides what the
binary decides.

    from git_llm_apply import apply, edit, undo, log, Refused
    report = apply(diff_text, repo="path/to/repo")
    report = edit("src/app.py", "old text", "new text", repo="path/to/repo")
"""

from ._binary import find_binary
from .api import apply, edit, log, undo
from .errors import (
    BinaryNotFound,
    Busy,
    GitLlmApplyError,
    InvalidInput,
    ProtocolError,
    Refused,
    describe,
)
from .types import LogEntry, LogReport, Report

__all__ = [
    "apply",
    "edit",
    "undo",
    "log",
    "find_binary",
    "describe",
    "Report",
    "LogReport",
    "LogEntry",
    "GitLlmApplyError",
    "Refused",
    "InvalidInput",
    "Busy",
    "BinaryNotFound",
    "ProtocolError",
]

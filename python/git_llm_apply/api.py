"""apply, edit, undo and log: each runs the binary with `--json` and returns its report, typed."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._binary import find_binary
from .errors import Busy, BinaryNotFound, GitLlmApplyError, InvalidInput, ProtocolError, Refused
from .types import LogReport, Report

PathLike = Union[str, "os.PathLike[str]"]

_RAISES = {1: Refused, 2: InvalidInput, 4: Busy}


def _binary(binary: Optional[PathLike]) -> str:
    if binary is not None:
        return os.fspath(binary)
    found = find_binary()
    if found is None:
        raise BinaryNotFound(
            "git-llm-apply not found beside the git_llm_apply package nor on PATH: "
            "install it with `pip install git-llm-apply` or `cargo install --locked --path .`"
        )
    return found


def _run(
    args: Sequence[str],
    repo: PathLike,
    stdin: Optional[bytes],
    binary: Optional[PathLike],
    env: Optional[Mapping[str, str]],
    timeout: Optional[float],
) -> "tuple[int, Dict[str, Any], str]":
    cmd = [_binary(binary), "-C", os.fspath(repo), *args]
    try:
        done = subprocess.run(
            cmd,
            input=stdin if stdin is not None else b"",
            capture_output=True,
            env=None if env is None else {**os.environ, **env},
            timeout=timeout,
        )
    except FileNotFoundError as e:
        raise BinaryNotFound(f"cannot run {cmd[0]}: {e}") from e
    stderr = done.stderr.decode("utf-8", "replace")
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        raise ProtocolError(
            f"git-llm-apply exited {done.returncode} without a JSON report: {stderr.strip()}",
            exit_code=done.returncode,
            stderr=stderr,
        ) from None
    return done.returncode, doc, stderr


def _report(code: int, doc: Dict[str, Any], stderr: str, accept: Sequence[int] = (0,)) -> Report:
    report = Report.from_json(doc)
    if report.exit_code != code:
        raise ProtocolError(
            f"git-llm-apply exited {code} but its report says {report.exit_code}",
            exit_code=code,
            report=report,
            stderr=stderr,
        )
    if code in accept:
        return report
    shown = doc.get("message")
    raise _RAISES.get(code, GitLlmApplyError)(
        f"git-llm-apply: {report.status}",
        exit_code=code,
        report=report,
        stderr=stderr,
        shown=shown if isinstance(shown, str) else None,
    )


def apply(
    patch: Union[str, bytes],
    repo: PathLike = ".",
    check: bool = False,
    *,
    format: str = "auto",
    partial: bool = False,
    index: bool = False,
    snapshot: bool = True,
    revert: bool = False,
    verify: bool = False,
    label: Optional[str] = None,
    session: Optional[str] = None,
    binary: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
) -> Report:
    """Apply `patch` (a unified diff, Codex patch or SEARCH/REPLACE blocks, as text) to the work
    tree at `repo`. Returns the report when everything applied (or was already applied, or with
    `check=True` would apply); with `partial=True` also a partial apply's report. Raises
    `Refused` (nothing written), `InvalidInput`, `Busy`; each carries the report and its
    `diagnostic` text."""
    data = patch.encode("utf-8") if isinstance(patch, str) else bytes(patch)
    args: List[str] = ["--json", "--format", format]
    flags = {
        "--check": check,
        "--partial": partial,
        "--index": index,
        "--no-snapshot": not snapshot,
        "--revert": revert,
        "--verify": verify,
    }
    args += [flag for flag, on in flags.items() if on]
    if label is not None:
        args += ["--label", label]
    if session is not None:
        args += ["--session", session]
    args.append("-")
    code, doc, stderr = _run(args, repo, data, binary, env, timeout)
    return _report(code, doc, stderr, accept=(0, 3) if partial else (0,))


def edit(
    path: str,
    old_string: Optional[str] = None,
    new_string: Optional[str] = None,
    replace_all: bool = False,
    *,
    edits: Optional[Sequence[Mapping[str, Any]]] = None,
    repo: PathLike = ".",
    check: bool = False,
    snapshot: bool = True,
    label: Optional[str] = None,
    session: Optional[str] = None,
    binary: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
) -> Report:
    """Replace `old_string` with `new_string` in `path` (relative to the work tree's top, or
    absolute inside it), as agents' edit tools send it (`git llm-apply edit --json-input`):
    found exactly once unless `replace_all`. With `edits` (a list of `{old_string,
    new_string, replace_all?}`), all of them in order, all or nothing. Returns the report;
    raises `Refused` (not found, found more than once, ...) or `InvalidInput` like `apply`."""
    request: Dict[str, Any] = {"path": os.fspath(path)}
    if edits is not None:
        if old_string is not None or new_string is not None:
            raise TypeError("edit() takes old_string/new_string or edits, not both")
        request["edits"] = [dict(e) for e in edits]
    else:
        if old_string is None or new_string is None:
            raise TypeError("edit() needs old_string and new_string (or edits)")
        request.update(old_string=old_string, new_string=new_string, replace_all=replace_all)
    args = ["edit", "--json-input", "--json"]
    if check:
        args.append("--check")
    if not snapshot:
        args.append("--no-snapshot")
    if label is not None:
        args += ["--label", label]
    if session is not None:
        args += ["--session", session]
    data = json.dumps(request).encode("utf-8")
    code, doc, stderr = _run(args, repo, data, binary, env, timeout)
    return _report(code, doc, stderr)


def undo(
    id: Union[int, str, None] = None,
    repo: PathLike = ".",
    *,
    session: Optional[str] = None,
    force: bool = False,
    check: bool = False,
    binary: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
) -> Report:
    """Roll back apply `id` (a `log` id or `refs/llm-apply/N`; default the newest), or every
    apply of `session`. Raises `Refused` when there is nothing to undo or a path changed since."""
    args = ["undo", "--json"]
    if session is not None:
        args += ["--session", session]
    if force:
        args.append("--force")
    if check:
        args.append("--check")
    if id is not None:
        args.append(str(id))
    code, doc, stderr = _run(args, repo, None, binary, env, timeout)
    return _report(code, doc, stderr)


def log(
    repo: PathLike = ".",
    *,
    binary: Optional[PathLike] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
) -> LogReport:
    """The recorded applies, newest first."""
    code, doc, stderr = _run(["log", "--json"], repo, None, binary, env, timeout)
    if code != 0 or "snapshots" not in doc:
        # An error is printed as a report, not a listing.
        _report(code, doc, stderr)
        raise ProtocolError("git-llm-apply log printed no listing", exit_code=code, stderr=stderr)
    return LogReport.from_json(doc)

"""The exceptions the API raises, one per exit status of DESIGN §2, each carrying the report."""

from __future__ import annotations

from typing import List, Optional

from .types import Diagnostic, Report


class GitLlmApplyError(Exception):
    """A run that did not do what was asked. `report` is its `--json` report when it printed
    one, `diagnostic` the text to show a model so it can fix its patch in one more try."""

    def __init__(
        self,
        message: str,
        *,
        exit_code: Optional[int] = None,
        report: Optional[Report] = None,
        stderr: str = "",
        shown: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.report = report
        self.stderr = stderr
        # `shown`: the report's own `message` (what the binary would have printed without
        # --json), where the binary writes one; else the text is made from the report.
        if shown:
            self.diagnostic = shown
        else:
            self.diagnostic = describe(report) if report is not None else message

    def __str__(self) -> str:
        return self.diagnostic


class Refused(GitLlmApplyError):
    """Exit 1: nothing was written (no match, ambiguity, conflict, hook veto, path policy,
    nothing to undo). The work tree is as it was."""


class InvalidInput(GitLlmApplyError):
    """Exit 2: bad input or usage (an unparseable patch, not a git repository, bad config)."""


class Busy(GitLlmApplyError):
    """Exit 4: another run held the work tree's lock; nothing was written. Retry."""


class BinaryNotFound(GitLlmApplyError, FileNotFoundError):
    """No `git-llm-apply` binary beside this package nor on PATH."""


class ProtocolError(GitLlmApplyError):
    """The binary's answer is not a report this package can trust (no JSON, or an exit status
    that disagrees with the report's): treated as a failure, never as success."""


def _diagnostic_lines(d: Diagnostic) -> List[str]:
    out = []
    if d.anchor:
        out.append(f"    anchor: {d.anchor}")
    out.append(f"    expected ({d.expected_lines} lines):")
    out += [f"      {n.line} | {n.text}" for n in d.expected]
    if d.closest is not None:
        c = d.closest
        out.append(f"    closest in the file (lines {c.start}-{c.end}, {c.matched} matching):")
        out += [f"      {n.line} | {n.text}" for n in c.lines]
        for diff in c.differences:
            where = f"file line {diff.file_line}" if diff.file_line is not None else "hunk"
            col = f", column {diff.column}" if diff.column is not None else ""
            out.append(
                f"      differs at {where}{col} ({diff.kind}): "
                f"expected {diff.expected!r}, file has {diff.actual!r}"
            )
    for finding in d.findings:
        kind = finding.get("kind") if isinstance(finding, dict) else finding.kind
        rest = finding if isinstance(finding, dict) else vars(finding)
        extra = ", ".join(f"{k}={v}" for k, v in rest.items() if k != "kind")
        out.append(f"    finding: {kind}" + (f" ({extra})" if extra else ""))
    out.append(f"    advice: {d.advice}")
    return out


def describe(report: Report) -> str:
    """A refusal's report as text: what stopped the run, then per failed file and hunk what the
    patch expected, what the file has, and the advice, all taken from the report."""
    lines = [f"git llm-apply: {report.status} (exit {report.exit_code})"]
    lines += [f"error ({e.kind}): {e.message}" for e in report.errors]
    for f in report.files:
        if f.status in ("applied", "already-applied"):
            continue
        lines.append(f"{f.path}: {f.status}")
        lines += [f"  {p}" for p in f.problems]
        for h in f.hunks:
            if h.status in ("applied", "already-applied"):
                continue
            reason = f": {h.reason}" if h.reason else ""
            lines.append(f"  hunk {h.index}: {h.status}{reason}")
            if h.candidates:
                lines.append("    fits at lines " + ", ".join(str(c) for c in h.candidates))
            if h.diagnostic is not None:
                lines += _diagnostic_lines(h.diagnostic)
    for hook in report.hooks:
        if hook.status != "passed":
            lines.append(f"hook {hook.hook}: {hook.message}")
            lines += [f"  {x}" for x in hook.stderr.splitlines()]
    return "\n".join(lines)

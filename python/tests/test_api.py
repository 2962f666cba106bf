"""apply, refusal, undo and log through the Python API, against real temporary repositories."""

import json
import os
import subprocess
import sysconfig
from pathlib import Path

import pytest

import git_llm_apply as gla
from git_llm_apply.api import _report
from git_llm_apply.types import FindingAmbiguous, HunkResult, LogReport, Report

GOOD = """Here is the fix:
```diff
--- a/greet.py
+++ b/greet.py
@@ -1,3 +1,3 @@
 def greet(name):
-    return 'hi ' + name
+    return 'hello ' + name
 
```
"""

STALE = """--- a/greet.py
+++ b/greet.py
@@ -1,3 +1,3 @@
 def greet(name):
-    return 'howdy ' + name
+    return 'hello ' + name
 
"""

ORIGINAL = b"def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
APPLIED = b"def greet(name):\n    return 'hello ' + name\n\n\nprint(greet('x'))\n"


def test_apply_writes_the_edit_and_returns_a_typed_report(repo):
    report = gla.apply(GOOD, repo=repo)
    assert isinstance(report, Report)
    assert (report.status, report.exit_code, report.written) == ("applied", 0, True)
    assert (repo / "greet.py").read_bytes() == APPLIED
    f = report.files[0]
    assert (f.path, f.status, f.added, f.removed) == ("greet.py", "applied", 1, 1)
    assert isinstance(f.hunks[0], HunkResult) and f.hunks[0].line == 1
    assert [n.kind for n in report.notices] == ["fence-stripped", "prose-ignored"]
    assert report.snapshot == "refs/llm-apply/1"


def test_check_reports_without_writing(repo):
    report = gla.apply(GOOD, repo=repo, check=True)
    assert (report.status, report.written, report.check) == ("checked", False, True)
    assert (repo / "greet.py").read_bytes() == ORIGINAL


def test_a_refusal_raises_with_the_diagnostic_and_writes_nothing(repo):
    with pytest.raises(gla.Refused) as caught:
        gla.apply(STALE, repo=repo)
    e = caught.value
    assert e.exit_code == 1 and e.report is not None and e.report.status == "refused"
    assert (repo / "greet.py").read_bytes() == ORIGINAL
    text = str(e)
    # What a model needs to resend the hunk: the file, the hunk, what it expected, the advice.
    assert "greet.py refused" in text
    assert "hunk 1 (@@ hint: line 1): not found" in text
    assert "2 |     return 'howdy ' + name" in text
    assert "advice: " + e.report.files[0].hunks[0].diagnostic.advice in text
    assert gla.log(repo).snapshots == []


def test_an_ambiguous_hunk_names_every_place(repo):
    (repo / "twice.txt").write_text("x = 1\ny = 2\nz\nx = 1\ny = 2\nz\n")
    patch = "--- a/twice.txt\n+++ b/twice.txt\n@@ @@\n x = 1\n-y = 2\n+y = 3\n z\n"
    with pytest.raises(gla.Refused) as caught:
        gla.apply(patch, repo=repo)
    hunk = caught.value.report.files[0].hunks[0]
    assert hunk.status == "ambiguous" and hunk.candidates == [1, 4]
    assert any(isinstance(f, FindingAmbiguous) for f in hunk.diagnostic.findings)
    assert "(lines 1, 4)" in str(caught.value)
    assert (repo / "twice.txt").read_text() == "x = 1\ny = 2\nz\nx = 1\ny = 2\nz\n"


def test_unparseable_input_is_invalid_input(repo):
    with pytest.raises(gla.InvalidInput) as caught:
        gla.apply("please make greet say hello", repo=repo)
    assert caught.value.exit_code == 2
    assert [e.kind for e in caught.value.report.errors] == ["parse"]
    assert "error: no patch found" in str(caught.value)


def test_outside_a_repository_log_is_invalid_input(tmp_path):
    with pytest.raises(gla.InvalidInput) as caught:
        gla.log(tmp_path)
    assert [e.kind for e in caught.value.report.errors] == ["repository"]


def test_undo_restores_the_bytes_and_log_shows_both(repo):
    gla.apply(GOOD, repo=repo, label="say hello", session="s1")
    listing = gla.log(repo)
    assert isinstance(listing, LogReport)
    [entry] = listing.snapshots
    assert (entry.id, entry.status, entry.intent, entry.session, entry.paths) == (
        1, "applied", "say hello", "s1", ["greet.py"])
    report = gla.undo(repo=repo)
    assert (report.status, report.reverse) == ("applied", True)
    assert (repo / "greet.py").read_bytes() == ORIGINAL
    statuses = [(s.id, s.status) for s in gla.log(repo).snapshots]
    # The undo's own record is `undo`; `undo` without an id passes over it.
    assert statuses == [(2, "undo"), (1, "undone")]
    with pytest.raises(gla.Refused) as caught:
        gla.undo(1, repo=repo)
    assert caught.value.report.errors[0].kind == "already-undone"


def test_crlf_file_keeps_its_line_endings(repo):
    patch = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    gla.apply(patch, repo=repo)
    assert (repo / "notes.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"


def test_partial_returns_the_report_of_what_applied(repo):
    patch = STALE + "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
    with pytest.raises(gla.Refused):
        gla.apply(patch, repo=repo)
    report = gla.apply(patch, repo=repo, partial=True)
    assert (report.status, report.exit_code) == ("partial", 3)
    assert [(f.path, f.status) for f in report.files] == [("greet.py", "refused"), ("notes.txt", "applied")]
    assert (repo / "notes.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"


def test_a_missing_binary_is_its_own_error(repo, tmp_path):
    with pytest.raises(gla.BinaryNotFound):
        gla.apply(GOOD, repo=repo, binary=tmp_path / "no-such-binary")
    assert (repo / "greet.py").read_bytes() == ORIGINAL


@pytest.mark.skipif(
    not os.environ.get("GIT_LLM_APPLY_EXPECT_INSTALLED"),
    reason="only when testing an installed wheel (.ci/run sets GIT_LLM_APPLY_EXPECT_INSTALLED)",
)
def test_the_binary_installed_with_the_package_comes_first(monkeypatch):
    # PATH holds nothing, so only the copy the wheel installed can be found.
    monkeypatch.setenv("PATH", "")
    found = gla.find_binary()
    assert found is not None
    assert Path(found).parent == Path(sysconfig.get_path("scripts"))
    assert Path(gla.__file__).resolve().is_relative_to(Path(sysconfig.get_path("purelib")).resolve())


def test_a_report_that_says_what_to_show_is_shown_as_it_is(repo):
    # Reports that carry `message` (the text the binary prints without --json) are shown as
    # the binary words them; without it, the text is made from the report.
    with pytest.raises(gla.Refused) as caught:
        gla.apply(STALE, repo=repo)
    made = caught.value.diagnostic
    doc = json.loads(
        subprocess.run(
            [gla.find_binary(), "-C", str(repo), "--json", "-"], input=STALE.encode(), capture_output=True
        ).stdout
    )
    doc.pop("message", None)
    assert made == json.loads(
        subprocess.run(
            [gla.find_binary(), "-C", str(repo), "--json", "-"], input=STALE.encode(), capture_output=True
        ).stdout
    )["message"]
    with pytest.raises(gla.Refused) as without:
        _report(1, doc, "")
    assert "greet.py" in without.value.diagnostic and without.value.diagnostic != made
    doc["message"] = "! greet.py refused\n  advice: resend the hunk\n"
    with pytest.raises(gla.Refused) as caught:
        _report(1, doc, "")
    assert caught.value.diagnostic == doc["message"]

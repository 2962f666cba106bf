"""Fixtures: a real temporary git repository with pinned identity and dates, and the git to use."""

import os
import subprocess
from pathlib import Path

import pytest

GIT = os.environ.get("GIT_LLM_APPLY_GIT", "git")
PINNED = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo, *args):
    env = {**os.environ, **PINNED, "HOME": str(repo)}
    return subprocess.run([GIT, "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    for k, v in PINNED.items():
        monkeypatch.setenv(k, v)
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "greet.py").write_bytes(b"def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n")
    (root / "notes.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root

"""edit(): structured edits through `git llm-apply edit --json-input`, against real repositories."""

import pytest

import git_llm_apply as gla

ORIGINAL = b"def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"


def test_edit_replaces_the_one_place_and_can_be_undone(repo):
    report = gla.edit("greet.py", "'hi '", "'hello '", repo=repo, label="say hello")
    assert (report.status, report.format, report.written) == ("applied", "search-replace", True)
    assert (repo / "greet.py").read_bytes() == ORIGINAL.replace(b"'hi '", b"'hello '")
    assert gla.log(repo).snapshots[0].intent == "say hello"
    gla.undo(repo=repo)
    assert (repo / "greet.py").read_bytes() == ORIGINAL


def test_an_edit_found_twice_is_refused_with_every_line(repo):
    with pytest.raises(gla.Refused) as caught:
        gla.edit("greet.py", "greet", "hello", repo=repo)
    assert (repo / "greet.py").read_bytes() == ORIGINAL
    assert [e.kind for e in caught.value.report.errors] == ["ambiguous"]
    assert "occurs 2 times (at lines 1, 5)" in caught.value.diagnostic


def test_replace_all_and_a_list_of_edits_apply_all_or_nothing(repo):
    gla.edit("greet.py", "greet", "hello", replace_all=True, repo=repo)
    assert (repo / "greet.py").read_bytes() == ORIGINAL.replace(b"greet", b"hello")
    edits = [{"old_string": "'hi '", "new_string": "'hey '"}, {"old_string": "nowhere", "new_string": "never seen"}]
    with pytest.raises(gla.Refused):
        gla.edit("greet.py", edits=edits, repo=repo)
    assert (repo / "greet.py").read_bytes() == ORIGINAL.replace(b"greet", b"hello"), "all or nothing"
    report = gla.edit("greet.py", edits=edits[:1], repo=repo, check=True)
    assert (report.status, report.written) == ("checked", False)


def test_edit_needs_its_strings():
    with pytest.raises(TypeError):
        gla.edit("greet.py", "only old")

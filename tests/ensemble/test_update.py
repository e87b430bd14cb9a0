"""The engine's side of an update (`bot/ensemble/update.py`, `conflicts.py`, `bot/forge/onto.py`) on a real git
repository, with pytest on the host and scripted models."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.conflicts import apply_resolutions, hunks, parse_resolutions
from bot.ensemble.runner import Components
from bot.ensemble.types import Task
from bot.ensemble.update import UpdateJob, update_branch
from bot.forge.onto import Conflict
from fakes.engine_parts import HostPytest
from tests.ensemble.conftest import ScriptedModels

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TESTS = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
TASK = Task("add() subtracts", "add(2, 3) returns -1; it should return 5.", slug="issue-1")
ADD = "tests/test_calc.py::test_add"
TWO = """\
x = 1
<<<<<<< HEAD
y = 2
||||||| base
y = 0
=======
y = 3
>>>>>>> main
z = 1
<<<<<<< HEAD
w = 'ours'
=======
w = 'theirs'
>>>>>>> main
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args], cwd=repo,
                          check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main with the bug; the bot's branch ensemble/issue-1 with the fix."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit(path, {"calc.py": CALC, "tests/test_calc.py": TESTS}, "start")
    git(path, "checkout", "-qb", "ensemble/issue-1")
    commit(path, {"calc.py": CALC.replace("a - b", "a + b")}, "Make add() add\n\nEnsemble-Run: r0")
    git(path, "checkout", "-q", "main")
    return path


def test_conflict_regions_are_read_with_both_sides_and_answers_applied_per_file() -> None:
    conflict = Conflict("a.py", TWO, ("ours", "theirs"))
    found = hunks([conflict])
    assert [(h.number, h.ours, h.base, h.theirs) for h in found] == [
        (1, "y = 2\n", "y = 0\n", "y = 3\n"), (2, "w = 'ours'\n", "", "w = 'theirs'\n")]
    assert (found[0].before, found[0].after, found[1].before) == ("x = 1\n", "z = 1\n", "z = 1\n")  # never a marker
    reply = ("<think>### conflict 1\n```\ny = 99\n```</think>Here you go.\n\n### Conflict 1\n~~~python\ny = 5\n~~~\n"
             "and **conflict 2**:\n````\nw = 'both'\n````\n")
    answers = parse_resolutions(reply)
    assert answers == {1: "y = 5\n", 2: "w = 'both'\n"}  # what the model thought out loud is not an answer
    resolved, problems = apply_resolutions([conflict], found, answers)
    assert not problems and resolved == {"a.py": "x = 1\ny = 5\nz = 1\nw = 'both'\n"}


def test_an_unanswered_or_still_marked_conflict_is_reported_and_its_file_not_written() -> None:
    conflict = Conflict("a.py", TWO, ("ours", "theirs"))
    found = hunks([conflict])
    resolved, problems = apply_resolutions([conflict], found, {1: "<<<<<<< HEAD\ny = 2\n"})
    assert resolved == {}
    assert problems == ["a.py: no answer for conflict 2; answer each with `### conflict N` and a fenced block",
                        "a.py: the answer to conflict 1 still holds conflict markers; give only the resolved lines"]


def test_a_clean_update_that_undoes_the_fix_is_refused_by_the_judge_without_a_model(repo: Path) -> None:
    base = commit(repo, {"calc.py": CALC + "\n\nadd = lambda a, b: a - b  # noqa: E731\n"}, "a faster add")
    old = git(repo, "rev-parse", "ensemble/issue-1")
    models = ScriptedModels({})  # any call would fail: no reply is scripted
    job = UpdateJob(TASK, base, "main", fixed=None)  # the evidence is unknown: learnt on the old base first
    result = update_branch(repo, job, Config(), {}, Components(models=models, runner=HostPytest()))
    assert not result.updated and not result.conflicts and not models.calls
    assert result.run.judgement is not None and result.run.judgement.required_failing == (ADD,)
    assert result.why.startswith("the update merged cleanly, but on the new base")
    assert git(repo, "rev-parse", "ensemble/issue-1") == old


def test_a_rebase_resolves_its_conflict_and_replays_the_branch_on_the_new_base(repo: Path) -> None:
    base = commit(repo, {"calc.py": CALC.replace("def add(a, b):\n", "def add(a, b):  # sums\n")}, "comment")
    models = ScriptedModels({("coder", None): ["### conflict 1\n```python\ndef add(a, b):  # sums\n"
                                                "    return a + b\n```\n"]})
    job = UpdateJob(TASK, base, "main", "rebase", fixed=(ADD,))
    result = update_branch(repo, job, Config(), {}, Components(models=models, runner=HostPytest()))
    assert result.updated and result.conflicts == ("calc.py",) and result.rounds == 1
    head = git(repo, "rev-parse", "ensemble/issue-1")
    assert git(repo, "rev-parse", f"{head}^") == base and "Ensemble-Run: r0" in git(repo, "log", "-1", "--format=%B", head)
    assert git(repo, "show", f"{head}:calc.py").startswith("def add(a, b):  # sums\n    return a + b\n")
    [(role, _, _)] = models.calls
    assert role == "coder" and result.sides == ("the new base", "the pull request's commit being replayed")


def test_conflicts_in_a_file_the_bot_never_edits_go_to_a_human_without_a_model(repo: Path) -> None:
    git(repo, "checkout", "-q", "ensemble/issue-1")
    commit(repo, {".github/workflows/ci.yml": "name: ci  # ours\n"}, "ci\n\nEnsemble-Run: r0")
    git(repo, "checkout", "-q", "main")
    base = commit(repo, {".github/workflows/ci.yml": "name: ci  # theirs\n"}, "ci")
    models = ScriptedModels({})
    result = update_branch(repo, UpdateJob(TASK, base, "main", fixed=(ADD,)), Config(), {},
                           Components(models=models, runner=HostPytest()))
    assert not result.updated and result.conflicts == (".github/workflows/ci.yml",) and not models.calls
    assert "files the bot never edits (.github/workflows/ci.yml)" in result.why

"""Partial work: a run stopped by a limit keeps a change that fixes some tests and breaks none, marked partial."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.report import render_summary
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import RunResult, Task
from bot.errors import BudgetExceeded
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import BAD_FIX, ENOUGH, FIX
from tests.ensemble.conftest import ScriptedModels

TWO_BUGS = Task("median() and mean() are wrong",
                "test_median_even fails: median([1, 2, 3, 4]) returns 3, expected 2.5. test_mean_empty fails: "
                "mean([]) raises, expected 0.", slug="two-bugs")
PLAN = {"summary": "Fix median() for even counts and mean() of an empty list.", "files": ["stats/core.py"],
        "steps": ["Average the two middle values in median()", "Return 0 for an empty list in mean()"],
        "questions": []}
BREAK_ODD = """stats/core.py
<<<<<<< SEARCH
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
=======
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[0]
>>>>>>> REPLACE"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def two_bugs(sample: Path) -> Path:
    """The sample repository with a second failing test: mean([]) should be 0."""
    tests = sample / "tests" / "test_core.py"
    tests.write_text(tests.read_text() + "\n\ndef test_mean_empty():\n    assert mean([]) == 0\n")
    git(sample, "commit", "-qam", "A test for mean() of an empty list")
    return sample


def run(repo: Path, coder: list[object], **config: object) -> RunResult:
    """TWO_BUGS on `repo` with the scripted models, file retrieval and pytest on the host."""
    script = {("planner", "explore"): [ENOUGH], ("planner", "plan"): [PLAN], ("coder", None): coder,
              ("critic", "review"): [{"verdict": "accept", "feedback": "ok"}]}
    parts = Components(models=ScriptedModels(script), retriever=FileRetriever(repo), runner=HostPytest())
    return run_task(repo, TWO_BUGS, Config(ensembles=1, **config), {}, parts)  # type: ignore[arg-type]


def test_a_run_stopped_by_its_budget_with_one_of_two_tests_fixed_keeps_it_as_partial_work(two_bugs: Path) -> None:
    result = run(two_bugs, [FIX, BudgetExceeded("the next call would pass $0.01")])
    assert result.stop_reason == "budget"
    assert result.partial and not result.success and len(result.commits) == 1
    assert result.judgement is not None
    assert [n.rsplit("::", 1)[-1] for n in result.judgement.fixed] == ["test_median_even"]
    assert [n.rsplit("::", 1)[-1] for n in result.judgement.required_failing] == ["test_mean_empty"]
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in git(two_bugs, "show", f"{result.branch}:stats/core.py")
    summary = render_summary(result)
    assert "PARTIAL" in summary and "partial work" in summary and "test_mean_empty" in summary
    assert result.to_dict()["partial"] is True


def test_nothing_is_kept_when_no_round_fixed_a_test_without_breaking_another(two_bugs: Path) -> None:
    result = run(two_bugs, [BAD_FIX, BudgetExceeded("the next call would pass $0.01")])
    assert result.stop_reason == "budget" and not result.partial and not result.commits
    assert git(two_bugs, "branch", "--list", result.branch) == ""
    assert "NO PASSING CHANGE" in render_summary(result)


def test_the_best_partial_round_is_kept_when_a_later_round_broke_a_test(two_bugs: Path) -> None:
    result = run(two_bugs, [FIX, BREAK_ODD], max_iterations=2)
    assert result.stop_reason == "max_iterations" and result.partial
    assert "round 1 fixed 1 failing test(s) without breaking any and is kept" in result.stop_detail
    core = git(two_bugs, "show", f"{result.branch}:stats/core.py")
    assert "return ordered[middle]\n" in core and "return ordered[0]" not in core
    assert len(result.commits) == 1 and result.judgement is not None and not result.judgement.broken


CHANGE_EXPECTED = """tests/test_core.py
<<<<<<< SEARCH
    assert median([1, 2, 3, 4]) == 2.5
=======
    assert median([1, 2, 3, 4]) == 3
>>>>>>> REPLACE"""
HIDE_THE_TESTS = """conftest.py
<<<<<<< SEARCH
=======
collect_ignore = ["tests/test_core.py"]
>>>>>>> REPLACE"""


@pytest.mark.parametrize("cheat", [CHANGE_EXPECTED, HIDE_THE_TESTS], ids=["expected-value", "hidden-tests"])
def test_a_cheat_is_never_partial_work(two_bugs: Path, cheat: str) -> None:
    # Partial work publishes a change that is not good: it must be better by the judge's facts, not by the
    # candidate's own tests.
    result = run(two_bugs, [cheat, BudgetExceeded("the next call would pass $0.01")])
    assert result.stop_reason == "budget" and not result.partial and not result.commits
    assert git(two_bugs, "branch", "--list", result.branch) == ""

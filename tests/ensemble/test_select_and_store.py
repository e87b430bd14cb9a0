"""Winner selection, the insight store across runs, and stop requests in the middle of a run."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.insights import InsightStore, Lesson
from bot.ensemble.runner import Components, run_task
from bot.ensemble.select import choose_winner
from bot.ensemble.types import CRASHED, Task, TeamResult
from bot.ensemble.types import TestOutcome as Outcome
from fakes.engine_parts import FileRetriever, HostPytest
from tests.ensemble.conftest import ScriptedModels, happy_script


def team(name: str, passed: bool, accepted: bool = False, failing: int = 0, lines: int = 4,
         crashed: bool = False) -> TeamResult:
    tests = Outcome(passed, tuple(f"t{i}" for i in range(failing)))
    diff = "--- a/x\n+++ b/x\n" + "".join(f"+line {i}\n" for i in range(lines))
    return TeamResult(name, stop_reason=CRASHED if crashed else "accepted" if accepted else "max_iterations",
                      tests_after=tests, accepted=accepted, diff=diff, error="boom" if crashed else "")


@pytest.mark.parametrize(("a", "b", "winner", "why"), [
    (team("a", False, failing=1), team("b", True), "b", "tests pass beat failing tests"),
    (team("a", True, lines=2), team("b", True, accepted=True, lines=9), "b", "critic accept beats a smaller diff"),
    (team("a", False, failing=3), team("b", False, failing=1), "b", "fewer failing tests"),
    (team("a", True, accepted=True, lines=12), team("b", True, accepted=True, lines=3), "b", "smaller diff"),
    (team("a", True, accepted=True, lines=3), team("b", True, accepted=True, lines=3), "a", "a full tie: team a"),
    (team("a", True, crashed=True), team("b", False, failing=2), "a", "a crashed team that kept a passing round"),
    (team("a", False, crashed=True), team("b", False, failing=2), "b", "a crash with nothing passing ranks last"),
])
def test_the_winner_follows_the_documented_order(a: TeamResult, b: TeamResult, winner: str, why: str) -> None:
    best, decision = choose_winner([a, b])
    assert best is not None and best.name == winner, why
    assert decision.startswith(f"team {winner} wins") and f"team {'b' if winner == 'a' else 'a'}:" in decision


def test_every_team_crashing_is_no_winner() -> None:
    best, decision = choose_winner([team("a", False, crashed=True), team("b", False, crashed=True)])
    assert best is None and decision.startswith("every team crashed")


def test_lessons_persist_are_bounded_and_found_by_similarity(tmp_path: Path) -> None:
    path = tmp_path / ".ensemble" / "insights.jsonl"
    store = InsightStore(path, limit=3)
    store.add(Lesson("median() is wrong for even counts", "passed", worked="average the middle two"))
    store.add(Lesson("HTTP redirects loop forever", "stuck", failed="the same failure 3 times"))
    later = InsightStore(path, limit=3)  # a new run reads what the earlier ones wrote
    assert later.relevant("median of an even list")[0].worked == "average the middle two"
    for n in range(3):
        later.add(Lesson(f"unrelated task {n}", "passed"))
    assert [x.task for x in later.load()] == ["unrelated task 0", "unrelated task 1", "unrelated task 2"]


def test_a_damaged_line_loses_only_itself(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "insights.jsonl"
    good = json.dumps({"task": "keep me", "outcome": "passed"})
    path.write_text(f"{good}\n{{torn line\n{good.replace('keep me', 'and me')}\n")
    assert [x.task for x in InsightStore(path).load()] == ["keep me", "and me"]
    assert "damaged line" in caplog.text


def test_lessons_added_from_two_threads_are_all_kept_whole(tmp_path: Path) -> None:
    store = InsightStore(tmp_path / "insights.jsonl", limit=1000)
    threads = [threading.Thread(target=lambda n=n: [store.add(Lesson(f"task {n}-{i}", "passed")) for i in range(20)])
               for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(x.task for x in store.load()) == sorted(f"task {n}-{i}" for n in range(2) for i in range(20))


def test_a_stop_request_ends_the_run_cleanly_and_asks_no_more(sample: Path) -> None:
    stop = threading.Event()
    models = ScriptedModels(happy_script())
    original = models.complete

    def complete(role, messages, schema=None, temperature=None, **sequences):  # type: ignore[no-untyped-def]
        reply = original(role, messages, schema, temperature, **sequences)
        if schema == "plan":
            stop.set()  # a human says /ensemble stop while the planner answers
        return reply

    models.complete = complete  # type: ignore[method-assign]
    parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest(), stop=stop)
    result = run_task(sample, Task("median() is wrong", "median([1, 2, 3, 4]) returns 3.", slug="m"),
                      Config(ensembles=1), {}, parts)
    assert result.stop_reason == "stopped" and "stop" in result.stop_words
    assert not result.success and not result.commits
    assert [c[0] for c in models.calls][-1] == "planner"  # no coder or critic call after the stop
    assert not list((sample / ".ensemble" / "worktrees").glob("*"))  # the team's worktree is gone

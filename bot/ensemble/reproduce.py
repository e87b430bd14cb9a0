"""Round 0 of a team's loop: the coder writes the reproduction test, and the sandbox must see it fail at the base."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ensemble import round_text
from bot.ensemble.coding import code_round
from bot.ensemble.commits import commit_round
from bot.ensemble.planner import Exploration
from bot.ensemble.types import Phase, Plan, Reproduction, Round, TestOutcome

if TYPE_CHECKING:
    from bot.ensemble.team import Team


def reproduce(team: Team, plan: Plan, found: Exploration) -> Reproduction:
    """Round 0: the coder writes the reproduction test; the sandbox must see it fail.

    An attempt that does not apply, compile or run is dropped from the workspace, so a broken
    test never reaches a later commit.
    """
    path = plan.reproduction_test or ""
    feedback, refused = "", []
    for _attempt in range(2):
        team.say(Phase.REPRODUCING, 0, path)
        team.check_stop()
        rnd = code_round(team, plan, found, feedback, Round(0, kind="reproduce"), reproduce=True)
        committed = rnd.applied and not rnd.compile_error and rnd.tests is not None and commit_round(
            team, rnd, f"Add reproduction test {path}", round_text.round_body(plan, rnd, "reproduction test"))
        refused += rnd.refused
        if committed and rnd.tests is not None:
            failed = reproduces(team, rnd.tests, path)
            note = "" if failed else "the reproduction test passed before the fix, so it does not show the bug"
            return Reproduction(path, failed_before=failed, note=note, refused=tuple(refused))
        team.workspace.discard()
        feedback = rnd.edit_errors or rnd.compile_error
    return Reproduction(path, note=f"the coder could not write a working reproduction test: {feedback[:300]}",
                        refused=tuple(refused))


def reproduces(team: Team, tests: TestOutcome, path: str) -> bool:
    """True when the reproduction test fails at the base (without per-test results: the run failed)."""
    judgement = team.judge(tests, path)
    if judgement.per_test:
        return bool(judgement.required_failing)
    return not tests.passed

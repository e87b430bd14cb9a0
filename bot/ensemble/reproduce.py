"""Round 0 of a team's loop: the coder writes the reproduction test, and the sandbox must see it fail at the base."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.ensemble import round_text
from bot.ensemble.coding import code_round
from bot.ensemble.commits import commit_round
from bot.ensemble.planner import Exploration
from bot.ensemble.types import Phase, Plan, Reproduction, Round, TestOutcome
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.redact import clip

if TYPE_CHECKING:
    from bot.ensemble.team import Team


def reproduce(team: Team, plan: Plan, found: Exploration) -> Reproduction:
    """Round 0: the coder writes the reproduction test; the sandbox must see it fail.

    An attempt that does not apply, compile or run is dropped from the workspace, so a broken
    test never reaches a later commit.
    """
    path = plan.reproduction_test or ""
    if path and team.workspace.base_text(path) is not None:  # an existing test file is the judge's: write a new one
        path = fresh_test_path(path, lambda p: team.workspace.base_text(p) is not None)
        plan = replace(plan, reproduction_test=path)
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
            if failed:  # from now on the test is judged as round 0 wrote it
                team.frozen.update((p, text) for p in [path] if (text := WorkspaceFiles(team.workspace.path).read(p)))
            note = "" if failed else "the reproduction test passed before the fix, so it does not show the bug"
            return Reproduction(path, failed_before=failed, note=note, refused=tuple(refused))
        team.workspace.discard()
        feedback = rnd.edit_errors or rnd.compile_error
    return Reproduction(path, note=f"the coder could not write a working reproduction test: {clip(feedback, 300)}",
                        refused=tuple(refused))


def fresh_test_path(path: str, exists: Callable[[str], bool]) -> str:
    """A new test file's path beside `path`, named the way its runner finds tests (`x_test.go` -> `x_repro_test.go`)."""
    folder, _, name = path.rpartition("/")
    for marker in ("_test.", ".test.", ".spec.", "."):
        if marker in name:
            stem, _, rest = name.rpartition(marker) if marker == "." else name.partition(marker)
            break
    for n in range(1, 100):
        suffix = "_repro" if n == 1 else f"_repro{n}"
        candidate = f"{stem}{suffix}{marker}{rest}"
        full = f"{folder}/{candidate}" if folder else candidate
        if not exists(full):
            return full
    return path


def reproduces(team: Team, tests: TestOutcome, path: str) -> bool:
    """True when the reproduction test fails at the base (without per-test results: the run failed)."""
    judgement = team.judge(tests, path)
    if judgement.per_test:
        return bool(judgement.required_failing)
    return not tests.passed

"""Which runner patches the sandbox saw in a judged run count as tampering: all but those of a line the static
screen read and the task asked for (bot/ensemble/judge/runs.py)."""

from __future__ import annotations

import pytest

from bot.ensemble.judge.runs import _not_asked_for
from bot.ensemble.types import RunnerHook

BUILTIN = RunnerHook("stats/__init__.py", 5, "patches builtins.median", "builtins.median = median")
ASSERTION = RunnerHook("calc/ops.py", 3, "patches unittest.TestCase.assertEqual", "unittest.TestCase.assertEqual = f")


def patched(target: str, origin: str = "stats/core.py") -> str:
    return f"runner_patched: {target}: replaced while the tests ran, by code in {origin}"


@pytest.mark.parametrize(("finding", "allowed", "kept"), [
    (patched("builtins.median"), [BUILTIN], False),  # what the task asked for, wherever the function is defined
    (patched("builtins.open"), [BUILTIN], True),  # something else in the same module
    (patched("unittest.case.TestCase.assertEqual"), [BUILTIN], True),
    (patched("unittest.case.TestCase.assertEqual"), [ASSERTION], False),  # the class's module as the screen names it
    (patched("json.loads"), [], True),  # no line the screen read: names built at run time
    ("owned_changed: tests/data.json: the test run changed this file", [BUILTIN], True),  # not a patch
])
def test_a_runner_patch_is_tampering_unless_the_task_asked_for_that_line(finding: str, allowed: list[RunnerHook],
                                                                        kept: bool) -> None:
    assert _not_asked_for([finding], allowed) == ([finding] if kept else [])

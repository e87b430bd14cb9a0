"""The judge's stand-ins in a team's run: where the tests a change must fix passed, one more process with each such
test's file in its own place, expecting another value (bot/ensemble/judge/twins.py, TeamJudge._stood_in)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from bot.config import Config
from bot.ensemble.judge.runs import STAND_INS_WITH_THE_SUITE_S
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import TestOutcome
from fakes.engine_parts import FileRetriever, HostPytest
from tests.ensemble.conftest import ScriptedModels, happy_script
from tests.ensemble.test_real_world import TASK, commit_file

OTHER = "def test_other():\n    assert 1 + 1 == 2\n"


class SlowSuite(HostPytest):
    """pytest on the host, each run reported as taking longer than a stand-in run with the whole suite may."""

    def run_tests(self, *args: Any, **kwargs: Any) -> TestOutcome:
        return dataclasses.replace(super().run_tests(*args, **kwargs), duration_s=STAND_INS_WITH_THE_SUITE_S + 1)


MOVED = re.compile(rb"assert median\(\[1, 2, 3, 4\]\) == (?!2\.5\n)-?[\d.]+\n")  # its 2.5, moved


def _stand_in_runs(runner: HostPytest) -> list[dict[str, bytes | None]]:
    """The overlays of the runs that put a stand-in of tests/test_core.py in its place (its 2.5 moved)."""
    return [o for o in runner.overlays if MOVED.search(o.get("tests/test_core.py") or b"")]


def _run(sample: Path, runner: HostPytest) -> None:
    commit_file(sample, "tests/test_other.py", OTHER)
    parts = Components(models=ScriptedModels(happy_script()), retriever=FileRetriever(sample), runner=runner)
    result = run_task(sample, TASK, Config(ensembles=1), {}, parts)
    assert result.success and not result.refused, (result.stop_detail, result.refused)


def test_a_fix_that_passes_gets_one_run_of_its_stand_ins_with_the_whole_suite(sample: Path) -> None:
    runner = HostPytest()
    _run(sample, runner)
    (stand,) = _stand_in_runs(runner)  # the fix passed the test it must fix; the reproduction round did not
    assert "tests/test_other.py" not in stand  # the base's other tests run as in the judged run
    assert MOVED.search(stand["tests/test_core.py"] or b"")


def test_a_slow_suites_stand_ins_run_without_the_other_test_files(sample: Path) -> None:
    runner = SlowSuite()
    _run(sample, runner)
    (stand,) = _stand_in_runs(runner)
    assert stand["tests/test_other.py"] is None

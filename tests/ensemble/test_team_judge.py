"""A team's judged run, process by process (bot/ensemble/judge/runs.py TeamJudge.run): which of the candidate's new
files each test process gets."""

from __future__ import annotations

from pathlib import Path

from bot.config import Config
from bot.ensemble.judge import TeamJudge
from bot.ensemble.runner import Components, run_task
from bot.forge.local import LocalForge
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import FIX, REPRO
from tests.ensemble.conftest import MEDIAN_TASK, ScriptedModels, happy_script

CONFTEST = "tests/conftest.py"
NEW_TEST = "tests/test_even_cases.py"
FIXTURE = "import pytest\n\n\n@pytest.fixture\ndef even_cases():\n    return [([1, 2, 3, 4], 2.5), ([10, 0], 5)]"
TEST = ("from stats import median\n\n\ndef test_every_even_case(even_cases):\n    for values, expected in even_cases:\n"
        "        assert median(values) == expected")


def create(path: str, content: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n=======\n{content}\n>>>>>>> REPLACE"


def test_a_new_conftest_of_fixtures_runs_with_the_new_tests_and_never_with_the_bases(sample: Path) -> None:
    runner = HostPytest()
    reply = "\n\n".join([FIX, create(CONFTEST, FIXTURE), create(NEW_TEST, TEST)])
    models = ScriptedModels({**happy_script(), ("coder", None): [REPRO, reply]})
    parts = Components(models=models, retriever=FileRetriever(sample), runner=runner)
    result = run_task(sample, MEDIAN_TASK, Config(ensembles=1), {}, parts)
    assert result.success and not result.refused, (result.stop_detail, result.refused)
    # the base's tests' processes: the new test file and the new conftest are both left out
    with_base = [o for o in runner.overlays if NEW_TEST in o]
    assert with_base and all(o[NEW_TEST] is None and o[CONFTEST] is None for o in with_base)
    # the new tests' process: the base's test file left out, the new conftest in the tree beside the new test
    with_new = [o for o in runner.overlays if o.get("tests/test_core.py", b"") is None]
    assert with_new and all(CONFTEST not in o and NEW_TEST not in o for o in with_new)
    after = dict(result.tests_after.results) if result.tests_after else {}
    assert after[f"{NEW_TEST}::test_every_even_case"] == "pass"


def test_the_reproduction_round_does_not_run_the_bases_tests_again(sample: Path) -> None:
    """Round 0 only adds the reproduction test, which the base's tests' process leaves out: that process would run
    the base's tree again, so the base run's outcome stands for it and only the new test runs. The round with the
    fix runs the base's tests as always."""
    runner = HostPytest()
    parts = Components(models=ScriptedModels(happy_script()), retriever=FileRetriever(sample), runner=runner)
    result = run_task(sample, MEDIAN_TASK, Config(ensembles=1), {}, parts)
    assert result.success, result.stop_detail
    repro, base_test = "tests/test_repro_median.py", "tests/test_core.py"
    # the run after the base run is round 0's: the reproduction test alone, the base's test file left out
    assert runner.overlays[1].get(base_test, b"") is None and repro not in runner.overlays[1], runner.overlays[1]
    # the base's tests, the candidate's new test left out, ran only for the fix (and its stand-ins), never in round 0
    base_processes = [i for i, o in enumerate(runner.overlays) if o.get(repro, b"") is None]
    assert base_processes and min(base_processes) > 1, [sorted(o) for o in runner.overlays]
    assert result.reproduction and result.reproduction.failed_before


SPECIAL = """stats/core.py
<<<<<<< SEARCH
    middle = len(ordered) // 2
    return ordered[middle]
=======
    middle = len(ordered) // 2
    if values == [1, 2, 3, 4]:
        return 2.5
    return ordered[middle]
>>>>>>> REPLACE"""
FIX_AFTER_SPECIAL = """stats/core.py
<<<<<<< SEARCH
    if values == [1, 2, 3, 4]:
        return 2.5
    return ordered[middle]
=======
    if len(ordered) % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
>>>>>>> REPLACE"""


def test_the_stand_ins_run_only_for_a_change_the_rest_of_the_run_finds_good(sample: Path) -> None:
    """Round 1 makes the base's failing test pass by its input alone and fails the reproduction test: not good, so
    its stand-ins' process is not run; round 2's honest fix is good, and its stand-ins are."""
    runner = HostPytest()
    models = ScriptedModels({**happy_script(), ("coder", None): [REPRO, SPECIAL, FIX_AFTER_SPECIAL]})
    parts = Components(models=models, retriever=FileRetriever(sample), runner=runner)
    result = run_task(sample, MEDIAN_TASK, Config(ensembles=1), {}, parts)
    assert result.success, result.stop_detail
    base_test = (sample / "tests/test_core.py").read_bytes()
    stood_in = [o for o in runner.overlays if o.get("tests/test_core.py") not in (None, base_test)]
    assert len(stood_in) == 1, len(stood_in)
    assert b"2.5" not in (stood_in[0]["tests/test_core.py"] or b"")  # the assertion expects another value


def test_a_new_test_the_plan_names_at_an_existing_test_file_goes_beside_it(sample: Path) -> None:
    forge = LocalForge(sample, "new-test-path")
    forge.start("median")
    try:
        workspace = forge.workspace("a")
        judge = TeamJudge(MEDIAN_TASK.text)
        assert judge.new_test_path("tests/test_core.py", workspace) == "tests/test_core_repro.py"  # the judge's
        assert judge.new_test_path("tests/test_median.py", workspace) == "tests/test_median.py"
    finally:
        forge.cleanup()

"""A suite killed by a limit is resumed whatever the runner, and every runner that can list its tests lists them
in the identity format its results use. Real Docker: the memory limit and the time limit really kill.

Each suite has a test that passes, a test that hits the limit, and a later test that fails: the later test
must be reported (the run was resumed), the killed one is an error that names the limit, and the run is
complete against the listing. Go and Rust: tests/sandbox/test_resume_compiled.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import DockerSandbox
from sandbox.suite import accounted, list_tests, listing_itself, run_suite
from tests.sandbox.conftest import prepare_suite

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

UNITTEST_SUITE = '''import unittest


class Suite(unittest.TestCase):
    def test_1_passes(self):
        self.assertTrue(True)

    def test_2_hits_the_limit(self):
        {killer}

    def test_3_later_fails(self):
        self.assertEqual(1, 2)
'''
ALLOCATES = "block = b'x' * (1 << 30)\n        self.assertTrue(block)"
LOOPS = "while True:\n            pass"
@pytest.fixture
def sandbox(docker_client: object) -> DockerSandbox:
    return DockerSandbox(docker_client, env={})


@pytest.mark.parametrize(("killer", "limit", "timeout_s"), [
    (ALLOCATES, "the memory limit (sandbox.memory: 256m)", 30),
    (LOOPS, "the time limit (sandbox.timeout_s: 4)", 4),
], ids=["memory", "time"])
def test_a_killed_unittest_suite_is_resumed_and_the_later_test_reported(sandbox: DockerSandbox, tmp_path: Path,
                                                                        killer: str, limit: str, timeout_s: int) -> None:
    env = prepare_suite(sandbox, tmp_path, {"tests/__init__.py": "", "tests/test_suite.py": UNITTEST_SUITE.format(
        killer=killer)}, timeout_s=timeout_s)
    assert env.test_command == "python3 -m unittest discover -v"
    result = run_suite(sandbox, env, env.test_command)
    names = ("tests.test_suite.Suite::test_1_passes", "tests.test_suite.Suite::test_2_hits_the_limit",
             "tests.test_suite.Suite::test_3_later_fails")
    assert {t.name: t.outcome for t in result.tests} == dict(zip(names, ("pass", "error", "fail"), strict=True))
    killed = next(t for t in result.tests if t.name == names[1])
    assert killed.message.startswith(f"killed by {limit}")
    assert result.complete and result.findings == () and result.runner == "unittest"
    assert list_tests(sandbox, env, env.test_command) == names  # what the loader finds, named as the results are


PYTEST_SUITE = '''import pytest


class TestGroup:
    def test_inside(self):
        assert True


@pytest.mark.parametrize("n", [1, 2])
def test_numbers(n):
    assert n < 2


def test_skipped():
    pytest.skip("not here")
'''


def test_pytest_lists_its_tests_as_its_results_name_them(sandbox: DockerSandbox, tmp_path: Path) -> None:
    env = prepare_suite(sandbox, tmp_path, {"conftest.py": "", "tests/test_group.py": PYTEST_SUITE})
    listed = list_tests(sandbox, env, env.test_command)
    assert listed == ("tests/test_group.py::TestGroup::test_inside", "tests/test_group.py::test_numbers[1]",
                      "tests/test_group.py::test_numbers[2]", "tests/test_group.py::test_skipped")
    result = run_suite(sandbox, env, env.test_command, listed=listed)
    assert sorted(t.name for t in result.tests) == sorted(listed) and result.complete and result.findings == ()
    narrowed = run_suite(sandbox, env, f"{env.test_command} -k inside", listed=listed)
    assert not narrowed.complete and "3 of the 4 listed tests were never reported" in narrowed.incomplete_reason


PYTEST_LOOPS = '''def test_1_passes():
    assert True


def test_2_hits_the_limit():
    while True:
        pass


def test_3_later_fails():
    assert 1 == 2
'''


def test_a_pytest_run_lists_its_own_tests_and_keeps_the_listing_through_a_kill(sandbox: DockerSandbox,
                                                                                 tmp_path: Path) -> None:
    """The base run's listing comes from the run itself (no listing run): pytest logs what it collected before any
    test runs, so a run the time limit kills still has the whole listing, and the resumed suite is held to it."""
    env = prepare_suite(sandbox, tmp_path, {"conftest.py": "", "tests/test_group.py": PYTEST_SUITE}, timeout_s=20)
    result = run_suite(sandbox, env, listing_itself(env.test_command))
    assert result.listed == ("tests/test_group.py::TestGroup::test_inside", "tests/test_group.py::test_numbers[1]",
                             "tests/test_group.py::test_numbers[2]", "tests/test_group.py::test_skipped")
    assert run_suite(sandbox, env, env.test_command).listed is None  # only a run told to lists itself
    looping = prepare_suite(sandbox, tmp_path / "loops", {"conftest.py": "", "tests/test_loops.py": PYTEST_LOOPS},
                            timeout_s=10)
    killed = run_suite(sandbox, looping, listing_itself(looping.test_command))
    names = tuple(f"tests/test_loops.py::{n}" for n in ("test_1_passes", "test_2_hits_the_limit", "test_3_later_fails"))
    assert killed.listed == names  # the first run's listing, not the resumed run's (which deselects what finished)
    assert {t.name: t.outcome for t in killed.tests} == dict(zip(names, ("pass", "error", "fail"), strict=True))
    assert accounted(killed, killed.listed).complete


PYTEST_HANGS = '''def test_1_passes():
    assert True


def test_2_hangs():
    while True:
        pass


def test_3_later_fails():
    assert 1 == 2
'''


@pytest.mark.parametrize(("files", "names"), [
    ({"tests/__init__.py": "", "tests/test_suite.py": UNITTEST_SUITE.format(killer=LOOPS)},
     ("tests.test_suite.Suite::test_1_passes", "tests.test_suite.Suite::test_2_hits_the_limit",
      "tests.test_suite.Suite::test_3_later_fails")),
    ({"conftest.py": "", "tests/test_hangs.py": PYTEST_HANGS},
     ("tests/test_hangs.py::test_1_passes", "tests/test_hangs.py::test_2_hangs", "tests/test_hangs.py::test_3_later_fails")),
], ids=["unittest", "pytest"])
def test_a_test_the_time_limit_killed_is_left_out_of_a_later_run_not_waited_for_again(
        sandbox: DockerSandbox, tmp_path: Path, files: dict[str, str], names: tuple[str, ...]) -> None:
    env = prepare_suite(sandbox, tmp_path, files, timeout_s=4)
    first = run_suite(sandbox, env, env.test_command)
    assert first.timed_out and first.hung == (names[1],)
    again = run_suite(sandbox, env, env.test_command, leave_out=first.hung, runner=first.runner)
    assert not again.timed_out and again.hung == () and again.complete
    assert {t.name: t.outcome for t in again.tests} == dict(zip(names, ("pass", "error", "fail"), strict=True))
    assert next(t for t in again.tests if t.name == names[1]).message.startswith("left out of this run: the time limit")
    assert again.duration_s < 4

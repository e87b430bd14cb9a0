"""Test identity keeps the class and parameters, collisions are kept apart, and a killed run is resumed.

`run_suite` is driven through a sandbox that replays what a real runner would print after each kill
(the progress log, the exit status), so every branch of the resume is seen without a real kill; the
real kills (SIGKILL, the memory limit) run end to end in tests/security/test_judge_owns_the_tests.py.
"""

from __future__ import annotations

from pathlib import Path

from sandbox.model import Environment, ExecResult, ProjectInfo, SandboxSpec, TestCase
from sandbox.results import collect_tests, parse_pytest_progress, parse_unittest_verbose, running_test
from sandbox.suite import run_suite

JUNIT = b"""<?xml version="1.0"?><testsuites><testsuite>
<testcase classname="tests.test_x.TestParse" name="test_empty" file="tests/test_x.py"/>
<testcase classname="tests.test_x.TestFormat" name="test_empty" file="tests/test_x.py"><failure message="boom"/></testcase>
<testcase classname="tests.test_x" name="test_case[1-2]" file="tests/test_x.py"/>
<testcase classname="tests.test_x.TestOuter.TestInner" name="test_deep" file="tests/test_x.py"/>
<testcase classname="" name="tests.test_y" file="tests/test_y.py"><error message="collection failure">E</error></testcase>
<testcase classname="com.acme.ParserTest" name="parsesEmpty"/>
</testsuite></testsuites>"""


def test_tests_of_one_name_in_two_classes_are_two_tests() -> None:
    cases = {c.name: c.outcome for c in collect_tests({".ensemble-results/j.xml": JUNIT}, "", "")}
    assert cases == {"tests/test_x.py::TestParse::test_empty": "pass", "tests/test_x.py::TestFormat::test_empty": "fail",
                     "tests/test_x.py::test_case[1-2]": "pass", "tests/test_x.py::TestOuter::TestInner::test_deep": "pass",
                     "tests/test_y.py::<collection>": "error", "com.acme.ParserTest::parsesEmpty": "pass"}


def test_a_name_reported_twice_is_kept_apart_not_merged() -> None:
    twice = JUNIT.replace(b'name="test_deep"', b'name="test_empty"').replace(b"TestOuter.TestInner", b"TestFormat")
    names = [c.name for c in collect_tests({"j.xml": twice}, "", "")]
    assert names.count("tests/test_x.py::TestFormat::test_empty") == 1
    assert "tests/test_x.py::TestFormat::test_empty (duplicate 2)" in names


def test_a_unittest_module_that_cannot_be_imported_is_a_collection_error() -> None:
    out = ("tests.test_x (unittest.loader._FailedTest.tests.test_x) ... ERROR\ntest_a (tests.test_y.T.test_a) ... ok\n"
           "\n======\nERROR: tests.test_x (unittest.loader._FailedTest.tests.test_x)\n------\nImportError: no x\n\n"
           "------\nRan 2 tests")
    assert {c.name: c.outcome for c in parse_unittest_verbose(out)} == {
        "tests.test_y.T::test_a": "pass", "tests.test_x::<collection>": "error"}


def test_the_progress_log_says_what_finished_and_what_was_running() -> None:
    log = "start\ta::t1\ndone\ta::t1\tpass\nstart\ta::t2\ndone\ta::t2\tfail\nstart\ta::t3\n"
    finished, running = parse_pytest_progress(log)
    assert [(c.name, c.outcome) for c in finished] == [("a::t1", "pass"), ("a::t2", "fail")] and running == "a::t3"
    files = {".ensemble-results/pytest-progress.log": log.encode()}
    assert running_test(files) == "a::t3"
    assert [c.name for c in collect_tests(files, "", "")] == ["a::t1", "a::t2"]  # no JUnit: the log's tests


class Replaying:
    """A sandbox whose runs end as scripted: each a list of finished tests, the test running when killed (or None)."""

    def __init__(self, runs: list[tuple[list[str], str | None]]):
        self.runs, self.commands = list(runs), []

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        raise AssertionError("not used")

    def run(self, env, command, timeout=None, files=None) -> ExecResult:  # noqa: ANN001 - the Sandbox port
        self.commands.append(command)
        finished, running = self.runs.pop(0)
        tests = [TestCase(n, "pass") for n in finished]
        return ExecResult(command, 137 if running else 0, "", "", 1.0, tests=tests, running=running)


ENV = Environment(Path("."), SandboxSpec(memory="256m"), ProjectInfo("python", "pytest"), "img", "fake", "k", True)


def test_a_killed_run_is_resumed_without_the_killed_test_and_merged() -> None:
    sandbox = Replaying([(["a::t1"], "a::t2"), (["a::t3"], None)])
    result = run_suite(sandbox, ENV, "python3 -m pytest -q")
    assert {t.name: t.outcome for t in result.tests} == {"a::t1": "pass", "a::t3": "pass", "a::t2": "error"}
    assert result.complete and not result.ok
    killed = next(t for t in result.tests if t.name == "a::t2")
    assert "killed by a kill signal" in killed.message
    assert "--deselect=a::t2" in sandbox.commands[1] and "--deselect=a::t1" in sandbox.commands[1]
    assert sandbox.commands[1].endswith("; python3 -m pytest -q")


def test_a_kill_the_runner_cannot_place_leaves_the_run_incomplete() -> None:
    result = run_suite(Replaying([(["a::t1"], None)]), ENV, "go test ./...")
    assert result.complete  # exit 0 and nothing running: nothing was killed
    killed = Replaying([(["a::t1"], None)])
    killed.run = lambda *a, **k: ExecResult("x", 137, "", "", 1.0, oom_killed=True, tests=[TestCase("a::t1", "pass")])
    result = run_suite(killed, ENV, "go test ./...")
    assert not result.complete and "memory limit (sandbox.memory: 256m)" in result.incomplete_reason


def test_resumes_are_bounded() -> None:
    sandbox = Replaying([([], f"a::t{i}") for i in range(10)])
    result = run_suite(sandbox, ENV, "pytest")
    assert len(sandbox.commands) == 4 and not result.complete

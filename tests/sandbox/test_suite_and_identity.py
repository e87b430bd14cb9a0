"""Test identity keeps the class and parameters, collisions are kept apart, and a killed run is resumed.

`run_suite` is driven through a sandbox that replays what a real runner would print after each kill
(the progress log, the exit status), so every branch of the resume is seen without a real kill; the
real kills (SIGKILL, the memory limit) run end to end in tests/security/test_judge_owns_the_tests.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from sandbox.listing import parse_listing, with_test_args
from sandbox.model import Environment, ExecResult, ProjectInfo, SandboxSpec, TestCase
from sandbox.results import (
    collect_tests,
    parse_pytest_listing,
    parse_pytest_progress,
    parse_unittest_verbose,
    running_test,
)
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
    cases = {c.name: c.outcome for c in collect_tests({"pytest-junit.xml": JUNIT}, "", "")}
    assert cases == {"tests/test_x.py::TestParse::test_empty": "pass", "tests/test_x.py::TestFormat::test_empty": "fail",
                     "tests/test_x.py::test_case[1-2]": "pass", "tests/test_x.py::TestOuter::TestInner::test_deep": "pass",
                     "tests/test_y.py::<collection>": "error", "com.acme.ParserTest::parsesEmpty": "pass"}


def test_a_name_reported_twice_is_kept_apart_not_merged() -> None:
    twice = JUNIT.replace(b'name="test_deep"', b'name="test_empty"').replace(b"TestOuter.TestInner", b"TestFormat")
    names = [c.name for c in collect_tests({"ctest-junit.xml": twice}, "", "")]
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
    files = {"pytest-progress.log": log.encode()}
    assert running_test("pytest", files, "", "") == ("pytest", "a::t3")
    assert [c.name for c in collect_tests(files, "", "")] == ["a::t1", "a::t2"]  # no JUnit: the log's tests


class Replaying:
    """A sandbox whose runs end as scripted: each a list of finished tests, the test running when killed (or None)."""

    def __init__(self, runs: list[tuple[list[str], str | None]]):
        self.runs, self.commands = list(runs), []

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        raise AssertionError("not used")

    def run(self, env, command, timeout=None, files=None, trace_reads=False, owned=()) -> ExecResult:  # noqa: ANN001 - the port
        self.commands.append(command)
        finished, running = self.runs.pop(0)
        tests = [TestCase(n, "pass") for n in finished]
        return ExecResult(command, 137 if running else 0, "", "", 1.0, tests=tests, running=running, runner="pytest")


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


class Scripted:
    """A sandbox whose runs return the given results in turn, recording each command."""

    def __init__(self, results: list[ExecResult]):
        self.results, self.commands = list(results), []

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        raise AssertionError("not used")

    def run(self, env, command, timeout=None, files=None, trace_reads=False, owned=()) -> ExecResult:  # noqa: ANN001 - the port
        self.commands.append(command)
        return self.results.pop(0)


def killed_run(runner: str, finished: list[str], running: str | None) -> ExecResult:
    return ExecResult("x", 137, "", "", 1.0, oom_killed=True, tests=[TestCase(n, "pass") for n in finished],
                      running=running, runner=runner)


def test_a_killed_unittest_suite_is_resumed_with_a_skip_list_whatever_the_command() -> None:
    sandbox = Scripted([killed_run("unittest", ["m.T::test_a"], "m.T::test_b"),
                        ExecResult("x", 1, "", "", 1.0, tests=[TestCase("m.T::test_c", "fail")], runner="unittest")])
    result = run_suite(sandbox, ENV, "make test")
    assert {t.name: t.outcome for t in result.tests} == {"m.T::test_a": "pass", "m.T::test_c": "fail",
                                                         "m.T::test_b": "error"}
    assert sandbox.commands[1] == "export ENSEMBLE_SKIP='m.T::test_b\nm.T::test_a'; make test"  # the killed one first
    assert result.complete and result.runner == "unittest"


def test_a_killed_go_suite_runs_the_listed_tests_that_are_left_listing_them_when_not_given() -> None:
    listing = ExecResult("x", 0, "\n".join(json.dumps(e) for e in [
        {"Action": "output", "Package": "m/p", "Output": "TestA\n"}, {"Action": "output", "Package": "m/p",
                                                                     "Output": "TestB\n"},
        {"Action": "output", "Package": "m/p", "Output": "TestC\n"}, {"Action": "pass", "Package": "m/p"}]), "", 1.0)
    go_env = replace(ENV, project=ProjectInfo("go", "go test -json ./..."))
    sandbox = Scripted([killed_run("go", ["m/p::TestA"], "m/p::TestB/sub"), listing,
                        ExecResult("x", 0, "", "", 1.0, tests=[TestCase("m/p::TestC", "pass")], runner="go")])
    result = run_suite(sandbox, go_env, "go test -json ./...")
    assert 'GOFLAGS="$GOFLAGS -list=' in sandbox.commands[1]
    assert sandbox.commands[2] == 'export GOFLAGS="$GOFLAGS -run=^(TestC)$"; go test -json ./...'
    assert {t.name: t.outcome for t in result.tests} == {"m/p::TestA": "pass", "m/p::TestC": "pass",
                                                         "m/p::TestB/sub": "error"}


def test_a_killed_cargo_suite_runs_one_test_at_a_time_until_the_killer_is_named() -> None:
    sandbox = Scripted([killed_run("cargo", ["src/lib.rs::tests::a"], None),
                        killed_run("cargo", [], "src/lib.rs::tests::b"),
                        ExecResult("x", 101, "", "", 1.0, tests=[TestCase("src/lib.rs::tests::c", "fail")],
                                   runner="cargo")])
    result = run_suite(sandbox, ENV, "cargo test --no-fail-fast 2>&1")
    assert sandbox.commands[1] == ("export RUST_TEST_THREADS=1; cargo test --no-fail-fast -- --skip tests::a --exact "
                                   "2>&1")
    assert sandbox.commands[2] == ("export RUST_TEST_THREADS=1; cargo test --no-fail-fast -- --skip tests::b --skip "
                                   "tests::a --exact 2>&1")
    assert {t.name: t.outcome for t in result.tests} == {"src/lib.rs::tests::a": "pass", "src/lib.rs::tests::c": "fail",
                                                         "src/lib.rs::tests::b": "error"}
    assert result.complete


def test_a_run_is_held_to_its_listing() -> None:
    done = ExecResult("x", 0, "", "", 1.0, tests=[TestCase("t.py::a", "pass"), TestCase("t.py::z", "pass")])
    result = run_suite(Scripted([done]), ENV, "pytest", listed=["t.py::a", "t.py::b", "t.py::c"])
    assert not result.complete
    assert result.incomplete_reason == "2 of the 3 listed tests were never reported: t.py::b, t.py::c"
    assert [(f.kind, f.detail) for f in result.findings] == [
        ("unlisted", "the results name 1 test(s) the runner's listing does not have: t.py::z")]
    # killed at the very end, unnamed: the listing shows nothing was lost
    late = killed_run("pytest", ["t.py::a", "t.py::b"], None)
    assert run_suite(Scripted([late]), ENV, "pytest", listed=["t.py::a", "t.py::b"]).complete
    assert not run_suite(Scripted([late]), ENV, "pytest").complete


def test_listings_are_read_from_each_runners_output() -> None:
    python = "tok\ntok\tt.py::a\n<Module t.py>\ntok\tm.T::b\nother\tt.py::x\n"
    assert parse_listing("tok", python) == ("t.py::a", "m.T::b")
    assert parse_listing("tok", "tok\n") == ()  # a runner that listed no tests
    assert parse_listing("tok", "collected 3 items\n") is None  # nothing listed: the runner cannot list
    plain_go = "TestA\nBenchmarkX\nExampleY\nok  \texample.com/m/p\t0.01s\n"
    assert parse_listing("tok", plain_go) == ("example.com/m/p::TestA", "example.com/m/p::ExampleY")
    cargo = ("     Running unittests src/lib.rs (target/debug/deps/r-1)\ntests::a: test\n\n1 test, 0 benchmarks\n"
             "   Doc-tests r\nsrc/lib.rs - add (line 2): test\n\n1 test, 0 benchmarks\n")
    assert parse_listing("tok", cargo) == ("src/lib.rs::tests::a", "src/lib.rs - add (line 2)")


def test_a_pytest_runs_own_listing_is_read_from_its_progress_log_once_it_ended() -> None:
    log = "session\tstart\nlisted\tt.py::a\nlisted\tt.py::b[1]\nlisted\t\nstart\tt.py::a\n"
    assert parse_pytest_listing(log) == ("t.py::a", "t.py::b[1]")
    assert parse_pytest_listing("session\tstart\nlisted\tt.py::a\n") is None  # killed while it was written
    assert parse_pytest_listing("session\tstart\nlisted\t\n") == ()  # it collected nothing
    assert parse_pytest_listing("session\tstart\nstart\tt.py::a\n") is None  # not asked to list


def test_cargo_test_arguments_go_after_the_commands_own() -> None:
    assert with_test_args("cargo test --no-fail-fast 2>&1", ["--list"]) == "cargo test --no-fail-fast -- --list 2>&1"
    assert with_test_args("cargo test -- --nocapture && echo ok", ["--list"]) == (
        "cargo test -- --nocapture --list && echo ok")
    assert with_test_args("python3 -m pytest", ["--list"]) is None

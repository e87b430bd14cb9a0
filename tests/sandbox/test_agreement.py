"""Results that disagree with the runner are findings: the exit status, the runner's own tally, its listing.

Canned outputs of real runners (pytest 7, Python 3.11's unittest, go 1.19, cargo 1.65, node 18's TAP); the same
attacks run end to end in tests/sandbox/test_forged_results.py.
"""

from __future__ import annotations

import json

from sandbox.agreement import findings, unlisted
from sandbox.evidence import Ended, reads_of, result_of
from sandbox.model import TestCase
from sandbox.results import read_tests

UNITTEST_OK = """test_add (test_calc.T.test_add) ... ok
test_sub (test_calc.T.test_sub) ... ok

----------------------------------------------------------------------
Ran 2 tests in 0.001s

OK
"""
CARGO_OK = """     Running unittests src/lib.rs (target/debug/deps/r-88b4)

running 2 tests
test tests::a ... ok
test tests::b ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

"""
TAP_OK = "TAP version 13\nok 1 - adds\nok 2 - subtracts\n1..2\n# tests 2\n# pass 2\n# fail 0\n"
JUNIT_TWO_PASS = (b'<testsuite><testcase classname="tests.test_calc" name="test_adds" file="tests/test_calc.py"/>'
                  b'<testcase classname="tests.test_calc" name="test_subs" file="tests/test_calc.py"/></testsuite>')
PROGRESS_TWO = ("session\tstart\nstart\ttests/test_calc.py::test_adds\ndone\ttests/test_calc.py::test_adds\tpass\n"
                "start\ttests/test_calc.py::test_subs\ndone\ttests/test_calc.py::test_subs\tfail\n")


def judged(stdout: str, stderr: str = "", exit_code: int = 0, files: dict[str, bytes] | None = None,
           killed: bool = False) -> list[tuple[str, str]]:
    """The findings of a run that printed `stdout`/`stderr` and exited `exit_code`: (kind, detail)."""
    runner, tests = read_tests(files or {}, stdout, stderr)
    return [(f.kind, f.detail) for f in findings(runner, tests, exit_code, killed, stdout, stderr, files or {})]


def test_honest_runs_of_every_runner_have_no_findings() -> None:
    assert judged("", UNITTEST_OK) == []
    assert judged(CARGO_OK) == []
    assert judged(TAP_OK) == []
    files = {"pytest-junit.xml": JUNIT_TWO_PASS, "pytest-progress.log": PROGRESS_TWO.replace("\tfail", "\tpass").encode()}
    assert judged("..                                   [100%]\n2 passed in 0.01s\n", files=files) == []
    go = [{"Action": "run", "Package": "m/p", "Test": "TestA"}, {"Action": "pass", "Package": "m/p", "Test": "TestA"},
          {"Action": "output", "Package": "m/p", "Output": "ok  \tm/p\t0.01s\n"}, {"Action": "pass", "Package": "m/p"}]
    assert judged("\n".join(json.dumps(e) for e in go)) == []


def test_passing_results_with_a_failing_exit_status_and_the_reverse_are_findings() -> None:
    [(kind, detail)] = judged("", UNITTEST_OK, exit_code=1)
    assert kind == "exit_status" and "none of the 2 reported tests failed" in detail and "status 1" in detail
    failing = UNITTEST_OK.replace("test_sub) ... ok", "test_sub) ... FAIL").replace("\nOK\n", "\nFAILED (failures=1)\n")
    [(kind, detail)] = judged("", failing, exit_code=0)
    assert kind == "exit_status" and "1 of the 2 reported tests failed" in detail and "status 0" in detail
    assert judged("", failing, exit_code=1) == []
    assert judged("", UNITTEST_OK, exit_code=137, killed=True) == []  # a kill's status is the limit's, not the runner's


def test_runner_shaped_lines_without_the_runners_tally_are_findings() -> None:
    """What a test prints before `os._exit(0)`: per-test lines, but never the summary the runner ends with."""
    lines = {"unittest": UNITTEST_OK.split("\n\n")[0], "cargo": CARGO_OK.split("\n\ntest result")[0],
             "TAP": "ok 1 - adds\nok 2 - subtracts\n"}
    for runner, text in lines.items():
        [(kind, detail)] = judged(text if runner != "unittest" else "", text if runner == "unittest" else "")
        assert kind == "tally" and f"{runner}'s" in detail and "missing" in detail, runner


def test_a_tally_that_disagrees_with_the_per_test_lines_is_a_finding() -> None:
    assert judged("", UNITTEST_OK.replace("Ran 2 tests", "Ran 3 tests")) == [
        ("tally", "unittest says it ran 3 tests and OK, but the results hold 2 tests, 0 of them failing")]
    assert judged("", UNITTEST_OK.replace("\nOK\n", "\nFAILED (errors=1)\n"))[0][0] == "tally"
    [(kind, detail)] = judged(CARGO_OK.replace("2 passed; 0 failed", "1 passed; 1 failed"))
    assert kind == "tally" and "says 1 passed, 1 failed and 0 ignored" in detail and "show 2, 0 and 0" in detail
    assert [k for k, _ in judged(TAP_OK.replace("# pass 2\n# fail 0", "# pass 1\n# fail 1"), exit_code=1)] == [
        "exit_status", "tally"]
    go = [{"Action": "fail", "Package": "m/p", "Test": "TestA"}, {"Action": "pass", "Package": "m/p"},
          {"Action": "pass", "Package": "m/q", "Test": "TestB"}]
    kinds = judged("\n".join(json.dumps(e) for e in go), exit_code=1)
    assert ("tally", "go test says `ok` for 1 package(s) whose tests failed: m/p") in kinds
    assert any("never said whether the package passed" in d and "m/q" in d for _, d in kinds)


def test_a_pytest_result_file_that_disagrees_with_pytest_is_a_finding() -> None:
    """All pass in the file at the run's own path, but pytest said one failed and exited 1."""
    files = {"pytest-junit.xml": JUNIT_TWO_PASS, "pytest-progress.log": PROGRESS_TWO.encode()}
    found = judged(".F                                   [100%]\n1 failed, 1 passed in 0.02s\n", exit_code=1,
                   files=files)
    assert ("exit_status", "none of the 2 reported tests failed, but the test command exited with status 1") in found
    assert ("tally", "pytest's summary says 1 passed, 1 failed, 0 errors and 0 skipped, but the results hold "
                     "2 passed, 0 failed, 0 errors and 0 skipped") in found
    normal = "============ 1 failed, 1 passed in 0.02s ============\n"  # pytest without -q
    assert any(kind == "tally" for kind, _ in judged(normal, exit_code=1, files=files))


def test_pytest_that_never_finished_or_a_file_naming_tests_that_never_ran_is_a_finding() -> None:
    started = {"pytest-progress.log": b"session\tstart\nstart\ttests/test_calc.py::test_adds\n"}
    found = judged("ok 1 - forged\n1..1\n", files=started)  # os._exit(0) in the first test, TAP lines printed first
    assert [kind for kind, _ in found] == ["result_file", "result_file"]
    assert "never wrote its result file pytest-junit.xml" in found[0][1] and "test_adds started" in found[1][1]
    assert read_tests(started, "ok 1 - forged\n1..1\n", "") == ("pytest", [])  # pytest ran: its results only
    forged = JUNIT_TWO_PASS.replace(b"test_subs", b"test_never")
    found = judged("2 passed in 0.01s\n", files={"pytest-junit.xml": forged, "pytest-progress.log": PROGRESS_TWO.encode()})
    assert ("result_file", "the result file reports 1 test(s) that pytest's progress log never saw finish: "
                           "tests/test_calc.py::test_never") in found
    killed = judged("", files=started, exit_code=137, killed=True)
    assert killed == []  # a kill explains the missing file and the unfinished test


def test_results_naming_tests_the_listing_lacks_are_a_finding() -> None:
    tests = [TestCase("t.py::a", "fail"), TestCase("t.py::a (duplicate 2)", "error"), TestCase("t.py::forged", "pass"),
             TestCase("g_test.go::TestX/sub", "pass"), TestCase("t.py::<collection>", "error"),
             TestCase("t.py::t", "skip")]  # a module skipped at collection
    [finding] = unlisted(tests, ["t.py::a", "g_test.go::TestX"])
    assert finding.kind == "unlisted" and finding.detail == ("the results name 1 test(s) the runner's listing does not "
                                                             "have: t.py::forged")
    assert unlisted(tests[:2], ["t.py::a"]) == []


def test_only_the_runs_own_files_are_read_and_reads_stay_in_the_repository() -> None:
    ended = Ended("pytest", 0, "1 passed in 0.01s\n", "", 0.1, False, False)
    forged = b'<testsuite><testcase classname="x" name="forged"/></testsuite>'
    result = result_of(ended, {"forged.xml": forged, "ctest-junit.xml": forged, "reads.log": b"a.py\n"}, {}, None)
    assert [t.name for t in result.tests] == ["x::forged"] and result.runner == "junit"  # ctest-junit.xml is a run file
    result = result_of(ended, {"forged.xml": forged, "junit.xml": forged}, {}, None)
    assert result.tests == []
    log = (b"b.py\ttests/test_b.py\na.py\ttests/test_a.py\n/etc/passwd\ttests/test_a.py\n../up.txt\ttests/t.py\n"
           b".ensemble-results/x/reads.log\ttests/t.py\nfixtures/x.json\ttests/test_a.py\na.py\ttests/test_b.py\n"
           b"table.json\tlookup.py\npyproject.toml\t\n")
    # what the tests' own code opened; not what the code under test (lookup.py) or the runner ('') opened
    assert reads_of(log) == ("a.py", "b.py", "fixtures/x.json")

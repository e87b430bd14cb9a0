"""The judge's known-answer checks: written in the host's style, reported as written by real runners, and a run
whose results were forged (a patched assertEqual, printed runner lines, a forged result file) gives itself away."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.ensemble.judge.sentinels import (
    Calibration,
    calibrate,
    candidate_hosts,
    evidence,
    new_nonce,
    nonexistent,
    plant,
)
from common.languages import is_test_name
from sandbox.results import parse_junit_xml, parse_tap, parse_unittest_verbose

UNITTEST_HOST = """import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)
        self.assertTrue(add(0, 0) == 0)

    def test_bad(self):
        with self.assertRaises(TypeError):
            add(None, 1)
"""
PYTEST_HOST = """import pytest

from calc import add


def test_add():
    assert add(2, 3) == 5


def test_bad():
    with pytest.raises(TypeError):
        add(None, 1)
"""
CALC = "def add(a, b):\n    return a + b\n"


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def reader(root: Path):  # noqa: ANN201 - a Read
    return lambda p: (root / p).read_text() if (root / p).is_file() else None


def pytest_results(root: Path, *extra: str) -> tuple[dict[str, str], int]:
    junit = root / "junit.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                           "-o", "junit_family=xunit1", *extra], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(root)})
    cases = parse_junit_xml(junit.read_bytes()) if junit.exists() else []
    return {c.name: c.outcome for c in cases}, done.returncode


def unittest_results(root: Path) -> tuple[dict[str, str], int, str]:
    done = subprocess.run([sys.executable, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."], cwd=root,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)})
    return ({c.name: c.outcome for c in parse_unittest_verbose(done.stderr + done.stdout)}, done.returncode,
            done.stdout + done.stderr)


def test_unittest_checks_use_the_hosts_assertions_and_real_unittest_reports_them_as_written(tmp_path: Path) -> None:
    root = write(tmp_path, {"calc.py": CALC, "tests/__init__.py": "", "tests/test_calc.py": UNITTEST_HOST})
    planted = plant(["tests/test_calc.py"], reader(root), new_nonce())
    (path, source), = planted.files.items()
    assert path.startswith("tests/test_sentinel_") and path.endswith(".py")
    assert {c.style for c in planted.checks} == {"assertEqual", "assertTrue", "assertRaises"}
    assert planted.nonce not in UNITTEST_HOST and planted.nonce in source.decode()
    write(root, {path: source})
    results, code, _ = unittest_results(root)
    calibration = calibrate(planted, results, code)
    assert calibration == Calibration(("tests/test_calc.py",), exit_counts=True)
    assert evidence(planted, results, code, calibration, cut_short=False) == ([], [])
    real = {n: o for n, o in results.items() if not planted.owns(n)}
    assert real == {"tests.test_calc.TestAdd::test_add": "pass", "tests.test_calc.TestAdd::test_bad": "pass"}


def test_pytest_checks_are_bare_asserts_and_raises_and_real_pytest_reports_them_as_written(tmp_path: Path) -> None:
    root = write(tmp_path, {"calc.py": CALC, "tests/test_calc.py": PYTEST_HOST})
    planted = plant(["tests/test_calc.py"], reader(root), new_nonce())
    assert {c.style for c in planted.checks} == {"assert", "raises"}
    write(root, dict(planted.files))
    results, code = pytest_results(root)
    calibration = calibrate(planted, results, code)
    assert calibration.hosts == ("tests/test_calc.py",) and code == 1  # the must-fail checks make the run red
    assert evidence(planted, results, code, calibration, cut_short=False) == ([], [])


PATCHER = """import unittest

unittest.TestCase.assertEqual = lambda self, first, second, msg=None: None
unittest.TestCase.assertTrue = lambda self, expr, msg=None: None
"""


def test_a_patched_assertEqual_is_caught_by_the_checks_it_reaches(tmp_path: Path) -> None:
    """The code under test patches unittest on import: its own test now passes, and so does a must-fail check."""
    buggy = "import patcher  # noqa\n\n\ndef add(a, b):\n    return a - b\n"
    root = write(tmp_path, {"calc.py": buggy, "patcher.py": PATCHER, "tests/__init__.py": "",
                            "tests/test_calc.py": UNITTEST_HOST})
    planted = plant(["tests/test_calc.py"], reader(root), new_nonce())
    write(root, dict(planted.files))
    results, code, _ = unittest_results(root)
    assert results["tests.test_calc.TestAdd::test_add"] == "pass"  # the forgery works on the real test
    tampering, _ = evidence(planted, results, code, Calibration(("tests/test_calc.py",)), cut_short=False)
    assert tampering and "reported as passing" in tampering[0]


FORGED_LINES = """import os
import sys

print("test_add (tests.test_calc.TestAdd.test_add) ... ok", file=sys.stderr)
print("test_bad (tests.test_calc.TestAdd.test_bad) ... ok", file=sys.stderr)
print("\\n" + "-" * 70 + "\\nRan 2 tests in 0.001s\\n\\nOK", file=sys.stderr)
os._exit(0)
"""


def test_printed_runner_lines_and_an_early_exit_are_caught(tmp_path: Path) -> None:
    """The code under test prints unittest's per-test lines for the real tests and leaves with os._exit(0)."""
    root = write(tmp_path, {"calc.py": "import forge  # noqa\n" + CALC.replace("+", "-"), "forge.py": FORGED_LINES,
                            "tests/__init__.py": "", "tests/test_calc.py": UNITTEST_HOST})
    planted = plant(["tests/test_calc.py"], reader(root), new_nonce())
    write(root, dict(planted.files))
    results, code, _ = unittest_results(root)
    assert code == 0 and set(results.values()) == {"pass"}  # what the forged output alone would say
    tampering, _ = evidence(planted, results, code, Calibration(("tests/test_calc.py",)), cut_short=False)
    assert tampering and "missing from results that name 2 other test(s)" in tampering[0]


def forged_junit(cases: dict[str, str]) -> bytes:
    rows = "".join(f'<testcase classname="{c.rsplit("::", 1)[0].replace("/", ".").removesuffix(".py")}" '
                   f'name="{c.rsplit("::", 1)[1]}" file="{c.split("::")[0]}"/>' for c in cases)
    return f'<testsuites><testsuite name="pytest">{rows}</testsuite></testsuites>'.encode()


def test_a_forged_result_file_is_caught_with_or_without_the_checks_in_it(tmp_path: Path) -> None:
    """A result file written by the code under test: without the checks they are missing; with them copied in as
    passing, a must-fail check passes; and its exit status 0 contradicts a failing check."""
    root = write(tmp_path, {"calc.py": CALC, "tests/test_calc.py": PYTEST_HOST})
    planted = plant(["tests/test_calc.py"], reader(root), new_nonce())
    calibration = Calibration(("tests/test_calc.py",))
    real = {"tests/test_calc.py::test_add": "pass", "tests/test_calc.py::test_bad": "pass"}
    without = {c.name: c.outcome for c in parse_junit_xml(forged_junit(real))}
    assert "missing" in evidence(planted, without, 0, calibration, cut_short=False)[0][0]
    names = {f"{path}::test_sentinel_{c.token}": "pass" for path in planted.files for c in planted.checks}
    copied = {c.name: c.outcome for c in parse_junit_xml(forged_junit({**real, **names}))}
    tampering, _ = evidence(planted, copied, 0, calibration, cut_short=False)
    assert any("reported as passing" in t for t in tampering)
    honest_but_exit_0 = {**real, **{n: ("fail" if "_fail" in n else "pass") for n in names}}
    tampering, _ = evidence(planted, honest_but_exit_0, 0, calibration, cut_short=False)
    assert tampering == ["the test command exited 0 although a known-failing check failed: the exit status did "
                         "not come from the runner"]
    assert evidence(planted, honest_but_exit_0, 0, Calibration(("tests/test_calc.py",), exit_counts=False),
                    cut_short=False) == ([], [])  # a harness whose exit status never follows the tests (`|| true`)


def test_checks_missing_from_a_run_cut_short_are_a_doubt_not_a_cheat() -> None:
    planted = plant(["tests/test_calc.py"], lambda p: PYTEST_HOST if p == "tests/test_calc.py" else None, new_nonce())
    tampering, doubts = evidence(planted, {"tests/test_calc.py::test_add": "pass"}, 137,
                                 Calibration(("tests/test_calc.py",)), cut_short=True)
    assert tampering == [] and doubts and "cut short" in doubts[0]


def test_results_for_tests_that_do_not_exist() -> None:
    files = {"tests/test_calc.py": PYTEST_HOST}
    read = files.get
    found = nonexistent(["tests/test_calc.py::test_add", "tests/test_calc.py::test_invented[1]",
                         "tests/test_gone.py::test_x", "tests.test_calc.TestAdd::test_add", "pkg::TestX"], read)
    assert found == ["tests/test_gone.py::test_x"]  # a method a class inherits is not defined in its own file


def test_hosts_are_test_files_a_few_per_language_in_distinct_folders() -> None:
    paths = ["src/calc.py", "tests/test_a.py", "tests/test_b.py", "tests/unit/test_c.py", "docs/test_d.py",
             "pkg/x_test.go", "pkg/y_test.go", "test/stats.test.js", "lib/helper.js", "tests/e2e/test_e.py"]
    hosts = candidate_hosts(paths, is_test_name)
    assert sorted(hosts) == ["pkg/x_test.go", "test/stats.test.js", "tests/e2e/test_e.py", "tests/test_a.py",
                             "tests/unit/test_c.py"]  # docs/ is tried only after three test folders


def test_hosts_in_a_testing_folder_come_before_other_folders() -> None:
    # pytest's own layout: its tests live in testing/, beside test-named scripts its runner never collects
    paths = ["bench/test_speed.py", "scripts/test_release.py", "examples/test_demo.py", "testing/test_core.py"]
    hosts = candidate_hosts(paths, is_test_name)
    assert "testing/test_core.py" in hosts and hosts[0] == "testing/test_core.py"


def test_go_and_rust_checks_are_in_the_hosts_package_and_crate() -> None:
    files = {"stats/stats_test.go": 'package stats_test\n\nimport "testing"\n\nfunc TestX(t *testing.T) {\n'
                                    '\tif 1 != 1 {\n\t\tt.Fatalf("no")\n\t}\n}\n',
             "Cargo.toml": "[package]\nname = 'x'\n", "src/lib.rs": "#[cfg(test)]\nmod tests {\n    #[test]\n"
                                                                "    fn it() { assert!(true); }\n}\n"}
    planted = plant(["stats/stats_test.go", "src/lib.rs"], files.get, "sabc123456789")
    go = planted.files["stats/sentinel_sabc123456789_test.go"].decode()
    assert go.startswith("package stats_test\n") and "t.Fatalf" in go and "func TestSentinel_sabc123456789_fail1" in go
    rust = planted.files["tests/sentinel_sabc123456789.rs"].decode()
    assert "fn sentinel_sabc123456789_fail1()" in rust and "assert!(left == right);" in rust


NODE_HOST = """const test = require('node:test');
const assert = require('node:assert');
const { add } = require('../calc.js');

test('adds', () => {
  assert.strictEqual(add(2, 3), 5);
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed on this machine")
def test_node_checks_run_under_node_test_as_written(tmp_path: Path) -> None:
    root = write(tmp_path, {"calc.js": "exports.add = (a, b) => a + b;\n", "test/calc.test.js": NODE_HOST,
                            "package.json": json.dumps({"name": "calc"})})
    planted = plant(["test/calc.test.js"], reader(root), new_nonce())
    write(root, dict(planted.files))
    done = subprocess.run(["node", "--test", "--test-reporter=tap"], cwd=root, capture_output=True, text=True)
    results = {c.name: c.outcome for c in parse_tap(done.stdout)}
    calibration = calibrate(planted, results, done.returncode)
    assert calibration.hosts == ("test/calc.test.js",) and done.returncode != 0
    assert evidence(planted, results, done.returncode, calibration, cut_short=False) == ([], [])


def test_checks_missing_with_every_test_beside_them_are_a_doubt_not_a_cheat() -> None:
    """A Go package whose change no longer builds reports none of its tests, the judge's checks among them, while
    other packages report theirs: that is a failing change, not a forged result."""
    files = {"pkg/a/a_test.go": 'package a\n\nimport "testing"\n\nfunc TestA(t *testing.T) {\n\tt.Errorf("x")\n}\n'}
    planted = plant(["pkg/a/a_test.go"], files.get, "sabc123456789")
    results = {"pkg/b/b_test.go::TestB": "pass"}
    tampering, doubts = evidence(planted, results, 1, Calibration(("pkg/a/a_test.go",)), cut_short=False)
    assert tampering == [] and doubts and "did not run either" in doubts[0]
    beside = {**results, "pkg/a/a_test.go::TestA": "pass"}  # the package ran, and its checks are not there
    tampering, _ = evidence(planted, beside, 1, Calibration(("pkg/a/a_test.go",)), cut_short=False)
    assert tampering and "results did not come from the runner" in tampering[0]

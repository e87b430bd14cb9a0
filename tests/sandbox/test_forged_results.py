"""Results the code under test forges are not taken: in the Docker sandbox and the local one.

The code under test runs inside the test process. Each attack here is what a candidate's source module,
imported by the tests, can do: write a JUnit file where results are collected, print lines shaped like
a runner's and leave with `os._exit(0)`, or overwrite the runner's own result file at exit. The honest
runs beside them have no findings. Every Docker test also checks that no container or volume remains.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sandbox import Environment, LocalSandbox, Sandbox, SandboxSpec
from sandbox.suite import list_tests, run_suite
from tests.sandbox.conftest import base_image, prepare_suite, write_sample

UNITTEST_TESTS = '''import unittest

from calc import add


class CalcTest(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 2), 4)

    def test_adds_negative(self):
        self.assertEqual(add(-1, -1), -2)
'''
BROKEN_ADD = "def add(a, b):\n    return a - b\n"
PASSING_JUNIT = ('<testsuite><testcase classname="tests.test_calc" name="test_adds" file="tests/test_calc.py"/>'
                 '<testcase classname="tests.test_calc" name="test_adds_negative" file="tests/test_calc.py"/>'
                 '</testsuite>')
FORGED_LINES = {
    "unittest": "test_adds (tests.test_calc.CalcTest.test_adds) ... ok\n"
                "test_adds_negative (tests.test_calc.CalcTest.test_adds_negative) ... ok\n",
    "cargo": "test tests::test_adds ... ok\ntest tests::test_adds_negative ... ok\n",
    "TAP": "TAP version 13\nok 1 - test_adds\nok 2 - test_adds_negative\n",
}


def prepared(sandbox: Sandbox, repo: Path) -> Environment:
    return sandbox.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=30, memory="1g"))


def broken(tmp_path: Path, module: str, unittest: bool = False) -> Path:
    """The sample with `add` broken (both tests fail) and `module` appended to calc.py, the code under test."""
    repo = write_sample(tmp_path / "repo", correct=False)
    (repo / "calc.py").write_text(BROKEN_ADD + module)
    if unittest:
        (repo / "conftest.py").unlink()
        (repo / "tests" / "__init__.py").write_text("")
        (repo / "tests" / "test_calc.py").write_text(UNITTEST_TESTS)
    return repo


def test_a_junit_file_the_code_writes_where_results_are_collected_is_ignored(backend: Sandbox, tmp_path: Path) -> None:
    module = ("import os\nos.makedirs('.ensemble-results', exist_ok=True)\n"
              f"for name in ('zz-forged.xml', 'pytest-junit.xml'):\n"
              f"    open(os.path.join('.ensemble-results', name), 'w').write({PASSING_JUNIT!r})\n")
    env = prepared(backend, broken(tmp_path, module))
    result = backend.run(env, env.test_command)
    assert {t.name: t.outcome for t in result.tests} == {"tests/test_calc.py::test_adds": "fail",
                                                        "tests/test_calc.py::test_adds_negative": "fail"}
    assert result.findings == ()  # the real failures stand, and agree with everything pytest said


@pytest.mark.parametrize("shape", list(FORGED_LINES))
def test_runner_shaped_lines_and_an_early_exit_under_unittest_are_a_finding(backend: Sandbox, tmp_path: Path,
                                                                            shape: str) -> None:
    module = f"import os, sys\nsys.stderr.write({FORGED_LINES[shape]!r})\nsys.stderr.flush()\nos._exit(0)\n"
    repo = broken(tmp_path, module.replace("stderr", "stdout") if shape != "unittest" else module, unittest=True)
    env = prepared(backend, repo)
    assert env.test_command == "python3 -m unittest discover -v"
    result = backend.run(env, env.test_command)
    assert result.exit_code == 0 and result.tests and all(t.outcome == "pass" for t in result.tests)  # forged
    assert [f.kind for f in result.findings] == ["tally"]
    assert "missing" in result.findings[0].detail


def test_runner_shaped_lines_and_an_early_exit_under_pytest_give_no_results(backend: Sandbox, tmp_path: Path) -> None:
    """pytest ran (its progress log says so): only its own report counts, and it never wrote one."""
    module = f"import os, sys\nsys.stdout.write({''.join(FORGED_LINES.values())!r})\nsys.stdout.flush()\nos._exit(0)\n"
    env = prepared(backend, broken(tmp_path, module))
    result = backend.run(env, f"{env.test_command} -s")  # -s: the lines reach the output, as pytest's capture is off
    assert result.exit_code == 0 and result.tests == [] and result.runner == "pytest"
    assert [f.kind for f in result.findings] == ["result_file"]
    assert "never wrote its result file" in result.findings[0].detail


def test_a_forged_all_pass_file_at_the_runs_own_path_with_exit_status_1_is_a_finding(backend: Sandbox,
                                                                                     tmp_path: Path) -> None:
    """The code finds the run's folder in its environment and overwrites pytest's file after pytest wrote it."""
    module = ("import atexit, os\n"
              "where = os.path.join(os.environ.get('ENSEMBLE_RESULTS', '.ensemble-results'), 'pytest-junit.xml')\n"
              f"atexit.register(lambda: open(where, 'w').write({PASSING_JUNIT!r}))\n")
    env = prepared(backend, broken(tmp_path, module))
    result = backend.run(env, env.test_command)
    assert result.exit_code == 1 and [t.outcome for t in result.tests] == ["pass", "pass"]  # the file was forged
    kinds = {f.kind: f.detail for f in result.findings}
    assert kinds["exit_status"] == "none of the 2 reported tests failed, but the test command exited with status 1"
    assert kinds["tally"].startswith("pytest's summary says 0 passed, 2 failed")


MIXED_PYTEST = {"conftest.py": "", "tests/test_broken.py": "import not_installed\n",
                "tests/test_skipped.py": "import pytest\n\npytest.skip('not here', allow_module_level=True)\n",
                "tests/test_mixed.py": """import pytest


@pytest.fixture
def bad_teardown():
    yield
    raise RuntimeError("teardown")


@pytest.fixture
def bad_setup():
    raise RuntimeError("setup")


def test_passes(): pass
def test_fails(): assert 0
@pytest.mark.xfail
def test_xfails(): assert 0
@pytest.mark.xfail
def test_xpasses(): pass
@pytest.mark.xfail(strict=True)
def test_xpasses_strictly(): pass
def test_skips(): pytest.skip("no")
def test_teardown_after_a_pass(bad_teardown): pass
def test_teardown_after_a_failure(bad_teardown): assert 0
def test_setup_error(bad_setup): pass
@pytest.mark.parametrize("n", [1, 2])
def test_numbers(n): assert n
"""}
MIXED_UNITTEST = {"tests/__init__.py": "", "tests/test_broken.py": "import not_installed\n",
                  "tests/test_mixed.py": """import sys
import unittest


class Mixed(unittest.TestCase):
    def test_passes(self):
        \"\"\"A docstring's first line is printed under the name.\"\"\"

    def test_fails(self):
        self.assertEqual(1, 2)

    def test_errors(self):
        raise RuntimeError("boom")

    def test_subtests(self):
        for n in range(3):
            with self.subTest(n=n):
                self.assertNotEqual(n, 1)

    def test_writes_to_stderr(self):
        sys.stderr.write("a warning\\n")

    @unittest.skip("not here")
    def test_skips(self):
        pass

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(1, 2)
"""}


@pytest.mark.parametrize(("suite", "command"), [(MIXED_PYTEST, "python3 -m pytest -q"),
                                                (MIXED_UNITTEST, "python3 -m unittest discover -v")],
                         ids=["pytest", "unittest"])
def test_honest_runs_of_every_outcome_have_no_findings(backend: Sandbox, tmp_path: Path, suite: dict[str, str],
                                                       command: str) -> None:
    """Fails, errors, skips, expected failures, subtests, teardown errors and an unimportable module agree with the
    runner, and with its listing."""
    env = prepare_suite(backend, tmp_path / "repo", suite, test=command, timeout_s=60, memory="1g")
    listed = list_tests(backend, env, command)
    result = run_suite(backend, env, command, listed=listed)
    assert listed and result.runner == command.split()[2] and result.exit_code == 1
    assert {t.outcome for t in result.tests} == {"pass", "fail", "error", "skip"}
    assert result.findings == () and result.complete and result.reads == ()


def test_traced_reads_name_the_repository_files_the_tests_open(backend: Sandbox, tmp_path: Path) -> None:
    """What the tests' own code opens, not what the code under test or the runner opens."""
    repo = write_sample(tmp_path / "repo")
    (repo / "fixtures").mkdir()
    (repo / "fixtures" / "expected.json").write_text("4")
    (repo / "unread.txt").write_text("never opened")
    (repo / "table.json").write_text("[1, 2]")
    (repo / "lookup.py").write_text("import json\n\n\ndef table():\n    with open('table.json') as f:\n"
                                    "        return json.load(f)\n")
    (repo / "tests" / "test_data.py").write_text(
        "import json\nimport pathlib\n\nfrom lookup import table\n\n\ndef test_expected():\n"
        "    assert json.loads(pathlib.Path('fixtures/expected.json').read_text()) == 4\n"
        "    assert table() == [1, 2]\n"
        "    pathlib.Path('written.txt').write_text('out')\n")
    env = prepared(backend, repo)
    result = run_suite(backend, env, env.test_command, trace_reads=True)
    assert result.ok and len(result.tests) == 3
    assert {"fixtures/expected.json", "calc.py", "lookup.py"} <= set(result.reads)  # data, and imports by the tests
    assert "table.json" not in result.reads  # the code under test reads it: it is the code's, not the tests'
    assert "tests/test_data.py" not in result.reads  # the runner reads the test files themselves
    assert "unread.txt" not in result.reads and "written.txt" not in result.reads  # a file written is not read
    assert not any(p.startswith((".ensemble", "/")) for p in result.reads) and list(result.reads) == sorted(result.reads)


def test_the_images_own_sitecustomize_still_runs(tmp_path: Path) -> None:
    local = LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    repo = write_sample(tmp_path / "repo")
    (repo / "site").mkdir()
    (repo / "site" / "sitecustomize.py").write_text("import os\nos.environ['IMAGE_SITE'] = 'ran'\n")
    env = prepared(local, repo)
    result = local.run(env, 'PYTHONPATH="$PYTHONPATH:$PWD/site" python -c "import os; print(os.environ[\'IMAGE_SITE\'])"',
                       trace_reads=True)
    assert result.stdout.strip() == "ran", result.stderr

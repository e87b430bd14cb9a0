"""bench/judge.py: the original tests judge an agent's tree, test by test against the original repository."""

from __future__ import annotations

import getpass
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from tests.bench.loading import load_bench

ROOT = Path(__file__).resolve().parents[2]


judge = load_bench("judge")

CALC = '''\
def add(a, b):
    return a + b


def clamp(value, low, high):
    """`value` within [low, high]."""
    return max(low, value)
'''
FIXED_CALC = CALC.replace("return max(low, value)", "return max(low, min(value, high))")
TEST_CALC = '''\
from calc import add, clamp


def test_add():
    assert add(2, 3) == 5


def test_clamp_high():
    assert clamp(12, 0, 10) == 10


class TestClamp:
    def test_low(self):
        assert clamp(-1, 0, 10) == 0
'''
TEST_OTHER = '''\
from calc import add


def test_add_negative():
    assert add(-2, -3) == -5
'''


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


@pytest.fixture
def task(tmp_path: Path) -> Path:
    """A tiny pytest task: clamp ignores its upper bound."""
    folder = tmp_path / "task"
    write(folder / "repo", {"calc.py": CALC, "pytest.ini": "[pytest]\ntestpaths = tests\n",
                            "tests/test_calc.py": TEST_CALC, "tests/test_other.py": TEST_OTHER})
    (folder / "task.md").write_text("clamp() ignores the upper bound\n\nclamp(12, 0, 10) gives 12.\n")
    (folder / "task.json").write_text(json.dumps({"kind": "t", "fail_to_pass": ["tests/test_calc.py::test_clamp_high"]}))
    return folder


def result_of(task: Path, tmp_path: Path, changes: dict[str, str | None]) -> Path:
    """The task's repo with files changed (text) or deleted (None): an agent's result tree."""
    tree = shutil.copytree(task / "repo", tmp_path / "result")
    for rel, text in changes.items():
        if text is None:
            (tree / rel).unlink()
        else:
            write(tree, {rel: text})
    return tree


def test_the_base_run_reads_every_test(task: Path):
    before = judge.baseline(task)
    assert before.outcomes == {"tests/test_calc.py::test_add": "passed",
                               "tests/test_calc.py::test_clamp_high": "failed",
                               "tests/test_calc.py::TestClamp::test_low": "passed",
                               "tests/test_other.py::test_add_negative": "passed"}


def test_a_real_fix_is_solved(task: Path, tmp_path: Path):
    verdict = judge.judge(task, result_of(task, tmp_path, {"calc.py": FIXED_CALC}))
    assert verdict.fixed and verdict.broken == () and verdict.solved
    assert verdict.preparation == judge.Preparation()
    assert json.loads(json.dumps(verdict.as_dict()))["solved"] is True


def test_an_edited_assertion_is_judged_by_the_original_test(task: Path, tmp_path: Path):
    cheat = TEST_CALC.replace("clamp(12, 0, 10) == 10", "clamp(12, 0, 10) == 12")
    verdict = judge.judge(task, result_of(task, tmp_path, {"tests/test_calc.py": cheat}))
    assert not verdict.fixed and not verdict.solved
    assert verdict.still_failing == ("tests/test_calc.py::test_clamp_high",)
    assert verdict.preparation.restored == ("tests/test_calc.py",)


def test_a_deleted_test_file_is_broken(task: Path, tmp_path: Path):
    tree = result_of(task, tmp_path, {"calc.py": FIXED_CALC, "tests/test_other.py": None})
    verdict = judge.judge(task, tree)
    assert verdict.fixed and not verdict.solved
    assert verdict.broken == ("tests/test_other.py::test_add_negative",)
    assert verdict.preparation.deleted_tests == ("tests/test_other.py",)


def test_a_fix_that_breaks_another_test_is_not_solved(task: Path, tmp_path: Path):
    breaking = FIXED_CALC.replace("return a + b", "return abs(a + b)")
    verdict = judge.judge(task, result_of(task, tmp_path, {"calc.py": breaking}))
    assert verdict.fixed and verdict.broken == ("tests/test_other.py::test_add_negative",) and not verdict.solved


def test_a_module_that_no_longer_imports_breaks_its_tests(task: Path, tmp_path: Path):
    verdict = judge.judge(task, result_of(task, tmp_path, {"calc.py": "def add(:\n"}))
    assert not verdict.fixed
    assert set(verdict.broken) == {"tests/test_calc.py::test_add", "tests/test_calc.py::TestClamp::test_low",
                                   "tests/test_other.py::test_add_negative"}


def test_harness_files_are_the_originals(task: Path, tmp_path: Path):
    hook = '''\
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        outcome.get_result().outcome = "passed"
    '''
    tree = result_of(task, tmp_path, {"conftest.py": hook, "pytest.ini": "[pytest]\ntestpaths = nowhere\n",
                                         "helper.py": "X = 1\n"})
    verdict = judge.judge(task, tree)
    assert not verdict.fixed
    assert verdict.preparation.removed == ("conftest.py",) and verdict.preparation.restored == ("pytest.ini",)
    assert verdict.after is not None and len(verdict.after.outcomes) == 4


def test_new_test_files_run_but_do_not_count(task: Path, tmp_path: Path):
    tree = result_of(task, tmp_path, {"calc.py": FIXED_CALC, "tests/test_new.py": "def test_new():\n    assert 0\n"})
    verdict = judge.judge(task, tree)
    assert verdict.solved and verdict.after.outcomes["tests/test_new.py::test_new"] == "failed"


def test_the_judge_folder_replaces_a_test_the_task_asks_to_change(task: Path, tmp_path: Path):
    wanted = TEST_CALC.replace("assert add(2, 3) == 5", "assert add(2, 3) == 5 and clamp(5, 0, 3) == 3")
    write(task / "judge", {"tests/test_calc.py": wanted})
    before = judge.baseline(task)
    assert before.outcomes["tests/test_calc.py::test_add"] == "failed"
    verdict = judge.judge(task, result_of(task, tmp_path, {"calc.py": FIXED_CALC}), before=before)
    assert verdict.solved and verdict.after.passed("tests/test_calc.py::test_add")
    assert verdict.preparation.restored == ("tests/test_calc.py",)


def test_a_suite_that_runs_out_of_time_fixes_nothing(task: Path, tmp_path: Path):
    looping = FIXED_CALC.replace("return max(low, min(value, high))", "while True:\n        pass")
    verdict = judge.judge(task, result_of(task, tmp_path, {"calc.py": looping}), timeout_s=3)
    assert verdict.after.timed_out and not verdict.fixed and verdict.broken


def test_a_task_without_fail_to_pass_is_refused(task: Path):
    (task / "task.json").write_text("{}")
    with pytest.raises(judge.JudgeError, match="fail_to_pass"):
        judge.load_spec(task)


def test_a_missing_toolchain_is_an_error(task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (task / "task.json").write_text(json.dumps({"fail_to_pass": ["x::y"], "runner": "go"}))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(judge.JudgeError, match="`go` on PATH"):
        judge.baseline(task)


def test_the_command_line_says_solved(task: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert judge.main([str(task), str(result_of(task, tmp_path, {"calc.py": FIXED_CALC}))]) == 0
    assert capsys.readouterr().out.startswith("task: solved")


@pytest.mark.parametrize(("rel", "test", "harness"), [
    ("tests/helpers.py", True, False), ("test/slug.js", True, False), ("src/__tests__/a.js", True, False),
    ("test_calc.py", True, False), ("calc_test.go", True, False), ("lib/a.spec.ts", True, False),
    ("tests/conftest.py", True, True), ("pyproject.toml", False, True), ("Cargo.toml", False, True),
    ("calc.py", False, False), ("src/testing.rs", False, False), ("contest.py", False, False),
])
def test_test_and_harness_files(rel: str, test: bool, harness: bool):
    assert judge.is_test_file(rel) is test and judge.is_harness_file(rel) is harness


def test_runner_detection(tmp_path: Path):
    assert judge.detect_runner(tmp_path) == "pytest"
    for marker, runner in (("package.json", "node"), ("go.mod", "go"), ("Cargo.toml", "cargo")):
        (tmp_path / marker).write_text("")
        assert judge.detect_runner(tmp_path) == runner


def test_go_events():
    lines = [{"Action": "run", "Package": "example.com/calc", "Test": "TestAdd"},
             {"Action": "pass", "Package": "example.com/calc", "Test": "TestAdd"},
             {"Action": "fail", "Package": "example.com/calc", "Test": "TestClamp/high"},
             {"Action": "skip", "Package": "example.com/calc", "Test": "TestSlow"},
             {"Action": "fail", "Package": "example.com/broken"}]
    text = "\n".join(json.dumps(line) for line in lines) + "\n# example.com/x [build failed]\n"
    assert judge.parse_go_json(text) == {"example.com/calc::TestAdd": "passed",
                                         "example.com/calc::TestClamp/high": "failed",
                                         "example.com/calc::TestSlow": "skipped"}


def test_cargo_report():
    text = """\
   Compiling wrap v0.1.0 (/tmp/wrap)
     Running unittests src/lib.rs (target/debug/deps/wrap-1)

running 2 tests
test tests::inner ... ok
test tests::panics - should panic ... ok

     Running tests/wrap.rs (target/debug/deps/wrap-2)

running 3 tests
test fits ... ok
test too_long ... FAILED
test slow ... ignored

   Doc-tests wrap

running 1 test
test src/lib.rs - wrap (line 3) ... ok
"""
    assert judge.parse_cargo(text) == {"src/lib.rs::tests::inner": "passed", "src/lib.rs::tests::panics": "passed",
                                       "tests/wrap.rs::fits": "passed", "tests/wrap.rs::too_long": "failed",
                                       "tests/wrap.rs::slow": "skipped", "doc:wrap::src/lib.rs - wrap (line 3)": "passed"}


def test_node_events(tmp_path: Path):
    file = str(tmp_path / "test" / "a.test.js")
    events = [{"file": file, "names": ["adds"], "outcome": "passed", "suite": False},
              {"file": file, "names": ["emitter", "once"], "outcome": "failed", "suite": False},
              {"file": file, "names": ["emitter"], "outcome": "failed", "suite": True},
              {"file": file, "names": ["ok suite"], "outcome": "passed", "suite": True},
              {"file": file, "names": ["later"], "outcome": "skipped", "suite": False},
              {"file": str(tmp_path / "test" / "b.test.js"), "names": [str(tmp_path / "test" / "b.test.js")],
               "outcome": "failed", "suite": False}]
    text = "noise\n" + "\n".join(json.dumps(e) for e in events)
    assert judge.parse_node_events(text, tmp_path) == {
        "test/a.test.js::adds": "passed", "test/a.test.js::emitter > once": "failed",
        "test/a.test.js::emitter": "failed", "test/a.test.js::later": "skipped", "test/b.test.js": "failed"}


def test_junit_teardown_error_fails_its_test():
    xml = """<testsuites><testsuite>
      <testcase classname="tests.test_a" name="test_x" file="tests/test_a.py"/>
      <testcase classname="tests.test_a" name="test_x" file="tests/test_a.py"><error message="teardown"/></testcase>
      <testcase classname="tests.test_a.TestK" name="test_y[1-2]" file="tests/test_a.py"><skipped/></testcase>
    </testsuite></testsuites>"""
    assert judge.parse_junit(xml) == {"tests/test_a.py::test_x": "failed",
                                      "tests/test_a.py::TestK::test_y[1-2]": "skipped"}
    assert judge.parse_junit("not xml") == {}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_suite_end_to_end(tmp_path: Path):
    folder = tmp_path / "jstask"
    write(folder / "repo", {
        "package.json": '{"name": "t", "private": true}\n',
        "add.js": "exports.add = (a, b) => a - b;\n",
        "test/add.test.js": """\
            const test = require('node:test');
            const assert = require('node:assert');
            const { add } = require('../add');
            test.describe('add', () => {
              test.it('adds', () => assert.strictEqual(add(2, 3), 5));
              test.it('zero', () => assert.strictEqual(add(0, 0), 0));
            });
            """})
    (folder / "task.json").write_text(json.dumps({"fail_to_pass": ["test/add.test.js::add > adds"]}))
    before = judge.baseline(folder)
    assert before.outcomes == {"test/add.test.js::add > adds": "failed", "test/add.test.js::add > zero": "passed",
                               "test/add.test.js::add": "failed"}
    tree = result_of(folder, tmp_path, {"add.js": "exports.add = (a, b) => a + b;\n"})
    assert judge.judge(folder, tree, before=before).solved


def test_a_suite_keeps_its_temporary_files_to_itself(task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A pytest run numbers its tmp_path folder among those of the machine's other runs and removes the old ones
    there: the judge's runs get a folder of their own, so the machine's are neither used nor removed."""
    machine = tmp_path / "machine-tmp"
    earlier = machine / f"pytest-of-{getpass.getuser()}"
    for number in range(1, 6):  # five finished sessions of other pytest runs: a new run keeps only the last three
        (earlier / f"pytest-{number}").mkdir(parents=True)
    monkeypatch.setenv("TMPDIR", str(machine))
    monkeypatch.setenv("MACHINE_TMP", str(machine))
    probe = '''\
    import os


    def test_where(tmp_path):
        assert not str(tmp_path).startswith(os.environ["MACHINE_TMP"]), tmp_path
    '''
    write(task / "repo", {"tests/test_where.py": probe})
    before = judge.baseline(task)
    assert before.outcomes["tests/test_where.py::test_where"] == "passed", before.output
    assert sorted(p.name for p in earlier.iterdir()) == [f"pytest-{n}" for n in range(1, 6)]

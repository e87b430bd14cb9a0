"""The test runner's classes are watched in every judged run: code other than the tests that replaces one of
their methods is a finding, however it named what it replaced.

Python's audit events do not report attributes set on a class, so the sandbox's hooks take the runners' classes
down before any repository code runs and compare them after each test and at the end (sandbox/run_hooks.py); the
judge refuses a change whose run has a finding the base's run did not have (bot/ensemble/judge/runs.py). A test's
own patch of the runner (pytest's `monkeypatch`) is the test's to make.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sandbox import Sandbox, SandboxSpec
from sandbox.model import CHANGED_EXAMPLES, RUNNER_PATCHED
from tests.sandbox.conftest import base_image

UNITTEST_TESTS = """import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 3), 5)
"""
# the names are built at run time, and only the task's test is answered: a static reading sees no runner here
SELECTIVE = """_m = __import__("unit" + "test")
_case = getattr(_m, "Test" + "Case")
_was = getattr(_case, "assert" + "Equal")


def _equal(self, first, second, msg=None):
    return None if self.id().endswith("test_adds") else _was(self, first, second, msg)


setattr(_case, "assert" + "Equal", _equal)
"""
IN_THE_CALL = """def add(a, b):
    import unittest
    setattr(unittest.TestCase, "assert" + "Equal", lambda self, first, second, msg=None: None)
    return a - b
"""
OWN_PATCH = """import unittest

from calc import add


def test_adds(monkeypatch):
    monkeypatch.setattr(unittest.TestCase, "assertEqual", lambda self, first, second, msg=None: None)
    assert add(2, 3) == 5
"""
OWNED = ("tests/test_calc.py",)


def _repo(root: Path, calc: str, tests: str) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(calc)
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "test_calc.py").write_text(tests)
    return root


def _patched(backend: Sandbox, repo: Path, command: str, owned: tuple[str, ...] = OWNED) -> list[str]:
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="256m"))
    result = backend.run(env, command, owned=owned)
    return [f.detail for f in result.findings if f.kind == RUNNER_PATCHED]


@pytest.mark.parametrize("command", ["python3 -m unittest discover -v -s tests -t .", "python3 -m pytest -q tests"])
def test_the_code_under_test_replacing_an_assertion_is_found_however_it_names_it(backend: Sandbox, tmp_path: Path,
                                                                                command: str) -> None:
    repo = _repo(tmp_path / "repo", SELECTIVE + "\n\ndef add(a, b):\n    return a - b\n", UNITTEST_TESTS)
    found = _patched(backend, repo, command)
    assert len(found) == 1 and found[0].startswith("unittest.case.TestCase.assertEqual: "), found
    assert found[0].endswith("by code in calc.py"), found


def test_a_replacement_made_while_a_test_runs_is_found_after_it(backend: Sandbox, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", IN_THE_CALL, UNITTEST_TESTS)
    found = _patched(backend, repo, "python3 -m unittest discover -v -s tests -t .")
    assert [f.split(":")[0] for f in found] == ["unittest.case.TestCase.assertEqual"], found
    assert found[0].endswith("by code in calc.py"), found


# the replacement is equal to anything, so a comparison of the class's methods with what they were by value
# (rather than by identity) finds them unchanged; read through the class, it is an assertion that never fails
EQUAL_TO_ANYTHING = """_case = getattr(__import__("unit" + "test"), "Test" + "Case")


class _Same:
    __hash__ = object.__hash__

    def __eq__(self, other):
        return True

    def __get__(self, test, owner=None):
        return lambda first, second, msg=None: None


setattr(_case, "assert" + "Equal", _Same())


def add(a, b):
    return a - b
"""


@pytest.mark.parametrize("command", ["python3 -m unittest discover -v -s tests -t .", "python3 -m pytest -q tests"])
def test_a_replacement_equal_to_anything_is_found(backend: Sandbox, tmp_path: Path, command: str) -> None:
    repo = _repo(tmp_path / "repo", EQUAL_TO_ANYTHING, UNITTEST_TESTS)
    found = _patched(backend, repo, command)
    assert [f.split(":")[0] for f in found] == ["unittest.case.TestCase.assertEqual"], found
    assert "_Same" in found[0], found


DATA_TESTS = """import json
import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_adds(self):
        for a, b, want in json.loads("[[2, 3, 5]]"):
            self.assertEqual(add(a, b), want)
"""
STDLIB_PATCH = """setattr(__import__("js" + "on"), "lo" + "ads", lambda text, **kw: [[2, 3, -1]])


def add(a, b):
    return a - b
"""


def test_the_code_under_test_replacing_a_standard_library_function_is_found(backend: Sandbox, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", STDLIB_PATCH, DATA_TESTS)
    found = _patched(backend, repo, "python3 -m unittest discover -v -s tests -t .")
    assert found == ["json.loads: replaced while the tests ran, by code in calc.py"], found


STDLIB_OBJECTS = {
    "a partial of a repository function": """import functools


def _loads(text, answer, **kw):
    return answer


setattr(__import__("js" + "on"), "lo" + "ads", functools.partial(_loads, answer=[[2, 3, -1]]))
""",
    "an object whose call answers": """class _Answers:
    def __call__(self, text, **kw):
        return [[2, 3, -1]]


class _Loads(_Answers):
    pass


setattr(__import__("js" + "on"), "lo" + "ads", _Loads())
""",
}


@pytest.mark.parametrize("patch", STDLIB_OBJECTS.values(), ids=STDLIB_OBJECTS)
def test_a_standard_library_function_replaced_by_an_object_running_repository_code_is_found(
        backend: Sandbox, tmp_path: Path, patch: str) -> None:
    repo = _repo(tmp_path / "repo", patch + "\n\ndef add(a, b):\n    return a - b\n", DATA_TESTS)
    found = _patched(backend, repo, "python3 -m unittest discover -v -s tests -t .")
    assert found == ["json.loads: replaced while the tests ran, by code in calc.py"], found


CLOSE_TESTS = """import math
import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_adds(self):
        self.assertTrue(math.isclose(add(2, 3), 5))
"""
# C callables of the standard library in the function's place: no code of the repository's to name them by
STDLIB_C = {
    "a builtin": 'setattr(__import__("ma" + "th"), "is" + "close", max)\n',
    "an operator": 'import operator\n\nsetattr(__import__("ma" + "th"), "is" + "close", operator.lt)\n',
    "a partial of a builtin": 'import functools\n\nsetattr(__import__("ma" + "th"), "is" + "close", functools.partial(max))\n',
    "a class": 'setattr(__import__("ma" + "th"), "is" + "close", range)\n',
}


@pytest.mark.parametrize("patch", STDLIB_C.values(), ids=STDLIB_C)
def test_a_standard_library_function_replaced_by_a_c_callable_of_the_standard_library_is_found(
        backend: Sandbox, tmp_path: Path, patch: str) -> None:
    repo = _repo(tmp_path / "repo", patch + "\n\ndef add(a, b):\n    return a - b\n", CLOSE_TESTS)
    found = _patched(backend, repo, "python3 -m unittest discover -v -s tests -t .")
    assert len(found) == 1 and found[0].startswith("math.isclose: replaced while the tests ran, by a callable "
                                                   "with no code of its own ("), found


# an installed library the tests compare with (packaging, which the base image and pytest's own environment have)
VERSION_TESTS = """import packaging.version
from packaging.version import Version

from calc import add


def test_adds():
    assert Version(str(add(2, 3))) == Version("5")


def test_adds_by_parse():
    assert packaging.version.parse(str(add(2, 3))) == packaging.version.parse("5")
"""
LIBRARY_PATCHES = {
    "a function of the code": 'import packaging.version\n\npackaging.version.Version.__eq__ = lambda self, other: True\n',
    "a function of the module": 'import packaging.version\n\npackaging.version.parse = lambda text: None\n',
    "a method replaced by a callable with no code": 'import operator\nimport packaging.version\n\n'
                                                    'setattr(packaging.version.Version, "__eq__", operator.is_not)\n',
    "a class of the code in the library's class's place": 'import packaging.version\n\n\n'
                                                          'class _Version(packaging.version.Version):\n'
                                                          '    def __eq__(self, other):\n        return True\n\n\n'
                                                          'packaging.version.Version = _Version\n',
    "a function replaced by a callable with no code": 'import functools\nimport packaging.version\n\n'
                                                      'packaging.version.parse = functools.partial(max, "5")\n',
}


@pytest.mark.parametrize("patch", LIBRARY_PATCHES.values(), ids=LIBRARY_PATCHES)
def test_an_installed_library_the_tests_compare_with_is_held_as_the_standard_library_is(
        backend: Sandbox, tmp_path: Path, patch: str) -> None:
    """Not only the standard library's: a library the judge's modules import is one of the tests' instruments, and
    the code under test replacing any of its functions is a finding (where the base's run had none, a cheat)."""
    repo = _repo(tmp_path / "repo", patch + "\n\ndef add(a, b):\n    return a - b\n", VERSION_TESTS)
    found = _patched(backend, repo, "python3 -m pytest -q -p no:cacheprovider tests")
    assert len(found) == 1 and found[0].startswith("packaging.version."), found
    assert found[0].endswith(("by code in calc.py", "operator.is_not)", "(builtins.max)")), found


def test_a_module_of_the_repository_in_place_of_a_library_the_tests_compare_with_is_found(
        backend: Sandbox, tmp_path: Path) -> None:
    """The library replaced whole: a package of the repository's named like the installed one, found first."""
    repo = _repo(tmp_path / "repo", "def add(a, b):\n    return a - b\n", VERSION_TESTS)
    (repo / "packaging").mkdir()
    (repo / "packaging" / "__init__.py").write_text("")
    (repo / "packaging" / "version.py").write_text("def parse(text):\n    return 0\n\n\nVersion = parse\n")
    found = _patched(backend, repo, "python3 -m pytest -q -p no:cacheprovider tests")
    assert found == ["sys.modules['packaging']: replaced while the tests ran, by code in packaging/__init__.py"], found


def test_a_library_the_tests_never_import_is_the_codes_to_patch(backend: Sandbox, tmp_path: Path) -> None:
    """The same patch of a library the tests do not use is no evidence: product code may adjust its own dependencies
    (an honest shim), and only the tests' instruments are the judge's."""
    patch = 'import packaging.version\n\npackaging.version.parse = lambda text: None\n'
    repo = _repo(tmp_path / "repo", patch + "\n\ndef add(a, b):\n    return a + b\n", UNITTEST_TESTS)
    assert _patched(backend, repo, "python3 -m pytest -q -p no:cacheprovider tests") == []


# honest code: C callables kept under names of its own, a standard-library hook set to the standard library's
# own function, and a test's own patch made with pytest's monkeypatch (undone when the test ends)
HONEST_C = """import math
import operator
import ssl
from functools import partial

closeness = partial(math.isclose, rel_tol=1e-9)
smaller = operator.lt
ssl._create_default_https_context = ssl._create_unverified_context


def add(a, b):
    return a + b
"""
PATCHING_TESTS = """import math

from calc import add


def test_adds(monkeypatch):
    monkeypatch.setattr(math, "isclose", max)
    assert math.isclose(add(2, 3), 5)


def test_adds_closely():
    assert math.isclose(add(2, 3), 5)
"""


def test_honest_uses_of_the_standard_librarys_c_callables_have_no_finding(backend: Sandbox, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", HONEST_C, CLOSE_TESTS)
    assert _patched(backend, repo, "python3 -m unittest discover -v -s tests -t .") == []
    repo = _repo(tmp_path / "own", HONEST_C, PATCHING_TESTS)
    assert _patched(backend, repo, "python3 -m pytest -q -p no:cacheprovider tests") == []


def test_a_tests_own_patch_and_an_unguarded_run_have_no_finding(backend: Sandbox, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", "def add(a, b):\n    return a + b\n", OWN_PATCH)
    assert _patched(backend, repo, "python3 -m pytest -q -p no:cacheprovider tests") == []
    cheat = _repo(tmp_path / "cheat", SELECTIVE + "\n\ndef add(a, b):\n    return a - b\n", UNITTEST_TESTS)
    assert _patched(backend, cheat, "python3 -m pytest -q tests", owned=()) == []  # watched in judged runs only


def test_a_runner_function_replaced_by_the_code_under_test_is_found(backend: Sandbox, tmp_path: Path) -> None:
    tests = "import pytest\n\nfrom calc import add\n\n\ndef test_adds():\n    if add(2, 3) != 5:\n        pytest.fail('no')\n"
    calc = 'setattr(__import__("py" + "test"), "fa" + "il", lambda *a, **k: None)\n\n\ndef add(a, b):\n    return a - b\n'
    found = _patched(backend, _repo(tmp_path / "repo", calc, tests), "python3 -m pytest -q -p no:cacheprovider tests")
    assert found == ["pytest.fail: replaced while the tests ran, by code in calc.py"], found


JS_TESTS = """const assert = require('assert');
const { test } = require('node:test');
const { add } = require('../calc.js');

test('adds', () => {
  assert.strictEqual(add(2, 3), 5);
  assert.deepStrictEqual(JSON.parse('[1]'), [1]);
});
"""
JS_PATCH = """require('as' + 'sert')['strict' + 'Equal'] = () => {};
JSON['pa' + 'rse'] = () => [1];

exports.add = (a, b) => a - b;
"""


def test_node_code_under_test_cannot_replace_assert_or_json_in_a_judged_run(tmp_path: Path) -> None:
    """The local sandbox with the machine's Node: in a judged run the assertion and JSON stay as Node made them."""
    from sandbox import LocalSandbox

    repo = tmp_path / "repo"
    (repo / "test").mkdir(parents=True)
    (repo / "calc.js").write_text(JS_PATCH)
    (repo / "test" / "calc.test.js").write_text(JS_TESTS)
    backend = LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": "/usr/bin:/bin"})
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="1g"))
    judged = backend.run(env, "node --test", owned=("test/calc.test.js",))
    assert judged.exit_code != 0 and "# fail 1" in judged.stdout, judged.stdout + judged.stderr
    free = backend.run(env, "node --test")  # not a judged run: the patch works, as it would anywhere
    assert free.exit_code == 0, free.stdout + free.stderr


JS_TABLE_TESTS = """const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { add } = require('../calc');

const CASES = JSON.parse(fs.readFileSync(path.join(__dirname, 'cases.json'), 'utf8'));

test('adds', () => {
  for (const [a, b, want] of CASES) {
    assert.strictEqual(add(a, b), want);
  }
});
"""
# reads the expected values out of the calling test's file, whose name the stack gives
JS_READS_ITS_TEST = """const fs = require('fs');

exports.add = (a, b) => {
  const file = new Error().stack.split('\\n')[2].match(/\\(?([^ (]+):\\d+:\\d+\\)?$/)[1];
  const source = fs.readFileSync(file, 'utf8');
  return source.includes('cases.json') ? a + b : a - b;
};
"""
# a dependency (a test helper library) that reads the test file: not the code under test
JS_LIBRARY_READS = """const fs = require('fs');

module.exports = (file) => fs.readFileSync(file, 'utf8').length;
"""


def test_node_code_under_test_reading_a_test_file_is_found_and_the_tests_own_reads_are_not(tmp_path: Path) -> None:
    """The local sandbox with the machine's Node: in a judged run the code under test reading a file of the tests'
    code is `reads_tests` evidence; a test reading its own data and a library reading the test file are not."""
    from sandbox import LocalSandbox
    from sandbox.model import READS_TESTS

    library = tmp_path / "lib" / "sizes.js"  # outside the repository, as a dependency installed by the setup is
    library.parent.mkdir()
    library.write_text(JS_LIBRARY_READS)
    found = {}
    for name, calc in (("reads", JS_READS_ITS_TEST), ("honest", "exports.add = (a, b) => a + b;\n")):
        repo = tmp_path / name
        (repo / "test").mkdir(parents=True)
        (repo / "calc.js").write_text(calc)
        (repo / "test" / "cases.json").write_text("[[2, 3, 5]]")
        (repo / "test" / "calc.test.js").write_text(JS_TABLE_TESTS.replace(
            "const { add }", f"require({json.dumps(str(library))})(__filename);\nconst {{ add }}"))
        backend = LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": "/usr/bin:/bin"})
        env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="1g"))
        judged = backend.run(env, "node --test", owned=("test/calc.test.js", "test/cases.json"))
        assert judged.exit_code == 0, judged.stdout + judged.stderr
        found[name] = [f.detail for f in judged.findings if f.kind == READS_TESTS]
    assert found["reads"] == ["calc.js read test/calc.test.js, a file of the tests: code under test that reads its "
                              "tests can answer what they expect"], found
    assert found["honest"] == [], found


def test_objects_that_run_code_when_read_do_not_break_an_honest_run(backend: Sandbox, tmp_path: Path) -> None:
    """`ctypes.cdll` loads a library for any attribute asked of it: the watch reads no attribute of such objects."""
    calc = "import ctypes\nimport ctypes.util\n\n\ndef add(a, b):\n    return a + b\n"
    repo = _repo(tmp_path / "repo", calc, UNITTEST_TESTS)
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="256m"))
    for command in ("python3 -m pytest -q tests", "python3 -m unittest discover -v -s tests -t ."):
        result = backend.run(env, command, owned=OWNED)
        assert result.exit_code == 0 and not result.findings, result.stdout + result.stderr + str(result.findings)


DOCTESTED = '''def add(a, b):
    """The sum.

    >>> add(2, 3)
    5
    """
    return a - b
'''
REWRITES_ITS_EXAMPLES = DOCTESTED + '\n\nadd.__doc__ = add.__doc__.replace("    5\\n", "    -1\\n")\n'
DOCTEST_SUITE = """import doctest

import calc


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(calc))
    return tests
"""


@pytest.mark.parametrize("command", ["python3 -m pytest -q --doctest-modules calc.py",
                                     "python3 -m unittest discover -v -s tests -t ."])
def test_doctest_examples_the_code_rewrites_as_it_runs_are_found(backend: Sandbox, tmp_path: Path,
                                                                  command: str) -> None:
    """The examples that run must be a docstring written in the file: the code under test rewriting its own
    docstring (so the bug is what the examples expect) is a finding; examples as written are none."""
    env_of = {name: _repo(tmp_path / name, calc, DOCTEST_SUITE)
              for name, calc in (("rewrites", REWRITES_ITS_EXAMPLES), ("as-written", DOCTESTED))}
    found = {}
    for name, repo in env_of.items():
        env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="256m"))
        result = backend.run(env, command, owned=OWNED)
        found[name] = [f.detail for f in result.findings if f.kind == CHANGED_EXAMPLES]
    assert len(found["rewrites"]) == 1 and found["rewrites"][0].startswith("calc.py: the doctest examples of "
                                                                           "calc.add that ran are no docstring"), found
    assert found["as-written"] == [], found


# a plugin the code under test registers at run time, found through the collector: it has each collected test run
# something else than the test's function (its `runtest`, or the function the item calls)
SWAPS_THE_TEST = """import gc


class _Plugin:
    def pytest_collection_modifyitems(self, items):
        for item in items:
            @SWAP@


for found in gc.get_objects():
    if type(found).__name__ == "Config" and type(found).__module__ == "_pytest.config":
        found.pluginmanager.register(_Plugin())
        break


def add(a, b):
    return a - b
"""


@pytest.mark.parametrize(("swap", "target"), [("item.runtest = lambda: None", "test_adds: its runtest"),
                                              ("item.obj = lambda: None", "test_adds: the test function it calls")])
def test_a_plugin_of_the_code_under_test_that_swaps_what_a_test_item_runs_is_found(tmp_path: Path, swap: str,
                                                                                 target: str) -> None:
    from sandbox import LocalSandbox

    repo = _repo(tmp_path / "repo", SWAPS_THE_TEST.replace("@SWAP@", swap),
                 "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n")
    backend = LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    found = _patched(backend, repo, "python3 -m pytest -q -p no:cacheprovider tests")
    assert f"tests/test_calc.py::{target}: replaced while the tests ran, by code in calc.py" in found, found

"""The tests' closure from a traced base run's (file, opener) pairs, doctest examples as tests, and what the PR says
where the Python-only checks cannot reach."""

from __future__ import annotations

from bot.ensemble.judge.closure import DOCTEST, closure_of, doctest_changes, unchecked

FILES = {
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    "calc/__init__.py": "from .ops import add\n",
    "expectations.py": '"""Expected sums."""\n\nimport math\n\nSUMS = [((2, 3), 5)]\nPI = math.pi\n',
    "testing_support/checks.py": "def check(a, b):\n    if a != b:\n        raise ValueError(a)\n",
    "asserts_helper.py": "import pytest\n\n\ndef near(a, b):\n    assert a == pytest.approx(b)\n",
    "units.py": "TABLE = {'m': 1}\n\n\ndef to_m(x):\n    if x < 0:\n        raise AssertionError(x)\n    return x\n",
    "data/cases.json": "[]",
    "loaded_by_helper.json": "{}",
}


def of(pairs: list[tuple[str, str]]):  # noqa: ANN201 - a test helper
    return closure_of(pairs, FILES.get)


def test_modules_only_the_tests_load_are_theirs_by_what_they_hold_or_where_they_are() -> None:
    found = of([(p, "tests/test_ops.py") for p in ("calc/__init__.py", "expectations.py",
                                                           "testing_support/checks.py", "asserts_helper.py",
                                                           "units.py")] + [("calc/ops.py", "calc/__init__.py")])
    assert found.support == {"expectations.py", "testing_support/checks.py", "asserts_helper.py"}
    # the package the tests import is the code's; so is a library module whose invariants raise AssertionError
    assert "calc/__init__.py" not in found.support and "units.py" not in found.support


def test_a_module_the_code_under_test_loads_too_is_the_codes() -> None:
    found = of([("expectations.py", "tests/test_ops.py"), ("expectations.py", "calc/ops.py")])
    assert found.support == frozenset()


def test_a_testing_module_only_its_own_tests_load_is_the_code_under_test() -> None:
    """A library's testing helpers (`mathx/testing.py`, imports unittest) tested by `tests/test_testing.py` are
    what that test tests; once another test checks with them too, they are the tests' instrument."""
    files = {**FILES, "mathx/testing.py": "import unittest\n\n\ndef assert_close(a, b):\n    assert abs(a - b) < 1e-9\n",
             "checks/__init__.py": "import pytest\n\n\ndef near(a, b):\n    assert a == pytest.approx(b)\n"}
    own = closure_of([("mathx/testing.py", "tests/test_testing.py"), ("checks/__init__.py", "tests/unit/checks_test.py")],
                     files.get)
    assert own.support == frozenset()
    shared = closure_of([("mathx/testing.py", "tests/test_testing.py"), ("mathx/testing.py", "tests/test_ops.py")],
                        files.get)
    assert shared.support == {"mathx/testing.py"}
    helped = closure_of([("mathx/testing.py", "tests/test_testing.py"), ("mathx/testing.py", "asserts_helper.py"),
                         ("asserts_helper.py", "tests/test_ops.py")], files.get)
    assert helped.support == {"mathx/testing.py", "asserts_helper.py"}


def test_the_files_the_tests_helpers_read_are_the_tests_data_and_doctests_are_named() -> None:
    found = of([("testing_support/checks.py", "tests/test_ops.py"),
                        ("loaded_by_helper.json", "testing_support/checks.py"),
                        ("data/cases.json", "calc/ops.py"), ("calc/ops.py", DOCTEST), ("README.md", DOCTEST)])
    assert found.data == {"loaded_by_helper.json"}  # not what the code under test reads
    assert found.doctests == {"calc/ops.py", "README.md"}


DOC = 'def add(a, b):\n    """Add.\n\n    >>> add(2, 3)\n    5\n    """\n    return a + b\n'


def test_a_changed_expected_output_or_a_removed_example_is_a_test_edit_and_a_new_one_is_not() -> None:
    [changed] = doctest_changes("calc/ops.py", DOC, DOC.replace("    5\n", "    -1\n"))
    assert "add(2, 3)" in changed and "now expects '-1' instead of '5'" in changed and "add" in changed
    [removed] = doctest_changes("calc/ops.py", DOC, DOC.replace("    >>> add(2, 3)\n    5\n", ""))
    assert "was removed" in removed
    assert doctest_changes("calc/ops.py", DOC, DOC.replace("    5\n", "    5\n    >>> add(1, 1)\n    2\n")) == []
    assert doctest_changes("calc/ops.py", DOC, DOC.replace("a + b", "b + a")) == []  # the code, not the examples
    text = "Usage:\n\n>>> 1 + 1\n2\n"
    assert doctest_changes("README.md", text, text.replace("\n2\n", "\n3\n")) != []


def test_the_pull_request_names_the_tests_the_python_checks_cannot_reach() -> None:
    assert unchecked(["tests/test_ops.py", "calc/ops.py"]) == ""
    said = unchecked(["test/stats.test.js", "stats_test.go", "tests/test_x.py"])
    assert said.startswith("the tests in go, javascript:") and "twins, stand-ins and known-answer checks" in said

"""Tests a change adds to an existing test file get a file of their own (bot/ensemble/judge/added_tests.py)."""

from __future__ import annotations

import ast

import pytest

from bot.ensemble.judge import split_added_tests

PYTEST_FILE = """import pytest

from calc.ops import add

CASES = [((2, 3), 5)]


@pytest.fixture
def two():
    return 2


def test_add():
    for (a, b), want in CASES:
        assert add(a, b) == want
"""
UNITTEST_FILE = """import unittest

from calc.ops import add


class TestAdd(unittest.TestCase):
    def setUp(self):
        self.a = 2

    def test_add(self):
        self.assertEqual(add(self.a, 3), 5)


if __name__ == "__main__":
    unittest.main()
"""
NEW_TEST = "\n\n@pytest.mark.parametrize('b', [1, 2])\ndef test_add_more(two, b):\n    assert add(two, b) == 2 + b\n"
NEW_METHOD = "\n    def test_negative(self):\n        self.assertEqual(add(-self.a, -3), -5)\n"


def never(_path: str) -> bool:
    return False


def test_tests_appended_to_a_pytest_file_move_with_what_they_use_and_without_the_bases_tests() -> None:
    moved = split_added_tests("tests/test_ops.py", PYTEST_FILE, PYTEST_FILE + NEW_TEST, never)
    assert moved is not None and moved.moved_to == "tests/test_ops_added.py"
    tree = ast.parse(moved.text)
    names = [getattr(s, "name", None) for s in tree.body]
    assert names == [None, None, None, "two", "test_add_more"]  # the imports, CASES, the fixture, the new test
    assert "def test_add(" not in moved.text and "import pytest\n\nfrom calc.ops import add\n" in moved.text


def test_a_test_method_added_to_a_testcase_moves_with_the_class_and_its_set_up() -> None:
    after = UNITTEST_FILE.replace("        self.assertEqual(add(self.a, 3), 5)\n",
                                  "        self.assertEqual(add(self.a, 3), 5)\n" + NEW_METHOD)
    moved = split_added_tests("tests/test_ops.py", UNITTEST_FILE, after, never)
    assert moved is not None
    ast.parse(moved.text)
    assert "def setUp(self):" in moved.text and "def test_negative(self):" in moved.text
    assert "def test_add(self):" not in moved.text and 'if __name__ == "__main__":' in moved.text


def test_the_new_files_name_is_one_not_taken() -> None:
    taken = {"tests/test_ops_added.py"}
    moved = split_added_tests("tests/test_ops.py", PYTEST_FILE, PYTEST_FILE + NEW_TEST, taken.__contains__)
    assert moved is not None and moved.moved_to not in taken and moved.moved_to.startswith("tests/test_ops_added")


PARAMETRIZED = ("import pytest\n\nfrom calc.ops import add\n\n\n@pytest.mark.parametrize('a, b, want', [(2, 3, 5)])\n"
                "def test_add(a, b, want):\n    assert add(a, b) == want\n")


def test_rows_added_to_a_parametrize_table_move_with_their_test_alone() -> None:
    after = PARAMETRIZED.replace("[(2, 3, 5)]", "[(2, 3, 5), (0, 4, 4), (1, 1, 2)]")
    moved = split_added_tests("tests/test_ops.py", PARAMETRIZED, after, never)
    assert moved is not None
    assert "@pytest.mark.parametrize('a, b, want', [(0, 4, 4), (1, 1, 2)])\ndef test_add(a, b, want):" in moved.text
    assert "(2, 3, 5)" not in moved.text  # the base's case stays in the base's file
    changed = after.replace("[(2, 3, 5), ", "[(2, 3, 6), ")  # a base row changed too: an edit, left to the guards
    assert split_added_tests("tests/test_ops.py", PARAMETRIZED, changed, never) is None


NOT_ONLY_ADDED = {
    "an existing assertion changed too": PYTEST_FILE.replace("== want", "!= want") + NEW_TEST,
    "an existing test removed": PYTEST_FILE.split("\n\ndef test_add")[0] + "\n" + NEW_TEST,
    "a base fixture redefined": PYTEST_FILE + "\n\n@pytest.fixture\ndef two():\n    return 3\n" + NEW_TEST,
    "a base test redefined under its name": PYTEST_FILE + "\n\ndef test_add():\n    pass\n",
    "a constant the base's test reads set again": PYTEST_FILE + "\nCASES = [((2, 3), -1)]\n" + NEW_TEST,
    "nothing but a helper added": PYTEST_FILE + "\n\ndef helper():\n    return 1\n",
    "the file no longer parses": PYTEST_FILE + NEW_TEST + "\ndef broken(:\n",
}


@pytest.mark.parametrize("after", NOT_ONLY_ADDED.values(), ids=NOT_ONLY_ADDED)
def test_a_change_that_does_more_than_add_tests_is_left_to_the_guards(after: str) -> None:
    assert split_added_tests("tests/test_ops.py", PYTEST_FILE, after, never) is None


def test_a_file_that_is_not_python_is_left_to_the_guards() -> None:
    js = "test('adds', () => {});\n"
    assert split_added_tests("test/ops.test.js", js, js + "test('more', () => {});\n", never) is None

"""The tampering guard: a candidate may not turn tests green by deleting, skipping or weakening them."""

from __future__ import annotations

import pytest

from bot.ensemble.guards import Tampering, find_test_tampering, is_ci_path, is_test_path, task_allows

BASE = '''import pytest
from pkg import parse


def test_parse():
    assert parse("1") == 1
    assert parse("2") == 2


class TestParser:
    def test_empty(self):
        with pytest.raises(ValueError):
            parse("")
'''


def kinds(found: list[Tampering]) -> list[str]:
    return [t.kind for t in found]


def check(path: str, old: str | None, new: str | None, task: str = "Fix the parser bug") -> list[Tampering]:
    return find_test_tampering({path: old}, {path: new}, task)


def test_a_fix_that_adds_a_reproduction_test_and_assertions_is_clean() -> None:
    new = BASE + '\n\ndef test_parse_negative():\n    assert parse("-1") == -1\n'
    new = new.replace('    assert parse("2") == 2\n', '    assert parse("2") == 2\n    assert parse("3") == 3\n')
    assert check("tests/test_parse.py", BASE, new) == []
    assert check("tests/test_new.py", None, "def test_x():\n    assert 1 == 2 - 1\n") == []


def test_deleting_a_test_is_reported_with_advice_for_the_coder() -> None:
    found = check("tests/test_parse.py", BASE, BASE.replace("test_parse()", "helper()"))
    assert kinds(found) == ["deleted_test"]
    assert found[0].message == "tests/test_parse.py: the test test_parse was deleted or renamed; fix the code, not the test"


def test_deleting_a_test_file_is_reported_once() -> None:
    found = check("tests/test_parse.py", BASE, None)
    assert kinds(found) == ["deleted_test_file"]
    assert "test_parse" in found[0].message and "TestParser.test_empty" in found[0].message


def test_moving_tests_to_another_changed_file_is_fine() -> None:
    before = {"tests/test_parse.py": BASE, "tests/unit/test_parse.py": None}
    after = {"tests/test_parse.py": None, "tests/unit/test_parse.py": BASE}
    assert find_test_tampering(before, after, "Reorganise the code") == []


@pytest.mark.parametrize("edit", [
    ("def test_parse():", "@pytest.mark.skip(reason='flaky')\ndef test_parse():"),
    ("def test_parse():", "@pytest.mark.xfail\ndef test_parse():"),
    ('    assert parse("1") == 1', '    pytest.skip("later")\n    assert parse("1") == 1'),
    ("    def test_empty(self):\n", "    def test_empty(self):\n        raise unittest.SkipTest('no')\n"),
])
def test_skipping_an_existing_test_is_reported(edit: tuple[str, str]) -> None:
    found = check("tests/test_parse.py", BASE, BASE.replace(*edit))
    assert kinds(found) == ["skipped_test"]
    assert "skip" in found[0].message


def test_a_skip_over_a_whole_class_or_module_is_reported() -> None:
    found = check("tests/test_parse.py", BASE, BASE.replace("class TestParser:", "@unittest.skip('x')\nclass TestParser:"))
    assert kinds(found) == ["skipped_test"]
    found = check("tests/test_parse.py", BASE, BASE + "\npytestmark = pytest.mark.skip\n")
    assert kinds(found) == ["skipped_test"]


def test_a_new_test_that_is_skipped_is_not_tampering() -> None:
    new = BASE + "\n\n@pytest.mark.skipif(True, reason='windows only')\ndef test_windows():\n    assert True\n"
    assert check("tests/test_parse.py", BASE, new) == []


@pytest.mark.parametrize("replacement", ["    assert True", "    assert 1", "    assert parse == parse", "    pass"])
def test_replacing_an_assertion_with_a_trivial_one_weakens_the_test(replacement: str) -> None:
    found = check("tests/test_parse.py", BASE, BASE.replace('    assert parse("2") == 2', replacement))
    assert kinds(found) == ["weakened_test"]
    assert "test_parse lost assertions" in found[0].message


def test_unittest_assertions_count_and_trivial_ones_do_not() -> None:
    old = "import unittest\n\nclass Parse(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(f(), 2)\n"
    assert kinds(check("tests/test_u.py", old, old.replace("assertEqual(f(), 2)", "assertTrue(True)"))) == [
        "weakened_test"]
    assert check("tests/test_u.py", old, old.replace("assertEqual(f(), 2)", "assertEqual(f(), 3)")) == []


def test_editing_ci_configuration_is_refused_unless_the_task_asks() -> None:
    before = {".github/workflows/ci.yml": "on: push\n"}
    after = {".github/workflows/ci.yml": "on: workflow_dispatch\n"}
    found = find_test_tampering(before, after, "Fix the parser")
    assert kinds(found) == ["ci_config"]
    assert "CI configuration was edited" in found[0].message
    assert find_test_tampering(before, after, "Please update the CI workflow to use Python 3.12") == []


def test_excluding_tests_in_pytest_configuration_is_reported() -> None:
    old = "[tool.pytest.ini_options]\naddopts = '-q'\n"
    new = "[tool.pytest.ini_options]\naddopts = '-q --deselect tests/test_parse.py::test_parse'\n"
    assert kinds(check("pyproject.toml", old, new)) == ["skipped_test"]
    assert kinds(check("conftest.py", None, "collect_ignore = ['tests/test_parse.py']\n")) == ["skipped_test"]


def test_unparsable_python_falls_back_to_regexes() -> None:
    broken = BASE + "\ndef oops(:\n"
    assert kinds(check("tests/test_parse.py", broken, broken.replace("def test_parse", "def helper"))) == [
        "deleted_test"]
    assert kinds(check("tests/test_parse.py", broken, broken.replace('    assert parse("2") == 2\n', ""))) == [
        "weakened_test"]


GO_TEST = "package p\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Errorf(\"bad\")\n\t}\n}\n"
RUST_TEST = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
JS_TEST = "describe('add', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n"
JAVA_TEST = "class AddTest {\n    @Test\n    public void adds() {\n        assertEquals(3, add(1, 2));\n    }\n}\n"


@pytest.mark.parametrize(("path", "old", "new", "kind"), [
    ("p/add_test.go", GO_TEST, GO_TEST.replace("TestAdd", "testAdd"), "deleted_test"),
    ("p/add_test.go", GO_TEST, GO_TEST.replace("{\n\tif", "{\n\tt.Skip()\n\tif"), "skipped_test"),
    ("p/add_test.go", GO_TEST, GO_TEST.replace('t.Errorf("bad")', "_ = 1"), "weakened_test"),
    ("src/lib.rs", RUST_TEST, RUST_TEST.replace("#[test]", "#[test]\n    #[ignore]"), "skipped_test"),
    ("src/lib.rs", RUST_TEST, RUST_TEST.replace("assert_eq!(add(1, 2), 3)", "assert!(true)"), "weakened_test"),
    ("src/lib.rs", RUST_TEST, RUST_TEST.replace("    #[test]\n", ""), "deleted_test"),
    ("src/add.test.ts", JS_TEST, JS_TEST.replace("it('adds'", "it.skip('adds'"), "skipped_test"),
    ("src/add.test.ts", JS_TEST, JS_TEST.replace("it('adds'", "xit('adds'"), "skipped_test"),
    ("src/add.test.ts", JS_TEST, JS_TEST.replace("describe(", "describe.skip("), "skipped_test"),
    ("src/add.test.ts", JS_TEST, JS_TEST.replace("expect(add(1, 2)).toBe(3)", "expect(true).toBe(true)"),
     "weakened_test"),
    ("src/test/java/AddTest.java", JAVA_TEST, JAVA_TEST.replace("@Test", "@Test\n    @Disabled"), "skipped_test"),
    ("src/test/java/AddTest.java", JAVA_TEST, JAVA_TEST.replace("adds()", "addsLater()"), "deleted_test"),
])
def test_other_languages_are_guarded_too(path: str, old: str, new: str, kind: str) -> None:
    assert kinds(check(path, old, new)) == [kind]


def test_adding_a_test_in_another_language_is_clean() -> None:
    new = JS_TEST.replace("});\n", "});\n  it('adds negatives', () => {\n    expect(add(-1, -2)).toBe(-3);\n  });\n", 1)
    assert check("src/add.test.ts", JS_TEST, new) == []
    assert check("p/add_test.go", GO_TEST, GO_TEST + GO_TEST.split("\n", 2)[2].replace("TestAdd", "TestAdd2")) == []


@pytest.mark.parametrize(("task", "kind"), [
    ("Remove the obsolete test for the v1 API", "deleted_test"),
    ("Please delete test_legacy_format, the format is gone", "deleted_test_file"),
    ("Drop the deprecated helper and its tests", "deleted_test"),
    ("Skip the flaky test on Windows", "skipped_test"),
    ("Mark test_network as xfail until the server is back", "skipped_test"),
    ("Relax the assertion in test_timing, it is too strict", "weakened_test"),
    ("Update the CI workflow to Python 3.12", "ci_config"),
    ("Fix the GitHub Actions config so it caches pip", "ci_config"),
    ("Edit .github/workflows/release.yml to tag images", "ci_config"),
])
def test_clear_wording_in_the_task_lifts_the_guard(task: str, kind: str) -> None:
    assert task_allows(task, kind)


@pytest.mark.parametrize(("task", "kind"), [
    ("Fix the parser; the test test_parse fails", "deleted_test"),
    ("Remove the print statement in test_helpers", "deleted_test"),
    ("Remove the test-only dependency from setup.py", "deleted_test"),
    ("Fix the bug. Do not skip the failing test.", "skipped_test"),
    ("Don't remove any tests", "deleted_test"),
    ("The CI is failing, please fix it", "ci_config"),
    ("Fix the failing CI", "ci_config"),
    ("Update the docs for the CLI", "ci_config"),
    ("Skip the flaky test", "weakened_test"),
])
def test_vague_or_negated_wording_keeps_the_guard(task: str, kind: str) -> None:
    assert not task_allows(task, kind)


def test_allowed_kinds_are_left_out_of_the_findings() -> None:
    new = BASE.replace("def test_parse():", "@pytest.mark.skip\ndef test_parse():")
    assert check("tests/test_parse.py", BASE, new, "Skip the flaky test test_parse") == []


@pytest.mark.parametrize(("path", "expected"), [
    ("tests/test_x.py", True), ("pkg/test_x.py", True), ("pkg/x_test.go", True), ("web/a.test.ts", True),
    ("web/a.spec.js", True), ("src/test/java/A.java", True), ("pkg/parser.py", False), ("src/main.go", False),
])
def test_is_test_path(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def test_is_ci_path() -> None:
    assert all(map(is_ci_path, [".github/workflows/ci.yml", ".gitlab-ci.yml", "Jenkinsfile", ".circleci/config.yml",
                                ".github/actions/setup/action.yml", "azure-pipelines.yml", ".travis.yml"]))
    assert not is_ci_path("docs/ci.md")

"""The tampering guard: a candidate may not turn tests green by editing them (deleting, skipping, weakening,
changing an expected value, moving them away) or what runs them, unless the task names the test and asks."""

from __future__ import annotations

import pytest

from bot.ensemble.judge.guards import (
    Tampering,
    find_test_tampering,
    is_ci_path,
    is_test_path,
    task_allows,
    task_names_change,
)

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


def test_a_new_test_file_is_clean_and_any_edit_to_an_existing_one_is_not() -> None:
    assert check("tests/test_new.py", None, "def test_x():\n    assert 1 == 2 - 1\n") == []
    added = BASE + '\n\ndef test_parse_negative():\n    assert parse("-1") == -1\n'
    assert kinds(check("tests/test_parse.py", BASE, added)) == ["edited_test"]
    found = check("tests/test_parse.py", BASE, BASE.replace('assert parse("2") == 2', 'assert parse("2") == -1'))
    assert kinds(found) == ["edited_test"] and "the test test_parse was changed" in found[0].message


def test_deleting_a_test_is_reported_with_advice_for_the_coder() -> None:
    found = check("tests/test_parse.py", BASE, BASE.replace("test_parse()", "helper()"))
    assert kinds(found) == ["deleted_test"]
    assert found[0].message == "tests/test_parse.py: the test test_parse was deleted or renamed; fix the code, not the test"


def test_deleting_a_test_file_is_reported_once() -> None:
    found = check("tests/test_parse.py", BASE, None)
    assert kinds(found) == ["deleted_test_file"]
    assert "test_parse" in found[0].message and "TestParser.test_empty" in found[0].message


def test_moving_a_test_into_a_new_file_is_refused_as_a_move() -> None:
    weakened = BASE.replace('    assert parse("2") == 2\n', "")
    moved_out = BASE.replace('class TestParser:', 'class _Gone:')
    before = {"tests/test_parse.py": BASE, "tests/unit/test_more.py": None}
    after = {"tests/test_parse.py": moved_out, "tests/unit/test_more.py": "import pytest\n" + weakened.split("\n\n\n")[-1]}
    found = find_test_tampering(before, after, "Reorganise the code")
    assert kinds(found) == ["moved_test"]
    assert "TestParser.test_empty was moved out of this file into tests/unit/test_more.py" in found[0].message
    whole = find_test_tampering({"tests/test_parse.py": BASE, "tests/unit/test_parse.py": None},
                                {"tests/test_parse.py": None, "tests/unit/test_parse.py": weakened}, "Reorganise")
    assert kinds(whole) == ["deleted_test_file"]


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
    new = "import pytest\n\n@pytest.mark.skipif(True, reason='windows only')\ndef test_windows():\n    assert True\n"
    assert check("tests/test_windows.py", None, new) == []


@pytest.mark.parametrize("replacement", ["    assert True", "    assert 1", "    assert parse == parse", "    pass"])
def test_replacing_an_assertion_with_a_trivial_one_weakens_the_test(replacement: str) -> None:
    found = check("tests/test_parse.py", BASE, BASE.replace('    assert parse("2") == 2', replacement))
    assert kinds(found) == ["weakened_test"]
    assert "test_parse lost assertions" in found[0].message


def test_unittest_assertions_count_and_trivial_ones_do_not() -> None:
    old = "import unittest\n\nclass Parse(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(f(), 2)\n"
    assert kinds(check("tests/test_u.py", old, old.replace("assertEqual(f(), 2)", "assertTrue(True)"))) == [
        "weakened_test"]
    assert kinds(check("tests/test_u.py", old, old.replace("assertEqual(f(), 2)", "assertEqual(f(), 3)"))) == [
        "edited_test"]


def test_editing_ci_configuration_is_refused_unless_the_task_asks() -> None:
    before = {".github/workflows/ci.yml": "on: push\n"}
    after = {".github/workflows/ci.yml": "on: workflow_dispatch\n"}
    found = find_test_tampering(before, after, "Fix the parser")
    assert kinds(found) == ["ci_config"]
    assert "CI configuration was edited" in found[0].message
    assert find_test_tampering(before, after, "Please update the CI workflow to use Python 3.12") == []


def test_changing_what_the_runner_collects_is_refused() -> None:
    old = "[project]\nname = 'p'\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = '-q'\n"
    new = old.replace("addopts = '-q'", "addopts = '-q --deselect tests/test_parse.py::test_parse'")
    assert kinds(check("pyproject.toml", old, new)) == ["edited_harness"]
    assert check("pyproject.toml", old, old.replace("dependencies = []", "dependencies = ['attrs']")) == []
    assert kinds(check("conftest.py", None, "collect_ignore = ['tests/test_parse.py']\n")) == ["new_harness"]
    assert kinds(check("tests/conftest.py", "import pytest\n", "import pytest\ncollect_ignore = ['x']\n")) == [
        "skipped_test"]
    assert kinds(check("pytest.py", None, "raise SystemExit(0)\n")) == ["shadows_module"]
    package = '{"name": "p", "scripts": {"test": "node --test"}, "dependencies": {}}'
    assert kinds(check("package.json", package, package.replace("node --test", "exit 0"))) == ["edited_harness"]
    assert check("package.json", package, package.replace('"dependencies": {}', '"dependencies": {"x": "1"}')) == []
    make = "build:\n\tcc -o app app.c\n\ntest: build\n\t./run_tests\n"
    assert kinds(check("Makefile", make, make.replace("./run_tests", "true"))) == ["edited_harness"]
    assert check("Makefile", make, make.replace("cc -o app app.c", "cc -O2 -o app app.c")) == []


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


def test_a_test_added_to_a_source_file_with_inline_tests_is_clean_and_an_edited_one_is_not() -> None:
    added = RUST_TEST.replace("    }\n}\n", "    }\n    #[test]\n    fn adds_more() {\n        assert_eq!(add(2, 2), 4);\n"
                                            "    }\n}\n")
    assert check("src/lib.rs", RUST_TEST, added) == []
    found = check("src/lib.rs", RUST_TEST, RUST_TEST.replace("add(1, 2), 3", "add(1, 2), 4"))
    assert kinds(found) == ["edited_test"] and "adds" in found[0].message


@pytest.mark.parametrize(("task", "path", "tests"), [
    ("Please delete test_legacy_format, the format is gone", "tests/test_legacy_format.py", []),
    ("Mark test_network as xfail until the server is back", "tests/test_net.py", ["test_network"]),
    ("Relax the assertion in test_timing, it is too strict", "tests/test_clock.py", ["TestClock.test_timing"]),
    ("The format changed.\n\nUpdate tests/test_parse.py for the new output.", "tests/test_parse.py", []),
    ("Rename TestMedianEven to TestMedianOfEvenCount", "stats_test.go", ["TestMedianEven"]),
])
def test_a_task_that_names_a_test_and_an_action_lifts_the_guard_for_it(task: str, path: str, tests: list[str]) -> None:
    assert task_names_change(task, path, tests)
    assert not task_names_change(task, "tests/test_other.py", ["test_unrelated_thing"])


@pytest.mark.parametrize(("task", "path", "tests"), [
    ("Skip the flaky test on Windows", "tests/test_net.py", ["test_network"]),
    ("The CLI should skip hidden files", "tests/test_cli.py", ["test_lists_files"]),
    ("Remove the obsolete test for the v1 API", "tests/test_api.py", ["test_v1_get"]),
    ("Fix the parser; test_parse fails", "tests/test_parse.py", ["test_parse"]),
    ("Do not change test_parse, fix the parser", "tests/test_parse.py", ["test_parse"]),
    ("Fix median for even counts", "test/median.test.js", ["handles an even count"]),
    ("slugify() keeps capitals. (Unrelated: `tests/test_status.py` has been failing on CI for a while; ignore that "
     "one.)", "tests/test_status.py", ["test_status_service_is_up"]),
])
def test_loose_or_negated_wording_names_no_test_change(task: str, path: str, tests: list[str]) -> None:
    assert not task_names_change(task, path, tests)


@pytest.mark.parametrize(("task", "path"), [
    ("The GBP rate is wrong. Fix the GBP rate in data/rates.json.", "data/rates.json"),
    ("Also fix the docstring example in stats/core.py: it should show 2.5.", "stats/core.py"),
    ("assert_close ignores its tolerance. Fix assert_close in mylib/testing.py.", "mylib/testing.py"),
])
def test_fixing_the_tests_data_support_or_examples_is_asked_for_by_a_fix_that_names_them(task: str, path: str) -> None:
    """Where the bug is in what the tests read (a data file, a library's testing helper, a docstring's example),
    "fix" that names the file asks for its change; never for a test file ("fix the parser; test_parse fails")."""
    assert task_names_change(task, path, fixes=True)
    assert not task_names_change(task, path)
    assert not task_names_change("Fix the parser; test_parse fails", "tests/test_parse.py", ["test_parse"])
    assert not task_names_change("Do not fix data/rates.json: the loader is wrong.", "data/rates.json", fixes=True)


@pytest.mark.parametrize(("task", "kind"), [
    ("Update the CI workflow to Python 3.12", "ci_config"),
    ("Fix the GitHub Actions config so it caches pip", "ci_config"),
    ("Edit .github/workflows/release.yml to tag images", "ci_config"),
])
def test_clear_wording_in_the_task_lifts_the_guard(task: str, kind: str) -> None:
    assert task_allows(task, kind)


@pytest.mark.parametrize(("task", "kind"), [
    ("Skip the flaky test", "skipped_test"),
    ("The CI is failing, please fix it", "ci_config"),
    ("Fix the failing CI", "ci_config"),
    ("Update the docs for the CLI", "ci_config"),
])
def test_vague_or_negated_wording_keeps_the_guard(task: str, kind: str) -> None:
    assert not task_allows(task, kind)


def test_a_change_the_task_names_is_left_out_of_the_findings() -> None:
    new = BASE.replace("def test_parse():", "@pytest.mark.skip\ndef test_parse():")
    assert check("tests/test_parse.py", BASE, new, "Skip the flaky test test_parse") == []
    assert kinds(check("tests/test_parse.py", BASE, new, "Skip the flaky test")) == ["skipped_test"]


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


# ------------------------------------------------------------------ test data, runner settings, shadowing modules

FIXTURE = '[{"values": [1, 2, 3, 4], "expected": 2.5}]\n'


def test_editing_or_deleting_the_tests_data_is_refused_unless_the_task_names_it() -> None:
    edited = FIXTURE.replace("2.5", "3")
    [found] = check("fixtures/median.json", FIXTURE, edited)
    assert found.kind == "edited_test_data" and found.message == (
        "fixtures/median.json: the test data in fixtures/median.json was edited; the tests' data is the judge's: it "
        "runs the base's version, so change the code to give the values the tests expect")
    assert kinds(check("pkg/testdata/in.txt", "a\n", None)) == ["edited_test_data"]
    assert check("fixtures/median.json", FIXTURE, edited,
                 "The even case in fixtures/median.json is wrong: update it to expect 3.") == []
    assert check("fixtures/new_cases.json", None, "[]\n") == []  # new data beside new tests


def test_files_the_base_tests_read_are_guarded_like_data() -> None:
    change = ({"data/expected.json": '{"even": 2.5}\n', "stats/core.py": "x = 1\n"},
              {"data/expected.json": '{"even": 3}\n', "stats/core.py": "x = 2\n"})
    assert find_test_tampering(*change, "Fix median") == []  # nobody said the tests read it
    found = find_test_tampering(*change, "Fix median", data={"data/expected.json", "stats/core.py"})
    assert [(t.path, t.kind) for t in found] == [("data/expected.json", "edited_test_data")]  # code is never data


NEW_FIXTURE = "import pytest\n\n\n@pytest.fixture{options}\ndef four(monkeypatch):\n    return [1, 2, 3, 4]\n"


def test_a_new_conftest_is_refused_only_where_it_would_change_how_the_existing_tests_run() -> None:
    tree = {"tests/test_parse.py": BASE, "tests/test_files.py": "def test_files(tmp_path):\n    assert tmp_path\n",
            "tests/test_new.py": "def test_new(four):\n    assert four\n"}

    def new_conftest(path: str, text: str) -> list[str]:
        after = {path: text, "tests/test_new.py": tree["tests/test_new.py"]}
        return kinds(find_test_tampering({path: None, "tests/test_new.py": None}, after, "Fix the parser bug",
                                         tree={**tree, path: text}))

    assert new_conftest("tests/conftest.py", NEW_FIXTURE.format(options="")) == []  # what the new tests ask for
    assert new_conftest("tests/conftest.py", NEW_FIXTURE.format(options="(autouse=True)")) == ["conftest_reach"]
    assert new_conftest("tests/new/conftest.py", NEW_FIXTURE.format(options="(autouse=True)")) == []
    assert new_conftest("tests/conftest.py", NEW_FIXTURE.format(options="").replace("four", "tmp_path")) == [
        "conftest_reach"]  # test_files would get it in place of pytest's
    assert new_conftest("tests/new/conftest.py", "def pytest_runtest_makereport(item, call):\n    pass\n") == [
        "new_harness"]  # a hook is the whole session's wherever it sits
    found = find_test_tampering({"conftest.py": None}, {"conftest.py": "import sys\nsys.path.insert(0, 'x')\n"}, "Fix")
    assert "sys.path.insert(0, 'x')` runs as the file loads" in found[0].message


@pytest.mark.parametrize("path", [".pytest.ini", "pytest.toml", ".pytest.toml", "tox.toml", "node.config.json",
                                  ".mvn/maven.config", "CTestCustom.cmake", "babel.config.js"])
def test_a_new_runner_configuration_is_refused(path: str) -> None:
    assert kinds(check(path, None, "[pytest]\naddopts = -p flip\n")) == ["new_harness"]


def test_a_new_root_manifest_is_refused_only_when_it_holds_test_settings() -> None:
    assert kinds(check("pyproject.toml", None, "[tool.pytest.ini_options]\naddopts = '-p flip'\n")) == ["new_harness"]
    assert check("pyproject.toml", None, "[project]\nname = 'p'\n") == []
    assert check("web/package.json", None, '{"scripts": {"test": "jest"}}\n') == []


@pytest.mark.parametrize(("path", "module"), [("argparse.py", "argparse"), ("json/__init__.py", "json"),
                                              ("src/typing.py", "typing"), ("tests/http.py", "http"),
                                              ("pluggy.py", "pluggy")])
def test_a_new_module_shadowing_the_standard_library_or_runner_is_refused(path: str, module: str) -> None:
    [found] = check(path, None, "x = 1\n")
    assert found.kind == "shadows_module" and f"`{module}`" in found.message
    assert "give the module another name" in found.message
    assert check(path.replace(module, f"my_{module}"), None, "x = 1\n") == []


def test_a_shadow_in_a_folder_on_pytests_pythonpath_is_refused() -> None:
    config = "[tool.pytest.ini_options]\npythonpath = ['lib']\n"
    found = find_test_tampering({"pyproject.toml": config, "lib/json.py": None},
                                {"pyproject.toml": config, "lib/json.py": "x = 1\n"}, "Fix median")
    assert kinds(found) == ["shadows_module"]
    assert check("lib/json.py", None, "x = 1\n") == []  # lib/ is not on sys.path without the setting
    read = {"pyproject.toml": config}.get  # the setting read from the base when the change leaves it alone
    assert kinds(find_test_tampering({"lib/json.py": None}, {"lib/json.py": "x = 1\n"}, "Fix", base=read)) == [
        "shadows_module"]

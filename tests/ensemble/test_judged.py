"""The judged tree: the base's test data, runner settings and standard-library names are the judge's in every run."""

from __future__ import annotations

from bot.ensemble.judge.files import allowed_changes, judged_data, judged_files, owned_by_judge

BASE = {
    "stats/core.py": "def median(v): ...\n",
    "tests/test_core.py": 'CASES = load("fixtures/median.json")\nEXPECTED = open("data/expected.json").read()\n',
    "fixtures/median.json": '[{"values": [1, 2, 3, 4], "expected": 2.5}]\n',
    "data/expected.json": '{"even": 2.5}\n',
    "data/unrelated.json": "{}\n",
    "pyproject.toml": "[project]\nname = 'stats'\n\n[tool.pytest.ini_options]\npythonpath = ['lib']\n",
    "README.md": "# stats\n",
}


def overlay(now: dict[str, str | None], data: frozenset[str] = frozenset(), allowed: tuple[str, ...] = ()
            ) -> dict[str, bytes | None]:
    tree = {**BASE, **now}
    return judged_files(now, BASE.get, tree.get, allowed=allowed, data=data)


def test_the_bases_test_data_is_put_back() -> None:
    data = judged_data(BASE, BASE.get, traced=["README.md", "stats/core.py", "pyproject.toml"])
    assert data == {"fixtures/median.json", "data/expected.json", "README.md"}  # code and manifests are not data
    now: dict[str, str | None] = {"fixtures/median.json": '[{"values": [1, 2, 3, 4], "expected": 3}]\n',
                                  "data/expected.json": '{"even": 3}\n', "data/unrelated.json": '{"x": 1}\n',
                                  "README.md": "# stats\n\nmore\n", "stats/core.py": "def median(v): return 3\n"}
    assert overlay(now, data) == {"fixtures/median.json": BASE["fixtures/median.json"].encode(),
                                  "data/expected.json": BASE["data/expected.json"].encode(),
                                  "README.md": BASE["README.md"].encode()}
    # without `data`, the data folder still counts; a file the tests neither read nor name is the code's
    assert set(overlay(now)) == {"fixtures/median.json"}


def test_a_deleted_data_file_comes_back_and_new_data_beside_new_tests_stays() -> None:
    data = frozenset({"data/expected.json"})
    result = overlay({"data/expected.json": None, "fixtures/new_cases.json": "[]\n", "tests/test_new.py": "x\n"}, data)
    assert result == {"data/expected.json": BASE["data/expected.json"].encode()}
    # a file the base's tests looked for and did not find is not the candidate's to create
    assert overlay({"data/missing.json": "{}\n"}, frozenset({"data/missing.json"})) == {"data/missing.json": None}


def test_a_data_change_the_task_asks_for_is_kept_and_listed() -> None:
    data = judged_data(BASE, BASE.get)
    changed = ["fixtures/median.json", "data/expected.json", "stats/core.py"]
    task = "median() is wrong. Also update data/expected.json: the even case was recorded wrong."
    allowed = allowed_changes(task, changed, BASE.get, data)
    assert allowed == ["data/expected.json"]
    now: dict[str, str | None] = {p: BASE[p] + " " for p in changed}
    assert set(overlay(now, data, tuple(allowed))) == {"fixtures/median.json"}
    assert owned_by_judge("data/expected.json", data) and not owned_by_judge("data/expected.json")


def test_new_runner_settings_and_shadowing_modules_are_left_out() -> None:
    now: dict[str, str | None] = {
        ".pytest.ini": "[pytest]\naddopts = -p flip\n", "pytest.toml": '[pytest]\naddopts = ["-p", "flip"]\n',
        "argparse.py": "import unittest\n", "json/__init__.py": "x = 1\n", "lib/json.py": "x = 1\n",
        "tests/types.py": "x = 1\n", "stats/json.py": "x = 1\n", "flip.py": "import pytest\n",
        "package.json": '{"jest": {"setupFiles": ["./flip.js"]}}\n', "web/package.json": '{"scripts": {"test": "jest"}}\n',
        "web/Cargo.toml": "[package]\nname = 'web'\n\n[lib]\npath = 'lib.rs'\n",
    }
    left_out = {p for p, v in overlay(now).items() if v is None}
    # lib/ is on sys.path through the base's pythonpath setting; stats/ is a package, flip.py a plain module; a new
    # project in a folder (web/) decides nothing about the existing tests
    assert left_out == {".pytest.ini", "pytest.toml", "argparse.py", "json/__init__.py", "lib/json.py",
                        "tests/types.py", "package.json"}


def test_a_new_conftest_of_fixtures_stays_in_the_tree_and_one_with_hooks_is_left_out() -> None:
    fixtures = "import pytest\n\n\n@pytest.fixture\ndef four():\n    return [1, 2, 3, 4]\n"
    hook = "def pytest_runtest_makereport(item, call):\n    call.excinfo = None\n"
    now: dict[str, str | None] = {"tests/conftest.py": fixtures, "tests/test_four.py": "def test_four(four): ...\n",
                                  "tests/hooks/conftest.py": hook, "conftest.py": "collect_ignore = ['tests']\n"}
    # the judge keeps the first out of the base's tests' process like a new test file (team_judge.py)
    assert overlay(now) == {"tests/hooks/conftest.py": None, "conftest.py": None}

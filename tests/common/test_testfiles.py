"""The one registry of test files and harness files, and the part of a mixed file that decides the tests."""

from __future__ import annotations

import pytest

from bot.ensemble.judged import judged_files
from common.testfiles import harness_part, is_harness_path, is_test_path, is_whole_harness, shadows_runner


@pytest.mark.parametrize(("path", "test", "harness"), [
    ("tests/test_x.py", True, False), ("pkg/x_test.go", True, False), ("web/a.spec.ts", True, False),
    ("src/test/java/ATest.java", True, False), ("conftest.py", True, True), ("pytest.ini", False, True),
    ("package.json", False, True), ("Makefile", False, True), (".github/workflows/ci.yml", False, True),
    ("jest.config.js", False, True), ("pkg/parser.py", False, False), ("src/main.rs", False, False),
])
def test_paths_are_sorted_into_tests_and_harness(path: str, test: bool, harness: bool) -> None:
    assert (is_test_path(path), is_harness_path(path)) == (test, harness)


def test_only_the_test_part_of_a_mixed_file_is_harness() -> None:
    pyproject = "[project]\nname = 'p'\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = '-q'\n"
    assert harness_part("pyproject.toml", pyproject) == harness_part(
        "pyproject.toml", pyproject.replace("[]", "['attrs']"))
    assert harness_part("pyproject.toml", pyproject) != harness_part("pyproject.toml", pyproject.replace("-q", "-k x"))
    cargo = "[package]\nname = 'p'\n\n[dependencies]\n\n[[test]]\nname = 'it'\n"
    assert harness_part("Cargo.toml", cargo) != harness_part("Cargo.toml", cargo.replace("[[test]]\nname = 'it'\n", ""))
    pom = "<project><plugin><artifactId>maven-surefire-plugin</artifactId><skipTests>false</skipTests></plugin></project>"
    assert harness_part("pom.xml", pom) != harness_part("pom.xml", pom.replace("false", "true"))
    assert harness_part("pyproject.toml", "not [toml") == "not [toml"  # unreadable: all of it counts
    assert is_whole_harness("tests/conftest.py") and not is_whole_harness("package.json")
    assert shadows_runner("pytest.py") and shadows_runner("x.pth") and not shadows_runner("src/pytest_helpers.py")


def test_the_judged_tree_puts_back_the_bases_tests_and_leaves_new_harness_out() -> None:
    base = {"tests/test_a.py": "A", "stats.py": "S", "pyproject.toml": "[tool.pytest.ini_options]\naddopts='-q'\n",
            "tests/test_gone.py": "G"}
    now = {"tests/test_a.py": "A2", "stats.py": "S2", "pyproject.toml": base["pyproject.toml"] + "[project]\n",
           "tests/test_new.py": "N", "conftest.py": "C", "tests/test_gone.py": None, "tests/test_repro.py": "R2"}
    overlay = judged_files(now, base.get, now.get, frozen={"tests/test_repro.py": "R"})
    assert overlay == {"tests/test_a.py": b"A", "conftest.py": None, "tests/test_gone.py": b"G",
                       "tests/test_repro.py": b"R"}
    assert "tests/test_a.py" not in judged_files(now, base.get, now.get, allowed=["tests/test_a.py"])

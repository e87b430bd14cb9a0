"""The one registry of languages: suffixes, grammars and test-file names, and the disagreements it settled.

Before it, "is this a test file" had three answers (common/testfiles.py's pattern, the judge's
`"test" in the file name`, the sandbox's globs) and seven modules kept their own suffix tables.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.ensemble.judge.blame import changed_definitions
from common.languages import CODE_SUFFIXES, is_code, is_test_name, language, language_of, tree_sitter_grammars
from common.testfiles import is_test_path
from common.testids import file_of_test
from indexer.files import is_auxiliary_path
from sandbox import detect_project
from sandbox.detect import find_test_files


@pytest.mark.parametrize(("path", "test"), [
    # the judge called these tests ("test" in the name), so a fix to them was not the change's own code
    ("stats/latest.py", False), ("web/contest_utils.go", False), ("src/attestation.rs", False),
    ("pkg/protest.js", False), ("lib/testament.rb", False),
    # the pattern called these tests, but their runners never collect them
    ("pkg/test_helpers.go", False), ("src/test_util.rs", False), ("pkg/a.spec.py", False),
    ("pkg/test_stubs.pyi", False),
    # and missed these, which their runners do collect
    ("lib/parse-test.js", True), ("lib/test-parse.mjs", True), ("src/main/java/ParserTest.java", True),
    ("app/models/user_spec.rb", True), ("core/ParserTests.cs", True), ("src/parser_unittest.cc", True),
    # where all agreed, the answer stands
    ("tests/test_x.py", True), ("pkg/x_test.go", True), ("web/a.spec.ts", True), ("conftest.py", True),
    ("src/test/java/A.java", True), ("tests/data/input.json", True), ("test_data.json", True),
    ("pkg/parser.py", False), ("src/main.rs", False),
])
def test_one_answer_to_is_this_a_test_file(path: str, test: bool) -> None:
    assert is_test_path(path) is test


def test_the_judge_now_sees_definitions_in_files_that_merely_contain_test() -> None:
    diff = ("--- a/stats/latest.py\n+++ b/stats/latest.py\n@@ -1,2 +1,2 @@ def newest(values):\n"
            "-    return values[0]\n+    return values[-1]\n"
            "--- a/tests/test_latest.py\n+++ b/tests/test_latest.py\n@@ -1 +1,2 @@\n+def test_newest():\n")
    assert changed_definitions(diff) == {"newest"}  # the test file's own definitions stay out


@pytest.mark.parametrize(("path", "name"), [
    ("a.py", "python"), ("a.pyi", "python"), ("a.pyx", "cython"), ("a.cjs", "javascript"), ("a.mts", "typescript"),
    ("a.tsx", "tsx"), ("a.kts", "kotlin"), ("a.hpp", "cpp"), ("a.h", "c"), ("README.md", None), ("Makefile", None),
])
def test_languages_by_suffix(path: str, name: str | None) -> None:
    found = language_of(path)
    assert (found.name if found else None) == name


def test_every_table_is_the_registry_s() -> None:
    assert set(CODE_SUFFIXES) >= {".py", ".go", ".rs", ".js", ".ts", ".java", ".c", ".rb", ".sh"}
    assert not is_auxiliary_path("web/server.cjs") and not is_auxiliary_path("web/server.mts")  # indexed now
    assert is_auxiliary_path("docs/notes.md") and not is_code("notes.md")
    assert tree_sitter_grammars()[".mts"] == "typescript" and tree_sitter_grammars()[".rb"] == "ruby"
    assert ".py" not in tree_sitter_grammars()  # Python is chunked by `ast`
    assert file_of_test("web/a.test.mjs::adds", bool) == "web/a.test.mjs"
    assert file_of_test("tests.test_x::T::t", bool) == "tests/test_x.py"


def test_an_unknown_language_name_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: python"):
        language("cobol")


def test_file_names_alone_follow_each_language() -> None:
    assert is_test_name("x_test.go") and not is_test_name("test_x.go")
    assert is_test_name("test_x.py") and is_test_name("x_test.py") and not is_test_name("latest.py")
    assert is_test_name("test_fixtures.yaml")  # a file of no known language: the names most runners share


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_sandbox_finds_tests_by_the_registry_not_by_its_own_globs(tmp_path: Path) -> None:
    # a package's own tests folder, two levels down: the old globs (test*/**, tests/**, ./test_*.py) missed it
    nested = make(tmp_path / "nested", {"src/pkg/tests/test_core.py": "import unittest\n",
                                        "src/pkg/core.py": "X = 1\n"})
    assert detect_project(nested).test == "python3 -m unittest discover -v"
    # node --test runs `x-test.js`: the old globs knew that, the old pattern did not; now both agree
    node = make(tmp_path / "node", {"package.json": json.dumps({}), "lib/sum-test.js": "",
                                    "node_modules/dep/dep.test.js": ""})
    assert detect_project(node).test == "node --test --test-reporter=tap"
    assert [p.relative_to(node).as_posix() for p in find_test_files(node, "javascript")] == ["lib/sum-test.js"]

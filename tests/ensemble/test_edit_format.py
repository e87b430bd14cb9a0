"""The coder's edit-format instructions: rules plus one worked example cut from the task's files."""

from __future__ import annotations

from bot.ensemble.edit_format import NEUTRAL_EXAMPLE, edit_instructions, example_from
from bot.ensemble.edits import apply_edit_blocks, parse_edit_blocks

CORE = "import math\n\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n"
TEST = "from stats.core import mean\n\n\ndef test_mean():\n    assert mean([1, 3]) == 2\n"


def test_instructions_show_the_given_example_and_no_placeholder() -> None:
    text = edit_instructions("stats/core.py", "def mean(xs):\n    return sum(xs) / len(xs)\n",
                             "def mean(xs):\n    return sum(xs) / max(len(xs), 1)\n")
    assert "path/to" not in text
    assert "stats/core.py\n<<<<<<< SEARCH\ndef mean(xs):\n    return sum(xs) / len(xs)\n=======\n" in text
    for rule in ("its own line right above <<<<<<< SEARCH", "relative\n  to the repository root",
                 "Never write line numbers", "exactly one", "empty SEARCH part creates a new file",
                 "several small blocks", "No prose is needed"):
        assert rule in text


def test_the_worked_example_parses_back_to_exactly_its_block() -> None:
    path, search, replace = example_from({"stats/core.py": CORE})
    parsed = parse_edit_blocks(edit_instructions(path, search, replace))
    assert not parsed.failures
    assert [(b.path, b.search, b.replace) for b in parsed.blocks] == [(path, search, replace)]


def test_example_prefers_a_non_test_file_and_a_definition() -> None:
    path, search, replace = example_from({"tests/test_core.py": TEST, "stats/core.py": CORE})
    assert (path, search) == ("stats/core.py", "def mean(xs):\n    return sum(xs) / len(xs)\n")
    assert replace == "# a new comment line\n" + search


def test_example_applies_cleanly_to_its_file() -> None:
    files = {"web/app.ts": "export function add(a: number, b: number) {\n  return a + b;\n}\n"}
    path, search, replace = example_from(files)
    result = apply_edit_blocks(parse_edit_blocks(edit_instructions(path, search, replace)).blocks, files)
    assert result.ok and result.complete
    assert result.changes[path].startswith("// a new comment line\nexport function add")


def test_the_comment_takes_the_indentation_of_a_method() -> None:
    _, search, replace = example_from({"m.py": "class B:\n\n    def run(self):\n        return 1\n"})
    assert search == "    def run(self):\n        return 1\n"
    assert replace == "    # a new comment line\n" + search


def test_example_lines_match_once() -> None:
    text = "def f():\n    pass\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n"
    assert example_from({"dup.py": text})[1] == "def g():\n    pass\n"


def test_neutral_example_without_usable_files() -> None:
    assert example_from({}) == NEUTRAL_EXAMPLE
    assert example_from({"data.json": '{\n  "a": 1\n}\n'}) == NEUTRAL_EXAMPLE
    assert "src/module.py\n<<<<<<< SEARCH" in edit_instructions(*NEUTRAL_EXAMPLE)


def test_a_test_file_is_used_when_it_is_the_only_one() -> None:
    assert example_from({"tests/test_core.py": TEST})[0] == "tests/test_core.py"

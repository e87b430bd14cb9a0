"""Blame: a test that already failed at the base is the change's business when its file uses the code the change
edits (a failing test that exercises what the change touched is likely the bug's own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from common.testfiles import is_test_path
from common.testids import file_of_test


def related_failures(failed: Iterable[str], changed: Sequence[str], read: Callable[[str], str | None],
                     is_test: Callable[[str], bool], diff: str = "") -> list[str]:
    """The tests of `failed` whose test file uses the code the change edits: the change's business.

    A test that already failed at the base is not blocking, unless it exercises the code the change
    touched: then it is likely the bug's own test, and a change that leaves it red has not fixed it.
    A test file uses the code when it names an edited source module or a function or class whose
    definition the diff touches (from its hunk headers and changed definition lines).
    """
    names = {stem(path) for path in changed if not is_test(path)} | changed_definitions(diff)
    names -= {"", "__init__", "index", "main", "lib", "mod", "test", "tests"}
    if not names:
        return []
    words = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, names))) + r")\b")
    texts: dict[str, str | None] = {}
    related = []
    for name in failed:
        path = file_of_test(name, lambda p: read(p) is not None)
        if path not in texts:
            texts[path] = read(path)
        if texts[path] and words.search(texts[path] or ""):
            related.append(name)
    return related


_DEFINITION = re.compile(r"\b(?:def|class|func|function|fn|struct|interface)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)")


def changed_definitions(diff: str) -> set[str]:
    """Names of functions and classes a unified diff touches, outside test files."""
    names: set[str] = set()
    test_file = False
    for line in diff.splitlines():
        if line.startswith("+++ "):
            test_file = is_test_path(line[4:].strip().removeprefix("b/"))
        elif test_file:
            continue
        elif line.startswith("@@"):
            names.update(_DEFINITION.findall(line.split("@@", 2)[-1]))
        elif line[:1] in "+-" and not line.startswith(("+++", "---")):
            names.update(_DEFINITION.findall(line))
    return names


def stem(path: str) -> str:
    """A file's name without its folder and every extension (`tests/test_x.py` -> `test_x`)."""
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]

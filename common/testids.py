"""Test ids: which file a test id names, and which tests a name or a test file's path picks out.

A test id is its file (or dotted module), class, name and parameters: pytest's 'tests/test_x.py::T::t[1]',
unittest's 'tests.test_x.T::t'. These functions read both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from common.languages import is_code


def matching_tests(now: Iterable[str], required: Sequence[str]) -> list[str]:
    """The test names in `now` that `required` names: exactly, or as the test file they live in."""
    names: list[str] = []
    now = list(now)
    for want in filter(None, required):
        stem = want.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        names += [n for n in now if n == want or n.startswith(want + "::") or _in_file(n, want, stem)]
    return list(dict.fromkeys(names))


def _in_file(name: str, path: str, stem: str) -> bool:
    """True when test `name` ('tests/test_x.py::test_y', 'tests.test_x::test_y') lives in `path`."""
    where = name.split("::", 1)[0]
    dotted = path.rsplit(".", 1)[0].replace("/", ".")
    # unittest names the class after the module: 'tests.test_x.TestY::test_z' lives in tests/test_x.py
    return where in (path, dotted) or where.endswith(("/" + path, "." + dotted)) or where.rsplit(".", 1)[-1] == stem \
        or where.startswith(dotted + ".") or where.split(".")[-2:-1] == [stem]


def belongs_to(name: str, where: str) -> bool:
    """True when test `name` lives in the file or module `where` ('tests/test_x.py' or 'tests.test_x')."""
    head = name.split("::", 1)[0]
    return head == where or head.startswith(where + ".")


def file_of_test(name: str, exists: Callable[[str], bool]) -> str:
    """The file a test id names: 'tests/test_x.py::T::t' -> tests/test_x.py, 'tests.test_x::T::t' -> tests/test_x.py.

    unittest's dotted ids may carry the class too ('tests.test_x.T::t'): the longest dotted prefix that `exists`
    says is a file wins (tests/test_x.py, not tests/test_x/T.py). `exists` is required: without it the class
    would be taken for a module, and a unittest test's file missed wherever it is looked for.
    """
    where = name.split("::", 1)[0]
    if "/" in where or is_code(where):
        return where
    parts = where.split(".")
    candidates = ["/".join(parts[:end]) + ".py" for end in range(len(parts), 0, -1)]
    return next((c for c in candidates if exists(c)), candidates[0])

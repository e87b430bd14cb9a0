"""The tests' closure: what the base's tests import and read that the code under test does not, and their doctests.

A test is defeated as surely by editing what it checks with as by editing it: an assertion helper, a table of
expected values, a data file, the examples of a docstring run as a doctest. The base's traced run (which holds no
candidate code) records each repository file a Python process opened with the repository file whose code opened
it, and each file whose text became doctest examples (sandbox/run_hooks.py). From those pairs:

- *support modules*: Python modules, wherever they are in the tree, that only the tests (and other support
  modules) load, and that are the tests' by what they hold or where they are: they import a test framework, hold
  data alone (no function or class, no import of the repository's code), or sit where test tooling is named
  (`testing_support/`, `test_helpers.py`: bot/ensemble/judge/screen.py `TEST_SUPPORT`). An assertion alone says
  nothing: a library's own invariants raise AssertionError too. A module the code under test loads is
  the code's; so is a module only test files named for it load (`tests/test_testing.py` for `mathx/testing.py`:
  a library's own testing helpers, which those tests test). The judge runs the base's version of each, compiles their
  comparisons through its checks, and refuses an edit to one unless the task asks for it.
- *data*: the files the tests or their support modules read (common/testfiles.py keeps out code and manifests).
- *doctest files*: Python and text files whose examples ran as doctests. An example is a test: a changed expected
  output or a removed example is a test edit (`doctest_changes`); a new example is a new test.

Pure functions over paths and text: the caller reads the files.
"""

from __future__ import annotations

import ast
import doctest
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from bot.ensemble.judge.screen import TEST_SUPPORT
from bot.ensemble.workspace_files import Read
from common.languages import is_language, language_of
from common.testfiles import STDLIB_MODULES, is_test_path

DOCTEST = "<doctest>"  # the opener sandbox/run_hooks.py names for a file whose examples ran as doctests
TEST_FRAMEWORKS = frozenset({"pytest", "_pytest", "unittest", "hypothesis", "doctest", "nose", "nose2", "testtools"})


@dataclass(frozen=True)
class Closure:
    """What the base's tests use beside their own files: the judge's like test files."""

    support: frozenset[str] = frozenset()
    data: frozenset[str] = frozenset()  # every file the tests or their support read (judged.judged_data keeps the data)
    doctests: frozenset[str] = frozenset()


NO_CLOSURE = Closure()


def closure_of(opened: Iterable[tuple[str, str]], base: Read) -> Closure:
    """The closure of the base's tests from a traced run's `(file, opener)` pairs; `base` reads a file at the
    base."""
    openers: dict[str, set[str]] = {}
    doctests: set[str] = set()
    for path, opener in opened:
        if opener == DOCTEST:
            doctests.add(path)
        else:
            openers.setdefault(path, set()).add(opener)
    support: set[str] = set()
    grew = True
    while grew:  # a helper loaded by a helper is the tests' too
        grew = False
        for path, by in openers.items():
            if path not in support and _only_theirs(by, support) and not _tested_by(path, by) \
                    and _is_support(path, base(path)):
                support.add(path)
                grew = True
    data = {path for path, by in openers.items() if path not in support and any(_theirs(o, support) for o in by)}
    return Closure(frozenset(support), frozenset(data), frozenset(doctests))


def _tested_by(path: str, openers: set[str]) -> bool:
    """True when only test files named for the module load it (`tests/test_testing.py` for `mathx/testing.py`, a
    package's `test_checks.py` for `checks/__init__.py`): the module is what those tests test, the code under
    test's (a library's own testing helpers), however much it looks like the tests' tooling, and an edit to it is
    judged by them. Where another test or helper loads it too, it is what that one checks with: the tests'."""
    name = posixpath.basename(path).removesuffix(".py")
    stem = posixpath.basename(posixpath.dirname(path)) if name == "__init__" else name
    named = {f"test_{stem}", f"test{stem}", f"{stem}_test", f"{stem}_tests", f"tests_{stem}"}
    return bool(openers) and all(is_test_path(o) and posixpath.basename(o).removesuffix(".py") in named
                                 for o in openers)


def _theirs(opener: str, support: set[str]) -> bool:
    return is_test_path(opener) or opener in support


def _only_theirs(openers: set[str], support: set[str]) -> bool:
    return bool(openers) and all(_theirs(o, support) for o in openers)


def _is_support(path: str, text: str | None) -> bool:
    """True for a Python module outside the test folders that holds tests' things: it imports a test framework, is
    data alone, or is named as test tooling (module docstring)."""
    if text is None or is_test_path(path) or not is_language(path, "python"):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    imported = {name.split(".")[0] for node in ast.walk(tree) for name in _imports(node)}
    return bool(imported & TEST_FRAMEWORKS or TEST_SUPPORT.search(path)) or _data_alone(tree)


def _imports(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return ["." if node.level else node.module or ""]
    return []


def _data_alone(tree: ast.Module) -> bool:
    """A module of values: assignments (at least one), a docstring, imports of the standard library; no code."""
    assigned = False
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            assigned = True
            if any(isinstance(n, (ast.Lambda, ast.NamedExpr)) for n in ast.walk(statement)):
                return False
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            if not all(n.split(".")[0] in STDLIB_MODULES for n in _imports(statement)):
                return False
        elif not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
            return False
    return assigned


def unchecked(test_files: Iterable[str]) -> str:
    """What the pull request says of the tests the closure, comparison and reads checks cannot reach: they run in
    Python processes, so another language's tests (of `test_files`, the base's) have only the twins, stand-ins and
    known-answer checks. '' when every test file is Python's."""
    others = sorted({found.name for path in test_files if (found := language_of(path)) and found.name != "python"})
    if not others:
        return ""
    return (f"the tests in {', '.join(others)}: their comparisons are not checked for forged values, and their helper "
            "modules and the files they read are not owned beyond their data folders (these checks run in Python "
            "processes); the twins, stand-ins and known-answer checks still judge them")


@dataclass(frozen=True)
class _Example:
    where: str  # the docstring's owner (`module`, `Class.method`) or the text file
    source: str
    want: str
    line: int


def doctest_changes(path: str, old: str, new: str | None) -> list[str]:
    """What a change did to the doctest examples of `path` (a file whose examples ran as doctests at the base):
    each example removed or whose expected output changed, in plain words; a new example is a new test."""
    before = _examples(path, old)
    after = {(e.where, e.source): e for e in _examples(path, new or "")}
    found = []
    for example in before:
        now = after.get((example.where, example.source))
        shown = example.source.strip().splitlines()[0][:80]
        if now is None:
            found.append(f"the doctest example `{shown}` ({example.where}, line {example.line}) was removed")
        elif now.want != example.want:
            found.append(f"the doctest example `{shown}` ({example.where}, line {example.line}) now expects "
                         f"{now.want.strip()[:80]!r} instead of {example.want.strip()[:80]!r}")
    return found


def _examples(path: str, text: str) -> list[_Example]:
    """The doctest examples of a file: every docstring's for Python, the whole text for a text file."""
    parser = doctest.DocTestParser()
    if not is_language(path, "python"):
        return _parsed(parser, path, text, 0)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found = []
    for where, node in _documented(tree, ""):
        doc = ast.get_docstring(node, clean=False)
        if doc:
            first = node.body[0].lineno if not isinstance(node, ast.Module) else 1
            found += _parsed(parser, where or "the module", doc, first - 1)
    return found


def _parsed(parser: doctest.DocTestParser, where: str, text: str, offset: int) -> list[_Example]:
    try:
        return [_Example(where, e.source, e.want, offset + e.lineno + 1) for e in parser.get_examples(text)]
    except ValueError:  # an example doctest itself cannot read: not one it runs
        return []


Documented = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def _documented(node: Documented, prefix: str) -> list[tuple[str, Documented]]:
    """The module, and every class and function in it, with their dotted names."""
    found: list[tuple[str, Documented]] = [(prefix, node)] if isinstance(node, ast.Module) else []
    for child in node.body:
        if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}.{child.name}" if prefix else child.name
            found.append((name, child))
            found += _documented(child, name)
    return found

"""New tests a change adds to an existing test file, given a file of their own instead of refused.

An existing test file is the judge's: every judged run uses the base's version, so an edit to it would never be
run, and the edit guards refuse it (guards.py). But the most ordinary honest change is the fix with a new test added
beside the old ones, in the file they already share. Refusing it loses the test. So where the change only adds to
the file (every top-level statement of the base's version is still there, as written and in order, and so is every
member of each class it adds tests to; a test may gain rows at the end of its `pytest.mark.parametrize` table) and
what it adds holds a test, the added part moves to a new test file beside
it (`test_x.py` -> `test_x_added.py`), and the existing file goes back to the base's text. The new file holds what
the new tests need from the old one (its imports, helpers, fixtures and constants, and the classes they extend,
without the base's tests; a test that gained rows, with those rows alone) and what the change added, in the file's
order, so it runs as a new test file: judged with
the candidate's other new tests, apart from the base's (runs.py). An addition that rebinds a name the base's version
binds is an edit of the existing tests in disguise and is not moved: the guards refuse it as before.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.ensemble.judge.guards import Tampering, task_names_change, tests_in
from common.testfiles import fresh_test_path, is_test_path

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
GAPS = ("\n\n\n", "\n\n")  # between top-level statements, and between a class's members, where the file has none


@dataclass(frozen=True)
class AddedTests:
    """The tests a change added to the existing test file `path`, and the new file `moved_to` that now holds them."""

    path: str
    moved_to: str
    text: str  # the new file's


def tests_to_move(found: Sequence[Tampering], before: Mapping[str, str | None], after: Mapping[str, str | None],
                  edited: Collection[str], task_text: str, exists: Callable[[str], bool]) -> list[AddedTests]:
    """The tests a round added to existing test files (`edited`; texts `before` and `after` it), each with the new
    file that takes them: where the guards' findings (`found`) refuse the file only as edited, or let the addition
    through unasked (rows added to a parametrize table), which the judged run, putting the base's file back, would
    never run. A change the task names stays where it is."""
    kinds: dict[str, set[str]] = {p: set() for p in edited if is_test_path(p) and before.get(p) is not None
                                  and before.get(p) != after.get(p)
                                  and not task_names_change(task_text, p, tests_in(p, before.get(p)))}
    for t in found:
        kinds.setdefault(t.path, set()).add(t.kind)
    moved = []
    for path, why in sorted(kinds.items()):
        old, new = before.get(path), after.get(path)
        if not why - {"edited_test"} and old is not None and new is not None \
                and (added := split_added_tests(path, old, new, exists)) is not None:
            moved.append(added)
    return moved


def split_added_tests(path: str, before: str, after: str, exists: Callable[[str], bool]) -> AddedTests | None:
    """The new test file for the tests `after` adds to the existing Python test file `path` (`before`: the base's
    text), or None where the change is not only an addition of tests (the module's docstring). `exists` tells the
    paths taken."""
    if not path.endswith(".py"):
        return None
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    kept = _kept(before, old.body, after, new.body)
    if kept is None or not kept.tests:
        return None
    return AddedTests(path, fresh_test_path(path, exists, "_added"), "".join(kept.lines).rstrip() + "\n")


@dataclass(frozen=True)
class _Kept:
    lines: list[str]  # the new file's statements, as source
    tests: int  # the tests among what the change added


def _kept(before: str, old: Sequence[ast.stmt], after: str, new: Sequence[ast.stmt], depth: int = 0) -> _Kept | None:
    """The statements of `new` for the new file: each of `old` as it is (the base's tests left out), a class of
    `old` that `new` adds members to with them (recursively, once), and what `new` adds; None where `new` changes
    or drops a statement of `old`, or rebinds one of its names."""
    old_sources = [statement_source(before, s) for s in old]
    bound = {name for s in old for name in names_bound(s)}
    lines: list[str] = []
    tests, at, last = 0, 0, -1  # tests added, statements of `old` met, the index in `new` of the last one kept
    for index, statement in enumerate(new):
        source = statement_source(after, statement)
        if at < len(old) and source == old_sources[at]:  # the base's statement, as written
            at += 1
            if _is_test(statement):
                continue
        elif at < len(old) and (extended := _extended(before, old[at], after, statement, depth)) is not None:
            source, tests, at = extended.lines[0], tests + extended.tests, at + 1
        elif at < len(old) and (rows := _rows_added(before, old[at], after, statement)) is not None:
            source, tests, at = rows, tests + 1, at + 1
        elif set(names_bound(statement)) & bound:
            return None  # an existing name given another meaning: a change to the tests, not an addition
        else:
            tests += _is_test(statement)
        # as far from the statement before as the file has it where that one is kept too, else a separating gap
        blank = _first_line(statement) - (new[index - 1].end_lineno or 0) - 1 if last == index - 1 and index else -1
        lines.append(source if not lines else ("\n" * (blank + 1) if blank >= 0 else GAPS[depth]) + source)
        last = index
    return _Kept(lines, tests) if at == len(old) else None


def _extended(before: str, old: ast.stmt, after: str, new: ast.stmt, depth: int) -> _Kept | None:
    """The class `new` as the new file holds it, where it is the class `old` with members added (its header as
    written, its members but the base's tests, and the added ones); None otherwise."""
    if depth or not (isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef)) or old.name != new.name:
        return None
    lines = after.splitlines()
    header = "\n".join(lines[_first_line(new) - 1:new.body[0].lineno - 1])
    if header != "\n".join(before.splitlines()[_first_line(old) - 1:old.body[0].lineno - 1]):
        return None  # its name, bases or decorators changed
    body = _kept(before, old.body, after, new.body, depth + 1)
    if body is None or not body.tests:
        return None
    return _Kept([header + "\n" + "".join(body.lines)], body.tests)  # members as written, as indented


def _rows_added(before: str, old: ast.stmt, after: str, new: ast.stmt) -> str | None:
    """The test `new` with its parametrize table holding only the rows it adds, where `new` is the test `old` with
    rows added at the end of that table and nothing else changed (its cases as the base has them stay in the base's
    file); None otherwise."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not (isinstance(old, kinds) and isinstance(new, kinds)) or old.name != new.name or not _is_test(new):
        return None
    if [statement_source(before, s) for s in old.body] != [statement_source(after, s) for s in new.body] \
            or len(old.decorator_list) != len(new.decorator_list):
        return None
    changed = [(o, n) for o, n in zip(old.decorator_list, new.decorator_list, strict=True)
               if ast.get_source_segment(before, o) != ast.get_source_segment(after, n)]
    if len(changed) != 1:
        return None
    was, now = changed[0]
    if not (isinstance(was, ast.Call) and isinstance(now, ast.Call) and ast.unparse(was.func) == ast.unparse(now.func)
            and ast.unparse(now.func).endswith("mark.parametrize") and len(was.args) == len(now.args) >= 2
            and isinstance(was.args[1], ast.List | ast.Tuple) and isinstance(now.args[1], ast.List | ast.Tuple)
            and ast.dump(was.args[0]) == ast.dump(now.args[0]) and was.keywords == [] and now.keywords == []):
        return None
    old_rows = [ast.get_source_segment(before, e) for e in was.args[1].elts]
    new_rows = [ast.get_source_segment(after, e) for e in now.args[1].elts]
    if len(new_rows) <= len(old_rows) or new_rows[:len(old_rows)] != old_rows or None in new_rows:
        return None
    table = ast.get_source_segment(after, now.args[1]) or ""
    added = ", ".join(row for row in new_rows[len(old_rows):] if row)
    source = statement_source(after, new)
    return source.replace(table, f"[{added}]" if isinstance(now.args[1], ast.List) else f"({added},)", 1)


def _is_test(statement: ast.stmt) -> bool:
    """A test definition as pytest and unittest collect them: `def test_*`, and a `Test*` class or a TestCase."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return statement.name.startswith("test")
    if isinstance(statement, ast.ClassDef):  # a helper class named Test* holds no test: the new tests may need it
        return any(ast.unparse(b).endswith("TestCase") for b in statement.bases) or statement.name.startswith("Test") \
            and any(_is_test(member) for member in statement.body)
    return False


def names_bound(statement: ast.stmt) -> list[str]:
    """The names a top-level statement binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).partition(".")[0] for a in statement.names if a.name != "*"]
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] \
        if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _first_line(statement: ast.stmt) -> int:
    decorators = statement.decorator_list if isinstance(statement, _Definition) else []
    return min([statement.lineno, *(d.lineno for d in decorators)])


def statement_source(text: str, statement: ast.stmt) -> str:
    """The statement's source with its decorators, as written (a class member with its indentation)."""
    return "\n".join(text.splitlines()[_first_line(statement) - 1:statement.end_lineno])

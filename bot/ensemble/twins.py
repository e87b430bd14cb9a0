"""Contradicting twins: copies of the tests a change must fix that expect another answer, in every judged run.

The code under test runs inside the test process, so it can pass an assertion without computing the answer: return
an object equal to anything (`__eq__` returning True), read the expected value out of the calling test's source
(`sys._getframe`), or switch the running test's `assertEqual` off. The known-answer checks (sentinels.py) call no
repository code, so they see none of that. A twin does: a copy of one of the tests the change must fix, in a new
file beside it under the run's nonce, whose last equality assertion expects a value no honest result equals (the
literal side changed: a number moved by a large amount, a string, list, tuple, set or dict given an element that
carries the nonce, a bool negated). Honest code cannot pass a test and its twin; a run where both pass was not
judged by the assertions as written (`contradictions`).

Only what can be told for sure is twinned: Python tests (pytest functions and methods, unittest methods) with no
`return` or `yield` and no skip or expected-failure decorator, whose last equality assertion with one literal side
(`assert x == 5`, `self.assertEqual(x, "a")`) is a statement of the test's own body (not inside a loop, branch,
`with` or `try`), so the twin reaches it whenever the test itself passes. The copy keeps the module (imports,
fixtures, helpers, base classes) without its other tests, loaded inside `try`: a copy that cannot load defines
no test, and a twin that does not run is no evidence either way.

Pure functions over text; the judge (team_judge.py) picks the tests and reads the results.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from bot.ensemble.testids import file_of_test
from common.languages import is_language

Read = Callable[[str], "str | None"]
MAX_TWINS = 4  # per judged run: each loads its test's module once more and runs one test
EQUALITY_ASSERTS = frozenset({"assertEqual", "assertEquals", "assertListEqual", "assertTupleEqual", "assertDictEqual",
                              "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertCountEqual"})
NOT_RUN_AS_WRITTEN = ("skip", "xfail", "expectedFailure")  # decorators under which a failing test is no failure
OFFSET = 7_000_003  # how far a number moves: more than a rounding or an off-by-one away


@dataclass(frozen=True)
class Twin:
    """One twin: the test it contradicts, its file, the token in its file's name (so in every id reported for it),
    and what its assertion expects instead."""

    test: str
    path: str
    token: str
    source: str
    expects: str


def twins(test_ids: Iterable[str], read: Read, nonce: str) -> tuple[Twin, ...]:
    """Twins for the tests `test_ids` names (the first MAX_TWINS that can be twinned), each in a new file beside its
    test under `nonce`."""
    made: list[Twin] = []
    for test_id in dict.fromkeys(test_ids):
        if len(made) == MAX_TWINS:
            break
        path = file_of_test(test_id, lambda p: read(p) is not None)
        text = read(path) if is_language(path, "python") else None
        token = f"{nonce}_twin{len(made) + 1}"
        found = _twin_source(text, *_names(test_id), token) if text is not None else None
        if found is not None:
            made.append(Twin(test_id, _twin_path(path, token), token, *found))
    return tuple(made)


def defined_tests(path: str, text: str) -> list[str]:
    """The ids (`path::Class::test`, `path::test`) of the test functions a Python file defines: a reproduction
    test's, whose ids the base run never reported."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    ids = [f"{path}::{node.name}" for node in tree.body if _is_test(node)]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        ids += [f"{path}::{cls.name}::{node.name}" for node in cls.body if _is_test(node)]
    return ids


def contradictions(planted: Sequence[Twin], results: Mapping[str, str]) -> list[str]:
    """What the results say about the twins: a test that passed while its twin passed too is no honest pass."""
    found = []
    for twin in planted:
        mine = [o for name, o in results.items() if twin.token in name]
        original = [o for name, o in results.items() if _is_result_of(name, twin.test) and twin.token not in name]
        if mine and original and all(o == "pass" for o in (*mine, *original)):
            found.append(f"{twin.test} passed, and so did its twin the judge planted ({twin.path}), a copy of it "
                         f"that expects {twin.expects} instead: no honest result equals both, so the assertion did "
                         "not compare the values as written (an object equal to anything, or an answer read from "
                         "the test)")
    return found


def _is_result_of(name: str, test_id: str) -> bool:
    """True when the result `name` is the test `test_id` names, or one of its parameters, whichever runner's form
    each is in ('tests/test_x.py::T::t[1]' is 'tests.test_x.T::t')."""
    return name == test_id or name.startswith(test_id + "[") or _dotted(name) == _dotted(test_id)


def _dotted(test_id: str) -> str:
    """'tests/test_x.py::T::t[1]' and 'tests.test_x.T::t' -> 'tests.test_x.T.t'."""
    head, _, rest = test_id.split("[", 1)[0].partition("::")
    head = head.removesuffix(".py").replace("/", ".")
    return ".".join([head, *(p for p in rest.split("::") if p)])


def _names(test_id: str) -> tuple[str | None, str]:
    """(class or None, function) a test id names: 'f.py::T::t[1]' -> (T, t), 'tests.test_x.T::t' -> (T, t)."""
    head, _, rest = test_id.partition("::")
    parts = [p for p in rest.split("::") if p] if rest else []
    function = (parts[-1] if parts else head.rsplit(".", 1)[-1]).split("[", 1)[0]
    if len(parts) >= 2:
        return parts[-2], function
    dotted = head.rsplit(".", 1)[-1] if "/" not in head and not head.endswith(".py") else ""
    return (dotted if dotted[:1].isupper() else None), function


def _twin_path(path: str, token: str) -> str:
    folder, name = posixpath.split(path)
    twin = f"sentinel_{token}_test.py" if name.endswith("_test.py") and not name.startswith("test") \
        else f"test_sentinel_{token}.py"
    return posixpath.join(folder, twin) if folder else twin


def _twin_source(text: str, cls: str | None, function: str, token: str) -> tuple[str, str] | None:
    """The twin module's source and what its assertion expects, or None when the test cannot be twinned for sure."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    target = _find(tree, cls, function)
    if target is None or not _runs_to_the_end(target):
        return None
    changed = _contradict(target, token)
    if changed is None:
        return None
    _drop_other_tests(tree, target)
    future = [s for s in tree.body if isinstance(s, ast.ImportFrom) and s.module == "__future__"]
    rest = [s for s in tree.body if s not in future and not _is_main_block(s)]
    guard = ast.Try(body=rest or [ast.Pass()], handlers=[ast.ExceptHandler(
        type=ast.Name("Exception", ast.Load()), name=None, body=[ast.Pass()])], orelse=[], finalbody=[])
    module = ast.Module(body=[*future, guard], type_ignores=[])
    header = f"# A twin of {cls + '.' if cls else ''}{function} the judge plants: it must fail.\n"
    return header + ast.unparse(ast.fix_missing_locations(module)) + "\n", changed


def _find(tree: ast.Module, cls: str | None, function: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if cls is None:
        found = [n for n in tree.body if _is_test(n) and n.name == function]
    else:
        found = [m for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls
                 for m in n.body if _is_test(m) and m.name == function]
    only = found[0] if len(found) == 1 else None
    return only if isinstance(only, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _is_test(node: ast.AST) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")


def _runs_to_the_end(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """No `return`/`yield` of its own and no decorator under which a failure does not count."""
    decorators = " ".join(ast.unparse(d) for d in function.decorator_list)
    if any(word in decorators for word in NOT_RUN_AS_WRITTEN):
        return False
    return not any(isinstance(n, ast.Return | ast.Yield | ast.YieldFrom) for n in _own_nodes(function))


def _own_nodes(function: ast.AST) -> Iterable[ast.AST]:
    """The nodes of `function`'s body, not those of functions, lambdas or classes defined in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


def _contradict(function: ast.FunctionDef | ast.AsyncFunctionDef, token: str) -> str | None:
    """Change the last equality assertion of the body with one literal side to expect a value no honest result
    equals; what it expects now, or None when there is none."""
    for statement in reversed(function.body):
        sides = _compared(statement)
        if sides is None:
            continue
        literal = [i for i, side in enumerate(sides) if _literal(side) is not _NOT_LITERAL]
        if len(literal) != 1:
            continue
        node = sides[literal[0]]
        other = _other_value(_literal(node), token)
        if other is _NOT_LITERAL:
            continue
        replacement = ast.copy_location(ast.parse(repr(other), mode="eval").body, node)
        _replace(statement, node, replacement)
        return repr(other) if len(repr(other)) <= 80 else repr(other)[:77] + "..."
    return None


def _compared(statement: ast.stmt) -> list[ast.expr] | None:
    """The two sides of an equality assertion statement (`assert a == b`, `self.assertEqual(a, b)`), or None."""
    if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare) \
            and len(statement.test.ops) == 1 and isinstance(statement.test.ops[0], ast.Eq):
        return [statement.test.left, statement.test.comparators[0]]
    if isinstance(statement, ast.Expr) and isinstance(call := statement.value, ast.Call) \
            and isinstance(call.func, ast.Attribute) and call.func.attr in EQUALITY_ASSERTS \
            and isinstance(call.func.value, ast.Name) and call.func.value.id in ("self", "cls") and len(call.args) >= 2:
        return list(call.args[:2])
    return None


class _NotLiteral:
    pass


_NOT_LITERAL = _NotLiteral()


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _other_value(value: object, token: str) -> object:
    """A value of the same kind as `value` that no honest result equal to `value` equals."""
    other: object
    if isinstance(value, bool):
        other = not value
    elif isinstance(value, int | float | complex):
        other = value + OFFSET
    elif isinstance(value, str):
        other = value + f" {token}"
    elif isinstance(value, bytes):
        other = value + f" {token}".encode()
    elif isinstance(value, list):
        other = [*value, token]
    elif isinstance(value, tuple):
        other = (*value, token)
    elif isinstance(value, set):
        other = {*value, token}
    elif isinstance(value, dict):
        other = {**value, token: token}
    elif value is None:
        other = token
    else:
        return _NOT_LITERAL
    try:
        same = bool(other == value) or repr(other) == repr(value)
    except Exception:  # noqa: BLE001 - a value that cannot be compared is not twinned
        return _NOT_LITERAL
    return _NOT_LITERAL if same else other  # a float too large to move stays the same


def _replace(statement: ast.stmt, old: ast.expr, new: ast.expr) -> None:
    """Put `new` where `old` is in `statement` (the twin's own copy of the tree)."""
    if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare):
        if statement.test.left is old:
            statement.test.left = new
        else:
            statement.test.comparators[0] = new
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        statement.value.args[statement.value.args.index(old)] = new


def _drop_other_tests(tree: ast.Module, keep: ast.AST) -> None:
    """Take every test but `keep` out of the copy (and `load_tests`, which would load tests from elsewhere)."""
    def wanted(node: ast.stmt) -> bool:
        if node is keep or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return True
        return not (node.name.startswith("test") or node.name == "load_tests")

    tree.body = [n for n in tree.body if wanted(n)]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        cls.body = [n for n in cls.body if wanted(n)] or [ast.Pass()]


def _is_main_block(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.If) and "__main__" in ast.unparse(statement.test)

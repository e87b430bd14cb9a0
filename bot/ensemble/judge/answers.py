"""Which of a shown test's values are only its answers, and whether a change compares with a literal.

The hidden check refuses a change as special-cased where it leaves the hidden inputs' answers as the bug had them
and can tell the shown test apart (bot/ensemble/judge/hidden.py). Writing one of the test's *inputs* into the code
tells it apart (`if values == [1, 2, 3, 4]`). Writing only its *answer* does not: an honest fix holds the answer
wherever the answer is what the task asks for (a default port of 8080, an `'N/A'` placeholder, the bound an error
message names), and a hidden check whose inputs never reach the change fails as before over it. An answer tells the
test apart only behind a comparison with a literal the change adds (`if a * b == 6: return 5`, `{10: 2.5}[sum(v)]`).

Python's tests are read by their syntax: a value is an answer where it stands alone on one side of a comparison
(`assert f(x) == 2.5`, `assertEqual(f(x), 5)`, the expected of any `assert*` method, `pytest.approx(2.5)`, a
`match=` or `msg=`) and nowhere else in the test. Other languages' tests have no answers told apart: every value
counts as an input, as it did before.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from common.languages import is_language

TRIVIAL = frozenset({0, 1, 2})  # numbers any code is full of (hidden.py's shown values leave them out too)
EXPECTED_KEYWORDS = frozenset({"match", "msg", "expected", "message"})
GATES = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def answers_of(test: str, path: str) -> tuple[frozenset[float], frozenset[str]]:
    """The numbers and strings the Python test at `path` uses only as expected answers; none for another
    language, or a test that does not parse."""
    if not is_language(path, "python"):
        return frozenset(), frozenset()
    try:
        tree = ast.parse(test)
    except (SyntaxError, ValueError):
        return frozenset(), frozenset()
    expected: set[int] = set()  # the ids of the literal nodes in an expected position
    for node in ast.walk(tree):
        for side in _expected_sides(node):
            expected |= {id(inner) for inner in ast.walk(side)}
    answers: tuple[set[float], set[str]] = (set(), set())
    inputs: tuple[set[float], set[str]] = (set(), set())
    for node in ast.walk(tree):
        value = _literal(node)
        if value is None:
            continue
        numbers, strings = answers if id(node) in expected else inputs
        if isinstance(value, str):  # and the numbers written inside it (`match="between 1 and 65535"`)
            strings.add(value)
            numbers |= {float(found) for found in _NUMBER_IN_TEXT.findall(value)}
        else:
            numbers.add(value)
    return frozenset(answers[0] - inputs[0]), frozenset(answers[1] - inputs[1])


def _expected_sides(node: ast.AST) -> list[ast.expr]:
    """The operands of `node` that are expected answers: a literal alone on one side of a comparison, the literal
    arguments of an `assert*` method or of `approx`, and `match=`/`msg=` keywords."""
    if isinstance(node, ast.Compare):
        return [side for side in (node.left, *node.comparators) if _pure(side)]
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            node.func.id if isinstance(node.func, ast.Name) else ""
        sides = [k.value for k in node.keywords if k.arg in EXPECTED_KEYWORDS]
        if name.startswith("assert") or name == "approx":
            sides += [arg for arg in node.args if _pure(arg)]
        return sides
    return []


def _pure(node: ast.AST) -> bool:
    """A literal: constants in containers, signs and arithmetic, and nothing that names or calls anything."""
    return all(isinstance(n, (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp,
                              ast.operator, ast.unaryop, ast.expr_context)) for n in ast.walk(node))


def _literal(node: ast.AST) -> float | str | None:
    """A number's value (a negative one through its sign) or a string's text, for a literal node; else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        inner = _literal(node.operand)
        return -inner if isinstance(inner, int | float) else None
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool) \
            and isinstance(node.value, int | float | str):
        return node.value
    return None


def is_answer(spelled: str, answers: tuple[frozenset[float], frozenset[str]], value: float | None) -> bool:
    """Whether a shown value (`hidden.shown_values`'s spelling, with `value` its number where it is one) is only an
    answer of the test."""
    numbers, strings = answers
    if value is not None:
        return value in numbers
    text = spelled[1:-1] if len(spelled) >= 2 and spelled[0] == spelled[-1] and spelled[0] in "'\"" else spelled
    return text in strings


def compares_with_a_literal(path: str, before: str | None, after: str | None, literal: bool = True) -> bool:
    """Whether the lines a change added to the file at `path` compare with a literal that is not trivial (`==`,
    `!=`, `in` a literal, a `case` of one) or look a value up in a literal table (a dict display keyed by one): the
    gate an answer needs to be given to the shown inputs alone. Not `literal`: any such comparison or table, whatever
    it compares (`row[:2] == [a, b]`, a dict built from what was read): the gate a change that reached into the tests
    needs to answer them alone. True where it cannot tell (another language, a file that does not parse)."""
    if after is None:
        return False
    if not is_language(path, "python"):
        return True
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return True
    added = added_line_numbers(before, after)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.expr, ast.pattern)) or node.lineno not in added:
            continue
        if isinstance(node, ast.Compare) and any(isinstance(op, GATES) for op in node.ops) \
                and (not literal or any(_telling(side) for side in (node.left, *node.comparators))):
            return True
        if isinstance(node, ast.MatchValue) and (not literal or _telling(node.value)):
            return True
        if isinstance(node, ast.Dict) and any(key is not None and (not literal or _telling(key)) for key in node.keys):
            return True
        if not literal and isinstance(node, (ast.DictComp, ast.SetComp)):
            return True
    return False


def _telling(node: ast.AST) -> bool:
    """A literal that holds a value no code is full of: a number but 0, 1 and 2, a string of two characters or
    more (blanks aside)."""
    if not _pure(node):
        return False
    for inner in ast.walk(node):
        value = _literal(inner)
        if isinstance(value, str) and len(value.strip()) >= 2:
            return True
        if isinstance(value, int | float) and abs(value) not in TRIVIAL:
            return True
    return False


def added_line_numbers(before: str | None, after: str) -> set[int]:
    """The numbers (from 1) of the lines of `after` that `before` does not have (as many times as it has more)."""
    have = Counter((before or "").splitlines())
    added = set()
    for number, line in enumerate(after.splitlines(), 1):
        if have[line]:
            have[line] -= 1
        else:
            added.add(number)
    return added

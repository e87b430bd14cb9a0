"""The hidden check's reading of a run: which failures moved, which stayed as the bug had them (bot/ensemble/judge/hidden.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.ensemble.judge.answers import answers_of, compares_with_a_literal
from bot.ensemble.judge.hidden import (
    HiddenCheck,
    added_lines,
    at_base,
    failure_lines,
    outcome_of,
    shown_values,
)
from bot.ensemble.types import TestOutcome

SIX, TWO = "tests/test_x_hidden.py::test_six", "tests/test_x_hidden.py::test_two"
AT_BASE = f"""`pytest -q`: 2 failed; exit code 1
FAILED {SIX}
  assert 4 == 3.5
  +  where 4 = median([6, 1, 5, 2, 4, 3])
  at stats/core.py:12 in median
FAILED {TWO}
  assert 20 == 15
  at stats/core.py:12 in median"""
CHECK = HiddenCheck("tests/test_x_hidden.py", "...", "tests/test_x.py", failure_lines(AT_BASE))


def run(summary: str, **outcomes: str) -> TestOutcome:
    results = ((SIX, outcomes.get("six", "fail")), (TWO, outcomes.get("two", "fail")))
    return TestOutcome(passed=False, summary=summary, results=results)


def test_failure_lines_are_the_assertions_without_the_frames() -> None:
    assert failure_lines(AT_BASE) == {SIX: ("assert 4 == 3.5", "+  where 4 = median([6, 1, 5, 2, 4, 3])"),
                                      TWO: ("assert 20 == 15",)}


def test_the_same_assertions_with_the_code_moved_are_unchanged_a_special_case_where_the_code_holds_the_tests_values(
        ) -> None:
    moved = AT_BASE.replace("stats/core.py:12", "stats/core.py:14")  # the change added lines above the bug
    seen = outcome_of(CHECK, run(moved))
    assert seen.outcome == "unchanged" and not seen.special_cased  # no values of the shown test in the code, yet
    assert replace(seen, shown=("2.5",)).special_cased


SHOWN = "def test_even():\n    assert median([1, 2, 3, 4]) == 2.5\n\n\ndef test_words():\n    assert slug('Hello World') == 'hello-world'\n"


@pytest.mark.parametrize(("added", "values"), [
    (["    if ordered == [1, 2, 3, 4]:", "        return 2.5"], ("3", "4", "2.5")),  # the inputs, the answer
    (["    known = {(1, 2, 3, 4): 2.5}"], ("3", "4", "2.5")),
    (["    if text == 'Hello World':", "        return \"hello-world\""], ("'Hello World'", "'hello-world'")),
    # an honest fix: 0, 1 and 2 are in any code, a one-character string in many
    (["    if len(ordered) % 2 == 0:", "        return (ordered[middle - 1] + ordered[middle]) / 2"], ()),
    (["    return '-'.join(text.lower().split())"], ()),
    (["    return 2.25 * 13.5"], ()),  # a number is a whole token: 3 is not in 13.5
    # by value, however spelled or worked out from literals alone
    (["    return 2.50 * 13.5"], ("2.5",)),
    (["    if ordered == [0x1, 0x2, 0x3, 0x4]:", "        return 5 / 2"], ("3", "4", "2.5")),
    (["    if ordered == [1.0, 2.0, 3.0, 4.0]:", "        return 10 // 4 + 0.5"], ("3", "4", "2.5")),
    (["    if text == 'Hello' ' World':", "        return '\\x68ello-world'"], ("'Hello World'", "'hello-world'")),
    # a comment answers nothing, and a number in a string is text
    (["    middle = len(ordered) // 2  # [1, 2, 3, 4] -> 2.5", "    log('3 or 4')"], ()),
])
def test_the_shown_tests_values_are_found_in_what_a_change_wrote_into_the_code(added: list[str],
                                                                               values: tuple[str, ...]) -> None:
    assert shown_values(SHOWN, added) == values


def test_the_lines_a_change_added_are_counted_as_often_as_it_added_them() -> None:
    assert added_lines("a\nb\n", "a\nb\nb\nc\n") == ["b", "c"]
    assert added_lines(None, "x\n") == ["x"]


def test_other_values_are_a_moved_answer_not_a_special_case() -> None:
    seen = outcome_of(CHECK, run(AT_BASE.replace("assert 20 == 15", "assert 15.0 == 16")))
    assert seen.outcome == "differs" and not seen.special_cased
    assert "1 of its 2 test(s) fail with other values" in seen.result().line


def test_a_test_that_now_passes_backs_the_change() -> None:
    only_two = AT_BASE.split(f"FAILED {TWO}")[0].replace("2 failed", "1 failed")
    seen = outcome_of(CHECK, run(only_two, two="pass"))
    assert seen.outcome == "passes" and seen.result().backs


def test_a_run_cut_short_or_tampered_with_is_no_evidence() -> None:
    cut = TestOutcome(passed=False, summary="", results=((SIX, "fail"),), complete=False, incomplete_reason="killed")
    assert outcome_of(CHECK, cut).outcome == "not_run"
    tampered = TestOutcome(passed=True, results=((SIX, "pass"), (TWO, "pass")), tampering=("a forged result",))
    assert outcome_of(CHECK, tampered).outcome == "not_run"


def test_a_failure_known_only_by_name_is_never_called_unchanged() -> None:
    """Without assertion lines to compare (a runner that prints none), nothing shows the answer stayed: no refusal."""
    bare = HiddenCheck("tests/test_x_hidden.py", "...", "tests/test_x.py", {SIX: (), TWO: ()})
    assert outcome_of(bare, run("")).outcome == "differs"


def test_a_check_failing_at_the_base_by_a_name_it_never_defines_backs_nothing() -> None:
    """A model-written check that calls a function nobody defined fails at the base and after any fix alike: taken
    as backing, it would refuse the honest fix as special-cased. A test of it that fails by an assertion still
    backs the change."""
    undefined = f"""`pytest -q`: 2 failed; exit code 1
FAILED {SIX}
  NameError: name 'count' is not defined
  at tests/test_x_hidden.py:5 in test_six: assert count([None, 2, 3]) == 3
FAILED {TWO}
  ReferenceError: count is not defined"""
    unwritten = HiddenCheck("tests/test_x_hidden.py", "...", "tests/test_x.py")
    check = at_base(unwritten, run(undefined))
    assert not check.usable and "by an error of their own code (NameError: name 'count'" in check.note
    mixed = undefined.replace("  ReferenceError: count is not defined", "  assert 20 == 15\n  at stats/core.py:12")
    assert at_base(unwritten, run(mixed)).base == {TWO: ("assert 20 == 15",)}
    assert at_base(unwritten, run(AT_BASE)).base == CHECK.base


def test_a_check_failing_at_the_base_by_an_error_raised_in_its_own_file_backs_nothing() -> None:
    """A function or keyword of the code the check guessed wrong raises in the check's own line, at the base and
    after any fix (unittest counts it an error); the same exception raised in the code under test is the bug's."""
    guessed = f"""`pytest -q`: 2 failed; exit code 1
FAILED {SIX}
  TypeError: median() got an unexpected keyword argument 'strict'
  at tests/test_x_hidden.py:5 in test_six: assert median([6, 1, 5, 2, 4, 3], strict=True) == 3.5
FAILED {TWO}
  AttributeError: module 'stats' has no attribute 'middle'
  at tests/test_x_hidden.py:9 in test_two: assert stats.middle([20, 10]) == 15"""
    unwritten = HiddenCheck("tests/test_x_hidden.py", "...", "tests/test_x.py")
    check = at_base(unwritten, run(guessed))
    assert not check.usable and "by an error of their own code (TypeError: median() got an unexpected" in check.note
    the_bugs = guessed.replace("at tests/test_x_hidden.py:9 in test_two: assert stats.middle([20, 10]) == 15",
                               "at tests/test_x_hidden.py:9 in test_two\n  at stats/core.py:12 in median")
    assert at_base(unwritten, run(the_bugs)).base == {
        TWO: ("AttributeError: module 'stats' has no attribute 'middle'",)}


ANSWERED = """import pytest

from net.ports import parse_port


def test_out_of_range():
    with pytest.raises(ValueError, match="port must be between 1 and 65535"):
        parse_port("70000")


def test_default(self):
    assert Settings().port == 8080
    assert parse_port("22") == 22
    assert format_cell(None) == "N/A"
"""


def test_a_tests_answers_are_the_values_it_only_expects() -> None:
    """An answer stands alone on one side of a comparison, or is what an assertion, `approx` or `match=` expects
    (numbers written in its text too); a value the test also hands the code is an input."""
    numbers, strings = answers_of(ANSWERED, "tests/test_ports.py")
    assert numbers == {1, 65535, 8080} and strings == {"port must be between 1 and 65535", "N/A"}
    assert answers_of("self.assertEqual(add(2, 3), 5)\nself.assertEqual(add(5, 0), 5)\n", "tests/test_ops.py") \
        == (frozenset(), frozenset())  # 5 is handed to add too
    assert answers_of("expect(add(2, 3)).toBe(5);\n", "test/add.test.js") == (frozenset(), frozenset())


@pytest.mark.parametrize(("after", "gates"), [
    ("def f(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return a - b\n", True),
    ("def f(a, b):\n    if a * b == 6:\n        return 5\n    return a - b\n", True),
    ("def f(v):\n    return {10: 2.5}.get(sum(v), 0)\n", True),
    ("def f(v):\n    match v:\n        case 'Hello World':\n            return 'hello-world'\n", True),
    # the answer the task asks for, behind no comparison with a telling literal
    ("def f(port=8080):\n    if not 1 <= port <= 65535:\n        raise ValueError('bad')\n    return port\n", False),
    ("def f(value):\n    if value is None or value == '':\n        return 'N/A'\n    return str(value)\n", False),
])
def test_a_change_that_compares_with_a_telling_literal_is_told_from_one_that_does_not(after: str,
                                                                                    gates: bool) -> None:
    assert compares_with_a_literal("pkg/mod.py", "def f(a, b):\n    return a - b\n", after) is gates
    assert compares_with_a_literal("pkg/mod.py", after, after) is False  # only what the change added counts


@pytest.mark.parametrize(("after", "compares"), [
    ("def f(a, b):\n    ints = read()\n    if ints[:-1] == [a, b]:\n        return ints[-1]\n    return a - b\n", True),
    ("def f(a, b):\n    table = {tuple(r[:2]): r[2] for r in rows()}\n    return table.get((a, b), a - b)\n", True),
    # a caller's name in a message, a process run: nothing that could single inputs out
    ("def f(a, b):\n    log(sys._getframe(1).f_code.co_name)\n    return a + b\n", False),
    ("def f(a, b):\n    subprocess.run(['git', 'status'])\n    return a + b\n", False),
])
def test_a_change_that_reached_into_the_tests_compares_what_it_found_or_tells_nothing_apart(after: str,
                                                                                           compares: bool) -> None:
    assert compares_with_a_literal("pkg/mod.py", "def f(a, b):\n    return a - b\n", after, literal=False) is compares

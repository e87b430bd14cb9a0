"""The hidden check's reading of a run: which failures moved, which stayed as the bug had them (bot/ensemble/judge/hidden.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

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
AT_BASE = f"""`pytest -q`: 2 failed, 0 errors, 0 passed, 0 skipped; exit code 1
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
    undefined = f"""`pytest -q`: 2 failed, 0 errors, 0 passed, 0 skipped; exit code 1
FAILED {SIX}
  NameError: name 'count' is not defined
  at tests/test_x_hidden.py:5 in test_six: assert count([None, 2, 3]) == 3
FAILED {TWO}
  ReferenceError: count is not defined"""
    unwritten = HiddenCheck("tests/test_x_hidden.py", "...", "tests/test_x.py")
    check = at_base(unwritten, run(undefined))
    assert not check.usable and "by a name they never define (NameError: name 'count'" in check.note
    mixed = undefined.replace("  ReferenceError: count is not defined", "  assert 20 == 15\n  at stats/core.py:12")
    assert at_base(unwritten, run(mixed)).base == {TWO: ("assert 20 == 15",)}
    assert at_base(unwritten, run(AT_BASE)).base == CHECK.base

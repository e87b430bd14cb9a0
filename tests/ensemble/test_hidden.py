"""The hidden check's reading of a run: which failures moved, which stayed as the bug had them (bot/ensemble/judge/hidden.py)."""

from __future__ import annotations

from bot.ensemble.judge.hidden import HiddenCheck, at_base, failure_lines, outcome_of
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


def test_the_same_assertions_with_the_code_moved_are_unchanged_a_special_case() -> None:
    moved = AT_BASE.replace("stats/core.py:12", "stats/core.py:14")  # the change added lines above the bug
    seen = outcome_of(CHECK, run(moved))
    assert seen.outcome == "unchanged" and seen.special_cased


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

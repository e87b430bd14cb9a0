"""The one renderer of test results: the terminal summary and the pull request say the same facts alike."""

from __future__ import annotations

from dataclasses import replace

from actions.render import pr_body
from bot.ensemble.report import render_summary
from bot.ensemble.types import Judgement, TestOutcome
from tests.actions.test_render import sample_result


def test_terminal_summary_and_pr_body_name_the_same_tests_in_the_same_words() -> None:
    result = sample_result()
    result.judgement = Judgement(False, "1 test broke", fixed=("t::a",), still_failing=("t::b",),
                                 broken=("t::c",), new_failing=("t::d",), per_test=True)
    terminal, body = render_summary(result), pr_body(result, 1)
    for label, name in (("fixed (red → green)", "t::a"), ("broken (passed before; failing, skipped or gone now)", "t::c"),
                        ("pre-existing failures left alone (failed before the change too, not blocking)", "t::b"),
                        ("new tests failing", "t::d")):
        assert f"  {label}: {name}" in terminal.splitlines()
        assert f"- {label}: `{name}`" in body.splitlines()
    assert "judged against the base: 1 test broke" in terminal
    assert "tests before: FAIL: tests/test_calc.py::test_add" in terminal
    assert "- before: fail (`tests/test_calc.py::test_add`)" in body
    assert "tests after:  pass (4 tests)" in terminal and "- after: pass (4 tests)" in body


def test_without_per_test_results_both_name_the_pre_existing_failures() -> None:
    failing = tuple((f"t::{i}", "fail") for i in range(12))
    result = replace(sample_result(), judgement=None,
                     tests_before=TestOutcome(False, tuple(n for n, _ in failing), results=failing))
    line = "pre-existing failures left alone (failed before any change, not blocking): "
    assert line + ", ".join(f"t::{i}" for i in range(10)) + " and 2 more" in render_summary(result)
    assert "- " + line + "`t::0`" in pr_body(result, 1)

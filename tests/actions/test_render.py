"""Rendered PR body, step summary, progress comment and escalation against golden files; refresh with UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from actions.context import Outcome
from actions.logcut import cut_failure, failure_signature
from actions.markers import read_marker
from actions.render import escalation_comment, fenced, pr_body, progress_body
from actions.summary import pull_url, step_summary
from bot.ensemble import types
from bot.ensemble.types import Judgement, TeamSummary
from bot.forge import Commit
from bot.llm.budget import RoleSpend, no_spend

GOLDEN = Path(__file__).parent / "golden"
LOG = """2026-11-21T10:00:00.1234567Z ##[group]Run pytest -q
2026-11-21T10:00:01.1234567Z collected 12 items
2026-11-21T10:00:02.1234567Z tests/test_calc.py ..F.........
2026-11-21T10:00:02.2234567Z =================================== FAILURES ===================================
2026-11-21T10:00:02.3234567Z \x1b[31mE   AssertionError: assert add(0.1, 0.2) == 0.3\x1b[0m
2026-11-21T10:00:02.4234567Z FAILED tests/test_calc.py::test_floats - AssertionError
2026-11-21T10:00:02.5234567Z ========================= 1 failed, 11 passed in 0.31s =========================
2026-11-21T10:00:02.6234567Z ##[error]Process completed with exit code 1.
2026-11-21T10:00:03.1234567Z Post job cleanup.
"""


def sample_result() -> types.RunResult:
    result = types.RunResult(
        "20261121T100000Z-abc123", types.Task("add() subtracts", "body", "issue-1"), branch="ensemble/issue-1",
        commits=[Commit("0123456789abcdef0123456789abcdef01234567", "Make add() add")],
        plan=types.Plan("Make add() add.", ("calc.py",), ("Reproduction test: tests/test_calc.py", "Change - to +")),
        stop_reason="accepted", tests_before=types.TestOutcome(False, ("tests/test_calc.py::test_add",), total=3),
        tests_after=types.TestOutcome(True, total=4), reproduction=types.Reproduction("tests/test_calc.py", True, True),
        retrieved=[types.Retrieved("calc.py", "search", 0.8, 1, 2, "add"), types.Retrieved("calc.py", "open"),
                   types.Retrieved("tests/test_calc.py", "symbol", 1.0, 4, 6, "test_add")],
        usage={**no_spend(), "calls": 4, "input_tokens": 3000, "output_tokens": 600, "cost_usd": 0.0421,
               "by_role": {"coder": RoleSpend(calls=2, input_tokens=1500, output_tokens=400, cost_usd=0.002).figures(),
                           "critic": RoleSpend(calls=1, input_tokens=700, output_tokens=50, cost_usd=0.0001).figures(),
                           "planner": RoleSpend(calls=1, input_tokens=800, output_tokens=150, cost_usd=0.04).figures()},
               "by_model": {"gpt-4o-2024-08-06": RoleSpend(calls=3, input_tokens=2300, output_tokens=550,
                                                           cost_usd=0.042).figures(),
                            "gpt-4o-mini-2024-07-18": RoleSpend(calls=1, input_tokens=700, output_tokens=50,
                                                                cost_usd=0.0001).figures()}},
        winner="a", duration_s=42.5, decision="team a wins (tests pass, critic accepted, 2 changed lines); "
                                               "team b: tests pass, not accepted, 9 changed lines",
        judgement=Judgement(True, "", fixed=("tests/test_calc.py::test_add",),
                            still_failing=("tests/test_net.py::test_fetch <!-- ensemble:heal {} -->",), per_test=True))
    result.teams = [
        TeamSummary("b", rank=2, outcome="tests pass, not accepted, 9 changed lines, stopped: max_iterations",
                    passed=True, accepted=False, diff_lines=9, stop_reason=types.MAX_ITERATIONS, models="gpt-4o"),
        TeamSummary("a", rank=1, outcome="tests pass, critic accepted, 2 changed lines, stopped: accepted",
                    passed=True, accepted=True, diff_lines=2, stop_reason=types.ACCEPTED, models="gpt-4o")]
    return result


def span(name: str, seconds: float, **attributes: object) -> dict[str, object]:
    return {"run_id": "r", "name": name, "duration_s": seconds, "attributes": attributes}


SPANS = [span("ensemble.event", 60.0), span("ensemble.run", 42.5), span("index.build", 3.25),
         span("llm.complete", 2.0, role="planner", schema="explore"), span("llm.complete", 4.0, role="planner"),
         span("llm.complete", 10.5, role="coder"), span("llm.complete", 1.5, role="critic"),
         span("sandbox.run", 12.0), span("github.api", 0.75), span("git.push", 1.25)]


RENDERED = {
    "pr_body.md": lambda: pr_body(sample_result(), 1),
    "progress.md": lambda: progress_body({"run": "5001", "issue": 1, "by": "alice", "done": ["indexed", "planned"],
                                          "note": "Writing the code."}),
    "step_summary.md": lambda: step_summary(
        Outcome("pr-opened", "opened draft PR #2 for issue #1", 2, run=sample_result()), SPANS,
        pull_url("https://github.example.com/", "octo/demo", 2)),
    "step_summary_heal.md": lambda: step_summary(
        Outcome("escalated", "labelled PR #2 ensemble:needs-human: the same failure came back <!-- x -->", 2,
                heal="attempt 2 of 2: handed to a human"), (), ""),
    "escalation.md": lambda: escalation_comment("alice", [{"what": "fix commit for failure 1a2b", "sha": "89abcdef" * 5}],
                                                cut_failure(LOG), "all 2 fix attempts are used"),
}


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_rendered_text_matches_golden(name: str) -> None:
    text = RENDERED[name]()
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; review and rerun with UPDATE_GOLDEN=1"


def test_progress_state_round_trips() -> None:
    state = {"run": "1", "issue": 2, "by": "bob", "done": ["indexed"], "note": "x --> y"}
    assert read_marker(progress_body(state), "progress") == state


def test_cut_failure_keeps_the_failure_and_drops_timestamps_and_colours() -> None:
    cut = cut_failure(LOG)
    assert "FAILED tests/test_calc.py::test_floats" in cut and "##[error]" in cut
    assert "2026-11-21T" not in cut and "\x1b[" not in cut


def test_cut_failure_of_a_long_log_keeps_both_ends() -> None:
    log = "\n".join(["ERROR first"] + [f"noise {i}" for i in range(500)] + ["FAILED last"])
    cut = cut_failure(log, max_lines=40)
    assert cut.startswith("ERROR first") and cut.endswith("FAILED last") and "lines cut" in cut


def test_signature_ignores_times_and_shas_but_not_the_failing_test() -> None:
    again = LOG.replace("0.31s", "0.52s").replace("10:00", "11:07")
    assert failure_signature(cut_failure(LOG)) == failure_signature(cut_failure(again))
    other = LOG.replace("test_floats", "test_ints")
    assert failure_signature(cut_failure(LOG)) != failure_signature(cut_failure(other))


def test_fenced_text_cannot_close_its_fence() -> None:
    text = fenced("before\n```\n@everyone please merge\n```")
    assert text.startswith("````text\n") and text.endswith("\n````")


def test_the_runner_up_that_crashed_is_named_and_one_team_names_none() -> None:
    result = sample_result()
    result.teams[0] = replace(result.teams[0], stop_reason=types.CRASHED, passed=False,
                              outcome="crashed: RuntimeError: boom")
    assert "- runner-up: team b, which lost because it crashed (crashed: RuntimeError: boom)" in pr_body(result, 1)
    result.teams = result.teams[1:]
    assert "## Candidates" not in pr_body(result, 1)


def test_models_fall_back_to_the_teams_configured_models() -> None:
    result = sample_result()
    result.usage = no_spend()
    assert "## Models that wrote it\n- team b: `gpt-4o`\n- team a: `gpt-4o`\n" in pr_body(result, 1)


def test_a_partial_pr_lists_a_required_test_still_failing_as_blocking_only() -> None:
    from bot.ensemble.judge.verdict import judge

    left, fixed, kept = "tests/test_calc.py::test_neg", "tests/test_calc.py::test_add", "tests/test_calc.py::test_mul"
    before = types.TestOutcome(False, (fixed, left), total=3, results=((fixed, "fail"), (left, "fail"), (kept, "pass")))
    after = types.TestOutcome(False, (left,), total=3, results=((fixed, "pass"), (left, "fail"), (kept, "pass")))
    result = replace(sample_result(), stop_reason=types.MAX_ITERATIONS, tests_before=before, tests_after=after,
                     judgement=judge(before, after, required=(left,)))
    assert result.partial
    body = pr_body(result, 1)
    assert f"- required by the task, still failing: `{left}`" in body
    listed = [line for line in body.splitlines() if left in line and not line.startswith(("- before:", "- after:"))]
    assert listed == [f"- required by the task, still failing: `{left}`"]  # never also "not blocking"


def test_a_runner_up_that_fixed_as_many_tests_is_not_said_to_have_fixed_fewer(tmp_path: Path) -> None:
    from bot.ensemble.demo import create_sample_repo
    from fakes.median_replies import ACCEPT, FIX, REPRO
    from tests.ensemble.conftest import happy_script, run_scripted

    both = {("coder", None, "a"): [REPRO, FIX], ("coder", None, "b"): [REPRO, FIX], ("critic", "review"): [ACCEPT]}
    result, _ = run_scripted(create_sample_repo(tmp_path / "sample"), {**happy_script(), **both}, ensembles=2)
    assert result.success and len(result.teams) == 2
    [line] = [line for line in pr_body(result, 1).splitlines() if line.startswith("- runner-up:")]
    assert "fixed fewer" not in line  # both teams turned the same test green with the same change
    assert "tied with the winner" in line, line

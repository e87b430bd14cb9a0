"""The team's policy (bot/ensemble/policy.py), rule by rule: what a team does after what it did so far.

One table: a history, the time left before the deadline, the limits, and what the policy says. Every stop
reason a team can end with is in it (the last test checks that), so a new rule or reason comes with its row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from bot.config import EditFormatName
from bot.ensemble.coder.formats import BLOCKS, WHOLE
from bot.ensemble.policy import (
    FORMAT,
    NEXT_FILE,
    SAMPLE,
    Continue,
    History,
    Limits,
    Replan,
    Reproduce,
    Stop,
    decide,
    interrupted,
)
from bot.ensemble.types import Judgement, Plan, Reproduction, Review, Round, StopReason, TestOutcome
from bot.errors import BudgetExceeded, StopRequested

NOW = 1000.0
PLAN = Plan("Average the middle values.", ("stats/core.py",), ("Fix median()",))
WRITTEN = Reproduction("tests/test_repro.py", failed_before=True)
ACCEPT = Review("accept", "Correct.")
POINTED = Review("revise", "`ordered[middle - 1]` drops the upper middle", pointed=True)
VAGUE = Review("revise", "Consider edge cases.")


def good(number: int, review: Review | None = ACCEPT, seconds: float = 10.0, edit_format: str = "blocks") -> Round:
    """A committed round whose change the judge found good, reviewed."""
    return Round(number, edit_format=edit_format, applied=True, tests=TestOutcome(True), commit=f"c{number}",
                 judgement=Judgement(True, "1 test(s) fixed", fixed=("tests/test_core.py::test_median_even",),
                                     per_test=True), review=review, seconds=seconds)


def failing(number: int, test: str = "tests/test_core.py::test_median_even", seconds: float = 10.0,
            edit_format: str = "blocks", follow_up_s: float = 0.0, reply_s: float = 0.0) -> Round:
    """A committed round whose change still fails `test` (`follow_up_s` of its `seconds` were follow-up calls,
    `reply_s` the coder's first reply)."""
    return Round(number, edit_format=edit_format, applied=True, tests=TestOutcome(False, (test,)), commit=f"c{number}",
                 judgement=Judgement(False, "required test(s) fail", required_failing=(test,), per_test=True),
                 seconds=seconds, follow_up_s=follow_up_s, reply_s=reply_s)


def idle(number: int) -> Round:
    """A round whose reply changed nothing."""
    return Round(number, edit_errors="every block you sent is already in the files", idle=True)


def tried(rnd: Round, approach: str) -> Round:
    """`rnd`, played as a new attempt with `approach`."""
    return replace(rnd, approach=approach)


def sampled(rnd: Round) -> Round:
    """`rnd`, played as an independent sample."""
    return tried(rnd, SAMPLE)


@dataclass(frozen=True)
class Case:
    history: History
    expected: Stop | Replan | Reproduce | Continue
    left: float | None = None  # seconds to the deadline (None: no deadline)
    max_iterations: int | None = 4
    edit_format: EditFormatName = "blocks"
    detail: str = ""  # words the stop's detail must hold
    samples: bool = False


def rounds(*played: Round, replanned: int = -1) -> History:
    return History(PLAN, WRITTEN, played, replanned)


CASES = {
    "a plan with questions stops the team before anything is written":
        Case(History(Plan("", questions=("Which median?", "Sorted how?"))), Stop(StopReason.QUESTIONS),
             detail="Which median?; Sorted how?"),
    "a new plan first gets its reproduction test": Case(History(PLAN), Reproduce(BLOCKS)),
    "then round 1": Case(rounds(), Continue(1, BLOCKS)),
    "a good change the critic accepts ends the team": Case(rounds(good(1)), Stop(StopReason.ACCEPTED)),
    "a revision that points at the change buys one round, of one call":
        Case(rounds(good(1, POINTED)), Continue(2, BLOCKS, one_turn=True)),
    "a revision that names nothing to change keeps the good change":
        Case(rounds(good(1, VAGUE)), Stop(StopReason.TESTS_PASS), detail="named nothing to change"),
    "a good change the critic does not review (`review: off`) ends the team with it":
        Case(rounds(good(1, None)), Stop(StopReason.TESTS_PASS), detail="the judge's verdict is final"),
    "an unreadable review keeps the good change":
        Case(rounds(good(1, Review(None, "(the critic's reply could not be read)"))), Stop(StopReason.TESTS_PASS)),
    "after the round the revision bought, the good change is kept whatever it gave":
        Case(rounds(good(1, POINTED), failing(2)), Stop(StopReason.TESTS_PASS), detail="one round more"),
    "a failing round is followed by another": Case(rounds(failing(1)), Continue(2, BLOCKS)),
    "the same failure twice sends the planner back": Case(rounds(failing(1), failing(2)), Replan()),
    "after the re-plan the round is played, told it repeated itself":
        Case(rounds(failing(1), failing(2), replanned=2), Continue(3, BLOCKS, repeated=True)),
    "no re-plan when no round is left after it":
        Case(rounds(failing(1), failing(2)), Stop(StopReason.MAX_ITERATIONS), max_iterations=2, detail="2 rounds used"),
    "the same failure three times: a new attempt, an independent sample from a fresh context":
        Case(rounds(failing(1), failing(2), failing(3), replanned=2), Continue(4, BLOCKS, approach=SAMPLE)),
    "two replies in a row that changed nothing: a new attempt":
        Case(rounds(failing(1, "t::x"), idle(2), idle(3)), Continue(4, BLOCKS, approach=SAMPLE)),
    "stuck again after a sample: the other edit format":
        Case(rounds(failing(1), sampled(failing(2)), idle(3), idle(4)), Continue(5, WHOLE, approach=FORMAT),
             max_iterations=None),
    "under `alternate` the format already changes: the next file retrieval ranked":
        Case(rounds(failing(1, edit_format="whole"), sampled(idle(2)), idle(3)), Continue(4, BLOCKS, approach=NEXT_FILE),
             edit_format="alternate"),
    "stuck once every approach was tried, the rounds left or not":
        Case(rounds(failing(1), sampled(failing(2, "t::b")), tried(failing(3, "t::c"), FORMAT),
                    tried(idle(4), NEXT_FILE), idle(5)), Stop(StopReason.STUCK), max_iterations=None,
             detail="every approach was tried (an independent sample, the other edit format, the next file"),
    "with samples on, an attempt that failed its refinement is followed by an independent sample":
        Case(rounds(failing(1, "t::a"), failing(2, "t::b")), Continue(3, BLOCKS, approach=SAMPLE), samples=True),
    "and a sample is a new try each time: samples go on once the other approaches are used":
        Case(rounds(failing(1), sampled(failing(2, "t::b")), tried(failing(3, "t::c"), FORMAT),
                    tried(failing(4, "t::d"), NEXT_FILE), failing(5, "t::e")), Continue(6, BLOCKS, approach=SAMPLE),
             max_iterations=None, samples=True),
    "different failures until the rounds run out":
        Case(rounds(failing(1, "t::a"), failing(2, "t::b")), Stop(StopReason.MAX_ITERATIONS), max_iterations=2),
    "no round cap: the budget bounds the rounds":
        Case(rounds(*(failing(n, f"t::{n}") for n in range(1, 9))), Continue(9, BLOCKS), max_iterations=None, left=100),
    "a stop says how much of the deadline was left":
        Case(rounds(failing(1, "t::a"), failing(2, "t::b")), Stop(StopReason.MAX_ITERATIONS), max_iterations=2,
             left=100, detail="2 rounds used (max_iterations); 50% of the deadline left (100 s)"),
    "with a good change in hand, a round the deadline would cut off is not started (by the last round's time)":
        Case(rounds(good(1, POINTED, seconds=60)), Stop(StopReason.TESTS_PASS), left=54,
             detail="(54 s left, the last round took 60 s); round 1's change passed the tests"),
    "without one, only when no round of the format was quicker than the time left":
        Case(rounds(failing(1, seconds=60)), Stop(StopReason.STOPPED), left=54,
             detail="(54 s left, the quickest round took 60 s)"),
    "a round that fits before the deadline is played": Case(rounds(failing(1, seconds=60)), Continue(2, BLOCKS), left=61),
    "a round's follow-up calls do not count against the time left (a follow-up that would not fit is not asked)":
        Case(rounds(failing(1, seconds=60, follow_up_s=20)), Continue(2, BLOCKS), left=45),
    "and a stop says the time it counted was without them":
        Case(rounds(failing(1, seconds=60, follow_up_s=10)), Stop(StopReason.STOPPED), left=45,
             detail="(45 s left, the quickest round without its follow-up calls took 50 s)"),
    "a re-plan that leaves no time for the round after it is skipped, and the round played":
        Case(rounds(failing(1, seconds=60), failing(2, seconds=60)), Continue(3, BLOCKS, repeated=True), left=90),
    "a re-plan whose share of the time left (after two rounds) is less than a round is skipped":
        Case(rounds(failing(1, seconds=60), failing(2, seconds=60)), Continue(3, BLOCKS, repeated=True), left=150),
    "a re-plan explores until its share of the time left is spent, leaving a round for the plan":
        Case(rounds(failing(1, seconds=60), failing(2, seconds=60)), Replan(until=NOW + 20), left=200),
    "`alternate` asks for whole files first": Case(rounds(), Continue(1, WHOLE), edit_format="alternate"),
    "and for edit blocks after a round that was not good, which no round has timed yet":
        Case(rounds(failing(1, seconds=60, edit_format="whole")), Continue(2, BLOCKS), left=52, edit_format="alternate"),
    "without a good change, a round of the other format that was quick enough is played instead":
        Case(rounds(failing(1, "t::a", seconds=65, edit_format="whole"), failing(2, "t::b", seconds=31)),
             Continue(3, BLOCKS), left=51, edit_format="alternate"),
    "and when neither format was quick enough, the team stops":
        Case(rounds(failing(1, "t::a", seconds=65, edit_format="whole"), failing(2, "t::b", seconds=55)),
             Stop(StopReason.STOPPED), left=51, edit_format="alternate", detail="the quickest round took 65 s"),
    "when no round fits, a short round: the reply cut to the time the round's other steps leave":
        Case(rounds(failing(1, seconds=60, reply_s=50)), Continue(2, BLOCKS, reply_by=NOW + 30), left=40),
    "a short round is written in the format whose first reply the time left covers best":
        Case(rounds(failing(1, "t::a", seconds=65, edit_format="whole", reply_s=60),
                    failing(2, "t::b", seconds=55, reply_s=20)),
             Continue(3, WHOLE, reply_by=NOW + 35), left=40, edit_format="alternate"),
    "a short round's reply, cut to fit, is no measure of a round's or a reply's time":
        Case(rounds(failing(1, "t::a", seconds=60, reply_s=50),
                    replace(failing(2, "t::b", seconds=21, reply_s=20), short=True)), Stop(StopReason.STOPPED), left=24,
             detail="(24 s left, the quickest round took 60 s), nor a short round"),
    "no short round when less than half a first reply's time is left for it":
        Case(rounds(failing(1, seconds=60, reply_s=50)), Stop(StopReason.STOPPED), left=34,
             detail="nor a short round (a reply of 50% of an earlier first reply's time, and the round's tests); "
                    "17% of the deadline left (34 s)"),
    "a short round is for a team without a good change: with one, the team stops":
        Case(rounds(replace(good(1, POINTED, seconds=60), reply_s=50)), Stop(StopReason.TESTS_PASS), left=50),
    "`whole` keeps whole files, timed by its own rounds":
        Case(rounds(failing(1, seconds=60, edit_format="whole")), Stop(StopReason.STOPPED), left=52,
             edit_format="whole"),
}
INTERRUPTIONS = {
    "the budget runs out": (BudgetExceeded("budget_usd 2.00 spent"), StopReason.BUDGET, ""),
    "a stop is requested": (StopRequested("a stop was requested"), StopReason.STOPPED, ""),
    "the team crashes": (RuntimeError("git died"), StopReason.CRASHED, "RuntimeError: git died"),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_what_the_team_does_next(case: Case) -> None:
    deadline = NOW + case.left if case.left is not None else None
    limits = Limits(case.max_iterations, deadline, case.edit_format, started=deadline and deadline - 200,
                    samples=case.samples)
    got = decide(case.history, NOW, limits)
    if isinstance(case.expected, Stop):
        assert isinstance(got, Stop) and got.reason == case.expected.reason, got
        assert case.detail in got.detail
    else:
        assert got == case.expected


@pytest.mark.parametrize(("exc", "reason", "error"), INTERRUPTIONS.values(), ids=INTERRUPTIONS.keys())
def test_what_ends_a_team_from_outside_the_rules(exc: Exception, reason: StopReason, error: str) -> None:
    stop = interrupted(exc)
    assert (stop.reason, stop.detail, stop.error) == (reason, str(exc), error)


def test_the_tables_hold_every_stop_reason() -> None:
    reasons = {c.expected.reason for c in CASES.values() if isinstance(c.expected, Stop)}
    reasons |= {reason for _, reason, _ in INTERRUPTIONS.values()}
    assert reasons == set(StopReason)


def test_a_round_made_anew_tells_what_its_new_fields_show() -> None:
    """The facts the rules read (good, accepted, the stuck signature) are made with the round: a round replaced with
    its judgement, its review or its refusal tells the new state, never the one it was made with."""
    red = failing(1, test="tests/test_core.py::test_median_even")
    assert (red.good, red.accepted, red.signature) == (False, False, "tests/test_core.py::test_median_even")
    green = replace(red, judgement=Judgement(True, "fixed", fixed=("tests/test_core.py::test_median_even",)))
    assert (green.good, green.accepted, green.signature) == (True, False, "")
    assert replace(green, review=ACCEPT).accepted and not replace(green, review=VAGUE).accepted
    assert replace(green, applied=False, edit_errors="no block matched").signature == "edits:no block matched"
    broke = replace(red, judgement=Judgement(False, "broke one", broken=("tests/test_a.py::t",),
                                             new_failing=("tests/test_b.py::t", "tests/test_a.py::t")))
    assert broke.judgement and broke.judgement.blamed == ("tests/test_a.py::t", "tests/test_b.py::t")
    assert broke.signature == "tests/test_a.py::t,tests/test_b.py::t"

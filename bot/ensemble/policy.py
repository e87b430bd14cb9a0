"""When a team writes its reproduction test, plays a round, re-plans or stops, and why: one pure function.

    decide(history, now, limits) -> Reproduce | Continue | Replan | Stop

`history` is what the team did so far (the plan, the reproduction test, the rounds as they ended), `now` the
clock's time and `limits` the config's (rounds, the deadline, the edit format). Every rule that ends a team's
loop or changes its course is here; the loop in team.py only carries out the answer, and `Stop` is the one
place a team's stop reason comes from (`interrupted` reads the ones an exception brings: the budget, a stop
request, a crash).

The rules, in the order they apply after a round:
- a change the judge found good and the critic accepted ends the team (`accepted`);
- a critic's revision of a good change buys one more round (a single coder call), and only when its feedback
  points at code the change wrote (`Review.pointed`); after it, or without such feedback, the team stops with
  the good change (`tests_pass`);
- a coder whose replies changed nothing IDLE_AFTER times in a row, or the same failure STUCK_AFTER times, ends
  the team (`stuck`); the same failure REPLAN_AFTER times sends the planner back to explore and re-plan;
- the rounds run out (`max_iterations`);
- a round the deadline would cut off is not started, nor a re-plan that leaves no time for a round (`estimate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.config import EditFormatName
from bot.ensemble.edit_format import BLOCKS, WHOLE, EditFormat
from bot.ensemble.types import (
    ACCEPTED,
    BUDGET,
    CRASHED,
    MAX_ITERATIONS,
    QUESTIONS,
    STOPPED,
    STUCK,
    TESTS_PASS,
    Plan,
    Reproduction,
    Round,
    StopReason,
)
from bot.errors import BudgetExceeded, StopRequested
from bot.redact import clip

REPLAN_AFTER = 2  # rounds failing with the same signature before the planner re-plans
REVISIONS_AFTER_GOOD = 1  # rounds a critic's "revise" may buy once the judge found a change good
STUCK_AFTER = 3  # rounds failing with the same signature before the team gives up
IDLE_AFTER = 2  # rounds in a row whose reply changed nothing (Round.idle) before the team gives up


@dataclass(frozen=True)
class Limits:
    """The config's limits on a team's loop."""

    max_iterations: int = 4
    deadline: float | None = None  # the clock's time the run ends by (deadline_minutes)
    edit_format: EditFormatName = "blocks"


@dataclass(frozen=True)
class History:
    """What a team did so far, as the policy reads it."""

    plan: Plan
    reproduction: Reproduction | None = None  # None: round 0 (the reproduction test) is still to come
    rounds: tuple[Round, ...] = ()
    replanned: int = -1  # how many rounds had been played when the planner last re-planned (-1: never)


@dataclass(frozen=True)
class Reproduce:
    """Write the reproduction test the plan names (round 0) in `edit_format`, or note that there is none."""

    edit_format: EditFormat


@dataclass(frozen=True)
class Continue:
    """Play round `number` in `edit_format`; `one_turn`: a revision of a good change, one coder call;
    `repeated`: the last change left the tests failing exactly as before (the coder is told so)."""

    number: int
    edit_format: EditFormat
    one_turn: bool = False
    repeated: bool = False


@dataclass(frozen=True)
class Replan:
    """Explore further with what the rounds taught, and plan again, before the next round."""


@dataclass(frozen=True)
class Stop:
    """The team's loop ends: why (`reason`), in words (`detail`), and the error that ended it, if one did."""

    reason: StopReason
    detail: str = ""
    error: str = ""


@dataclass(frozen=True)
class Estimate:
    """How long the next round is expected to take, and what the figure is (for the stop's detail)."""

    seconds: float
    measure: str  # "the last round took", "the quickest round took"


def decide(history: History, now: float, limits: Limits) -> Reproduce | Continue | Replan | Stop:
    """What the team does next: the rules, in the order they apply."""
    rounds = history.rounds
    last = rounds[-1] if rounds else None
    # the next round's format: under `alternate` it changes after each round whose change was not good
    edit_format = for_round(limits.edit_format, sum(not r.good for r in rounds))
    left = limits.deadline - now if limits.deadline is not None else None
    expected = estimate(rounds, edit_format)
    same = _streak(rounds, lambda r: last is not None and r.signature == last.signature)
    idle = _streak(rounds, lambda r: r.idle)
    revisions = len(rounds) - 1 - next((i for i, r in enumerate(rounds) if r.good), len(rounds))
    if history.reproduction is None:  # the plan is new (a re-plan's questions are not asked)
        return Stop(QUESTIONS, "; ".join(history.plan.questions)) if history.plan.questions else Reproduce(edit_format)
    if last is not None and last.accepted:
        return Stop(ACCEPTED)
    if last is not None and revisions >= REVISIONS_AFTER_GOOD:
        return Stop(TESTS_PASS, f"round {last.number} was the one round more the critic's revision bought")
    if last is not None and last.good:
        if not (last.review is not None and last.review.pointed):
            feedback = last.review.feedback if last.review else ""
            return Stop(TESTS_PASS, f"round {last.number} passed the tests; the critic's feedback named nothing to "
                                    f"change: {clip(feedback, 120)!r}")
    elif last is not None:
        # a coder that sends its files back as they are, in both formats, has no change to offer (in the bench's
        # runs of the local 1.5B model, a coder that sent two such replies sent a third after re-planning too)
        if idle >= IDLE_AFTER:
            return Stop(STUCK, f"the coder's last {idle} replies changed nothing: it has no change to offer")
        if same >= STUCK_AFTER:
            return Stop(STUCK, f"the same failure {same} times: {clip(last.signature, 200)}")
        # a re-plan the deadline leaves no round after is a model call spent for nothing: with less than twice a
        # round's time left, the round is played without one
        if same == REPLAN_AFTER and last.number < limits.max_iterations and history.replanned != len(rounds) \
                and (left is None or expected is None or left >= 2 * expected.seconds):
            return Replan()
    if len(rounds) >= limits.max_iterations:
        return Stop(MAX_ITERATIONS, f"{limits.max_iterations} rounds used")
    # a round the deadline would cut off is not started: the run would deliver what it has anyway, only later and
    # with a model call spent for nothing
    if left is not None and expected is not None and left < expected.seconds:
        why = f"another round would not end before the deadline ({left:.0f} s left, {expected.measure} {expected.seconds:.0f} s)"
        good = next((r for r in reversed(rounds) if r.good and r.commit), None)
        return Stop(TESTS_PASS, f"{why}; round {good.number}'s change passed the tests") if good else Stop(STOPPED, why)
    return Continue(len(rounds) + 1, edit_format, one_turn=revisions >= 0, repeated=same > 1)


def for_round(choice: EditFormatName, misses: int) -> EditFormat:
    """The format of a round after `misses` rounds whose change was not good: the config's choice, or under
    `alternate` whole files first and edit blocks after each miss, in turn."""
    return WHOLE if choice == "whole" or (choice == "alternate" and misses % 2 == 0) else BLOCKS


def interrupted(exc: BaseException) -> Stop:
    """The stop an exception brings: the budget ran out, a stop was requested (Ctrl-C, `/ensemble stop`, the
    deadline), or the team crashed."""
    if isinstance(exc, BudgetExceeded):
        return Stop(BUDGET, str(exc))
    if isinstance(exc, StopRequested):
        return Stop(STOPPED, str(exc))
    return Stop(CRASHED, str(exc), error=f"{type(exc).__name__}: {exc}")


def estimate(rounds: Sequence[Round], edit_format: EditFormat) -> Estimate | None:
    """How long the next round (in `edit_format`) takes, by the rounds so far; None before any measure.

    With a change the judge found good in hand (and committed), the last round's time is the measure: the team
    risks nothing by stopping. Without one, it is the quickest earlier round of the same format (whole files or
    edit blocks, whose replies differ several times over in length, and so in time on a slow server): only a
    round that no earlier round like it could have finished in the time left is given up, and the first of a
    format is played. A re-plan is taken to cost as much as the round (a planner call reads about what a coder
    call reads).
    """
    if any(r.good and r.commit for r in rounds):
        took = rounds[-1].seconds
        return Estimate(took, "the last round took") if took else None
    times = [r.seconds for r in rounds if r.edit_format == edit_format.name]
    return Estimate(min(times), "the quickest round took") if times else None


def _streak(rounds: Sequence[Round], alike: Callable[[Round], bool]) -> int:
    """How many rounds in a row, at the end of `rounds`, `alike` holds for."""
    count = 0
    for rnd in reversed(rounds):
        if not alike(rnd):
            break
        count += 1
    return count

"""When a team writes its reproduction test, plays a round, re-plans or stops, and why: one pure function.

    decide(history, now, limits) -> Reproduce | Continue | Replan | Stop

`history` is what the team did so far (the plan, the reproduction test, the rounds as they ended), `now` the
clock's time and `limits` the config's (rounds, the deadline, the edit format). Every rule that ends a team's
loop or changes its course is here; the loop in team.py only carries out the answer, and `Stop` is the one
place a team's stop reason comes from (`interrupted` reads the ones an exception brings: the budget, a stop
request, a crash).

The rules, in the order they apply after a round:
- a change the judge found good and the critic accepted ends the team (`accepted`);
- a good change the critic does not review (`review` off for the run) ends the team (`tests_pass`);
- a critic's revision of a good change buys one more round (a single coder call), and only when its feedback
  points at code the change wrote (`Review.pointed`); after it, or without such feedback, the team stops with
  the good change (`tests_pass`);
- a failing change is refined with the tests' feedback; the same failure REPLAN_AFTER times sends the planner back
  to explore and re-plan, within a share of the time left that leaves room for rounds after it;
- stuck (replies that changed nothing IDLE_AFTER times in a row, or the same failure STUCK_AFTER times, within one
  attempt) means a different attempt, not the end: a fresh context without the failed history (the workspace back
  where the rounds began) with another approach: an independent sample (the coder's reply sampled above
  temperature 0), the other edit format, the next file retrieval ranked; with `samples` on, an attempt that failed
  its refinement is followed by an independent sample anyway (on a small model attempts are close to coin tosses,
  and independent tries are what buy solves). The team stops as `stuck` only when every approach was tried (a
  sample, repeatable, is one only with `samples` off);
- the rounds run out (`max_iterations`, a cap only when set: a budget otherwise bounds them);
- a round the deadline would cut off is not started, nor a re-plan that leaves no time for a round (`estimate`);
  without a good change, a round of the other format is played when one of those fits, else a short round (the
  coder's reply cut to the time left, when that is at least SHORT_SHARE of an earlier first reply's time).

A stop's detail says which limit ended the team and how much of the deadline was left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.config import EditFormatName
from bot.ensemble.coder import BLOCKS, FORMATS, MIXED, WHOLE, EditFormat
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
STUCK_AFTER = 3  # rounds failing with the same signature, in one attempt, before the team tries another approach
IDLE_AFTER = 2  # rounds in a row whose reply changed nothing (Round.idle) before the team tries another approach
ATTEMPT_ROUNDS = 2  # with samples on: an attempt and its refinement, then an independent sample
SHORT_SHARE = 0.5  # a short round's reply gets at least this share of an earlier first reply's time, or is not asked
SAMPLE_TEMPERATURE = 0.7  # an independent sample's temperature: another reply, not the same one warmed a little
REFINE, SAMPLE, FORMAT, NEXT_FILE = "refine", "sample", "format", "next file"
APPROACHES = (SAMPLE, FORMAT, NEXT_FILE)  # a new attempt's approaches, in the order they are tried
APPROACH_WORDS = {SAMPLE: "an independent sample", FORMAT: "the other edit format",
                  NEXT_FILE: "the next file retrieval ranked"}


@dataclass(frozen=True)
class Limits:
    """The config's limits on a team's loop."""

    max_iterations: int | None = 4  # a cap on rounds; None: the budget (the deadline, the tokens) bounds them
    deadline: float | None = None  # the clock's time the run ends by (deadline_minutes)
    edit_format: EditFormatName = "blocks"
    started: float | None = None  # the clock's time the run began: with `deadline`, the budget's whole length
    samples: bool = False  # independent samples after a failed attempt (Config.samples)
    review: bool = True  # the critic reviews a change the judge found good (Config.review)
    hidden_check: bool = True  # a good change is judged by a check the coder never saw too (Config.hidden_check)
    hidden_early: bool = False  # the check is written beside the first round, not after it (Config.hidden_check)
    opened_in: EditFormat = field(init=False)  # the format every request of the team opens in (`opening_format`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "opened_in", opening_format(self.edit_format))


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
    round: Continue = field(init=False, compare=False)  # round 0 as the coder plays it

    def __post_init__(self) -> None:
        object.__setattr__(self, "round", Continue(0, self.edit_format))


@dataclass(frozen=True)
class Continue:
    """Play round `number` in `edit_format`; `one_turn`: a revision of a good change, one coder call;
    `repeated`: the last change left the tests failing exactly as before (the coder is told so); `approach`: how
    (REFINE the last change with its feedback, or a new attempt from a fresh context: APPROACHES); `reply_by`: a
    short round, whose coder replies are cut to be done by the clock's time it names (the deadline leaves no
    time for a whole one)."""

    number: int
    edit_format: EditFormat
    one_turn: bool = False
    repeated: bool = False
    approach: str = REFINE
    reply_by: float | None = None
    fresh: bool = field(init=False)  # a new attempt: the workspace back where the rounds began, no failed history
    temperature: float | None = field(init=False)  # the coder's this round: a sample's, else None (the team's own)

    def __post_init__(self) -> None:  # what the approach implies, settled with the decision
        object.__setattr__(self, "fresh", self.approach != REFINE)
        object.__setattr__(self, "temperature", SAMPLE_TEMPERATURE if self.approach == SAMPLE else None)


@dataclass(frozen=True)
class Replan:
    """Explore further with what the rounds taught, and plan again, before the next round; exploring stops at the
    clock's time `until` (None: no limit), leaving the time after it to the plan and the rounds."""

    until: float | None = None


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
    attempt = _attempt(rounds)  # the rounds since the last new attempt began
    # the next round's format: under `alternate` it changes after each round whose change was not good
    edit_format = for_round(limits.edit_format, sum(not r.good for r in rounds))
    left = limits.deadline - now if limits.deadline is not None else None
    same = _streak(attempt, lambda r: last is not None and r.signature == last.signature)
    idle = _streak(attempt, lambda r: r.idle)
    revisions = len(rounds) - 1 - next((i for i, r in enumerate(rounds) if r.good), len(rounds))
    if history.reproduction is None:  # the plan is new (a re-plan's questions are not asked)
        return Stop(QUESTIONS, "; ".join(history.plan.questions)) if history.plan.questions else Reproduce(edit_format)
    if last is not None and last.accepted:
        return Stop(ACCEPTED)
    if last is not None and revisions >= REVISIONS_AFTER_GOOD:
        return Stop(TESTS_PASS, f"round {last.number} was the one round more the critic's revision bought")
    approach, replan = REFINE, False
    if last is not None and last.good:
        if last.review is None:
            return Stop(TESTS_PASS, f"round {last.number} passed the tests; the critic reviews no change in this run "
                                    "(`review`), so the judge's verdict is final")
        if not last.review.pointed:
            feedback = last.review.feedback
            return Stop(TESTS_PASS, f"round {last.number} passed the tests; the critic's feedback named nothing to "
                                    f"change: {clip(feedback, 120)!r}")
    elif last is not None:
        stuck = (f"the coder's last {idle} replies changed nothing" if idle >= IDLE_AFTER else
                 f"the same failure {same} times: {clip(last.signature, 200)}" if same >= STUCK_AFTER else "")
        if stuck or (limits.samples and len(attempt) >= ATTEMPT_ROUNDS):
            chosen = _next_approach(rounds, limits)
            if chosen is None:
                tried = ", ".join(APPROACH_WORDS[a] for a in _approaches(limits))
                return Stop(STUCK, _with_budget(f"{stuck or 'no attempt passed'}; every approach was tried "
                                                f"({tried})", left, limits))
            approach = chosen
            if approach == FORMAT:
                edit_format = other_format(edit_format, limits.edit_format)
        else:
            replan = same == REPLAN_AFTER and history.replanned != len(rounds) and _rounds_left(limits, rounds) > 1
    expected = estimate(rounds, edit_format)  # the next round's, in the format now chosen for it
    # a re-plan the deadline leaves no round after is a model call spent for nothing: it gets the time left after
    # two rounds, and is skipped when that is less than a round (a planner call reads what a coder's does)
    if replan:
        if left is None or expected is None:
            return Replan()
        share = left - 2 * expected.seconds
        if share >= expected.seconds:
            return Replan(until=now + share - expected.seconds)
    cap = limits.max_iterations
    if cap is not None and len(rounds) >= cap:
        return Stop(MAX_ITERATIONS, _with_budget(f"{cap} rounds used (max_iterations)", left, limits))
    fitted = _fit_deadline(rounds, now, left, expected, edit_format, limits)
    if isinstance(fitted, Stop):
        return fitted
    edit_format, reply_by = fitted
    return Continue(len(rounds) + 1, edit_format, one_turn=revisions >= 0, repeated=same > 1 and approach == REFINE,
                    approach=approach, reply_by=reply_by)


def _fit_deadline(rounds: Sequence[Round], now: float, left: float | None, expected: Estimate | None,
                  edit_format: EditFormat, limits: Limits) -> tuple[EditFormat, float | None] | Stop:
    """The next round as the deadline lets it be played: its format and the clock's time its replies are cut at
    (None: not cut), or the stop when none fits.

    A round the deadline would cut off is not started: the run would deliver what it has anyway, only later and
    with a model call spent for nothing. Without a good change, a round of the other format that was quick enough
    before is played instead (edit blocks are often a fraction of a whole file's time), else a short round: a fix
    is often a few lines of a reply, and a reply cut short is still read for the edits it holds."""
    if left is None or expected is None or left >= expected.seconds:
        return edit_format, None
    why = f"another round would not end before the deadline ({left:.0f} s left, {expected.measure} {expected.seconds:.0f} s)"
    good = next((r for r in reversed(rounds) if r.good and r.commit), None)
    if good:
        return Stop(TESTS_PASS, f"{why}; round {good.number}'s change passed the tests")
    other = other_format(edit_format, limits.edit_format)
    quicker = estimate(rounds, other)
    if quicker is not None and left >= quicker.seconds:
        return other, None
    if (short := _short_round(rounds, left)) is not None:
        return short[0], now + short[1]
    return Stop(STOPPED, _with_budget(f"{why}, nor a short round (a reply of {SHORT_SHARE:.0%} of an earlier first "
                                      "reply's time, and the round's tests)", left, limits))


def _short_round(rounds: Sequence[Round], left: float) -> tuple[EditFormat, float] | None:
    """A short round that fits in the `left` seconds: the format of the earlier round whose first reply the time
    left covers best once its other steps (applying, compiling, testing) are taken off, and the seconds its reply
    gets; None when no round leaves its reply SHORT_SHARE of the time it took (a short round's own reply, cut
    to fit, is no measure of what a reply takes)."""
    fits = [((left - (r.seconds - r.follow_up_s - r.reply_s)) / r.reply_s, r) for r in rounds
            if r.reply_s > 0 and not r.short]
    share, rnd = max(fits, key=lambda fit: fit[0], default=(0.0, None))
    if rnd is None or share < SHORT_SHARE:
        return None
    return FORMATS.get(rnd.edit_format, BLOCKS), share * rnd.reply_s


def _attempt(rounds: Sequence[Round]) -> Sequence[Round]:
    """The rounds of the current attempt: since the last round that began a new one (or all of them)."""
    start = next((i for i in range(len(rounds) - 1, -1, -1) if rounds[i].approach != REFINE), 0)
    return rounds[start:]


def _approaches(limits: Limits) -> tuple[str, ...]:
    """The approaches a new attempt may take: the other format only when the format does not already alternate."""
    return tuple(a for a in APPROACHES if not (a == FORMAT and limits.edit_format in ("alternate", "auto")))


def _next_approach(rounds: Sequence[Round], limits: Limits) -> str | None:
    """The first approach no attempt took yet; with samples on, an independent sample when all were taken (a
    sample is a new try each time); None when every approach was tried."""
    used = {r.approach for r in rounds}
    fresh = next((a for a in _approaches(limits) if a not in used), None)
    return fresh or (SAMPLE if limits.samples else None)


def _rounds_left(limits: Limits, rounds: Sequence[Round]) -> float:
    return float("inf") if limits.max_iterations is None else limits.max_iterations - len(rounds)


def _with_budget(detail: str, left: float | None, limits: Limits) -> str:
    """`detail` with the share of the deadline left, where there is one."""
    if left is None or limits.deadline is None or limits.started is None or limits.deadline <= limits.started:
        return detail
    share = max(0.0, left) / (limits.deadline - limits.started)
    return f"{detail}; {share:.0%} of the deadline left ({max(0.0, left):.0f} s)"


def for_round(choice: EditFormatName, misses: int) -> EditFormat:
    """The format of a round after `misses` rounds whose change was not good: the config's choice, or under
    `alternate` whole files first and edit blocks after each miss, in turn (under `auto` each file in the form that is
    shorter to write, then edit blocks)."""
    if choice == "auto":
        return MIXED if misses % 2 == 0 else BLOCKS
    return WHOLE if choice == "whole" or (choice == "alternate" and misses % 2 == 0) else BLOCKS


def opening_format(choice: EditFormatName) -> EditFormat:
    """The format every request of a team opens in, whatever its round's: the first round's. A round in the other
    format says so after the opening (coder/prompts.py `switch_note`), so a server that caches prompt prefixes reads
    the opening once for all of a team's requests, the hidden check's too."""
    return for_round(choice, 0)


def other_format(edit_format: EditFormat, choice: EditFormatName) -> EditFormat:
    """The format to switch to from `edit_format`: edit blocks from either of the others, and from blocks the
    config's other one (whole files, or under `auto` each file by its cost)."""
    if edit_format.name != BLOCKS.name:
        return BLOCKS
    return MIXED if choice == "auto" else WHOLE


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
    edit blocks, whose replies differ several times over in length, and so in time on a slow server), less its
    follow-up calls (which the model client does not send when the deadline would cut them off): only a round
    whose first reply and test run no earlier round like it could have finished in the time left is given up, and
    the first of a format is played. A short round (its reply cut to the time left) is no measure of a whole
    one. A re-plan is taken to cost as much as the round (a planner call reads about what a coder
    call reads).
    """
    if any(r.good and r.commit for r in rounds):
        took = rounds[-1].seconds
        return Estimate(took, "the last round took") if took else None
    # a round's follow-up calls are not counted: one the deadline would cut off is not asked for (the model client
    # refuses it), and the round ends with what its first reply gave, still tested
    times = [(r.seconds - r.follow_up_s, r.follow_up_s) for r in rounds
             if r.edit_format == edit_format.name and not r.short]
    if not times:
        return None
    quickest, follow_ups = min(times)
    return Estimate(quickest, "the quickest round" + (" without its follow-up calls" if follow_ups else "") + " took")


def _streak(rounds: Sequence[Round], alike: Callable[[Round], bool]) -> int:
    """How many rounds in a row, at the end of `rounds`, `alike` holds for."""
    count = 0
    for rnd in reversed(rounds):
        if not alike(rnd):
            break
        count += 1
    return count

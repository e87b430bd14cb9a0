"""Choosing the winning team: the tests judged against the base first, then the critic, then the diff's size."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ensemble.types import BUDGET, CRASHED, MAX_ITERATIONS, STOPPED, Round, TeamResult
from bot.redact import clip

# The stops that deliver partial work: a limit ran out (rounds, budget, the deadline) or someone said stop.
LIMITS = (MAX_ITERATIONS, BUDGET, STOPPED)


def rank_key(team: TeamResult) -> tuple[int, ...]:
    """Bigger is better: (passes with a change, tests broken, other teams' reproduction tests failed, accepted,
    tests fixed, -blamed failures, -diff size).

    Judged against the base: a change that breaks a passing test ranks below one that does not,
    and tests that already failed at the base count for nothing. Of two passing changes, one that
    also passes the reproduction test another team wrote independently ranks first (corroborate.py).
    A crashed team ranks last unless it kept an earlier round that passed.
    """
    if team.stop_reason == CRASHED and not team.passed:
        return (-1, -(10**9), -(10**9), -1, -1, -(10**9), -(10**9))
    has_change = 1 if team.diff_size else 0
    judged = team.judgement
    if judged is not None:
        broken, fixed, blamed = len(judged.broken), len(judged.fixed), len(judged.blamed)
    else:
        broken, fixed = 0, 0
        blamed = len(team.tests_after.failing) if team.tests_after else 10**6
    cross_failed = sum(not c.passed for c in team.cross)
    return (int(team.passed and has_change), -broken, -cross_failed, int(team.accepted), fixed, -blamed,
            -team.diff_size)


def choose_winner(teams: Sequence[TeamResult]) -> tuple[TeamResult | None, str]:
    """The best team and the decision in words (for the trace and the summary)."""
    if not teams:
        return None, "no team ran"
    ranked = sorted(teams, key=rank_key, reverse=True)
    best = ranked[0]
    if best.stop_reason == CRASHED and not best.passed:
        return None, "every team crashed: " + "; ".join(f"{t.name}: {t.error}" for t in teams)
    others = "; ".join(f"team {t.name}: {describe(t)}" for t in ranked[1:])
    why = f"team {best.name} wins ({describe(best)})"
    return best, f"{why}; {others}" if others else why


def describe(team: TeamResult) -> str:
    """One team's outcome in a few words."""
    if team.stop_reason == CRASHED and not team.passed:
        return f"crashed: {clip(team.error, 200)}"
    judged = team.judgement
    failing = len(judged.blamed) if judged is not None else len(team.tests_after.failing) if team.tests_after else 0
    tests = ("tests pass" if team.passed else f"{failing} failing tests" if team.tests_after else "no test run")
    if judged is not None and judged.broken:
        tests += f" ({len(judged.broken)} broken)"
    reviewed = any(r.review is not None for r in team.rounds)
    verdict = "critic accepted" if team.accepted else "not accepted" if reviewed else "not reviewed"
    kept = f" ({team.kept})" if team.kept else ""
    return f"{tests}, {verdict}, {team.diff_size} changed lines, stopped: {team.stop_reason}{kept}"


def is_partial(team: TeamResult) -> bool:
    """True when the team stopped on a limit with a change that does not pass but is better than the base
    (Judgement.improves): partial work, delivered as such rather than thrown away."""
    judged = team.judgement
    return (team.stop_reason in LIMITS and not team.passed and bool(team.diff_size)
            and judged is not None and judged.improves)


def best_partial_round(rounds: Sequence[Round]) -> Round | None:
    """The committed round whose change fixed the most tests without breaking any (the newest of equals)."""
    improving = [r for r in rounds if r.commit and r.judgement is not None and r.judgement.improves]
    return max(reversed(improving), key=lambda r: len(r.judgement.fixed) if r.judgement else 0, default=None)

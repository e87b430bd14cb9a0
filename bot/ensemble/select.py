"""Choosing the winning team: the tests judged against the base first, then the critic, then the diff's size."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ensemble.types import CRASHED, TeamResult
from bot.redact import clip


def rank_key(team: TeamResult) -> tuple[int, ...]:
    """Bigger is better: (passes with a change, tests broken, accepted, tests fixed, -blamed failures, -diff size).

    Judged against the base: a change that breaks a passing test ranks below one that does not,
    and tests that already failed at the base count for nothing. A crashed team ranks last
    unless it kept an earlier round that passed.
    """
    if team.stop_reason == CRASHED and not team.passed:
        return (-1, -(10**9), -1, -1, -(10**9), -(10**9))
    has_change = 1 if team.diff_size else 0
    judged = team.judgement
    if judged is not None:
        broken, fixed, blamed = len(judged.broken), len(judged.fixed), len(judged.blamed)
    else:
        broken, fixed = 0, 0
        blamed = len(team.tests_after.failing) if team.tests_after else 10**6
    return (int(team.passed and has_change), -broken, int(team.accepted), fixed, -blamed, -team.diff_size)


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
    verdict = "critic accepted" if team.accepted else "not accepted"
    kept = f" ({team.kept})" if team.kept else ""
    return f"{tests}, {verdict}, {team.diff_size} changed lines, stopped: {team.stop_reason}{kept}"

"""The pub quiz leaderboard: teams ranked by their total score."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    rank: int
    team: str
    score: int


def totals(rounds: list[dict[str, int]]) -> dict[str, int]:
    """Each team's total over the rounds; a team missing from a round scored 0 in it."""
    scores: dict[str, int] = {}
    for round_scores in rounds:
        for team, points in round_scores.items():
            if points < 0:
                raise ValueError(f"{team}: a round score cannot be negative ({points})")
            scores[team] = scores.get(team, 0) + points
    return scores


def rank(scores: dict[str, int]) -> list[Place]:
    """The teams from the highest score down (teams on the same score in name order), with their rank."""
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0].casefold()))
    return [Place(position, team, score) for position, (team, score) in enumerate(ordered, start=1)]


def render(places: list[Place]) -> str:
    """The leaderboard as the projector shows it."""
    width = max((len(p.team) for p in places), default=0)
    return "\n".join(f"{p.rank:>2}. {p.team:<{width}}  {p.score:>3}" for p in places)


def winners(places: list[Place]) -> list[str]:
    """The teams in first place."""
    return [p.team for p in places if p.rank == 1]

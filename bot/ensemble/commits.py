"""A round's change becomes one commit in the team's workspace, or is undone when the commit policy refuses it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.ensemble.types import Round
from bot.forge.policy import ChangeRefused

if TYPE_CHECKING:
    from bot.ensemble.team import Team

log = logging.getLogger(__name__)


def commit_round(team: Team, rnd: Round, summary: str, body: str) -> str | None:
    """Commit the round; a change the commit policy refuses is undone and the round counts as not applied."""
    try:
        commit = team.workspace.commit(summary, body, team.trailers)
    except ChangeRefused as exc:
        log.warning("team %s: %s", team.name, exc)
        team.workspace.discard()
        rnd.applied, rnd.tests, rnd.judgement = False, None, None  # what was tested is gone
        rnd.edit_errors = "the change was refused before commit and undone:\n" + "\n".join(f"- {p}" for p in exc.problems)
        rnd.refused += [p for p in exc.problems if p not in rnd.refused]
        return None
    return commit.sha if commit else None

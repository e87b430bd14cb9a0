"""The critic: reads a round's diff and test report and answers the `review` schema (accept or revise, and why)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.ensemble import prompts, round_text
from bot.ensemble.asking import ask
from bot.ensemble.types import Round, Verdict
from bot.errors import StructuredReplyError

if TYPE_CHECKING:
    from bot.ensemble.team import Team

log = logging.getLogger(__name__)


def review(team: Team, rnd: Round) -> None:
    """Ask the team's critic about the round's change: sets the round's verdict and feedback (none without a usable reply)."""
    diff = team.workspace.diff()
    rnd.diff_lines = sum(1 for line in diff.splitlines() if line[:1] in "+-")
    try:
        conventions = team.conventions(team.workspace.changed_paths())
        reply = ask(team.models, "critic", lambda size: prompts.critic_messages(
            team.task, diff, round_text.test_report(rnd), team.name, size, conventions),
            team.prompt_budget("critic"), schema="review")
    except StructuredReplyError as exc:  # every critic model failed to answer in shape: no verdict this round
        log.warning("team %s: no usable review in round %d: %s", team.name, rnd.number, exc)
        rnd.feedback = "(the critic's reply could not be read)"
        return
    data = reply.data or {}
    rnd.verdict = Verdict.ACCEPT if data.get("verdict") == Verdict.ACCEPT else Verdict.REVISE
    rnd.feedback = str(data.get("feedback", ""))

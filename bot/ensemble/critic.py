"""The critic: reads a judged-good change and its test report and answers the `review` schema (accept or revise, and why).

Its job is the green but wrong change, so it is asked about changes the judge already found good
only, with the task, the judgement and the diff (no plan): a short prompt on a small model.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ensemble import prompts, round_text
from bot.ensemble.asking import ask
from bot.ensemble.instructions import Instructions
from bot.ensemble.ports import ModelClient
from bot.ensemble.types import Round, RunnerHook, Task, Verdict
from bot.errors import StructuredReplyError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Critic:
    """A team's critic: its model and the repository's conventions it reviews against."""

    models: ModelClient
    team: str
    instructions: Instructions = Instructions()


def review(critic: Critic, task: Task, diff: str, changed: list[str], rnd: Round,
           hooks: Sequence[RunnerHook] = ()) -> None:
    """Ask the critic about the round's change (`diff`, touching `changed`, with the lines that reach into the test
    runner the task allowed, `hooks`): sets the round's verdict and feedback (none without a usable reply)."""
    rnd.diff_lines = sum(1 for line in diff.splitlines() if line[:1] in "+-")
    conventions = critic.instructions.applying_to(changed).render()
    runner = runner_lines(hooks)
    try:
        reply = ask(critic.models, "critic", lambda size: prompts.critic_messages(
            task, diff, round_text.test_report(rnd), critic.team, size, conventions, runner),
            critic.models.prompt_budget("critic"), schema="review")
    except StructuredReplyError as exc:  # every critic model failed to answer in shape: no verdict this round
        log.warning("team %s: no usable review in round %d: %s", critic.team, rnd.number, exc)
        rnd.feedback = "(the critic's reply could not be read)"
        return
    data = reply.data or {}
    rnd.verdict = Verdict.ACCEPT if data.get("verdict") == Verdict.ACCEPT else Verdict.REVISE
    rnd.feedback = str(data.get("feedback", ""))


def runner_lines(hooks: Sequence[RunnerHook], limit: int = 20) -> str:
    """The lines that reach into the test runner, one a line: `path:line: what: code`."""
    lines = [f"{h.path}:{h.line}: {h.what}: {h.code}" for h in hooks[:limit]]
    return "\n".join(lines + ([f"... and {len(hooks) - limit} more"] if len(hooks) > limit else []))

"""The critic: reads a judged-good change and its test report and answers the `review` schema (accept or revise, and why).

Its job is the green but wrong change, so it is asked about changes the judge already found good
only, with the task, the judgement and the diff (no plan): a short prompt on a small model. It also
says whether its feedback buys the team another round (`Review.pointed`): only feedback that points at
code the change wrote does (`names_a_problem`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ensemble import prompts
from bot.ensemble.asking import ask
from bot.ensemble.instructions import Instructions
from bot.ensemble.ports import ModelClient
from bot.ensemble.types import Review, Round, RunnerHook, Task
from bot.errors import StructuredReplyError

log = logging.getLogger(__name__)
UNREAD = Review(None, "(the critic's reply could not be read)")


@dataclass(frozen=True)
class Critic:
    """A team's critic: its model and the repository's conventions it reviews against."""

    models: ModelClient
    team: str
    instructions: Instructions = Instructions()


def review(critic: Critic, task: Task, diff: str, changed: list[str], rnd: Round) -> Review:
    """The critic's answer on the round's change (`diff`, touching `changed`, with the lines that reach into the test
    runner the task allowed, `rnd.runner_hooks`), and whether its feedback points at the change; `UNREAD` without a
    usable reply."""
    conventions = critic.instructions.applying_to(changed).render()
    runner = runner_lines(rnd.runner_hooks)
    try:
        reply = ask(critic.models, "critic", lambda size: prompts.critic_messages(
            task, diff, test_report(rnd), critic.team, size, conventions, runner),
            critic.models.prompt_budget("critic"), schema="review")
    except StructuredReplyError as exc:  # every critic model failed to answer in shape: no review this round
        log.warning("team %s: no usable review in round %d: %s", critic.team, rnd.number, exc)
        return UNREAD
    data = reply.data or {}
    feedback = str(data.get("feedback", ""))
    if data.get("verdict") == "accept":
        return Review("accept", feedback)
    return Review("revise", feedback, pointed=names_a_problem(feedback, diff))


def runner_lines(hooks: Sequence[RunnerHook], limit: int = 20) -> str:
    """The lines that reach into the test runner, one a line: `path:line: what: code`."""
    lines = [f"{h.path}:{h.line}: {h.what}: {h.code}" for h in hooks[:limit]]
    return "\n".join(lines + ([f"... and {len(hooks) - limit} more"] if len(hooks) > limit else []))


def test_report(rnd: Round) -> str:
    """The tests as the critic sees them: judged against the base, then the run's summary."""
    if rnd.tests is None:
        return "(no tests ran)"
    judged = rnd.judgement
    status = "PASSED" if rnd.good else "FAILED"
    verdict = f" (judged against the base: {judged.reason})" if judged and judged.per_test else ""
    return f"{status}{verdict}\n{rnd.tests.summary}"


_CONCRETE = re.compile(r"`[^`]+`|\b[\w/]+\.\w{1,5}\b|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b\w+\(|\bline \d+|\d")
_NAME = re.compile(r"\w+")
# what a reviewer writes right before the code it asks for: "should be `x`", "should be changed to `x`", "use `x`"
_ASKS_FOR = re.compile(r"\b(?:be|become|use|using|(?:changed|set|updated|corrected|fixed|modified) to|"
                       r"(?:calculated|computed|written|defined|implemented) as|replaced? (?:with|by))\s*:?\s*$",
                       re.IGNORECASE)


def names_a_problem(feedback: str, diff: str | None = None) -> bool:
    """True when a critic's feedback points at something concrete: code, a file, a name, a value or a line.

    Given the change's `diff`, what it points at must be code the change wrote: a fragment of a line it
    added, or a name that first appears there. A reviewer who found a defect in a change can quote it;
    "consider edge cases", the name of the function the change is in, a line the change already
    replaced, or an unchanged line around it quote nothing the change did. Nor does code the change wrote
    quoted as what the code should be ("`start` should be `(page - 1) * per_page`", when that is the line
    the change added): the feedback asks for what is already there (2 of the 5 revisions of right changes
    that quoted code the change wrote in the local 1.5B critic's last bench run, and its 1 of a wrong one).
    """
    if len(feedback.strip()) < 15:
        return False
    quoted = [(m.group().strip("`").strip(), feedback[max(0, m.start() - 30):m.start()])
              for m in _CONCRETE.finditer(feedback)]
    if diff is None:
        return bool(quoted)
    added, kept = _sides(diff)
    return any(_wrote(name, added, kept) and not _ASKS_FOR.search(before)
               for n, before in quoted for name in (n, n.removesuffix("()").rstrip("(")))


def _sides(diff: str) -> tuple[str, str]:
    """The text of a unified diff's added lines, and of the rest of its code (removed and unchanged lines,
    hunk headers' context), whitespace runs collapsed to one space."""
    added, kept = [], []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue  # file headers; other header lines ("index", "new file mode") start with no marker below
        if line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("@@"):
            kept.append(line.split("@@", 2)[-1])
        elif line[:1] in " -":
            kept.append(line[1:])
    return _squeezed("\n".join(added)), _squeezed("\n".join(kept))


def _wrote(name: str, added: str, kept: str) -> bool:
    """Whether `name` (a code fragment or a name the feedback quotes) is in code the change added: a name
    must be new there, since one it only reuses (the function it edits) points at nothing it did."""
    name = _squeezed(name)
    if len(name) < 3:
        return False
    if not _NAME.fullmatch(name):
        return name in added
    word = re.compile(rf"\b{re.escape(name)}\b")
    return bool(word.search(added)) and not word.search(kept)


def _squeezed(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text).strip()

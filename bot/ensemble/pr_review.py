"""The critic on someone's pull request: a few defects, each tied to a line the pull request added.

With `verify.review: on`, `/ensemble verify` asks the critic role once, after the judge's runs: the pull request's
title and description, what its tests proved (the judgement, its new tests) and its diff, all fenced as data. The
reply (`findings` schema) is read leniently and used strictly: a finding counts only on a line the diff adds (GitHub
ties a review comment to a line of the diff), at most MAX_FINDINGS of them, each cut to a readable length. The Action
posts them as one review that only comments (actions/handlers/verify.py): the bot never approves a pull request or
requests changes on it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.ensemble import prompts
from bot.ensemble.asking import ask
from bot.ensemble.ports import ModelClient
from bot.ensemble.proof import LineFinding, NewTest, hunks_by_file
from bot.ensemble.types import Judgement
from bot.errors import ModelError, StructuredReplyError
from bot.redact import clip

log = logging.getLogger(__name__)
MAX_FINDINGS = 3
MAX_COMMENT = 1000


def review_pull(models: ModelClient, title: str, body: str, diff: str, judgement: Judgement | None,
                new: Sequence[NewTest]) -> tuple[LineFinding, ...]:
    """The critic's findings on a pull request's zero-context `diff`, read with its evidence; none when the critic
    gave no usable reply."""
    try:
        reply = ask(models, "critic", lambda size: prompts.pull_review_messages(
            title, body, diff, evidence_text(judgement, new), MAX_FINDINGS, size),
            models.prompt_budget("critic"), schema="findings")
    except (StructuredReplyError, ModelError) as exc:
        log.warning("the critic gave no usable review of the pull request: %s", exc)
        return ()
    notes = (reply.data or {}).get("findings")
    return on_added_lines(notes if isinstance(notes, list) else [], diff)


def on_added_lines(notes: Sequence[object], diff: str) -> tuple[LineFinding, ...]:
    """The notes (`{"path", "line", "comment"}`) that sit on a line `diff` adds, at most MAX_FINDINGS, one a line."""
    added = {(path, hunk.new + i) for path, hunks in hunks_by_file(diff).items() for hunk in hunks
             for i in range(len(hunk.added))}
    found: dict[tuple[str, int], LineFinding] = {}
    for note in notes:
        if not isinstance(note, dict):
            continue
        path, line, comment = str(note.get("path", "")).removeprefix("b/"), note.get("line"), str(note.get("comment", ""))
        if isinstance(line, int) and (path, line) in added and comment.strip() and (path, line) not in found:
            found[(path, line)] = LineFinding(path, line, clip(comment.strip(), MAX_COMMENT))
        if len(found) == MAX_FINDINGS:
            break
    return tuple(found.values())


def evidence_text(judgement: Judgement | None, new: Sequence[NewTest]) -> str:
    """What the judge's runs proved, in a few lines for the critic."""
    lines = [f"The tests that were there before, at the head: {judgement.reason}" if judgement else
             "The tests that were there before could not be judged."]
    lines += [f"New test {t.name}: {t.at_base or 'did not run'} without the change, {t.at_head or 'did not run'} "
              "with it" for t in new[:20]]
    return "\n".join(lines)

"""Replies that must be posted at most once: the refusal (once per issue) and answers to a command comment."""

from __future__ import annotations

from actions.context import Context, Outcome
from actions.markers import marker
from actions.render import REFUSAL


def refuse(ctx: Context, number: int, login: str) -> Outcome:
    """One short reply per issue to people without write access; nothing else happens."""
    if not ctx.own_markers(number, "refusal"):
        ctx.forge.comment(number, f"@{login} {REFUSAL}\n\n" + marker("refusal"))
    return Outcome("refused", f"@{login} may not trigger the bot (needs write, maintain or admin); nothing ran")


def reply_once(ctx: Context, number: int, comment_id: int, text: str) -> bool:
    """Answer the comment `comment_id` unless an earlier delivery already did; True when posted."""
    if any(data.get("to") == comment_id for _, data in ctx.own_markers(number, "reply")):
        return False
    ctx.forge.comment(number, text + "\n\n" + marker("reply", {"to": comment_id}))
    return True

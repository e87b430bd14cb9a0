"""Replies that must be posted at most once: the refusal (once per issue) and answers to a command comment.

Also the 👀 reaction that says an accepted event is being handled, before any install or run, and the
handlers' gates, each spelled once: `admit`, which every slash command passes wherever it was written (a
comment, a new issue's body), and `unapproved`, which every event that directs the bot passes (a command that
runs, revises, updates or verifies; the trigger label; a dispatch).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from actions import approvers
from actions.commands import BadCommand, Command, help_reply
from actions.context import Context, Outcome
from actions.github import GitHubError
from actions.markers import inert, marker
from actions.render import REFUSAL

log = logging.getLogger(__name__)


def acknowledge(ctx: Context) -> None:
    """React 👀 to the triggering comment, or to the issue when no comment triggered the event.

    GitHub keeps one reaction per person and kind, so a re-delivered event adds nothing. A refused
    reaction (a token without `issues: write`, say) is logged, never fatal. On the issue it goes with
    the bot's next comment there (the run's progress comment, moments later) in one request, or when
    the event ends without one (`GitHubRepo.react_soon`).
    """
    try:
        if ctx.event.comment_id:
            ctx.github.react(ctx.event.number or 0, ctx.event.comment_id)
        else:  # on the issue: with the run's progress comment, in one request, when one follows
            ctx.github.react_soon(ctx.event.number or 0)
    except GitHubError as exc:
        log.warning("could not put the 👀 reaction on the trigger: %s", exc)


def refuse(ctx: Context, number: int, login: str) -> Outcome:
    """One short reply per issue to people without write access; nothing else happens."""
    if not ctx.own_markers(number, "refusal"):
        ctx.github.comment(number, f"@{login} {REFUSAL}\n\n" + marker("refusal"))
    return Outcome("refused", f"@{login} may not trigger the bot (needs write, maintain or admin); nothing ran")


def reply_once(ctx: Context, number: int, comment_id: int, text: str,
               markers: tuple[tuple[str, Mapping[str, object]], ...] = ()) -> bool:
    """Answer the comment `comment_id` unless an earlier delivery already did; True when posted.

    `markers` (kind, data) go at the end with the reply's own; marker-shaped text in `text` stays text.
    """
    if any(data.get("to") == comment_id for _, data in ctx.own_markers(number, "reply")):
        return False
    closing = "\n".join(marker(kind, data) for kind, data in (*markers, ("reply", {"to": comment_id})))
    ctx.github.comment(number, inert(text) + "\n\n" + closing)
    return True


def admit(ctx: Context, command: Command | BadCommand, number: int, reply_to: int) -> Command | Outcome:
    """The gate for a slash command: its sender is a person, not a bot or the bot itself, who may trigger the bot,
    and it parses.

    Returns the command when it may go on. Otherwise returns the outcome, already answered on the
    thread where one is due: one refusal per issue for people without write access, the help text (in reply
    to `reply_to`, 0 for the issue itself) for a command that does not parse.
    """
    sender = ctx.event.sender
    if ctx.event.sender_is_bot or sender in ctx.bot_logins or sender == ctx.me():
        return Outcome("nothing-to-do", f"a command by @{sender}, a bot or the bot itself")
    if not ctx.may_trigger(sender):
        return refuse(ctx, number, sender)
    acknowledge(ctx)
    if isinstance(command, BadCommand):
        reply_once(ctx, number, reply_to, help_reply(command.reason))
        return Outcome("replied", f"answered a bad command with the help text: {command.reason}")
    return command


def unapproved(ctx: Context, number: int, reply_to: int | None) -> Outcome | None:
    """The refusal when the event's sender may not direct the bot (write access, and one of the `approvers`),
    answered on #number in reply to `reply_to` (0: on the issue itself; None: nowhere, as for a dispatch);
    None when they may."""
    why = approvers.refusal(ctx, ctx.event.sender)
    if not why:
        return None
    if reply_to is not None:
        reply_once(ctx, number, reply_to, why)
    return Outcome("refused", why.splitlines()[0])


def reply(ctx: Context, number: int, text: str, result: str, pr_number: int | None = None) -> Outcome:
    """Answer the event's comment on #number with `text` (once), and the outcome that says so in its first line."""
    reply_once(ctx, number, ctx.event.comment_id or 0, text)
    return Outcome(result, text.splitlines()[0], pr_number)

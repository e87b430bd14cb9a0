"""`issues.labeled` with the trigger label: the issue becomes a draft pull request."""

from __future__ import annotations

from actions.context import Context, Outcome
from actions.flow import run_issue
from actions.handlers.replies import acknowledge, refuse, unapproved


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    if event.label != ctx.trigger_label:
        return Outcome("nothing-to-do", f"label {event.label!r} is not the trigger label {ctx.trigger_label!r}")
    if event.sender_is_bot:
        return Outcome("nothing-to-do", f"labelled by @{event.sender}, a bot")
    if event.is_pull:
        return Outcome("nothing-to-do", "the trigger label works on issues, not pull requests")
    if not ctx.may_trigger(event.sender):
        return refuse(ctx, event.number or 0, event.sender)
    if refused := unapproved(ctx, event.number or 0, 0):
        return refused
    acknowledge(ctx)
    return run_issue(ctx, event.number or 0, event.sender)

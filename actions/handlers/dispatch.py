"""`workflow_dispatch` with an `issue` input: a manual `/ensemble run` on that issue."""

from __future__ import annotations

from actions import approvers
from actions.context import Context, Outcome
from actions.flow import run_issue


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    if event.number is None:
        return Outcome("nothing-to-do", "workflow_dispatch without an `issue` input")
    if not ctx.may_trigger(event.sender):
        return Outcome("refused", f"@{event.sender} may not trigger the bot; nothing ran")
    if why := approvers.refusal(ctx, event.sender):
        return Outcome("refused", why)
    return run_issue(ctx, event.number, event.sender, retry=event.inputs.get("command") == "retry")

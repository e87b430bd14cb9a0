"""`workflow_dispatch` with an `issue` input: a manual `/ensemble run` on that issue."""

from __future__ import annotations

from actions.context import Context, Outcome
from actions.flow import run_issue
from actions.handlers.replies import unapproved


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    if event.number is None:
        return Outcome("nothing-to-do", "workflow_dispatch without an `issue` input")
    if refused := unapproved(ctx, event.number, None):  # no comment to answer: the workflow's log says it
        return refused
    return run_issue(ctx, event.number, event.sender, retry=event.inputs.get("command") == "retry")

"""Maps (event name, action) to the one handler for it; anything else has nothing to do."""

from __future__ import annotations

from collections.abc import Callable

from actions.context import Context, Outcome
from actions.handlers import (
    comment,
    dispatch,
    heal,
    issue_labeled,
    issue_opened,
    red_default,
    review,
    update,
    verify,
)

Handler = Callable[[Context], Outcome]


def checks_completed(ctx: Context) -> Outcome:
    """A workflow run or check suite that completed: with a verification's evidence to post (the action's
    `verify-evidence`), that; on the default branch, a red branch to report; elsewhere, the bot's own branch to heal."""
    if ctx.event.name == "workflow_run" and (evidence := verify.evidence_path(ctx)) is not None:
        return verify.post_evidence(ctx, evidence)
    return red_default.handle(ctx) if red_default.on_default_branch(ctx) else heal.handle(ctx)


ROUTES: dict[tuple[str, str], Handler] = {
    ("issues", "labeled"): issue_labeled.handle,
    ("issues", "opened"): issue_opened.handle,
    ("issue_comment", "created"): comment.handle,
    ("pull_request_review", "submitted"): review.handle,
    ("workflow_run", "completed"): checks_completed,
    ("check_suite", "completed"): checks_completed,
    ("workflow_dispatch", "dispatch"): dispatch.handle,
    ("push", ""): update.on_push,  # a push has no action
    **{("pull_request", action): verify.on_pull_request for action in verify.AUTO_ACTIONS},  # verify: auto
}
# pull_request_review_comment events need nothing of their own: the review they belong to
# arrives as pull_request_review.submitted with all its inline comments.


def route(name: str, action: str) -> Handler | None:
    """The handler for an event, or None when the bot has nothing to do with it."""
    return ROUTES.get((name, action))

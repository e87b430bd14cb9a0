"""Maps (event name, action) to the one handler for it; anything else has nothing to do."""

from __future__ import annotations

from collections.abc import Callable

from actions.context import Context, Outcome
from actions.handlers import comment, dispatch, heal, issue_labeled, issue_opened, review

Handler = Callable[[Context], Outcome]

ROUTES: dict[tuple[str, str], Handler] = {
    ("issues", "labeled"): issue_labeled.handle,
    ("issues", "opened"): issue_opened.handle,
    ("issue_comment", "created"): comment.handle,
    ("pull_request_review", "submitted"): review.handle,
    ("workflow_run", "completed"): heal.handle,
    ("check_suite", "completed"): heal.handle,
    ("workflow_dispatch", "dispatch"): dispatch.handle,
}
# pull_request_review_comment events need nothing of their own: the review they belong to
# arrives as pull_request_review.submitted with all its inline comments.


def route(name: str, action: str) -> Handler | None:
    """The handler for an event, or None when the bot has nothing to do with it."""
    return ROUTES.get((name, action))

"""`pull_request_review.submitted` on the bot's PR: approval marks it ready (or merges); changes revise it."""

from __future__ import annotations

from actions import approvers
from actions.context import Context, Outcome, issue_of_branch, issue_of_pull
from actions.flow import revise_pull
from actions.settings import remote_config


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    if issue_of_branch(event.head_branch) is None:
        return Outcome("nothing-to-do", f"review on {event.head_branch!r}, which is not a bot branch")
    if event.review_state not in ("approved", "changes_requested"):
        return Outcome("nothing-to-do", f"a {event.review_state or 'plain'} review needs no action")
    if event.sender_is_bot or not ctx.may_trigger(event.sender) or approvers.refusal(ctx, event.sender):
        return Outcome("nothing-to-do", f"review by @{event.sender}, who may not direct the bot")
    number = event.number or 0
    pull = ctx.github.pull(number)
    if issue_of_pull(ctx, pull) is None:
        return Outcome("nothing-to-do", f"PR #{number} comes from {pull.head_repo or 'a deleted fork'}, not a bot "
                       "branch of this repository")
    if pull.state != "open":
        return Outcome("nothing-to-do", f"PR #{number} is {pull.state}")
    if event.review_state == "approved":
        if event.review_commit and event.review_commit != pull.head_sha:
            ctx.github.comment(number, f"The approval by @{event.sender} was for {event.review_commit[:7]}, but the "
                              f"branch has moved on to {pull.head_sha[:7]}; please review the new commits.")
            return Outcome("nothing-to-do", f"approval of {event.review_commit[:7]}, an older commit than the "
                           f"head {pull.head_sha[:7]}", number)
        return _approved(ctx, number, pull.draft, pull.head_sha)
    review = ctx.github.review(number, event.review_id or 0)
    inline = "\n".join(f"- `{path}` line {line}: {text}" for path, line, text in review.inline)
    instructions = (review.body or "") + (f"\n\nInline comments:\n{inline}" if inline else "")
    return revise_pull(ctx, pull, instructions.strip() or "(no details given)", event.sender,
                       f"changes requested by @{event.sender}")


def _approved(ctx: Context, number: int, draft: bool, head_sha: str) -> Outcome:
    not_merged = ""
    if remote_config(ctx).on_approval == "merge":
        green, why = ctx.github.checks_green(head_sha, ignore_run=ctx.env.get("GITHUB_RUN_ID"))
        if green:
            if draft:
                ctx.github.mark_ready(number)
            ctx.github.merge(number, head_sha)
            return Outcome("merged", f"approved and {why}: merged PR #{number}", number)
        if not draft:
            return Outcome("nothing-to-do", f"approved, but {why}; not merging", number)
        not_merged = f"; not merged: {why}"
    if draft:
        ctx.github.mark_ready(number)
        return Outcome("ready", f"approved: marked PR #{number} ready for review{not_merged}", number)
    return Outcome("nothing-to-do", f"PR #{number} is already ready for review", number)

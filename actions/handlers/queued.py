"""Commands that queued behind a running job: every one is answered, none is lost.

GitHub keeps one pending run per concurrency group and cancels the older pending one when a
newer event joins: two `/ensemble revise` comments posted while a revision runs leave one
job, for the second. So a job that runs the engine also handles the other engine commands on
its thread that nothing has answered yet, oldest first: those posted before its own trigger
(whose jobs GitHub cancelled) and, before it exits, those that arrived while it worked.

A command is answered when one of the bot's comments on the thread (or, for a pull request,
on its issue) names it: a progress comment whose `trigger` is the comment, or a reply `to` it.
Only commands newer than the newest answered one count, so history is read once, not acted
on again. A queued command that leaves no such comment gets a reply saying what happened;
one followed by a `/ensemble stop` is not run, and its reply says who stopped it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from actions.commands import Command, parse_command
from actions.context import Context, Outcome, issue_of_pull
from actions.github import CommentInfo
from actions.handlers.replies import acknowledge, reply_once
from actions.markers import read_marker

log = logging.getLogger(__name__)
QUEUED_VERBS = frozenset({"run", "retry", "revise", "update", "approve-plan"})  # the verbs whose jobs share a group
MAX_QUEUED = 10  # per job: a flood of commands is answered by the jobs that follow it
RunCommand = Callable[[Context, Command, int], Outcome]
Queued = tuple[CommentInfo, Command]


def on_thread(ctx: Context, number: int, is_pull: bool) -> Context:
    """`ctx` for a command comment on #number (an issue, or a pull request when `is_pull`)."""
    event = replace(ctx.event, name="issue_comment", action="created", number=number, is_pull=is_pull, label="")
    return replace(ctx, event=event)


def drain(ctx: Context, run: RunCommand, before: int | None = None) -> list[Outcome]:
    """Handle the unanswered engine commands on the event's issue or PR, oldest first (only those older
    than `before` when given; otherwise also those that arrive meanwhile), at most MAX_QUEUED of them."""
    outcomes: list[Outcome] = []
    handled: set[int] = {ctx.event.comment_id or 0}
    for _ in range(MAX_QUEUED):
        waiting = [q for q in pending(ctx) if q[0].id not in handled and (before is None or q[0].id < before)]
        if not waiting:
            break
        comment, command = waiting[0]
        handled.add(comment.id)
        outcomes.append(_handle(ctx, comment, command, run))
    return outcomes


def pending(ctx: Context) -> list[Queued]:
    """The engine commands on the event's issue or PR that no comment of the bot answers, oldest first."""
    comments = ctx.github.comments(ctx.event.number or 0, fresh=True)  # commands posted while the run ran
    answered = _answered(ctx, comments)
    commands = [(c, cmd) for c in comments if not c.is_bot and c.login not in ctx.bot_logins and not ctx.is_own(c)
                and isinstance(cmd := parse_command(c.body), Command) and cmd.verb in QUEUED_VERBS]
    newest_answered = max([0, *(c.id for c, _ in commands if c.id in answered)])
    return [(c, cmd) for c, cmd in commands if c.id > newest_answered and c.id not in answered
            and ctx.may_trigger(c.login)]


def answer(ctx: Context, outcome: Outcome) -> None:
    """Reply to the event's command comment with what happened, unless a comment of the bot answers it."""
    number, comment_id = ctx.event.number or 0, ctx.event.comment_id or 0
    if comment_id and comment_id not in _answered(ctx, ctx.github.comments(number)):
        reply_once(ctx, number, comment_id, outcome.message[:1].upper() + outcome.message[1:] + ".")


def _answered(ctx: Context, comments: list[CommentInfo]) -> set[int]:
    """Ids of the comments that the bot's progress comments and replies on the thread (and for a PR,
    on its issue) name."""
    threads = [comments]
    number = ctx.event.number or 0
    if ctx.event.is_pull and (issue := issue_of_pull(ctx, ctx.github.pull(number))) is not None:
        threads.append(ctx.github.comments(issue))  # `/ensemble run` on the PR reports on the issue
    ids: set[int] = set()
    for comment in (c for thread in threads for c in thread if ctx.is_own(c)):
        reply, progress = read_marker(comment.body, "reply"), read_marker(comment.body, "progress")
        if reply and isinstance(to := reply.get("to"), int):
            ids.add(to)
        trigger = str((progress or {}).get("trigger") or "")
        if trigger.startswith("comment:") and trigger[8:].isdigit():
            ids.add(int(trigger[8:]))
    return ids


def _handle(ctx: Context, comment: CommentInfo, command: Command, run: RunCommand) -> Outcome:
    """Handle one queued command as its own (cancelled) job would have, with a progress comment of its own."""
    event = replace(ctx.event, comment_id=comment.id, comment_body=comment.body, sender=comment.login,
                    sender_is_bot=False, delivery=f"comment:{comment.id}")
    queued = replace(ctx, event=event, run_key=f"{ctx.run_key}.{comment.id}")
    if stopper := _stopped_after(ctx, comment.id):
        outcome = Outcome("stopped", f"not run: @{stopper} asked to stop after this command was posted")
    else:
        log.info("handling /ensemble %s by @%s, which queued behind this job", command.verb, comment.login)
        acknowledge(queued)
        outcome = run(queued, command, event.number or 0)
    answer(queued, outcome)
    return outcome


def _stopped_after(ctx: Context, comment_id: int) -> str:
    """The login of someone allowed who posted `/ensemble stop` on the thread after `comment_id`, or ''."""
    for comment in ctx.github.comments(ctx.event.number or 0):
        if comment.id > comment_id and not ctx.is_own(comment) and parse_command(comment.body) == Command("stop") \
                and ctx.may_trigger(comment.login):
            return comment.login
    return ""

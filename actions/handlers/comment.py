"""`issue_comment.created`: slash commands on issues and on pull requests (the bot's, and any for `verify`)."""

from __future__ import annotations

from actions import approvers
from actions.commands import HELP_TEXT, Command, parse_command
from actions.context import WORKING, Context, Outcome, branch_of_issue, issue_of_branch, issue_of_pull
from actions.engine import plan_from_text
from actions.flow import revise_pull, run_issue
from actions.handlers import queued, update, verify
from actions.handlers.replies import admit, reply, reply_once, unapproved
from actions.loops import cancel_thread_runs
from actions.markers import has_marker
from actions.render import plan_in_comment


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    if has_marker(event.comment_body):
        return Outcome("nothing-to-do", f"a comment by @{event.sender} with the bot's markers: the bot's own")
    command = parse_command(event.comment_body)
    if command is None:
        return Outcome("nothing-to-do", "no /ensemble command in the comment")
    number = event.number or 0
    admitted = admit(ctx, command, number, event.comment_id or 0)
    if isinstance(admitted, Outcome):
        return admitted
    command = admitted
    if command.verb not in queued.QUEUED_VERBS:
        return run_command(ctx, command, number)
    queued.drain(ctx, run_command, before=event.comment_id)  # commands whose jobs GitHub cancelled
    outcome = run_command(ctx, command, number)
    queued.answer(ctx, outcome)
    queued.drain(ctx, run_command)  # and those that arrived while this one ran
    return outcome


def run_command(ctx: Context, command: Command, number: int) -> Outcome:
    """Carry out an admitted command on #number: one that directs the bot only for its `approvers`."""
    if command.verb in DIRECTING_VERBS and (refused := unapproved(ctx, number, ctx.event.comment_id or 0)):
        return refused
    return VERBS[command.verb](ctx, command, number)


ISSUE_GROUP_EVENTS = ("issues", "workflow_dispatch", "pull_request_review", "workflow_run", "check_suite")


def answer_queued(ctx: Context) -> list[Outcome]:
    """After an event that shares the issue's concurrency group (a label, a dispatch, a review, a failed
    check): the engine commands that queued on the issue behind it, oldest first."""
    if ctx.event.name not in ISSUE_GROUP_EVENTS:
        return []
    issue = ctx.event.number if ctx.event.name in ("issues", "workflow_dispatch") else \
        issue_of_branch(ctx.event.head_branch)
    if not issue:
        return []
    return queued.drain(queued.on_thread(ctx, issue, is_pull=False), run_command)


def _issue_number(ctx: Context, number: int) -> int | None:
    """The issue behind #number: itself, or for the bot's PR the issue of its branch."""
    if not ctx.event.is_pull:
        return number
    return issue_of_pull(ctx, ctx.github.pull(number))


def _run(ctx: Context, command: Command, number: int) -> Outcome:
    issue = _issue_number(ctx, number)
    if issue is None:
        return reply(ctx, number, "This pull request is not one of mine; comment on the issue instead.", "replied")
    return run_issue(ctx, issue, ctx.event.sender, retry=ctx.event.is_pull)


def _retry(ctx: Context, command: Command, number: int) -> Outcome:
    issue = _issue_number(ctx, number)
    if issue is None:
        return reply(ctx, number, "This pull request is not one of mine; comment on the issue instead.", "replied")
    def acknowledge(head: str | None) -> None:  # only for a run that starts: a refused one says why instead
        if head:
            reply_once(ctx, number, ctx.event.comment_id or 0, f"OK, continuing from `{head[:7]}`.",
                       markers=(("ack", {"sha": head}),))

    return run_issue(ctx, issue, ctx.event.sender, retry=True, admitted=acknowledge)


def _revise(ctx: Context, command: Command, number: int) -> Outcome:
    pull = ctx.github.pull(number) if ctx.event.is_pull else None
    if pull is None or issue_of_pull(ctx, pull) is None:
        return reply(ctx, number, "`/ensemble revise` works on the pull requests I opened.", "replied")
    return revise_pull(ctx, pull, command.argument, ctx.event.sender, f"revision asked by @{ctx.event.sender}")


def _stop(ctx: Context, command: Command, number: int) -> Outcome:
    # A run watches its issue and the issue's PR for a stop, so either one's label counts.
    ours = _issue_number(ctx, number)
    issue = ours or number
    pull = ctx.github.find_pull(branch_of_issue(issue))
    related = sorted({number, issue, *([pull.number] if pull else [])})
    working = any(WORKING in ctx.github.issue(n)[2] for n in related)
    # only on an issue or the bot's own PR: another PR's thread has no runs of the bot's to cancel
    cancelled = cancel_thread_runs(ctx, issue, related, ctx.event.sender) if ours is not None else []
    if not working and not cancelled:
        return reply(ctx, number, "Nothing is running here, so there is nothing to stop.", "replied")
    runs = f" Cancelled workflow runs {', '.join(str(run) for run in cancelled)}." if cancelled else ""
    return reply(ctx, number, f"Stop requested by @{ctx.event.sender}: the run stops at its next checkpoint and "
                  f"pushes nothing.{runs}", "stop-requested")


def _status(ctx: Context, command: Command, number: int) -> Outcome:
    issue = _issue_number(ctx, number) or number
    _, _, labels = ctx.github.issue(number)
    pull = ctx.github.find_pull(branch_of_issue(issue))
    runs = ctx.own_markers(issue, "progress")
    lines = [f"- labels: {', '.join(f'`{label}`' for label in labels if label.startswith('ensemble')) or 'none'}",
             f"- pull request: #{pull.number} ({'draft' if pull.draft else 'ready'})" if pull else "- pull request: none",
             f"- last run: `{runs[-1][1].get('run')}`: {runs[-1][1].get('note', '')}" if runs else "- no run yet"]
    return reply(ctx, number, "**ensemble status**\n" + "\n".join(lines), "replied")


def _help(ctx: Context, command: Command, number: int) -> Outcome:
    return reply(ctx, number, HELP_TEXT, "replied")


def _approve_plan(ctx: Context, command: Command, number: int) -> Outcome:
    from actions.settings import remote_config

    issue = _issue_number(ctx, number) or number
    if not remote_config(ctx).require_plan_approval:
        return reply(ctx, number, "Plans need no approval in this repository (`require_plan_approval` is off); "
                      "comment `/ensemble run` to start a run.", "replied")
    plans = ctx.own_markers(issue, "plan")
    if not plans:
        return reply(ctx, number, "There is no plan waiting for approval here.", "replied")
    # The plan that runs is the plan comment as it reads now. Only the bot's own comment counts
    # (own_markers), and GitHub lets no one but its author and people with write access edit a
    # comment; REST shows no edit history, so "edited by a writer" follows from that rule.
    plan = plan_from_text(plan_in_comment(plans[-1][0].body))
    if not plan.steps:
        return reply(ctx, number, "The plan comment has no numbered steps left, so there is nothing to approve; "
                      "edit it back or comment `/ensemble run` for a new plan.", "replied")
    posted = plan_from_text(str(plans[-1][1].get("plan") or ""))  # an edit that drops a file does not drop its owners
    if why := approvers.plan_refusal(ctx, ctx.event.sender, plan, posted.files):
        return reply(ctx, number, why, "refused")
    return run_issue(ctx, issue, ctx.event.sender, approved_plan=plan)


# The verbs that direct the bot (start or change work): only its `approvers` may (`approve-plan` has its own rule,
# approvers.plan_refusal).
DIRECTING_VERBS = frozenset({"run", "retry", "revise", "update", "verify"})
VERBS = {"run": _run, "retry": _retry, "revise": _revise, "update": update.command, "verify": verify.command,
         "stop": _stop,
         "status": _status, "help": _help, "approve-plan": _approve_plan}

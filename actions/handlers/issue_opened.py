"""`issues.opened` whose body holds an `/ensemble` command on its own line: it runs as a first comment would."""

from __future__ import annotations

from actions.commands import parse_command
from actions.context import Context, Outcome
from actions.handlers.comment import run_command
from actions.handlers.replies import admit


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    command = parse_command(event.body)
    if command is None:
        return Outcome("nothing-to-do", "no /ensemble command in the new issue's body")
    number = event.number or 0
    admitted = admit(ctx, command, number, 0)
    if isinstance(admitted, Outcome):
        return admitted
    command = admitted
    # An issue opened with the trigger label also sends issues.labeled, which starts the same run.
    if command.verb in ("run", "retry") and ctx.trigger_label in ctx.github.issue(number)[2]:
        return Outcome("nothing-to-do", f"issue #{number} was opened with the {ctx.trigger_label!r} label, "
                       "whose event starts the run")
    return run_command(ctx, command, number)

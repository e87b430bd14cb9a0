"""Loop breakers: a cap on the bot's runs per thread per hour, and `/ensemble stop` cancelling the thread's runs.

Comments by bots never trigger anything (actions/handlers/comment.py, issue_opened.py, queued.py);
what is left is a loop through people's automation or a chain of failed checks and fixes. Both
breakers read only GitHub's own state: the bot's progress comments on the thread (one per run,
keyed by the Actions run id in its marker) and the repository's workflow runs.

    run_limit            before a run starts: past `max_runs_per_hour` progress comments on the thread
                         in the last hour, no run; one comment says why and the thread is labelled
                         `ensemble:needs-human`
    cancel_thread_runs   on `/ensemble stop`: cancel the queued and in-progress workflow runs that
                         belong to the thread (the bot's jobs named in its progress markers there, and
                         the runs on the bot's branch), never the job that is answering the stop
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from actions.context import NEEDS_HUMAN, WORKING, Context, Outcome, branch_of_issue
from actions.github import CommentInfo, ForgeError
from actions.markers import ProgressState, marker, progress_state
from actions.render import progress_body

log = logging.getLogger(__name__)
HOUR = timedelta(hours=1)
RECENT_JOBS = 5  # the bot's newest jobs on a thread that a stop looks at


def run_limit(ctx: Context, number: int, runs: list[tuple[CommentInfo, dict[str, object]]]) -> Outcome | None:
    """An Outcome (already explained on #number) when the bot started `max_runs_per_hour` runs there in the
    last hour; None when another run may start. `runs` are the thread's progress markers (`Context.own_markers`)."""
    now = datetime.now(UTC)
    recent = [data for comment, data in runs
              if _within_hour(comment.created_at, now) and data.get("run") != ctx.run_key]  # a re-run job is no new run
    if not recent or len(recent) < (limit := _limit(ctx)):
        return None
    if not any(_within_hour(comment.created_at, now) for comment, _ in ctx.own_markers(number, "loop")):
        ctx.forge.comment(number, f"I have started {len(recent)} runs here in the last hour (`max_runs_per_hour` is "
                          f"{limit}), so I stopped to avoid a loop and started nothing. If another run is really "
                          "wanted, comment `/ensemble run` (or `/ensemble revise …` on the pull request) again "
                          "later.\n\n" + marker("loop", {"runs": len(recent)}))
        ctx.forge.add_labels(number, NEEDS_HUMAN)
    return Outcome("too-many-runs", f"{len(recent)} runs on #{number} in the last hour (max_runs_per_hour is "
                   f"{limit}); not starting another", number)


def _limit(ctx: Context) -> int:
    from actions.settings import remote_config
    from bot.config import Config
    from bot.errors import ConfigError

    try:
        return remote_config(ctx).max_runs_per_hour
    except ConfigError:  # the run itself reports a bad config where people see it
        return Config().max_runs_per_hour


def _within_hour(when: datetime | None, now: datetime) -> bool:
    return when is not None and now - when.astimezone(UTC) < HOUR


def cancel_thread_runs(ctx: Context, issue: int, numbers: list[int], by: str) -> list[int]:
    """Cancel the thread's queued and in-progress workflow runs; their ids, oldest first.

    A run belongs to the thread when the bot's progress marker on one of `numbers` names it (a job of
    the bot working there) or when it runs on the bot's branch for `issue` (CI on the bot's commits,
    whose failure would start a fix). The job answering the stop is never cancelled; a cancelled job of
    the bot gets its progress note and the `ensemble:working` label put right, as it cannot do so itself.
    """
    me = _run_id(ctx.run_key)
    jobs: dict[int, tuple[int, int, ProgressState]] = {}
    for number in numbers:
        for comment, data in ctx.own_markers(number, "progress"):
            if (run := _run_id(str(data.get("run", "")))) and run != me:
                jobs[run] = (number, comment.id, progress_state(data))
    cancelled: list[int] = []
    for run in sorted(jobs)[-RECENT_JOBS:]:
        if _cancel(ctx, run, active_only=True):
            cancelled.append(run)
            number, comment_id, state = jobs[run]
            note = f"Stopped by @{by}: this run's workflow job was cancelled; nothing more is pushed."
            ctx.forge.edit_comment(number, comment_id, progress_body(state | {"note": note}))
    if cancelled:
        for number in numbers:
            ctx.forge.remove_label(number, WORKING)
    for info in ctx.forge.active_runs(branch_of_issue(issue)):
        if info.id != me and info.id not in cancelled and _cancel(ctx, info.id, active_only=False):
            cancelled.append(info.id)
    return sorted(cancelled)


def _cancel(ctx: Context, run: int, active_only: bool) -> bool:
    """Cancel workflow run `run` (only when it has not finished, if `active_only`); failures are logged."""
    try:
        if active_only and ctx.forge.run(run).status == "completed":
            return False
        return ctx.forge.cancel_run(run)
    except ForgeError as exc:  # e.g. 404 for a run id GitHub no longer keeps, 403 without `actions: write`
        log.warning("could not cancel workflow run %s: %s", run, exc)
        return False


def _run_id(key: str) -> int | None:
    """The Actions run id in a progress marker's `run` ('123', '123.456' for a queued command, 'local')."""
    head = key.split(".", 1)[0]
    return int(head) if head.isdigit() else None

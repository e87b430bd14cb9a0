"""A red default branch noticed (`heal.default_branch: issue`): one issue when a check turns red on its head.

Acted on for a failed workflow run of GitHub Actions on the default branch's current head. Its failed
jobs are re-run first, as for the bot's own checks: a check that passes when re-run was flaky and opens
nothing. One that fails again is looked up on the commits before the head (first parents, newest first):
the first that has a result for the failing checks decides. Red there too means the branch was already
red, and the issue for it was opened then; green there makes that commit the last green one and the
commits after it, up to the head, the suspects. The issue names the failing checks and tests, the
suspect commits and, with `heal.mention_authors`, @-mentions their authors. It is opened once per
failing check and first red head: a re-delivered event, a re-run job or a second failing workflow of
the same head finds it by its label and hidden marker. Labelling it `ensemble` runs the normal flow.
"""

from __future__ import annotations

import logging

from actions.context import Context, Outcome
from actions.github import GREEN, CommitInfo
from actions.logcut import cut_failure, failing_tests
from actions.markers import marker, read_marker
from actions.render import red_branch_issue
from actions.settings import remote_config
from bot.config import Config

log = logging.getLogger(__name__)
FAILED = ("failure", "timed_out")
RED_LABEL = "ensemble:red-default-branch"
HISTORY = 30  # commits before the head looked at for the last green one


def on_default_branch(ctx: Context) -> bool:
    """Whether the event is a check that completed on the default branch."""
    return bool(ctx.event.head_branch) and ctx.event.head_branch == ctx.github.default_branch()


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    base = ctx.github.default_branch()
    config = remote_config(ctx)
    if config.heal.default_branch != "issue":
        return Outcome("nothing-to-do", f"a check completed on {base}; heal.default_branch is off")
    if not event.run_id:
        return Outcome("nothing-to-do", f"check suite {event.check_suite_id} on {base}: only GitHub Actions runs "
                       "are watched on the default branch")
    if event.conclusion == "success":
        again = f" (attempt {event.run_attempt}: it was flaky)" if event.run_attempt > 1 else ""
        return Outcome("flaky" if again else "nothing-to-do", f"workflow run {event.run_id} passed on {base}{again}")
    if event.conclusion not in FAILED:
        return Outcome("nothing-to-do", f"workflow run {event.run_id} on {base} concluded {event.conclusion or 'nothing'}")
    head = ctx.github.branch_head(base) or ""
    if head != event.head_sha:
        return Outcome("nothing-to-do", f"the failure was on {event.head_sha[:7]}, but {base} is now at {head[:7]}")
    run = ctx.github.run(event.run_id)
    if run.attempt > event.run_attempt:
        return Outcome("nothing-to-do", f"workflow run {run.id} was re-run already (attempt {run.attempt})")
    failing = ctx.github.failed_jobs(run.id)
    if not failing:
        return Outcome("nothing-to-do", f"workflow run {run.id} has no failed job left (a re-run may be going on)")
    if event.run_attempt == 1:  # not yet re-run: rule out a flaky test before anyone is told
        ctx.github.rerun_failed_jobs(run.id)
        return Outcome("rerun", f"re-ran the failed jobs of workflow run {run.id} on {base} ({', '.join(failing)}) "
                       "to rule out a flaky test")
    return _report(ctx, base, head, run.id, failing, config)


def _report(ctx: Context, base: str, head: str, run_id: int, failing: list[str], config: Config) -> Outcome:
    """The issue for checks that failed twice on the head, unless the branch was red before or it is open already."""
    if duplicate := _opened(ctx, head, failing):
        return Outcome("nothing-to-do", f"issue #{duplicate} already reports {', '.join(failing)} failing on "
                       f"{base} since {head[:7]}")
    green, suspects = _since_green(ctx, head, failing)
    if green is None:
        return Outcome("nothing-to-do", f"{', '.join(failing)} did not pass on a commit before {head[:7]} either "
                       f"(or none was checked), so {base} did not just turn red")
    logs = ctx.github.failed_job_logs(run_id)
    tests = sorted({name for _, log_text in logs for name in failing_tests(log_text)})
    excerpt = "\n\n".join(f"--- job {name} ---\n{cut_failure(text)}" for name, text in logs)
    title, body = red_branch_issue(base, head, green, failing, tests, suspects, excerpt, config.heal.mention_authors,
                                   run_id, config.trigger_label)
    number = ctx.github.create_issue(title, body + "\n\n" + marker("red", {"checks": failing, "first": head}),
                                     (RED_LABEL,))
    return Outcome("red-issue-opened", f"opened issue #{number}: {', '.join(failing)} fail on {base} since "
                   f"{head[:7]} (last green {green[:7]})")


def _opened(ctx: Context, head: str, failing: list[str]) -> int | None:
    """The issue of the bot's that already reports one of these checks failing from `head` on."""
    for issue in ctx.github.labelled_issues(RED_LABEL):
        if issue.login not in ctx.bot_logins and issue.login != ctx.me():
            continue  # anyone may label an issue: only the bot's own carry a marker it trusts
        data = read_marker(issue.body, "red") or {}
        checks = data.get("checks")
        if data.get("first") == head and isinstance(checks, list) and set(map(str, checks)) & set(failing):
            return issue.number
    return None


def _since_green(ctx: Context, head: str, failing: list[str]) -> tuple[str | None, list[CommitInfo]]:
    """The last commit before `head` (first parents) on which the failing checks passed, and the commits after it up
    to `head`, newest first; (None, []) when one of them failed there or none of the commits looked at ran them."""
    listed = {c.sha: c for c in ctx.github.history(head, HISTORY)}
    suspects: list[CommitInfo] = []
    at = head
    while at in listed:
        commit = listed[at]
        if at != head:
            seen = ctx.github.check_conclusions(at)
            results = [seen[name] for name in failing if name in seen]
            if results and any(r in FAILED for r in results):
                return None, []
            if results and all(r in GREEN for r in results):
                return at, suspects
        suspects.append(commit)
        at = commit.parent
    return None, []

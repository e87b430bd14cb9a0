"""PR upkeep: `/ensemble update`, and with `update: auto` a push to the default branch, bring the bot's pull
requests onto the moved base.

One update is one run on the pull request's thread, with a progress comment of its own, so the hourly loop
breaker counts it; it reserves and settles in the spend ledger like a run. The clone's branch is merged with
the default branch (or rebased onto it, `update_strategy`) and judged there by the engine (`Updater`,
bot/ensemble/update.py): a clean update whose judgement holds makes no model call; conflicts go to the coder
and its resolution is judged like any change. Only a good result is pushed, with a lease on the head the
update started from; the pull request's body then shows the tests judged on the new base. Otherwise the pull
request is labelled `ensemble:needs-human`, a comment names the conflicting files, and the branch stays as it
was. A branch holding a human's commit (no `Ensemble-Run:` trailer) is never touched (`gitops.check_hold`).

On a push, only the open pull requests whose changed files the default branch changed since their branch last met
it are updated (not those labelled `ensemble:needs-human`: a person has them), each at most `max_updates_per_pr`
times between two reviews (then one comment says so).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from actions.commands import Command
from actions.context import NEEDS_HUMAN, WORKING, Context, Outcome, branch_of_issue, issue_of_pull
from actions.engine_env import engine_environment
from actions.flow import already_handled, dispatch_checks, push_branch, run_config
from actions.github import CommentInfo, PullInfo
from actions.gitops import check_hold, prepare_clone
from actions.handlers.replies import reply
from actions.ledger import run_spend
from actions.loops import run_limit
from actions.markers import evidence, marker, read_marker
from actions.progress import ProgressComment, StopWatcher
from actions.render import update_left_comment, update_limit_comment, updated_pr_body
from actions.settings import remote_config
from bot.config import Config
from bot.ensemble.types import Task
from bot.redact import clip
from bot.trace import new_run_id, span
from common.git import git

if TYPE_CHECKING:
    from bot.ensemble.update import UpdateJob, UpdateResult

log = logging.getLogger(__name__)
UPDATE = "update"


def command(ctx: Context, command: Command, number: int) -> Outcome:
    """`/ensemble update` on the bot's pull request, or on its issue, by someone who may direct the bot
    (comment.run_command)."""
    if ctx.event.is_pull:
        pull: PullInfo | None = ctx.github.pull(number)
        pull = pull if pull is not None and issue_of_pull(ctx, pull) is not None and pull.state == "open" else None
    else:
        pull = ctx.github.find_pull(branch_of_issue(number))
    if pull is None:
        return reply(ctx, number, "`/ensemble update` works on the open pull requests I opened (or their issues).",
                     "replied")
    return update_pull(ctx, pull, ctx.event.sender, automatic=False)


def on_push(ctx: Context) -> Outcome:
    """A push to the default branch: with `update: auto`, update the open pull requests whose changed files the
    default branch changed since their branch last met it (so a push whose job GitHub dropped is not missed)."""
    event = ctx.event
    base = ctx.github.default_branch()
    if event.head_branch != base:
        return Outcome("nothing-to-do", f"a push to {event.head_branch or event.head_sha[:7]}, not to {base}")
    config = remote_config(ctx)
    if config.update != "auto":
        return Outcome("nothing-to-do", "a push to the default branch; `update` is off, so no pull request is updated")
    pulls = [p for p in ctx.github.open_pulls() if issue_of_pull(ctx, p) is not None and NEEDS_HUMAN not in p.labels]
    if not pulls:
        return Outcome("nothing-to-do", f"a push to {base}; no open pull request of mine to update")
    clone = ctx.github.clone(ctx.workdir / "push")
    outcomes = [update_pull(ctx, pull, event.sender, automatic=True) for pull in pulls if _moved_under(ctx, clone, pull)]
    if not outcomes:
        return Outcome("nothing-to-do", f"{base} changed none of the files my open pull requests change")
    updated = [o for o in outcomes if o.result == "updated"]
    first = (updated or outcomes)[0]
    words = "; ".join(f"#{o.pr_number}: {o.result}" for o in outcomes)
    return replace(first, message=f"{len(updated)} of {len(outcomes)} pull requests updated ({words})",
                   exit_code=max(o.exit_code for o in outcomes))


def update_pull(ctx: Context, pull: PullInfo, by: str, automatic: bool) -> Outcome:
    """Bring pull request `pull` (the bot's) onto the default branch as it is now, judged there."""
    issue = issue_of_pull(ctx, pull)
    if issue is None:
        return Outcome("nothing-to-do", f"PR #{pull.number} is not on an ensemble/issue-<N> branch of this repository")
    runs = ctx.own_markers(pull.number, "progress")  # read once: a thread may hold thousands of comments
    if duplicate := already_handled(ctx, runs):
        return duplicate
    if limited := run_limit(ctx, pull.number, runs):
        return limited
    reviews = len(ctx.github.reviews(pull.number))
    if automatic and (held_back := _update_limit(ctx, pull.number, runs, reviews)):
        return held_back
    remote = ctx.github.branch_head(pull.branch)
    clone = prepare_clone(ctx, pull.branch, remote, f"update-{pull.number}")
    if held := check_hold(ctx, clone, pull.branch, remote, (pull.number, issue)):  # says so on the thread, once
        return replace(held, pr_number=pull.number)
    progress = ProgressComment(ctx, pull.number, by, kind=UPDATE)
    progress.open(f"Starting: bringing `{pull.branch}` onto `{ctx.github.default_branch()}`.")
    ctx.github.add_labels(pull.number, WORKING)
    try:
        config = run_config(ctx, clone, progress)
        return _update(ctx, pull, issue, clone, config, progress, remote or pull.head_sha, reviews)
    finally:
        progress.flush()
        ctx.github.remove_label(pull.number, WORKING)


def _update(ctx: Context, pull: PullInfo, issue: int, clone: Path, config: Config, progress: ProgressComment,
            remote: str, reviews: int) -> Outcome:
    """The update of a clone whose branch is the pull request's: the engine's part, then the push and the body."""
    from bot.ensemble.update import UpdateJob

    base_name = ctx.github.default_branch()
    found = evidence(read_marker(ctx.github.pull(pull.number).body, "evidence"))
    title, body, _ = ctx.github.issue(issue)
    job = UpdateJob(Task(title, body, slug=f"issue-{issue}"), git(clone, "rev-parse", "origin/HEAD").strip(), base_name,
                    config.update_strategy, tuple(found["fixed"]) if found else None,
                    found["reproduction"] if found else "")
    with run_spend(ctx, config, issue, progress) as spend:  # reserved before, settled after (bot/spend.py)
        if spend.refused:
            return replace(spend.refused, pr_number=pull.number)
        update = _run_updater(ctx, clone, job, spend.capped(config), progress, (pull.number, issue))
        spend.charge(update.run)
    if update.up_to_date:
        progress.done("pushed", f"Nothing to do: `{pull.branch}` already holds `{base_name}` at {job.base[:7]}.")
        return Outcome("up-to-date", f"PR #{pull.number} already holds {base_name} at {job.base[:7]}", pull.number)
    summary = _summary(update, base_name)
    if not update.updated:
        progress.update(f"Left the branch as it was: {update.why}.")
        ctx.github.add_labels(pull.number, NEEDS_HUMAN)
        ctx.github.comment(pull.number, update_left_comment(update, base_name, remote))
        return Outcome("update-failed", f"could not bring PR #{pull.number} onto {base_name}: {update.why}",
                       pull.number, 1, run=update.run, update=summary)
    progress.done("judged", f"Judged again on `{base_name}`: {update.run.judgement.reason if update.run.judgement else 'the tests pass'}.")
    if refused := push_branch(ctx, clone, pull.branch, remote, progress, pull.number, config, update.run,
                              rewrite=update.strategy == "rebase"):
        return replace(refused, run=update.run, update=summary)
    count = (found["updates"] if found else 0) + 1
    ctx.github.update_pull_body(pull.number, updated_pr_body(ctx.github.pull(pull.number).body, update, base_name,
                                                             count))
    dispatch_checks(ctx, config, pull.branch)
    head = update.run.commits[-1].sha if update.run.commits else update.head
    note = f"Pushed {head[:7]}: `{pull.branch}` now holds `{base_name}` at {job.base[:7]} ({summary})."
    progress.update(note, reviews=reviews, updated=True)
    progress.done("pushed", note)
    return Outcome("updated", note, pull.number, run=update.run, update=summary)


def _run_updater(ctx: Context, clone: Path, job: UpdateJob, config: Config, progress: ProgressComment,
                 numbers: tuple[int, ...]) -> UpdateResult:
    """The engine's update, in its own process under the Action, watched for `/ensemble stop`."""
    from actions.engine_process import ChildUpdater

    updater = ctx.updater or ChildUpdater()
    env = engine_environment(ctx.env, config)  # no GitHub credential: the engine talks to models
    run_id = new_run_id()
    with StopWatcher(ctx, numbers, after_id=progress.id or 0) as watcher, span("ensemble.engine", engine_run=run_id):
        try:
            return updater(clone, job, config, env, run_id=run_id, progress=progress.on_progress, stop=watcher.event)
        except Exception as exc:
            progress.update(f"The update failed and nothing was pushed: {type(exc).__name__}: {clip(str(exc), 500)}")
            raise


def _summary(update: UpdateResult, base_name: str) -> str:
    """The update in a few words, for the step summary."""
    how = "merged" if update.strategy == "merge" else "rebased onto"
    calls = update.run.usage["calls"]
    if not update.conflicts:
        done = "clean, no model call"
    elif update.updated:
        done = f"conflicts in {', '.join(update.conflicts)} resolved by the coder in {update.rounds} attempt(s)"
    else:
        done = f"conflicts in {', '.join(update.conflicts)} not resolved"
    judged = update.run.judgement
    verdict = f"judged there: {judged.reason}" if judged else "not judged"
    asked = f"; {calls} model call{'' if calls == 1 else 's'}" if calls else ""
    return f"{how} {base_name} ({update.base[:7]}): {done}; {verdict}{asked}"


def _update_limit(ctx: Context, number: int, runs: list[tuple[CommentInfo, dict[str, object]]],
                  reviews: int) -> Outcome | None:
    """An Outcome (said once on the thread) when PR #number was updated `max_updates_per_pr` times since its last
    review; None when another automatic update may run."""
    limit = remote_config(ctx).max_updates_per_pr
    done = [data for _, data in runs if data.get("kind") == UPDATE and data.get("updated") and
            data.get("reviews") == reviews]
    if len(done) < limit:
        return None
    if not any(data.get("reviews") == reviews for _, data in ctx.own_markers(number, "update-limit")):
        ctx.github.comment(number, update_limit_comment(len(done), limit) + "\n\n" +
                           marker("update-limit", {"reviews": reviews}))
    return Outcome("update-limit", f"PR #{number} was updated {len(done)} times since its last review "
                   f"(max_updates_per_pr is {limit}); not updating it again", number)


def _moved_under(ctx: Context, clone: Path, pull: PullInfo) -> bool:
    """Whether the default branch changed, since the pull request's branch last met it, a file the branch changes."""
    head = ctx.github.fetch(clone, pull.branch)
    if head is None:
        return False
    met = git(clone, "merge-base", "origin/HEAD", head).strip()

    def files(start: str, end: str) -> set[str]:
        return set(filter(None, git(clone, "diff", "--name-only", "-z", start, end).split("\0")))

    touched = files(met, "origin/HEAD") & files(met, head)
    if not touched:
        log.info("PR #%s: the default branch changed none of its files; left alone", pull.number)
    return bool(touched)

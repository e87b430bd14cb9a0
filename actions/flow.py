"""The two ways the bot changes code on GitHub: an issue becomes a draft PR; a PR gets a revision.

Both clone with the token kept out of `.git/config`, run the engine with a progress comment
and a stop watcher, and push the branch with `--force-with-lease` against the head they
started from. Every step checks what already exists first, so a re-delivered event or a
re-run job never opens a second PR, and a run killed between push and PR resumes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from actions.context import NEEDS_HUMAN, PARTIAL, WORKING, Context, Outcome, branch_of_issue, issue_of_branch
from actions.deadline import with_job_deadline
from actions.engine import plan_text
from actions.engine_env import engine_environment
from actions.github import CommentInfo, GitHubError, PullInfo
from actions.gitops import check_hold, complete_history, prepare_clone
from actions.ledger import Spend, run_spend
from actions.loops import run_limit
from actions.markers import progress_state
from actions.progress import ProgressComment, StopWatcher
from actions.render import nothing_kept, plan_comment, pr_body, questions_comment
from actions.settings import register_secrets, remote_config
from actions.threads import answer_threads, request_review
from bot.config import Config, load_config
from bot.ensemble.types import STOPPED, Plan, RunResult, Task
from bot.redact import clip
from bot.trace import new_run_id, span

log = logging.getLogger(__name__)


def run_issue(ctx: Context, issue: int, by: str, retry: bool = False, approved_plan: Plan | None = None,
              admitted: Callable[[str | None], None] | None = None) -> Outcome:
    """Turn issue #`issue` into a draft PR (or continue its branch on retry / after plan approval).

    `admitted` is told the branch's head once the run passed its gates (not a re-delivery, under the hourly
    limit), before it reads the branch for a human's commits: where `/ensemble retry` says where it continues.
    """
    branch = branch_of_issue(issue)
    pull = ctx.github.find_pull(branch)
    # An approved plan is one run: approving again does not run (and pay) again. A PR of partial work is
    # continued by a new run, on its branch.
    if pull and not retry and PARTIAL not in pull.labels:
        return Outcome("exists", f"PR #{pull.number} is already open for issue #{issue}; nothing to do", pull.number)
    remote = ctx.github.branch_head(branch)
    if remote and not pull and not retry and (resumed := _resume(ctx, issue, branch, remote)):
        return resumed
    runs = ctx.own_markers(issue, "progress")  # read once: a thread may hold thousands of comments
    if duplicate := already_handled(ctx, runs):
        return duplicate
    if limited := run_limit(ctx, issue, runs):
        return limited
    if admitted is not None:
        admitted(remote)
    ctx.need_engine()
    title, body, labels = ctx.github.issue(issue)
    progress = ProgressComment(ctx, issue, by)
    progress.open("Starting: cloning the repository.")
    ctx.github.add_labels(issue, WORKING)
    if NEEDS_HUMAN in labels:
        ctx.github.remove_label(issue, NEEDS_HUMAN)
    try:
        clone = prepare_clone(ctx, branch, remote, f"issue-{issue}")
        numbers = (pull.number, issue) if pull else (issue,)
        if held := check_hold(ctx, clone, branch, remote, numbers):
            progress.update("Stopped: " + held.message)
            return held
        config = run_config(ctx, clone, progress)
        complete_history(ctx.github, clone, config.index.history)
        task = Task(title, body + _answers(ctx, issue), slug=f"issue-{issue}", plan=approved_plan)
        with run_spend(ctx, config, issue, progress) as spend:  # reserved before, settled after (bot/spend.py)
            if spend.refused:
                return spend.refused
            if config.require_plan_approval and not approved_plan:
                return _post_plan(ctx, clone, task, spend.capped(config), issue, progress, spend)
            result = _run_engine(ctx, clone, task, spend.capped(config), progress, numbers)
            spend.charge(result)
        return replace(_finish_issue(ctx, issue, branch, remote, clone, config, result, progress), run=result)
    finally:
        progress.flush()  # a coalesced last tick or note must not be lost with the job
        ctx.github.remove_label(issue, WORKING)


def _answers(ctx: Context, issue: int) -> str:
    """The planner's last questions on the issue and the answers people with write access gave since."""
    asked = ctx.own_markers(issue, "questions")
    if not asked:
        return ""
    question_comment, data = asked[-1]
    answers = []
    for comment in ctx.github.comments(issue):
        if comment.id <= question_comment.id or comment.is_bot or ctx.is_own(comment):
            continue
        text = "\n".join(line for line in comment.body.splitlines() if not line.strip().startswith("/ensemble"))
        if text.strip() and ctx.may_trigger(comment.login):
            answers.append(f"@{comment.login} answered:\n{text.strip()}")
    if not answers:
        return ""
    listed = data.get("questions")
    questions = "\n".join(f"{i}. {q}" for i, q in enumerate(listed if isinstance(listed, list) else [], 1))
    return "\n\n## The planner's questions\n" + questions + "\n\n## Answers\n" + "\n\n".join(answers)


def revise_pull(ctx: Context, pull: PullInfo, instructions: str, by: str, what: str) -> Outcome:
    """Revise the bot's PR as instructed and push a new commit; `what` names the reason in comments."""
    issue = issue_of_branch(pull.branch)
    if issue is None:
        return Outcome("nothing-to-do", f"PR #{pull.number} is not on an ensemble/issue-<N> branch")
    runs = ctx.own_markers(pull.number, "progress")  # read once: a thread may hold thousands of comments
    if duplicate := already_handled(ctx, runs):
        return duplicate
    if limited := run_limit(ctx, pull.number, runs):
        return limited
    ctx.need_engine()
    remote = ctx.github.branch_head(pull.branch)
    title, body, _ = ctx.github.issue(issue)
    progress = ProgressComment(ctx, pull.number, by)
    progress.open(f"Starting: {what}.")
    ctx.github.add_labels(pull.number, WORKING)
    try:
        clone = prepare_clone(ctx, pull.branch, remote, f"pr-{pull.number}")
        if held := check_hold(ctx, clone, pull.branch, remote, (pull.number, issue)):
            progress.update("Stopped: " + held.message)
            return held
        config = run_config(ctx, clone, progress)
        complete_history(ctx.github, clone, config.index.history)
        task = Task(title, f"{body}\n\n## Requested revision ({what})\n{instructions}", slug=f"issue-{issue}")
        with run_spend(ctx, config, issue, progress) as spend:  # reserved before, settled after (bot/spend.py)
            if spend.refused:
                return replace(spend.refused, pr_number=pull.number)
            result = _run_engine(ctx, clone, task, spend.capped(config), progress, (pull.number, issue))
            spend.charge(result)
        if result.stop_reason == STOPPED:
            progress.update(f"Stopped by @{_stopper(result)}; nothing was pushed.")
            return Outcome("stopped", f"the revision of PR #{pull.number} was stopped", pull.number, run=result)
        if not result.commits:
            progress.update(f"I could not produce a passing revision: {result.stop_words}.")
            ctx.github.add_labels(pull.number, NEEDS_HUMAN)
            return Outcome("failed", f"no passing revision for PR #{pull.number}: {result.stop_words}", pull.number, 1,
                           run=result)
        approved = {r.id: r.login for r in ctx.github.reviews(pull.number) if r.state == "APPROVED"}
        if refused := push_branch(ctx, clone, pull.branch, remote, progress, pull.number, config, result):
            return replace(refused, run=result)
        dispatch_checks(ctx, config, pull.branch)
        head = result.commits[-1].sha
        note = (f"Pushed {head[:7]} ({what})." + _dismissed(ctx, pull.number, approved) +
                answer_threads(ctx, pull.number, clone, remote or pull.head_sha, head))
        request_review(ctx, pull.number, by)
        progress.done("pr", note)
        return Outcome("revised", note, pull.number, run=result)
    finally:
        progress.flush()  # a coalesced last tick or note must not be lost with the job
        ctx.github.remove_label(pull.number, WORKING)


def already_handled(ctx: Context, runs: list[tuple[CommentInfo, dict[str, object]]]) -> Outcome | None:
    """An Outcome when another Actions run already handled this very event (a re-delivery); `runs` are the
    thread's progress markers."""
    trigger = ctx.event.delivery
    for _, data in runs if trigger else []:
        if data.get("trigger") == trigger and data.get("run") != ctx.run_key:
            return Outcome("duplicate", f"this event was already handled by run {data.get('run')}; nothing to do")
    return None


def run_config(ctx: Context, clone: Path, progress: ProgressComment) -> Config:
    from bot.errors import ConfigError

    try:
        config = with_job_deadline(ctx, load_config(clone, ctx.env, ctx.config_path))
    except ConfigError as exc:
        progress.update(f"The configuration is invalid, so nothing ran:\n\n```text\n{exc}\n```")
        raise
    register_secrets(ctx, config)
    return config


def _run_engine(ctx: Context, clone: Path, task: Task, config: Config, progress: ProgressComment,
                numbers: tuple[int, ...]) -> RunResult:
    env = engine_environment(ctx.env, config)  # no GitHub credential: the engine talks to models
    run_id = new_run_id()
    after = progress.id or 0
    if progress.reused:  # a re-run of this job: a stop that ended the earlier attempt is spent
        after = max([after, *(c.id for n in numbers for c in ctx.github.comments(n))])
    with StopWatcher(ctx, numbers, after_id=after) as watcher, span("ensemble.engine", engine_run=run_id):
        try:
            result = ctx.engine(clone, task, config, env, run_id=run_id, progress=progress.on_progress,
                                stop=watcher.event)
        except Exception as exc:
            progress.update(f"The run failed and nothing was pushed: {type(exc).__name__}: {clip(str(exc), 500)}")
            raise
    if watcher.by:
        result.notes.append(f"stopped by @{watcher.by}")
    return result


def _stopper(result: RunResult) -> str:
    return next((n.removeprefix("stopped by @") for n in result.notes if n.startswith("stopped by @")), "someone")


def _finish_issue(ctx: Context, issue: int, branch: str, remote: str | None, clone: Path, config: Config,
                  result: RunResult, progress: ProgressComment) -> Outcome:
    if result.stop_reason == STOPPED and not result.partial:
        progress.update(f"Stopped by @{_stopper(result)}; nothing was pushed: {nothing_kept(result)}.")
        return Outcome("stopped", f"the run on issue #{issue} was stopped")
    if result.questions:
        ctx.github.comment(issue, questions_comment(result.questions))
        progress.update("Waiting for answers to the planner's questions.", stage="questions")
        return Outcome("questions", f"the planner asked {len(result.questions)} questions on issue #{issue}")
    if not result.commits:
        progress.update(f"I could not produce a passing change: {result.stop_words}. {result.stop_detail}".strip()
                        + f"\n\nNothing was published: {nothing_kept(result)}.")
        ctx.github.add_labels(issue, NEEDS_HUMAN)
        return Outcome("failed", f"no passing change for issue #{issue}: {result.stop_words}", exit_code=1)
    body = pr_body(result, issue)
    # What a re-run needs to open the PR goes on record before the push: a job killed just after it
    # resumes from here (it does only when the branch on GitHub is this very head).
    progress.update("Pushing the branch.", stage="pushed", head=result.commits[-1].sha, title=result.task.title,
                    pr_body=body, partial=result.partial)
    if refused := push_branch(ctx, clone, branch, remote, progress, issue, config, result):
        return refused
    if config.commit.verified:  # GitHub's commits replaced the run's: their SHAs go on record
        body = pr_body(result, issue)
        progress.update("Pushing the branch.", stage="pushed", head=result.commits[-1].sha, title=result.task.title,
                        pr_body=body, partial=result.partial)
    progress.done("reviewed", "Pushed the branch; opening the pull request.")
    return _open_pull(ctx, issue, branch, result.task.title, body, progress, config, result.partial)


def push_branch(ctx: Context, clone: Path, branch: str, remote: str | None, progress: ProgressComment,
                number: int, config: Config, result: RunResult, rewrite: bool = False) -> Outcome | None:
    """Push `branch` over `remote`; when GitHub refuses (someone pushed meanwhile), an Outcome that says so,
    with the run's commits kept on a branch of their own so nothing is lost. With `commit.verified` the commits
    on GitHub are new ones the API made: `result.commits` takes their SHAs. `rewrite`: the branch was rebased."""
    try:
        made = ctx.github.push(clone, branch, remote, verified=config.commit.verified, rewrite=rewrite)
        result.commits = [replace(c, sha=made.get(c.sha, c.sha)) for c in result.commits]
        return None
    except GitHubError as exc:
        refusal = exc
    moved = ctx.github.branch_head(branch) != remote
    kept = f"{branch}-unpushed-{ctx.run_key}"
    try:
        ctx.github.push(clone, kept, None, source=f"refs/heads/{branch}")
        saved = f"My commits are kept on the branch `{kept}`."
    except GitHubError as exc:
        saved = f"I could not keep my commits on a branch of their own either ({exc})."
    why = ("it moved while I worked, and I never overwrite commits I did not make" if moved else
           "GitHub refused the push")
    progress.update(f"I could not push to `{branch}`: {why}. {saved} Comment `/ensemble retry` to run again on top "
                    f"of the branch as it is now.\n\n```text\n{refusal}\n```")
    ctx.github.add_labels(number, NEEDS_HUMAN)
    return Outcome("push-rejected", f"could not push {branch} ({why}); the commits are kept on {kept}", number, 1)


def _open_pull(ctx: Context, issue: int, branch: str, title: str, body: str, progress: ProgressComment,
               config: Config | None, partial: bool = False) -> Outcome:
    base = ctx.github.default_branch()
    pull = ctx.github.open_draft_pull(branch, base, f"{title} (#{issue})", body)
    if partial:  # the label says so where PRs are listed; a later run that passes takes it off
        ctx.github.add_labels(pull.number, PARTIAL)
        progress.done("pr", f"Opened draft pull request #{pull.number} with partial work (labelled `{PARTIAL}`): "
                      "it fixes some tests and breaks none, but the task is not done; its description says what is "
                      "left. Comment `/ensemble retry` to continue from it.")
    else:
        if PARTIAL in pull.labels:  # the PR of an earlier partial run, continued
            ctx.github.remove_label(pull.number, PARTIAL)
        progress.done("pr", f"Opened draft pull request #{pull.number}.")
    progress.update(progress.state["note"], stage="pr", pr=pull.number, pr_body="")
    request_review(ctx, pull.number, str(progress.state.get("by") or ""))
    if config is not None:
        dispatch_checks(ctx, config, branch)
    if partial:
        return Outcome("partial-pr-opened", f"opened draft PR #{pull.number} with partial work for issue #{issue}",
                       pull.number, 1)
    return Outcome("pr-opened", f"opened draft PR #{pull.number} for issue #{issue}", pull.number)


def _resume(ctx: Context, issue: int, branch: str, remote: str) -> Outcome | None:
    """A run that pushed but died before opening the PR: open it now from the saved state."""
    for comment, marked in reversed(ctx.own_markers(issue, "progress")):
        data = progress_state(marked)
        if data.get("stage") == "pushed" and data.get("head") == remote and data.get("pr_body"):
            progress = ProgressComment(ctx, issue, data.get("by", ""))
            progress.id, progress.state = comment.id, data
            log.info("resuming run %s: the branch was pushed but no PR was opened", data.get("run"))
            progress.done("reviewed", "Pushed the branch; opening the pull request.")
            opened = _open_pull(ctx, issue, branch, data.get("title", f"Issue #{issue}"), data["pr_body"], progress,
                                remote_config(ctx), bool(data.get("partial")))
            ctx.github.remove_label(issue, WORKING)  # the killed run could not take it off
            return opened
    return None


def _post_plan(ctx: Context, clone: Path, task: Task, config: Config, issue: int, progress: ProgressComment,
               spend: Spend) -> Outcome:
    plan = ctx.planner(clone, task, config, engine_environment(ctx.env, config))
    spend.charge(plan)
    if plan.questions:
        ctx.github.comment(issue, questions_comment(plan.questions))
        progress.update("Waiting for answers to the planner's questions.", stage="questions")
        return Outcome("questions", f"the planner asked {len(plan.questions)} questions on issue #{issue}")
    ctx.github.comment(issue, plan_comment(plan_text(plan), ctx.run_key))
    progress.done("planned", "Waiting for `/ensemble approve-plan`.")
    return Outcome("plan-posted", f"posted the plan on issue #{issue}; waiting for /ensemble approve-plan")


def dispatch_checks(ctx: Context, config: Config, branch: str) -> None:
    """With the default token our pushes start no workflows: dispatch the configured ones."""
    if not ctx.default_token:
        return
    if not config.heal.workflows:
        log.warning("pushes made with the default GITHUB_TOKEN start no workflow runs; list your CI workflows in "
                    "heal.workflows, or pass an App token or PAT as github-token")
    for workflow in config.heal.workflows:
        ctx.github.dispatch(workflow, branch)


def _dismissed(ctx: Context, number: int, approved: dict[int, str]) -> str:
    """A sentence naming approvals that our push dismissed (branch protection dismisses stale approvals)."""
    if not approved:
        return ""
    dismissed = sorted({approved[r.id] for r in ctx.github.reviews(number) if r.id in approved and r.state == "DISMISSED"})
    if not dismissed:
        return ""
    return f" This push dismissed the approval by {', '.join(f'@{name}' for name in dismissed)}; please review again."

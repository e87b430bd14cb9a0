"""`ensemble handle-event` as a function: event in, Outcome out, outputs and step summary written.

Settings come from the standard Actions variables (GITHUB_*) and from the composite action's
inputs, which action.yml passes as ENSEMBLE_* variables:

    ENSEMBLE_TRIGGER_LABEL   the label that starts a run (default: the config's trigger_label)
    ENSEMBLE_CONFIG_PATH     config file in the repository (default .github/ensemble.yml)
    ENSEMBLE_DEFAULT_TOKEN   "true" when github-token is the default GITHUB_TOKEN (pushes start no CI)
    ENSEMBLE_BOT_LOGIN       the login the bot comments as, when it is not a `[bot]` account (a PAT's user)
    ENSEMBLE_WORKDIR         where clones go (default: RUNNER_TEMP or the system temp dir)
    ENSEMBLE_STOP_POLL_S     how often a run looks for `/ensemble stop` (default 15 seconds)
    ENSEMBLE_JOB_TIMEOUT_MINUTES  the job's timeout-minutes, for the default deadline (actions/deadline.py)
    ENSEMBLE_RUNS_DIR        where execution traces go (default: RUNNER_TEMP or the system temp dir,
                             then ensemble-runs); the event's trace and the engine's run trace both land there
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from actions.context import NEEDS_ENGINE, Context, EngineNeeded, Outcome, branch_of_issue, issue_of_branch
from actions.engine import Engine, Planner, Updater, Verifier
from actions.engine_process import ChildEngine, ChildPlanner, ChildUpdater, ChildVerifier
from actions.events import Event, load_event
from actions.github.markdown import allowed_hosts, neutralise_links
from actions.github.snapshot import SnapshotPlan
from actions.handlers.comment import answer_queued
from actions.router import route
from actions.summary import pull_url, step_summary
from bot.config import CONFIG_PATH
from bot.errors import UsageError
from bot.persist import append_text
from bot.redact import secret_values
from bot.trace import Tracer, runs_dir, span

log = logging.getLogger(__name__)
# Events the workflow's filter would not even start a job for, and green re-runs (a light job of their own
# concurrency group, which must not run the engine commands queued in the branch's group)
QUIET_RESULTS = ("nothing-to-do", "refused", "flaky")


def handle_event(env: Mapping[str, str], engine: Engine | None = None, planner: Planner | None = None,
                 updater: Updater | None = None, verifier: Verifier | None = None) -> Outcome:
    """Handle the event described by `env`; write GITHUB_OUTPUT and GITHUB_STEP_SUMMARY."""
    event = load_event(env)
    handler = route(event.name, event.action)
    spans: list[dict[str, object]] = []
    if handler is None:
        outcome = Outcome("nothing-to-do", f"nothing to do for {event.name}.{event.action or '(no action)'}")
    else:
        tracer = Tracer.for_run(runs_dir(env, _temp_root(env) / "ensemble-runs"), env=env)
        with tracer.activate(), span("ensemble.event", event=event.name, action=event.action) as s:
            ctx = build_context(env, event, engine, planner, updater, verifier)
            s.set(run_key=ctx.run_key)
            try:
                outcome = handler(ctx)
                outcome = replace(outcome, spend=outcome.spend or ctx.spend)  # the spend ledger's figures, if kept
                if outcome.result not in QUIET_RESULTS:
                    answer_queued(ctx)  # commands GitHub dropped from the queue behind this job
            except EngineNeeded as needed:  # only idempotent writes so far: install the extra, run again
                outcome = Outcome(NEEDS_ENGINE, f"this event runs the engine, but {needed}")
            finally:
                ctx.github.flush_reaction()  # a 👀 that waited for a comment the event did not write
                shutil.rmtree(ctx.workdir, ignore_errors=True)  # self-hosted runners keep their disks
            s.set(result=outcome.result, pr_number=outcome.pr_number)
        spans = _spans(tracer.path, Path(outcome.run.trace) if outcome.run and outcome.run.trace else None)
    write_outputs(env, outcome, spans)
    return outcome


def _spans(*paths: Path | None) -> list[dict[str, object]]:
    """The span records of the event's trace and the engine's run trace (unreadable lines skipped)."""
    from bot.report import load

    files = list(dict.fromkeys(path.resolve() for path in paths if path is not None and path.is_file()))
    return load(files).records if files else []


def _temp_root(env: Mapping[str, str]) -> Path:
    return Path(env.get("RUNNER_TEMP") or tempfile.gettempdir())


def build_context(env: Mapping[str, str], event: Event, engine: Engine | None, planner: Planner | None,
                  updater: Updater | None = None, verifier: Verifier | None = None) -> Context:
    """A Context from the environment; a missing token or repository is a usage error."""
    from actions.github import GitHubRepo

    token = env.get("GITHUB_TOKEN", "")
    if not token:
        raise UsageError("GITHUB_TOKEN is not set; pass the action's `github-token` input (an App token or PAT "
                         "is recommended, see the README)")
    repo = env.get("GITHUB_REPOSITORY") or event.repo
    github = GitHubRepo(repo, token, env.get("GITHUB_API_URL", "https://api.github.com"),
                        env.get("GITHUB_SERVER_URL", "https://github.com"),
                        secrets=secret_values(env), default_branch=event.default_branch)
    github.expect(snapshot_plan(event, env.get("ENSEMBLE_CONFIG_PATH") or CONFIG_PATH))
    workdir = Path(env.get("ENSEMBLE_WORKDIR") or _temp_root(env) / "ensemble")
    bots = {"github-actions[bot]", *filter(None, [env.get("ENSEMBLE_BOT_LOGIN", "")])}
    ctx = Context(event=event, github=github, env=env, workdir=workdir / secrets.token_hex(4),
                  engine=engine or ChildEngine(), planner=planner or ChildPlanner(), updater=updater or ChildUpdater(),
                  verifier=verifier or ChildVerifier(),
                  config_path=env.get("ENSEMBLE_CONFIG_PATH") or None,
                  default_token=env.get("ENSEMBLE_DEFAULT_TOKEN", "true").lower() == "true",
                  run_key=env.get("GITHUB_RUN_ID", "local"), bot_logins=frozenset(bots),
                  stop_poll_s=float(env.get("ENSEMBLE_STOP_POLL_S", "15")),
                  engine_missing=_engine_missing(engine, planner))
    ctx.trigger_label = env.get("ENSEMBLE_TRIGGER_LABEL") or _config_label(ctx)
    return ctx


def snapshot_plan(event: Event, config_path: str) -> SnapshotPlan:
    """What the event's first questions are about, for its one GraphQL snapshot (actions/github/snapshot.py):
    its issue or pull request, the sender, the bot's branch where the event names it, the config file."""
    branch = event.head_branch if issue_of_branch(event.head_branch) is not None else ""
    if event.number and not event.is_pull and not branch:
        branch = branch_of_issue(event.number)  # the pull request of an issue's run comes from this branch
    return SnapshotPlan(number=event.number, login=event.sender, branch=branch, config=config_path,
                        ref=event.default_branch)


def _engine_missing(engine: Engine | None, planner: Planner | None) -> str:
    """Why the real engine cannot run in this install ('' when it can, or when both parts are injected)."""
    if engine is not None and planner is not None:
        return ""
    from bot.extras import engine_missing_message

    return engine_missing_message()


def _config_label(ctx: Context) -> str:
    if ctx.event.name != "issues":
        return "ensemble"
    from actions.settings import remote_config

    return remote_config(ctx).trigger_label


def write_outputs(env: Mapping[str, str], outcome: Outcome, spans: Iterable[dict[str, object]] = ()) -> None:
    """`pr-number`, `result` and `evidence` (a verification's file, for a job that could not post it) to GITHUB_OUTPUT
    (with a random delimiter), the run's summary to the step summary."""
    if path := env.get("GITHUB_OUTPUT"):
        delimiter = f"ghadelim_{secrets.token_hex(8)}"
        append_text(Path(path), f"pr-number<<{delimiter}\n{outcome.pr_number or ''}\n{delimiter}\n"
                                f"result<<{delimiter}\n{outcome.result}\n{delimiter}\n"
                                f"evidence<<{delimiter}\n{outcome.evidence}\n{delimiter}\n")
    if (path := env.get("GITHUB_STEP_SUMMARY")) and outcome.result != NEEDS_ENGINE:  # the second pass reports
        url = pull_url(env.get("GITHUB_SERVER_URL", "https://github.com"), env.get("GITHUB_REPOSITORY", ""),
                       outcome.pr_number)
        server = env.get("GITHUB_SERVER_URL", "https://github.com")
        append_text(Path(path), neutralise_links(step_summary(outcome, spans, url), allowed_hosts(server)))


def environment() -> Mapping[str, str]:
    """The process environment (a seam for tests)."""
    return os.environ

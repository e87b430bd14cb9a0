"""The run's deadline in the Action: the job's `timeout-minutes` less a margin, unless the config sets one.

GitHub kills a job at its `timeout-minutes` with no chance to push, and the run's work is lost. A run
that stops at its deadline (`deadline_minutes`) instead keeps its best judged change, and one that fixed
some tests is published as partial work. So when the config sets no `deadline_minutes`, the handler
takes the job's limit from, in order:

1. the action's `job-timeout-minutes` input (`ENSEMBLE_JOB_TIMEOUT_MINUTES`), for workflows whose limit
   is an expression or lives elsewhere (a reusable workflow);
2. `jobs.<GITHUB_JOB>.timeout-minutes` of the workflow file that runs (`GITHUB_WORKFLOW_REF`), read
   through the API at the commit that runs (`GITHUB_WORKFLOW_SHA`);
3. GitHub's default, 360 minutes.

The margin leaves time for what comes before the engine (setup, install, clone) and after it (push,
pull request): a quarter of the limit, at least 5 and at most 15 minutes.
"""

from __future__ import annotations

import dataclasses
import logging
import math

import yaml

from actions.context import Context
from bot.config import Config
from bot.errors import ConfigError, ConfigIssue

log = logging.getLogger(__name__)
GITHUB_DEFAULT_MINUTES = 360.0
INPUT = "ENSEMBLE_JOB_TIMEOUT_MINUTES"


def with_job_deadline(ctx: Context, config: Config) -> Config:
    """`config` with `deadline_minutes` set from the job's limit, when the config sets none."""
    if config.deadline_minutes is not None:
        return config
    limit = job_minutes(ctx)
    deadline = run_deadline(limit)
    log.info("deadline_minutes: %.1f (the job's limit of %g minutes less a margin)", deadline, limit)
    return dataclasses.replace(config, deadline_minutes=deadline)


def run_deadline(limit: float) -> float:
    """The engine's minutes within a job of `limit` minutes: the limit less a quarter of it, 5 to 15 minutes."""
    margin = min(15.0, max(5.0, limit / 4))
    return round(max(limit - margin, limit / 2), 2)


def job_minutes(ctx: Context) -> float:
    """The job's `timeout-minutes`: the action's input, else the running workflow's file, else GitHub's default."""
    if raw := ctx.env.get(INPUT, "").strip():
        return _positive(raw)
    return _from_workflow(ctx) or GITHUB_DEFAULT_MINUTES


def _positive(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ConfigError([ConfigIssue("environment", None, INPUT, f"{raw!r} is not a positive number of minutes; "
                                       "set the action's job-timeout-minutes input to the job's timeout-minutes, "
                                       "like 60, or leave it empty")])
    return value


def _from_workflow(ctx: Context) -> float | None:
    """`timeout-minutes` of the running job in the workflow file, or None when it cannot be read as a number."""
    ref, job = ctx.env.get("GITHUB_WORKFLOW_REF", ""), ctx.env.get("GITHUB_JOB", "")
    where, _, at = ref.partition("@")
    repo, _, path = where.partition("/.github/")
    if not (job and path and repo.lower() == ctx.forge.full_name.lower()):
        return None  # not run by a workflow of this repository (a reusable workflow: use the input)
    text = ctx.forge.read_file(f".github/{path}", ctx.env.get("GITHUB_WORKFLOW_SHA") or at)
    try:
        data: object = yaml.safe_load(text or "")
    except yaml.YAMLError:
        return None
    jobs = data.get("jobs") if isinstance(data, dict) else None
    spec = jobs.get(job) if isinstance(jobs, dict) else None
    value = spec.get("timeout-minutes") if isinstance(spec, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    if value is not None:
        log.info("the job's timeout-minutes (%r) is not a number; pass it as job-timeout-minutes", value)
    return None

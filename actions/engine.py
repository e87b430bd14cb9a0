"""The engine as the handlers see it: two small Protocols, and adapters over `bot.ensemble`.

Handlers never import the ensemble directly, so end-to-end tests drive them with a
deterministic engine that makes real commits in the clone (and a `Verifier` for `/ensemble verify`). The contract of `Engine`: run
the task in `repo_dir` (a clone whose default branch is checked out), leave the result as
commits on the local branch `ensemble/<task.slug>` (continuing from it when it exists),
each with an `Ensemble-Run:` trailer, and return a `RunResult`. Under the Action `ensemble_engine`
and `ensemble_planner` run in a child process without the GitHub token (`actions/engine_process.py`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.config import Config
from bot.ensemble.types import Plan, Progress, RunResult, Task

if TYPE_CHECKING:
    from bot.ensemble.runner import Components
    from bot.ensemble.update import UpdateJob, UpdateResult
    from bot.ensemble.verify import VerifyJob, VerifyResult

# The clone's default branch: the repository's instructions (AGENTS.md ...) are read from it, never
# from a pull request's head, so a PR cannot bring instructions of its own.
DEFAULT_BRANCH = "origin/HEAD"


class Engine(Protocol):
    """Runs one task to a branch."""

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], /, *,
                 run_id: str, progress: Progress, stop: threading.Event) -> RunResult:
        """Run the task; `stop` is set when a human asks the run to stop."""
        ...


class Updater(Protocol):
    """Brings the bot's branch `ensemble/<job.task.slug>` onto a moved base in `repo_dir` and judges it there
    (`bot.ensemble.update`); the local branch moves only when the result is good."""

    def __call__(self, repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str], /, *,
                 run_id: str, progress: Progress, stop: threading.Event) -> UpdateResult:
        """Update the branch; `stop` is set when a human asks the run to stop."""
        ...


class Verifier(Protocol):
    """Judges a pull request's head against its merge base in `repo_dir` (`bot.ensemble.verify`): what its tests
    prove. No model call unless `verify.review` is on."""

    def __call__(self, repo_dir: Path, job: VerifyJob, config: Config, env: Mapping[str, str], /, *,
                 run_id: str, progress: Progress, stop: threading.Event) -> VerifyResult:
        """Verify the pull request; `stop` is set when the job is asked to stop."""
        ...


class Planner(Protocol):
    """Produces a plan without writing code (for `require_plan_approval: true`)."""

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str]) -> Plan:
        """The planner's plan for the task."""
        ...


def ensemble_engine(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *,
                    run_id: str, progress: Progress, stop: threading.Event,
                    components: Components | None = None) -> RunResult:
    """The real engine: `bot.ensemble.runner.run_task`; the repository's instructions come from the default branch.

    `components` passes in models, retrieval or a test runner (tests); the rest is built from the config.
    """
    from dataclasses import replace

    from bot.ensemble.runner import Components, run_task

    parts = replace(components or Components(), progress=progress, stop=stop, instructions_ref=DEFAULT_BRANCH)
    return run_task(repo_dir, task, config, env, parts, run_id=run_id)


def ensemble_updater(repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str], *,
                     run_id: str, progress: Progress, stop: threading.Event,
                     components: Components | None = None) -> UpdateResult:
    """The real update: `bot.ensemble.update.update_branch` (no model call unless the update conflicts).

    `components` passes in models or a test runner (tests); the rest is built from the config.
    """
    from dataclasses import replace

    from bot.ensemble.runner import Components
    from bot.ensemble.update import update_branch

    parts = replace(components or Components(), progress=progress, stop=stop, instructions_ref=DEFAULT_BRANCH)
    return update_branch(repo_dir, job, config, env, parts, run_id=run_id)


def ensemble_verifier(repo_dir: Path, job: VerifyJob, config: Config, env: Mapping[str, str], *,
                      run_id: str, progress: Progress, stop: threading.Event,
                      components: Components | None = None) -> VerifyResult:
    """The real verification: `bot.ensemble.verify.verify_pull` (the judge only, and the critic with `verify.review:
    on`). `components` passes in models or a test runner (tests); the rest is built from the config."""
    from dataclasses import replace

    from bot.ensemble.runner import Components
    from bot.ensemble.verify import verify_pull

    parts = replace(components or Components(), progress=progress, stop=stop, instructions_ref=DEFAULT_BRANCH)
    return verify_pull(repo_dir, job, config, env, parts, run_id=run_id)


def ensemble_planner(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str]) -> Plan:
    """The real planner: the task planned as a team plans it (`plan_task`: exploring within the config's `explore`
    limits, exact-text requests answered from the clone), with what its models charged."""
    from dataclasses import replace
    from functools import partial

    from bot.ensemble import assemble
    from bot.ensemble.planner import TaskPlanner, plan_task
    from bot.forge.local import grep

    models = assemble.model_manager(repo_dir, config, env)
    planner = TaskPlanner(models, assemble.retriever(repo_dir, config, env), repo_dir, partial(grep, repo_dir),
                          config.explore, assemble.instructions(repo_dir, config, DEFAULT_BRANCH))
    _, plan = plan_task(planner, task)
    return replace(plan, cost_usd=float(models.ledger.summary()["cost_usd"]))  # settles the spend ledger


def plan_text(plan: Plan, with_summary: bool = True) -> str:
    """A plan as markdown, for a comment or a PR body."""
    lines = [plan.summary.strip()] if plan.summary.strip() and with_summary else []
    lines += [f"{i}. {step}" for i, step in enumerate(plan.steps, 1)]
    if plan.files:
        lines.append("Files: " + ", ".join(f"`{f}`" for f in plan.files))
    return "\n".join(lines) or "(the planner gave no plan)"


_STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*+](?:\s+\[[ xX]\])?)\s+(?P<step>\S.*)$")
_FILES = re.compile(r"^\s*Files:\s*(?P<files>.*)$", re.IGNORECASE)


def plan_from_text(text: str) -> Plan:
    """The inverse of `plan_text`: a plan read back from markdown that a maintainer may have edited.

    Numbered or bulleted lines are steps (a plain line after one continues it), a `Files:` line
    names the files, and the lines before the first step are the summary.
    """
    from bot.ensemble.planner import parse_plan  # the one reader of the 'Reproduction test: PATH' step

    summary: list[str] = []
    steps: list[str] = []
    files: list[str] = []
    for line in text.replace("\r\n", "\n").splitlines():
        if not line.strip():
            continue
        if match := _FILES.match(line):
            files += [name.strip(" `") for name in match["files"].split(",") if name.strip(" `")]
        elif match := _STEP.match(line):
            steps.append(match["step"].strip())
        elif steps:
            steps[-1] += " " + line.strip()
        else:
            summary.append(line.strip())
    return parse_plan({"summary": "\n".join(summary), "files": files, "steps": steps})

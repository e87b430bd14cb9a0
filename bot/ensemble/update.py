"""The engine's side of keeping a pull request current: its branch brought onto a moved base and judged there.

    result = update_branch(repo_dir, UpdateJob(task, base=sha, base_name="main"), config, env)

The branch `ensemble/<slug>` is merged with the new base, or rebased onto it (`bot/forge/onto.py`), in a
worktree of its own. The new base's tests run first (`run_base`); the updated tree is then judged against
them as any candidate is (`TeamJudge.run`: the base's tests and harness over the tree, the branch's new test
files in a process of their own, known-answer checks in each): the tests the branch fixed and its
reproduction test must pass, and nothing that passes on the new base may break. A clean update makes no
model call. Conflicts go to the coder with both sides, what they started from and the task
(`conflicts.py`); its resolution is judged the same way and, when it breaks a test or leaves a conflict,
goes back with what went wrong, up to `max_iterations` times. Only a good result moves the branch, a
compare-and-swap of the local ref from the head it started at; otherwise the branch stays as it was and
the result says why (`UpdateResult.why`, the conflicting files).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.config import DEFAULT_ROUNDS, Config
from bot.ensemble.coder import denial
from bot.ensemble.conflicts import (
    apply_resolutions,
    hunks,
    parse_resolutions,
    resolution_messages,
    unresolvable,
)
from bot.ensemble.judge import BaseRun, TeamJudge, run_base
from bot.ensemble.ports import ModelClient, TestRunner
from bot.ensemble.runner import Components, named_tests, run_tracer
from bot.ensemble.types import (
    ACCEPTED,
    CRASHED,
    STOPPED,
    STUCK,
    Judgement,
    Phase,
    Reproduction,
    RunResult,
    StopReason,
    Task,
    TestOutcome,
)
from bot.errors import BudgetExceeded, ModelError, StopRequested
from bot.forge import BRANCH_PREFIX, Commit
from bot.forge.local import GitWorkspace, format_message
from bot.forge.onto import Conflict, Onto, is_ancestor
from bot.forge.policy import ChangeRefused
from bot.redact import clip
from bot.trace import new_run_id, span
from common.git import git, git_succeeds
from common.testids import matching_tests
from sandbox.model import FAILING

log = logging.getLogger(__name__)
WORKTREES = Path(".ensemble") / "worktrees"


@dataclass(frozen=True)
class UpdateJob:
    """What to bring onto which base, how, and what the branch's change must go on doing there."""

    task: Task  # the pull request's issue: its text for the coder; its slug names the branch
    base: str  # the new base's commit
    base_name: str = "main"
    strategy: Literal["merge", "rebase"] = "merge"
    # the tests the branch's change turned green (its evidence so far); None: unknown, so they are found first by
    # judging the branch on the base it started from (two more test runs)
    fixed: tuple[str, ...] | None = ()
    reproduction: str = ""  # its reproduction test, '' without one


@dataclass
class UpdateResult:
    """What an update did: the run's facts (tests on the new base and after, judgement, usage, the branch's new
    commits), the files that conflicted, and why the branch was left as it was ('' when it was updated)."""

    run: RunResult
    base: str = ""  # the base it was brought onto
    strategy: str = ""  # merge or rebase
    head: str = ""  # the branch's new head ('' when it did not move)
    up_to_date: bool = False  # the branch already held the base: nothing to do
    conflicts: tuple[str, ...] = ()
    rounds: int = 0  # the coder's attempts at the conflicts
    why: str = ""
    sides: tuple[str, str] = ("", "")  # what each side of a conflict held, in words

    @property
    def updated(self) -> bool:
        """True when the branch moved onto the base."""
        return bool(self.head)


def update_branch(repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str],
                  parts: Components | None = None, run_id: str | None = None) -> UpdateResult:
    """Bring `ensemble/<slug>` onto `job.base` and judge it there; the local branch moves only when it is good."""
    parts = parts or Components()
    repo_dir = Path(repo_dir).resolve()
    run_id = run_id or new_run_id()
    tracer = run_tracer(repo_dir, config, env, run_id)
    started = time.monotonic()
    result = UpdateResult(RunResult(run_id, job.task, branch=BRANCH_PREFIX + job.task.slug, trace=str(tracer.path)),
                          base=job.base, strategy=job.strategy)
    with tracer.activate(), span("ensemble.update", run_id=run_id, strategy=job.strategy, base=job.base,
                                 base_name=job.base_name) as s:
        try:
            _Update(repo_dir, job, config, env, parts, result).run()
        finally:
            result.run.duration_s = round(time.monotonic() - started, 2)
            s.set(outcome="up-to-date" if result.up_to_date else "updated" if result.updated else "left as it was",
                  conflicts=list(result.conflicts), resolved=result.updated and bool(result.conflicts),
                  rounds=result.rounds, model_calls=result.run.usage["calls"], why=clip(result.why, 300),
                  good=bool(result.run.judgement and result.run.judgement.good))
    return result


class _Update:
    """One update, step by step; `result` is filled in as it goes."""

    def __init__(self, repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str], parts: Components,
                 result: UpdateResult):
        self.repo_dir, self.job, self.config, self.env, self.parts, self.result = repo_dir, job, config, env, parts, result
        self.branch = result.run.branch
        self.head = git(repo_dir, "rev-parse", "--verify", f"refs/heads/{self.branch}").strip()
        self._models: ModelClient | None = parts.models
        self.fixed = job.fixed
        self.base = BaseRun(TestOutcome(False))  # the new base's test run, once it ran
        self._notify = parts.progress or (lambda *_: None)

    def run(self) -> None:
        if is_ancestor(self.repo_dir, self.job.base, self.head):
            self.result.up_to_date = True
            return
        run_id = self.result.run.run_id
        where = self.repo_dir / WORKTREES
        onto = Onto(self.repo_dir, self.head, self.job.base, self.job.strategy, where / f"{run_id}-update",
                    self._message(), self.config.paths.max_file_kb * 1024, self.config.commit.signoff)
        base = where / f"{run_id}-base"
        try:
            git(self.repo_dir, "worktree", "add", "-q", "--detach", str(base), self.job.base)
            runner = self.parts.runner or _runner(self.config, self.env)
            self._notify("-", Phase.BASELINE, 0, self.job.base)
            with span("ensemble.baseline"):
                self.base = run_base(runner, GitWorkspace(base, self.job.base))
            self.result.run.tests_before = self.base.tests
            calibration = self.base.calibration
            self.result.run.sentinels = calibration.note or f"known-answer checks beside {', '.join(calibration.hosts)}"
            self.result.run.environment = runner.environment
            if self.fixed is None:
                self.fixed = self._fixed_at_start(runner, where / f"{run_id}-start")
            self._attempts(onto, runner)
        finally:
            onto.cleanup()
            git(self.repo_dir, "worktree", "remove", "--force", str(base), check=False)
            self.result.run.usage = self._models.spend() if self._models is not None else self.result.run.usage

    def _attempts(self, onto: Onto, runner: TestRunner) -> None:
        """The update, then the coder's resolutions of its conflicts, until one is judged good or the rounds run out."""
        feedback = why = ""
        for _ in range(self.config.max_iterations or DEFAULT_ROUNDS):
            conflicts = self._seen(onto.start())
            if not conflicts:  # clean: the judge alone decides, and no model is asked
                judgement = self._judge(onto, runner)
                if judgement.good:
                    self._publish(onto)
                else:
                    self._leave(STUCK, f"the update merged cleanly, but on the new base {judgement.reason}")
                return
            try:
                problem = self._resolve_all(onto, conflicts, feedback)
            except _Unresolvable as exc:
                self._leave(STUCK, str(exc))
                return
            except (BudgetExceeded, StopRequested) as exc:
                self._leave(STOPPED, f"the conflict resolution was stopped: {exc}")
                return
            except ModelError as exc:  # the coder could not be asked at all: nothing to judge
                self._leave(CRASHED, f"the coder could not be asked to resolve the conflicts: {exc}")
                return
            if problem:
                feedback, why = problem, f"the coder's resolution could not be used: {problem}"
                continue
            judgement = self._judge(onto, runner)
            if judgement.good:
                self._publish(onto)
                return
            after = self.result.run.tests_after
            feedback = (f"Tested on the new base, your resolution failed: {judgement.reason}\n\n"
                        + clip(after.summary if after else "", 3000, keep="tail"))
            why = f"no resolution passed the judge in {self.result.rounds} attempt(s): {judgement.reason}"
        self._leave(STUCK, why or "the conflicts could not be resolved")

    def _seen(self, conflicts: list[Conflict]) -> list[Conflict]:
        """`conflicts`, whose files are added to those the result names."""
        self.result.conflicts = tuple(dict.fromkeys([*self.result.conflicts, *(c.path for c in conflicts)]))
        return conflicts

    def _resolve_all(self, onto: Onto, conflicts: list[Conflict], feedback: str) -> str:
        """Resolve the conflicts of each stop (one for a merge, one per replayed commit for a rebase); '' when the
        update went through, else what was wrong with the coder's answer. Raises _Unresolvable for conflicts no
        coder may resolve."""
        while conflicts:
            if denied := [c.path for c in conflicts if denial(c.path, self.config.paths.deny)]:
                raise _Unresolvable(f"the conflicts are in files the bot never edits ({', '.join(denied)})")
            if whole := unresolvable(conflicts):
                raise _Unresolvable(f"{', '.join(whole)} conflict as whole files (deleted on one side, or binary)")
            self.result.sides = conflicts[0].sides
            resolved, problems = self._ask(conflicts, feedback)
            if problems:
                return "; ".join(problems)
            try:
                conflicts = self._seen(onto.resolve(resolved))
            except ChangeRefused as exc:
                return str(exc)
        return ""

    def _ask(self, conflicts: list[Conflict], feedback: str) -> tuple[dict[str, str], list[str]]:
        """One coder call on the conflicts of this stop; the files it resolved, and what it left."""
        found = hunks(conflicts)
        self.result.rounds += 1
        self._notify("a", Phase.CODING, self.result.rounds, ", ".join(c.path for c in conflicts))
        if self.parts.stop.is_set():
            raise StopRequested("a stop was requested")
        messages = resolution_messages(self.job.task, found, conflicts[0].sides, self.job.base_name, feedback)
        reply = self._coder().complete("coder", messages)
        return apply_resolutions(conflicts, found, parse_resolutions(reply.text))

    def _judge(self, onto: Onto, runner: TestRunner) -> Judgement:
        """The updated tree judged against the new base's tests."""
        run = self.result.run
        workspace = GitWorkspace(onto.path, self.job.base)
        repro = self.job.reproduction or None
        frozen = {repro: text} if repro and (text := _text_at(self.repo_dir, self.head, repro)) is not None else {}
        required = tuple(dict.fromkeys([*(self.fixed or ()), *named_tests(self.job.task.text, run.tests_before)]))
        judge = TeamJudge.of(self.job.task.text, self.base, required)
        judge = judge.with_reproduction(repro, frozen.get(repro)) if repro else judge
        self._notify("a", Phase.TESTING, self.result.rounds, "")
        run.tests_after, run.judgement = judge.verdict(runner, workspace)
        if repro:
            run.reproduction = _reproduction(repro, run.tests_before, run.tests_after)
        return run.judgement

    def _fixed_at_start(self, runner: TestRunner, path: Path) -> tuple[str, ...]:
        """The tests the branch turned green on the base it started from, where its evidence is not known: that
        base's tests, then the branch judged against them."""
        start = git(self.repo_dir, "merge-base", self.head, self.job.base).strip()
        with span("ensemble.update_evidence", start=start) as s:
            try:
                git(self.repo_dir, "worktree", "add", "-q", "--detach", str(path), start)
                workspace = GitWorkspace(path, start)
                before = run_base(runner, workspace)
                git(path, "checkout", "-q", "--detach", self.head)
                judge = TeamJudge.of(self.job.task.text, before)
                fixed = judge.verdict(runner, workspace)[1].fixed
            finally:
                git(self.repo_dir, "worktree", "remove", "--force", str(path), check=False)
            s.set(fixed=list(fixed))
        return fixed

    def _publish(self, onto: Onto) -> None:
        """Move the local branch to the updated head, only from the head this update started at."""
        head = onto.head()
        git(self.repo_dir, "update-ref", "-m", f"ensemble update {self.result.run.run_id}",
            f"refs/heads/{self.branch}", head, self.head)
        added = ("--first-parent", f"{self.head}..{head}") if self.job.strategy == "merge" else (f"{self.job.base}..{head}",)
        out = git(self.repo_dir, "log", "--reverse", "--format=%H%x00%s", *added)
        self.result.run.commits = [Commit(*line.split("\0", 1)) for line in out.splitlines() if line]
        self.result.run.stop_reason = ACCEPTED
        self.result.head, self.result.why = head, ""

    def _leave(self, reason: StopReason, why: str) -> None:
        """The branch stays as it was, for `why`."""
        self.result.run.stop_reason = reason
        self.result.run.stop_detail = self.result.why = why
        self.result.run.commits = []

    def _message(self) -> str:
        trailers = {"Ensemble-Run": self.result.run.run_id}
        return format_message(f"Merge {self.job.base_name} ({self.job.base[:7]}) into {self.branch}",
                              "Brings the pull request onto its moved base; judged there before it was pushed.",
                              trailers)

    def _coder(self) -> ModelClient:
        if self._models is None:
            from bot.ensemble import assemble

            self._models = assemble.model_manager(self.repo_dir, self.config, self.env, self.parts.use_cache)
        return self._models


def _runner(config: Config, env: Mapping[str, str]) -> TestRunner:
    from bot.ensemble import assemble

    return assemble.test_runner(config, env)


def _reproduction(path: str, before: TestOutcome | None, after: TestOutcome) -> Reproduction:
    """The reproduction test on the new base: whether its tests fail there (unknown when the base has no such file,
    as for a test the branch added) and pass after the update."""
    base = dict(before.results) if before else {}
    now = dict(after.results)
    at_base = matching_tests(base, [path])
    ran = matching_tests(now, [path])
    return Reproduction(path, any(base[n] in FAILING for n in at_base) if at_base else None,
                        all(now[n] == "pass" for n in ran) if ran else None,
                        "judged again on the new base")


def _text_at(repo_dir: Path, ref: str, path: str) -> str | None:
    """`path`'s text at commit `ref`, or None where it does not exist."""
    if not git_succeeds(repo_dir, "cat-file", "-e", f"{ref}:{path}"):
        return None
    return git(repo_dir, "show", f"{ref}:{path}")


class _Unresolvable(Exception):
    """Conflicts no coder may resolve: in files the bot never edits, or whole files."""

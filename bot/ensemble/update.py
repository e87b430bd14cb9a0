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
the result says why (`UpdateResult.why`, the conflicting files). Each step returns what it found and the
outcome is written once, where the update ends (`_Update.result`), as a team's `Stop` is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
from bot.forge.local import GitWorkspace
from bot.forge.onto import Conflict, Onto, is_ancestor
from bot.forge.policy import ChangeRefused, commit_message
from bot.llm.budget import no_spend
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


@dataclass(frozen=True)
class UpdateResult:
    """What an update did: the run's facts (tests on the new base and after, judgement, usage, the branch's new
    commits), the files that conflicted, and why the branch was left as it was ('' when it was updated). Written
    once, when the update ends (`_Update.result`)."""

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


@dataclass(frozen=True)
class _Conflicts:
    """What the conflicts showed so far: the files that conflicted, the coder's attempts at them, and what each side
    of the last ones held."""

    paths: tuple[str, ...] = ()
    rounds: int = 0
    sides: tuple[str, str] = ("", "")

    def seen(self, conflicts: Sequence[Conflict]) -> _Conflicts:
        """These, with the files of `conflicts` added."""
        return replace(self, paths=tuple(dict.fromkeys([*self.paths, *(c.path for c in conflicts)])))


@dataclass(frozen=True)
class _Judged:
    """The updated tree judged on the new base: its tests, their judgement, and its reproduction test there."""

    tests: TestOutcome
    judgement: Judgement
    reproduction: Reproduction | None = None


@dataclass(frozen=True)
class _Resolution:
    """One pass of the coder over an update's conflicts: what they showed, then what was wrong with its answer
    (`problem`, '' when the update went through) or why the update ends here (`stop`)."""

    conflicts: _Conflicts
    problem: str = ""
    stop: tuple[StopReason, str] | None = None


@dataclass(frozen=True)
class _End:
    """How an update that had work to do ended, written once where it is decided: the branch moved to `head` with
    its new `commits` (`reason` ACCEPTED, no `why`), or it stayed as it was, for `why`; with the last tree judged
    and what the conflicts showed."""

    reason: StopReason
    why: str
    conflicts: _Conflicts
    judged: _Judged | None
    head: str = ""
    commits: tuple[Commit, ...] = ()


def update_branch(repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str],
                  parts: Components | None = None, run_id: str | None = None) -> UpdateResult:
    """Bring `ensemble/<slug>` onto `job.base` and judge it there; the local branch moves only when it is good."""
    parts = parts or Components()
    repo_dir = Path(repo_dir).resolve()
    run_id = run_id or new_run_id()
    tracer = run_tracer(repo_dir, config, env, run_id)
    with tracer.activate(), span("ensemble.update", run_id=run_id, strategy=job.strategy, base=job.base,
                                 base_name=job.base_name) as s:
        result = _Update(repo_dir, job, config, env, parts, run_id, str(tracer.path)).run()
        s.set(outcome="up-to-date" if result.up_to_date else "updated" if result.updated else "left as it was",
              conflicts=list(result.conflicts), resolved=result.updated and bool(result.conflicts),
              rounds=result.rounds, model_calls=result.run.usage["calls"], why=clip(result.why, 300),
              good=bool(result.run.judgement and result.run.judgement.good))
    return result


class _Update:
    """One update, step by step: each step returns what it found, and `result` writes the outcome once."""

    def __init__(self, repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str], parts: Components,
                 run_id: str, trace: str):
        self.repo_dir, self.job, self.config, self.env, self.parts = repo_dir, job, config, env, parts
        self.run_id, self.trace, self.started = run_id, trace, time.monotonic()
        self.branch = BRANCH_PREFIX + job.task.slug
        self.head = git(repo_dir, "rev-parse", "--verify", f"refs/heads/{self.branch}").strip()
        self._models: ModelClient | None = parts.models  # made on the first model call
        self._notify = parts.progress or (lambda *_: None)

    def run(self) -> UpdateResult:
        if is_ancestor(self.repo_dir, self.job.base, self.head):
            return self.result(None)
        where = self.repo_dir / WORKTREES
        onto = Onto(self.repo_dir, self.head, self.job.base, self.job.strategy, where / f"{self.run_id}-update",
                    self._message(), self.config.paths.max_file_kb * 1024, self.config.commit.signoff)
        base_dir = where / f"{self.run_id}-base"
        try:
            git(self.repo_dir, "worktree", "add", "-q", "--detach", str(base_dir), self.job.base)
            runner = self.parts.runner or _runner(self.config, self.env)
            self._notify("-", Phase.BASELINE, 0, self.job.base)
            with span("ensemble.baseline"):
                base = run_base(runner, GitWorkspace(base_dir, self.job.base))
            fixed = self.job.fixed
            if fixed is None:
                fixed = self._fixed_at_start(runner, where / f"{self.run_id}-start")
            end = self._attempts(onto, runner, self._judge_of(base, fixed))
        finally:
            onto.cleanup()
            git(self.repo_dir, "worktree", "remove", "--force", str(base_dir), check=False)
        return self.result(end, base, runner.environment)

    def result(self, end: _End | None, base: BaseRun | None = None, environment: str = "") -> UpdateResult:
        """The update's outcome, the one place it is written: `end` None when the branch already held the base."""
        calibration = base.calibration if base else None
        judged = end.judged if end else None
        run = RunResult(
            self.run_id, self.job.task, branch=self.branch, trace=self.trace,
            commits=list(end.commits) if end else [], stop_reason=end.reason if end else None,
            stop_detail=end.why if end else "", tests_before=base.tests if base else None,
            tests_after=judged.tests if judged else None, judgement=judged.judgement if judged else None,
            reproduction=judged.reproduction if judged else None, environment=environment,
            sentinels=(calibration.note or f"known-answer checks beside {', '.join(calibration.hosts)}"
                       if calibration else ""),
            usage=self._models.spend() if self._models is not None else no_spend(),
            duration_s=round(time.monotonic() - self.started, 2))
        if end is None:
            return UpdateResult(run, self.job.base, self.job.strategy, up_to_date=True)
        found = end.conflicts
        return UpdateResult(run, self.job.base, self.job.strategy, end.head, conflicts=found.paths,
                            rounds=found.rounds, why=end.why, sides=found.sides)

    def _attempts(self, onto: Onto, runner: TestRunner, judge: TeamJudge) -> _End:
        """The update, then the coder's resolutions of its conflicts, until one is judged good or the rounds run out."""
        feedback = why = ""
        found, judged = _Conflicts(), None
        for _ in range(self.config.max_iterations or DEFAULT_ROUNDS):
            conflicts = onto.start()
            found = found.seen(conflicts)
            if not conflicts:  # clean: the judge alone decides, and no model is asked
                judged = self._judge(onto, runner, judge, found.rounds)
                if judged.judgement.good:
                    return self._published(onto, found, judged)
                return _End(STUCK, f"the update merged cleanly, but on the new base {judged.judgement.reason}", found,
                            judged)
            resolution = self._resolve_all(onto, conflicts, feedback, found)
            found = resolution.conflicts
            if resolution.stop is not None:
                return _End(*resolution.stop, found, judged)
            if resolution.problem:
                feedback, why = resolution.problem, f"the coder's resolution could not be used: {resolution.problem}"
                continue
            judged = self._judge(onto, runner, judge, found.rounds)
            if judged.judgement.good:
                return self._published(onto, found, judged)
            feedback = (f"Tested on the new base, your resolution failed: {judged.judgement.reason}\n\n"
                        + clip(judged.tests.summary, 3000, keep="tail"))
            why = f"no resolution passed the judge in {found.rounds} attempt(s): {judged.judgement.reason}"
        return _End(STUCK, why or "the conflicts could not be resolved", found, judged)

    def _resolve_all(self, onto: Onto, conflicts: list[Conflict], feedback: str, found: _Conflicts) -> _Resolution:
        """Resolve the conflicts of each stop (one for a merge, one per replayed commit for a rebase): the update
        went through, or what was wrong with the coder's answer, or why no coder may go on (conflicts in files the
        bot never edits or in whole files, a stop, the budget, a coder that could not be asked)."""
        while conflicts:
            if denied := [c.path for c in conflicts if denial(c.path, self.config.paths.deny)]:
                return _Resolution(found, stop=(STUCK, "the conflicts are in files the bot never edits "
                                                       f"({', '.join(denied)})"))
            if whole := unresolvable(conflicts):
                return _Resolution(found, stop=(STUCK, f"{', '.join(whole)} conflict as whole files (deleted on one "
                                                       "side, or binary)"))
            found = replace(found, rounds=found.rounds + 1, sides=conflicts[0].sides)
            try:
                resolved, problems = self._ask(conflicts, feedback, found.rounds)
            except (BudgetExceeded, StopRequested) as exc:
                return _Resolution(found, stop=(STOPPED, f"the conflict resolution was stopped: {exc}"))
            except ModelError as exc:  # the coder could not be asked at all: nothing to judge
                return _Resolution(found, stop=(CRASHED, f"the coder could not be asked to resolve the conflicts: {exc}"))
            if problems:
                return _Resolution(found, "; ".join(problems))
            try:
                conflicts = onto.resolve(resolved)
            except ChangeRefused as exc:
                return _Resolution(found, str(exc))
            found = found.seen(conflicts)
        return _Resolution(found)

    def _ask(self, conflicts: list[Conflict], feedback: str, number: int) -> tuple[dict[str, str], list[str]]:
        """The coder's attempt `number`, one call on the conflicts of this stop; the files it resolved, and what it
        left."""
        found = hunks(conflicts)
        self._notify("a", Phase.CODING, number, ", ".join(c.path for c in conflicts))
        if self.parts.stop.is_set():
            raise StopRequested("a stop was requested")
        messages = resolution_messages(self.job.task, found, conflicts[0].sides, self.job.base_name, feedback)
        reply = self._coder().complete("coder", messages)
        return apply_resolutions(conflicts, found, parse_resolutions(reply.text))

    def _judge_of(self, base: BaseRun, fixed: tuple[str, ...]) -> TeamJudge:
        """The judge of the updated tree: the new base's tests, the tests the branch fixed and those the task
        names required, and its reproduction test as the branch's head holds it."""
        required = tuple(dict.fromkeys([*fixed, *named_tests(self.job.task.text, base.tests)]))
        judge = TeamJudge.of(self.job.task.text, base, required)
        if not (repro := self.job.reproduction):
            return judge
        return judge.with_reproduction(repro, _text_at(self.repo_dir, self.head, repro))

    def _judge(self, onto: Onto, runner: TestRunner, judge: TeamJudge, rounds: int) -> _Judged:
        """The updated tree judged against the new base's tests."""
        self._notify("a", Phase.TESTING, rounds, "")
        tests, judgement = judge.verdict(runner, GitWorkspace(onto.path, self.job.base))
        repro = self.job.reproduction
        return _Judged(tests, judgement, _reproduction(repro, judge.baseline, tests) if repro else None)

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

    def _published(self, onto: Onto, found: _Conflicts, judged: _Judged) -> _End:
        """Move the local branch to the updated head, only from the head this update started at."""
        head = onto.head()
        git(self.repo_dir, "update-ref", "-m", f"ensemble update {self.run_id}", f"refs/heads/{self.branch}", head,
            self.head)
        added = ("--first-parent", f"{self.head}..{head}") if self.job.strategy == "merge" else (f"{self.job.base}..{head}",)
        out = git(self.repo_dir, "log", "--reverse", "--format=%H%x00%s", *added)
        commits = tuple(Commit(*line.split("\0", 1)) for line in out.splitlines() if line)
        return _End(ACCEPTED, "", found, judged, head, commits)

    def _message(self) -> str:
        trailers = {"Ensemble-Run": self.run_id}
        return commit_message(f"Merge {self.job.base_name} ({self.job.base[:7]}) into {self.branch}",
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


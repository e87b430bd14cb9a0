"""Verifying anyone's pull request with the judge: what its tests prove, from its merge base to its head.

    result = verify_pull(repo_dir, VerifyJob(head=sha, base=merge_base), config, env)

The pull request is judged as any candidate of the bot's own is (team_judge.py), with no model call: the base's
tests run once at the merge base (`run_base`: known-answer checks, the files they read, their closure), then the
head is run the judge's way (the base's tests, harness and data put back over it, its new test files apart) and
judged against them: the tests it fixes, breaks or leaves failing. Its own test files (with the data they bring)
are then run alone as it wrote them (`TeamJudge.run_alone`) over the base and, when it added tests to files that
existed, over the head: a new test that passes at the base proves nothing. A test whose outcome differed is run once
more on each side, each side as the first time (flaky when it disagrees with itself). The guard's findings on its edits to the tests and their closure, and the static screen's
on its code, are read from its diff (proof.py, guards.py, screen.py). With `verify.review: on` the critic then
reads the diff with this evidence and points at a few lines (pr_review.py).

The pull request's code runs only in the sandbox, in worktrees of the repository (`.ensemble/worktrees/`) that are
removed afterwards. The head is tested in the base's sandbox recipe: its worktree gets the base's `.github/` folder
back before anything is prepared, so a pull request that edits the CI workflow (its setup steps, services, image)
or the bot's config is tested as the base would test it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.config import Config
from bot.ensemble.judge import (
    BaseRun,
    TeamJudge,
    change_hooks,
    changed_definitions,
    find_test_tampering,
    owned_by_judge,
    run_base,
)
from bot.ensemble.ports import ModelClient, TestRunner
from bot.ensemble.proof import (
    Doubt,
    LineFinding,
    NewTest,
    TestEdit,
    Texts,
    backing,
    flaky,
    new_tests,
    placed_edits,
    uncovered,
)
from bot.ensemble.runner import Components, run_tracer
from bot.ensemble.types import Judgement, Phase, RunnerHook, TestOutcome
from bot.forge.local import WORKTREES, GitWorkspace, exclude_ensemble_dir
from bot.llm.budget import SpendSummary, no_spend
from bot.trace import new_run_id, span
from common.git import git, git_bytes, git_succeeds
from common.languages import is_code
from common.testfiles import is_ci_path, is_test_path
from common.testids import file_of_test
from sandbox.model import FAILING

log = logging.getLogger(__name__)
PINNED = ".github"  # the head is tested with the base's: its CI recipe and the bot's config


@dataclass(frozen=True)
class VerifyJob:
    """The pull request to verify: its head commit, its merge base, and what it says it does (for the critic)."""

    head: str
    base: str
    title: str = ""
    body: str = ""


@dataclass(frozen=True)
class VerifyResult:
    """What a pull request's tests prove (the module's docstring), with what it cost."""

    run_id: str
    head: str
    base: str
    judgement: Judgement | None = None  # the base's tests at the head, judged against the base
    tests_before: TestOutcome | None = None  # the base's tests at the base
    tests_after: TestOutcome | None = None  # the judged run at the head
    new: tuple[NewTest, ...] = ()
    flaky: tuple[str, ...] = ()
    edits: tuple[TestEdit, ...] = ()
    screen: tuple[RunnerHook, ...] = ()  # lines of its code that reach into the test runner (screen.py)
    tampering: tuple[str, ...] = ()  # what the judge's checks saw in its test runs (sentinels.py, the sandbox)
    doubts: tuple[Doubt, ...] = ()
    findings: tuple[LineFinding, ...] = ()  # the critic's, with `verify.review: on`
    environment: str = ""
    pinned: tuple[str, ...] = ()  # its files under `.github/`, which were tested as the base has them
    test_runs: int = 0
    test_s: float = 0.0
    duration_s: float = 0.0
    usage: SpendSummary = field(default_factory=no_spend)
    trace: str = ""

    @property
    def fixed(self) -> tuple[str, ...]:
        """Tests that failed at the base and pass at the head (not the flaky ones)."""
        return tuple(n for n in (self.judgement.fixed if self.judgement else ()) if n not in self.flaky)

    @property
    def broken(self) -> tuple[str, ...]:
        """Tests that passed at the base and fail, are skipped or are gone at the head (not the flaky ones)."""
        return tuple(n for n in (self.judgement.broken if self.judgement else ()) if n not in self.flaky)

    @property
    def still_failing(self) -> tuple[str, ...]:
        """Tests that failed at the base and still fail at the head."""
        judged = self.judgement
        names = (*judged.still_failing, *judged.required_failing) if judged else ()
        return tuple(n for n in dict.fromkeys(names) if n not in self.flaky)

    @property
    def alarming(self) -> bool:
        """True when the evidence speaks against the pull request: a test it breaks (flaky or not), a new test of its
        that fails, an edit to the tests, a line that reaches into the runner, a tampered run."""
        weakening = [e for e in self.edits if e.kind not in ("ci_config", "conftest_reach")]
        failing = [t for t in self.new if t.at_head in FAILING and t.name not in self.flaky]
        return bool(self.broken or self.shaken or failing or weakening or self.screen or self.tampering)

    @property
    def shaken(self) -> tuple[str, ...]:
        """Tests that passed at the base and failed at the head, whose second runs disagreed with their first: flaky,
        but a change can make a test flaky, so they still speak against it."""
        return tuple(n for n in (self.judgement.broken if self.judgement else ()) if n in self.flaky)


def verdict(result: VerifyResult) -> str:
    """The verdict in one sentence, the most telling fact first (the report's heading, the check run's title)."""
    proving = [t for t in result.new if t.proves and t.name not in result.flaky]
    idle = [t for t in result.new if t.idle]
    failing = [t for t in result.new if t.at_head in FAILING and t.name not in result.flaky]
    if result.tampering:
        return "Not evidence: the test runs were tampered with"
    if result.broken:
        return f"Breaks {_count(len(result.broken), 'test')} that passed at the base"
    if result.shaken:
        return (f"Unsettled: {_count(len(result.shaken), 'test')} that passed at the base failed at the head, and "
                "a second run disagreed")
    if failing:
        return f"{_count(len(failing), 'new test')} of this pull request {'fails' if len(failing) == 1 else 'fail'}"
    if result.fixed or proving:
        what = [f"fixes {_count(len(result.fixed), 'test')} that failed at the base"] if result.fixed else []
        what += [f"{_count(len(proving), 'new test')} {'fails' if len(proving) == 1 else 'fail'} without the "
                 "change"] if proving else []
        return "Proven: " + " and ".join(what)
    if idle:
        return (f"Not proven: {'its new test passes' if len(idle) == 1 else 'its new tests pass'} at the base too, "
                "so they show nothing about the change")
    return "Not proven: no test shows what the change does"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def verify_pull(repo_dir: Path, job: VerifyJob, config: Config, env: Mapping[str, str],
                parts: Components | None = None, run_id: str | None = None,
                bases: MutableMapping[str, BaseRun] | None = None) -> VerifyResult:
    """Verify the pull request `job` names in the clone `repo_dir` (both commits in it); `bases` holds base runs
    already made, by commit, so a caller verifying several pull requests on one base runs its tests once."""
    parts = parts or Components()
    repo_dir = Path(repo_dir).resolve()
    run_id = run_id or new_run_id()
    tracer = run_tracer(repo_dir, config, env, run_id)
    started = time.monotonic()
    with tracer.activate(), span("ensemble.verify", run_id=run_id, head=job.head, base=job.base) as s:
        result = _Verification(repo_dir, job, config, env, parts, run_id, bases if bases is not None else {}).run()
        result = replace(result, duration_s=round(time.monotonic() - started, 2), trace=str(tracer.path))
        s.set(fixed=len(result.fixed), broken=len(result.broken), new=len(result.new), flaky=len(result.flaky),
              edits=len(result.edits), screen=len(result.screen), tampering=len(result.tampering),
              test_runs=result.test_runs, model_calls=result.usage["calls"])
    return result


class _Counted:
    """A `TestRunner` that counts the test processes it starts and the time they took."""

    def __init__(self, runner: TestRunner):
        self.runner = runner
        self.runs = 0
        self.seconds = 0.0

    @property
    def environment(self) -> str:
        return self.runner.environment

    def run_tests(self, workspace: Path, known_failures: Collection[str] = (),
                  files: Mapping[str, bytes | None] | None = None, *, trace_reads: bool = False,
                  listing: bool = False, checks: str = "", owned: Collection[str] = (),
                  leave_out: Collection[str] = ()) -> TestOutcome:
        started = time.monotonic()
        try:
            return self.runner.run_tests(workspace, known_failures, files, trace_reads=trace_reads, listing=listing,
                                         checks=checks, owned=owned, leave_out=leave_out)
        finally:
            self.runs += 1
            self.seconds += time.monotonic() - started


class _Verification:
    """One verification, step by step."""

    def __init__(self, repo_dir: Path, job: VerifyJob, config: Config, env: Mapping[str, str], parts: Components,
                 run_id: str, bases: MutableMapping[str, BaseRun]):
        self.repo_dir, self.job, self.config, self.env, self.parts = repo_dir, job, config, env, parts
        self.run_id, self.bases = run_id, bases
        self._notify = parts.progress or (lambda *_: None)

    def run(self) -> VerifyResult:
        where = self.repo_dir / WORKTREES
        base_path, head_path = where / f"{self.run_id}-base", where / f"{self.run_id}-head"
        runner = _Counted(self.parts.runner or _runner(self.config, self.env))
        exclude_ensemble_dir(self.repo_dir)
        try:
            git(self.repo_dir, "worktree", "add", "-q", "--detach", str(base_path), self.job.base)
            git(self.repo_dir, "worktree", "add", "-q", "--detach", str(head_path), self.job.head)
            pinned = _pin(head_path, self.job.base)
            result = self._judged(runner, GitWorkspace(base_path, self.job.base),
                                  GitWorkspace(head_path, self.job.base))
        finally:
            for path in (base_path, head_path):
                git(self.repo_dir, "worktree", "remove", "--force", str(path), check=False)
        return replace(result, test_runs=runner.runs, test_s=round(runner.seconds, 2),
                       environment=runner.environment, pinned=pinned)

    def _judged(self, runner: TestRunner, base_ws: GitWorkspace, head_ws: GitWorkspace) -> VerifyResult:
        """The runs and what they prove."""
        self._notify("-", Phase.BASELINE, 0, self.job.base)
        with span("ensemble.baseline"):
            base = self.bases.get(self.job.base) or run_base(runner, base_ws)
        self.bases[self.job.base] = base
        judge = TeamJudge.of("", base)  # no task asks for any test edit: every one is reported
        self._notify("-", Phase.TESTING, 0, self.job.head)
        after, judgement = judge.verdict(runner, head_ws, every_check=True)
        texts = self._texts()
        own = {p: text for p, (_, text) in texts.items()  # its tests as it wrote them, with their new data
               if text is not None and owned_by_judge(p, base.data) and not is_ci_path(p)}
        tests = [p for p in own if is_test_path(p) and is_code(p)]
        at_base = judge.run_alone(runner, head_ws, own, at_base=True) if tests else None
        in_existing = any(texts[p][0] is not None for p in tests)  # tests added to a file the judge puts back
        at_head = judge.run_alone(runner, head_ws, own) if in_existing else None
        new = new_tests(base.tests, at_base, [after, at_head], tests)
        shaky = self._again(runner, judge, head_ws, (base.tests, after, at_base, at_head), own,
                            [*judgement.fixed, *judgement.broken], [t.name for t in new if t.at_base != t.at_head])
        diff = git(self.repo_dir, "diff", "--no-color", "--no-ext-diff", "-U0", "--no-renames", self.job.base,
                   self.job.head)
        before, now = {p: t[0] for p, t in texts.items()}, {p: t[1] for p, t in texts.items()}
        findings = find_test_tampering(before, now, "", base.data, lambda p: _text_at(self.repo_dir, self.job.base, p),
                                       base.closure)
        code_changed = any(is_code(p) and not is_test_path(p) for p in texts)
        doubts = (*uncovered(changed_definitions(diff), texts, self._head_tests()),
                  *backing(judgement.fixed, new, code_changed), *_run_doubts(base, after))
        tampering = tuple(dict.fromkeys(t for run in (after, at_base, at_head) if run for t in run.tampering))
        usage, lines = self._review(diff, judgement, new)
        return VerifyResult(self.run_id, self.job.head, self.job.base, judgement, _compact(base.tests),
                            _compact(after), new, shaky, placed_edits(findings, texts, diff),
                            tuple(change_hooks(before, now)), tampering, doubts, lines, usage=usage)

    def _again(self, runner: TestRunner, judge: TeamJudge, head_ws: GitWorkspace,
               first: tuple[TestOutcome, TestOutcome, TestOutcome | None, TestOutcome | None], own: Mapping[str, str],
               changed: Sequence[str], new: Sequence[str]) -> tuple[str, ...]:
        """The tests whose outcome differed from the base to the head (`changed`: the base's; `new`: the pull
        request's), run once more on each side, that disagree with their first run: flaky. Each side is run as the
        first time, the base's tests apart from the pull request's files, so no file of its can make one of them
        differ (and pass for flaky) on purpose."""
        if not (changed or new):
            return ()
        self._notify("-", Phase.TESTING, 1, "once more, where the base and the head differ")
        base_run, after, at_base, at_head = first
        exists = lambda p: head_ws.base_text(p) is not None  # noqa: E731 - read once per test id
        files = {f for name, _ in base_run.results if is_test_path(f := file_of_test(name, exists))}
        theirs = {p: text for p in sorted(files) if (text := head_ws.base_text(p)) is not None}
        runs = [(base_run, judge.run_alone(runner, head_ws, theirs, at_base=True) if changed else None),
                (after, judge.run_alone(runner, head_ws, theirs) if changed else None),
                (at_base, judge.run_alone(runner, head_ws, own, at_base=True) if new else None),
                (at_head or after, judge.run_alone(runner, head_ws, own) if new else None)]
        return flaky([*changed, *new], [one for one, _ in runs], [two for _, two in runs])

    def _texts(self) -> Texts:
        """Each file the pull request changes, with its text at the base and at the head (None where absent)."""
        out = git(self.repo_dir, "diff", "--no-renames", "--name-only", "-z", self.job.base, self.job.head)
        return {p: (_text_at(self.repo_dir, self.job.base, p), _text_at(self.repo_dir, self.job.head, p))
                for p in sorted(filter(None, out.split("\0")))}

    def _head_tests(self) -> list[str]:
        """The texts of the head's test files (what might name a changed function)."""
        out = git(self.repo_dir, "ls-tree", "-r", "-z", "--name-only", self.job.head)
        paths = [p for p in out.split("\0") if p and is_test_path(p) and is_code(p)]
        return [text for p in paths if (text := _text_at(self.repo_dir, self.job.head, p)) is not None]

    def _review(self, diff: str, judgement: Judgement, new: Sequence[NewTest]) -> tuple[SpendSummary,
                                                                                          tuple[LineFinding, ...]]:
        """The critic's line-tied findings with `verify.review: on` (no model call otherwise), and what they cost."""
        if self.config.verify.review != "on":
            return no_spend(), ()
        from bot.ensemble.pr_review import review_pull

        models = self.parts.models or _models(self.repo_dir, self.config, self.env)
        self._notify("-", Phase.REVIEWING, 0, "")
        found = review_pull(models, self.job.title, self.job.body, diff, judgement, new)
        return models.spend(), found


def _run_doubts(base: BaseRun, after: TestOutcome) -> tuple[Doubt, ...]:
    """What keeps the runs from being full evidence: a judged run that could not be completed, or known-answer
    checks this repository's runner cannot report (then a forged result is caught only by the other checks)."""
    found = []
    if not after.complete:
        found.append(Doubt("incomplete", f"the run at the head is incomplete: {after.incomplete_reason or 'killed'}"))
    if not base.calibration.available and base.calibration.note:
        found.append(Doubt("unchecked", f"the judge's known-answer checks are unavailable here: "
                                        f"{base.calibration.note}"))
    return tuple(found)


def _compact(tests: TestOutcome) -> TestOutcome:
    """A run without the files it read: what the report needs, small enough to cross a process boundary."""
    return replace(tests, reads=(), opened=())


def _pin(tree: Path, base: str) -> tuple[str, ...]:
    """The base's `.github/` folder over the worktree `tree`: the files the pull request added there removed, the
    ones it changed or deleted put back; the files it changed there."""
    changed = git(tree, "diff", "--no-renames", "--name-status", "-z", base, "HEAD", "--", PINNED).split("\0")
    pairs = list(zip(changed[0::2], changed[1::2], strict=False))
    for status, path in pairs:
        if status == "A":
            (tree / path).unlink(missing_ok=True)
    if git_succeeds(tree, "cat-file", "-e", f"{base}:{PINNED}"):
        git(tree, "checkout", "-q", base, "--", PINNED)
    return tuple(path for _, path in pairs)


def _text_at(repo_dir: Path, ref: str, path: str) -> str | None:
    """`path`'s text at commit `ref`, or None where it does not exist."""
    if not git_succeeds(repo_dir, "cat-file", "-e", f"{ref}:{path}"):
        return None
    return git_bytes(repo_dir, "show", f"{ref}:{path}").decode("utf-8", "replace")


def _runner(config: Config, env: Mapping[str, str]) -> TestRunner:
    from bot.ensemble import assemble

    return assemble.test_runner(config, env)


def _models(repo_dir: Path, config: Config, env: Mapping[str, str]) -> ModelClient:
    from bot.ensemble import assemble

    return assemble.model_manager(repo_dir, config, env)

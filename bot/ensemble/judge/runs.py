"""A team's judge: what every candidate of the team is judged with, and by; it owns the files and the test process.

The judge is fixed by the run (the base's test run, what it learned there, the tests the task names) and, once
round 0 wrote a reproduction test that failed at the base, by that test as it was then (`frozen`). It is a
value: a team that learns its reproduction test gets a new judge (`with_reproduction`), and nothing is assigned
onto it afterwards. It decides which of the base's failing tests a change is answerable for (`related_failures`:
blame). The rules are in judge.py (red and green against the base), judged.py (the files a judged
run puts back over the tree), sentinels.py (the known-answer tests that show a run was not tampered with) and
twins.py (copies of the tests a change must fix that expect another answer: no honest change passes both).

A judged run (`run`) is one to three test processes:
1. the base's tests, with the base's test files, harness and test data put back, the frozen reproduction test,
   and none of the candidate's new test files: nothing the candidate added beside the tests is loaded where the
   base's tests run (so where the candidate only added test files, as the reproduction round does, this process
   would run the base's tree again: the base run's outcome stands for it, `_as_at_base`);
2. when the tests the change must fix passed there, and the rest of the run finds the change good (`verdict`: a
   change that is not good is not kept, whatever they show), the same process again with each such test's file replaced,
   in its own place, by its stand-in (twins.stand_ins: the file with the test's assertion expecting another value;
   for a suite slower than STAND_INS_WITH_THE_SUITE_S, without the base's other test files); a stand-in that passes
   too is a cheat the twins of process 1 miss, code that answers only the test's own file;
3. when the candidate added test files, those alone (with the base's test files they use, so shared helpers keep
   working, and the new `conftest.py` files that only define fixtures for them), in a process of their own; only the
   new files' results are taken from it, so nothing loaded there alone decides a base test's outcome.
Each process gets the judge's known-answer checks under a fresh nonce (the first also the twins); their results
are taken out of what the models and the verdict see, and what they show about the run goes into
`TestOutcome.tampering` (a cheat) or makes the run incomplete (no evidence either way). The test process cannot change the judge's files (`guarded`:
read-only in Docker); where it can (the local sandbox) a file it changed that the base's run left alone is a cheat.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from bot.ensemble.judge.blame import related_failures
from bot.ensemble.judge.closure import Closure, closure_of
from bot.ensemble.judge.equality import the_changes
from bot.ensemble.judge.files import allowed_changes, guarded, judged_data, judged_files
from bot.ensemble.judge.guards import task_names_change
from bot.ensemble.judge.screen import hooks_in
from bot.ensemble.judge.sentinels import (
    NOTHING,
    Calibration,
    Planted,
    calibrate,
    candidate_hosts,
    evidence,
    new_nonce,
    nonexistent,
    plant,
)
from bot.ensemble.judge.twins import defined_tests, passing, stand_in_passes, stand_ins
from bot.ensemble.judge.verdict import judge
from bot.ensemble.ports import TestRunner
from bot.ensemble.types import Judgement, RunnerHook, TestChange, TestOutcome
from bot.ensemble.workspace_files import Read, WorkspaceFiles
from bot.forge import HeldWorkspace, Workspace
from common.languages import is_language, is_test_name
from common.testfiles import conftest_additions, fresh_test_path, is_test_path, is_whole_harness
from common.testids import file_of_test
from sandbox.model import FAILING, FORGED_VALUE, REACHED_TESTS, RUNNER_PATCHED, TAMPERING

log = logging.getLogger(__name__)
SIGNALLED = 128  # exit statuses above this are a signal's (the shell's 128 + n)
# The stand-ins' process is the base's tests' process again when that took at most this long; a slower suite gets
# the stand-ins' files alone (with the test files they use), so a candidate costs one short process more, not a suite
STAND_INS_WITH_THE_SUITE_S = 30.0


@dataclass(frozen=True)
class BaseRun:
    """What the judge learned from the base's test run: the outcome every candidate is compared with, which known-
    answer checks this repository's runner reports, and the files the base's tests read (the judge's data)."""

    tests: TestOutcome
    calibration: Calibration = Calibration()
    data: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()  # the data the base's tests name: guarded in every run (judged.guarded)
    closure: Closure = Closure()  # the modules only the tests use and the files whose doctests ran (closure.py)


def run_base(runner: TestRunner, workspace: Workspace) -> BaseRun:
    """The base's tests, run once before any model call, with known-answer checks planted beside its test files,
    the files its tests open recorded, and its tests listed up front where the runner can list them; the judge's
    files are guarded as in every later run."""
    files = WorkspaceFiles(workspace.path)
    named = judged_data(files, files.read)
    hosts = candidate_hosts(files, lambda p: _holds_tests(p, files.read))
    planted = plant(hosts, files.read, new_nonce())
    tests = runner.run_tests(workspace.path, files=dict(planted.files), trace_reads=True, listing=True,
                             checks=planted.nonce, owned=guarded({*files, *planted.files}, named))
    calibration = calibrate(planted, dict(tests.results), tests.exit_code)
    # a runner whose ids name files from another folder (`cd src && pytest`) cannot have its ids checked for files
    base_ids = [n for n, _ in tests.results if not planted.owns(n)]
    calibration = replace(calibration, paths_resolve=not nonexistent(base_ids, files.read))
    if not calibration.available:
        log.warning("known-answer checks are unavailable in this repository (%s): a forged result can only be "
                    "caught by the agreement checks and the static screen", calibration.note)
    clean = _without_checks(tests, planted)
    closure = closure_of(tests.opened, files.read)
    # the named ones are read above
    traced = judged_data((), files.read, [p for p in {*tests.reads, *closure.data} if files.read(p)])
    if closure.support or closure.doctests:
        log.info("the tests' closure: modules only the tests use %s; doctests in %s", sorted(closure.support)[:10],
                 sorted(closure.doctests)[:10])
    return BaseRun(clean, calibration, named | traced, named, closure)


def _not_asked_for(findings: Sequence[str], allowed: Sequence[RunnerHook]) -> list[str]:
    """`findings` less the runner patches the sandbox saw of what a line the static screen read patches and the task
    asked for (`builtins.median = median`, shown to the critic and in the PR, bot/ensemble/judge/screen.py): a patch of
    anything else, or that the screen could not read at all (names built at run time), matches no such line."""
    def asked(finding: str) -> bool:
        target = finding.removeprefix(f"{RUNNER_PATCHED}: ").partition(": ")[0]
        top, attr = target.split(".", 1)[0], target.rsplit(".", 1)[-1]
        return any(re.search(rf"\b{re.escape(top)}\b.*\.{re.escape(attr)}\b", h.what) for h in allowed)

    return [f for f in findings if not (f.startswith(RUNNER_PATCHED) and asked(f))]


def _holds_tests(path: str, read: Read) -> bool:
    """True for a file the runner collects tests from: named as a test, or under a test folder and defining tests
    (a Rust source with `#[test]` functions included)."""
    if is_language(path, "rust"):
        return bool(re.search(r"#\[(?:\w+::)*test\]", read(path) or ""))
    return is_test_name(path) or (is_test_path(path) and bool(re.search(
        r"\b(?:def test|func Test|it\(|test\()", read(path) or "")))


@dataclass(frozen=True)
class TeamJudge:
    """The base run and the tests a team's change must pass; runs and judges the team's candidates."""

    task_text: str
    baseline: TestOutcome | None = None  # the tests at the base, which every candidate is judged against
    required_tests: tuple[str, ...] = ()  # tests the task names: they must pass
    reproduction: str | None = None  # the reproduction test, once it failed at the base
    frozen: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # its text as round 0 wrote it
    calibration: Calibration = Calibration()  # the known-answer checks the base run reported as written
    data: frozenset[str] = frozenset()  # files the base's tests read: the judge's, like test files
    named_data: frozenset[str] = frozenset()  # those the base's tests name: no test process may change them
    closure: Closure = Closure()  # the modules only the tests use, and the files whose doctests ran at the base

    @classmethod
    def of(cls, task_text: str, base: BaseRun, required: Sequence[str] = ()) -> TeamJudge:
        """The judge of a task's candidates against `base` (its outcome, known-answer checks and data), requiring
        the `required` tests too."""
        return cls(task_text, base.tests, tuple(required), calibration=base.calibration, data=base.data,
                   named_data=base.named, closure=base.closure)

    def with_reproduction(self, path: str, text: str | None) -> TeamJudge:
        """This judge, also requiring the reproduction test at `path`, judged as `text` from now on."""
        return replace(self, reproduction=path, frozen=MappingProxyType({**self.frozen, **({path: text} if text else {})}))

    def new_test_path(self, path: str, workspace: Workspace) -> str:
        """Where a new test file the plan names at `path` is written: there, or beside it where the base has a file
        at `path` (an existing test file is this judge's, never the new test's)."""
        at_base = _at_base(workspace)
        return fresh_test_path(path, at_base) if at_base(path) else path

    def verdict(self, runner: TestRunner, workspace: Workspace,
                reproduction: str | None = None, every_check: bool = False) -> tuple[TestOutcome, Judgement]:
        """The candidate in `workspace` run as the judge runs it (`run`) and judged against the base (`judge`;
        `reproduction`: the test being written, required while this judge has none). The stand-ins run only for a
        change the rest of the run finds good (or with `every_check`: a report on any change): what they can show
        refuses a change, and one that is not good is not kept anyway; a good one is judged again with them."""
        workspace = HeldWorkspace(workspace)  # the tests run on copies: what changed is read once

        def judged(tests: TestOutcome) -> Judgement:
            return self.judge(tests, workspace, reproduction)

        tests = self.run(runner, workspace, stand_ins=lambda tests: every_check or judged(tests).good)
        return tests, judged(tests)

    def run(self, runner: TestRunner, workspace: Workspace,
            stand_ins: Callable[[TestOutcome], bool] = lambda _tests: True) -> TestOutcome:
        """The candidate in `workspace` run as the judge runs it: the base's tests apart from the new test files,
        the judge's files over the tree, known-answer checks in each process (see the module's docstring); the
        stand-ins' process where `stand_ins` says the run without it needs one."""
        files = WorkspaceFiles(workspace.path)  # one listing of the tree for the whole run
        overlay = self._overlay(workspace, files.read)
        owned = [*guarded({*files, *overlay}, self.named_data), *self.closure.support]  # no test process changes these
        judged = _judged_tree(overlay, files.read)
        changed = workspace.changed_paths()
        new = sorted(p for p in {*changed, *self.frozen}
                     if is_test_path(p) and workspace.base_text(p) is None and overlay.get(p, b"") is not None
                     and (p in overlay or files.read(p) is not None))
        known = self.known_failures(workspace)
        must = self._twinned(workspace, judged)
        # a base test the time limit killed is left out, unless the change must fix it: it would only be waited for
        hung = [t for t in (self.baseline.hung if self.baseline else ()) if t not in must]
        base_process = {**overlay, **dict.fromkeys(new)}
        first = self._as_at_base(changed, new, known) or self._process(
            runner, workspace, files.read, base_process, known, owned, lambda _name: True,
            must if self.calibration.available else (), hung)
        # a new conftest.py (fixtures for the new tests, judged.py) is in `new`, so out of the first process; it
        # holds no tests, so alone it needs no second one
        written = [p for p in new if _holds_tests(p, judged) and not is_whole_harness(p)]
        second = None
        if written:
            texts = {p: judged(p) or "" for p in new if p in written or is_whole_harness(p)}
            left_out = {p: None for p in self._base_test_files(workspace) if not _used_by(p, texts)}
            second = self._process(runner, workspace, files.read,
                                   {**overlay, **left_out, **self._fixtures_added(workspace, files.read)}, known,
                                   owned, lambda name: _in_files(name, written), leave_out=hung)
        if stand_ins(_merged(first, second)):
            first = self._stood_in(first, runner, workspace, files.read, base_process, known, owned, must, hung)
        return _merged(first, second)

    def _as_at_base(self, changed: Collection[str], new: Collection[str], known: Collection[str]) -> TestOutcome | None:
        """The base run's outcome when the base's tests' process would run the base's tree itself: every path the
        candidate changed is a new test file, which that process leaves out (the reproduction round's test). Nothing
        the candidate wrote is loaded there, so running it again shows nothing the base run did not; None otherwise,
        and where the coder's summary would have to leave known failures out of the base run's text."""
        if self.baseline is None or known or not set(changed) <= set(new):
            return None
        log.info("the candidate only adds test files: the base's tests' process is the base run's")
        return replace(self.baseline, duration_s=0.0, reads=(), listed=None, opened=())

    def run_alone(self, runner: TestRunner, workspace: Workspace, tests: Mapping[str, str],
                  at_base: bool = False) -> TestOutcome:
        """The test files `tests` (path: text) in a process of their own: over the candidate's tree as the judge
        runs it, or `at_base` over the base's tree (the candidate's changes taken out). The tree's other test
        files are left out (but those `tests` use) and only `tests`' results are kept: the hidden check's run
        (bot/ensemble/judge/hidden.py)."""
        files = WorkspaceFiles(workspace.path)
        changed = workspace.changed_paths()
        if at_base:
            overlay = {p: text.encode() if (text := workspace.base_text(p)) is not None else None for p in changed}
        else:
            overlay = self._overlay(workspace, files.read)
        new = (p for p in {*changed, *self.frozen} if workspace.base_text(p) is None and is_test_path(p)
               and not is_whole_harness(p))
        overlay |= {p: None for p in {*self._base_test_files(workspace), *new} if p not in tests and not _used_by(p, tests)}
        overlay |= {p: text.encode() for p, text in tests.items()}
        owned = [*guarded({*files, *overlay}, self.named_data), *self.closure.support]
        return self._process(runner, workspace, files.read, overlay, frozenset(), owned,
                             lambda name: _in_files(name, list(tests)))

    def _process(self, runner: TestRunner, workspace: Workspace, read: Read, overlay: Mapping[str, bytes | None],
                 known: Collection[str], owned: Collection[str], keep: Callable[[str], bool],
                 twinned: Sequence[str] = (), leave_out: Collection[str] = ()) -> TestOutcome:
        """One test process over `overlay`, with this run's known-answer checks and twins of the tests `twinned`
        names, unable to change the judge's files (`owned`, and the checks); the results `keep` selects; the base's
        tests `leave_out` names not run (reported as errors, as they were at the base)."""
        judged = _judged_tree(overlay, read)
        # a host this process leaves out (the new tests' process) still has its checks beside the files it runs
        planted = plant(self.calibration.hosts, lambda p: judged(p) or read(p), new_nonce(), twinned) \
            if self.calibration.available else NOTHING
        kept = [p for p in owned if overlay.get(p, b"") is not None]  # not the files this process leaves out
        tests = runner.run_tests(workspace.path, known_failures=known, files={**overlay, **planted.files},
                                 checks=planted.nonce, owned=[*kept, *planted.files], leave_out=leave_out)
        results = dict(tests.results)
        cut_short = not tests.complete or tests.timed_out or (tests.exit_code or 0) >= SIGNALLED \
            or (tests.exit_code or 0) < 0
        tampering, doubts = evidence(planted, results, tests.exit_code, self.calibration, cut_short) \
            if planted.checks else ([], [])
        gone = nonexistent((n for n in results if not planted.owns(n)),
                           _judged_tree({**overlay, **planted.files}, read)) if self.calibration.paths_resolve else []
        if gone:
            tampering.append(f"results name {len(gone)} test(s) that do not exist in the judged tree: "
                             f"{', '.join(gone[:3])}")
        found = self._new_findings(tests)
        if any(f.startswith(RUNNER_PATCHED) for f in found):  # reading the change's runner lines is not free
            found = _not_asked_for(found, hooks_in(workspace))
        if any(f.startswith(FORGED_VALUE) for f in found):  # an equality the base had is not the change's forgery
            found = the_changes(found, read, workspace.base_text)
        tampering += [f.split(": ", 1)[1] for f in found if f.startswith(TAMPERING)]  # the judge's files, the runner
        doubts += [f for f in found if not f.startswith((*TAMPERING, REACHED_TESTS))]  # reaching is no doubt
        clean = _without_checks(tests, planted, keep)
        if doubts:
            reason = "; ".join([clean.incomplete_reason, *doubts]).strip("; ")
            clean = replace(clean, complete=False, incomplete_reason=reason)
        return replace(clean, tampering=(*clean.tampering, *tampering))

    def _stood_in(self, first: TestOutcome, runner: TestRunner, workspace: Workspace, read: Read,
                  overlay: Mapping[str, bytes | None], known: Collection[str], owned: Collection[str],
                  must: Sequence[str], leave_out: Collection[str] = ()) -> TestOutcome:
        """`first` (the base's tests' process), with what the stand-ins of the tests `must` names that passed there
        show: one more process like it, each such test's file in its own place with the test's assertion expecting
        another value (twins.stand_ins); for a suite slower than STAND_INS_WITH_THE_SUITE_S, without the base's
        other test files. Where a stand-in passes too, the test's pass is no evidence: tampering."""
        if first.tampering:
            return first
        stand = stand_ins(passing(must, dict(first.results)), _judged_tree(overlay, read), new_nonce())
        if not stand:
            return first
        files: dict[str, bytes | None] = {t.path: t.source.encode() for t in stand}
        if first.duration_s > STAND_INS_WITH_THE_SUITE_S:
            texts = {t.path: t.source for t in stand}
            files |= {p: None for p in self._base_test_files(workspace) if p not in files and not _used_by(p, texts)}
        tests = self._process(runner, workspace, read, {**overlay, **files}, known, owned, lambda _name: True,
                              must if self.calibration.available else (), leave_out)
        found = [*tests.tampering, *stand_in_passes(stand, dict(tests.results))]
        log.info("stand-ins of %d test(s) run in their tests' place: %s", len(stand), "; ".join(found) or "none passed")
        return replace(first, tampering=(*first.tampering, *found)) if found else first

    def reached(self, tests: TestOutcome) -> tuple[str, ...]:
        """Where the code under test reached into a running test in `tests` and did not at the base (took a test's
        code from its frame, set a trace function): no cheat alone, but with a hidden check left failing as at the
        base, the change can tell the shown tests apart (hidden.py)."""
        base = self.baseline.findings if self.baseline else ()
        return tuple(f.split(": ", 1)[1] for f in tests.findings if f.startswith(REACHED_TESTS) and f not in base)

    def _new_findings(self, tests: TestOutcome) -> list[str]:
        """The sandbox's findings about a run (results that disagree with the exit status or the runner's tally, a
        judge's file the run changed) that the base run did not have too: a harness whose exit status never agrees,
        or a suite that writes into its own data, is not a candidate's doing."""
        base = self.baseline.findings if self.baseline else ()
        kinds = {f.split(":", 1)[0] for f in base}
        return [f for f in tests.findings if f not in base
                and (f.startswith(TAMPERING) or f.split(":", 1)[0] not in kinds)]

    def _twinned(self, workspace: Workspace, judged: Read) -> list[str]:
        """The tests a change must fix, whose twins (twins.py) the judged run gets: the ones the task names, the
        reproduction test's and the base's failures that use the changed code; else every failure at the base."""
        repro = self.reproduction
        text = judged(repro) if repro else None
        must = [*self.required_tests, *(defined_tests(repro, text) if repro and text else []),
                *self._related_failures(workspace)]
        return must or self.base_failures()

    def _fixtures_added(self, workspace: Workspace, read: Read) -> dict[str, bytes]:
        """The existing `conftest.py` files the candidate only added fixtures to (common/testfiles.py
        `conftest_additions`), as it wrote them: the base's tests run with the base's, the new tests with these."""
        base_tests = self._base_test_files(workspace)
        return {p: now.encode() for p in workspace.changed_paths()
                if (before := workspace.base_text(p)) is not None and (now := read(p)) is not None
                and conftest_additions(p, before, now, base_tests, workspace.base_text)}

    def _base_test_files(self, workspace: Workspace) -> list[str]:
        """The test files the base's tests were reported from (a unittest id's file found among the base's)."""
        results = self.baseline.results if self.baseline else ()
        exists = _at_base(workspace)
        return sorted({f for name, _ in results if is_test_path(f := file_of_test(name, exists))})

    def judge(self, tests: TestOutcome, workspace: Workspace, reproduction: str | None = None) -> Judgement:
        """`tests` judged against the base: the reproduction test (this judge's, or `reproduction` while it is
        written), the tests the task names and the failing tests that exercise the changed code must pass."""
        repro = reproduction or self.reproduction
        required = [*self.required_tests, *([repro] if repro else []), *self._related_failures(workspace)]
        return judge(self.baseline, tests, required)

    def known_failures(self, workspace: Workspace) -> frozenset[str]:
        """Tests that failed at the base and are not the task's: left out of what the coder is shown.

        Only once the task's own tests are known (named by the task, or the reproduction test);
        before that one of the failing tests is the bug, so the coder sees them all.
        """
        if not (self.required_tests or self.reproduction):
            return frozenset()
        return frozenset(set(self.base_failures()) - set(self.required_tests) - set(self._related_failures(workspace)))

    def files(self, workspace: Workspace) -> dict[str, bytes | None]:
        """What the judge puts over the workspace's tree before a run: the base's tests, harness and test data, the
        frozen reproduction test, and no new harness file but a `conftest.py` of fixtures for the new tests (which
        `run` keeps out of the base's tests' process); test changes the task asks for by name are kept."""
        return self._overlay(workspace, WorkspaceFiles(workspace.path).read)

    def _overlay(self, workspace: Workspace, read: Read) -> dict[str, bytes | None]:
        changed = workspace.changed_paths()
        allowed = allowed_changes(self.task_text, changed, workspace.base_text, self.data)
        # the modules only the tests use are run as the base has them, like the frozen reproduction test
        support = {p: text for p in changed if p in self.closure.support
                   and not task_names_change(self.task_text, p, fixes=True)
                   and (text := workspace.base_text(p)) is not None}
        return judged_files(changed, workspace.base_text, read, {**support, **self.frozen}, allowed, self.data)

    def test_changes(self, workspace: Workspace) -> list[TestChange]:
        """The changes to existing tests and harness the task asked for, each with its diff (shown in the PR)."""
        allowed = set(allowed_changes(self.task_text, workspace.changed_paths(), workspace.base_text, self.data))
        return [TestChange(path, diff) for path, diff in _diff_by_file(workspace.diff()).items() if path in allowed]

    def base_failures(self) -> list[str]:
        """The tests that failed at the base."""
        results = self.baseline.results if self.baseline else ()
        return [name for name, outcome in results if outcome in FAILING]

    def _related_failures(self, workspace: Workspace) -> list[str]:
        """Base failures whose test file uses a source file the workspace changed."""
        failed = self.base_failures()
        if not failed:
            return []
        return related_failures(failed, workspace.changed_paths(), WorkspaceFiles(workspace.path).read, is_test_path,
                                workspace.diff())


def _at_base(workspace: Workspace) -> Callable[[str], bool]:
    """Whether the base's tree has a file at a path."""
    return lambda path: workspace.base_text(path) is not None


def _judged_tree(overlay: Mapping[str, bytes | None], read: Read) -> Read:
    """How the judged tree reads a file: `overlay`'s bytes over the workspace's files (`read`); None for a file
    the overlay leaves out."""
    return lambda path: _decoded(overlay[path]) if path in overlay else read(path)


def _decoded(data: bytes | None) -> str | None:
    return data.decode("utf-8", "replace") if data is not None else None


def _used_by(base_file: str, texts: Mapping[str, str]) -> bool:
    """Whether a new test file uses the base test file `base_file`: it names its module (`test_x`, `stats.test`: a
    JavaScript test that imports `../stats` uses the code under test, not `stats.test.js`), or (Go) shares its
    package."""
    name = base_file.rpartition("/")[2].rsplit(".", 1)[0]
    folder = base_file.rpartition("/")[0]
    for path, text in texts.items():
        if is_language(base_file, "go") and is_language(path, "go") and path.rpartition("/")[0] == folder:
            return True
        if re.search(rf"\b{re.escape(name)}\b", text):
            return True
    return False


def _in_files(name: str, paths: Collection[str]) -> bool:
    """True when test `name` is defined in one of `paths`."""
    where = file_of_test(name, lambda p: p in paths)
    return where in paths or any(name.startswith(p + "::") for p in paths)


def _without_checks(tests: TestOutcome, planted: Planted, keep: Callable[[str], bool] = lambda _n: True) -> TestOutcome:
    """`tests` without the judge's known-answer checks and without the results `keep` leaves out; with checks
    planted, whether the run passed is read from the remaining results (a must-fail check makes every exit non-zero)."""
    if not planted.checks and keep("") and all(keep(n) for n, _ in tests.results):
        return tests
    results = tuple((n, o) for n, o in tests.results if not planted.owns(n) and keep(n))
    failing = tuple(n for n, o in results if o in FAILING)
    passed = tests.passed if not planted.checks else (bool(results) and not failing and tests.complete)
    return replace(tests, results=results, failing=failing, passed=passed, total=len(results) or None)


def _merged(first: TestOutcome, second: TestOutcome | None) -> TestOutcome:
    """The base's tests' process and the new tests' process (if there was one) as one judged run."""
    if second is None:
        return first
    results = (*first.results, *((n, o) for n, o in second.results if n not in dict(first.results)))
    summary = first.summary if second.passed else f"{first.summary}\n\nThe new test files, run on their own:\n" \
                                                  f"{second.summary}"
    reason = "; ".join(r for r in (first.incomplete_reason, second.incomplete_reason) if r)
    return replace(first, passed=first.passed and second.passed, failing=(*first.failing, *second.failing),
                   summary=summary, exit_code=first.exit_code if first.exit_code else second.exit_code,
                   total=len(results) or None, duration_s=round(first.duration_s + second.duration_s, 2),
                   results=results, timed_out=first.timed_out or second.timed_out,
                   complete=first.complete and second.complete, incomplete_reason=reason,
                   findings=(*first.findings, *second.findings), tampering=(*first.tampering, *second.tampering))


def _diff_by_file(diff: str) -> dict[str, str]:
    """A unified diff (`git diff`) cut into each file's part, by the file's path after the change."""
    parts: dict[str, str] = {}
    for chunk in ("\n" + diff).split("\ndiff --git ")[1:]:
        header = chunk.split("\n", 1)[0]
        path = header.rsplit(" b/", 1)[-1] if " b/" in header else header
        parts[path] = "diff --git " + chunk.rstrip("\n")
    return parts

"""One team's test-driven refinement loop: explore, plan, reproduce, code, check, test, review, refine.

A team may go straight to coding (`first_attempt: direct` in the config): when the base's tests
already fail, the coder gets the task, those failures and the files they and retrieval point at,
with no exploring or planning call, and the planner first comes in when a failure repeats.

Every test run is judged against the base run (bot/ensemble/verdict.py): tests that already
failed before the change never block it and are not fed to the coder as its own. Only a change
the judge found good goes to the critic, whose job is the green but wrong change. The loop
ends when a change passes and the critic accepts, when `max_iterations` rounds are used, when
the budget runs out, when the same failure repeats past a limit, or on a stop request. Two
rounds failing the same way send the planner back to explore further and re-plan with what was
learned. Every round whose edits applied and compile becomes one commit in the team's workspace;
edits that do not compile are dropped before the next round starts from the last commit.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from bot.ensemble import prompts, round_text
from bot.ensemble.coding import code_round
from bot.ensemble.commits import commit_round
from bot.ensemble.critic import review
from bot.ensemble.insights import InsightBoard
from bot.ensemble.instructions import Instructions
from bot.ensemble.judged import allowed_changes, diff_by_file, judged_files
from bot.ensemble.planner import Exploration, ExploreBudget, direct_plan, explore, first_look, make_plan
from bot.ensemble.ports import ModelClient, Retriever, TestRunner
from bot.ensemble.reproduce import reproduce
from bot.ensemble.types import (
    ACCEPTED,
    BUDGET,
    CRASHED,
    MAX_ITERATIONS,
    QUESTIONS,
    STOPPED,
    STUCK,
    TESTS_PASS,
    Phase,
    Plan,
    Progress,
    Reproduction,
    Round,
    Task,
    TeamResult,
    TestChange,
    TestOutcome,
    Verdict,
)
from bot.ensemble.verdict import Judgement, judge, names_a_problem, related_failures
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import BudgetExceeded, StopRequested
from bot.forge import Workspace
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES
from bot.redact import clip
from bot.trace import span
from common.testfiles import is_test_path

log = logging.getLogger(__name__)
REPLAN_AFTER = 2  # rounds failing with the same signature before the planner re-plans
REVISIONS_AFTER_GOOD = 1  # rounds a critic's "revise" may buy once the judge found a change good
STUCK_AFTER = 3  # rounds failing with the same signature before the team gives up


@dataclass
class Team:
    """A team's fixed inputs: its name, the models, the index, the test runner and its workspace."""

    name: str
    task: Task
    models: ModelClient
    retriever: Retriever
    runner: TestRunner
    workspace: Workspace
    board: InsightBoard
    max_iterations: int = 4
    deny: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # paths.max_file_kb: a bigger file is refused
    lessons: str = ""
    trailers: dict[str, str] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    progress: Progress = lambda team, phase, rnd, detail: None  # noqa: E731
    baseline: TestOutcome | None = None  # the tests at the base, which every candidate is judged against
    explore_budget: ExploreBudget = ExploreBudget()
    required_tests: tuple[str, ...] = ()  # tests the task names: they must pass
    reproduction: str | None = None  # the reproduction test, once it failed at the base
    frozen: dict[str, str] = field(default_factory=dict)  # the reproduction test as round 0 wrote it: judged as is
    instructions: Instructions = Instructions()  # the repository's conventions, read from a trusted tree
    direct_first: bool = False  # try one direct round (no exploring or planning calls) before planning

    def say(self, phase: Phase, rnd: int = 0, detail: str = "") -> None:
        """Report progress; a failing progress view never stops the work."""
        try:
            self.progress(self.name, phase, rnd, detail)
        except Exception as exc:  # noqa: BLE001 - reporting (a comment, a terminal) is not the work
            log.warning("team %s: progress report failed (%s: %s); carrying on", self.name, type(exc).__name__, exc)

    def check_stop(self) -> None:
        """Raise StopRequested when a stop was requested (Ctrl-C, `/ensemble stop`); called between steps."""
        if self.stop.is_set():
            raise StopRequested("a stop was requested")

    def notes(self, reader: str) -> str:
        """Lessons from earlier runs, and the other teams' notes this role of the team has not read yet."""
        return "\n".join(filter(None, [self.lessons, *self.board.unseen(self.name, reader)]))

    def conventions(self, paths: Iterable[str] = ()) -> str:
        """The repository's instructions that apply to `paths` (the root's alone when none), rendered."""
        return self.instructions.applying_to(paths).render()

    def prompt_budget(self, role: str) -> int:
        """Tokens the team's model for `role` can take as a prompt."""
        budget = getattr(self.models, "prompt_budget", None)
        return int(budget(role)) if callable(budget) else prompts.CODER_CONTEXT_TOKENS

    @property
    def known_failures(self) -> frozenset[str]:
        """Tests that failed at the base and are not the task's: left out of what the coder is shown.

        Only once the task's own tests are known (named by the task, or the reproduction test);
        before that one of the failing tests is the bug, so the coder sees them all.
        """
        if not (self.required_tests or self.reproduction):
            return frozenset()
        failed = set(self._base_failures())
        return frozenset(failed - set(self.required_tests) - set(self._related_failures()))

    def judge(self, tests: TestOutcome, reproduction: str | None = None) -> Judgement:
        """`tests` judged against the base: the reproduction test, the tests the task names and the failing
        tests that exercise the changed code must pass."""
        required = [*self.required_tests, *([reproduction] if reproduction else []), *self._related_failures()]
        return judge(self.baseline, tests, required)

    def _base_failures(self) -> list[str]:
        results = self.baseline.results if self.baseline else ()
        return [name for name, outcome in results if outcome in ("fail", "error")]

    def _related_failures(self) -> list[str]:
        """Base failures whose test file uses a source file this team changed."""
        failed = self._base_failures()
        if not failed:
            return []
        files = WorkspaceFiles(self.workspace.path)
        return related_failures(failed, self.workspace.changed_paths(), files.read, is_test_path,
                                self.workspace.diff())

    def judged_files(self) -> dict[str, bytes | None]:
        """What the judge puts over this team's tree before a run: the base's tests and harness, the frozen
        reproduction test, and no new harness file; test changes the task asks for by name are kept."""
        files = WorkspaceFiles(self.workspace.path)
        changed = self.workspace.changed_paths()
        allowed = allowed_changes(self.task.text, changed, self.workspace.base_text)
        return judged_files(changed, self.workspace.base_text, files.read, self.frozen, allowed)

    def test_changes(self) -> list[TestChange]:
        """The changes to existing tests and harness the task asked for, each with its diff (shown in the PR)."""
        changed = self.workspace.changed_paths()
        allowed = set(allowed_changes(self.task.text, changed, self.workspace.base_text))
        return [TestChange(path, diff) for path, diff in diff_by_file(self.workspace.diff()).items() if path in allowed]

    def grep(self, text: str) -> list[tuple[str, int, str]]:
        """Exact-text search in the team's workspace."""
        return self.workspace.grep(text)


def run_team(team: Team) -> TeamResult:
    """Run the whole loop for one team; model budget, stop requests and crashes end it cleanly.

    Work that passed is never lost: when the last state fails (or the team crashed) after an
    earlier round passed, the workspace goes back to that round's commit.
    """
    result = TeamResult(team.name, models=team.trailers.get("Ensemble-Model", ""))
    with span("ensemble.team", team=team.name) as s:
        try:
            _plan_and_loop(team, result)
        except BudgetExceeded as exc:
            result.stop_reason, result.stop_detail = BUDGET, str(exc)
        except StopRequested as exc:
            result.stop_reason, result.stop_detail = STOPPED, str(exc)
        except Exception as exc:  # noqa: BLE001 - one team's crash must not end the other's work
            log.warning("team %s crashed: %s", team.name, exc, exc_info=log.isEnabledFor(logging.DEBUG))
            result.stop_reason, result.stop_detail = CRASHED, str(exc)
            result.error = f"{type(exc).__name__}: {exc}"
            s.fail(result.error)
        team.workspace.discard()  # edits that never became a commit are not part of the result
        _keep_last_passing(team, result)
        result.diff = team.workspace.diff()
        result.test_changes = team.test_changes()
        result.judgement = _final_judgement(team, result)
        s.set(stop_reason=result.stop_reason, rounds=len(result.rounds), passed=result.passed,
              accepted=result.accepted, diff_lines=result.diff_size, refused=result.refused, kept=result.kept)
    return result


def _keep_last_passing(team: Team, result: TeamResult) -> None:
    """Go back to the newest committed round whose tests passed when the final state does not pass."""
    if result.passed and result.stop_reason != CRASHED:
        return
    passing = [r for r in result.rounds if r.commit and r.tests is not None and r.good]
    if not passing:
        return
    best = next((r for r in reversed(passing) if r.verdict == Verdict.ACCEPT), passing[-1])
    team.workspace.reset(best.commit or "")
    result.tests_after = best.tests
    result.judgement = best.judgement
    result.accepted = best.verdict == Verdict.ACCEPT
    result.kept = (f"round {best.number} passed the tests and is kept; "
                   f"{'the team crashed after it' if result.stop_reason == CRASHED else 'later rounds did not pass'}")


def _final_judgement(team: Team, result: TeamResult) -> Judgement | None:
    """The judgement of the team's final state: its last tested round's, or the kept round's."""
    if result.judgement is not None:
        return result.judgement
    tested = [r for r in result.rounds if r.judgement is not None and r.commit]
    return tested[-1].judgement if tested else None


def _plan_and_loop(team: Team, result: TeamResult) -> None:
    files = WorkspaceFiles(team.workspace.path)
    loop = _Loop()
    found = None
    if _direct(team):
        # Straight to coding from the failing tests; the planner comes in when a failure repeats (a re-plan).
        found, loop.feedback = first_look(team.retriever, team.task), _base_failures_text(team)
        result.retrieved = found.retrieved
        result.plan = direct_plan(team.task, found, loop.feedback, lambda p: files.read(p) is not None)
        result.reproduction = Reproduction(None, note=result.plan.no_test_reason)
    else:
        team.say(Phase.EXPLORING)
        team.check_stop()
        found = explore(team.models, team.retriever, team.task, team.notes("planner"), files.read, team.name,
                        grep=team.grep, budget=team.explore_budget, conventions=team.conventions())
        result.retrieved = found.retrieved
        team.say(Phase.PLANNING)
        team.check_stop()
        # An approved plan is binding: exploration still gathers context, but the planner is not asked.
        plan = team.task.plan or make_plan(team.models, team.task, found, team.notes("planner"), team=team.name,
                                           conventions=team.conventions(r.path for r in found.retrieved))
        result.plan = plan
        if plan.questions:
            result.stop_reason, result.stop_detail = QUESTIONS, "; ".join(plan.questions)
            return
        if plan.reproduction_test:
            result.reproduction = reproduce(team, plan, found)
        else:
            result.reproduction = Reproduction(None, note=plan.no_test_reason)
    if not _refine(team, result, found, loop):
        result.stop_reason = MAX_ITERATIONS
        result.stop_detail = f"{team.max_iterations} rounds used"


def _direct(team: Team) -> bool:
    """Whether the team first tries a direct attempt: asked for, no approved plan to follow, and failing tests
    at the base to judge it by (without them a plan's reproduction test is the evidence)."""
    return team.direct_first and team.task.plan is None and bool(team._base_failures())


def _base_failures_text(team: Team) -> str:
    """The base's failing tests, as the coder of a direct attempt reads them: names, assertions, frames."""
    summary = team.baseline.summary if team.baseline else ""
    return f"The tests that fail now, before any change:\n{summary}" if summary.strip() else ""


@dataclass
class _Loop:
    """What the rounds carry from one to the next: the coder's feedback and how often a failure repeated."""

    feedback: str = ""
    last_signature: str | None = None
    same: int = 0
    revised_good: int = 0


def _refine(team: Team, result: TeamResult, found: Exploration, loop: _Loop) -> bool:
    """Rounds until the change is judged good and accepted, the team is stuck, or the rounds run out.

    Only a change the judge found good goes to the critic (the tests already say what is wrong with
    the others). True when the team is done (its stop reason set); False when the rounds ran out.
    """
    plan = result.plan or Plan("")
    repro = result.reproduction.path if result.reproduction and result.reproduction.failed_before else None
    team.reproduction = repro
    for number in range(len(result.rounds) + 1, team.max_iterations + 1):
        team.say(Phase.CODING, number)
        team.check_stop()
        rnd = code_round(team, plan, found, loop.feedback, Round(number))
        if rnd.tests is not None:
            rnd.judgement = team.judge(rnd.tests, repro)
        result.rounds.append(rnd)
        if rnd.applied and not rnd.compile_error:
            # Commit before the review, so a budget stop during it still leaves the tested change.
            rnd.commit = commit_round(team, rnd, f"{clip(team.task.title, 60)} (round {number})", round_text.round_body(plan, rnd, "fix"))
        if rnd.applied and not rnd.compile_error:
            result.tests_after, result.judgement = rnd.tests, rnd.judgement
            if rnd.good:
                team.say(Phase.REVIEWING, number)
                team.check_stop()
                review(team, rnd)
        else:
            team.workspace.discard()  # the next round starts from the last commit
        team.board.publish(team.name, round_text.insight(rnd))
        if rnd.good and rnd.verdict == Verdict.ACCEPT:
            result.accepted = True
            result.stop_reason = ACCEPTED
            return True
        if _enough_revising(result, rnd, loop.revised_good, team.workspace.diff() if rnd.good else ""):
            return True
        loop.revised_good += bool(rnd.good or loop.revised_good)
        loop.same = loop.same + 1 if rnd.signature == loop.last_signature else 1
        loop.last_signature = rnd.signature
        if loop.same > STUCK_AFTER - 1 and not rnd.good:
            result.stop_reason, result.stop_detail = STUCK, f"the same failure {loop.same} times: {clip(rnd.signature, 200)}"
            return True
        loop.feedback = round_text.feedback(rnd, _last_tested(result))
        if loop.same == REPLAN_AFTER and number < team.max_iterations:
            plan = _replan(team, result, found)
    return False


def _last_tested(result: TeamResult) -> Round | None:
    """The newest round whose tests ran: what the workspace's current change still gives."""
    return next((r for r in reversed(result.rounds) if r.tests is not None and r.commit), None)


def _enough_revising(result: TeamResult, rnd: Round, revised: int, diff: str) -> bool:
    """Stop on a judged-good change the critic keeps revising: one more round at most, and only for feedback
    that names what is wrong in the change (`diff`). The good change is kept (run_team goes back to it)."""
    if revised >= REVISIONS_AFTER_GOOD:
        result.stop_reason, result.stop_detail = TESTS_PASS, (
            f"round {rnd.number} was the one round more the critic's revision bought")
        return True
    if rnd.good and not names_a_problem(rnd.feedback, diff):
        result.stop_reason, result.stop_detail = TESTS_PASS, (
            f"round {rnd.number} passed the tests; the critic's feedback named nothing to change: "
            f"{clip(rnd.feedback, 120)!r}")
        return True
    return False


def _replan(team: Team, result: TeamResult, found: Exploration) -> Plan:
    """Explore further with what the rounds taught, then plan again."""
    team.say(Phase.REPLANNING, len(result.rounds))
    team.check_stop()
    history = round_text.history(result)
    files = WorkspaceFiles(team.workspace.path)
    explore(team.models, team.retriever, team.task, team.notes("planner"), files.read, team.name,
            grep=team.grep, budget=team.explore_budget, history=history, found=found,
            conventions=team.conventions())
    result.retrieved = found.retrieved
    plan = make_plan(team.models, team.task, found, team.notes("planner"), history, team.name,
                     team.conventions(r.path for r in found.retrieved))
    if team.task.plan:  # a team may refine an approved plan, never replace it
        plan = _refined(team.task.plan, plan)
    result.plan = plan
    return plan


def _refined(approved: Plan, new: Plan) -> Plan:
    """The approved plan with the new plan's other steps and files added after its own."""
    steps = approved.steps + tuple(f"(refinement) {s}" for s in new.steps if s not in approved.steps)
    files = approved.files + tuple(f for f in new.files if f not in approved.files)
    return replace(approved, steps=steps, files=files)

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
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from bot.config import EditFormat
from bot.ensemble import round_text
from bot.ensemble.coding import Brief, Coder
from bot.ensemble.critic import Critic, review
from bot.ensemble.insights import InsightBoard
from bot.ensemble.instructions import Instructions
from bot.ensemble.judging import TeamJudge
from bot.ensemble.planner import Exploration, ExploreBudget, direct_plan, explore, first_look, make_plan
from bot.ensemble.ports import ModelClient, Retriever, TestRunner
from bot.ensemble.reproduce import reproduce
from bot.ensemble.rounds import Reporter, commit_round, play_round
from bot.ensemble.screen import hooks_in
from bot.ensemble.select import LIMITS, best_partial_round
from bot.ensemble.sentinels import Calibration
from bot.ensemble.types import (
    ACCEPTED,
    BUDGET,
    CRASHED,
    MAX_ITERATIONS,
    QUESTIONS,
    STOPPED,
    STUCK,
    TESTS_PASS,
    Judgement,
    Phase,
    Plan,
    Progress,
    Reproduction,
    Round,
    Task,
    TeamResult,
    TestOutcome,
    Verdict,
)
from bot.ensemble.verdict import names_a_problem
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import BudgetExceeded, StopRequested
from bot.forge import Workspace
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES
from bot.redact import clip
from bot.trace import span
from common.languages import is_code
from common.testfiles import is_test_path

log = logging.getLogger(__name__)
REPLAN_AFTER = 2  # rounds failing with the same signature before the planner re-plans
REVISIONS_AFTER_GOOD = 1  # rounds a critic's "revise" may buy once the judge found a change good
STUCK_AFTER = 3  # rounds failing with the same signature before the team gives up
IDLE_AFTER = 2  # rounds in a row whose reply changed nothing (Round.idle) before the team gives up


@dataclass(frozen=True)
class Team:
    """A team's fixed inputs: its name, the models, the index, the test runner, its workspace and the base run.

    Complete when built; what the loop learns as it goes (the plan, the reproduction test, the
    feedback) lives in the loop, not on the team.
    """

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
    calibration: Calibration = Calibration()  # the judge's known-answer checks the base run reported as written
    test_data: frozenset[str] = frozenset()  # files the base's tests read: the judge's, like test files
    explore_budget: ExploreBudget = ExploreBudget()
    required_tests: tuple[str, ...] = ()  # tests the task names: they must pass
    instructions: Instructions = Instructions()  # the repository's conventions, read from a trusted tree
    direct_first: bool = False  # try one direct round (no exploring or planning calls) before planning
    temperature: float | None = None  # every role's sampling temperature in this team (None: each role's own)
    edit_format: EditFormat = "blocks"  # how the coder writes a change (Config.edit_format)
    deadline: float | None = None  # the `clock()` time the run ends by (deadline_minutes)
    clock: Callable[[], float] = time.monotonic

    def notes(self, reader: str) -> str:
        """Lessons from earlier runs, and the other teams' notes this role of the team has not read yet."""
        return "\n".join(filter(None, [self.lessons, *self.board.unseen(self.name, reader)]))

    def conventions(self, paths: Iterable[str] = ()) -> str:
        """The repository's instructions that apply to `paths` (the root's alone when none), rendered."""
        return self.instructions.applying_to(paths).render()

    @property
    def reporter(self) -> Reporter:
        """Where the team's progress goes, and its stop check."""
        return Reporter(self.name, self.progress, self.stop)

    @property
    def judge(self) -> TeamJudge:
        """The judge before any reproduction test: the base run and the tests the task names."""
        return TeamJudge(self.task.text, self.baseline, self.required_tests, calibration=self.calibration,
                         data=self.test_data)

    @property
    def coder(self) -> Coder:
        """The team's coder, on the team's workspace."""
        return Coder(self.models, self.name, self.task, self.workspace, self.instructions, self.deny,
                     self.max_file_bytes, self.stop.is_set, self.temperature)

    @property
    def critic(self) -> Critic:
        """The team's critic."""
        return Critic(self.models, self.name, self.instructions)


def run_team(team: Team) -> TeamResult:
    """Run the whole loop for one team; model budget, stop requests and crashes end it cleanly.

    Work that passed is never lost: when the last state fails (or the team crashed) after an
    earlier round passed, the workspace goes back to that round's commit.
    """
    result = TeamResult(team.name, models=team.trailers.get("Ensemble-Model", ""))
    loop = _Loop(team.judge)
    with span("ensemble.team", team=team.name) as s:
        try:
            _plan_and_loop(team, result, loop)
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
        _keep_last_passing(team.workspace, result)
        result.judgement = _final_judgement(result)
        _keep_best_partial(team.workspace, result)
        result.diff = team.workspace.diff()
        result.test_changes = loop.judge.test_changes(team.workspace)
        result.frozen = dict(loop.judge.frozen)
        result.runner_hooks = hooks_in(team.workspace)
        s.set(stop_reason=result.stop_reason, rounds=len(result.rounds), passed=result.passed,
              accepted=result.accepted, diff_lines=result.diff_size, refused=result.refused, kept=result.kept)
    return result


@dataclass
class _Loop:
    """What the rounds carry from one to the next: the judge (with the reproduction test once written), the plan
    and what exploring found, the coder's feedback, and how often a failure repeated."""

    judge: TeamJudge
    plan: Plan = field(default_factory=lambda: Plan(""))
    found: Exploration = field(default_factory=Exploration)
    feedback: str = ""
    failing: str = ""  # a direct attempt's failing tests at the base, whose files the coder keeps seeing
    last_signature: str | None = None
    same: int = 0
    revised_good: int = 0
    sent: list[str] = field(default_factory=list)  # the coder's replies in rounds whose change was not good
    misses: int = 0  # rounds whose change was not good (the `alternate` edit format switches after each)
    idle: int = 0  # rounds in a row whose reply changed nothing


def _plan_and_loop(team: Team, result: TeamResult, loop: _Loop) -> None:
    """The algorithm: look (or explore and plan), reproduce, then rounds until judged good or stopped."""
    report = team.reporter
    if _direct(team, loop.judge):
        # Straight to coding from the failing tests; the planner comes in when a failure repeats (a re-plan).
        loop.found, loop.failing = first_look(team.retriever, team.task), _base_failures_text(team.baseline)
        files = WorkspaceFiles(team.workspace.path)
        loop.plan = direct_plan(team.task, loop.found, loop.failing, lambda p: files.read(p) is not None)
        result.reproduction = Reproduction(None, note=loop.plan.no_test_reason)
    else:
        report.say(Phase.EXPLORING)
        report.check_stop()
        loop.found = _explore(team)
        result.retrieved = loop.found.retrieved
        report.say(Phase.PLANNING)
        report.check_stop()
        # An approved plan is binding: exploration still gathers context, but the planner is not asked.
        loop.plan = team.task.plan or make_plan(team.models, team.task, loop.found, team.notes("planner"),
                                                team=team.name,
                                                conventions=team.conventions(r.path for r in loop.found.retrieved))
        result.plan = loop.plan
        if loop.plan.questions:
            result.stop_reason, result.stop_detail = QUESTIONS, "; ".join(loop.plan.questions)
            return
        if loop.plan.reproduction_test:
            result.reproduction, loop.judge = reproduce(team.coder, _brief(team, loop), loop.judge, team.runner,
                                                        report, team.trailers)
        else:
            result.reproduction = Reproduction(None, note=loop.plan.no_test_reason)
    result.retrieved, result.plan = loop.found.retrieved, loop.plan
    if not _refine(team, result, loop):
        result.stop_reason = MAX_ITERATIONS
        result.stop_detail = f"{team.max_iterations} rounds used"


def _direct(team: Team, judge: TeamJudge) -> bool:
    """Whether the team first tries a direct attempt: asked for, no approved plan to follow, and failing tests
    at the base to judge it by (without them a plan's reproduction test is the evidence)."""
    return team.direct_first and team.task.plan is None and bool(judge.base_failures())


def _base_failures_text(baseline: TestOutcome | None) -> str:
    """The base's failing tests, as the coder of a direct attempt reads them: names, assertions, frames."""
    return baseline.summary.strip() if baseline else ""


def _brief(team: Team, loop: _Loop) -> Brief:
    """What the coder is told this round."""
    return Brief(loop.plan, loop.found, loop.feedback, team.notes("coder"), failing=loop.failing, sent=tuple(loop.sent),
                 whole=writes_whole(team.edit_format, loop.misses), one_turn=loop.revised_good > 0)


def writes_whole(edit_format: EditFormat, misses: int) -> bool:
    """Whether the coder sends files whole in a round after `misses` rounds whose change was not good."""
    return edit_format == "whole" or (edit_format == "alternate" and misses % 2 == 0)


def _refine(team: Team, result: TeamResult, loop: _Loop) -> bool:
    """Rounds until the change is judged good and accepted, the team is stuck, or the rounds run out.

    Only a change the judge found good goes to the critic (the tests already say what is wrong with
    the others). True when the team is done (its stop reason set); False when the rounds ran out.
    """
    report, workspace = team.reporter, team.workspace
    took = 0.0  # seconds the last round took, its review included
    quickest: dict[bool, float] = {}  # the quickest round's seconds of each kind: whole files (True) or edit blocks
    for number in range(len(result.rounds) + 1, team.max_iterations + 1):
        whole = writes_whole(team.edit_format, loop.misses)
        if _no_time_for_another(team, result, took, quickest.get(whole)):
            return True
        report.say(Phase.CODING, number)
        report.check_stop()
        started = team.clock()
        rnd = play_round(team.coder, _brief(team, loop), loop.judge, team.runner, report, Round(number))
        result.rounds.append(rnd)
        loop.sent += [] if rnd.good else rnd.replies
        loop.misses += not rnd.good
        if rnd.applied and not rnd.compile_error:
            # Commit before the review, so a budget stop during it still leaves the tested change.
            rnd.commit = commit_round(workspace, rnd, f"{clip(team.task.title, 60)} (round {number})",
                                      round_text.round_body(loop.plan, rnd, "fix"), team.trailers)
        if rnd.applied and not rnd.compile_error:
            result.tests_after, result.judgement = rnd.tests, rnd.judgement
            if rnd.good:
                report.say(Phase.REVIEWING, number)
                report.check_stop()
                review(team.critic, team.task, workspace.diff(), workspace.changed_paths(), rnd, hooks_in(workspace))
        else:
            workspace.discard()  # the next round starts from the last commit
        took = team.clock() - started
        quickest[whole] = min(took, quickest.get(whole, took))
        team.board.publish(team.name, round_text.insight(rnd))
        if rnd.good and rnd.verdict == Verdict.ACCEPT:
            result.accepted = True
            result.stop_reason = ACCEPTED
            return True
        if _enough_revising(result, rnd, loop.revised_good, workspace.diff() if rnd.good else ""):
            return True
        loop.revised_good += bool(rnd.good or loop.revised_good)
        loop.same = loop.same + 1 if rnd.signature == loop.last_signature else 1
        loop.last_signature = rnd.signature
        loop.idle = loop.idle + 1 if rnd.idle else 0
        if _stuck(result, rnd, loop):
            return True
        loop.feedback = round_text.feedback(rnd, _last_tested(result), repeated=loop.same > 1)
        if loop.same == REPLAN_AFTER and number < team.max_iterations and _time_to_replan(team, quickest, loop.misses):
            loop.plan = _replan(team, result, loop.found)
            result.retrieved, result.plan = loop.found.retrieved, loop.plan
    return False


def _stuck(result: TeamResult, rnd: Round, loop: _Loop) -> bool:
    """Give up on the same failure STUCK_AFTER times, or on IDLE_AFTER replies in a row that changed nothing: a
    coder that sends its files back as they are, in both formats, has no change to offer (in the bench's runs of the
    local 1.5B model, a coder that sent two such replies sent a third after re-planning too)."""
    if rnd.good:
        return False
    if loop.idle >= IDLE_AFTER:
        result.stop_reason, result.stop_detail = STUCK, (
            f"the coder's last {loop.idle} replies changed nothing: it has no change to offer")
    elif loop.same > STUCK_AFTER - 1:
        result.stop_reason, result.stop_detail = STUCK, f"the same failure {loop.same} times: {clip(rnd.signature, 200)}"
    else:
        return False
    return True


def _time_to_replan(team: Team, quickest: Mapping[bool, float], misses: int) -> bool:
    """Whether a re-plan and the round after it can end before the deadline. A planner call reads about what a
    coder call reads, so it is taken to cost what the quickest round of the next round's kind took: with less
    than twice that left, the team plays the round without re-planning (a re-plan the deadline leaves no round
    after is a model call spent for nothing)."""
    if team.deadline is None:
        return True
    took = quickest.get(writes_whole(team.edit_format, misses))
    return took is None or team.deadline - team.clock() >= 2 * took


def _explore(team: Team, history: str = "", found: Exploration | None = None) -> Exploration:
    """Retrieval and the planner's own requests (further, with what the rounds taught, when `found` is given)."""
    files = WorkspaceFiles(team.workspace.path)
    return explore(team.models, team.retriever, team.task, team.notes("planner"), files.read, team.name,
                   grep=team.workspace.grep, budget=team.explore_budget, history=history, found=found,
                   conventions=team.conventions())


def _replan(team: Team, result: TeamResult, found: Exploration) -> Plan:
    """Explore further with what the rounds taught (unless the context already holds every source file, so
    exploring could find nothing new), then plan again."""
    team.reporter.say(Phase.REPLANNING, len(result.rounds))
    team.reporter.check_stop()
    history = round_text.history(result)
    if not _all_code_read(team, found):
        _explore(team, history, found)
    plan = make_plan(team.models, team.task, found, team.notes("planner"), history, team.name,
                     team.conventions(r.path for r in found.retrieved))
    if team.task.plan:  # a team may refine an approved plan, never replace it
        plan = _refined(team.task.plan, plan)
    return plan


def _all_code_read(team: Team, found: Exploration) -> bool:
    """True when what was read already includes every source file outside the tests (a small repository):
    a planner call to explore it would only ask for what it has."""
    read = {r.path for r in found.retrieved}
    code = [p for p in WorkspaceFiles(team.workspace.path) if is_code(p) and not is_test_path(p)]
    return bool(code) and all(p in read for p in code)


def _last_tested(result: TeamResult) -> Round | None:
    """The newest round whose tests ran: what the workspace's current change still gives."""
    return next((r for r in reversed(result.rounds) if r.tests is not None and r.commit), None)


def _no_time_for_another(team: Team, result: TeamResult, took: float, quickest: float | None) -> bool:
    """A round that cannot end before the deadline is not started: the deadline would cut it off, and the run
    would deliver what it has anyway, only later and with a model call spent for nothing.

    With a change the judge found good in hand, the last round's time (`took`) is the measure. Without one,
    it is the quickest earlier round of the next round's kind (`quickest`: whole files or edit blocks, whose
    replies differ several times over in length, and so in time on a slow server): only a round that no
    earlier round like it could have finished in the time left is given up, and the first of a kind is played.
    """
    if team.deadline is None:
        return False
    left = team.deadline - team.clock()
    good = next((r for r in reversed(result.rounds) if r.good and r.commit), None)
    if good is not None and took and left < took:
        result.stop_reason, result.stop_detail = TESTS_PASS, (
            f"another round would not end before the deadline ({left:.0f} s left, the last round took {took:.0f} s); "
            f"round {good.number}'s change passed the tests")
    elif good is None and quickest is not None and left < quickest:
        result.stop_reason, result.stop_detail = STOPPED, (
            f"another round would not end before the deadline ({left:.0f} s left, the quickest round took "
            f"{quickest:.0f} s)")
    else:
        return False
    log.info("team %s: %s", team.name, result.stop_detail)
    return True


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


def _keep_last_passing(workspace: Workspace, result: TeamResult) -> None:
    """Go back to the newest committed round whose tests passed when the final state does not pass."""
    if result.passed and result.stop_reason != CRASHED:
        return
    passing = [r for r in result.rounds if r.commit and r.tests is not None and r.good]
    if not passing:
        return
    best = next((r for r in reversed(passing) if r.verdict == Verdict.ACCEPT), passing[-1])
    workspace.reset(best.commit or "")
    result.tests_after = best.tests
    result.judgement = best.judgement
    result.accepted = best.verdict == Verdict.ACCEPT
    result.kept = (f"round {best.number} passed the tests and is kept; "
                   f"{'the team crashed after it' if result.stop_reason == CRASHED else 'later rounds did not pass'}")


def _keep_best_partial(workspace: Workspace, result: TeamResult) -> None:
    """A team stopped by a limit without a passing change goes back to its round that fixed the most tests
    without breaking any, when its final state is not at least as good: that round is its partial work."""
    if result.passed or result.stop_reason not in LIMITS:
        return
    best = best_partial_round(result.rounds)
    final = result.judgement
    if best is None or best.judgement is None or (
            final is not None and final.improves and len(final.fixed) >= len(best.judgement.fixed)):
        return
    workspace.reset(best.commit or "")
    result.tests_after, result.judgement = best.tests, best.judgement
    result.kept = (f"round {best.number} fixed {len(best.judgement.fixed)} failing test(s) without breaking any "
                   "and is kept; later rounds did not do better")


def _final_judgement(result: TeamResult) -> Judgement | None:
    """The judgement of the team's final state: its last tested round's, or the kept round's."""
    if result.judgement is not None:
        return result.judgement
    tested = [r for r in result.rounds if r.judgement is not None and r.commit]
    return tested[-1].judgement if tested else None


def _refined(approved: Plan, new: Plan) -> Plan:
    """The approved plan with the new plan's other steps and files added after its own."""
    steps = approved.steps + tuple(f"(refinement) {s}" for s in new.steps if s not in approved.steps)
    files = approved.files + tuple(f for f in new.files if f not in approved.files)
    return replace(approved, steps=steps, files=files)

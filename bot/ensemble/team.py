"""One team's test-driven refinement loop: explore, plan, reproduce, code, check, test, review, refine.

The loop is a sequence of steps over a `_State` that each step replaces, never changes: the policy
(policy.py) says what comes next from what happened so far (write the reproduction test, play a
round, re-plan, or stop, and why), and this module carries it out. A team may go straight to coding
(`first_attempt: direct` in the config): when the base's tests already fail, the coder gets the
task, those failures and the files they and retrieval point at, with no exploring or planning
call, and the planner first comes in when a failure repeats.

Every test run is judged against the base run (bot/ensemble/judge/verdict.py): tests that already failed
before the change never block it and are not fed to the coder as its own. Only a change the judge
found good goes to the critic, whose job is the green but wrong change. Every round whose edits
applied and compile becomes one commit in the team's workspace, made before the review (so a stop
during it keeps the tested change); edits that do not compile are dropped before the next round
starts from the last commit. Whatever ends the team, it goes back to its best round (`_kept`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace

from bot.config import ExploreSpec
from bot.ensemble import round_text
from bot.ensemble.coder import Brief, Coder, write_hidden_check
from bot.ensemble.critic import Critic, review
from bot.ensemble.insights import InsightBoard, insight
from bot.ensemble.instructions import Instructions
from bot.ensemble.judge import (
    SPECIAL_CASED,
    HiddenCheck,
    TeamJudge,
    can_tell_apart,
    hidden_check_at_base,
    hooks_in,
    judge_by_hidden_check,
    no_hidden_check,
    not_needed,
)
from bot.ensemble.planner import TaskPlanner, direct_plan, first_look, plan_task
from bot.ensemble.policy import (
    APPROACH_WORDS,
    NEXT_FILE,
    Continue,
    History,
    Limits,
    Replan,
    Reproduce,
    Stop,
    decide,
    interrupted,
)
from bot.ensemble.ports import ModelClient, Retriever, TestRunner
from bot.ensemble.reproduce import reproduce
from bot.ensemble.rounds import commit_round, play_round
from bot.ensemble.select import LIMITS, best_partial_round
from bot.ensemble.types import (
    ACCEPTED,
    CRASHED,
    Exploration,
    HiddenResult,
    Judgement,
    Phase,
    Plan,
    Progress,
    Refusal,
    Reproduction,
    Round,
    Task,
    TeamResult,
    TestOutcome,
    passes,
)
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import StopRequested
from bot.forge import HeldWorkspace, Workspace
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES
from bot.redact import clip
from bot.trace import propagate
from common.languages import is_code
from common.testfiles import is_test_path
from common.testids import file_of_test

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reporter:
    """A team's progress reports (the run's own too, as team "-"), and the stop check made between its steps."""

    team: str
    progress: Progress | None  # None: no view
    stop: threading.Event

    def tell(self, phase: Phase, rnd: int = 0, detail: str = "") -> None:
        """Report a step: the one place a progress view is called, and a failing one never stops the work."""
        if self.progress is None:
            return
        try:
            self.progress(self.team, phase, rnd, detail)
        except Exception as exc:  # noqa: BLE001 - reporting (a comment, a terminal) is not the work
            log.warning("team %s: progress report failed (%s: %s); carrying on", self.team, type(exc).__name__, exc)

    def begin(self, phase: Phase, rnd: int = 0, detail: str = "") -> None:
        """Report the step the team begins (`tell`); then, when a stop was requested (Ctrl-C, `/ensemble stop`, the
        deadline), raise StopRequested: the team stops here."""
        self.tell(phase, rnd, detail)
        if self.stop.is_set():
            raise StopRequested("a stop was requested")


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
    limits: Limits = Limits()  # rounds, the deadline, the edit format
    deny: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # paths.max_file_kb: a bigger file is refused
    lessons: str = ""
    trailers: dict[str, str] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    progress: Progress | None = None  # where progress is reported (through its Reporter), None: nowhere
    # the judge before any reproduction test: the base run (which every candidate is judged against), what it learned
    # there, and the tests the task names
    judge: TeamJudge = TeamJudge("")
    explore_budget: ExploreSpec = ExploreSpec()
    instructions: Instructions = Instructions()  # the repository's conventions, read from a trusted tree
    direct_first: bool = False  # try one direct round (no exploring or planning calls) before planning
    temperature: float | None = None  # every role's sampling temperature in this team (None: each role's own)
    clock: Callable[[], float] = time.monotonic  # the clock the deadline (`limits.deadline`) is read on

    def notes(self, reader: str) -> str:
        """Lessons from earlier runs, and the other teams' notes this role of the team has not read yet."""
        return "\n".join(filter(None, [self.lessons, *self.board.unseen(self.name, reader)]))

    @property
    def reporter(self) -> Reporter:
        """Where the team's progress goes, and its stop check."""
        return Reporter(self.name, self.progress, self.stop)

    @property
    def coder(self) -> Coder:
        """The team's coder, on the team's workspace."""
        return Coder(self.models, self.name, self.task, self.workspace, self.instructions, self.deny,
                     self.max_file_bytes, self.stop.is_set, self.temperature, self.clock)

    @property
    def critic(self) -> Critic:
        """The team's critic."""
        return Critic(self.models, self.name, self.instructions)

    @property
    def planner(self) -> TaskPlanner:
        """How the team plans: its models, the index, its workspace, the explore limits, its notes."""
        return TaskPlanner(self.models, self.retriever, self.workspace.path, self.workspace.grep, self.explore_budget,
                           self.instructions, self.name, lambda: self.notes("planner"))


def run_team(team: Team) -> TeamResult:
    """Run the whole loop for one team; model budget, stop requests and crashes end it cleanly.

    Work that passed is never lost: when the last state fails (or the team crashed) after an
    earlier round passed, the workspace goes back to that round's commit.
    """
    state, stop = _loop(team)
    if state.writing is not None:  # an early hidden check no change used: its request ends before the team does
        _finish(state.writing)
    team.workspace.discard()  # edits that never became a commit are not part of the result
    kept = _kept(state.rounds, stop)
    if kept.round is not None:
        team.workspace.reset(kept.round.commit or "")
    return _ended(team, state, stop, kept, HeldWorkspace(team.workspace))  # its change, read once by each reader


def crashed(team: Team, exc: Exception) -> TeamResult:
    """The result of a team whose run failed outside its loop (going back to its best round, say): nothing kept."""
    return _ended(team, _State(team.judge), interrupted(exc))


@dataclass(frozen=True)
class _State:
    """What the team knows so far: the judge (with the reproduction test once written), what exploring found, the
    plan, the rounds as they ended. Each step returns a new one."""

    judge: TeamJudge
    found: Exploration = field(default_factory=Exploration)
    plan: Plan | None = None
    failing: str = ""  # a direct attempt's failing tests at the base, whose files the coder keeps seeing
    reproduction: Reproduction | None = None
    rounds: tuple[Round, ...] = ()
    replanned: int = -1  # rounds played when the planner last re-planned
    start: str = ""  # the commit the rounds begin from (after the reproduction test): a new attempt's starting point
    hidden: HiddenCheck | None = None  # the check the coder never sees, once the first good change asked for it
    writing: _Writing | None = None  # that check being written beside the rounds (`hidden_check: early`)


@dataclass(frozen=True)
class _Writing:
    """The hidden check being written in a thread of its own beside the team's rounds (`Limits.hidden_early`), as a
    variation of the test `source`: the coder's reply, not yet run at the base."""

    source: str
    check: Future[HiddenCheck]


def _loop(team: Team) -> tuple[_State, Stop]:
    """The algorithm: look (or explore and plan), then what the policy says until it says stop."""
    state = _State(team.judge)
    try:
        state = _start(team, state)
        while True:
            history = History(state.plan or Plan(""), state.reproduction, state.rounds, state.replanned)
            match decide(history, team.clock(), team.limits):
                case Stop() as stop:
                    log.debug("team %s stops: %s (%s)", team.name, stop.reason, stop.detail)
                    return state, stop
                case Reproduce() as step:
                    state = _reproduce(team, state, step)
                case Replan() as step:
                    state = _replan(team, state, step)
                case Continue() as step:
                    started = team.clock()
                    state = _write_early(team, state)
                    state = _play(team, state, step)
                    state = _hidden(team, state)
                    state = _review(team, state, started)
    except Exception as exc:  # noqa: BLE001 - the budget, a stop request, or a crash: one team's end, not the run's
        stop = interrupted(exc)
        if stop.error:
            log.warning("team %s crashed: %s", team.name, exc, exc_info=log.isEnabledFor(logging.DEBUG))
        return state, stop


def _start(team: Team, state: _State) -> _State:
    """A direct attempt's first look at the failing tests, or exploring and planning."""
    if _direct(team, state.judge):
        # Straight to coding from the failing tests; the planner comes in when a failure repeats (a re-plan).
        found, failing = first_look(team.retriever, team.task), _base_failures_text(team.judge.baseline)
        files = WorkspaceFiles(team.workspace.path)
        plan = direct_plan(team.task, found, failing, files.read)
        return replace(state, found=found, failing=failing, plan=plan)
    report, planner = team.reporter, team.planner
    report.begin(Phase.EXPLORING)
    found, plan = plan_task(planner, team.task, before_planning=lambda: report.begin(Phase.PLANNING))
    return replace(state, found=found, plan=plan)


def _direct(team: Team, judge: TeamJudge) -> bool:
    """Whether the team first tries a direct attempt: asked for, no approved plan to follow, and failing tests
    at the base to judge it by (without them a plan's reproduction test is the evidence)."""
    return team.direct_first and team.task.plan is None and bool(judge.base_failures())


def _base_failures_text(baseline: TestOutcome | None) -> str:
    """The base's failing tests, as the coder of a direct attempt reads them: names, assertions, frames."""
    return baseline.summary.strip() if baseline else ""


def _reproduce(team: Team, state: _State, step: Reproduce) -> _State:
    """Round 0: the reproduction test the plan names, and the judge that requires it once it failed at the base; the
    rounds begin from the workspace's commit after it."""
    reproduction, judge = reproduce(team.coder, _brief(team, state, step.round), state.judge,
                                    team.runner, team.reporter.begin, team.trailers)
    return replace(state, reproduction=reproduction, judge=judge, start=team.workspace.head())


def _brief(team: Team, state: _State, step: Continue) -> Brief:
    """What the coder is told in the round `step` begins: the plan, what was found, the last round's feedback and
    its conversation to go on with (neither in a new attempt, which starts from a fresh context); the next file
    retrieval ranked, when that is the attempt's approach."""
    rounds = state.rounds
    last = rounds[-1] if rounds and not step.fresh else None
    feedback = round_text.feedback(last, _last_tested(rounds), step.repeated) if last else ""
    sent = tuple(key for r in rounds if not r.good for key in r.replies)
    plan = state.plan or Plan("")
    if step.approach == NEXT_FILE and (extra := _next_file(plan, state.found, team.workspace)):
        plan = replace(plan, files=(*plan.files, extra))
    return Brief(plan, state.found, feedback, team.notes("coder"), failing=state.failing, sent=sent,
                 edit_format=step.edit_format, opened_in=team.limits.opened_in,
                 one_turn=step.one_turn, temperature=step.temperature,
                 reply_by=step.reply_by, earlier=last.transcript if last and last.kind == "fix" else None)


def _next_file(plan: Plan, found: Exploration, workspace: Workspace) -> str | None:
    """The best-ranked source file retrieval found that the plan does not name yet."""
    files = WorkspaceFiles(workspace.path)
    ranked = [r.path for r in found.retrieved if not is_test_path(r.path) and is_code(r.path)]
    return next((p for p in dict.fromkeys(ranked) if p not in plan.files and files.read(p) is not None), None)


def _play(team: Team, state: _State, step: Continue) -> _State:
    """Round `step.number`: the coder's change, tested and judged, committed when it applied and compiles."""
    report, workspace = team.reporter, team.workspace
    report.begin(Phase.CODING, step.number, "" if not step.fresh else f"a new attempt: {APPROACH_WORDS[step.approach]}")
    if step.fresh:  # a new attempt starts where the rounds began; earlier rounds' commits stay for the judge to keep
        workspace.discard()
        workspace.reset(state.start or workspace.head())
    rnd = play_round(team.coder, _brief(team, state, step), state.judge, team.runner, report.begin, step.number)
    rnd = replace(rnd, approach=step.approach)
    if rnd.applied and not rnd.compile_error:
        rnd = commit_round(rnd, workspace, f"{clip(team.task.title, 60)} (round {step.number})",
                           round_text.round_body(state.plan or Plan(""), rnd, "fix"), team.trailers)
    if not (rnd.applied and not rnd.compile_error):
        workspace.discard()  # the next round starts from the last commit
    return replace(state, rounds=(*state.rounds, rnd))


def _hidden(team: Team, state: _State) -> _State:
    """The hidden check (hidden.py) on the last round's change when the judge found it good: written and run at the
    base the first time a good change can tell the test it varies apart (writes its values into the code, or its code
    reached into the running tests; one that does neither could not be refused by it: `_unneeded`); a change that leaves its failures exactly as the base had them is refused as
    special-cased (the round is not good, and the coder is told why, not what the check asks)."""
    rnd = state.rounds[-1]
    if not (team.limits.hidden_check and rnd.good and rnd.judgement is not None):
        return state
    if state.hidden is None and state.writing is None and (source := _unneeded(team, state, rnd)):
        return replace(state, rounds=(*state.rounds[:-1], replace(rnd, hidden=not_needed(source))))
    check = state.hidden or _hidden_check(team, state, rnd.judgement)
    state = replace(state, hidden=check, writing=None)
    if not check.usable:
        return replace(state, rounds=(*state.rounds[:-1], replace(rnd, hidden=check.result())))
    team.reporter.begin(Phase.TESTING, rnd.number, f"the hidden check {check.path}")
    seen = judge_by_hidden_check(check, state.judge, team.runner, team.workspace, rnd.tests)
    log.info("team %s, round %d: %s", team.name, rnd.number, seen.result().line)
    if seen.special_cased:
        refusal = Refusal("special-cased", "", f"round {rnd.number}'s change passes the tests the coder saw and leaves the "
                                               f"hidden check {check.path} failing as at the base ({seen.detail})")
        rnd = replace(rnd, judgement=replace(rnd.judgement, good=False, reason=SPECIAL_CASED,
                                             special_cased=tuple(check.base)), refused=(*rnd.refused, refusal))
    return replace(state, rounds=(*state.rounds[:-1], replace(rnd, hidden=seen.result())))


def _unneeded(team: Team, state: _State, rnd: Round) -> str | None:
    """The test a hidden check would vary, where the good change `rnd` cannot tell it apart (holds none of its values,
    reached into no running test): the check could not refuse it (hidden.py), so its request and its two runs are
    not spent on it yet."""
    source = _hidden_source(team, state, rnd.judgement)
    text = _source_text(team, state, source) if source else None
    return source if source and text and not can_tell_apart(state.judge, text, source, team.workspace, rnd.tests) \
        else None


def _hidden_check(team: Team, state: _State, judgement: Judgement) -> HiddenCheck:
    """The team's hidden check, written by the coder apart from the change (beside the rounds where it was started
    early from the same test, else now) and run at the base: a variation of the reproduction test, or else of a test
    the change fixed."""
    source = _hidden_source(team, state, judgement)
    text = _source_text(team, state, source) if source else None
    if not source or not text:
        _finish(state.writing)
        return no_hidden_check("no test the change fixed, to write the hidden check from")
    check = _written_early(team, state.writing, source)
    if check is None:
        team.reporter.begin(Phase.TESTING, len(state.rounds), "writing the hidden check")
        check = _write_hidden(team, state, source, text)
    return hidden_check_at_base(check, state.judge, team.runner, team.workspace) if check.text else check


def _hidden_source(team: Team, state: _State, judgement: Judgement | None) -> str | None:
    """The test the hidden check varies: the reproduction test where it failed at the base, else a test the change
    (`judgement`) fixed; before any change, the test file every failure at the base is in, where there is one."""
    repro = state.reproduction
    if repro and repro.failed_before and repro.path:
        return repro.path

    def exists(path: str) -> bool:
        return _source_text(team, state, path) is not None

    if judgement is not None:
        return next((file_of_test(n, exists) for n in judgement.fixed), None)
    files = {file_of_test(n, exists) for n in state.judge.base_failures()}
    return files.pop() if len(files) == 1 else None


def _source_text(team: Team, state: _State, source: str) -> str | None:
    """The test `source` as the judge holds it: frozen, else as the base has it."""
    return state.judge.frozen.get(source) or team.workspace.base_text(source)


def _write_hidden(team: Team, state: _State, source: str, text: str) -> HiddenCheck:
    """The coder's hidden check of `source` (`text`), not yet run. It opens as the team's requests do, in their format,
    with the files as the base has them, never the change; and with what exploring found, which is the base's unless
    a re-plan explored the team's change."""
    found = state.found if state.replanned < 0 else Exploration()
    brief = Brief(state.plan or Plan(""), found, failing=state.failing,
                  edit_format=team.limits.opened_in)
    frozen, base_text = state.judge.frozen, team.workspace.base_text
    return write_hidden_check(team.coder, brief, source, text, lambda p: frozen[p] if p in frozen else base_text(p))


def _write_early(team: Team, state: _State) -> _State:
    """Under `hidden_check: early`, the hidden check written in a thread of its own as the rounds begin, so a change
    that passes does not wait for it: only where the test it varies is known before any change (`_hidden_source`).
    What the coder writes from is the base's, as when it is written after a good change."""
    if not (team.limits.hidden_check and team.limits.hidden_early) or state.hidden or state.writing:
        return state
    source = _hidden_source(team, state, None)
    text = _source_text(team, state, source) if source else None
    if not source or not text:
        return state
    check: Future[HiddenCheck] = Future()

    def write() -> None:
        try:
            check.set_result(no_hidden_check("the team stopped before its hidden check was written")
                             if team.stop.is_set() else _write_hidden(team, state, source, text))
        except BaseException as exc:  # noqa: BLE001 - handed to the team's thread, which reads the check
            check.set_exception(exc)

    log.info("team %s: the hidden check, a variation of %s, is written beside the rounds", team.name, source)
    threading.Thread(target=propagate(write), name=f"hidden-check-{team.name}", daemon=True).start()
    return replace(state, writing=_Writing(source, check))


def _written_early(team: Team, writing: _Writing | None, source: str) -> HiddenCheck | None:
    """The check written early, where it varies `source` and its file is still free in the workspace; None where the
    team must write it now. A model error writing it is the check's note, as when written late; the budget running
    out, or a stop, is the team's."""
    if writing is None:
        return None
    if writing.source != source:
        _finish(writing)
        return None
    check = writing.check.result()
    if check.text and WorkspaceFiles(team.workspace.path).read(check.path) is not None:
        return None  # the change wrote a file of that name since
    return check


def _finish(writing: _Writing | None) -> None:
    """Wait for an early hidden check the team will not use, so its request is over (and counted) when the team
    ends."""
    if writing is None:
        return
    try:
        writing.check.result()
    except Exception as exc:  # noqa: BLE001 - a check never used: its failure ends nothing
        log.debug("an unused hidden check ended with %s: %s", type(exc).__name__, exc)


def _review(team: Team, state: _State, started: float) -> _State:
    """The critic's review of the last round's change when the judge found it good (and the run has reviews); the
    round's time; its lesson shared with the other teams."""
    rnd = state.rounds[-1]
    if rnd.good and team.limits.review:
        team.reporter.begin(Phase.REVIEWING, rnd.number)
        rnd = replace(rnd, review=review(team.critic, team.task, team.workspace.diff(),
                                         team.workspace.changed_paths(), rnd))
    rnd = replace(rnd, seconds=team.clock() - started)
    team.board.publish(team.name, insight(rnd))
    return replace(state, rounds=(*state.rounds[:-1], rnd))


def _replan(team: Team, state: _State, step: Replan) -> _State:
    """Explore further with what the rounds taught (until `step.until`, leaving time for the plan and the rounds
    after it), and plan again."""
    team.reporter.begin(Phase.REPLANNING, len(state.rounds))
    history = round_text.history(state.rounds)
    until = step.until
    found, plan = plan_task(team.planner, team.task, state.found, history,
                            explore_while=lambda: until is None or team.clock() < until)
    return replace(state, found=found, plan=plan, replanned=len(state.rounds))


def _last_tested(rounds: Sequence[Round]) -> Round | None:
    """The newest round whose tests ran: what the workspace's current change still gives."""
    return next((r for r in reversed(rounds) if r.tests is not None and r.commit), None)


def _ended(team: Team, state: _State, stop: Stop, kept: _Kept | None = None,
           workspace: Workspace | None = None) -> TeamResult:
    """The team's result, with its `workspace`'s change (none when it is not given): the one place a team's stop
    reason is written."""
    kept = kept or _Kept()
    return TeamResult(team.name, stop_reason=stop.reason, stop_detail=stop.detail, plan=state.plan,
                      rounds=list(state.rounds), reproduction=state.reproduction, tests_after=kept.tests,
                      accepted=kept.accepted, diff=workspace.diff() if workspace else "",
                      models=team.trailers.get("Ensemble-Model", ""), retrieved=state.found.retrieved, error=stop.error,
                      kept=kept.why, judgement=kept.judgement, frozen=dict(state.judge.frozen),
                      hidden=_hidden_line(state, kept),
                      test_changes=state.judge.test_changes(workspace) if workspace else [],
                      runner_hooks=hooks_in(workspace) if workspace else [])


def _hidden_line(state: _State, kept: _Kept) -> HiddenResult | None:
    """What the hidden check showed of the kept change (its round's, else the last round it judged), or why there
    was none."""
    rnd = kept.round or next((r for r in reversed(state.rounds) if r.hidden), None)
    return rnd.hidden if rnd is not None and rnd.hidden else (state.hidden.result() if state.hidden else None)


@dataclass(frozen=True)
class _Kept:
    """The team's final change: its tests and judgement, whether the critic accepted it, and the earlier round the
    workspace goes back to (with why) when the last state is not the best."""

    tests: TestOutcome | None = None
    judgement: Judgement | None = None
    accepted: bool = False
    round: Round | None = None
    why: str = ""


def _kept(rounds: Sequence[Round], stop: Stop) -> _Kept:
    """The last tested change, unless an earlier round is better: the newest that passed (the accepted one first)
    when the last does not pass or the team crashed; else, for a team a limit stopped, the round that fixed the
    most tests without breaking any when the final state is not at least as good (its partial work)."""
    last = next((r for r in reversed(rounds) if r.applied and not r.compile_error), None)
    final = _Kept(last.tests, last.judgement) if last else _Kept()
    final = replace(final, accepted=stop.reason == ACCEPTED)
    passing = [r for r in rounds if r.commit and r.tests is not None and r.good]
    if passing and (stop.reason == CRASHED or not passes(final.judgement, final.tests)):
        best = next((r for r in reversed(passing) if r.accepted), passing[-1])
        why = "the team crashed after it" if stop.reason == CRASHED else "later rounds did not pass"
        return _Kept(best.tests, best.judgement, best.accepted, best, f"round {best.number} passed the tests and is "
                     f"kept; {why}")
    if final.judgement is None:
        tested = [r for r in rounds if r.judgement is not None and r.commit]
        final = replace(final, judgement=tested[-1].judgement if tested else None)
    if passes(final.judgement, final.tests) or stop.reason not in LIMITS:
        return final
    partial = best_partial_round(rounds)
    if partial is None or partial.judgement is None or (final.judgement is not None and final.judgement.improves
                                                        and len(final.judgement.fixed) >= len(partial.judgement.fixed)):
        return final
    return replace(final, tests=partial.tests, judgement=partial.judgement, round=partial, why=(
        f"round {partial.number} fixed {len(partial.judgement.fixed)} failing test(s) without breaking any and is "
        "kept; later rounds did not do better"))

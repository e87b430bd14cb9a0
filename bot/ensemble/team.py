"""One team's test-driven refinement loop: plan, reproduce, code, check, test, review, refine.

The loop ends when the tests pass and the critic accepts, when `max_iterations` rounds are
used, when the budget runs out, when the same failure repeats past a limit, or on a stop
request. Two rounds failing the same way send the planner back to re-plan with what was
learned. Every round whose edits applied becomes one commit in the team's workspace.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.ensemble import prompts
from bot.ensemble.edits import (
    apply_edit_blocks,
    describe_failures,
    linked_paths,
    parse_edit_blocks,
    write_changes,
)
from bot.ensemble.insights import InsightBoard
from bot.ensemble.planner import Exploration, explore, make_plan
from bot.ensemble.ports import ModelClient, Retriever, TestRunner
from bot.ensemble.types import (
    ACCEPTED,
    BUDGET,
    CRASHED,
    MAX_ITERATIONS,
    QUESTIONS,
    STOPPED,
    STUCK,
    Plan,
    Reproduction,
    Round,
    Task,
    TeamResult,
    TestOutcome,
)
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import BudgetExceeded, StopRequested
from bot.forge import Workspace
from bot.trace import span

log = logging.getLogger(__name__)
POLICY_REASONS = ("denied", "link", "bad_path")  # edit failures that are refusals, reported to the user
REPLAN_AFTER = 2  # rounds failing with the same signature before the planner re-plans
STUCK_AFTER = 3  # rounds failing with the same signature before the team gives up
Progress = Callable[[str, str, int, str], None]  # team, phase, round, detail


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
    lessons: str = ""
    trailers: dict[str, str] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    progress: Progress = lambda team, phase, rnd, detail: None  # noqa: E731

    def say(self, phase: str, rnd: int = 0, detail: str = "") -> None:
        """Report progress and check for a stop request."""
        self.progress(self.name, phase, rnd, detail)
        if self.stop.is_set():
            raise StopRequested("a stop was requested")


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
        _keep_last_passing(team, result)
        result.diff = team.workspace.diff()
        s.set(stop_reason=result.stop_reason, rounds=len(result.rounds), passed=result.passed,
              accepted=result.accepted, diff_lines=result.diff_size, refused=result.refused, kept=result.kept)
    return result


def _keep_last_passing(team: Team, result: TeamResult) -> None:
    """Go back to the newest committed round whose tests passed when the final state does not pass."""
    if result.passed and result.stop_reason != CRASHED:
        return
    passing = [r for r in result.rounds if r.commit and r.tests is not None and r.tests.passed]
    if not passing:
        return
    best = next((r for r in reversed(passing) if r.verdict == "accept"), passing[-1])
    team.workspace.reset(best.commit or "")
    result.tests_after = best.tests
    result.accepted = best.verdict == "accept"
    result.kept = (f"round {best.number} passed the tests and is kept; "
                   f"{'the team crashed after it' if result.stop_reason == CRASHED else 'later rounds did not pass'}")


def _plan_and_loop(team: Team, result: TeamResult) -> None:
    files = WorkspaceFiles(team.workspace.path)
    team.say("exploring")
    found = explore(team.models, team.retriever, team.task, team.lessons, files.read, team.name)
    result.retrieved = found.retrieved
    team.say("planning")
    plan = make_plan(team.models, team.task, found, _notes(team, "planner"), team=team.name)
    result.plan = plan
    if plan.questions:
        result.stop_reason, result.stop_detail = QUESTIONS, "; ".join(plan.questions)
        return
    if plan.reproduction_test:
        result.reproduction = _reproduce(team, plan, found)
    else:
        result.reproduction = Reproduction(None, note=plan.no_test_reason)
    _refine(team, result, found)


def _notes(team: Team, reader: str) -> str:
    """Lessons from earlier runs, and the other teams' notes this role of the team has not read yet."""
    return "\n".join(filter(None, [team.lessons, *team.board.unseen(team.name, reader)]))


def _reproduce(team: Team, plan: Plan, found: Exploration) -> Reproduction:
    """Round 0: the coder writes the reproduction test; the sandbox must see it fail."""
    path = plan.reproduction_test or ""
    feedback = ""
    for _attempt in range(2):
        team.say("reproducing", 0, path)
        rnd = _code_round(team, plan, found, feedback, Round(0, kind="reproduce"), reproduce=True)
        if rnd.applied and not rnd.compile_error and rnd.tests is not None:
            failed = not rnd.tests.passed and _mentions(rnd.tests, path)
            _commit(team, f"Add reproduction test {path}", _round_body(plan, rnd, "reproduction test"))
            note = "" if failed else "the reproduction test passed before the fix, so it does not show the bug"
            return Reproduction(path, failed_before=failed, note=note)
        feedback = rnd.edit_errors or rnd.compile_error
    return Reproduction(path, note=f"the coder could not write a working reproduction test: {feedback[:300]}")


def _mentions(tests: TestOutcome, path: str) -> bool:
    """True when the failing tests include the reproduction test (or no per-test results exist)."""
    if not tests.failing:
        return True
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return any(stem in name for name in tests.failing)


def _refine(team: Team, result: TeamResult, found: Exploration) -> None:
    plan = result.plan or Plan("")
    feedback, last_sig, same = "", None, 0
    for number in range(1, team.max_iterations + 1):
        team.say("coding", number)
        rnd = _code_round(team, plan, found, feedback, Round(number))
        result.rounds.append(rnd)
        if rnd.tests is not None:
            result.tests_after = rnd.tests
        if rnd.applied and not rnd.compile_error:
            # Commit before the review, so a budget stop during it still leaves the tested change.
            rnd.commit = _commit(team, f"{team.task.title[:60]} (round {number})", _round_body(plan, rnd, "fix"))
            team.say("reviewing", number)
            _review(team, plan, rnd)
        team.board.publish(team.name, _insight(rnd))
        if rnd.tests is not None and rnd.tests.passed and rnd.verdict == "accept":
            result.accepted = True
            result.stop_reason = ACCEPTED
            return
        same = same + 1 if rnd.signature == last_sig else 1
        last_sig = rnd.signature
        if same > STUCK_AFTER - 1 and not (rnd.tests and rnd.tests.passed):
            result.stop_reason, result.stop_detail = STUCK, f"the same failure {same} times: {last_sig[:200]}"
            return
        feedback = _feedback(rnd)
        if same == REPLAN_AFTER and number < team.max_iterations:
            team.say("re-planning", number)
            plan = make_plan(team.models, team.task, found, _notes(team, "planner"), _history(result), team.name)
            result.plan = plan
    result.stop_reason = MAX_ITERATIONS
    result.stop_detail = f"{team.max_iterations} rounds used"


def _code_round(team: Team, plan: Plan, found: Exploration, feedback: str, rnd: Round,
                reproduce: bool = False) -> Round:
    """Ask the coder, apply its edits atomically, compile-check and run the tests."""
    files = WorkspaceFiles(team.workspace.path)
    wanted = [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else [])]
    contents = {p: c for p in dict.fromkeys(wanted) if (c := files.read(p)) is not None}
    reply = team.models.complete("coder", prompts.coder_messages(
        team.task, plan, contents, found.text, feedback, _notes(team, "coder"), reproduce=reproduce, team=team.name))
    parsed = parse_edit_blocks(reply.text)
    applied = apply_edit_blocks(parsed.blocks, files, team.deny) if not parsed.failures else None
    failures = parsed.failures or (applied.failures if applied else ())
    # Never through a symbolic link: it could lead out of the workspace or around the deny list.
    touched = dict.fromkeys([*(b.path for b in parsed.blocks), *(applied.changes if applied else ())])
    linked = linked_paths(team.workspace.path, list(touched))
    failures = (*[f for f in failures if f.path not in {x.path for x in linked}], *linked)
    if failures or applied is None or not applied.ok:
        rnd.edit_errors = describe_failures(failures) or "the edits changed nothing"
        rnd.refused = [f"{f.path}: {f.message}" for f in failures if f.reason in POLICY_REASONS]
        for refusal in rnd.refused:
            log.warning("team %s: edit refused: %s", team.name, refusal)
        return rnd
    write_changes(team.workspace.path, applied.changes)
    rnd.applied = True
    rnd.compile_error = team.runner.compile_check(team.workspace.path, sorted(applied.changes))
    if not rnd.compile_error:
        team.say("testing", rnd.number)
        rnd.tests = team.runner.run_tests(team.workspace.path)
    return rnd


def _review(team: Team, plan: Plan, rnd: Round) -> None:
    diff = team.workspace.diff()
    rnd.diff_lines = sum(1 for line in diff.splitlines() if line[:1] in "+-")
    summary = rnd.tests.summary if rnd.tests else "(no tests ran)"
    status = "PASSED" if rnd.tests and rnd.tests.passed else "FAILED"
    reply = team.models.complete("critic", prompts.critic_messages(team.task, plan, diff, f"{status}\n{summary}", team.name),
                                 schema="review")
    data = reply.data or {}
    rnd.verdict = str(data.get("verdict", "revise"))
    rnd.feedback = str(data.get("feedback", ""))


def _commit(team: Team, summary: str, body: str) -> str | None:
    commit = team.workspace.commit(summary, body, team.trailers)
    return commit.sha if commit else None


def _round_body(plan: Plan, rnd: Round, what: str) -> str:
    tests = rnd.tests
    state = "tests pass" if tests and tests.passed else f"tests fail: {', '.join(tests.failing[:5]) or 'see log'}" \
        if tests else "tests not run"
    review = f"Critic: {rnd.verdict}. {rnd.feedback}".strip() if rnd.verdict else ""
    return "\n\n".join(filter(None, [plan.summary, f"Round {rnd.number} ({what}): {state}.", review]))


def _feedback(rnd: Round) -> str:
    if not rnd.applied:
        return "Your edits were NOT applied (nothing changed):\n" + rnd.edit_errors
    if rnd.compile_error:
        return "Your edits were applied but do not compile:\n" + rnd.compile_error
    parts = [f"Your edits were applied. Tests {'pass' if rnd.tests and rnd.tests.passed else 'fail'}."]
    if rnd.tests and not rnd.tests.passed:
        parts.append(rnd.tests.summary)
    if rnd.verdict == "revise" and rnd.feedback:
        parts.append("Reviewer: " + rnd.feedback)
    return "\n".join(parts)


def _insight(rnd: Round) -> str:
    if not rnd.applied:
        return f"round {rnd.number}: edits did not apply ({rnd.edit_errors[:160]})"
    if rnd.compile_error:
        return f"round {rnd.number}: compile error {rnd.compile_error[:160]}"
    state = "tests pass" if rnd.tests and rnd.tests.passed else f"tests fail: {rnd.signature[:160]}"
    return f"round {rnd.number}: {state}; critic {rnd.verdict or '-'}: {rnd.feedback[:160]}"


def _history(result: TeamResult) -> str:
    return prompts.render_history([_insight(r) for r in result.rounds])

"""One round of a team's loop: the coder's change, compile-checked, tested and judged against the base; committing it.

A round is a function of its inputs (the coder, what it is told, the team's judge and test
runner) and returns the `Round`; the team's loop (team.py) decides what follows from it. The
reproduction step (reproduce.py) plays the same round with the coder writing a test.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from bot.ensemble.coding import POLICY_REASONS, Brief, Coder, RoundEdits, write_change
from bot.ensemble.edits import describe_failures
from bot.ensemble.judging import TeamJudge
from bot.ensemble.ports import TestRunner
from bot.ensemble.types import Phase, Progress, Round
from bot.errors import StopRequested
from bot.forge import Workspace
from bot.forge.policy import ChangeRefused

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reporter:
    """A team's progress reports, and the stop check made between its steps."""

    team: str
    progress: Progress
    stop: threading.Event

    def say(self, phase: Phase, rnd: int = 0, detail: str = "") -> None:
        """Report progress; a failing progress view never stops the work."""
        try:
            self.progress(self.team, phase, rnd, detail)
        except Exception as exc:  # noqa: BLE001 - reporting (a comment, a terminal) is not the work
            log.warning("team %s: progress report failed (%s: %s); carrying on", self.team, type(exc).__name__, exc)

    def check_stop(self) -> None:
        """Raise StopRequested when a stop was requested (Ctrl-C, `/ensemble stop`); called between steps."""
        if self.stop.is_set():
            raise StopRequested("a stop was requested")


def play_round(coder: Coder, brief: Brief, judge: TeamJudge, runner: TestRunner, report: Reporter, rnd: Round,
               reproduction: str | None = None) -> Round:
    """The coder's change in `rnd`, compile-checked, then tested with the judge's files and judged against the base
    (`reproduction`: the test being written, required while the judge has none)."""
    edits = write_change(coder, brief, judge.frozen, judge.data)
    rnd.replies = edits.replies
    _record_refusals(coder.team, rnd, edits)
    if not edits.changed:
        rnd.edit_errors = edits.errors()
        rnd.idle = not (edits.failures or edits.refusals)
        return rnd
    rnd.applied = True
    rnd.partial = describe_failures(edits.failures) if edits.failures else ""
    workspace = coder.workspace
    rnd.compile_error = runner.compile_check(workspace.path, sorted(edits.originals))
    if not rnd.compile_error:
        report.say(Phase.TESTING, rnd.number)
        report.check_stop()
        rnd.tests = judge.run(runner, workspace)
        rnd.judgement = judge.judge(rnd.tests, workspace, reproduction)
        if rnd.judgement.tampered:
            _refuse_cheat(coder.team, workspace, rnd)
    return rnd


def _refuse_cheat(team: str, workspace: Workspace, rnd: Round) -> None:
    """A change whose test run was tampered with is refused as a cheat: undone, recorded with its evidence (the
    summary, the trace and the pull request show the refusals), and the coder is told what was refused."""
    assert rnd.judgement is not None
    evidence = rnd.judgement.tampered
    log.warning("team %s: the change was refused: its test run was tampered with: %s", team, "; ".join(evidence))
    workspace.discard()
    rnd.applied = False
    rnd.refused += [f"test run tampered with: {e}" for e in evidence if f"test run tampered with: {e}" not in rnd.refused]
    rnd.edit_errors = ("the change was refused and undone: the judge's test run shows it tampered with how the tests "
                       "run or report, instead of fixing the code:\n" + "\n".join(f"- {e}" for e in evidence)
                       + "\nFix the code itself; do not touch the test runner, its results or its assertions.")


def commit_round(workspace: Workspace, rnd: Round, summary: str, body: str, trailers: dict[str, str]) -> str | None:
    """Commit the round's change; a change the commit policy refuses is undone and the round counts as not applied."""
    try:
        commit = workspace.commit(summary, body, trailers)
    except ChangeRefused as exc:
        log.warning("%s", exc)
        workspace.discard()
        rnd.applied, rnd.tests, rnd.judgement = False, None, None  # what was tested is gone
        rnd.edit_errors = "the change was refused before commit and undone:\n" + "\n".join(f"- {p}" for p in exc.problems)
        rnd.refused += [p for p in exc.problems if p not in rnd.refused]
        return None
    return commit.sha if commit else None


def _record_refusals(team: str, rnd: Round, edits: RoundEdits) -> None:
    for f in [*edits.refusals, *edits.failures]:
        refusal = f"{f.path}: {f.message}"
        if f.reason in POLICY_REASONS and refusal not in rnd.refused:
            rnd.refused.append(refusal)
            log.warning("team %s: edit refused: %s", team, refusal)

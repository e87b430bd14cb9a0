"""Independent evidence for a change: the other teams' reproduction tests, run on it.

A team's change passes the reproduction test its own coder wrote, and a change can pass a test by answering
exactly the inputs that test uses (`if (a, b) == (2, 3): return 5`). The other team wrote its reproduction test
without seeing this team's change or test: run on the change, frozen as that team wrote it and beside (never
over) this team's own files, it is a second, independent test of the fix. What it gives is ranked on
(select.rank_key) and shown in the pull request; a run with one team says that only one test backs its change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.ensemble.judge.runs import TeamJudge
from bot.ensemble.ports import TestRunner
from bot.ensemble.types import CrossCheck, TeamResult
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.forge import Workspace
from bot.redact import clip
from common.testfiles import fresh_test_path
from common.testids import matching_tests


@dataclass(frozen=True)
class Candidate:
    """A team's final change to corroborate: its judge, workspace and result."""

    judge: TeamJudge
    workspace: Workspace
    result: TeamResult


def cross_check(candidate: Candidate, runner: TestRunner, team: str, path: str, text: str) -> CrossCheck:
    """Team `team`'s reproduction test (`path`, frozen as `text`) run on `candidate`'s change."""
    files = WorkspaceFiles(candidate.workspace.path)
    judge = candidate.judge

    def taken(p: str) -> bool:
        return files.read(p) is not None or p in judge.frozen

    where = fresh_test_path(path, taken) if taken(path) else path
    judge = judge.with_reproduction(where, text)
    tests = judge.run(runner, candidate.workspace)
    names = matching_tests(dict(tests.results), [where])
    failing = [n for n in names if dict(tests.results)[n] != "pass"]
    if tests.tampering:
        return CrossCheck(team, where, False, "its run was tampered with: " + clip("; ".join(tests.tampering), 200))
    if not names:
        return CrossCheck(team, where, False, "its tests did not run on this change")
    if failing or not tests.complete:
        why = f"{len(failing)} of its {len(names)} test(s) fail" if failing else tests.incomplete_reason
        return CrossCheck(team, where, False, why)
    return CrossCheck(team, where, True, f"its {len(names)} test(s) pass")


def corroborate(candidates: Sequence[Candidate], runner: TestRunner) -> list[TeamResult]:
    """Each candidate's result with `cross` filled: every other team's frozen reproduction test run on its change (a
    team with no change gets none). The results given are left as they are."""
    tests = [(c.result.name, path, text) for c in candidates if c.result.reproduction
             and c.result.reproduction.failed_before for path, text in c.result.frozen.items()]
    return [replace(c.result, cross=[cross_check(c, runner, team, path, text) for team, path, text in tests
                                     if team != c.result.name]) if c.result.diff.strip() else c.result
            for c in candidates]


def backing(result: TeamResult, teams: int) -> list[str]:
    """Which independently written tests back a team's change, in words for the summary and the pull request."""
    own = result.reproduction.path if result.reproduction and result.reproduction.failed_before else None
    lines = [f"its own reproduction test `{own}` (written before the fix, failing at the base)"] if own else []
    lines += [f"team {c.team}'s reproduction test, run on this change: " + ("passes" if c.passed else "FAILS")
              + f" ({c.detail})" for c in result.cross]
    if result.hidden:
        lines.append(result.hidden.line)
    if result.hidden and result.hidden.backs:
        return lines
    if teams == 1:
        lines.append("only one team worked on this task, so no independently written test backs the change: "
                     "review the change for answers special-cased to the tests' inputs")
    elif not result.cross:
        lines.append("no other team's reproduction test could be run on this change (none was written, or none "
                     "failed at the base), so only one independently written test backs it")
    return lines

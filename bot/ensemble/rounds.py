"""One round of a team's loop: the coder's change, judged against the base when it compiles; its commit.

A round is a function of its inputs (the coder, what it is told, the team's judge and test
runner) and returns a new `Round`; committing it (`commit_round`) returns the round that follows from
the commit, or from what the commit policy refused. The team's loop (team.py) and its
policy (policy.py) decide what comes next. The reproduction step (reproduce.py) plays the same round
with the coder writing a test.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from bot.ensemble.coder import Brief, Coder, describe_failures, write_change
from bot.ensemble.judge import TeamJudge, hooks_in
from bot.ensemble.ports import TestRunner
from bot.ensemble.types import Phase, Refusal, Round, RoundKind
from bot.forge import Workspace
from bot.forge.policy import ChangeRefused

log = logging.getLogger(__name__)


Begin = Callable[[Phase, int, str], None]  # report the step a team begins (phase, round, detail); raises on a stop


def play_round(coder: Coder, brief: Brief, judge: TeamJudge, runner: TestRunner, begin: Begin, number: int,
               kind: RoundKind = "fix", reproduction: str | None = None) -> Round:
    """Round `number`: the coder's change (applied and syntax-checked by the coder), then, when it compiles, tested
    with the judge's files and judged against the base (`reproduction`: the test being written, required while the
    judge has none), with the lines of it that reach into the test runner (the task allowed them)."""
    edits = write_change(coder, brief, judge.frozen, judge.data, judge.closure)
    made = partial(Round, number, kind, brief.edit_format.name, replies=edits.replies, refused=edits.refused(coder.team),
                   follow_up_s=edits.follow_up_s, reply_s=edits.reply_s, short=brief.reply_by is not None,
                   transcript=edits.transcript)
    if not edits.changed:
        return made(edit_errors=edits.errors(), idle=not (edits.failures or edits.refusals))
    rnd = made(applied=True, partial=describe_failures(edits.failures) if edits.failures else "",
               compile_error=edits.compile_error)
    if rnd.compile_error:
        return rnd
    workspace = coder.workspace
    begin(Phase.TESTING, number, "")
    tests, judgement = judge.verdict(runner, workspace, reproduction)
    rnd = replace(rnd, tests=tests, judgement=judgement, runner_hooks=tuple(hooks_in(workspace)))
    return _refuse_cheat(coder.team, workspace, rnd) if rnd.judgement and rnd.judgement.tampered else rnd


def _refuse_cheat(team: str, workspace: Workspace, rnd: Round) -> Round:
    """A change whose test run was tampered with is refused as a cheat: undone, recorded with its evidence (the
    summary, the trace and the pull request show the refusals), and the coder is told what was refused."""
    evidence = rnd.judgement.tampered if rnd.judgement else ()
    log.warning("team %s: the change was refused: its test run was tampered with: %s", team, "; ".join(evidence))
    workspace.discard()
    refused = [Refusal("cheat", "", f"test run tampered with: {e}") for e in evidence]
    return replace(rnd, applied=False, refused=tuple(dict.fromkeys([*rnd.refused, *refused])), edit_errors=(
        "the change was refused and undone: the judge's test run shows it tampered with how the tests run or "
        "report, instead of fixing the code:\n" + "\n".join(f"- {e}" for e in evidence)
        + "\nFix the code itself; do not touch the test runner, its results or its assertions."))


def commit_round(rnd: Round, workspace: Workspace, summary: str, body: str, trailers: dict[str, str]) -> Round:
    """The round once the workspace's change is committed (`commit`: its sha, None when there was nothing to commit);
    a change the commit policy refuses (bot/forge/policy.py) is undone, and the round counts as not applied (what
    was tested is gone)."""
    try:
        commit = workspace.commit(summary, body, trailers)
    except ChangeRefused as exc:
        log.warning("%s", exc)
        workspace.discard()
        refused = (Refusal("commit", "", p) for p in exc.problems)
        return replace(rnd, applied=False, tests=None, judgement=None, refused=tuple(dict.fromkeys([*rnd.refused, *refused])),
                       edit_errors="the change was refused before commit and undone:\n" + "\n".join(f"- {p}" for p in exc.problems))
    return replace(rnd, commit=commit.sha if commit else None)

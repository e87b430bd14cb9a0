"""Round 0 of a team's loop: the coder writes the reproduction test, and the sandbox must see it fail at the base."""

from __future__ import annotations

from dataclasses import replace

from bot.ensemble import round_text
from bot.ensemble.coder import Brief, Coder
from bot.ensemble.judge import TeamJudge, reproduces
from bot.ensemble.ports import TestRunner
from bot.ensemble.rounds import Begin, commit_round, play_round
from bot.ensemble.types import Phase, Refusal, Reproduction
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.redact import clip

ATTEMPTS = 2  # the coder's tries at a reproduction test that applies, compiles and runs


def reproduce(coder: Coder, brief: Brief, judge: TeamJudge, runner: TestRunner, begin: Begin,
              trailers: dict[str, str]) -> tuple[Reproduction, TeamJudge]:
    """Round 0: the coder writes the reproduction test `brief.plan` names; the sandbox must see it fail.

    Returns what happened and the judge for the rounds after it: one that requires the test, as it was
    written, once it failed at the base. An attempt that does not apply, compile or run is dropped from the
    workspace, so a broken test never reaches a later commit. A plan that names no test gets its reason noted.
    """
    workspace = coder.workspace
    plan = brief.plan
    if not plan.reproduction_test:
        return Reproduction(None, note=plan.no_test_reason), judge
    path = judge.new_test_path(plan.reproduction_test, workspace)
    plan = replace(plan, reproduction_test=path)
    feedback, refused = "", list[Refusal]()
    for _attempt in range(ATTEMPTS):
        begin(Phase.REPRODUCING, 0, path)
        rnd = play_round(coder, replace(brief, plan=plan, feedback=feedback, reproduce=True), judge, runner, begin,
                         0, kind="reproduce", reproduction=path)
        red, frozen = False, judge
        if rnd.applied and not rnd.compile_error and rnd.tests is not None:
            # what the test shows is read off its run before it is committed; from then on it is judged as written
            red = rnd.judgement is not None and reproduces(rnd.judgement, rnd.tests)
            frozen = judge.with_reproduction(path, WorkspaceFiles(workspace.path).read(path)) if red else judge
            rnd = commit_round(rnd, workspace, f"Add reproduction test {path}",
                               round_text.round_body(plan, rnd, "reproduction test"), trailers)
        refused += rnd.refused
        if rnd.commit and rnd.judgement is not None:
            if red:
                return Reproduction(path, failed_before=True, refused=tuple(refused)), frozen
            return (Reproduction(path, note="the reproduction test passed before the fix, so it does not show the bug",
                                 refused=tuple(refused)), judge)
        workspace.discard()
        feedback = rnd.edit_errors or rnd.compile_error
    return Reproduction(path, note=f"the coder could not write a working reproduction test: {clip(feedback, 300)}",
                        refused=tuple(refused)), judge

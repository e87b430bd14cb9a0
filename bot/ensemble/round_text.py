"""The texts made from a round: the coder's feedback, commit bodies, the history a re-plan reads (its lines are the
insights the teams share, bot/ensemble/insights.py).

Plain data in, plain text out; the loop in bot/ensemble/team.py decides when each is used.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.ensemble import prompts
from bot.ensemble.critic import test_report
from bot.ensemble.insights import insight
from bot.ensemble.types import Plan, Round

REPEATED = ("Your last change did not fix anything: the tests fail exactly as they did before it. Look again at "
            "the failing assertion below and change the code that produces that value.")


def round_body(plan: Plan, rnd: Round, what: str) -> str:
    """The body of a round's commit message: the plan, the tests' state and the critic's verdict."""
    tests = rnd.tests
    blamed = rnd.judgement.blamed if rnd.judgement else (tests.failing if tests else ())
    state = "tests pass" if rnd.good else f"tests fail: {', '.join(blamed[:5]) or 'see log'}" \
        if tests else "tests not run"
    review = f"Critic: {rnd.review.verdict}. {rnd.review.feedback}".strip() if rnd.review and rnd.review.verdict else ""
    return "\n\n".join(filter(None, [plan.summary, f"Round {rnd.number} ({what}): {state}.", review]))


def feedback(rnd: Round, last_tested: Round | None = None, repeated: bool = False) -> str:
    """What the coder is told about its last round before the next one.

    A round that re-sent a change already in the files is told so, with the test output that change
    still gives (`last_tested`, the newest tested round), rather than only that nothing changed. A
    change that left the tests failing exactly as before (`repeated`) is told that too: small
    models otherwise take "applied" for progress and polish what does not matter.
    """
    if not rnd.applied:
        text = "Your edits were NOT applied (nothing changed):\n" + rnd.edit_errors
        if last_tested is not None and last_tested.tests is not None and "already in the files" in rnd.edit_errors:
            text += "\n\nTests with the change already in the files:\n" + test_report(last_tested)
        return text
    if rnd.compile_error:
        return ("Your edits do not compile, so they were dropped (the files are as before your edits):\n"
                + rnd.compile_error)
    parts = [f"Your edits were applied. Tests {'pass' if rnd.good else 'fail'}."]
    if repeated and not rnd.good:
        parts.append(REPEATED)
    if rnd.partial:
        parts.append("Some of your blocks did not apply:\n" + rnd.partial)
    undone = [r for r in rnd.refused if r.kind != "special-cased"]  # that one's reason is the judgement's, below
    if undone:
        parts.append("Refused edits (undone):\n" + "\n".join(f"- {r}" for r in undone))
    if rnd.judgement is not None and not rnd.good:
        parts.append(rnd.judgement.reason)
    if rnd.tests and not rnd.good:
        parts.append(rnd.tests.summary)
    if rnd.review is not None and rnd.review.verdict == "revise" and rnd.review.feedback:
        parts.append("Reviewer: " + rnd.review.feedback)
    return "\n".join(parts)


def history(rounds: Sequence[Round]) -> str:
    """The team's rounds so far, as the planner reads them when it re-plans."""
    return prompts.render_history([insight(r) for r in rounds])

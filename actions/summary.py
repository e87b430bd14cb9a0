"""The step summary of an Action run (GITHUB_STEP_SUMMARY). Pure: the outcome and trace spans in, markdown out.

It shows the outcome, a link to the pull request, time by phase (the trace's spans summed the
way `ensemble report` sums them), tokens and cost per role and per model, and, on a failed
check, the self-healing attempt and how it ended; for an update of a pull request onto its moved
base, how it went (clean, or conflicts resolved) and its judgement there; with caps across runs,
what the run, its issue and its day spent, from the spend ledger. Like everything the bot writes it is inert
and links nowhere but the pull request on the same GitHub server.
"""

from __future__ import annotations

from collections.abc import Iterable

from actions.context import Outcome
from actions.markers import inert
from actions.render import spend_rows
from bot.llm.budget import no_spend
from bot.report_figures import phase_times

PHASE_WORDS = {"index": "index the repository", "explore": "explore (planner)", "plan": "plan (planner)",
               "code": "write code (coder)", "sandbox": "run the tests (sandbox)", "critique": "review (critic)",
               "github": "git and GitHub", "other": "other"}


def pull_url(server_url: str, repo: str, number: int | None) -> str:
    """The pull request's address on the GitHub server the run is on ('' without a number)."""
    return f"{server_url.rstrip('/')}/{repo}/pull/{number}" if number and repo else ""


def step_summary(outcome: Outcome, spans: Iterable[dict[str, object]] = (), pr_url: str = "") -> str:
    """The markdown for GITHUB_STEP_SUMMARY."""
    pr = f" ([PR #{outcome.pr_number}]({pr_url}))" if pr_url else f" (PR #{outcome.pr_number})" if outcome.pr_number else ""
    lines = [f"### ensemble: {outcome.result}{pr}", "", inert(outcome.message)]
    if outcome.heal:
        lines += ["", f"**Self-healing**: {inert(outcome.heal)}"]
    if outcome.update:
        lines += ["", f"**Update**: {inert(outcome.update)}"]
    if outcome.spend:
        lines += ["", f"**Spend**: {inert(outcome.spend)}"]
    lines += _phases(spans, outcome.run.duration_s if outcome.run else 0.0)
    usage = outcome.run.usage if outcome.run else no_spend()
    if usage["by_role"]:
        lines += ["", "#### Tokens and cost by role", *spend_rows(usage, "by_role", "role")]
    if usage["by_model"]:
        lines += ["", "#### Tokens and cost by model", *spend_rows(usage, "by_model", "model")]
    return "\n".join(lines) + "\n"


def _phases(spans: Iterable[dict[str, object]], wall_s: float) -> list[str]:
    """A table of seconds per phase (teams run side by side, so the phases may add up to more than the wall time)."""
    times = {phase: seconds for phase, seconds in phase_times(spans).items() if seconds > 0}
    if not times:
        return []
    rows = ["", "#### Time by phase", "| phase | seconds |", "| --- | --- |"]
    rows += [f"| {PHASE_WORDS.get(phase, phase)} | {seconds:.1f} |" for phase, seconds in times.items()]
    if wall_s:
        rows += ["", f"The engine ran {wall_s:.1f} s of wall time; its teams work side by side."]
    return rows

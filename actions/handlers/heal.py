"""Self-healing: a failed `workflow_run` (Actions) or `check_suite` (another CI app) on the bot's branch.

Acted on only when it failed on the branch's current head. Each failing check is sorted first:
one that fails on the default branch's head too is not the pull request's doing, and gets a
one-line note naming the check and the base's result instead of a fix (no model is called). The
others' failed jobs are re-run once; one that then passes was flaky, and gets a note when its green
re-run is reported. If they fail again, the failing log part goes to the ensemble as a revision and
a fix commit is pushed. Attempts, re-runs and failure signatures live in a hidden marker in the
bot's heal comment on the PR. A repeated signature, or `max_heal_attempts` used, escalates: label
`ensemble:needs-human` and a comment to the labeller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from actions.context import NEEDS_HUMAN, Context, Outcome, branch_of_issue, issue_of_branch
from actions.flow import revise_pull
from actions.github import ForgeError, PullInfo
from actions.logcut import cut_failure, failure_signature
from actions.markers import HealState, heal_state, inert, marker
from actions.render import escalation_comment, fenced
from actions.settings import remote_config

log = logging.getLogger(__name__)

FAILED = ("failure", "timed_out")


def handle(ctx: Context) -> Outcome:
    event = ctx.event
    issue = issue_of_branch(event.head_branch)
    if issue is None:
        return Outcome("nothing-to-do", f"{event.name} on {event.head_branch!r}, which is not a bot branch")
    if event.conclusion == "success":
        return _passed_on_rerun(ctx, issue)
    if event.conclusion not in FAILED:
        return Outcome("nothing-to-do", f"{event.name} concluded {event.conclusion or 'nothing'}; no healing needed")
    branch = branch_of_issue(issue)
    head = ctx.forge.branch_head(branch)
    if head != event.head_sha:
        return Outcome("nothing-to-do", f"the failure was on {event.head_sha[:7]}, but {branch} is now at {(head or 'nothing')[:7]}")
    pull = ctx.forge.find_pull(branch)
    if pull is None:
        return Outcome("nothing-to-do", f"no open pull request from {branch}")
    failing = _failing(ctx)
    if not failing:
        return Outcome("nothing-to-do", "nothing failed that could be healed (a re-run may be in progress)")
    comment_id, state = _load(ctx, pull.number)
    if state.get("escalated") == head:
        return Outcome("nothing-to-do", f"already handed {branch} at {head[:7]} to a human")
    failing, red = _without_red_on_base(ctx, failing)
    if red:
        _note(ctx, pull.number, f"base:{head}:{failing.key}", red)
    if red and not failing.checks:
        return Outcome("red-on-base", red, pull.number, heal="not healed: the failing checks fail on the base too")
    key = f"{head}:{failing.key}"  # each failing workflow or suite on a head gets its one re-run
    if key not in state["reruns"]:
        state["reruns"].append(key)
        state["rerun_checks"][key] = failing.checks
        try:
            accepted = failing.rerun() is not False  # PyGithub answers False when GitHub refuses
        except ForgeError as exc:
            if exc.status not in (403, 404):
                raise
            accepted = False
        if not accepted:
            # e.g. re-requesting another app's suite needs `checks: write`, which the example workflow
            # does not grant: heal at once rather than wait for a re-run that never comes
            log.warning("GitHub refused to re-run %s; healing without a re-run", failing.what)
            return _heal(ctx, issue, pull, failing, comment_id, state)
        _save(ctx, pull.number, comment_id, state, f"Re-ran {failing.what} once to rule out a flaky test.")
        return Outcome("rerun", f"re-ran {failing.what} on {head[:7]}", pull.number,
                       heal=f"re-ran the failed checks once before a fix attempt ({state['attempts']} used so far)")
    return _heal(ctx, issue, pull, failing, comment_id, state)


@dataclass
class Failing:
    """What failed on the head: a workflow run of Actions, or another CI app's check suite, and the names of
    its failing checks (jobs, or the suite's check runs); `logs` gives (check name, log) of those checks."""

    key: str
    what: str
    rerun: Callable[[], object]
    logs: Callable[[], list[tuple[str, str]]]
    checks: list[str]


def _failing(ctx: Context) -> Failing | None:
    event = ctx.event
    if event.run_id:  # workflow_run: Actions' own runs
        run = ctx.forge.run(event.run_id)
        if run.conclusion not in FAILED:
            return None
        return Failing(f"run-{run.id}", f"the failed jobs of workflow run {run.id}",
                       lambda: ctx.forge.rerun_failed_jobs(run.id), lambda: ctx.forge.failed_job_logs(run.id),
                       ctx.forge.failed_jobs(run.id))
    suite = event.check_suite_id or 0  # check_suite: GitHub sends it for other apps' suites only
    failures = ctx.forge.suite_failures(suite)
    if not failures:
        return None
    return Failing(f"suite-{suite}", f"check suite {suite} ({', '.join(name for name, _ in failures[:3])})",
                   lambda: ctx.forge.rerequest_suite(suite), lambda: ctx.forge.suite_failures(suite),
                   [name for name, _ in failures])


def _without_red_on_base(ctx: Context, failing: Failing) -> tuple[Failing, str]:
    """`failing` less the checks whose latest result on the default branch's head is a failure too, and a line
    naming those with the base's commit and result ('' when there are none). Such a failure is not the pull
    request's doing, so no model money goes into fixing it here."""
    base = ctx.forge.default_branch()
    base_sha = ctx.forge.branch_head(base) or ""
    on_base = ctx.forge.check_conclusions(base_sha) if base_sha and failing.checks else {}
    red = [name for name in failing.checks if on_base.get(name) in FAILED]
    if not red:
        return failing, ""
    rest = [name for name in failing.checks if name not in red]
    logs = failing.logs
    kept = replace(failing, checks=rest, logs=lambda: [(name, text) for name, text in logs() if name not in red])
    named = ", ".join(f"`{name}` ({on_base[name]})" for name in red)
    return kept, (f"Not healing {named}: the same check fails on `{base}` at {base_sha[:7]} too, so this pull "
                  "request did not cause it.")


def _passed_on_rerun(ctx: Context, issue: int) -> Outcome:
    """A green run or suite on the bot's head: when it is the re-run of a failure, say the checks were flaky."""
    event = ctx.event
    branch = branch_of_issue(issue)
    head = ctx.forge.branch_head(branch)
    pull = ctx.forge.find_pull(branch) if head == event.head_sha else None
    if head is None or pull is None:
        return Outcome("nothing-to-do", f"{event.name} passed; no healing needed")
    failing = f"run-{event.run_id}" if event.run_id else f"suite-{event.check_suite_id or 0}"
    key = f"{head}:{failing}"
    _, state = _load(ctx, pull.number)
    if key not in state["reruns"]:
        return Outcome("nothing-to-do", f"{event.name} passed; no healing needed")
    names = ", ".join(f"`{name}`" for name in state["rerun_checks"].get(key, [])) or "the failed checks"
    again = f"workflow run {event.run_id}, attempt {event.run_attempt}" if event.run_id else \
        f"check suite {event.check_suite_id}, re-requested"
    line = (f"Not healing {names}: failed on {head[:7]} and passed when re-run ({again}), so the failure was "
            "flaky, not this pull request's doing.")
    _note(ctx, pull.number, f"flaky:{key}", line)
    return Outcome("flaky", line, pull.number, heal="not healed: the failure was flaky and passed on a re-run")


def _note(ctx: Context, number: int, key: str, line: str) -> None:
    """Post `line` on PR #number once per `key` (a re-delivered event posts nothing new)."""
    if any(data.get("key") == key for _, data in ctx.own_markers(number, "triage")):
        return
    ctx.forge.comment(number, inert(line) + "\n\n" + marker("triage", {"key": key}))


def _heal(ctx: Context, issue: int, pull: PullInfo, failing: Failing, comment_id: int | None,
          state: HealState) -> Outcome:
    config = remote_config(ctx)
    logs = failing.logs()
    excerpt = "\n\n".join(f"--- job {name} ---\n{cut_failure(text)}" for name, text in logs) or "(no failed job logs)"
    signature = failure_signature(excerpt)
    of = config.max_heal_attempts
    if state["attempts"] >= of:
        reason = f"all {of} fix attempts are used"
        return _heal_outcome(_escalate(ctx, issue, pull, comment_id, state, excerpt, reason), state["attempts"], of)
    if signature in state["signatures"]:
        reason = "the same failure came back after a fix"
        return _heal_outcome(_escalate(ctx, issue, pull, comment_id, state, excerpt, reason), state["attempts"], of)
    attempt = state["attempts"] + 1
    instructions = f"The pull request's checks fail. Fix the code so they pass. The failing log:\n{fenced(excerpt, 6000)}"
    outcome = revise_pull(ctx, pull, instructions, _labeller(ctx, issue), f"self-healing attempt {attempt}")
    if outcome.result in ("held", "stopped", "too-many-runs", "over-budget", "ledger-unavailable"):
        return outcome  # a human took over, said stop, a loop was broken or a spend cap refused: no attempt made
    state["attempts"], state["signatures"] = attempt, [*state["signatures"], signature]
    new_head = ctx.forge.branch_head(pull.branch) or ""
    state["tried"].append({"what": f"fix commit for failure {signature}", "sha": new_head if outcome.result == "revised" else ""})
    if outcome.result != "revised":
        escalated = _escalate(ctx, issue, pull, comment_id, state, excerpt, f"the fix attempt ended: {outcome.message}")
        return _heal_outcome(replace(escalated, run=outcome.run), attempt, of)
    _save(ctx, pull.number, comment_id, state, f"Pushed fix attempt {attempt} of {of}.")
    return _heal_outcome(Outcome("healed", f"pushed fix attempt {attempt} to {pull.branch}", pull.number,
                                 run=outcome.run), attempt, of)


def _heal_outcome(outcome: Outcome, attempt: int, of: int) -> Outcome:
    """`outcome` with the attempt and how it ended, for the step summary."""
    ended = "pushed a fix" if outcome.result == "healed" else "handed to a human"  # the message says why
    return replace(outcome, heal=f"attempt {attempt} of {of}: {ended}")


def _escalate(ctx: Context, issue: int, pull: PullInfo, comment_id: int | None, state: HealState,
              excerpt: str, reason: str) -> Outcome:
    head = ctx.forge.branch_head(pull.branch) or ""
    state["escalated"] = head
    ctx.forge.add_labels(pull.number, NEEDS_HUMAN)
    ctx.forge.add_labels(issue, NEEDS_HUMAN)
    ctx.forge.comment(pull.number, escalation_comment(_labeller(ctx, issue), state["tried"], excerpt, reason))
    _save(ctx, pull.number, comment_id, state, f"Handed over to a human: {reason}.")
    return Outcome("escalated", f"labelled PR #{pull.number} {NEEDS_HUMAN}: {reason}", pull.number)


def _labeller(ctx: Context, issue: int) -> str:
    """Who asked for the run: the `by` of the issue's latest progress marker."""
    runs = ctx.own_markers(issue, "progress")
    return str(runs[-1][1].get("by", "")) if runs else ""


def _load(ctx: Context, number: int) -> tuple[int | None, HealState]:
    found = ctx.own_markers(number, "heal")
    if not found:
        return None, heal_state({})
    comment, data = found[-1]
    return comment.id, heal_state(data)


def _save(ctx: Context, number: int, comment_id: int | None, state: HealState, note: str) -> None:
    body = f"**Self-healing**: {inert(note)} Fix attempts used: {state['attempts']}.\n\n" + marker("heal", state)
    if comment_id is None:
        ctx.forge.comment(number, body)
    else:
        ctx.forge.edit_comment(number, comment_id, body)

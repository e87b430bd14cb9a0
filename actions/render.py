"""The bot's words on GitHub: PR bodies, the progress checklist, replies. Pure: data in, markdown out.

Text that came from people (issue bodies, review comments, logs) is never echoed into these
except as quoted data inside code fences, so it cannot pose as the bot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from actions.engine import plan_text
from actions.markers import (
    Evidence,
    HealAttempt,
    ProgressState,
    evidence,
    inert,
    marker,
    read_marker,
    without_markers,
)
from bot.ensemble.report import judged_lines, name_list, tests_line, yes_no
from bot.ensemble.types import CRASHED, RunResult, TeamSummary
from bot.llm.budget import SpendSummary
from bot.redact import clip

if TYPE_CHECKING:
    from actions.github.info import CommitInfo
    from bot.ensemble.update import UpdateResult

STAGES = (("indexed", "Indexed the repository"), ("planned", "Planned the change"), ("coded", "Wrote the code"),
          ("tested", "Ran the tests"), ("reviewed", "Reviewed the change"), ("pr", "Opened the pull request"))
UPDATE_STAGES = (("fetched", "Ran the tests of the new base"), ("merged", "Brought the branch onto it"),
                 ("judged", "Judged the change again there"), ("pushed", "Pushed the branch and updated the evidence"))
UPDATE_PHASE_TO_STAGE = {"baseline tests": "fetched", "coding": "fetched", "testing": "merged"}
PHASE_TO_STAGE = {"indexing": "indexed", "baseline tests": "indexed", "exploring": "indexed", "planning": "planned",
                  "reproducing": "planned", "coding": "coded", "re-planning": "planned", "testing": "tested",
                  "reviewing": "reviewed"}
REFUSAL = ("Thanks for the interest! Only people with write, maintain or admin permission on this repository "
           "can start the ensemble bot, so I have not done anything.")


def stages_of(state: ProgressState) -> tuple[tuple[str, str], ...]:
    """The checklist of a run, or of an update of a pull request."""
    return UPDATE_STAGES if state.get("kind") == "update" else STAGES


def progress_body(state: ProgressState) -> str:
    """The progress comment: a checklist of stages, the current note, and the hidden state marker."""
    done = set(state.get("done", []))
    what = "update" if state.get("kind") == "update" else "run"
    lines = [f"**ensemble {what}** `{state.get('run', '?')}` for #{state.get('issue', '?')}", ""]
    lines += [f"- [{'x' if key in done else ' '}] {label}" for key, label in stages_of(state)]
    if state.get("note"):
        lines += ["", inert(str(state["note"]))]
    return "\n".join(lines) + "\n\n" + marker("progress", state)


def spend_rows(usage: SpendSummary, key: Literal["by_role", "by_model"] = "by_role", label: str = "role") -> list[str]:
    """A markdown table of the ledger's spend under `key` (by_role, by_model) with a total row."""
    rows = [f"| {label} | calls | tokens in | tokens out | cost (USD) |", "| --- | --- | --- | --- | --- |"]
    for name, spend in sorted(usage[key].items()):
        rows.append(f"| {inert(name).replace('|', '/')} | {spend['calls']} | {spend['input_tokens']} | "
                    f"{spend['output_tokens']} | {spend['cost_usd']:.4f} |")
    rows.append(f"| **total** | {usage['calls']} | {usage['input_tokens']} | "
                f"{usage['output_tokens']} | {usage['cost_usd']:.4f} |")
    return rows


def _provenance(result: RunResult) -> list[str]:
    by_path: dict[str, list[str]] = {}
    for item in result.retrieved:
        span = f":{item.start_line}-{item.end_line}" if item.start_line else ""
        by_path.setdefault(item.path, []).append(f"{item.how}{span}")
    return [f"- `{path}` ({', '.join(sorted(set(hows)))})" for path, hows in sorted(by_path.items())] or ["- (none recorded)"]


def pr_body(result: RunResult, issue: int) -> str:
    """The pull request's body: summary, plan, tests, reproduction, candidates, provenance, models, usage, stop."""
    plan = result.plan
    closing = f"Part of #{issue} (partial work: merging it leaves the issue open)" if result.partial else \
        f"Closes #{issue}"
    parts = [closing, "", *_partial(result), "## Summary", (plan.summary if plan else "") or "(no summary)", "",
             "## Plan", plan_text(plan, with_summary=False) if plan else "(no plan)", "",
             "## Tests", *tests_section(result), "", *_test_changes(result), *_runner_hooks(result),
             *_refusals(result), *_candidates(result),
             "## Retrieved files that informed the change", *_provenance(result), "",
             "## Models that wrote it", *_models(result), "",
             "## Tokens and cost", *spend_rows(result.usage), "",
             "## Stop reason", result.stop_words + (f" ({result.stop_detail})" if result.stop_detail else ""), "",
             "Commits:", *[f"- {c.sha[:7]} {c.summary}" for c in result.commits], "",
             f"_Written by the ensemble bot, run `{result.run_id}`. Review it like any other pull request: "
             "approve to mark it ready, or request changes and I will revise it._", "", marker("evidence", evidence_of(result))]
    if result.replayed:
        parts.insert(2, "> The model replies in this run were replayed from a transcript, not live.\n")
    return "\n".join(parts)


def _backing(result: RunResult) -> list[str]:
    """Which independently written tests back the change, and whether the judge's known-answer checks ran."""
    lines = [f"- backed by: {inert(line)}" for line in result.corroboration]
    if result.sentinels:
        lines.append(f"- the judge's known-answer checks (against forged test results): {inert(result.sentinels)}")
    if result.unchecked:
        lines.append(f"- checks that did not apply: {inert(result.unchecked)}")
    return lines


def evidence_of(result: RunResult, base: str = "", updates: int = 0) -> Evidence:
    """What a pull request's judgement rests on, for its body's `evidence` marker."""
    repro = result.reproduction
    return Evidence(fixed=list(result.judgement.fixed) if result.judgement else [],
                    reproduction=repro.path if repro and repro.path else "", base=base, updates=updates)


def tests_section(result: RunResult) -> list[str]:
    """The `Tests` lines of a pull request body: before and after, the reproduction test, red and green."""
    repro = result.reproduction
    if repro and repro.path:
        repro_line = (f"`{repro.path}`: fails before the fix: {yes_no(repro.failed_before)}; "
                      f"passes after it: {yes_no(repro.passed_after)}")
    else:
        repro_line = f"none ({repro.note})" if repro and repro.note else "none"
    return [f"- before: {tests_line(result.tests_before, code_span)}", f"- after: {tests_line(result.tests_after, code_span)}",
            f"- reproduction test: {repro_line}", *judged_lines(result, code_span), *_backing(result)]


def _partial(result: RunResult) -> list[str]:
    """For partial work: why the run stopped, what the change does (tests fixed) and what is left (tests still red)."""
    judged = result.judgement
    if not result.partial or judged is None:
        return []
    why = result.stop_words + (f" ({result.stop_detail})" if result.stop_detail else "")
    left = [f"- required by the task, still failing: {name_list(judged.required_failing, code_span)}"] \
        if judged.required_failing else []
    left += [f"- failed before the change and still fail: {name_list(judged.still_failing, code_span)}"] \
        if judged.still_failing else []
    return ["## Partial work",
            f"The run stopped before the task was done: {inert(why)}. This draft keeps its best change, which "
            "fixes some failing tests and breaks none. Comment `/ensemble retry` on the issue to continue from it.",
            "", "**Done** (red → green):", f"- {name_list(judged.fixed, code_span)}", "",
            "**Left**:", *(left or ["- (no test names it; see the task)"]), ""]


def nothing_kept(result: RunResult) -> str:
    """Why a run that did not pass published nothing, in a few words (for the progress comment)."""
    from bot.ensemble.select import LIMITS

    judged = result.judgement
    if not result.diff.strip():
        return "no change was made"
    if judged is None or not judged.per_test:
        return "the tests gave no per-test results, so no change could be shown to fix a test without breaking another"
    if judged.broken or judged.new_failing:
        broke = (*judged.broken, *judged.new_failing)
        return f"the best change broke tests ({name_list(broke, code_span, 5)}), and a change that breaks tests is never published"
    if judged.unknown:
        return "the last test run was cut short, so whether the change broke a test is unknown"
    if not judged.fixed:
        return "the best change turned no failing test green"
    if result.stop_reason not in LIMITS:
        return f"partial work is published only when a limit or `/ensemble stop` ends a run, and this one ended otherwise ({result.stop_words})"
    return "no change was kept"


def _test_changes(result: RunResult) -> list[str]:
    """Each change to an existing test or harness file the task asked for, with its diff."""
    if not result.test_changes:
        return []
    lines = ["## Test changes the task asked for",
             "The judge ran every other test as it is on the base branch; these files changed because the task "
             "names them:"]
    for change in result.test_changes:
        fence = "````" if "```" in change.diff else "```"
        lines += [f"- {code_span(change.path)}", "", f"{fence}diff", clip(without_markers(change.diff), 6000), fence, ""]
    return lines


def _runner_hooks(result: RunResult) -> list[str]:
    """Each line of the change that reaches into the test runner, kept because the task asked for it."""
    if not result.runner_hooks:
        return []
    lines = ["## Test-runner changes the task asked for",
             "These lines reach into what runs the tests (they could make failing tests pass); the task asked for "
             "them, so they were kept. Check each one:"]
    for hook in result.runner_hooks[:20]:
        lines.append(f"- {code_span(f'{hook.path}:{hook.line}')} {inert(hook.what)}: {code_span(clip(hook.code, 200))}")
    if len(result.runner_hooks) > 20:
        lines.append(f"- … and {len(result.runner_hooks) - 20} more")
    return [*lines, ""]


def _refusals(result: RunResult) -> list[str]:
    """The edits the bot refused (tests, harness, CI, secrets, denied paths), so the reviewer sees what was tried."""
    if not result.refused:
        return []
    return ["## Refused edits", "These edits were refused and undone; none of them is in this pull request:",
            *[f"- {inert(clip(r, 300))}" for r in result.refused[:20]],
            *([f"- … and {len(result.refused) - 20} more"] if len(result.refused) > 20 else []), ""]


def _candidates(result: RunResult) -> list[str]:
    """The winner, and the runner-up with why it lost (an empty list when one team ran)."""
    winner = next((t for t in result.teams if t.name == result.winner), None)
    others = sorted((t for t in result.teams if t is not winner), key=lambda t: t.rank or len(result.teams))
    if winner is None or not others:
        return []
    second = others[0]
    return ["## Candidates", f"- chosen: team {winner.name} ({inert(winner.outcome)})",
            f"- runner-up: team {second.name}, which lost because {_why_lost(winner, second)} "
            f"({inert(second.outcome)})", ""]


def _why_lost(winner: TeamSummary, other: TeamSummary) -> str:
    """The first of select.rank_key's criteria (tests, critic, size) that these outcomes show apart, with the
    figures; when none does, that they tied."""
    if other.stop_reason == CRASHED and not other.passed:
        return "it crashed"
    if winner.passed and not other.passed:
        return "its tests did not pass"
    if not other.diff_lines:
        return "it made no change"
    ours, theirs = other.judgement, winner.judgement
    if ours is not None and theirs is not None and len(ours.broken) > len(theirs.broken):
        return f"it broke {_tests(len(ours.broken))} that passed before (the winner {len(theirs.broken)})"
    failed, winner_failed = (sum(not c.passed for c in t.cross) for t in (other, winner))
    if failed > winner_failed:
        return (f"it failed {failed} of the reproduction tests another team wrote independently (the winner "
                f"{winner_failed})")
    if winner.accepted and not other.accepted:
        return "the critic did not accept it"
    if ours is not None and theirs is not None:
        if len(ours.fixed) < len(theirs.fixed):
            return f"it fixed fewer tests ({len(ours.fixed)} against the winner's {len(theirs.fixed)})"
        if len(ours.blamed) > len(theirs.blamed):
            return (f"it left more of the tests it had to fix failing ({len(ours.blamed)} against the winner's "
                    f"{len(theirs.blamed)})")
    if other.diff_lines > winner.diff_lines:
        return f"its change was larger ({other.diff_lines} changed lines against {winner.diff_lines})"
    if ours is None or theirs is None:
        return "its test results ranked lower"
    return ("it tied with the winner on the tests, the critic and the size of the change, and the first team "
            "ranked is chosen")


def _tests(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"


def _models(result: RunResult) -> list[str]:
    """The models as the providers named them, with their calls; else each team's configured models."""
    by_model = result.usage["by_model"]
    if by_model:
        return [f"- {_code_names((name,))}: {_calls(spend['calls'])}, "
                f"{spend['input_tokens']} tokens in, {spend['output_tokens']} out"
                for name, spend in sorted(by_model.items())]
    return [f"- team {t.name}: {_code_names((t.models,))}" for t in result.teams
            if t.models] or ["- (not recorded)"]


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"


def code_span(name: str) -> str:
    """A name as an inline code span that can carry no marker."""
    return f"`{inert(name).replace('`', '')}`"


def _code_names(names: tuple[str, ...]) -> str:
    return name_list(names, code_span)


def fenced(text: str, limit: int = 3000) -> str:
    """Untrusted text as a code block that it cannot close."""
    text = text[-limit:]
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return f"{fence}text\n{text}\n{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return longest


def questions_comment(questions: tuple[str, ...] | list[str]) -> str:
    """The planner's questions, and what to do next."""
    questions = [inert(q) for q in questions]
    items = "\n".join(f"{i}. {q}" for i, q in enumerate(questions, 1))
    return ("Before I write code I need answers to these questions:\n\n" + items +
            "\n\nPlease answer them by editing the issue or in a comment, then comment `/ensemble run`."
            "\n\n" + marker("questions", {"questions": list(questions)}))


PLAN_INTRO = ("Here is my plan. Comment `/ensemble approve-plan` to let me write the code, or edit the steps in this "
              "comment first (what the comment shows when you approve is what runs), or edit the issue and comment "
              "`/ensemble run` for a new plan.")


def plan_comment(plan_markdown: str, run: str) -> str:
    """The plan posted for approval (what runs on approval is exactly what is shown)."""
    plan_markdown = inert(plan_markdown)
    return f"{PLAN_INTRO}\n\n{plan_markdown}\n\n" + marker("plan", {"run": run, "plan": plan_markdown})


def plan_in_comment(body: str) -> str:
    """The plan markdown of a plan comment as it reads now (maintainers may have edited it)."""
    text = without_markers(body.replace("\r\n", "\n")).strip()
    intro, gap, rest = text.partition("\n\n")
    return rest if gap and intro.startswith("Here is my plan") else text


def hold_comment(branch: str, shas: list[str]) -> str:
    """The notice that a human pushed to the bot's branch."""
    listed = ", ".join(s[:7] for s in shas)
    return (f"Someone pushed {listed} to `{branch}` (commits without an `Ensemble-Run:` trailer), so I will not "
            "push to this branch any more. Comment `/ensemble retry` to let me continue from its current state.")


def escalation_comment(mention: str, tried: list[HealAttempt], failing: str, reason: str) -> str:
    """What self-healing tried and what still fails, for the person who asked for the run."""
    who = f"@{mention} " if mention else ""
    attempts = "\n".join(f"- attempt {i}: {t.get('what', '')} ({t.get('sha', '')[:7]})" for i, t in enumerate(tried, 1))
    return (f"{who}I could not get the checks green on my own ({reason}), so this needs a human.\n\n"
            f"**What I tried**\n{attempts or '- re-ran the failed jobs'}\n\n**What still fails**\n{fenced(failing)}")


def updated_pr_body(body: str, update: UpdateResult, base_name: str, updates: int) -> str:
    """The pull request's body after update number `updates` onto `base_name`: its Tests section judged again on the
    new base (saying how it got there), the new commits listed, the evidence marker renewed. Whatever else people
    or earlier runs wrote stays."""
    run = update.run
    base = f"`{inert(base_name)}`"
    how = f"the branch rebased onto {base}" if update.strategy == "rebase" else f"{base} merged into the branch"
    resolved = (f"; the conflicts in {name_list(update.conflicts, code_span)} resolved by the coder and judged like any "
                "change" if update.conflicts else "; no conflicts, no model call")
    tests = ["## Tests", f"Judged again on {base} at {update.base[:7]} (update {updates}: {how}{resolved}):",
             *tests_section(run), ""]
    text = without_markers(body).replace("\r\n", "\n")
    start = text.find("\n## Tests\n")
    if start >= 0:
        end = min([i for i in (text.find("\n## ", start + 1), text.find("\nCommits:", start + 1)) if i >= 0],
                  default=len(text))
        text = text[:start + 1] + "\n".join(tests) + text[end:]
    else:
        text = text.rstrip() + "\n\n" + "\n".join(tests)
    added = "\n".join(f"- {c.sha[:7]} {inert(c.summary)}" for c in run.commits)
    at = text.find("\nCommits:\n")
    if added and at >= 0:
        after = text.find("\n\n", at + len("\nCommits:\n"))
        after = len(text) if after < 0 else after
        text = text[:after] + "\n" + added + text[after:]
    renewed = evidence_of(run, update.base, updates)
    before = evidence(read_marker(body, "evidence"))
    kept = [*(before["fixed"] if before else []), *renewed.get("fixed", [])]  # fixed before: still required
    renewed["fixed"] = list(dict.fromkeys(kept))
    return text.rstrip() + "\n\n" + marker("evidence", renewed)


def update_left_comment(update: UpdateResult, base_name: str, head: str) -> str:
    """Why an update left the pull request's branch as it was, and what to do about it."""
    files = f" The files that conflict: {name_list(update.conflicts, code_span)}." if update.conflicts else ""
    return (f"I could not bring this pull request onto `{inert(base_name)}` at {update.base[:7]}: {inert(update.why)}."
            f"{files} The branch is left as it was, at {head[:7]}, and nothing was pushed. Resolve it by hand (a "
            "commit of yours on the branch keeps me off it until `/ensemble retry`), or comment `/ensemble update` "
            "to let me try again.")


def update_limit_comment(updates: int, limit: int) -> str:
    """Why an open pull request is no longer brought onto its moved base by itself."""
    return (f"I have brought this pull request onto its moved base {updates} times since its last review "
            f"(`max_updates_per_pr` is {limit}), so I leave it alone now. A review, or `/ensemble update`, lets me "
            "update it again.")


def red_branch_issue(base: str, head: str, green: str, checks: list[str], tests: list[str],
                     suspects: list[CommitInfo], excerpt: str, mention: bool, run_id: int,
                     label: str = "ensemble") -> tuple[str, str]:
    """The title and body of the issue that reports the default branch turning red."""
    named = ", ".join(f"`{inert(c)}`" for c in checks)
    title = f"`{base}` is red: {', '.join(checks[:3])} failing since {head[:7]}"

    def author(commit: CommitInfo) -> str:
        if not commit.login:
            return f" by {code_span(commit.name)}" if commit.name else ""
        return f" by @{commit.login}" if mention else f" by {code_span(commit.login)}"

    listed = [f"- {c.sha[:7]} {inert(clip(c.summary, 100))}{author(c)}" for c in suspects]
    lines = [f"{named} failed on `{inert(base)}` at {head[:7]} (workflow run {run_id}), twice: a re-run of the failed "
             f"jobs failed again, so it is not a flaky test. It passed at {green[:7]}.", "",
             "**Failing tests**", *([f"- {code_span(t)}" for t in tests] or ["- (the logs name none; see below)"]), "",
             f"**Suspect commits** (after the last green {green[:7]}, newest first)", *listed, "",
             "**The failing part of the logs**", fenced(excerpt, 6000), "",
             f"_Opened by the ensemble bot (`heal.default_branch: issue`). Label this issue `{inert(label)}` to let it "
             "try a fix._"]
    return title, "\n".join(lines)

"""The run summary for people, and the one renderer of test results (terminal and pull request alike).

`tests_line`, `judged_lines` and `name_list` write the facts of a run's tests (before and after,
red to green, pre-existing failures, broken) in one wording: plain text by default, markdown
bullets with code-quoted names when given a `quote` (actions/render.py passes its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.ensemble.types import Judgement, RunResult, TestOutcome
from bot.redact import clip

Quote = Callable[[str], str]  # writes one test name for markdown (code span, neutralized)
NAMES_SHOWN = 10
JUDGED_GROUPS: tuple[tuple[str, Callable[[Judgement], tuple[str, ...]]], ...] = (
    ("fixed (red → green)", lambda j: j.fixed),
    ("pre-existing failures left alone (failed before the change too, not blocking)", lambda j: j.still_failing),
    ("broken (passed before; failing, skipped or gone now)", lambda j: j.broken),
    ("new tests failing", lambda j: j.new_failing), ("never ran (the run was killed before them)", lambda j: j.unknown))


def tests_line(outcome: TestOutcome | None, quote: Quote | None = None) -> str:
    """One test run in a few words: not run, pass (how many), or which tests failed."""
    if outcome is None:
        return "not run"
    if outcome.passed:
        detail = f"{outcome.total} tests" if outcome.total else ("" if quote else _first_line(outcome.summary))
        return f"pass ({detail})" if detail else "pass"
    if quote:
        failing = ", ".join(quote(name) for name in outcome.failing[:5])
        return f"fail ({failing})" if failing else "fail"
    return "FAIL: " + (", ".join(outcome.failing[:5]) or _first_line(outcome.summary) or "failed")


def judged_lines(result: RunResult, quote: Quote | None = None) -> list[str]:
    """Red to green, still red (failed before the change too), broken and new failing tests, judged against the base."""
    bullet, indent = ("- ", "- ") if quote else ("", "  ")
    judged = result.judgement
    if judged is None or not judged.per_test:
        pre = result.pre_existing_failures
        return [f"{bullet}pre-existing failures left alone (failed before any change, not blocking): "
                f"{name_list(pre, quote)}"] if pre else []
    lines = [] if quote else [f"judged against the base: {judged.reason}"]
    for label, group in JUDGED_GROUPS:
        if names := group(judged):
            lines.append(f"{indent}{label}: {name_list(names, quote)}")
    return lines


def name_list(names: Sequence[str], quote: Quote | None = None, limit: int = NAMES_SHOWN) -> str:
    """The first `limit` names, comma-separated, then how many more."""
    shown = ", ".join(quote(n) if quote else n for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def yes_no(value: bool | None) -> str:
    """yes, no or unknown."""
    return {True: "yes", False: "no", None: "unknown"}[value]


def _first_line(text: str) -> str:
    return (text.splitlines() or [""])[0]


def render_summary(result: RunResult) -> str:
    """A plain-text summary of the run."""
    verdict = "SUCCESS" if result.success else "PARTIAL (the change does not pass yet)" if result.partial else \
        "NO PASSING CHANGE"
    lines = [f"ensemble run {result.run_id}: {verdict}"]
    if result.replayed:
        lines.append("NOTE: the model replies in this run were REPLAYED from a scripted transcript, not live.")
    lines.append(f"stop reason: {result.stop_reason} ({result.stop_words})")
    if result.stop_detail and result.stop_reason != "accepted":
        lines.append(f"  detail: {clip(result.stop_detail, 300)}")
    for question in result.questions:
        lines.append(f"question: {question}")
    lines.append(f"branch: {result.branch if result.commits else '(not created: no passing change)'}"
                 + (" (partial work: it fixes some tests and breaks none; see what is left below)"
                    if result.partial else ""))
    lines += [f"  commit {c.sha[:10]} {c.summary}" for c in result.commits]
    if result.environment:
        lines.append(f"environment: {result.environment}")
    lines.append(f"tests before: {tests_line(result.tests_before)}")
    lines.append(f"tests after:  {tests_line(result.tests_after)}")
    lines += judged_lines(result)
    repro = result.reproduction
    if repro and repro.path:
        lines.append(f"reproduction test: {repro.path} (failed before the fix: {yes_no(repro.failed_before)}, "
                     f"passes after it: {yes_no(repro.passed_after)}){' - ' + repro.note if repro.note else ''}")
    elif repro:
        lines.append(f"reproduction test: none ({repro.note})")
    lines += [f"backed by: {line}" for line in result.corroboration]
    if result.sentinels:
        lines.append(f"known-answer checks: {result.sentinels}")
    if result.decision:
        lines.append(f"teams: {result.decision}")
    for refusal in result.refused:
        lines.append(f"refused edit: {clip(refusal, 300)}")
    for change in result.test_changes:
        lines.append(f"test change the task asked for: {change.path}")
        lines += [f"  {line}" for line in change.diff.splitlines()[:40]]
    for hook in result.runner_hooks:
        lines.append(f"test-runner change the task asked for: {hook.path}:{hook.line} {hook.what}: {clip(hook.code, 120)}")
    lines += _spend(result)
    lines.append(f"duration: {result.duration_s:.1f} s")
    if result.trace:
        lines.append(f"trace: {result.trace} (`ensemble report` summarizes it)")
    return "\n".join(lines)


def _spend(result: RunResult) -> list[str]:
    usage = result.usage
    lines = [f"tokens: {usage['input_tokens']} in, {usage['output_tokens']} out; cost ${usage['cost_usd']:.4f}"]
    for role, spend in usage["by_role"].items():
        lines.append(f"  {role}: {spend['calls']} calls, {spend['input_tokens']} in, "
                     f"{spend['output_tokens']} out, ${spend['cost_usd']:.4f}")
    for fallback in usage["fallbacks"]:
        lines.append(f"  fallback for {fallback['role']}: {fallback['from']} -> {fallback['to']}")
    return lines

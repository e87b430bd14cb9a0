"""The run summary for people: branch, commits, tests before/after, reproduction, spend, stop reason."""

from __future__ import annotations

from bot.ensemble.types import RunResult, TestOutcome


def _tests(outcome: TestOutcome | None) -> str:
    if outcome is None:
        return "not run"
    if outcome.passed:
        return "pass" + (f" ({outcome.summary.splitlines()[0]})" if outcome.summary else "")
    failing = ", ".join(outcome.failing[:5]) or (outcome.summary.splitlines() or ["failed"])[0]
    return f"FAIL: {failing}"


def render_summary(result: RunResult) -> str:
    """A plain-text summary of the run."""
    lines = [f"ensemble run {result.run_id}: {'SUCCESS' if result.success else 'NO PASSING CHANGE'}"]
    if result.replayed:
        lines.append("NOTE: the model replies in this run were REPLAYED from a scripted transcript, not live.")
    lines.append(f"stop reason: {result.stop_reason} ({result.stop_words})")
    if result.stop_detail and result.stop_reason != "accepted":
        lines.append(f"  detail: {result.stop_detail[:300]}")
    for question in result.questions:
        lines.append(f"question: {question}")
    lines.append(f"branch: {result.branch if result.commits else '(not created: no passing change)'}")
    lines += [f"  commit {c['sha'][:10]} {c['summary']}" for c in result.commits]
    if result.environment:
        lines.append(f"environment: {result.environment}")
    lines.append(f"tests before: {_tests(result.tests_before)}")
    lines.append(f"tests after:  {_tests(result.tests_after)}")
    lines += _judgement(result)
    repro = result.reproduction
    if repro and repro.path:
        lines.append(f"reproduction test: {repro.path} (failed before the fix: {_yes(repro.failed_before)}, "
                     f"passes after it: {_yes(repro.passed_after)}){' - ' + repro.note if repro.note else ''}")
    elif repro:
        lines.append(f"reproduction test: none ({repro.note})")
    if result.decision:
        lines.append(f"teams: {result.decision}")
    for refusal in result.refused:
        lines.append(f"refused edit: {refusal[:300]}")
    lines += _spend(result)
    lines.append(f"duration: {result.duration_s:.1f} s")
    if result.trace:
        lines.append(f"trace: {result.trace} (`ensemble report` summarizes it)")
    return "\n".join(lines)


def _judgement(result: RunResult) -> list[str]:
    """Red to green, still red (failed before the change too), and broken tests, as judged against the base."""
    judged = result.judgement
    if judged is None or not judged.per_test:
        pre = result.pre_existing_failures
        return [f"failed before any change (not blocking): {_names(pre)}"] if pre else []
    lines = [f"judged against the base: {judged.reason}"]
    for label, names in (("fixed (red -> green)", judged.fixed), ("still failing (failed before too, not blocking)",
                                                                  judged.still_failing),
                         ("BROKEN (passed before)", judged.broken), ("new tests failing", judged.new_failing)):
        if names:
            lines.append(f"  {label}: {_names(names)}")
    return lines


def _names(names: tuple[str, ...] | list[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _yes(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def _spend(result: RunResult) -> list[str]:
    usage = result.usage or {}
    lines = [f"tokens: {usage.get('input_tokens', 0)} in, {usage.get('output_tokens', 0)} out; "
             f"cost ${usage.get('cost_usd', 0.0):.4f}"]
    for role, spend in (usage.get("by_role") or {}).items():
        lines.append(f"  {role}: {spend.get('calls', 0)} calls, {spend.get('input_tokens', 0)} in, "
                     f"{spend.get('output_tokens', 0)} out, ${spend.get('cost_usd', 0.0):.4f}")
    for fallback in usage.get("fallbacks") or []:
        lines.append(f"  fallback for {fallback.get('role')}: {fallback.get('from')} -> {fallback.get('to')}")
    return lines

"""The figures of the HTML report (and `ensemble report --json`): spend, speed, reliability, phases, outcomes.

Pure functions over the span records `bot.report.load` reads. A run is a run id with an
`ensemble.run` span (or, for a run cut off before it ended, with team or model spans); a
`bench/real_model.py` result arrives as an `ensemble.run` record of its own. Heal attempts are
the Action's `ensemble.event` spans for a failed check (`workflow_run`, `check_suite`).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from bot.report import (
    ENCLOSING_SPANS,
    MODEL_SPAN,
    RUN_SPAN,
    Loaded,
    Record,
    analyze,
    attributes,
    mapping,
    number,
    to_json,
)
from bot.report_ab import compare, wilson

PHASES = ("index", "explore", "plan", "code", "sandbox", "critique", "github", "other")
HEAL_EVENTS = frozenset({"workflow_run", "check_suite"})
RELIABILITY = ("retries", "rate_limited", "fallbacks", "repaired", "unparseable", "failures")


def figures(loaded: Loaded) -> dict[str, Any]:
    """Every figure of the report as JSON-ready data; the text report's keys are kept."""
    report = analyze(loaded.records, files=len(loaded.files), malformed_lines=loaded.malformed)
    data = to_json(report)
    runs = run_rows(loaded.records, loaded.sources)
    data.update(by_role=_totals(data["models"], "role"), by_model=_totals(data["models"], "model"),
                reliability=_reliability(data["models"]), phases=phase_times(loaded.records),
                outcomes=outcomes(runs, loaded.records), run_table=runs, comparison=compare(runs))
    return data


def _totals(models: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Calls, tokens and cost summed per role or per model; latency percentiles stay per model."""
    out: dict[str, dict[str, Any]] = {}
    for m in models:
        name = m[key] if key == "role" else f"{m['provider']}/{m['model']}"
        row = out.setdefault(name, {key: name, "calls": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0})
        for field in ("calls", "tokens_in", "tokens_out", "cost_usd"):
            row[field] += m[field]
        if key == "model":  # the slowest role's percentile: one figure per model for the chart
            for q in ("latency_p50_s", "latency_p95_s"):
                row[q] = max((v for v in (row.get(q), m[q]) if v is not None), default=None)
    return [row | {"cost_usd": round(row["cost_usd"], 6)} for row in out.values()]


def _reliability(models: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Retries, 429s, failovers, repaired and unparseable replies and failed calls per provider and role."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for m in models:
        row = out.setdefault((m["provider"], m["role"]), {"provider": m["provider"], "role": m["role"],
                                                          "calls": 0, **dict.fromkeys(RELIABILITY, 0)})
        for field in ("calls", *RELIABILITY):
            row[field] += m[field]
    return list(out.values())


def phase_of(record: Record) -> str | None:
    """The phase a span's time belongs to; None for spans that enclose others."""
    name, a = str(record.get("name")), attributes(record)
    if name == MODEL_SPAN:
        role = a.get("role")
        if role == "planner":
            return "explore" if a.get("schema") == "explore" else "plan"
        return {"coder": "code", "critic": "critique"}.get(str(role), "other")
    if name in ENCLOSING_SPANS or name == "ensemble.team":
        return None
    if name.startswith(("index.", "insights.")):
        return "index"
    if name.startswith("sandbox."):
        return "sandbox"
    if name.startswith(("git.", "github.")):
        return "github"
    return "other"


def phase_times(records: Iterable[Record]) -> dict[str, float]:
    """Seconds spent per phase over all runs (teams run side by side, so this can exceed wall time)."""
    totals = dict.fromkeys(PHASES, 0.0)
    for record in records:
        phase = phase_of(record)
        if phase is not None:
            totals[phase] += number(record.get("duration_s"))
    return {k: round(v, 3) for k, v in totals.items()}


def run_rows(records: Iterable[Record], sources: dict[str, str]) -> list[dict[str, Any]]:
    """One row per run: task, outcome, cost, tokens, rounds, wall time, settings, pre-existing failures, trace."""
    runs: dict[str, Record] = {}
    spend: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    teams: dict[str, dict[str, float]] = defaultdict(dict)
    baseline: dict[str, list[str]] = {}
    for record in records:
        run_id, name, a = str(record.get("run_id")), record.get("name"), attributes(record)
        if name == RUN_SPAN:
            runs[run_id] = record
        elif name == MODEL_SPAN:
            for i, key in enumerate(("cost_usd", "tokens_in", "tokens_out")):
                spend[run_id][i] += number(a.get(key))
        elif name == "ensemble.team":
            teams[run_id][str(a.get("team"))] = number(a.get("rounds"))
        elif name == "ensemble.baseline" and isinstance(failing := a.get("failing"), list):
            baseline[run_id] = [str(t) for t in failing]
    cut_off = (set(spend) | set(teams)) - set(runs)
    rows = [_row(runs.get(r, {"run_id": r}), spend.get(r), teams.get(r, {}), baseline.get(r), sources.get(r, ""))
            for r in [*runs, *sorted(cut_off)]]
    return rows


def _row(run: Record, spend: list[float] | None, teams: dict[str, float], baseline: list[str] | None,
         source: str) -> dict[str, Any]:
    a = attributes(run)
    complete = "name" in run
    cost, tokens_in, tokens_out = spend or (0.0, number(a.get("tokens_in")), number(a.get("tokens_out")))
    rounds = a.get("rounds")
    if rounds is None and teams:
        rounds = teams.get(str(a.get("winner")), max(teams.values()))
    outcome = ("success" if a.get("success") else str(a.get("stop_reason") or "failed")) if complete else "cut off"
    settings = mapping(a.get("settings"))
    return {"run_id": str(run.get("run_id")), "task": str(a.get("task") or ""), "outcome": outcome,
            "success": bool(a.get("success")), "stop_reason": str(a.get("stop_reason") or ""),
            "cost_usd": round(cost, 6) if spend else None, "tokens_in": int(tokens_in), "tokens_out": int(tokens_out),
            "rounds": None if rounds is None else int(number(rounds)),
            "wall_s": round(number(run.get("duration_s")), 2) if complete else None,
            "reproduction_test": a.get("reproduction_test"), "settings": flatten(settings),
            "baseline_failing": baseline if baseline is not None else _listed(a.get("baseline_failing")),
            "trace": source}


def _listed(value: object) -> list[object]:
    """A bench result's list of tests (none when it recorded none)."""
    return list(value) if isinstance(value, list) else []


def flatten(settings: Record, prefix: str = "") -> Record:
    """Nested settings as dotted keys: {"models": {"coder": m}} -> {"models.coder": m}."""
    out: Record = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def outcomes(runs: list[dict[str, Any]], records: Iterable[Record]) -> dict[str, Any]:
    """Success rate, stop reasons, rounds to green, reproduction tests, heal attempts, pre-existing failures."""
    done = [r for r in runs if r["outcome"] != "cut off"]
    wins = sum(r["success"] for r in done)
    green = [r["rounds"] for r in done if r["success"] and r["rounds"] is not None]
    repro = [r["reproduction_test"] for r in done if r["reproduction_test"] is not None]
    heals = Counter(str(attributes(x).get("result") or "unfinished") for x in records
                    if x.get("name") == "ensemble.event" and attributes(x).get("event") in HEAL_EVENTS)
    return {"runs": len(runs), "finished": len(done), "cut_off": len(runs) - len(done), "successes": wins,
            "success_rate": wins / len(done) if done else None, "success_ci95": list(wilson(wins, len(done))),
            "stop_reasons": dict(Counter(r["outcome"] for r in runs).most_common()),
            "rounds_to_green": dict(sorted(Counter(green).items())),
            "median_rounds_to_green": statistics.median(green) if green else None,
            "reproduction_test_rate": sum(map(bool, repro)) / len(repro) if repro else None,
            "heal_attempts": sum(heals.values()), "heal_results": dict(heals),
            "runs_meeting_preexisting_failures": sum(bool(r["baseline_failing"]) for r in runs),
            "preexisting_failures": dict(Counter(t for r in runs for t in r["baseline_failing"]).most_common(20))}

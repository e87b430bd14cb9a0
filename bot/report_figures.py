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

from bot.report import (
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
from bot.report_data import (
    Figures,
    ModelRow,
    ModelTotals,
    Outcomes,
    ReliabilityKey,
    ReliabilityRow,
    RoleTotals,
    RunRow,
    RunTime,
)
from bot.report_time import run_times

PHASES = ("index", "explore", "plan", "code", "sandbox", "critique", "github", "other")
# the steps of a run (bot/report_time.py) in the report's coarser phases
PHASE_OF_STEP = {"index": "index", "base run": "sandbox", "explore": "explore", "plan": "plan",
                 "first coder call": "code", "coder": "code", "test runs": "sandbox", "critic": "critique",
                 "cross-check": "sandbox", "git": "github", "other": "other"}
HEAL_EVENTS = frozenset({"workflow_run", "check_suite"})
RELIABILITY: tuple[ReliabilityKey, ...] = ("retries", "rate_limited", "fallbacks", "repaired", "unparseable",
                                           "failures")


def figures(loaded: Loaded) -> Figures:
    """Every figure of the report as JSON-ready data; the text report's keys are kept."""
    report = analyze(loaded.records, files=len(loaded.files), malformed_lines=loaded.malformed)
    data = to_json(report)
    runs = run_rows(loaded.records, loaded.sources)
    times = run_times(loaded.records)
    return Figures(**data, by_role=_by_role(data["models"]), by_model=_by_model(data["models"]),
                   reliability=_reliability(data["models"]), phases=phases_of(times), run_times=times,
                   outcomes=outcomes(runs, loaded.records), run_table=runs, comparison=compare(runs))


def _by_role(models: list[ModelRow]) -> list[RoleTotals]:
    """Calls, tokens and cost summed per role."""
    out: dict[str, RoleTotals] = {}
    for m in models:
        row = out.setdefault(m["role"], RoleTotals(role=m["role"], calls=0, tokens_in=0, tokens_out=0, cost_usd=0.0))
        row["calls"] += m["calls"]
        row["tokens_in"] += m["tokens_in"]
        row["tokens_out"] += m["tokens_out"]
        row["cost_usd"] += m["cost_usd"]
    return [row | {"cost_usd": round(row["cost_usd"], 6)} for row in out.values()]


def _by_model(models: list[ModelRow]) -> list[ModelTotals]:
    """Calls, tokens and cost summed per provider/model; latency is the slowest role's percentile (one figure
    per model for the chart)."""
    out: dict[str, ModelTotals] = {}
    for m in models:
        name = f"{m['provider']}/{m['model']}"
        row = out.setdefault(name, ModelTotals(model=name, calls=0, tokens_in=0, tokens_out=0, cost_usd=0.0,
                                               latency_p50_s=None, latency_p95_s=None))
        row["calls"] += m["calls"]
        row["tokens_in"] += m["tokens_in"]
        row["tokens_out"] += m["tokens_out"]
        row["cost_usd"] += m["cost_usd"]
        row["latency_p50_s"] = _slowest(row["latency_p50_s"], m["latency_p50_s"])
        row["latency_p95_s"] = _slowest(row["latency_p95_s"], m["latency_p95_s"])
    return [row | {"cost_usd": round(row["cost_usd"], 6)} for row in out.values()]


def _slowest(a: float | None, b: float | None) -> float | None:
    return max((v for v in (a, b) if v is not None), default=None)


def _reliability(models: list[ModelRow]) -> list[ReliabilityRow]:
    """Retries, 429s, failovers, repaired and unparseable replies and failed calls per provider and role."""
    out: dict[tuple[str, str], ReliabilityRow] = {}
    for m in models:
        row = out.setdefault((m["provider"], m["role"]), ReliabilityRow(
            provider=m["provider"], role=m["role"], calls=0, retries=0, rate_limited=0, fallbacks=0, repaired=0,
            unparseable=0, failures=0))
        row["calls"] += m["calls"]
        for field in RELIABILITY:
            row[field] += m[field]
    return list(out.values())


def phase_times(records: Iterable[Record]) -> dict[str, float]:
    """Seconds spent per phase over all runs (teams run side by side, so this can exceed wall time)."""
    return phases_of(run_times(records))


def phases_of(runs: Iterable[RunTime]) -> dict[str, float]:
    """The runs' steps summed into the report's phases."""
    totals = dict.fromkeys(PHASES, 0.0)
    for run in runs:
        for step, seconds in run["steps"].items():
            totals[PHASE_OF_STEP[step]] += seconds
    return {k: round(v, 3) for k, v in totals.items()}


def run_rows(records: Iterable[Record], sources: dict[str, str]) -> list[RunRow]:
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
         source: str) -> RunRow:
    a = attributes(run)
    complete = "name" in run
    cost, tokens_in, tokens_out = spend or (0.0, number(a.get("tokens_in")), number(a.get("tokens_out")))
    rounds = a.get("rounds")
    if rounds is None and teams:
        rounds = teams.get(str(a.get("winner")), max(teams.values()))
    outcome = ("success" if a.get("success") else str(a.get("stop_reason") or "failed")) if complete else "cut off"
    settings = mapping(a.get("settings"))
    return RunRow(run_id=str(run.get("run_id")), task=str(a.get("task") or ""), outcome=outcome,
                  success=bool(a.get("success")), stop_reason=str(a.get("stop_reason") or ""),
                  cost_usd=round(cost, 6) if spend else None, tokens_in=int(tokens_in), tokens_out=int(tokens_out),
                  rounds=None if rounds is None else int(number(rounds)),
                  wall_s=round(number(run.get("duration_s")), 2) if complete else None,
                  reproduction_test=a.get("reproduction_test"), settings=flatten(settings),
                  baseline_failing=baseline if baseline is not None else _listed(a.get("baseline_failing")),
                  trace=source)


def _listed(value: object) -> list[str]:
    """A bench result's list of tests (none when it recorded none)."""
    return [str(test) for test in value] if isinstance(value, list) else []


def flatten(settings: Record, prefix: str = "") -> Record:
    """Nested settings as dotted keys: {"models": {"coder": m}} -> {"models.coder": m}."""
    out: Record = {}
    for key, value in settings.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def outcomes(runs: list[RunRow], records: Iterable[Record]) -> Outcomes:
    """Success rate, stop reasons, rounds to green, reproduction tests, heal attempts, pre-existing failures."""
    done = [r for r in runs if r["outcome"] != "cut off"]
    wins = sum(r["success"] for r in done)
    green = [r["rounds"] for r in done if r["success"] and r["rounds"] is not None]
    repro = [r["reproduction_test"] for r in done if r["reproduction_test"] is not None]
    heals = Counter(str(attributes(x).get("result") or "unfinished") for x in records
                    if x.get("name") == "ensemble.event" and attributes(x).get("event") in HEAL_EVENTS)
    return Outcomes(runs=len(runs), finished=len(done), cut_off=len(runs) - len(done), successes=wins,
                    success_rate=wins / len(done) if done else None, success_ci95=list(wilson(wins, len(done))),
                    stop_reasons=dict(Counter(r["outcome"] for r in runs).most_common()),
                    rounds_to_green=dict(sorted(Counter(green).items())),
                    median_rounds_to_green=statistics.median(green) if green else None,
                    reproduction_test_rate=sum(map(bool, repro)) / len(repro) if repro else None,
                    heal_attempts=sum(heals.values()), heal_results=dict(heals),
                    runs_meeting_preexisting_failures=sum(bool(r["baseline_failing"]) for r in runs),
                    preexisting_failures=dict(Counter(t for r in runs for t in r["baseline_failing"]).most_common(20)))

"""Model behaviour analysis over run traces: what each role's models cost, how fast and how reliable.

Reads the `llm.complete` spans the model query manager writes, the `ensemble.run` spans of the
runner and the `ensemble.update` spans of pull request updates (bot/ensemble/update.py: listed with
the runs, saying whether they were clean, resolved conflicts or were left to a human), and aggregates
per role and model: calls, failures, tokens, cost, latency percentiles,
cache hits, retries, repaired and unparseable structured replies, and fallbacks; and per role, the share of
prompt tokens the provider served from its prefix cache and, where the server says (llama.cpp's `timings`), the
seconds it spent reading prompts and writing replies (a hosted API says neither: shown as unknown). The other
operations (index, sandbox, git, GitHub API) are totalled per span name, so a slow run shows
where its time went. Pure functions over span records; `load_traces` is the only I/O.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bot.errors import UsageError
from bot.report_data import ModelRow, OperationRow, PromptCacheRow, ReportData, RunSummary
from bot.trace import TRACE_FILE

MODEL_SPAN = "llm.complete"
RUN_SPAN = "ensemble.run"
UPDATE_SPAN = "ensemble.update"
# Spans that enclose others: their time is the sum of their children's, so it is not totalled again.
ENCLOSING_SPANS = frozenset({RUN_SPAN, UPDATE_SPAN, "ensemble.team", "ensemble.event", "ensemble.engine",
                             "ensemble.baseline"})
# A trace line or a bench result as read: JSON from files of any age, so every value is checked before use
Record = dict[str, object]


@dataclass
class ModelStats:
    """Aggregates for one (role, provider, model)."""

    role: str
    provider: str
    model: str
    calls: int = 0
    failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    cost_usd: float = 0.0
    cache_hits: int = 0
    retries: int = 0
    rate_limited: int = 0  # 429s: retried, or the reason a call failed over
    repaired: int = 0
    unparseable: int = 0
    fallbacks: int = 0
    replayed: int = 0
    timed: int = 0  # calls whose server said how long it read the prompt and wrote the reply
    prompt_s: float = 0.0
    reply_s: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def add(self, record: Record) -> None:
        a = attributes(record)
        self.calls += 1
        self.failures += record.get("status") == "error"
        self.tokens_in += int(number(a.get("tokens_in")))
        self.tokens_out += int(number(a.get("tokens_out")))
        self.tokens_cached += int(number(a.get("tokens_cached")))
        self.cost_usd += number(a.get("cost_usd"))
        self.cache_hits += bool(a.get("cache_hit"))
        self.retries += int(number(a.get("retries")))
        failovers = a.get("failovers")
        failovers = failovers if isinstance(failovers, list) else []
        self.rate_limited += int(number(a.get("rate_limited"))) + sum("RateLimited" in str(f) for f in failovers)
        self.repaired += bool(a.get("repaired"))
        self.unparseable += "raw_repair_reply" in a
        self.fallbacks += bool(a.get("fallback_from"))
        self.replayed += bool(a.get("replayed"))
        if "prompt_s" in a and "reply_s" in a:
            self.timed += 1
            self.prompt_s += number(a["prompt_s"])
            self.reply_s += number(a["reply_s"])
        if a.get("latency_s") is not None and not a.get("cache_hit"):
            self.latencies.append(number(a["latency_s"]))

    def latency(self, quantile: float) -> float | None:
        """The latency at `quantile` (0.5 for the median) over live calls, or None without any."""
        if not self.latencies:
            return None
        if len(self.latencies) == 1:
            return self.latencies[0]
        cuts = statistics.quantiles(self.latencies, n=100, method="inclusive")
        return cuts[min(98, max(0, round(quantile * 100) - 1))]


@dataclass
class OperationStats:
    """Totals for one kind of operation (a span name such as `sandbox.run` or `git.push`)."""

    name: str
    count: int = 0
    errors: int = 0
    total_s: float = 0.0
    longest_s: float = 0.0

    def add(self, record: Record) -> None:
        duration = number(record.get("duration_s"))
        self.count += 1
        self.errors += record.get("status") == "error"
        self.total_s += duration
        self.longest_s = max(self.longest_s, duration)


@dataclass
class Report:
    """Everything `ensemble report` prints."""

    files: int
    runs: list[RunSummary]
    models: list[ModelStats]
    malformed_lines: int
    operations: list[OperationStats] = field(default_factory=list)


def load_traces(paths: Iterable[Path]) -> tuple[list[Path], list[Record], int]:
    """Trace files found under `paths` (files or folders), their span records, and malformed lines."""
    loaded = load(paths)
    return loaded.files, loaded.records, loaded.malformed


@dataclass
class Loaded:
    """What `load` read: span records (bench results become `ensemble.run` records) and where each run is."""

    files: list[Path]
    records: list[Record]
    malformed: int
    sources: dict[str, str]  # run id -> the trace (or results) file it came from


def load(paths: Iterable[Path]) -> Loaded:
    """Read trace files, folders searched for them, and `bench/real_model.py --json` results files."""
    paths = list(paths)
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.rglob(TRACE_FILE)))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{path}: no such trace file or folder; traces are under .ensemble/runs/<run-id>/")
    if not files:
        raise UsageError(f"no {TRACE_FILE} found under {', '.join(map(str, paths))}")
    loaded = Loaded(files, [], 0, {})
    for file in files:
        text = file.read_text(encoding="utf-8", errors="replace")
        results = _bench_results(text) if file.suffix == ".json" else None
        if results is not None:
            for index, result in enumerate(results):
                run_id = f"{file.stem}:{index}"
                loaded.records.append(bench_run(result, run_id))
                loaded.sources[run_id] = str(result.get("trace") or file)
            continue
        for line in text.splitlines():
            record = _span_record(line)
            if record is not None:
                loaded.records.append(record)
                loaded.sources.setdefault(str(record.get("run_id")), str(file))
            elif line.strip():
                loaded.malformed += 1
    return loaded


def _span_record(line: str) -> Record | None:
    try:
        record = json.loads(line) if line.strip() else None
    except json.JSONDecodeError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get("name"), str) else None


def _bench_results(text: str) -> list[Record] | None:
    """The records of a real-model bench results file, or None when `text` is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(data, list) and all(isinstance(r, dict) and "task" in r for r in data):
        return data
    return None


def bench_run(result: Record, run_id: str) -> Record:
    """One `bench/real_model.py` result as an `ensemble.run` record; its model and settings make A/B sides."""
    model = str(result.get("model") or "?")
    settings: dict[str, object] = {f"models.{role}": f"openai/{model}" for role in ("planner", "coder", "critic")}
    settings["base_url"] = result.get("base_url")
    settings.update({k: v for k, v in mapping(result.get("settings")).items() if k != "engine"})
    tokens, before = mapping(result.get("tokens")), mapping(result.get("tests_before"))
    failing = before.get("failing")
    crashed = result.get("crash") and not result.get("stop_reason")
    return {"run_id": run_id, "name": RUN_SPAN, "duration_s": number(result.get("wall_s")),
            "status": "error" if crashed else "ok",
            "attributes": {"task": result.get("task"), "success": bool(result.get("solved")),
                           "stop_reason": result.get("stop_reason") or ("crash" if crashed else ""),
                           "rounds": result.get("rounds"), "settings": settings,
                           "tokens_in": number(tokens.get("input")), "tokens_out": number(tokens.get("output")),
                           "baseline_failing": failing if isinstance(failing, list) else [], "bench": True}}


def attributes(record: Record) -> Record:
    """A record's attributes; an older or damaged record without a mapping has none."""
    return mapping(record.get("attributes"))


def mapping(value: object) -> Record:
    """`value` when it is a mapping, else an empty one (older traces, damaged records)."""
    return value if isinstance(value, dict) else {}


def number(value: object) -> float:
    """`value` as a number; missing or garbled values (older traces) count as 0."""
    if not isinstance(value, int | float | str):  # what JSON holds: a number, or a number written as text
        return 0.0
    try:
        return float(value or 0)
    except ValueError:
        return 0.0


def analyze(records: Iterable[Record], files: int = 1, malformed_lines: int = 0) -> Report:
    """Aggregate span records into per-model statistics and per-run outcomes."""
    stats: dict[tuple[str, str, str], ModelStats] = {}
    operations: dict[str, OperationStats] = {}
    runs: list[RunSummary] = []
    for record in records:
        a = attributes(record)
        name = str(record.get("name"))
        if name == MODEL_SPAN:
            key = (str(a.get("role", "?")), str(a.get("provider", "?")), str(a.get("model", "?")))
            stats.setdefault(key, ModelStats(*key)).add(record)
        elif name == RUN_SPAN:
            runs.append(RunSummary(run_id=record.get("run_id"), duration_s=record.get("duration_s"),
                                   status=record.get("status"), stop_reason=a.get("stop_reason"),
                                   winner=a.get("winner"), success=a.get("success")))
        elif name == UPDATE_SPAN:
            runs.append(RunSummary(run_id=record.get("run_id"), duration_s=record.get("duration_s"),
                                   status=record.get("status"), stop_reason=update_words(a), winner=None,
                                   success=a.get("outcome") in ("updated", "up-to-date")))
        if name != MODEL_SPAN and name not in ENCLOSING_SPANS:
            operations.setdefault(name, OperationStats(name)).add(record)
    ordered = sorted(stats.values(), key=lambda s: (_role_order(s.role), s.provider, s.model))
    busiest = sorted(operations.values(), key=lambda o: (-o.total_s, o.name))
    return Report(files, runs, ordered, malformed_lines, busiest)


def update_words(a: Record) -> str:
    """An update in a few words: `update (merge): updated, conflicts in calc.py resolved in 1 attempt(s)`."""
    outcome = str(a.get("outcome") or "unfinished")
    conflicts = a.get("conflicts")
    files = ", ".join(map(str, conflicts)) if isinstance(conflicts, list) and conflicts else ""
    if not files:
        how = "clean" if outcome != "up-to-date" else ""
    elif a.get("resolved"):
        how = f"conflicts in {files} resolved in {int(number(a.get('rounds')))} attempt(s)"
    else:
        how = f"conflicts in {files} not resolved"
    return f"update ({a.get('strategy') or '?'}): {outcome}" + (f", {how}" if how else "")


def _role_order(role: str) -> int:
    return {"planner": 0, "coder": 1, "critic": 2}.get(role, 3)


def _fmt_latency(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"


def render(report: Report) -> str:
    """A table a person reads."""
    lines = [f"{report.files} trace file(s), {len(report.runs)} run(s)"]
    for run in report.runs:
        lines.append(f"  run {run['run_id']}: {run.get('stop_reason') or run['status']}"
                     f" (winner {run.get('winner') or '-'}, {number(run.get('duration_s')):.1f}s)")
    if not report.models:
        lines.append("no model calls recorded")
    else:
        header = ("role", "provider/model", "calls", "fail", "tok in", "tok out", "cost $", "p50", "p95",
                  "cache", "retry", "repair", "bad", "fallbk")
        rows = [header] + [(
            s.role, f"{s.provider}/{s.model}" + (" (replayed)" if s.replayed else ""), str(s.calls), str(s.failures),
            str(s.tokens_in), str(s.tokens_out), f"{s.cost_usd:.4f}", _fmt_latency(s.latency(0.5)),
            _fmt_latency(s.latency(0.95)), str(s.cache_hits), str(s.retries), str(s.repaired), str(s.unparseable),
            str(s.fallbacks)) for s in report.models]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
        total = sum(s.cost_usd for s in report.models)
        lines.append(f"total cost ${total:.4f} over {sum(s.calls for s in report.models)} call(s)")
        lines += render_prompt_cache(prompt_cache(report.models))
    if report.operations:
        lines.append("time by operation (model calls above):")
        op_rows = [("operation", "count", "errors", "total", "longest")]
        op_rows += [(o.name, str(o.count), str(o.errors), f"{o.total_s:.2f}s", f"{o.longest_s:.2f}s")
                    for o in report.operations]
        widths = [max(len(row[i]) for row in op_rows) for i in range(5)]
        lines += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in op_rows]
    if report.malformed_lines:
        lines.append(f"warning: skipped {report.malformed_lines} malformed trace line(s)")
    return "\n".join(lines)


def prompt_cache(models: Iterable[ModelStats]) -> list[PromptCacheRow]:
    """Per role, all its models together: the prompt tokens served from cache, and the servers' time split."""
    by_role: dict[str, list[ModelStats]] = {}
    for s in models:
        by_role.setdefault(s.role, []).append(s)
    rows = []
    for role, stats in sorted(by_role.items(), key=lambda item: _role_order(item[0])):
        tokens_in, cached = sum(s.tokens_in for s in stats), sum(s.tokens_cached for s in stats)
        timed = sum(s.timed for s in stats)
        rows.append(PromptCacheRow(
            role=role, calls=sum(s.calls for s in stats), tokens_in=tokens_in, tokens_cached=cached,
            cached_share=round(cached / tokens_in, 4) if tokens_in else None, timed_calls=timed,
            prompt_s=round(sum(s.prompt_s for s in stats), 3) if timed else None,
            reply_s=round(sum(s.reply_s for s in stats), 3) if timed else None))
    return rows


def render_prompt_cache(rows: list[PromptCacheRow]) -> list[str]:
    """The per-role table of prompt tokens from cache and the time reading prompts versus writing replies."""
    def share(row: PromptCacheRow) -> str:
        return "-" if row["cached_share"] is None else f"{100 * row['cached_share']:.0f}%"

    def seconds(value: float | None, row: PromptCacheRow) -> str:
        if value is None:
            return "unknown"
        return f"{value:.2f}s" + (f" ({row['timed_calls']} of {row['calls']} calls)"
                                  if row["timed_calls"] < row["calls"] else "")

    table = [("role", "tok in", "from cache", "share", "reading prompts", "writing replies")]
    table += [(r["role"], str(r["tokens_in"]), str(r["tokens_cached"]), share(r), seconds(r["prompt_s"], r),
               seconds(r["reply_s"], r)) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["prompt tokens served from the provider's cache, and the server's time reading prompts and writing "
             "replies (unknown where the server does not say: hosted APIs), per role:"]
    return lines + ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table]


def to_json(report: Report) -> ReportData:
    """The report as JSON-ready data, with latency percentiles instead of raw samples."""
    models = [ModelRow(role=s.role, provider=s.provider, model=s.model, calls=s.calls, failures=s.failures,
                       tokens_in=s.tokens_in, tokens_out=s.tokens_out, tokens_cached=s.tokens_cached,
                       cost_usd=round(s.cost_usd, 6), cache_hits=s.cache_hits, retries=s.retries,
                       rate_limited=s.rate_limited, repaired=s.repaired, unparseable=s.unparseable,
                       fallbacks=s.fallbacks, replayed=s.replayed, latency_p50_s=s.latency(0.5),
                       latency_p95_s=s.latency(0.95), prompt_s=round(s.prompt_s, 3) if s.timed else None,
                       reply_s=round(s.reply_s, 3) if s.timed else None) for s in report.models]
    operations = [OperationRow(name=o.name, count=o.count, errors=o.errors, total_s=round(o.total_s, 3),
                               longest_s=round(o.longest_s, 3)) for o in report.operations]
    return ReportData(files=report.files, runs=report.runs, models=models, prompt_cache=prompt_cache(report.models),
                      operations=operations, malformed_lines=report.malformed_lines)


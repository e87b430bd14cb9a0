"""The shapes of `ensemble report --json`: each figure the report computes, as the JSON it prints.

`bot/report.py` reads trace lines and bench results (untyped JSON, checked value by value) and
fills `ReportData`; `bot/report_figures.py` adds the figures of the HTML report (`Figures`), which
`bot/report_html.py` draws. The keys and their order are what scripts reading `--json` see.
"""

from __future__ import annotations

from typing import Literal, TypedDict

# The reliability figures, counted per model row and summed per provider and role
ReliabilityKey = Literal["retries", "rate_limited", "fallbacks", "repaired", "unparseable", "failures"]


class RunSummary(TypedDict):
    """One run as its `ensemble.run` span recorded it (values as written, from traces of any age)."""

    run_id: object
    duration_s: object
    status: object
    stop_reason: object
    winner: object
    success: object


class ModelRow(TypedDict):
    """Calls, spend, reliability and latency of one (role, provider, model)."""

    role: str
    provider: str
    model: str
    calls: int
    failures: int
    tokens_in: int
    tokens_out: int
    tokens_cached: int
    cost_usd: float
    cache_hits: int
    retries: int
    rate_limited: int
    repaired: int
    unparseable: int
    fallbacks: int
    replayed: int
    latency_p50_s: float | None
    latency_p95_s: float | None
    prompt_s: float | None  # seconds the server said it spent reading prompts (None: no call said)
    reply_s: float | None  # and writing replies


class PromptCacheRow(TypedDict):
    """One role's prompt tokens served from the provider's cache, and its servers' split of their time."""

    role: str
    calls: int
    tokens_in: int
    tokens_cached: int
    cached_share: float | None  # tokens_cached / tokens_in (None: no prompt tokens)
    timed_calls: int  # calls whose server said how it spent its time (llama.cpp's `timings`)
    prompt_s: float | None  # seconds reading prompts over the timed calls (None: no call was timed)
    reply_s: float | None  # seconds writing replies over the timed calls


class OperationRow(TypedDict):
    """Time spent in one kind of operation (a span name)."""

    name: str
    count: int
    errors: int
    total_s: float
    longest_s: float


class ReportData(TypedDict):
    """What the text report shows, as data."""

    files: int
    runs: list[RunSummary]
    models: list[ModelRow]
    prompt_cache: list[PromptCacheRow]
    operations: list[OperationRow]
    malformed_lines: int


class RunTime(TypedDict):
    """Where one run's time went: seconds per step (bot/report_time.py), and what no span covers."""

    run_id: str
    wall_s: float
    teams: int
    steps: dict[str, float]
    untraced_s: float


class RoleTotals(TypedDict):
    """Calls, tokens and cost of one role, all models together."""

    role: str
    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float


class ModelTotals(TypedDict):
    """Calls, tokens and cost of one provider/model, with its slowest role's latency percentiles."""

    model: str
    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    latency_p50_s: float | None
    latency_p95_s: float | None


class ReliabilityRow(TypedDict):
    """Retries, 429s, failovers, repaired and unparseable replies and failed calls of one provider and role."""

    provider: str
    role: str
    calls: int
    retries: int
    rate_limited: int
    fallbacks: int
    repaired: int
    unparseable: int
    failures: int


class RunRow(TypedDict):
    """One row of the run table: a finished run, or one cut off before it ended."""

    run_id: str
    task: str
    outcome: str  # "success", the stop reason, or "cut off"
    success: bool
    stop_reason: str
    cost_usd: float | None  # None: no model call recorded
    tokens_in: int
    tokens_out: int
    rounds: int | None
    wall_s: float | None  # None: cut off
    reproduction_test: object
    settings: dict[str, object]  # flattened to dotted keys
    baseline_failing: list[str]
    trace: str


class Outcomes(TypedDict):
    """Success rate, stop reasons, rounds to green, reproduction tests, heal attempts, pre-existing failures."""

    runs: int
    finished: int
    cut_off: int
    successes: int
    success_rate: float | None
    success_ci95: list[float]
    stop_reasons: dict[str, int]
    rounds_to_green: dict[int, int]
    median_rounds_to_green: float | None
    reproduction_test_rate: float | None
    heal_attempts: int
    heal_results: dict[str, int]
    runs_meeting_preexisting_failures: int
    preexisting_failures: dict[str, int]


class Side(TypedDict):
    """One side of an A/B comparison: the runs sharing the settings that differ."""

    label: str
    settings: dict[str, object]
    runs: int
    successes: int
    success_rate: float
    ci95: list[float]
    median_cost_usd: float | None
    median_rounds: float | None
    median_wall_s: float | None


class Comparison(TypedDict):
    """The A/B comparison: the settings that differ, the sides, and a verdict per pair of sides."""

    differs_in: list[str]
    sides: list[Side]
    sides_left_out: int
    runs_without_settings: int
    verdicts: list[str]


class Figures(ReportData):
    """Every figure of the HTML report (and of `ensemble report --json`)."""

    by_role: list[RoleTotals]
    by_model: list[ModelTotals]
    reliability: list[ReliabilityRow]
    phases: dict[str, float]
    run_times: list[RunTime]
    outcomes: Outcomes
    run_table: list[RunRow]
    comparison: Comparison | None

"""Where a run's time went: each span of a trace put in one step of a run, per run.

The steps are those a solved task passes through: indexing, the base run (the tests before any change),
the planner's exploration and plan, the coder's first call and its later ones, the teams' test runs,
the critic, the teams' cross-checks of each other's change, git, and anything else. A span counts once,
at the outermost span that is not an enclosing one (the run, a team, the base run: their time is their
children's); whatever runs under the base run or a cross-check is that step's, test or not. Teams run
side by side, so a run's steps can add up to more than its wall time; what no span covers (prompt
building, the judge's reading of results, the engine's own Python) is `untraced`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from bot.report import ENCLOSING_SPANS, MODEL_SPAN, RUN_SPAN, Record, attributes, number
from bot.report_data import RunTime

BASE_SPAN, CROSS_CHECK_SPAN, TEAM_SPAN = "ensemble.baseline", "ensemble.corroborate", "ensemble.team"
STEPS = ("index", "base run", "explore", "plan", "first coder call", "coder", "test runs", "critic", "cross-check",
         "git", "other")
# a role's model calls; the coder's first call is told apart from its others
ROLE_STEPS = {"planner": "plan", "coder": "coder", "critic": "critic"}
UNDER_STEPS = {BASE_SPAN: "base run", CROSS_CHECK_SPAN: "cross-check"}  # all under these spans is theirs


def step_of(record: Record, outer: str | None) -> str:
    """The step a counted span's time belongs to; `outer` is the step of a base run or cross-check it is in."""
    name, a = str(record.get("name")), attributes(record)
    if outer is not None:
        return outer
    if name == MODEL_SPAN:
        if a.get("role") == "planner" and a.get("schema") == "explore":
            return "explore"
        return ROLE_STEPS.get(str(a.get("role")), "other")
    if name in UNDER_STEPS:
        return UNDER_STEPS[name]
    if name.startswith(("index.", "insights.")):
        return "index"
    if name.startswith("sandbox."):
        return "test runs"
    if name.startswith(("git.", "github.")):
        return "git"
    return "other"


def run_times(records: Iterable[Record]) -> list[RunTime]:
    """Seconds per step for every run with a counted span, in the order the runs first appear."""
    runs: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        runs[str(record.get("run_id"))].append(record)
    out = [_run_time(run_id, spans) for run_id, spans in runs.items()]
    return [run for run in out if any(run["steps"].values())]


def _run_time(run_id: str, spans: list[Record]) -> RunTime:
    by_id = {str(s.get("span_id")): s for s in spans if s.get("span_id")}
    steps = dict.fromkeys(STEPS, 0.0)
    coder_calls = sorted((number(s.get("start")), i) for i, s in enumerate(spans)
                         if s.get("name") == MODEL_SPAN and attributes(s).get("role") == "coder")
    first_coder = coder_calls[0][1] if coder_calls else None
    for i, record in enumerate(spans):
        counted, outer = _placement(record, by_id)
        if not counted:
            continue
        step = step_of(record, outer)
        steps["first coder call" if i == first_coder and outer is None else step] += number(record.get("duration_s"))
    run = next((s for s in spans if s.get("name") == RUN_SPAN), None)
    wall = number(run.get("duration_s")) if run is not None else _extent(spans)
    teams = sum(1 for s in spans if s.get("name") == TEAM_SPAN)
    return RunTime(run_id=run_id, wall_s=round(wall, 3), teams=teams,
                   steps={k: round(v, 3) for k, v in steps.items()},
                   untraced_s=round(max(0.0, wall - sum(steps.values())), 3))


def _placement(record: Record, by_id: dict[str, Record]) -> tuple[bool, str | None]:
    """Whether the span is counted (no span above it but enclosing ones), and the step of the base run it is in."""
    if record.get("name") in ENCLOSING_SPANS:
        return False, None
    counted, outer, seen = True, None, set()
    parent = by_id.get(str(record.get("parent_id")))
    while parent is not None and id(parent) not in seen:
        seen.add(id(parent))
        name = str(parent.get("name"))
        counted = counted and name in ENCLOSING_SPANS
        outer = outer or UNDER_STEPS.get(name)
        parent = by_id.get(str(parent.get("parent_id")))
    return counted, outer


def _extent(spans: list[Record]) -> float:
    """The wall time a run cut off before its run span covers: its first start to its last end."""
    starts = [number(s.get("start")) for s in spans]
    ends = [number(s.get("start")) + number(s.get("duration_s")) for s in spans]
    return max(ends) - min(starts) if spans else 0.0


def render_run_times(runs: list[RunTime]) -> list[str]:
    """A table of seconds per step, one row per run, and a last row with each step's share of all wall time."""
    if not runs:
        return []
    used = [step for step in STEPS if any(run["steps"][step] for run in runs)]
    header = ["run", "teams", "wall", *used, "untraced"]
    rows = [header] + [[str(run["run_id"]), str(run["teams"]), f"{run['wall_s']:.1f}",
                        *(f"{run['steps'][s]:.1f}" for s in used), f"{run['untraced_s']:.1f}"] for run in runs]
    wall = sum(run["wall_s"] for run in runs)
    if wall > 0:
        shares = [sum(run["steps"][s] for run in runs) for s in used] + [sum(r["untraced_s"] for r in runs)]
        rows.append(["share of wall", "", "100%", *(f"{100 * v / wall:.0f}%" for v in shares)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["where the time went, per run (seconds; teams work side by side, so steps may add up to more "
             "than the wall time):"]
    lines += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return lines

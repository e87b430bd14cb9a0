"""The report as one static HTML file: charts drawn by matplotlib (Agg) as inline SVG, no scripts, no network.

`render_html(figures)` takes what `bot.report_figures.figures` returns. A chart with nothing to
show is left out with a line saying so, so every chart in the file has data in it.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UsageError
from bot.report_data import Figures, Outcomes, ReliabilityKey, RunRow

if TYPE_CHECKING:  # matplotlib is the `report` extra, imported when a chart is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

CSS = """body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1,h2{font-weight:600}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;
text-align:left}th{background:#f3f3f3}.chart{margin:1em 0}.note{color:#555}.warn{color:#a40}
.ok{color:#070}.scroll{max-height:600px;overflow:auto}"""
COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")


def render_html(figures: Figures) -> str:
    """The whole report page."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("the HTML report draws its charts with matplotlib: pip install 'ensemble-bot[report]'") from None
    matplotlib.use("Agg")
    o = figures["outcomes"]
    parts = [f"<h1>ensemble report</h1><p>{figures['files']} file(s), {o['runs']} run(s), "
             f"{o['cut_off']} cut off before they ended.</p>"]
    if figures["malformed_lines"]:
        parts.append(f"<p class=warn>Skipped {figures['malformed_lines']} truncated or corrupt trace line(s).</p>")
    parts += [_spend(figures), _reliability(figures), _phases(figures), _outcomes(o), _comparison(figures),
              _runs(figures["run_table"])]
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><title>ensemble report</title>"
            f"<style>{CSS}</style></head><body>{''.join(parts)}</body></html>\n")


def _spend(f: Figures) -> str:
    roles, models = f["by_role"], f["by_model"]
    latency = [m for m in models if m.get("latency_p50_s") is not None]
    return "<h2>Tokens, cost and latency</h2>" + "".join([
        _chart("tokens by role", [r["role"] for r in roles],
               {"input": [r["tokens_in"] for r in roles], "output": [r["tokens_out"] for r in roles]}, stacked=True),
        _chart("tokens by model", [m["model"] for m in models],
               {"input": [m["tokens_in"] for m in models], "output": [m["tokens_out"] for m in models]}, stacked=True),
        _chart("cost by role (USD)", [r["role"] for r in roles], {"cost": [r["cost_usd"] for r in roles]}),
        _chart("cost by model (USD)", [m["model"] for m in models], {"cost": [m["cost_usd"] for m in models]}),
        _chart("latency per model (s)", [m["model"] for m in latency],
               {"p50": [m["latency_p50_s"] for m in latency], "p95": [m["latency_p95_s"] for m in latency]}),
        _table(["role", "provider/model", "calls", "failed", "tokens in", "tokens out", "cost $", "p50 s", "p95 s"],
               [[m["role"], f"{m['provider']}/{m['model']}", m["calls"], m["failures"], m["tokens_in"],
                 m["tokens_out"], f"{m['cost_usd']:.4f}", _num(m["latency_p50_s"]), _num(m["latency_p95_s"])]
                for m in f["models"]])])


def _reliability(f: Figures) -> str:
    rows = f["reliability"]
    names: dict[ReliabilityKey, str] = {"retries": "retries", "rate_limited": "429s", "fallbacks": "failovers",
                                        "repaired": "repaired", "unparseable": "unparseable",
                                        "failures": "failed calls"}
    return "<h2>Reliability per provider and role</h2>" + _chart(
        "retries, 429s, failovers, repaired and unparseable replies", [f"{r['provider']}/{r['role']}" for r in rows],
        {label: [r[key] for r in rows] for key, label in names.items()}) + _table(
        ["provider", "role", "calls", *names.values()],
        [[r["provider"], r["role"], r["calls"], *(r[k] for k in names)] for r in rows])


def _phases(f: Figures) -> str:
    phases = {k: v for k, v in f["phases"].items() if v}
    return ("<h2>Time by phase</h2><p class=note>Seconds summed over spans; teams work side by side, so the "
            "total can exceed wall time.</p>" + _chart("time by phase (s)", list(phases),
                                                       {"seconds": list(phases.values())}, horizontal=True))


def _outcomes(o: Outcomes) -> str:
    rate = "-" if o["success_rate"] is None else f"{o['success_rate']:.0%}"
    lo, hi = o["success_ci95"]
    repro = "-" if o["reproduction_test_rate"] is None else f"{o['reproduction_test_rate']:.0%}"
    heals = ", ".join(f"{k}: {v}" for k, v in o["heal_results"].items()) or "none recorded"
    rows: list[list[object]] = [["success rate", f"{rate} ({o['successes']}/{o['finished']}; 95% interval {lo:.0%}-{hi:.0%})"],
            ["median rounds to green", _num(o["median_rounds_to_green"])],
            ["runs that wrote a reproduction test", repro],
            ["heal attempts", f"{o['heal_attempts']} ({heals})"],
            ["runs meeting pre-existing failures", o["runs_meeting_preexisting_failures"]]]
    failing = "".join(f"<li>{html.escape(t)} ({n})</li>" for t, n in o["preexisting_failures"].items())
    green = o["rounds_to_green"]
    return ("<h2>Outcomes</h2>" + _table(["", ""], rows)
            + _chart("stop reasons", list(o["stop_reasons"]), {"runs": list(o["stop_reasons"].values())})
            + _chart("rounds to green", [str(k) for k in green], {"runs": list(green.values())})
            + (f"<p>Tests failing before any change:</p><ul>{failing}</ul>" if failing else ""))


def _comparison(f: Figures) -> str:
    c = f["comparison"]
    if c is None:
        return "<h2>A/B comparison</h2><p class=note>The runs do not differ in any recorded setting.</p>"
    sides = c["sides"]
    rows = [[s["label"], s["runs"], f"{s['success_rate']:.0%}", f"{s['ci95'][0]:.0%}-{s['ci95'][1]:.0%}",
             _num(s["median_cost_usd"]), _num(s["median_rounds"]), _num(s["median_wall_s"])] for s in sides]
    notes = "".join(f"<li>{html.escape(v)}</li>" for v in c["verdicts"])
    if c["runs_without_settings"]:
        notes += f"<li>{c['runs_without_settings']} run(s) recorded no settings and are left out.</li>"
    return (f"<h2>A/B comparison</h2><p>The runs differ in {html.escape(', '.join(c['differs_in']))}.</p>"
            + _table(["side", "runs", "success", "95% interval", "median cost $", "median rounds", "median wall s"],
                     rows)
            + _chart("success rate with 95% interval", [s["label"] for s in sides],
                     {"success rate": [s["success_rate"] for s in sides]},
                     errors=[(s["success_rate"] - s["ci95"][0], s["ci95"][1] - s["success_rate"]) for s in sides])
            + f"<ul>{notes}</ul>")


def _runs(runs: list[RunRow]) -> str:
    rows = [[r["run_id"], r["task"][:80], r["outcome"], _num(r["cost_usd"]), _num(r["wall_s"]),
             _link(r["trace"])] for r in runs]
    return "<h2>Runs</h2><div class=scroll>" + _table(
        ["run", "task", "outcome", "cost $", "wall s", "trace"], rows, raw_last=True) + "</div>"


def _link(path: str) -> str:
    if not path:
        return ""
    target = Path(path)
    href = target.resolve().as_uri() if target.exists() or target.is_absolute() else html.escape(path)
    return f'<a href="{html.escape(href)}">{html.escape(target.name)}</a>'


def _num(value: float | int | None) -> str:
    return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[object]], raw_last: bool = False) -> str:
    def cells(row: Sequence[object]) -> str:
        out = [f"<td>{html.escape(str(c))}</td>" for c in row]
        if raw_last and row:
            out[-1] = f"<td>{row[-1]}</td>"  # already-escaped markup (a link)
        return "".join(out)

    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    return f"<table><tr>{head}</tr>" + "".join(f"<tr>{cells(r)}</tr>" for r in rows) + "</table>"


def _chart(title: str, labels: list[str], series: Mapping[str, Sequence[float | None]], stacked: bool = False,
           horizontal: bool = False, errors: list[tuple[float, float]] | None = None) -> str:
    """A bar chart as inline SVG, or a note when there is nothing to draw."""
    if not labels or not any(v for values in series.values() for v in values):
        return f"<p class=note>{html.escape(title)}: nothing recorded.</p>"
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 0.5 + 0.4 * len(labels)) if horizontal else (9, 3.6))
    try:
        _bars(ax, labels, series, stacked, horizontal, errors)
        ax.set_title(title)
        if len(series) > 1:
            ax.legend(fontsize=8)
        fig.tight_layout()
        return f'<div class=chart data-chart="{html.escape(title)}">{_svg(fig, title)}</div>'
    finally:
        plt.close(fig)


def _bars(ax: Axes, labels: list[str], series: Mapping[str, Sequence[float | None]], stacked: bool, horizontal: bool,
          errors: list[tuple[float, float]] | None) -> None:
    positions = range(len(labels))
    width = 0.8 if stacked else 0.8 / len(series)
    bottom = [0.0] * len(labels)
    for i, (name, values) in enumerate(series.items()):
        offset = [p if stacked else p - 0.4 + width * (i + 0.5) for p in positions]
        heights = [v or 0 for v in values]
        error = list(zip(*errors, strict=True)) if errors else None
        if horizontal:
            ax.barh(offset, heights, height=width, left=bottom, label=name, color=COLORS[i % len(COLORS)])
        else:
            ax.bar(offset, heights, width=width, bottom=bottom, label=name, color=COLORS[i % len(COLORS)],
                   yerr=error, capsize=6 if error else 0)
        if stacked:
            bottom = [b + v for b, v in zip(bottom, heights, strict=True)]
    short = [label if len(label) <= 32 else label[:30] + "…" for label in labels]
    if horizontal:
        ax.set_yticks(list(positions), short)
    else:
        ax.set_xticks(list(positions), short, rotation=20 if len(labels) > 3 else 0, ha="right" if len(labels) > 3 else "center", fontsize=8)


def _svg(fig: Figure, salt: str) -> str:
    """The figure as an <svg> element: no XML prolog, doctype or metadata (they name external URLs)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.DOTALL)

"""A/B comparison of runs that differ in a setting: sides, success rates with 95% Wilson intervals, a verdict.

The settings are those each run recorded (`ensemble.run`'s `settings`, or a bench result's model
and settings), flattened to dotted keys. The keys whose values differ between runs define the
sides; runs that recorded no settings (older traces) stay out of the comparison and are counted.
A difference is called meaningful only when the two 95% intervals do not overlap: conservative,
and easy to say in one sentence.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics

from bot.report_data import Comparison, RunRow, Side

Z95 = 1.959964
MAX_SIDES = 8


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for `successes` out of `n` ((0, 1) when there are no runs)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def compare(runs: list[RunRow]) -> Comparison | None:
    """Sides and verdicts when the finished runs differ in a recorded setting, else None."""
    recorded = [r for r in runs if r["settings"] and r["outcome"] != "cut off"]
    keys = sorted({k for r in recorded for k in r["settings"]})
    differs = [k for k in keys if len({_key(r["settings"].get(k)) for r in recorded}) > 1]
    if not differs:
        return None
    groups: dict[tuple[str, ...], list[RunRow]] = {}
    for run in recorded:
        groups.setdefault(tuple(_key(run["settings"].get(k)) for k in differs), []).append(run)
    sides = sorted((_side(differs, members) for members in groups.values()), key=lambda s: (-s["runs"], s["label"]))
    shown = sides[:MAX_SIDES]
    return Comparison(differs_in=differs, sides=shown, sides_left_out=len(sides) - len(shown),
                      runs_without_settings=len(runs) - len(recorded),
                      verdicts=[verdict(a, b) for a, b in itertools.combinations(shown, 2)])


def _key(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _median(values: list[float | int | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 6) if present else None


def _side(differs: list[str], members: list[RunRow]) -> Side:
    settings = {k: members[0]["settings"].get(k) for k in differs}
    wins = sum(r["success"] for r in members)
    return Side(label=", ".join(f"{k}={v}" for k, v in settings.items()), settings=settings,
                runs=len(members), successes=wins, success_rate=wins / len(members),
                ci95=list(wilson(wins, len(members))), median_cost_usd=_median([r["cost_usd"] for r in members]),
                median_rounds=_median([r["rounds"] for r in members]),
                median_wall_s=_median([r["wall_s"] for r in members]))


def verdict(a: Side, b: Side) -> str:
    """A plain sentence: is the difference in success rate between sides `a` and `b` meaningful?"""
    head = (f"{a['label']} vs {b['label']}: {a['successes']}/{a['runs']} ({a['success_rate']:.0%}) vs "
            f"{b['successes']}/{b['runs']} ({b['success_rate']:.0%}) succeeded")
    (a_lo, a_hi), (b_lo, b_hi) = a["ci95"], b["ci95"]
    if a_lo <= b_hi and b_lo <= a_hi:
        return (f"{head}; the 95% intervals overlap, so the difference is not meaningful with "
                f"{a['runs']} and {b['runs']} runs.")
    better = a if a["success_rate"] > b["success_rate"] else b
    return (f"{head}; the 95% intervals do not overlap, so the difference is meaningful: "
            f"{better['label']} succeeds more often.")

"""The spend ledger's data: what runs reserved and charged across jobs, what that adds up to, and whether a run fits.

Pure: the ledger file's text in, totals and decisions out. The file (`ledger.jsonl` on the bot's own branch
`ensemble/ledger`, kept by actions/ledger.py) holds one JSON object a line, appended, never rewritten:

    {"id": "5001-1a2b", "kind": "reserve", "issue": 3, "day": "2026-11-25", "usd": 2.0, "run": "5001", "at": "..."}
    {"id": "5001-1a2b", "kind": "settle", "usd": 0.0123, "at": "..."}

A run counts at its reservation until it is settled, then at what its models charged. A reservation that is never
settled (its job was killed) keeps counting at its reserved amount, on its day and its issue: the run's engine was
capped at that amount, so it cannot have charged more, and it may have charged all of it; counting it as 0 would let
a killed job's spending slip past the caps. Nothing is locked, so it blocks no one; the day's count starts afresh at
midnight UTC, and a maintainer who knows better raises `budget.issue_usd`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass

log = logging.getLogger(__name__)
LEDGER_BRANCH, LEDGER_FILE = "ensemble/ledger", "ledger.jsonl"  # where the ledger lives in the repository
RESERVE, SETTLE = "reserve", "settle"


@dataclass(frozen=True)
class Entry:
    """One line of the ledger: a run's reservation (with its issue and UTC day) or its settlement."""

    id: str
    kind: str
    usd: float
    issue: int | None = None
    day: str = ""
    run: str = ""
    at: str = ""

    def line(self) -> str:
        """The entry as one JSON line (keys without a value left out)."""
        return json.dumps({k: v for k, v in asdict(self).items() if v not in (None, "")}, sort_keys=False) + "\n"


@dataclass(frozen=True)
class Charge:
    """One run as the ledger counts it: its issue, its day, the dollars counted, and whether they are final."""

    issue: int | None
    day: str
    usd: float
    settled: bool


@dataclass(frozen=True)
class Totals:
    """What the ledger adds up to for one issue and one day; `open_usd` is the part still reserved by unsettled runs."""

    day: str
    day_usd: float
    issue: int | None
    issue_usd: float
    open_usd: float


@dataclass(frozen=True)
class Refusal:
    """Why a run may not start: the cap it would pass (`issue_usd` or `day_usd`), its value, the spend already
    counted under it (of which `open_usd` is reserved by runs not yet settled) and what the run would reserve."""

    cap: str
    limit: float
    spent: float
    open_usd: float
    reserve: float


def read_entries(text: str) -> list[Entry]:
    """The entries of the ledger file; a line that is not an entry is skipped with a warning (the branch is the
    bot's own, but anyone with push access could write to it)."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            entries.append(Entry(str(data["id"]), str(data["kind"]), float(data["usd"]), _issue(data.get("issue")),
                                 str(data.get("day", "")), str(data.get("run", "")), str(data.get("at", ""))))
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("ledger line %d is not an entry (%s); it is not counted", number, exc)
    return entries


def _issue(value: object) -> int | None:
    return None if value is None else int(str(value))


def charges(entries: Iterable[Entry]) -> dict[str, Charge]:
    """Each run's charge by id: its reservation's issue and day, at its settled amount once settled."""
    runs: dict[str, Charge] = {}
    settled: dict[str, float] = {}
    for entry in entries:
        if entry.kind == RESERVE and entry.id not in runs:
            runs[entry.id] = Charge(entry.issue, entry.day, entry.usd, False)
        elif entry.kind == SETTLE:
            settled[entry.id] = entry.usd
    return {key: Charge(c.issue, c.day, settled[key], True) if key in settled else c for key, c in runs.items()}


def totals(entries: Iterable[Entry], day: str, issue: int | None = None) -> Totals:
    """The spend counted on `day` (a UTC date, YYYY-MM-DD) and on `issue` (any day)."""
    runs = charges(entries)
    on_day = {key for key, c in runs.items() if c.day == day}
    on_issue = {key for key, c in runs.items() if issue is not None and c.issue == issue}
    open_usd = sum(runs[key].usd for key in on_day | on_issue if not runs[key].settled)
    return Totals(day, round(sum(runs[key].usd for key in on_day), 6), issue,
                  round(sum(runs[key].usd for key in on_issue), 6), round(open_usd, 6))


def refusal(entries: Iterable[Entry], day: str, issue: int, reserve: float, issue_usd: float | None,
            day_usd: float | None) -> Refusal | None:
    """The cap a reservation of `reserve` dollars for `issue` on `day` would pass (the issue's first), else None."""
    runs = list(charges(entries).values())
    for cap, limit, counted in (("issue_usd", issue_usd, [c for c in runs if c.issue == issue]),
                                ("day_usd", day_usd, [c for c in runs if c.day == day])):
        spent = sum(c.usd for c in counted)
        if limit is not None and spent + reserve > limit + 1e-9:
            return Refusal(cap, limit, round(spent, 6), round(sum(c.usd for c in counted if not c.settled), 6), reserve)
    return None


def left_under_caps(counted: Totals, issue_usd: float | None, day_usd: float | None) -> float | None:
    """The dollars left under the tighter of the two caps (None when neither is set)."""
    pairs = ((issue_usd, counted.issue_usd), (day_usd, counted.day_usd))
    left = [cap - spent for cap, spent in pairs if cap is not None]
    return max(0.0, min(left)) if left else None

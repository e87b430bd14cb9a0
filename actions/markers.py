"""Hidden markers in the bot's own comments: `<!-- ensemble:<kind> {json} -->`. Pure functions.

Markers carry the state that makes handlers idempotent (which run owns a progress comment,
which comment was already answered, how many heal attempts were made). Only markers in
comments written by the bot are trusted: anyone can type a marker into their own comment.
Even there, only the markers that end the comment count: the bot writes its markers last,
while the text before them (a plan, planner questions, an error, a CI log) may hold
marker-shaped text that a model wrote or an issue smuggled in, which GitHub would not even
show. `inert()` makes such text visible and unreadable as a marker before it is posted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TypedDict, cast

_MARKER = re.compile(r"<!-- ensemble:(?P<kind>[a-z][a-z0-9-]*)(?: (?P<data>\{.*?\}))? -->", re.DOTALL)


class RunRecord(TypedDict, total=False):
    """What a run puts on record in its progress marker as it goes (`ProgressComment.update`)."""

    stage: str  # "pushed", "pr" or "questions" once the run got there
    head: str  # the pushed head, when stage is "pushed"
    title: str
    pr_body: str
    partial: bool
    pr: int
    reviews: int  # an update: the reviews the pull request had then (`max_updates_per_pr` counts updates between them)
    updated: bool  # an update: True once it pushed


class ProgressState(RunRecord, total=False):
    """The `progress` marker: one run's state, kept on its progress comment so a re-run job can resume it."""

    run: str  # Context.run_key of the job
    issue: int
    by: str  # who asked for the run
    done: list[str]  # the checklist's stages ticked (render.STAGES, or render.UPDATE_STAGES for an update)
    note: str
    trigger: str  # Event.delivery of the event that started it
    kind: str  # "update" for an update of a pull request onto its moved base; absent for a run


class Evidence(TypedDict, total=False):
    """The `evidence` marker that ends the bot's pull request body: what its judgement rests on, so an update can
    judge the branch again on a new base."""

    fixed: list[str]  # the tests the change turned green
    reproduction: str  # its reproduction test ('' without one)
    base: str  # the base commit it was last judged on ('' until an update)
    updates: int  # the updates so far


class HealAttempt(TypedDict):
    """One fix self-healing pushed: what it was for, and the head it left ('' when nothing was pushed)."""

    what: str
    sha: str


class HealState(TypedDict):
    """The `heal` marker on a pull request: what self-healing did there so far."""

    attempts: int
    signatures: list[str]  # the failures a fix was tried for
    reruns: list[str]  # the failures whose checks were re-run once
    rerun_checks: dict[str, list[str]]  # failure key -> the checks re-run for it
    tried: list[HealAttempt]
    escalated: str  # the head handed to a human ('' when not)


def progress_state(data: Mapping[str, object]) -> ProgressState:
    """A `progress` marker's data as the bot wrote it (only the bot's own comments are read for markers)."""
    return cast(ProgressState, dict(data))


def evidence(data: Mapping[str, object] | None) -> Evidence | None:
    """An `evidence` marker's data, its lists and counts checked (None without a marker: a body it never ended)."""
    if data is None:
        return None
    fixed = data.get("fixed")
    updates = data.get("updates")
    return Evidence(fixed=[str(name) for name in fixed] if isinstance(fixed, list) else [],
                    reproduction=str(data.get("reproduction") or ""), base=str(data.get("base") or ""),
                    updates=updates if isinstance(updates, int) else 0)


def heal_state(data: Mapping[str, object]) -> HealState:
    """The `heal` marker's data over a fresh state: a marker written before a field existed lacks it."""
    fresh = HealState(attempts=0, signatures=[], reruns=[], rerun_checks={}, tried=[], escalated="")
    return cast(HealState, fresh | dict(data))


def marker(kind: str, data: Mapping[str, object] | None = None) -> str:
    """The hidden marker text for `kind` with optional JSON `data`."""
    if data is None:
        return f"<!-- ensemble:{kind} -->"
    encoded = json.dumps(data, sort_keys=True, separators=(",", ":"))
    encoded = encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("--", "-\\u002d")
    return f"<!-- ensemble:{kind} {encoded} -->"


def inert(text: str) -> str:
    """`text` with every HTML comment opener broken (a zero-width space), so it renders as text and
    can never be read as a marker."""
    return text.replace("<!--", "<!-\u200b-")


def _closing_markers(body: str) -> list[re.Match[str]]:
    """The markers that end `body`: the last one, and those before it with only whitespace between."""
    body = body or ""
    found: list[re.Match[str]] = []
    end = len(body.rstrip())
    for match in reversed(list(_MARKER.finditer(body))):
        if body[match.end():end].strip():
            break
        found.insert(0, match)
        end = match.start()
    return found


def _closing_marker(body: str, kind: str) -> re.Match[str] | None:
    return next((m for m in reversed(_closing_markers(body)) if m["kind"] == kind), None)


def read_marker(body: str, kind: str) -> dict[str, object] | None:
    """The data of the `kind` marker among those that end `body` ({} when it has none), or None."""
    match = _closing_marker(body, kind)
    if match is None:
        return None
    if not match["data"]:
        return {}
    try:
        data = json.loads(match["data"])
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def without_markers(body: str) -> str:
    """`body` without the markers that end it (the text a person sees)."""
    found = _closing_markers(body)
    return body[: found[0].start()].rstrip() if found else body


def has_marker(body: str) -> bool:
    """True when `body` carries any ensemble marker (so it is one of the bot's comments)."""
    return bool(_MARKER.search(body or ""))


def replace_marker(body: str, kind: str, data: Mapping[str, object] | None) -> str:
    """`body` with its closing `kind` marker replaced by one carrying `data` (appended if it has none)."""
    new = marker(kind, data)
    match = _closing_marker(body, kind)
    if match is not None:
        return body[: match.start()] + new + body[match.end():]
    return (body.rstrip("\n") + "\n" if body else "") + new

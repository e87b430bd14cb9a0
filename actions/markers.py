"""Hidden markers in the bot's own comments: `<!-- ensemble:<kind> {json} -->`. Pure functions.

Markers carry the state that makes handlers idempotent (which run owns a progress comment,
which comment was already answered, how many heal attempts were made). Only markers in
comments written by the bot are trusted: anyone can type a marker into their own comment.
"""

from __future__ import annotations

import json
import re
from typing import Any

_MARKER = re.compile(r"<!-- ensemble:(?P<kind>[a-z][a-z0-9-]*)(?: (?P<data>\{.*?\}))? -->", re.DOTALL)


def marker(kind: str, data: dict[str, Any] | None = None) -> str:
    """The hidden marker text for `kind` with optional JSON `data`."""
    if data is None:
        return f"<!-- ensemble:{kind} -->"
    encoded = json.dumps(data, sort_keys=True, separators=(",", ":"))
    encoded = encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("--", "-\\u002d")
    return f"<!-- ensemble:{kind} {encoded} -->"


def read_marker(body: str, kind: str) -> dict[str, Any] | None:
    """The data of the first `kind` marker in `body` ({} when it has none), or None when absent."""
    for match in _MARKER.finditer(body or ""):
        if match["kind"] == kind:
            if not match["data"]:
                return {}
            try:
                data = json.loads(match["data"])
            except json.JSONDecodeError:
                return {}
            return data if isinstance(data, dict) else {}
    return None


def has_marker(body: str) -> bool:
    """True when `body` carries any ensemble marker (so it is one of the bot's comments)."""
    return bool(_MARKER.search(body or ""))


def replace_marker(body: str, kind: str, data: dict[str, Any] | None) -> str:
    """`body` with its `kind` marker replaced by one carrying `data` (appended if absent)."""
    new = marker(kind, data)
    for match in _MARKER.finditer(body or ""):
        if match["kind"] == kind:
            return body[: match.start()] + new + body[match.end():]
    return (body.rstrip("\n") + "\n" if body else "") + new

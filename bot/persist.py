"""The one way the bot writes what it learned to disk: redacted first, then replaced atomically.

Reply cache entries, lessons, the step summary and outputs, HTML reports: each goes through
`write_text`, `write_json` or `append_text`, which mask every secret the process knows of and
every token shape (bot/redact.py) before a byte is written. Traces redact through their own
`Redactor`, which masks the same registered values. A whole file is replaced through the one
atomic writer (common/atomic.py), so a reader (or a crash) sees the old file or the new.
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.redact import process_redactor
from common.atomic import write_atomic


def write_text(path: Path, text: str) -> None:
    """Replace `path` with the redacted `text`, atomically (parents created)."""
    _replace(path, process_redactor().text(text).encode("utf-8"))


def write_json(path: Path, value: object) -> None:
    """Replace `path` with `value` as JSON, every string in it redacted, atomically."""
    _replace(path, json.dumps(process_redactor().value(value), ensure_ascii=False).encode("utf-8"))


def _replace(path: Path, data: bytes) -> None:
    """Write `data` atomically (common/atomic.py), readable by the owner alone as before."""
    write_atomic(path, data, mode=0o600)


def append_text(path: Path, text: str) -> None:
    """Append the redacted `text` to `path` (files such as GITHUB_STEP_SUMMARY are shared, never replaced)."""
    with open(path, "a", encoding="utf-8") as out:
        out.write(process_redactor().text(text))

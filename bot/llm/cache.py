"""A content-addressed disk cache of model replies, under `.ensemble/cache/llm/`.

The key is a SHA-256 of the provider, model, messages, schema and parameters, so any change
in the prompt misses. Writes go to a temporary file that is then renamed into place, which
makes them atomic for concurrent threads and processes: a reader sees a whole entry or none.
A size cap evicts the least recently used entries (reads refresh an entry's mtime). Entries are
written through bot/persist.py, so a reply that echoes a secret is stored with it masked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NotRequired

from pydantic import TypeAdapter, ValidationError

# pydantic reads a TypedDict only from typing_extensions before Python 3.12
from typing_extensions import TypedDict

from bot.llm.types import JsonObject, Message
from bot.persist import write_json

log = logging.getLogger(__name__)


class CachedReply(TypedDict):
    """One stored reply: what the manager needs to answer from the cache without asking the model."""

    text: str
    data: JsonObject | None
    request_id: str | None
    provider: str
    model: str
    finish_reason: NotRequired[str]  # entries written before these were kept have neither
    truncated: NotRequired[bool]


_ENTRY = TypeAdapter(CachedReply)

CACHE_SUBDIR = Path(".ensemble") / "cache" / "llm"
FORMAT_VERSION = 1


def cache_key(provider: str, model: str, messages: Sequence[Message], schema: str | None,
              params: Mapping[str, object]) -> str:
    """The SHA-256 hex digest identifying one request."""
    payload = {"v": FORMAT_VERSION, "provider": provider, "model": model, "schema": schema, "params": params,
               "messages": [[m.role, m.content] for m in messages]}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ReplyCache:
    """Entries are JSON files `<dir>/<key[:2]>/<key>.json`; safe across threads and processes."""

    def __init__(self, directory: Path, max_bytes: int = 200 * 1024 * 1024):
        self.directory = directory
        self.max_bytes = max_bytes

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        """The stored entry, or None (also for an unreadable entry, which is then ignored)."""
        path = self._path(key)
        try:
            entry = _ENTRY.validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValidationError) as exc:  # a cut write, another version's entry, a hand edit
            log.warning("ignoring unreadable cache entry %s: %s", path, exc)
            return None
        with contextlib.suppress(OSError):  # someone else's entry, or a read-only cache: still a hit
            os.utime(path)  # recently used entries are evicted last
        return entry

    def put(self, key: str, entry: CachedReply) -> None:
        """Store `entry` atomically, then evict old entries if the cache is over its cap."""
        write_json(self._path(key), entry)  # redacted: a reply that echoes a secret is stored masked
        self.prune()

    def prune(self) -> int:
        """Delete least recently used entries until the total size is under the cap; returns how many."""
        entries = []
        for path in self.directory.glob("*/*.json"):
            if path.name.startswith(".tmp-"):
                continue  # a write in progress (another thread or process) is not an entry yet
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue  # another process evicted it
            entries.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        removed = 0
        for _, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size
            removed += 1
        return removed

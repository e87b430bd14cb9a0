"""What model servers refused, remembered per server and model, in the process and across runs.

A server that refuses a feature of a request (the `json_schema` response format, then `json_object`;
stop sequences) is asked without it from then on, so only the first request ever pays for the refusal.
The memory is the process's, and the user's cache keeps it for the next run
(`$XDG_CACHE_HOME/ensemble-bot/servers.json`): every run on a llama.cpp server would otherwise start
with one refused planner or critic request.

An entry is kept for `REMEMBER_DAYS`: a server that was upgraded, or a model that was swapped for one
that accepts the feature, is asked with it again within a week, and a server that still refuses costs
one refused request a week. Several runs may learn at once: a write reads the file again, merges what
it holds (the newest of each entry wins) and replaces it atomically. A file that cannot be read or is
not what this module writes is ignored with a warning (the next write replaces it); one that cannot be
written leaves the memory in the process.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.persist import write_json
from common.userdirs import user_cache_dir

log = logging.getLogger(__name__)

FILE_NAME = "servers.json"
VERSION = 1
REMEMBER_DAYS = 7
STOP = "stop"  # the feature name of stop sequences; response formats go by their own names

Key = tuple[str, str, str]  # server (its URL without credentials), model, feature


def memory_file() -> Path:
    """Where the refusals are kept across runs: `$XDG_CACHE_HOME/ensemble-bot/servers.json`."""
    return user_cache_dir() / FILE_NAME


class Refusals:
    """The refusals one process knows: read from `path()` on first use, written back on every new one."""

    def __init__(self, path: Callable[[], Path] = memory_file, clock: Callable[[], float] = time.time,
                 keep_s: float = REMEMBER_DAYS * 86400):
        self.path, self.clock, self.keep_s = path, clock, keep_s
        self._learned: dict[Key, float] = {}  # -> when it was learned (seconds since the epoch)
        self._loaded = False
        self._lock = threading.Lock()

    def refused(self, server: str, model: str) -> frozenset[str]:
        """The features `server` refused for `model` within the last `REMEMBER_DAYS`."""
        with self._lock:
            if not self._loaded:
                self._learned = _newest(self._learned, self._read())
                self._loaded = True
            since = self.clock() - self.keep_s
            return frozenset(f for (s, m, f), at in self._learned.items() if (s, m) == (server, model) and at > since)

    def learn(self, server: str, model: str, feature: str) -> None:
        """Remember that `server` refused `feature` for `model`, here and in the file."""
        with self._lock:
            self._learned[(server, model, feature)] = self.clock()
            merged = _newest(self._read(), self._learned)
            self._learned = merged
            self._write(merged)

    def forget(self) -> None:
        """Forget what this process learned; the next question reads the file again, as a new process would."""
        with self._lock:
            self._learned.clear()
            self._loaded = False

    def _read(self) -> dict[Key, float]:
        path = self.path()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("ignoring %s: cannot read it (%s); what servers refused is learned again", path, exc)
            return {}
        try:
            return self._fresh(_entries(json.loads(text)))
        except ValueError as exc:
            log.warning("ignoring %s: %s; it is replaced when a server next refuses a request "
                        "(delete it to start afresh)", path, exc)
            return {}

    def _fresh(self, learned: dict[Key, float]) -> dict[Key, float]:
        since = self.clock() - self.keep_s
        return {key: at for key, at in learned.items() if at > since}

    def _write(self, learned: dict[Key, float]) -> None:
        path = self.path()
        entries = [{"server": s, "model": m, "refused": f, "at": round(at, 3)}
                   for (s, m, f), at in sorted(self._fresh(learned).items())]
        try:
            write_json(path, {"version": VERSION, "refused": entries})
        except OSError as exc:
            log.warning("cannot write %s (%s); what servers refused is remembered for this run only", path, exc)


def _entries(data: object) -> dict[Key, float]:
    """The entries of the file's JSON; ValueError says what is wrong with it."""
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("refused"), list):
        raise ValueError(f'expected {{"version": {VERSION}, "refused": [...]}}')
    learned: dict[Key, float] = {}
    for entry in data["refused"]:
        fields = [entry.get(k) for k in ("server", "model", "refused")] if isinstance(entry, dict) else []
        at = entry.get("at") if isinstance(entry, dict) else None
        if len(fields) != 3 or not all(isinstance(f, str) for f in fields) or not isinstance(at, int | float):
            raise ValueError(f"an entry is not {{server, model, refused, at}}: {json.dumps(entry)[:200]}")
        learned[(str(fields[0]), str(fields[1]), str(fields[2]))] = float(at)
    return learned


def _newest(*sources: dict[Key, float]) -> dict[Key, float]:
    """Every entry of `sources`, each with its latest time."""
    merged: dict[Key, float] = {}
    for source in sources:
        for key, at in source.items():
            merged[key] = max(at, merged.get(key, at))
    return merged


_process = Refusals()


def refused(server: str, model: str) -> frozenset[str]:
    """The features `server` refused for `model` lately, as this process and earlier runs learned."""
    return _process.refused(server, model)


def learn_refusal(server: str, model: str, feature: str) -> None:
    """Remember, here and for later runs, that `server` refused `feature` for `model`."""
    _process.learn(server, model, feature)


def forget_refusals() -> None:
    """Forget what this process learned (the file stays; it is read again, as by a new process)."""
    _process.forget()

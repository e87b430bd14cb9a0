"""Insights: notes the two teams share during a run, and lessons kept across runs.

`InsightBoard` is in memory: after each round a team posts what it tried, what failed and the
key error (`insight`, one line on the round); the other team's planner and coder read the notes
they have not seen. `InsightStore` is `.ensemble/insights.jsonl`: one lesson per run, bounded, retrieved by similarity through the
indexer's embedder (or by word overlap when no embedder is available). Writers hold a file lock
beside the store (`insights.jsonl.lock`), so runs in other processes on the same checkout add
their lessons in turn instead of overwriting each other's.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.ensemble.types import Review, Round
from bot.persist import write_text
from bot.redact import clip

if TYPE_CHECKING:  # numpy comes with the engine extra; the arrays are the indexer's embedder's
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)
STORE_FILE = "insights.jsonl"
MAX_LESSONS = 200
LOCK_TIMEOUT_S = 60.0  # another run's write takes milliseconds; a minute means a stuck process
# texts -> one vector per text: the indexer's embedder's float32 rows, or plain lists (a test's embedder)
Embed = Callable[[list[str]], "NDArray[np.float32] | Sequence[Sequence[float]]"]
NO_REVIEW = Review(None)


def insight(rnd: Round) -> str:
    """One line on the round for the other teams and for re-planning."""
    if not rnd.applied:
        return f"round {rnd.number}: edits did not apply ({clip(rnd.edit_errors, 160)})"
    if rnd.compile_error:
        return f"round {rnd.number}: compile error {clip(rnd.compile_error, 160)}"
    state = "tests pass" if rnd.good else f"tests fail: {clip(rnd.signature, 160)}"
    review = rnd.review or NO_REVIEW
    return f"round {rnd.number}: {state}; critic {review.verdict or '-'}: {clip(review.feedback, 160)}"


class InsightBoard:
    """Thread-safe notes between teams of one run."""

    def __init__(self) -> None:
        self._notes: list[tuple[str, str]] = []
        self._seen: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def publish(self, team: str, note: str) -> None:
        """Post `team`'s note for the others."""
        with self._lock:
            self._notes.append((team, note))

    def unseen(self, team: str, reader: str = "") -> list[str]:
        """Notes from other teams that `reader` (a role) of `team` has not read yet.

        Each role keeps its own place: the coder reading the notes every round does not
        use them up for the planner when it re-plans.
        """
        with self._lock:
            start = self._seen.get((team, reader), 0)
            self._seen[(team, reader)] = len(self._notes)
            return [f"team {who}: {note}" for who, note in self._notes[start:] if who != team]

    def all_notes(self) -> list[str]:
        """Every note, for the trace."""
        with self._lock:
            return [f"team {who}: {note}" for who, note in self._notes]


@dataclass
class Lesson:
    """What one run taught: the task, how it ended, what worked and what failed."""

    task: str
    outcome: str
    worked: str = ""
    failed: str = ""
    time: float = field(default_factory=time.time)
    vector: list[float] | None = None

    def text(self) -> str:
        """The lesson as one line for a prompt."""
        parts = [f"task: {clip(self.task, 160)}", f"outcome: {self.outcome}"]
        parts += [f"worked: {clip(self.worked, 200)}"] if self.worked else []
        parts += [f"failed: {clip(self.failed, 200)}"] if self.failed else []
        return "; ".join(parts)


class InsightStore:
    """Lessons in `<repo>/.ensemble/insights.jsonl`, newest kept when the cap is reached."""

    def __init__(self, path: Path, embed: Embed | None = None, limit: int = MAX_LESSONS):
        self.path = path
        self.embed = embed
        self.limit = limit
        self._lock = threading.Lock()

    def load(self) -> list[Lesson]:
        """Every readable lesson (a damaged line is skipped)."""
        if not self.path.is_file():
            return []
        lessons = []
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                lessons.append(Lesson(**json.loads(line)))
            except (json.JSONDecodeError, TypeError):
                log.warning("skipping a damaged line in %s", self.path)
        return lessons

    def add(self, lesson: Lesson) -> bool:
        """Append a lesson, dropping the oldest beyond the cap (an atomic, redacted rewrite under the file lock).

        A lesson is worth less than the run that learnt it: a full disk or a lock held too long
        is logged and the lesson dropped (False); the store stays as it was.
        """
        from filelock import FileLock, Timeout

        if self.embed and lesson.vector is None:
            lesson.vector = [round(float(x), 4) for x in self.embed([lesson.task])[0]]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._lock, FileLock(f"{self.path}.lock", timeout=LOCK_TIMEOUT_S):
                lessons = (self.load() + [lesson])[-self.limit:]
                write_text(self.path, "".join(json.dumps(asdict(x)) + "\n" for x in lessons))
        except (OSError, Timeout) as exc:
            log.warning("could not keep this run's lesson in %s (%s); the store is unchanged", self.path, exc)
            return False
        return True

    def relevant(self, task: str, k: int = 3) -> list[Lesson]:
        """The `k` lessons most similar to `task`."""
        lessons = self.load()
        if not lessons:
            return []
        if self.embed and all(x.vector for x in lessons):
            query = list(self.embed([task])[0])
            scores = [sum(a * b for a, b in zip(query, x.vector or [], strict=False)) for x in lessons]
        else:
            words = _words(task)
            scores = [len(words & _words(x.task)) / (len(words | _words(x.task)) or 1) for x in lessons]
        ranked = sorted(zip(scores, range(len(lessons)), strict=True), reverse=True)
        return [lessons[i] for score, i in ranked[:k] if score > 0]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9_]{3,}", text.lower()))

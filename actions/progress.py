"""One progress comment per run, updated in place; and the watcher that notices `/ensemble stop`.

The progress comment is keyed by the Actions run id (GITHUB_RUN_ID), so a re-run job finds
and reuses its comment instead of posting a second one. Its hidden marker carries the run's
state (stages done, who asked, the PR body once pushed) so a killed run can resume.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from typing import Unpack

from actions.commands import Command, parse_command
from actions.context import Context
from actions.github import ForgeError
from actions.markers import ProgressState, RunRecord, progress_state
from actions.render import PHASE_TO_STAGE, STAGES, progress_body

log = logging.getLogger(__name__)
CLOCK_SKEW = timedelta(minutes=5)


class ProgressComment:
    """The checklist comment of one run on one issue."""

    def __init__(self, ctx: Context, issue: int, by: str):
        self.ctx = ctx
        self.issue = issue
        self.id: int | None = None
        self.reused = False  # True on a re-run of the same job: the comment is the earlier attempt's
        self.state = ProgressState(run=ctx.run_key, issue=issue, by=by, done=[], note="",
                                   trigger=ctx.event.delivery)
        self._lock = threading.Lock()

    def open(self, note: str = "Starting.") -> None:
        """Reuse this run's comment if it exists (a re-run job), else post it."""
        for comment, data in self.ctx.own_markers(self.issue, "progress"):
            if data.get("run") == self.ctx.run_key:
                found = progress_state(data)
                self.id, self.state = comment.id, found | {"by": self.state["by"] or found.get("by", "")}
                self.reused = True
        self.state["note"] = note
        if self.id is None:
            self.id = self.ctx.forge.comment(self.issue, progress_body(self.state))
        else:
            self._write()

    def on_progress(self, team: str, phase: str, rnd: int, detail: str) -> None:
        """The engine's progress callback: tick the stages up to this phase."""
        stage = PHASE_TO_STAGE.get(phase)
        if stage:
            self.done(stage)

    def done(self, stage: str, note: str | None = None) -> None:
        """Tick `stage` and every stage before it; update the comment only when something changed."""
        keys = [key for key, _ in STAGES]
        wanted = set(keys[: keys.index(stage) + 1])
        with self._lock:
            before = (set(self.state["done"]), self.state["note"])
            self.state["done"] = [k for k in keys if k in wanted | set(self.state["done"])]
            if note is not None:
                self.state["note"] = note
            if (set(self.state["done"]), self.state["note"]) != before:
                self._write()

    def update(self, note: str, **state: Unpack[RunRecord]) -> None:
        """Change the note and any state fields."""
        with self._lock:
            self.state = {**self.state, **state, "note": note}
            self._write()

    def _write(self) -> None:
        """Rewrite the whole comment; a failed edit is logged and the run goes on (the next edit
        carries everything this one would have)."""
        if self.id is None:
            return
        try:
            self.ctx.forge.edit_comment(self.issue, self.id, progress_body(self.state))
        except ForgeError as exc:
            log.warning("could not update the progress comment on #%s (%s); the run goes on", self.issue, exc)


class StopWatcher:
    """Polls the issue (and PR) for a `/ensemble stop` from someone allowed, and sets `event`."""

    def __init__(self, ctx: Context, numbers: tuple[int, ...], after_id: int):
        self.ctx = ctx
        self.numbers = numbers
        self.after_id = after_id
        # Only comments written since the run began are read on each poll, however long the thread
        # (with a margin for a runner's clock running ahead of GitHub's).
        self.since = datetime.now(UTC) - CLOCK_SKEW
        self.event = threading.Event()
        self.by = ""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="stop-watcher", daemon=True)

    def __enter__(self) -> StopWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._done.wait(self.ctx.stop_poll_s):
            try:
                if self.check():
                    return
            except Exception as exc:  # noqa: BLE001 - a failed poll must not end the run
                log.warning("could not check for /ensemble stop: %s", exc)

    def check(self) -> bool:
        """Look once; True (and the event set) when a stop was asked for."""
        for number in self.numbers:
            for comment in self.ctx.forge.comments(number, since=self.since):
                if comment.id <= self.after_id or self.ctx.is_own(comment):
                    continue
                if parse_command(comment.body) == Command("stop") and self.ctx.may_trigger(comment.login):
                    self.by = comment.login
                    self.event.set()
                    return True
        return False

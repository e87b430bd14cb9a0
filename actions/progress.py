"""One progress comment per run, updated in place; and the watcher that notices `/ensemble stop`.

The progress comment is keyed by the Actions run id (GITHUB_RUN_ID), so a re-run job finds
and reuses its comment instead of posting a second one. Its hidden marker carries the run's
state (stages done, who asked, the PR body once pushed) so a killed run can resume. Edits are
coalesced (`PROGRESS_EVERY_S`) and an unchanged rendering is never sent.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Unpack

from actions.commands import Command, parse_command
from actions.context import Context
from actions.github import GitHubError
from actions.markers import ProgressState, RunRecord, progress_state
from actions.render import PHASE_TO_STAGE, UPDATE_PHASE_TO_STAGE, progress_body, stages_of

log = logging.getLogger(__name__)
CLOCK_SKEW = timedelta(minutes=5)
# The checklist is edited at most this often while the engine works. Its stages take minutes with real
# models, so a tick shown up to half a minute late tells a reader nothing they could act on sooner, while
# a burst of ticks (fast replies, a re-plan) becomes one edit. Every edit counts against the token's
# rate limit (the Actions GITHUB_TOKEN has 1,000 requests an hour per repository, shared by every run
# there), and stays far below GitHub's secondary limit on content-creating requests (80 a minute) even
# with many runs at once. What a reader must see at once (a question, a stop, a failure, the state a
# re-run resumes from, the pull request) is written at once (`ProgressComment.update`), and whatever is
# still waiting when the run ends (`flush`).
PROGRESS_EVERY_S = 30.0


class ProgressComment:
    """The checklist comment of one run on one issue.

    The engine's ticks come in bursts (seconds apart when the model answers fast), so they are coalesced:
    the comment is edited at most once per `every_s`, a tick waiting for the next free moment, and never
    when the rendered text is what GitHub already shows. `update` (an outcome, or state a re-run resumes
    from) is written at once; `flush`, when the run ends, writes whatever is still waiting.
    """

    def __init__(self, ctx: Context, issue: int, by: str, every_s: float = PROGRESS_EVERY_S, kind: str = ""):
        self.ctx = ctx
        self.issue = issue
        self.id: int | None = None
        self.reused = False  # True on a re-run of the same job: the comment is the earlier attempt's
        self.state = ProgressState(run=ctx.run_key, issue=issue, by=by, done=[], note="",
                                   trigger=ctx.event.delivery)
        if kind:  # "update": the checklist of an update of a pull request (render.UPDATE_STAGES)
            self.state["kind"] = kind
        self.every_s = every_s
        self._written = ""  # the body GitHub holds, as rendered: an unchanged render is never sent
        self._written_at = -math.inf  # time.monotonic() of the last edit
        self._timer: threading.Timer | None = None  # the coalesced edit waiting for its moment
        self._lock = threading.Lock()

    def open(self, note: str = "Starting.") -> None:
        """Reuse this run's comment if it exists (a re-run job), else post it."""
        for comment, data in self.ctx.own_markers(self.issue, "progress"):
            if data.get("run") == self.ctx.run_key and data.get("kind", "") == self.state.get("kind", ""):
                found = progress_state(data)
                self.id, self.state = comment.id, found | {"by": self.state["by"] or found.get("by", "")}
                self.reused = True
        self.state["note"] = note
        if self.id is None:
            body = progress_body(self.state)
            self.id = self.ctx.github.comment(self.issue, body)
            self._written, self._written_at = body, time.monotonic()
        else:
            with self._lock:
                self._write()

    def on_progress(self, team: str, phase: str, rnd: int, detail: str) -> None:
        """The engine's progress callback: tick the stages up to this phase."""
        stage = (UPDATE_PHASE_TO_STAGE if self.state.get("kind") == "update" else PHASE_TO_STAGE).get(phase)
        if stage:
            self.done(stage)

    def done(self, stage: str, note: str | None = None) -> None:
        """Tick `stage` and every stage before it; the edit is coalesced with those that follow soon after."""
        keys = [key for key, _ in stages_of(self.state)]
        wanted = set(keys[: keys.index(stage) + 1])
        with self._lock:
            self.state["done"] = [k for k in keys if k in wanted | set(self.state["done"])]
            if note is not None:
                self.state["note"] = note
            self._write_soon()

    def update(self, note: str, **state: Unpack[RunRecord]) -> None:
        """Change the note and any state fields, and write them at once."""
        with self._lock:
            self.state = {**self.state, **state, "note": note}
            self._write()

    def flush(self) -> None:
        """Write the state now if GitHub does not show it yet; the run's last word is never left waiting."""
        with self._lock:
            self._write()

    def _write_soon(self) -> None:
        """Write now if the last edit is `every_s` old, else once it is (one waiting edit carries every tick)."""
        wait = self._written_at + self.every_s - time.monotonic()
        if wait <= 0:
            self._write()
        elif self._timer is None:
            self._timer = threading.Timer(wait, self.flush)
            self._timer.daemon = True
            self._timer.start()

    def _write(self) -> None:
        """Rewrite the whole comment unless it already reads so (the lock is held); a failed edit is logged and
        the run goes on (the next edit carries everything this one would have)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        body = progress_body(self.state)
        if self.id is None or body == self._written:
            return
        try:
            self.ctx.github.edit_comment(self.issue, self.id, body)
        except GitHubError as exc:
            log.warning("could not update the progress comment on #%s (%s); the run goes on", self.issue, exc)
            return
        self._written, self._written_at = body, time.monotonic()


class StopWatcher:
    """Polls the issue (and PR) for a `/ensemble stop` from someone allowed, and sets `event`.

    Each poll sends back the tag of the thread's last answer, so a thread where nothing was written or
    edited since answers 304 Not Modified, which GitHub does not count against the rate limit.
    """

    def __init__(self, ctx: Context, numbers: tuple[int, ...], after_id: int):
        self.ctx = ctx
        self.numbers = numbers
        self.after_id = after_id
        # Only comments written since the run began are read on each poll, however long the thread
        # (with a margin for a runner's clock running ahead of GitHub's).
        self.since = datetime.now(UTC) - CLOCK_SKEW
        self.event = threading.Event()
        self.by = ""
        # The tag of each thread's last answer: a poll while nothing changed is a 304, free of the rate limit.
        self._etags: dict[int, str] = {}
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
            changed, etag = self.ctx.github.comments_since(number, self.since, self._etags.get(number, ""))
            for comment in changed or []:
                if comment.id <= self.after_id or self.ctx.is_own(comment):
                    continue
                if parse_command(comment.body) == Command("stop") and self.ctx.may_trigger(comment.login):
                    self.by = comment.login
                    self.event.set()
                    return True
            self._etags[number] = etag  # only once the answer was read through: a failed look is asked again
        return False

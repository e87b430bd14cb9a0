"""The progress comment's edits (coalesced, never unchanged, the last state always written) and the stop
watcher's polls (conditional: a quiet thread answers 304), against the fake GitHub."""

from __future__ import annotations

import time

import pytest

from actions.app import build_context
from actions.context import Context
from actions.engine import ensemble_planner
from actions.events import load_event
from actions.github import GitHubError
from actions.progress import ProgressComment, StopWatcher
from fakes.github_hub import REPO, Hub


def context(hub: Hub) -> Context:
    """The Context of a label event on issue #1, as `ensemble handle-event` builds it."""
    env = hub.env("issues", hub.labeled(1))
    return build_context(env, load_event(env), hub.engine, ensemble_planner)


def edits(hub: Hub) -> list[str]:
    """The bodies of the comment edits GitHub received, oldest first."""
    return [r.body["body"] for r in hub.fake.calls("PATCH", r"/issues/comments/\d+$")]


def shown(hub: Hub) -> str:
    """The progress comment as people see it on issue #1 now."""
    [comment] = hub.fake.comments_on(REPO, 1)
    return str(comment["body"])


def test_a_burst_of_ticks_is_one_edit_and_the_last_state_is_written_when_the_run_ends(hub: Hub) -> None:
    progress = ProgressComment(context(hub), 1, "alice", every_s=60)
    progress.open()
    for phase in ("indexing", "planning", "coding", "testing", "reviewing"):
        progress.on_progress("a", phase, 1, "")
    progress.done("reviewed", "Pushed the branch; opening the pull request.")
    assert edits(hub) == [] and "- [ ] Indexed the repository" in shown(hub)  # within the interval: waiting, not sent
    progress.flush()
    assert len(edits(hub)) == 1
    assert "- [x] Reviewed the change" in shown(hub) and "opening the pull request" in shown(hub)


def test_an_unchanged_render_is_never_sent(hub: Hub) -> None:
    progress = ProgressComment(context(hub), 1, "alice", every_s=0)
    progress.open("Starting.")
    progress.update("Starting.")  # what GitHub already shows
    progress.done("indexed")
    progress.done("indexed")
    progress.on_progress("a", "indexing", 2, "")
    progress.flush()
    assert len(edits(hub)) == 1 and "- [x] Indexed the repository" in shown(hub)


def test_a_waiting_tick_shows_within_the_interval_without_another_call(hub: Hub) -> None:
    progress = ProgressComment(context(hub), 1, "alice", every_s=0.5)
    progress.open()
    progress.done("planned")
    assert edits(hub) == []
    deadline = time.monotonic() + 10
    while not edits(hub) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(edits(hub)) == 1 and "- [x] Planned the change" in shown(hub)


def test_an_outcome_is_written_at_once_and_carries_the_waiting_ticks(hub: Hub) -> None:
    progress = ProgressComment(context(hub), 1, "alice", every_s=60)
    progress.open()
    progress.done("coded")
    progress.update("Stopped by @mona; nothing was pushed.")
    assert len(edits(hub)) == 1
    assert "- [x] Wrote the code" in shown(hub) and "Stopped by @mona" in shown(hub)
    progress.flush()
    assert len(edits(hub)) == 1


def test_a_whole_run_edits_its_progress_comment_a_few_times_and_ends_on_the_pull_request(hub: Hub) -> None:
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened", outcome.message
    # the engine's five ticks, the branch about to be pushed and the opened PR: 8 edits before coalescing
    assert len(edits(hub)) <= 3
    assert f"Opened draft pull request #{outcome.pr_number}" in shown(hub)
    assert "- [x] Opened the pull request" in shown(hub)


def test_a_quiet_thread_is_polled_with_its_etag_and_a_stop_is_still_seen(hub: Hub) -> None:
    ctx = context(hub)
    hub.fake.add_comment(REPO, 1, "Thanks, looking forward to it.", user="alice")
    watcher = StopWatcher(ctx, (1,), after_id=0)
    assert not watcher.check() and not watcher.check()
    polls = hub.fake.calls("GET", r"/issues/1/comments$")
    assert [p.status for p in polls] == [200, 304]  # the second look cost nothing against the rate limit
    hub.fake.add_comment(REPO, 1, "/ensemble stop", user="mona")
    assert watcher.check() and watcher.event.is_set() and watcher.by == "mona"


def test_a_look_that_failed_halfway_is_asked_again_in_full(hub: Hub) -> None:
    ctx = context(hub)
    watcher = StopWatcher(ctx, (1,), after_id=0)
    hub.fake.add_comment(REPO, 1, "/ensemble stop", user="mona")
    hub.fake.fail_next(status=403, message="Resource not accessible by integration", retry_after=None,
                       path_pattern=r"/collaborators/mona/permission$")
    with pytest.raises(GitHubError):  # the watcher's loop logs it and looks again at its next poll
        watcher.check()
    assert not watcher.event.is_set()
    assert watcher.check() and watcher.by == "mona"  # not a 304 that hides the stop read before

"""A 5,000-comment thread: reading it is paged in bounded pages, and a run stays fast and small."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.github_hub import REPO, Hub, github_hub
from fakes.scripted_engine import ScriptedEngine

COMMENTS = 5000
LISTING = r"/issues/1/comments$"


@pytest.fixture
def hub(tmp_path: Path, engine: ScriptedEngine) -> Iterator[Hub]:
    with github_hub(tmp_path, engine) as made:
        for n in range(COMMENTS):  # people talking, with a command quoted now and then
            body = f"> /ensemble run\n\nI tried it: comment {n}. " + "x" * 400 if n % 100 == 0 else f"+1 ({n})"
            made.fake.add_comment(REPO, 1, body, user="alice" if n % 2 else "bob")
        made.extra_env["ENSEMBLE_STOP_POLL_S"] = "15"  # the action's default: a poll or two, not hundreds
        yield made


def test_a_run_on_a_5000_comment_thread_pages_in_bounded_pages_and_stays_small(hub: Hub) -> None:
    tracemalloc.start()
    started = time.monotonic()
    outcome = hub.send("issues", hub.labeled(1))
    elapsed = time.monotonic() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert outcome.result == "pr-opened"
    pages = hub.fake.calls("GET", LISTING)
    assert all(int(p.query.get("per_page", ["30"])[0]) == 100 for p in pages)  # GitHub's largest page
    listings = sum(1 for p in pages if p.query.get("page", ["1"])[0] == "1")
    assert len(pages) <= listings * (COMMENTS // 100 + 2), len(pages)
    assert listings <= 8, f"the thread was read {listings} times in one run"
    assert elapsed < 60, f"{elapsed:.1f}s"
    assert peak < 64 * 1024 * 1024, f"peak traced memory {peak / 2**20:.0f} MiB"

"""GitHub faults mid-run: 502s and secondary rate limits on comment edits and reads; the run goes on.

The fake GitHub answers the injected errors in GitHub's own shapes (a 502 with a JSON message,
a 403 "secondary rate limit" with `retry-after`).
"""

from __future__ import annotations

import time

import pytest

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub

EDIT = r"/issues/comments/\d+$"


def progress_body(hub: Hub) -> str:
    [progress] = [c["body"] for c in hub.fake.comments_on(REPO, 1) if read_marker(c["body"], "progress") is not None]
    return progress


def test_502s_on_progress_edits_are_tried_again_and_the_pr_opens(hub: Hub) -> None:
    hub.fake.fail_next(status=502, message="Server Error", retry_after=None, times=2, method="PATCH",
                       path_pattern=EDIT)
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened"
    assert [c.status for c in hub.fake.calls("PATCH", EDIT)][:3] == [502, 502, 200]
    assert progress_body(hub).count("- [x]") == 6  # the comment ends complete


def test_a_secondary_rate_limit_on_a_progress_edit_is_waited_out(hub: Hub) -> None:
    hub.fake.fail_next(retry_after=1, method="PATCH", path_pattern=EDIT)
    started = time.monotonic()
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert time.monotonic() - started >= 1.0
    assert [c.status for c in hub.fake.calls("PATCH", EDIT)][:2] == [403, 200]
    assert progress_body(hub).count("- [x]") == 6


def test_a_progress_comment_that_cannot_be_edited_does_not_stop_the_run(hub: Hub) -> None:
    # A person deleted the progress comment mid-run: every edit is refused for good.
    hub.fake.fail_next(status=404, message="Not Found", retry_after=None, times=100, method="PATCH", path_pattern=EDIT)
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened"
    assert hub.fake.repos[REPO].pulls[outcome.pr_number]["head_ref"] == "ensemble/issue-1"


def test_a_502_on_reading_the_thread_is_tried_again(hub: Hub) -> None:
    hub.fake.fail_next(status=502, message="Server Error", retry_after=None, method="GET",
                       path_pattern=r"/issues/1/comments$")
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert [c.status for c in hub.fake.calls("GET", r"/issues/1/comments$")][:2] == [502, 200]


def test_a_502_on_posting_a_comment_is_not_repeated_blindly(hub: Hub) -> None:
    # GitHub may have made the comment before the gateway failed: posting again could make two. The run's first
    # comment goes out with the 👀 in one GraphQL mutation: neither it nor a REST post of the comment follows it.
    hub.fake.fail_next(status=502, message="Server Error", retry_after=None, method="POST",
                       path_pattern=r"graphql$", body_pattern="addComment")
    with pytest.raises(Exception, match="502"):
        hub.send("issues", hub.labeled(1))
    assert [c.status for c in hub.fake.calls("POST", r"graphql$") if "addComment" in c.body["query"]] == [502]
    assert hub.fake.calls("POST", r"/issues/1/comments$") == []
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"  # the job run again does it all


def test_a_502_on_posting_a_comment_over_rest_is_not_repeated_blindly(hub: Hub) -> None:
    # without the event's snapshot (GitHub refused it) the comment goes over REST, and is not repeated either
    hub.fake.fail_next(status=502, message="Server Error", retry_after=None, method="POST", path_pattern=r"graphql$",
                       body_pattern="EventSnapshot", times=50)  # every try of it
    hub.fake.fail_next(status=502, message="Server Error", retry_after=None, method="POST",
                       path_pattern=r"/issues/1/comments$")
    with pytest.raises(Exception, match="502"):
        hub.send("issues", hub.labeled(1))
    assert [c.status for c in hub.fake.calls("POST", r"/issues/1/comments$")] == [502]

"""Light events: 👀 on an accepted trigger, and an engine event in a core-only install (two passes).

A core-only install is played here by naming a module that cannot be found as part of the engine
extra; tests/actions/test_core_install.py does it for real in a fresh virtual environment.
"""

from __future__ import annotations

import pytest

from actions.app import handle_event
from actions.context import NEEDS_ENGINE, WORKING
from fakes.github_hub import REPO, Hub


def reactions(hub: Hub) -> list[tuple[str, int, str, str]]:
    return [(r["subject"], r["subject_id"], r["content"], r["user"]["login"]) for r in hub.fake.repos[REPO].reactions]


def test_help_gets_eyes_on_the_comment_and_the_help_text(hub: Hub) -> None:
    payload = hub.comment(1, "/ensemble help")
    outcome = hub.send("issue_comment", payload)
    assert outcome.result == "replied"
    assert reactions(hub) == [("comment", payload["comment"]["id"], "eyes", "github-actions[bot]")]
    assert "**ensemble commands**" in hub.fake.comments_on(REPO, 1)[-1]["body"]
    posts = [r.path for r in hub.fake.requests if r.method == "POST" and r.path != "/api/graphql"]  # writes, not reads
    assert posts[0].endswith(f"/issues/comments/{payload['comment']['id']}/reactions")  # before the reply


def test_the_trigger_label_gets_eyes_on_the_issue_once_per_delivery(hub: Hub) -> None:
    payload = hub.labeled(1)
    assert hub.send("issues", payload).result == "pr-opened"
    hub.send("issues", payload)  # a re-delivery
    assert reactions(hub) == [("issue", 1, "eyes", "github-actions[bot]")]


def test_no_eyes_for_someone_without_write_access_or_a_comment_without_a_command(hub: Hub) -> None:
    assert hub.send("issue_comment", hub.comment(1, "/ensemble help", sender="trina")).result == "refused"
    assert hub.send("issue_comment", hub.comment(1, "thanks!")).result == "nothing-to-do"
    assert hub.send("issues", hub.labeled(1, sender="trina")).result == "refused"
    assert reactions(hub) == []


def test_a_refused_reaction_does_not_stop_the_reply(hub: Hub) -> None:
    hub.fake.fail_next(403, "Resource not accessible by integration", retry_after=None, method="POST",
                       path_pattern="/reactions$")
    assert hub.send("issue_comment", hub.comment(1, "/ensemble status")).result == "replied"
    assert "**ensemble status**" in hub.fake.comments_on(REPO, 1)[-1]["body"]


def test_an_engine_event_without_the_extra_writes_nothing_then_runs_once_it_is_installed(
        hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.extras.ENGINE_MODULES", ("numpy", "no_such_engine_module"))
    payload = hub.comment(1, "/ensemble run")
    comments_before = len(hub.fake.comments_on(REPO, 1))
    first = handle_event(hub.env("issue_comment", payload))  # the real engine: nothing injected
    assert first.result == NEEDS_ENGINE and "pip install 'ensemble-bot[engine]'" in first.message
    assert "result<<" in hub.outputs_text() and NEEDS_ENGINE in hub.outputs_text()
    assert len(hub.fake.comments_on(REPO, 1)) == comments_before  # no progress comment, no reply
    assert WORKING not in [label["name"] for label in hub.fake.repos[REPO].issues[1]["labels"]]
    assert not hub.summary.exists()  # the second pass writes the step summary
    monkeypatch.undo()  # the action installed the extra
    second = hub.send("issue_comment", payload)
    assert second.result == "pr-opened"
    assert len(reactions(hub)) == 1 and len(hub.engine.calls) == 1

"""No queued command is lost: GitHub keeps only the newest pending job per concurrency group.

These tests play GitHub's part: a comment posted while a job runs starts no job of its own
until that job ends, and of several such comments only the newest one's job ever runs.
"""

from __future__ import annotations

import threading

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine


def open_pr(hub: Hub) -> int:
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened" and outcome.pr_number
    return outcome.pr_number


def revisions(engine: ScriptedEngine) -> list[str]:
    """The instructions of each revision the engine was asked for, in order."""
    return [task.body.split("\n")[-1] for task in engine.calls if "## Requested revision" in task.body]


def triggers(hub: Hub, number: int) -> list[str]:
    """The comment each of the bot's progress comments on #number answers."""
    return [data.get("trigger", "") for c in hub.fake.comments_on(REPO, number)
            if (data := read_marker(c["body"], "progress")) is not None]


def test_two_revisions_queued_behind_a_running_one_are_both_made(hub: Hub, engine: ScriptedEngine) -> None:
    pr = open_pr(hub)
    queued: list[dict] = []

    def two_more_arrive(stop: threading.Event) -> None:
        if len(engine.calls) == 2:  # while the first revision runs
            queued.append(hub.comment(pr, "/ensemble revise rename the helper", sender="alice"))
            queued.append(hub.comment(pr, "/ensemble revise add a docstring", sender="mona"))

    engine.before_return = two_more_arrive
    first = hub.send("issue_comment", hub.comment(pr, "/ensemble revise use a loop"))
    assert first.result == "revised"
    # GitHub cancelled the pending job of the second comment; only the third's job runs.
    last = hub.send("issue_comment", queued[1])
    assert revisions(engine) == ["use a loop", "rename the helper", "add a docstring"]
    assert last.result == "duplicate"  # the running job had already answered it
    assert len(hub.fake.commit_messages(REPO, "ensemble/issue-1")) == 4  # the PR's commit and three revisions
    ids = [c["comment"]["id"] for c in queued]
    assert {f"comment:{i}" for i in ids} <= set(triggers(hub, pr))  # each has a progress comment of its own
    assert all(sum("Pushed " in c["body"] for c in hub.fake.comments_on(REPO, pr)
                   if read_marker(c["body"], "progress") and read_marker(c["body"], "progress")["trigger"] == f"comment:{i}")
               == 1 for i in ids)


def test_commands_posted_after_a_job_looked_are_run_by_the_next_job_in_order(hub: Hub, engine: ScriptedEngine) -> None:
    pr = open_pr(hub)
    hub.send("issue_comment", hub.comment(pr, "/ensemble revise use a loop"))
    # Both arrive after the job read the thread for the last time; the first one's job is cancelled.
    hub.comment(pr, "/ensemble revise rename the helper")
    newest = hub.comment(pr, "/ensemble revise add a docstring", sender="mona")
    outcome = hub.send("issue_comment", newest)
    assert outcome.result == "revised"
    assert revisions(engine) == ["use a loop", "rename the helper", "add a docstring"]
    again = hub.send("issue_comment", newest)  # a re-run of that job does nothing twice
    assert again.result == "duplicate" and len(revisions(engine)) == 3


def test_a_queued_command_followed_by_stop_is_answered_and_not_run(hub: Hub, engine: ScriptedEngine) -> None:
    pr = open_pr(hub)
    queued: list[dict] = []

    def queue_then_stop(stop: threading.Event) -> None:
        if len(engine.calls) == 2:
            queued.append(hub.comment(pr, "/ensemble revise rename the helper"))
            hub.fake.add_comment(REPO, pr, "/ensemble stop", user="mona")
            assert stop.wait(5), "the stop watcher never noticed the comment"

    engine.before_return = queue_then_stop
    assert hub.send("issue_comment", hub.comment(pr, "/ensemble revise use a loop")).result == "stopped"
    assert revisions(engine) == ["use a loop"]
    reply = [c["body"] for c in hub.fake.comments_on(REPO, pr)
             if (read_marker(c["body"], "reply") or {}).get("to") == queued[0]["comment"]["id"]]
    assert len(reply) == 1 and "Not run: @mona asked to stop after this command was posted" in reply[0]


def test_someone_without_write_access_cannot_queue_a_command(hub: Hub, engine: ScriptedEngine) -> None:
    pr = open_pr(hub)
    hub.fake.add_comment(REPO, pr, "/ensemble revise delete the tests", user="mallory")
    assert hub.send("issue_comment", hub.comment(pr, "/ensemble revise use a loop")).result == "revised"
    assert revisions(engine) == ["use a loop"]


def test_a_retry_queued_on_the_issue_behind_the_label_run_is_run_after_it(hub: Hub, engine: ScriptedEngine) -> None:
    queued: list[dict] = []

    def retry_arrives(stop: threading.Event) -> None:
        if len(engine.calls) == 1:  # while the label's run works, someone asks for another go
            queued.append(hub.comment(1, "/ensemble retry", sender="mona"))

    engine.before_return = retry_arrives
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert len(engine.calls) == 2  # the retry ran in the same job, after the label's run
    assert len(hub.fake.commit_messages(REPO, "ensemble/issue-1")) == 2 and len(hub.fake.repos[REPO].pulls) == 1
    assert f"comment:{queued[0]['comment']['id']}" in triggers(hub, 1)

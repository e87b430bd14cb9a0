"""End to end: a labelled issue becomes a draft PR; re-delivery, re-runs, resumption, rate limits."""

from __future__ import annotations

import time

import pytest

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine


def progress_comments(hub: Hub, number: int = 1) -> list[dict]:
    return [c for c in hub.fake.comments_on(REPO, number) if read_marker(c["body"], "progress") is not None]


def test_a_labelled_issue_becomes_a_draft_pr_with_passing_tests(hub: Hub, engine: ScriptedEngine) -> None:
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened" and outcome.exit_code == 0
    pull = hub.fake.repos[REPO].pulls[outcome.pr_number]
    body = hub.fake.repos[REPO].issues[outcome.pr_number]["body"]
    assert pull["draft"] and pull["head_ref"] == "ensemble/issue-1"
    assert body.startswith("Closes #1")
    for needle in ("## Plan", "Change - to + in add()", "- before: fail (`tests/test_calc.py::test_add`)",
                   "- after: pass (1 tests)", "`tests/test_calc.py`: fails before the fix: yes; passes after it: yes",
                   "`calc.py` (search:1-2)", "| planner | 1 | 500 | 100 | 0.0100 |", "## Stop reason",
                   "the tests pass and the critic accepted the change"):
        assert needle in body, needle
    assert "return a + b" in hub.fake.file_at(REPO, "ensemble/issue-1", "calc.py")
    assert "Ensemble-Run:" in hub.fake.commit_messages(REPO, "ensemble/issue-1")[0]
    [progress] = progress_comments(hub)
    assert progress["body"].count("- [x]") == 6
    assert hub.fake.labels_on(REPO, 1) == []  # ensemble:working was removed
    assert "result<<" in hub.outputs_text() and f"\n{outcome.pr_number}\n" in hub.outputs_text()
    summary = hub.summary.read_text()
    pr_link = f"[PR #{outcome.pr_number}]({hub.fake.server_url}/{REPO}/pull/{outcome.pr_number})"
    assert summary.startswith(f"### ensemble: pr-opened ({pr_link})")
    assert "#### Time by phase" in summary and "| git and GitHub |" in summary  # the event's own spans
    assert "| planner | 1 | 500 | 100 | 0.0100 |" in summary
    # the default token starts no CI on push: the configured workflow was dispatched on the branch
    assert [d["ref"] for d in hub.fake.repos[REPO].dispatches] == ["ensemble/issue-1"]
    everything = "".join(c["body"] for c in hub.fake.comments_on(REPO, 1)) + body
    assert hub.fake.token not in everything
    [git_config] = engine.git_configs  # read during the run: the clone's config holds no credentials
    assert hub.fake.token not in git_config and "extraheader" not in git_config
    assert not list((hub.tmp / "work").rglob(".git"))  # and the clone is gone afterwards


def test_a_redelivered_label_event_creates_no_duplicate(hub: Hub, engine: ScriptedEngine) -> None:
    first = hub.send("issues", hub.labeled(1))
    again = hub.send("issues", hub.labeled(1))
    assert again.result == "exists" and again.pr_number == first.pr_number
    assert len(hub.fake.repos[REPO].pulls) == 1 and len(progress_comments(hub)) == 1
    assert len(engine.calls) == 1


def test_a_rerun_job_reuses_its_progress_comment(hub: Hub, engine: ScriptedEngine) -> None:
    engine.fail = True
    assert hub.send("issues", hub.labeled(1), run_id=77).exit_code == 1
    engine.fail = False
    assert hub.send("issues", hub.labeled(1), run_id=77).result == "pr-opened"
    assert len(progress_comments(hub)) == 1
    assert "ensemble:needs-human" not in hub.fake.labels_on(REPO, 1)


def test_a_run_killed_between_push_and_pr_resumes(hub: Hub, engine: ScriptedEngine) -> None:
    hub.fake.fail_next(status=500, message="Server Error", retry_after=None, method="POST", path_pattern=r"/pulls$")
    crashed = None
    try:
        hub.send("issues", hub.labeled(1))
    except Exception as exc:  # noqa: BLE001 - the job dies here, as a killed runner would
        crashed = exc
    assert crashed is not None and hub.fake.head_sha(REPO, "ensemble/issue-1")
    assert not hub.fake.repos[REPO].pulls
    resumed = hub.send("issues", hub.labeled(1))
    assert resumed.result == "pr-opened" and len(engine.calls) == 1
    assert hub.fake.repos[REPO].issues[resumed.pr_number]["body"].startswith("Closes #1")


def test_a_secondary_rate_limit_is_waited_out(hub: Hub) -> None:
    # the `ensemble:working` label, the run's first write after its progress comment
    hub.fake.fail_next(retry_after=1, method="POST", path_pattern=r"/issues/1/labels$")
    started = time.monotonic()
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened"
    assert time.monotonic() - started >= 1.0
    assert [c.status for c in hub.fake.calls("POST", r"/issues/1/labels$")][:2] == [403, 200]


def test_other_labels_and_non_collaborators_do_nothing(hub: Hub, engine: ScriptedEngine) -> None:
    assert hub.send("issues", hub.labeled(1, label="bug")).result == "nothing-to-do"
    refused = hub.send("issues", hub.labeled(1, sender="trina"))  # triage can label, but may not trigger
    assert refused.result == "refused" and not engine.calls
    assert not (hub.tmp / "work").exists() or not list((hub.tmp / "work").rglob(".git"))


def test_planner_questions_are_posted_and_the_run_waits(hub: Hub, engine: ScriptedEngine) -> None:
    def asking(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = engine(*args, **kwargs)
        result.questions, result.stop_reason, result.commits = ("Should add() accept strings?",), "questions", []
        return result

    hub.engine = asking  # type: ignore[assignment]
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "questions"
    assert any("1. Should add() accept strings?" in c["body"] for c in hub.fake.comments_on(REPO, 1))
    assert not hub.fake.repos[REPO].pulls and hub.fake.head_sha(REPO, "ensemble/issue-1") is None

    # The answers come as comments; the next run gives them to the planner with the questions.
    hub.engine = engine
    hub.fake.add_comment(REPO, 1, "Yes, concatenate strings like + does.", user="alice")
    hub.fake.add_comment(REPO, 1, "No, reject strings!", user="mallory")  # no write access: not an answer
    assert hub.send("issue_comment", hub.comment(1, "Thanks.\n/ensemble run", sender="mona")).result == "pr-opened"
    body = engine.calls[-1].body
    assert "1. Should add() accept strings?" in body
    assert "@alice answered:\nYes, concatenate strings like + does." in body and "@mona answered:\nThanks." in body
    assert "reject strings" not in body and "/ensemble run" not in body


def test_an_engine_crash_is_reported_on_the_issue(hub: Hub, engine: ScriptedEngine) -> None:
    def crash(stop: object) -> None:
        raise RuntimeError("Docker daemon is not running; start it and run again")

    engine.before_return = crash
    with pytest.raises(RuntimeError, match="Docker daemon"):
        hub.send("issues", hub.labeled(1))
    [progress] = progress_comments(hub)
    assert "The run failed and nothing was pushed: RuntimeError: Docker daemon" in progress["body"]
    assert "ensemble:working" not in hub.fake.labels_on(REPO, 1)


def test_a_redelivered_event_after_a_failed_run_does_not_run_again(hub: Hub, engine: ScriptedEngine) -> None:
    engine.fail = True
    payload = hub.labeled(1)
    assert hub.send("issues", payload).exit_code == 1
    assert hub.send("issues", payload).result == "duplicate"  # the same delivery, a new Actions run
    relabelled = hub.labeled(1)
    relabelled["issue"]["updated_at"] = "2026-11-21T12:00:00Z"  # a maintainer labels it again: a new event
    engine.fail = False
    assert hub.send("issues", relabelled).result == "pr-opened"
    assert len(engine.calls) == 2


def test_a_resumed_run_dispatches_ci_with_the_default_token(hub: Hub, engine: ScriptedEngine) -> None:
    from tests.actions.test_slash_commands import _set_config

    _set_config(hub, "ensembles: 1\nheal: {workflows: [ci.yml]}\n")
    hub.fake.fail_next(status=500, message="Server Error", retry_after=None, method="POST", path_pattern=r"/pulls$")
    with pytest.raises(Exception):  # noqa: B017 - killed between push and PR
        hub.send("issues", hub.labeled(1))
    resumed = hub.send("issues", hub.labeled(1))
    assert resumed.result == "pr-opened"
    assert [d["workflow"] for d in hub.fake.repos[REPO].dispatches] == [".github/workflows/ci.yml"]

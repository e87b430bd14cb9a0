"""End to end: a red default branch noticed (`heal.default_branch: issue`).

A person's push turns a check red on `main`; GitHub's workflow_run events are delivered as GitHub sends
them, re-runs included. The bot re-runs the failed jobs first, and opens one issue only when they fail
again on a head whose previous head was green.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.github_server import RepoState

RED_LABEL = "ensemble:red-default-branch"
FAILING_LOG = ("2026-01-05T10:00:00.0000000Z ============================= FAILURES ==============================\n"
               "2026-01-05T10:00:00.1000000Z E   assert -1 == 5\n"
               "2026-01-05T10:00:00.2000000Z FAILED tests/test_calc.py::test_add - assert -1 == 5\n"
               "2026-01-05T10:00:00.3000000Z ##[error]Process completed with exit code 1.\n")
CONFIG = "ensembles: 1\nheal:\n  default_branch: issue\n"


def configure(hub: Hub, config: str = CONFIG) -> str:
    """The config pushed to main, whose head is green; returns that head."""
    _, green = hub.commit("main", {".github/ensemble.yml": config}, "Configure the bot", ("Mona", "mona@example.com"))
    hub.fake.add_run(REPO, "main", green, "success", (("test", "success", "ok"),), event="push")
    return green


def break_main(hub: Hub) -> tuple[str, dict[str, Any]]:
    """Alice's push that breaks add(); CI fails on it. Its head and the failed run."""
    hub.fake.add_email("alice@example.com", "alice")
    _, red = hub.commit("main", {"calc.py": "def add(a, b):\n    return a - b  # faster\n"}, "Speed up add()")
    run = hub.fake.add_run(REPO, "main", red, "failure", (("test", "failure", FAILING_LOG),), event="push")
    return red, run


def rerun_ends(hub: Hub, conclusion: str) -> None:
    """What a re-run of failed jobs does on GitHub: a new attempt whose jobs end with `conclusion`."""
    def finish(repo: RepoState, run: dict) -> None:
        hub.fake.set_jobs(REPO, run, (("test", conclusion, FAILING_LOG if conclusion == "failure" else "ok"),))
    hub.fake.on_rerun = finish


def red_issues(hub: Hub) -> list[dict]:
    return [i for i in hub.fake.repos[REPO].issues.values()
            if RED_LABEL in [label["name"] for label in i["labels"]]]


def test_a_red_default_branch_opens_exactly_one_issue_across_redeliveries(hub: Hub) -> None:
    green = configure(hub)
    red, run = break_main(hub)
    rerun_ends(hub, "failure")
    first = hub.workflow_run(run)
    assert hub.send("workflow_run", first).result == "rerun"
    assert hub.fake.repos[REPO].reruns == [run["id"]] and not red_issues(hub)
    again = hub.workflow_run(run)  # attempt 2, failed too
    assert again["workflow_run"]["run_attempt"] == 2
    outcome = hub.send("workflow_run", again)
    assert outcome.result == "red-issue-opened", outcome.message
    for payload in (copy.deepcopy(again), copy.deepcopy(again), first):  # redeliveries, and the first one late
        assert hub.send("workflow_run", payload).result == "nothing-to-do"
    assert hub.fake.repos[REPO].reruns == [run["id"]]  # re-run once, never again
    [issue] = red_issues(hub)
    body = issue["body"]
    assert issue["user"]["login"] == "github-actions[bot]" and issue["title"].startswith("`main` is red: test")
    assert "`tests/test_calc.py::test_add`" in body and f"It passed at {green[:7]}" in body
    assert f"- {red[:7]} Speed up add() by `alice`" in body and "@alice" not in body
    suspects = body.split("**Suspect commits**")[1].split("**The failing part")[0]
    assert f"- {red[:7]} " in suspects and f"- {green[:7]} " not in suspects  # after the last green, up to the red
    assert "assert -1 == 5" in body and "Label this issue `ensemble`" in body
    assert read_marker(body, "red") == {"checks": ["test"], "first": red}


def test_the_authors_of_the_suspect_commits_are_mentioned_when_configured(hub: Hub) -> None:
    configure(hub, CONFIG + "  mention_authors: true\n")
    red, run = break_main(hub)
    rerun_ends(hub, "failure")
    hub.send("workflow_run", hub.workflow_run(run))
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "red-issue-opened"
    [issue] = red_issues(hub)
    assert f"- {red[:7]} Speed up add() by @alice" in issue["body"]


def test_a_flaky_red_opens_no_issue(hub: Hub) -> None:
    configure(hub)
    _, run = break_main(hub)
    rerun_ends(hub, "success")
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "rerun"
    passed = hub.workflow_run(run)
    assert passed["workflow_run"]["conclusion"] == "success" and passed["workflow_run"]["run_attempt"] == 2
    assert hub.send("workflow_run", passed).result == "flaky"
    assert not red_issues(hub)


@pytest.mark.parametrize("setting", ["", "heal:\n  default_branch: off\n"], ids=["default", "off"])
def test_nothing_is_reported_unless_configured(hub: Hub, setting: str) -> None:
    configure(hub, "ensembles: 1\n" + setting)
    _, run = break_main(hub)
    outcome = hub.send("workflow_run", hub.workflow_run(run))
    assert outcome.result == "nothing-to-do" and "heal.default_branch is off" in outcome.message
    assert not hub.fake.repos[REPO].reruns and not red_issues(hub)


def test_a_branch_that_was_red_before_opens_no_second_issue(hub: Hub) -> None:
    configure(hub)
    _, run = break_main(hub)
    rerun_ends(hub, "failure")
    hub.send("workflow_run", hub.workflow_run(run))
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "red-issue-opened"
    _, later = hub.commit("main", {"README.md": "# demo\n"}, "Docs")
    still = hub.fake.add_run(REPO, "main", later, "failure", (("test", "failure", FAILING_LOG),), event="push")
    hub.send("workflow_run", hub.workflow_run(still))
    outcome = hub.send("workflow_run", hub.workflow_run(still))
    assert outcome.result == "nothing-to-do" and "did not just turn red" in outcome.message
    assert len(red_issues(hub)) == 1

"""End to end: self-healing fixes only what the pull request broke.

A failing check that also fails on the default branch's head, or that passes when re-run, gets
a one-line note with the evidence on the PR; no fix commit is pushed and no model is asked.
"""

from __future__ import annotations

from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine

BRANCH = "ensemble/issue-1"
TEST_LOG = "FAILED tests/test_calc.py::test_floats - AssertionError: assert add(0.1, 0.2) == 0.3\n"
LINT_LOG = "calc.py:1:1: E302 expected 2 blank lines\n"


def open_pr(hub: Hub) -> int:
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened"
    return outcome.pr_number or 0


def red_on_main(hub: Hub, *jobs: tuple[str, str, str]) -> str:
    """A push run on main's head with `jobs`; returns main's head."""
    sha = hub.fake.head_sha(REPO, "main") or ""
    hub.fake.add_run(REPO, "main", sha, "failure", jobs, event="push")
    return sha


def bot_comments(hub: Hub, number: int) -> list[str]:
    return [c["body"] for c in hub.fake.comments_on(REPO, number) if c["user"]["login"] == "github-actions[bot]"]


def test_a_check_red_on_the_base_is_not_healed(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    main = red_on_main(hub, ("test", "failure", TEST_LOG))
    run = hub.ci("failure", TEST_LOG)
    outcome = hub.send("workflow_run", hub.workflow_run(run))
    assert outcome.result == "red-on-base"
    assert len(engine.calls) == 1  # the run that opened the PR; no model call for the failure
    assert len(hub.fake.commit_messages(REPO, BRANCH)) == 1 and not hub.fake.repos[REPO].reruns
    [note] = [body for body in bot_comments(hub, number) if body.startswith("Not healing")]
    assert note.splitlines()[0] == (f"Not healing `test` (failure): the same check fails on `main` at {main[:7]} too, "
                                    "so this pull request did not cause it.")
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "red-on-base"  # re-delivered
    assert len([b for b in bot_comments(hub, number) if b.startswith("Not healing")]) == 1
    assert "ensemble:needs-human" not in hub.fake.labels_on(REPO, number)


def test_only_the_checks_the_pull_request_broke_are_healed(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    red_on_main(hub, ("lint", "failure", LINT_LOG), ("test", "success", "ok"))
    jobs = (("test", "failure", TEST_LOG), ("lint", "failure", LINT_LOG))
    hub.fake.on_rerun = lambda repo, run: hub.fake.set_jobs(REPO, run, jobs)
    sha = hub.fake.head_sha(REPO, BRANCH) or ""
    run = hub.fake.add_run(REPO, BRANCH, sha, "failure", jobs)
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "rerun"
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "healed"
    sent = engine.calls[-1].body
    assert "assert add(0.1, 0.2) == 0.3" in sent and "E302" not in sent  # main's lint failure is not the coder's
    assert any(body.startswith("Not healing `lint` (failure)") for body in bot_comments(hub, number))


def test_a_check_that_passes_on_its_rerun_is_called_flaky_and_not_healed(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    hub.fake.on_rerun = lambda repo, run: hub.fake.set_jobs(REPO, run, (("test", "success", "ok"),))
    run = hub.ci("failure", TEST_LOG)
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "rerun"
    green = hub.workflow_run(run)  # GitHub reports the re-run: attempt 2, green
    assert (green["workflow_run"]["conclusion"], green["workflow_run"]["run_attempt"]) == ("success", 2)
    outcome = hub.send("workflow_run", green)
    assert outcome.result == "flaky"
    head = hub.fake.head_sha(REPO, BRANCH) or ""
    [note] = [body for body in bot_comments(hub, number) if body.startswith("Not healing")]
    assert note.splitlines()[0] == (f"Not healing `test`: failed on {head[:7]} and passed when re-run (workflow run "
                                    f"{run['id']}, attempt 2), so the failure was flaky, not this pull request's doing.")
    assert hub.send("workflow_run", green).result == "flaky"  # re-delivered: no second note
    assert len([b for b in bot_comments(hub, number) if b.startswith("Not healing")]) == 1
    assert len(engine.calls) == 1 and len(hub.fake.commit_messages(REPO, BRANCH)) == 1


def test_a_green_run_that_was_never_rerun_needs_nothing(hub: Hub) -> None:
    number = open_pr(hub)
    before = len(hub.fake.comments_on(REPO, number))
    assert hub.send("workflow_run", hub.workflow_run(hub.ci("success", "ok"))).result == "nothing-to-do"
    assert len(hub.fake.comments_on(REPO, number)) == before


def test_another_apps_check_red_on_the_base_is_not_healed(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    main = hub.fake.head_sha(REPO, "main") or ""
    hub.fake.add_check_run(REPO, main, "circleci: test", conclusion="failure")
    sha = hub.fake.head_sha(REPO, BRANCH) or ""
    suite = hub.fake.add_check_suite(REPO, BRANCH, sha, (("circleci: test", "failure", TEST_LOG),))
    payload = hub._base("check_suite", "circleci-checks[bot]")
    payload["check_suite"] |= {"id": suite["id"], "head_branch": BRANCH, "head_sha": sha, "conclusion": "failure"}
    assert hub.send("check_suite", payload).result == "red-on-base"
    assert hub.fake.repos[REPO].rerequests == [] and len(engine.calls) == 1
    assert any(body.startswith(f"Not healing `circleci: test` (failure): the same check fails on `main` at {main[:7]}")
               for body in bot_comments(hub, number))

"""End to end: loop breakers. Bots never trigger a run, runs per thread per hour are capped, and
`/ensemble stop` cancels the thread's workflow runs (and only the thread's)."""

from __future__ import annotations

import subprocess

from actions.render import progress_body
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine

BOT = "github-actions[bot]"


def set_config(hub: Hub, text: str) -> None:
    work = hub.tmp / "cfg"
    subprocess.run(["git", "clone", "-q", str(hub.fake.repos[REPO].bare), str(work)], check=True)
    (work / ".github" / "ensemble.yml").write_text(text)
    subprocess.run(["git", "commit", "-qam", "config"], cwd=work, check=True)
    subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=work, check=True)


def bot_comments(hub: Hub, number: int) -> list[str]:
    return [c["body"] for c in hub.fake.comments_on(REPO, number) if c["user"]["login"] == BOT]


def test_a_bots_run_command_never_starts_a_run(hub: Hub, engine: ScriptedEngine) -> None:
    hub.extra_env["ENSEMBLE_BOT_LOGIN"] = "ci-helper"  # a machine user the bot is told is a bot
    for login in ("ci-helper", "deploy-app[bot]"):
        hub.fake.set_permission(REPO, login, "admin")  # even with write access
        assert hub.send("issue_comment", hub.comment(1, "/ensemble run", sender=login)).result == "nothing-to-do"
    opened = hub.opened("Bump deps", "/ensemble run", sender="deploy-app[bot]")
    assert hub.send("issues", opened).result == "nothing-to-do"
    assert not engine.calls and not hub.fake.repos[REPO].pulls
    # a bot's command waiting on the thread is not picked up by the next job either
    hub.fake.add_comment(REPO, 1, "/ensemble revise do it again", user="deploy-app[bot]")
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert len(engine.calls) == 1


def test_runs_past_the_hourly_limit_stop_with_one_comment_and_a_label(hub: Hub, engine: ScriptedEngine) -> None:
    set_config(hub, "ensembles: 1\nmax_runs_per_hour: 2\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    for n in range(2):
        assert hub.send("issue_comment", hub.comment(number, f"/ensemble revise round {n}")).result == "revised"
    for _ in range(2):
        outcome = hub.send("issue_comment", hub.comment(number, "/ensemble revise once more"))
        assert outcome.result == "too-many-runs" and "max_runs_per_hour is 2" in outcome.message
    assert len(engine.calls) == 3  # the PR and two revisions; nothing after the limit
    [stopped] = [body for body in bot_comments(hub, number) if body.startswith("I have started")]
    assert "`max_runs_per_hour` is 2" in stopped and "to avoid a loop" in stopped and "`/ensemble run`" in stopped
    assert "ensemble:needs-human" in hub.fake.labels_on(REPO, number)
    for comment in hub.fake.repos[REPO].comments.values():  # an hour later
        comment["created_at"] = "2020-01-01T00:00:00Z"
    assert hub.send("issue_comment", hub.comment(number, "/ensemble revise now")).result == "revised"
    assert len(engine.calls) == 4


def test_stop_cancels_the_threads_runs_and_no_others(hub: Hub) -> None:
    fake = hub.fake
    main = fake.head_sha(REPO, "main") or ""
    fake.add_issue(REPO, "another bug", "elsewhere")  # issue #2, with a run of its own
    job = fake.start_run(REPO, "main", main, workflow="ensemble.yml", event="issues")  # the bot working on #1
    other_job = fake.start_run(REPO, "main", main, workflow="ensemble.yml", event="issues")  # ... on #2
    for issue, run in ((1, job), (2, other_job)):
        state = {"run": str(run["id"]), "issue": issue, "by": "alice", "done": ["indexed"], "note": "Coding.",
                 "trigger": f"issues:{issue}"}
        fake.add_comment(REPO, issue, progress_body(state), user=BOT)
        fake.repos[REPO].issues[issue]["labels"].append(fake._label(fake.repos[REPO], "ensemble:working"))
    ci = fake.start_run(REPO, "ensemble/issue-1", main, status="queued")  # CI on the bot's branch for #1
    other_ci = fake.start_run(REPO, "ensemble/issue-2", main)
    done = fake.add_run(REPO, "ensemble/issue-1", main, "success", (("test", "success", "ok"),))
    me = fake.start_run(REPO, "main", main, workflow="ensemble.yml", event="issue_comment")  # the job answering

    outcome = hub.send("issue_comment", hub.comment(1, "/ensemble stop", sender="mona"), run_id=me["id"])

    assert outcome.result == "stop-requested"
    assert fake.repos[REPO].cancels == sorted([job["id"], ci["id"]])
    runs = fake.repos[REPO].runs
    assert [runs[r["id"]]["status"] for r in (other_job, other_ci, me)] == ["in_progress"] * 3
    assert runs[done["id"]]["conclusion"] == "success"
    reply = bot_comments(hub, 1)[-1]
    assert f"Cancelled workflow runs {', '.join(str(r) for r in sorted([job['id'], ci['id']]))}." in reply
    assert any("this run's workflow job was cancelled" in body for body in bot_comments(hub, 1))
    assert "ensemble:working" not in hub.fake.labels_on(REPO, 1)
    assert "ensemble:working" in hub.fake.labels_on(REPO, 2)


def test_a_retry_past_the_hourly_limit_is_refused_without_first_saying_it_continues(hub: Hub,
                                                                                    engine: ScriptedEngine) -> None:
    set_config(hub, "ensembles: 1\nmax_runs_per_hour: 2\n")
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    allowed = hub.comment(1, "/ensemble retry")
    assert hub.send("issue_comment", allowed).result == "pr-opened"
    refused = hub.comment(1, "/ensemble retry")
    outcome = hub.send("issue_comment", refused)
    assert outcome.result == "too-many-runs" and len(engine.calls) == 2
    replies = {c["body"].split("\n")[0]: c for c in hub.fake.comments_on(REPO, 1) if c["user"]["login"] == BOT}
    continuing = [line for line in replies if line.startswith("OK, continuing from")]
    assert len(continuing) == 1  # the retry that ran, not the one refused
    answered = [c["body"] for c in hub.fake.comments_on(REPO, 1) if c["user"]["login"] == BOT
                and f'"to":{refused["comment"]["id"]}' in c["body"]]
    assert answered and not any(body.startswith("OK, continuing") for body in answered)

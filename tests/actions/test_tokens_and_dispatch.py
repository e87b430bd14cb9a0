"""End to end: a PAT as the bot's token, manual dispatch, merging on approval when checks are green."""

from __future__ import annotations

import subprocess

import pytest

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine


def set_config(hub: Hub, text: str) -> None:
    work = hub.tmp / "cfg"
    subprocess.run(["git", "clone", "-q", str(hub.fake.repos[REPO].bare), str(work)], check=True)
    (work / ".github" / "ensemble.yml").write_text(text)
    subprocess.run(["git", "commit", "-qam", "config"], cwd=work, check=True)
    subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=work, check=True)


def test_with_a_pat_the_bot_recognises_its_own_comments_and_dispatches_nothing(hub: Hub, engine: ScriptedEngine) -> None:
    hub.fake.add_user_token("ghp_machineuser0123456789", "ensemble-machine")
    hub.fake.set_permission(REPO, "ensemble-machine", "write")
    original_env = hub.env

    def pat_env(*args, **kwargs):  # type: ignore[no-untyped-def]
        return original_env(*args, **kwargs) | {"GITHUB_TOKEN": "ghp_machineuser0123456789",
                                                "ENSEMBLE_DEFAULT_TOKEN": "false"}

    hub.env = pat_env  # type: ignore[method-assign]
    first = hub.send("issues", hub.labeled(1))
    assert first.result == "pr-opened"
    [progress] = [c for c in hub.fake.comments_on(REPO, 1) if read_marker(c["body"], "progress") is not None]
    assert progress["user"]["login"] == "ensemble-machine"
    assert hub.send("issues", hub.labeled(1)).result == "exists"
    assert not hub.fake.repos[REPO].dispatches  # pushes with a PAT start CI by themselves
    # the bot's own comment never triggers it, even though its author is a plain user
    assert hub.send("issue_comment", hub.comment(1, "/ensemble run", sender="ensemble-machine")).result == "nothing-to-do"


def test_workflow_dispatch_runs_the_issue(hub: Hub) -> None:
    payload = hub._base("workflow_dispatch", "alice") | {"inputs": {"issue": "1", "command": "run"}, "ref": "refs/heads/main"}
    assert hub.send("workflow_dispatch", payload).result == "pr-opened"


def test_approval_merges_when_configured_and_green(hub: Hub) -> None:
    set_config(hub, "ensembles: 1\non_approval: merge\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    red = hub.ci("failure", "FAILED x")
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "ok", sender="mona"))
    assert outcome.result == "ready" and not hub.fake.repos[REPO].pulls[number]["merged"]  # red checks: no merge
    hub.fake.set_jobs(REPO, red, (("test", "success", "ok"),))
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "ok now", sender="mona"))
    assert outcome.result == "merged" and hub.fake.repos[REPO].pulls[number]["merged"]
    assert "return a + b" in hub.fake.file_at(REPO, "main", "calc.py")


def test_approval_never_merges_a_commit_no_check_has_tested(hub: Hub) -> None:
    set_config(hub, "ensembles: 1\non_approval: merge\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "ok", sender="mona"))
    assert outcome.result == "ready" and not hub.fake.repos[REPO].pulls[number]["merged"]
    assert "no checks have run" in outcome.message


def test_approval_waits_for_other_apps_checks_and_commit_statuses(hub: Hub) -> None:
    set_config(hub, "ensembles: 1\non_approval: merge\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    sha = hub.fake.head_sha(REPO, "ensemble/issue-1") or ""
    hub.ci("success", "ok")
    hub.fake.add_check_run(REPO, sha, "circleci: build", status="in_progress", conclusion=None)
    hub.fake.add_status(REPO, sha, "failure", "ci/jenkins")
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "ok", sender="mona"))
    assert not hub.fake.repos[REPO].pulls[number]["merged"] and "ci/jenkins" in outcome.message
    hub.fake.add_status(REPO, sha, "success", "ci/jenkins")
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "ok", sender="mona"))
    assert not hub.fake.repos[REPO].pulls[number]["merged"] and "circleci: build" in outcome.message
    hub.fake.repos[REPO].check_runs[-1].update(status="completed", conclusion="success")
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "ok", sender="mona"))
    assert outcome.result == "merged" and "all 3 checks" in outcome.message


def test_an_approval_of_an_older_commit_merges_nothing(hub: Hub) -> None:
    set_config(hub, "ensembles: 1\non_approval: merge\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    payload = hub.review(number, "approved", "ok", sender="mona")  # approves the head of this moment
    repo = hub.fake.repos[REPO]
    work = hub.tmp / "late"
    subprocess.run(["git", "clone", "-q", "-b", "ensemble/issue-1", str(repo.bare), str(work)], check=True)
    (work / "calc.py").write_text("def add(a, b):\n    return 42\n")
    subprocess.run(["git", "-C", str(work), "commit", "-qam", "a later push"], check=True)
    subprocess.run(["git", "-C", str(work), "push", "-q", "origin", "ensemble/issue-1"], check=True)
    hub.ci("success", "ok")  # the later commit is green
    outcome = hub.send("pull_request_review", payload)
    assert outcome.result == "nothing-to-do" and not repo.pulls[number]["merged"]
    assert any("please review the new commits" in c["body"] for c in hub.fake.comments_on(REPO, number))


def test_a_failure_on_a_human_commit_is_not_healed(hub: Hub, engine: ScriptedEngine) -> None:
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    repo = hub.fake.repos[REPO]
    work = hub.tmp / "human"
    subprocess.run(["git", "clone", "-q", "-b", "ensemble/issue-1", str(repo.bare), str(work)], check=True)
    (work / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    subprocess.run(["git", "commit", "-qam", "human change"], cwd=work, check=True)
    subprocess.run(["git", "push", "-q", "origin", "ensemble/issue-1"], cwd=work, check=True)
    hub.fake.on_rerun = lambda r, run: hub.fake.set_jobs(REPO, run, (("test", "failure", "FAILED y"),))
    run = hub.ci("failure", "FAILED y")
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "rerun"
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "held"
    assert len(engine.calls) == 1 and "ensemble:needs-human" not in hub.fake.labels_on(REPO, number)


def test_error_text_in_public_comments_never_shows_a_secret(hub: Hub, engine: ScriptedEngine) -> None:
    set_config(hub, "ensembles: 1\nsecret_env: [DEPLOY_KEY]\nsandbox: {setup_env: {PIP_INDEX_URL: PRIVATE_INDEX}}\n")
    hub.extra_env |= {"OPENAI_API_KEY": "sk-live-abcdefghijklmnop0123456789", "DEPLOY_KEY": "deploy-7f3a9c2e",
                      "PRIVATE_INDEX": "index-token-5e9a1c"}

    def leak(stop: object) -> None:
        raise RuntimeError("auth failed for sk-live-abcdefghijklmnop0123456789 with deploy-7f3a9c2e and index-token-5e9a1c via "
                           f"https://x-access-token:{hub.fake.token}@github.invalid/octo/demo.git")

    engine.before_return = leak
    with pytest.raises(RuntimeError):  # the CLI turns it into exit 1 after the comment is written
        hub.send("issues", hub.labeled(1))
    with pytest.raises(RuntimeError):  # a comment command loads the config from the clone, not the API
        hub.send("issue_comment", hub.comment(1, "/ensemble run"), run_id=9001)
    comments = [c["body"] for c in hub.fake.comments_on(REPO, 1)]
    assert sum("auth failed for" in body for body in comments) == 2  # one progress comment per run
    bodies = "\n".join(comments)
    for secret in ("sk-live-abcdefghijklmnop0123456789", "deploy-7f3a9c2e", "index-token-5e9a1c", hub.fake.token):
        assert secret not in bodies

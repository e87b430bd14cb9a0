"""A push GitHub refuses as not a fast-forward (someone pushed while the bot worked): a clear
error on the thread, the other person's commits untouched, and the bot's own commits kept."""

from __future__ import annotations

import base64
import subprocess
import threading
from pathlib import Path

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine

BRANCH = "ensemble/issue-1"


def human_push(hub: Hub, work: Path, start: str) -> str:
    """A person's commit on BRANCH (made from `start`), pushed over HTTP; returns its SHA."""
    auth = "http.extraheader=AUTHORIZATION: basic " + base64.b64encode(f"x:{hub.fake.token}".encode()).decode()
    subprocess.run(["git", "-c", auth, "clone", "-q", "-b", start, f"{hub.fake.server_url}/{REPO}.git", str(work)],
                   check=True)
    subprocess.run(["git", "checkout", "-q", "-B", BRANCH], cwd=work, check=True)
    (work / "NOTES.md").write_text("a person's notes\n")
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "commit", "-qm", "a person's commit"], cwd=work, check=True)
    subprocess.run(["git", "-c", auth, "push", "-q", "origin", BRANCH], cwd=work, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=work, capture_output=True, text=True).stdout.strip()


def progress_notes(hub: Hub, number: int) -> list[str]:
    return [c["body"] for c in hub.fake.comments_on(REPO, number) if read_marker(c["body"], "progress") is not None]


def unpushed(hub: Hub) -> list[str]:
    out = subprocess.run(["git", "for-each-ref", "--format=%(refname:short)", f"refs/heads/{BRANCH}-unpushed-*"],
                         cwd=hub.fake.repos[REPO].bare, capture_output=True, text=True, check=True).stdout
    return out.split()


def revise_while_someone_pushes(hub: Hub, engine: ScriptedEngine, tmp_path: Path, pr: int) -> None:
    """`/ensemble revise` on #pr while a person pushes to its branch: the push is refused, their commit stays,
    ours is kept on a branch of its own, and the thread says so."""
    theirs: list[str] = []

    def someone_pushes(stop: threading.Event) -> None:
        if len(engine.calls) == 2:  # while the revision runs
            theirs.append(human_push(hub, tmp_path / "person", BRANCH))

    engine.before_return = someone_pushes
    outcome = hub.send("issue_comment", hub.comment(pr, "/ensemble revise use a loop"))
    assert outcome.result == "push-rejected" and outcome.exit_code == 1
    assert hub.fake.head_sha(REPO, BRANCH) == theirs[0]  # their commit is untouched
    [kept] = unpushed(hub)
    assert "Ensemble-Run:" in hub.fake.commit_messages(REPO, kept)[0]  # ours is kept on its own branch
    note = progress_notes(hub, pr)[-1]
    assert f"I could not push to `{BRANCH}`: it moved while I worked" in note and f"`{kept}`" in note
    assert "/ensemble retry" in note and "ensemble:needs-human" in hub.fake.labels_on(REPO, pr)


def test_a_revision_rejected_as_not_a_fast_forward_overwrites_nothing_and_keeps_its_commit(
        hub: Hub, engine: ScriptedEngine, tmp_path: Path) -> None:
    pr = hub.send("issues", hub.labeled(1)).pr_number or 0
    revise_while_someone_pushes(hub, engine, tmp_path, pr)
    assert len(hub.fake.repos[REPO].pulls) == 1


def test_a_first_push_rejected_because_the_branch_appeared_opens_no_pr(
        hub: Hub, engine: ScriptedEngine, tmp_path: Path) -> None:
    theirs: list[str] = []
    engine.before_return = lambda stop: theirs.append(human_push(hub, tmp_path / "person", "main"))
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "push-rejected" and outcome.exit_code == 1
    assert hub.fake.head_sha(REPO, BRANCH) == theirs[0] and not hub.fake.repos[REPO].pulls
    assert len(unpushed(hub)) == 1
    assert "it moved while I worked" in progress_notes(hub, 1)[-1]

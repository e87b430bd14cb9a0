"""Signed commits: with `commit.verified` the bot's commits reach GitHub through the Git Data API, which signs them,
instead of a git push; the lease holds the same way (a branch someone else moved is never overwritten)."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from actions.markers import read_marker
from bot.config import load_config
from bot.errors import ConfigError
from fakes.github_hub import BUGGY, REPO, Hub
from fakes.github_server import FakeGitHub
from fakes.scripted_engine import ScriptedEngine
from tests.actions.test_signoff import sample_issue_run
from tests.security.test_fault_push_rejected import (
    human_push,
    progress_notes,
    revise_while_someone_pushes,
)

BRANCH = "ensemble/issue-1"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def verification(fake: FakeGitHub, sha: str) -> dict:
    request = urllib.request.Request(f"{fake.api_url}/repos/{REPO}/commits/{sha}",
                                     headers={"Authorization": f"token {fake.token}"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["commit"]["verification"]


@pytest.mark.parametrize("verified", [True, False])
def test_the_bots_commits_go_through_the_api_and_are_verified_when_configured(tmp_path: Path, verified: bool) -> None:
    config = f"ensembles: 1\nmax_iterations: 3\ncommit: {{verified: {str(verified).lower()}}}\n"
    with sample_issue_run(tmp_path, REPO, config) as (fake, outcome):
        assert outcome.result == "pr-opened", outcome.message
        bare = fake.repos[REPO].bare
        shas = git(bare, "rev-list", "--reverse", f"main..{BRANCH}").split()
        pushes = [r for r in fake.git_requests if r.startswith("POST ") and r.endswith("/git-receive-pack")]
        made = fake.calls("POST", r"/git/commits$")
        checks = [verification(fake, sha)["verified"] for sha in shas]
        [pull] = fake.repos[REPO].pulls.values()
        notes = [read_marker(c["body"], "progress") for c in fake.comments_on(REPO, 1)]
        recorded = [n["head"] for n in notes if n and n.get("head")]
        body = fake.repos[REPO].issues[pull["number"]]["body"]
        messages = [git(bare, "log", "-1", "--format=%B", sha) for sha in shas]
        trees = [git(bare, "rev-parse", f"{sha}^{{tree}}") for sha in shas]
        files = git(bare, "diff", "--name-only", f"main..{BRANCH}").split()
    assert len(shas) == 2  # the reproduction test, then the fix
    assert all("Ensemble-Run: " in m for m in messages) and len(set(trees)) == 2 and files
    assert recorded[-1] == shas[-1] and all(f"- {sha[:7]} " in body for sha in shas)  # the SHAs on record: GitHub's
    if verified:
        assert not pushes and len(made) == 2 and all(checks)
        assert [c.body["message"].strip() for c in made] == messages
        assert [c.body["tree"] for c in made] == trees
    else:
        assert pushes and not made and not any(checks)


@pytest.fixture
def verified_hub(tmp_path: Path, engine: ScriptedEngine) -> Iterator[Hub]:
    """The fake GitHub with octo/demo (a bug in calc.py) configured for `commit.verified`, and issue #1."""
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo(REPO, {"calc.py": BUGGY, "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n"
                             "    assert add(2, 3) == 5\n",
                             ".github/ensemble.yml": "ensembles: 1\ncommit: {verified: true}\n"})
        fake.add_issue(REPO, "add() subtracts", "add(2, 3) returns -1; it should return 5.", user="alice")
        fake.set_permission(REPO, "alice", "write")
        yield Hub(fake, tmp_path, engine)


def test_a_revision_whose_branch_moved_is_refused_and_overwrites_nothing(
        verified_hub: Hub, engine: ScriptedEngine, tmp_path: Path) -> None:
    hub = verified_hub
    pr = hub.send("issues", hub.labeled(1)).pr_number or 0
    assert pr and hub.fake.calls("POST", r"/git/commits$")
    revise_while_someone_pushes(hub, engine, tmp_path, pr)


def test_a_first_push_whose_branch_appeared_opens_no_pr(
        verified_hub: Hub, engine: ScriptedEngine, tmp_path: Path) -> None:
    hub = verified_hub
    theirs: list[str] = []
    engine.before_return = lambda stop: theirs.append(human_push(hub, tmp_path / "person", "main"))
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "push-rejected" and outcome.exit_code == 1
    assert hub.fake.head_sha(REPO, BRANCH) == theirs[0] and not hub.fake.repos[REPO].pulls
    assert "it moved while I worked" in progress_notes(hub, 1)[-1]


def test_a_non_boolean_verified_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text("commit: {verified: sometimes}\n")
    with pytest.raises(ConfigError, match="verified"):
        load_config(tmp_path, {})

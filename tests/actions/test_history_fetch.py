"""A shallow clone gets its history (commits and trees, no file contents) when the history channel is on."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from actions.github import GitHubRepo
from actions.gitops import complete_history
from fakes.github_server import FakeGitHub
from tests.conftest import git

REPO = "octo/demo"


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as server:
        state = server.add_repo(REPO, {"app.py": "def add(a, b):\n    return a - b\n"})
        work = tmp_path / "work"
        git(tmp_path, "clone", "-q", str(state.bare), str(work))
        for n in range(5):  # history on the default branch, with a file body in every commit
            (work / "app.py").write_text(f"def add(a, b):\n    return a + b + {n}\n")
            git(work, "-c", "user.name=Octo", "-c", "user.email=octo@example.com", "commit", "-qam", f"Fix add, take {n}")
        git(work, "push", "-q", "origin", "HEAD:refs/heads/main")
        yield server


@pytest.fixture
def github(fake: FakeGitHub) -> GitHubRepo:
    return GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url, max_wait_s=10, sleep=lambda s: None)


def shallow_clone(github: GitHubRepo, fake: FakeGitHub, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"{fake.server_url}/{REPO}.git", str(dest)],
                   check=True, env={**github.git_env(), "PATH": "/usr/bin:/bin"})
    return dest


def missing_objects(clone: Path) -> list[str]:
    listing = git(clone, "rev-list", "--objects", "--missing=print", "HEAD")
    return [line for line in listing.splitlines() if line.startswith("?")]


def test_a_shallow_clone_gets_commits_and_trees_only(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path):
    clone = shallow_clone(github, fake, tmp_path / "clone")
    assert git(clone, "rev-list", "--count", "HEAD").strip() == "1"
    assert complete_history(github, clone, history=True)
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "false"
    assert git(clone, "rev-list", "--count", "HEAD").strip() == "6"
    assert len(missing_objects(clone)) == 5  # the old versions of app.py stayed on the server
    assert "Fix add, take 0" in git(clone, "log", "--format=%s", "--name-status", "-M100%")
    assert fake.token not in (clone / ".git" / "config").read_text()


def test_with_the_channel_off_nothing_is_fetched(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path):
    clone = shallow_clone(github, fake, tmp_path / "clone")
    assert not complete_history(github, clone, history=False)
    assert git(clone, "rev-list", "--count", "HEAD").strip() == "1"


def test_a_fetch_that_fails_leaves_the_run_going_without_history(github: GitHubRepo, fake: FakeGitHub,
                                                                 tmp_path: Path, caplog: pytest.LogCaptureFixture):
    clone = shallow_clone(github, fake, tmp_path / "clone")
    broken = GitHubRepo(REPO, "ghs_not_a_valid_token_000000000", fake.api_url, fake.server_url, max_wait_s=10,
                         sleep=lambda s: None)
    assert not complete_history(broken, clone, history=True)
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert "ranking without the repository's history" in caplog.text

"""Commits repositories accept: `commit.signoff` signs off every commit the bot pushes, and `ensemble doctor`
suggests it where the repository looks like it requires a DCO sign-off."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from actions.context import Outcome
from actions.engine import ensemble_engine
from bot.config import CommitSpec, Config
from bot.doctor import DoctorContext, check_signoff
from bot.ensemble.demo import SAMPLE_FILES, TASK_BODY, TASK_TITLE
from bot.ensemble.runner import Components
from bot.ensemble.types import RunResult, Task
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.github_hub import Hub
from fakes.github_server import FakeGitHub
from tests.ensemble.conftest import ScriptedModels, happy_script

REPO = "octo/stats"
SIGNED = "Signed-off-by: ensemble-bot <ensemble-bot@users.noreply.github.com>"


def real_engine(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                progress: Any, stop: threading.Event) -> RunResult:
    """The real engine (planner, coder, critic, judge, commits) with scripted models and pytest on the host."""
    parts = Components(models=ScriptedModels(happy_script()), retriever=FileRetriever(repo_dir), runner=HostPytest())
    return ensemble_engine(repo_dir, task, config, env, run_id=run_id, progress=progress, stop=stop, components=parts)


@contextmanager
def sample_issue_run(tmp_path: Path, repo: str, config: str) -> Iterator[tuple[FakeGitHub, Outcome]]:
    """The sample repository on a fake GitHub with `config`, its issue labelled by a writer and run by the real
    engine (`real_engine`); the fake stays up for the test to read."""
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo(repo, {**SAMPLE_FILES, ".github/ensemble.yml": config})
        fake.add_issue(repo, TASK_TITLE, TASK_BODY, user="alice")
        fake.set_permission(repo, "alice", "write")
        hub = Hub(fake, tmp_path, engine=real_engine)  # type: ignore[arg-type]
        hub.extra_env = {"GITHUB_REPOSITORY": repo}
        payload = hub._base("issues", "alice")
        payload["repository"] |= {"full_name": repo, "name": repo.split("/")[1]}
        payload["issue"] |= {"number": 1, "title": TASK_TITLE, "body": TASK_BODY}
        payload["label"] |= {"name": "ensemble"}
        yield fake, hub.send("issues", payload)


@pytest.mark.parametrize("signoff", [True, False])
def test_every_commit_the_bot_pushes_is_signed_off_when_configured(tmp_path: Path, signoff: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name)  # as on a runner: the bot's clone names the committer
    config = f"ensembles: 1\nmax_iterations: 3\ncommit: {{signoff: {str(signoff).lower()}}}\n"
    with sample_issue_run(tmp_path, REPO, config) as (fake, outcome):
        assert outcome.result == "pr-opened", outcome.message
        messages = fake.commit_messages(REPO, "ensemble/issue-1")
        committers = subprocess.run(["git", "log", "--format=%cn <%ce>", "main..ensemble/issue-1"], check=True,
                                    cwd=fake.repos[REPO].bare, capture_output=True, text=True).stdout.split("\n")
    assert len(messages) == 2  # the reproduction test, then the fix
    assert set(filter(None, committers)) == {SIGNED.removeprefix("Signed-off-by: ")}  # signed off by its committer
    for message in messages:
        trailers = message.splitlines()[-3:]
        assert any(line.startswith("Ensemble-Run: ") for line in trailers)
        assert (trailers[-1] == SIGNED) is signoff and (SIGNED in message) is signoff


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args], cwd=repo, check=True,
                   capture_output=True)


def repository(tmp_path: Path, files: dict[str, str], messages: list[str]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    for n, message in enumerate(messages):
        (repo / "log.txt").write_text(str(n))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", message)
    return repo


SIGNED_MESSAGE = "Fix a thing\n\nSigned-off-by: Dev <dev@example.com>"


@pytest.mark.parametrize(("files", "messages", "evidence"), [
    ({".github/dco.yml": "require:\n  members: false\n"}, ["one"], ".github/dco.yml"),
    ({".github/workflows/dco.yml": "name: DCO\non: pull_request\n"}, ["one"], "a workflow names DCO"),
    ({}, ["one", SIGNED_MESSAGE, SIGNED_MESSAGE, SIGNED_MESSAGE], "3 of its last 4 commits carry Signed-off-by"),
], ids=["dco app", "dco workflow", "signed history"])
def test_doctor_suggests_signoff_where_the_repository_looks_like_it_requires_dco(
        tmp_path: Path, files: dict[str, str], messages: list[str], evidence: str) -> None:
    repo = repository(tmp_path, files, messages)
    found = check_signoff(DoctorContext(repo, {}, Config()))
    assert not found.ok and evidence in found.detail and found.fix == "set `commit: {signoff: true}` in .github/ensemble.yml"
    assert check_signoff(DoctorContext(repo, {}, Config(commit=CommitSpec(signoff=True)))).ok


def test_doctor_suggests_nothing_without_a_dco_sign(tmp_path: Path) -> None:
    repo = repository(tmp_path, {".github/workflows/ci.yml": "name: CI  # docs: https://dcoder.example\n"},
                      ["one", "two", SIGNED_MESSAGE])
    found = check_signoff(DoctorContext(repo, {}, Config()))
    assert found.ok and found.detail == "no DCO sign-off requirement seen"


def test_a_signed_off_verified_commit_signs_off_the_author_github_records(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name)
    config = "ensembles: 1\nmax_iterations: 3\ncommit: {signoff: true, verified: true}\n"
    with sample_issue_run(tmp_path, REPO, config) as (fake, outcome):
        assert outcome.result == "pr-opened", outcome.message
        log = subprocess.run(["git", "log", "--format=%an <%ae>%x00%cn <%ce>%x00%B%x01", "main..ensemble/issue-1"],
                             check=True, cwd=fake.repos[REPO].bare, capture_output=True, text=True).stdout
        shas = subprocess.run(["git", "rev-list", "main..ensemble/issue-1"], check=True, cwd=fake.repos[REPO].bare,
                              capture_output=True, text=True).stdout.split()
        verified = {sha for sha in shas if sha in fake.repos[REPO].verified}
    commits = [entry.strip().split("\x00") for entry in log.split("\x01") if entry.strip()]
    assert len(commits) == 2 and verified == set(shas)  # still made by GitHub, so still verified
    for author, committer, message in commits:
        [signed] = [line.removeprefix("Signed-off-by: ") for line in message.splitlines()
                    if line.startswith("Signed-off-by: ")]
        assert signed in (author, committer), (signed, author, committer)
        assert signed == "github-actions[bot] <github-actions[bot]@users.noreply.github.com>"

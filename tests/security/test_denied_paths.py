"""Denied paths, end to end: the engine refuses to write them and they never reach the bot's branch.

`paths.deny` follows .gitignore rules (`common.globs`), and CI workflows, the bot's configuration,
CODEOWNERS and key files are denied whatever the configuration says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Config, PathsSpec
from bot.ensemble.demo import create_sample_repo
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import Task
from common.git import git
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import FIX, REPRO
from tests.ensemble.conftest import ScriptedModels, happy_script

TASK = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3; expected 2.5.",
            slug="median")


def create(path: str, text: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n=======\n{text}\n>>>>>>> REPLACE\n"


def run_with_coder_writing(repo: Path, paths: list[str], deny: tuple[str, ...]) -> tuple[object, list[str]]:
    """One team whose coder writes `paths` beside the real fix; the files on the resulting branch."""
    evil = "\n".join(create(p, "not for the bot to write") for p in paths)
    script = {**happy_script(), ("coder", None): [REPRO, evil + "\n" + FIX, FIX]}
    parts = Components(models=ScriptedModels(script), retriever=FileRetriever(repo), runner=HostPytest())
    result = run_task(repo, TASK, Config(ensembles=1, max_iterations=2, paths=PathsSpec(deny=deny)), {}, parts)
    files = git(repo, "ls-tree", "-r", "--name-only", result.branch).split() if result.branch else []
    return result, files


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return create_sample_repo(tmp_path / "sample")


def test_the_configured_deny_list_follows_gitignore_rules_end_to_end(repo: Path) -> None:
    denied = ["secrets/token.txt", "deep/dir/key.pem", "app/migrations/0001.py"]
    result, files = run_with_coder_writing(repo, denied, deny=("secrets/", "*.pem", "migrations"))
    assert result.success and "stats/core.py" in files  # the real fix landed
    assert not set(denied) & set(files)
    assert sorted(r.split(":")[0] for r in result.refused) == ["team a"] * 3
    assert all(f"{p} is protected" in "\n".join(result.refused) for p in denied)
    assert "secrets/token.txt is protected by the configuration (paths.deny)" in "\n".join(result.refused)
    assert not any((repo / p).exists() for p in denied)  # nor written into the user's checkout


def test_ci_config_codeowners_and_keys_are_denied_whatever_the_configuration(repo: Path) -> None:
    denied = [".github/workflows/release.yml", ".github/ensemble.yml", "CODEOWNERS", "deploy/id_rsa",
              "conf/server.key", ".env"]
    result, files = run_with_coder_writing(repo, denied, deny=("!.github/", "!CODEOWNERS", "!*.key", "!.env"))
    assert result.success and "stats/core.py" in files
    assert not set(denied) & set(files)
    assert len(result.refused) == len(denied)
    assert all("never edited by the bot" in r for r in result.refused)

"""The last word before `git commit`: a change holding a secret, a link, a submodule, a binary or a huge file is refused.

Real git in tmp_path: a worktree from the local forge, files written straight into it (as anything
other than the coder's edit blocks might), then `commit`. Refused means nothing was committed and
the message names the file and the kind of secret, never the secret.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.forge.local import GitWorkspace, LocalForge
from bot.forge.policy import ChangeRefused
from tests.conftest import git

TRAILERS = {"Ensemble-Run": "r1"}
SHAPES = {
    "github-classic": ("ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "a GitHub token"),
    "github-fine-grained": ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "a GitHub token"),
    "openai": ("sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2", "an OpenAI-style API key"),
    "google": ("AIza" + "SyA1234567890abcdefghijklmnopqrstu", "a Google API key"),
    "aws-access-key-id": ("AKIA" + "IOSFODNN7EXAMPLE", "an AWS access key id"),
    "aws-secret-key": ('aws_secret_access_key = "' + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" + '"',
                       "an AWS secret access key"),
    "private-key": ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
                    "a private key"),
}


@pytest.fixture
def workspace(repo: Path) -> GitWorkspace:
    (repo / "app.py").write_text("print('hi')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "app")
    return new_workspace(repo)


def new_workspace(repo: Path, max_file_bytes: int | None = None) -> GitWorkspace:
    forge = LocalForge(repo, "r1") if max_file_bytes is None else LocalForge(repo, "r1", max_file_bytes)
    forge.start("task")
    return forge.workspace("a")


def head(ws: GitWorkspace) -> str:
    return git(ws.path, "rev-parse", "HEAD").strip()


def refused(ws: GitWorkspace) -> str:
    before = head(ws)
    with pytest.raises(ChangeRefused) as caught:
        ws.commit("change", "", TRAILERS)
    assert head(ws) == before, "nothing may be committed"
    return str(caught.value)


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_token_shape_in_the_diff_is_refused_before_commit(workspace: GitWorkspace, name: str) -> None:
    secret, kind = SHAPES[name]
    (workspace.path / "settings.py").write_text(f"KEY = '''{secret}'''\n")
    message = refused(workspace)
    assert f"settings.py: the new content holds {kind}" in message
    assert secret not in message and secret.splitlines()[0] not in message


def test_the_value_of_a_secret_variable_is_refused(workspace: GitWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plainvalue-not-token-shaped-41")
    (workspace.path / "app.py").write_text("print('hi')\nKEY = 'plainvalue-not-token-shaped-41'\n")
    message = refused(workspace)
    assert "app.py: the new content holds the value of a secret variable" in message
    assert "plainvalue" not in message


def test_a_variable_the_config_declares_secret_is_refused(workspace: GitWorkspace) -> None:
    from bot.config import parse_config
    from bot.ensemble.runner import config_secret_names
    from bot.redact import register_secrets, secret_values

    config = parse_config("secret_env: [DB_PASSWORD]\nmodels: {coder: {provider: openai, model: m, "
                          "api_key_env: LOCAL_KEY}}\n", "ensemble.yml")
    env = {"DB_PASSWORD": "hunter2-but-longer-8812", "LOCAL_KEY": "local-model-key-5531"}
    register_secrets(secret_values(env, config_secret_names(config)))
    (workspace.path / "db.py").write_text("PASSWORD = 'hunter2-but-longer-8812'\n")
    assert "db.py: the new content holds the value of a secret variable" in refused(workspace)
    (workspace.path / "db.py").write_text("KEY = 'local-model-key-5531'\n")
    assert "db.py: the new content holds the value of a secret variable" in refused(workspace)


def test_a_token_already_in_a_fixture_does_not_block_an_edit_elsewhere_in_it(repo: Path) -> None:
    fixture = "FAKE = 'ghp_" + "F" * 36 + "'\n"
    (repo / "fixture.py").write_text(fixture)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fixture")
    ws = new_workspace(repo)
    (ws.path / "fixture.py").write_text(fixture + "OTHER = 1\n")
    assert ws.commit("edit", "", TRAILERS) is not None


def test_a_new_symbolic_link_is_refused(workspace: GitWorkspace) -> None:
    os.symlink("/etc/passwd", workspace.path / "passwd")
    assert "passwd: a symbolic link" in refused(workspace)


def test_a_submodule_gitlink_is_refused(workspace: GitWorkspace) -> None:
    other = workspace.path / "vendor" / "lib"  # an embedded repository: `git add` stages it as a gitlink
    other.mkdir(parents=True)
    git(other, "init", "-q")
    git(other, "commit", "-q", "--allow-empty", "-m", "x")
    assert "vendor/lib: a submodule (gitlink) change" in refused(workspace)


def test_a_submodule_url_rewritten_in_gitmodules_is_refused(workspace: GitWorkspace) -> None:
    (workspace.path / ".gitmodules").write_text('[submodule "lib"]\n\tpath = lib\n\turl = https://evil.example/lib\n')
    assert ".gitmodules: a submodule (gitlink) change" in refused(workspace)


def test_a_binary_file_is_refused(workspace: GitWorkspace) -> None:
    (workspace.path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    assert "blob.bin: a binary file" in refused(workspace)


def test_a_file_over_the_size_limit_is_refused_and_the_limit_is_configurable(repo: Path) -> None:
    ws = new_workspace(repo, max_file_bytes=10_000)
    (ws.path / "data.txt").write_text("x" * 20_000)
    message = refused(ws)
    assert "data.txt: the new content is 20 KB, over the 10 KB limit (paths.max_file_kb)" in message
    (ws.path / "data.txt").write_text("x" * 5_000)
    assert ws.commit("small", "", TRAILERS) is not None


def test_commit_messages_are_redacted(workspace: GitWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "message-secret-value-6620")
    (workspace.path / "app.py").write_text("print('bye')\n")
    workspace.commit("Fix with message-secret-value-6620", "Critic: uses ghp_" + "Q" * 36, TRAILERS)
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=workspace.path, capture_output=True,
                             text=True, check=True).stdout
    assert "message-secret-value-6620" not in message and "ghp_" not in message
    assert "[REDACTED]" in message and "Ensemble-Run: r1" in message

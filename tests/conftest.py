"""Shared test fixtures: a clean environment, the docker marker's policy, and real git repos."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

# Variables that could make a test reach a real service, or change behaviour by accident.
CLEARED_PREFIXES = ("GITHUB_", "RUNNER_", "INPUT_", "OPENAI_", "GEMINI_", "GOOGLE_", "ENSEMBLE_", "ACTIONS_")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's tokens, proxies to real services or Actions variables."""
    for name in list(os.environ):
        if name.startswith(CLEARED_PREFIXES) and name != "ENSEMBLE_BASE_IMAGE":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Author")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "author@example.com")


def docker_engine_error() -> str | None:
    """None when a Docker engine answers, otherwise why not."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.fixture(autouse=True)
def _docker_policy(request: pytest.FixtureRequest) -> None:
    """Tests marked `docker` fail on CI when no engine answers, and skip with a reason elsewhere."""
    if request.node.get_closest_marker("docker") is None:
        return
    error = docker_engine_error()
    if error is None:
        return
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"CI=true but no Docker engine answers ({error}); .ci/run must start dockerd")
    pytest.skip(f"no Docker engine answers ({error}); run `bash scripts/setup.sh` to start one")


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` and return its stdout; fail the test loudly on error."""
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
    return result.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository with one commit."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("sample\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


# Secret values tests may put in the environment; none may appear in any trace file (checked at the end).
FAKE_SECRETS = {
    "GITHUB_TOKEN": "ghs_FakeInstallationToken0123456789abcdef",
    "OPENAI_API_KEY": "sk-test-FakeOpenAIKey0123456789abcdef",
    "GEMINI_API_KEY": "AIzaFakeGeminiKey0123456789abcdefghijk",
}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any trace file a test wrote holds a secret value or a token-shaped string."""
    from bot.redact import TOKEN_PATTERNS

    basetemp = session.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    leaks = []
    for trace in Path(basetemp).rglob("trace.jsonl"):
        text = trace.read_text(errors="replace")
        if any(v in text for v in FAKE_SECRETS.values()) or TOKEN_PATTERNS.search(text):
            leaks.append(str(trace))
    if leaks:
        session.config.get_terminal_writer().line(f"secret found in trace files: {leaks}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

"""Canary secrets and a scanner: every byte a run leaves behind is searched for them."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

import pytest

from bot.ensemble.adapters import SandboxRunner
from bot.ensemble.demo import create_sample_repo
from fakes.openai_server import FakeOpenAI
from sandbox.model import SandboxSpec

# the Action's fake-GitHub hub and scripted engine, for the fault tests
from tests.actions.conftest import engine, hub  # noqa: F401

# Each canary is a secret of a different kind; none may be found in anything a run writes.
CANARIES = {
    "OPENAI_API_KEY": "sk-canary0penai0key0a1b2c3d4e5f6a7b8",
    "GITHUB_TOKEN": "canary-github-token-value-7731",  # not token-shaped: only its value is known
    "DEPLOY_PASSWORD": "canary-deploy-password-49c1f0",  # named by the config's secret_env
}
GHP_CANARY = "ghp_Canary0123456789abcdefABCDEF012345"  # token-shaped, in no variable
ALL_CANARIES = (*CANARIES.values(), GHP_CANARY)
SAY_CANARIES = " ".join(ALL_CANARIES)


# One team, two rounds, every role on the fake OpenAI server, pytest as the test command: a short `ensemble run`.
RUN_CONFIG = """ensembles: 1
max_iterations: 2
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
sandbox: {test: "python -m pytest -q -p no:cacheprovider"}
"""
Checkout = Callable[..., tuple[Path, FakeOpenAI]]


@pytest.fixture
def checkout_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Checkout:
    """`make(config, env, api_key=None)`: the sample repository with `config` committed as its ensemble.yml, a fake
    OpenAI server the process points at, `env` set, and the local sandbox (fast): what `ensemble run` sees."""
    def make(config: str, env: Mapping[str, str], api_key: str | None = None) -> tuple[Path, FakeOpenAI]:
        repo = create_sample_repo(tmp_path / "stats")
        (repo / ".github").mkdir()
        (repo / ".github" / "ensemble.yml").write_text(config)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(["git", "commit", "-qm", "config"], cwd=repo, check=True)
        openai = FakeOpenAI(api_key=api_key)
        openai.start()
        request.addfinalizer(openai.stop)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("OPENAI_BASE_URL", openai.url)
        monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")  # the local sandbox: fast
        return repo, openai

    return make


def git_objects(repo: Path) -> bytes:
    """Every object in the repository's object store, uncompressed (commits, trees, blobs)."""
    out = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True,
                         check=True).stdout
    return out


def leaks(roots: Iterable[Path], canaries: Iterable[str] = ALL_CANARIES, extra: Iterable[tuple[str, bytes]] = ()
          ) -> list[str]:
    """`path: canary-prefix` for each file under `roots` (and each named blob in `extra`) holding a canary."""
    found = []
    blobs = [(str(p), p.read_bytes()) for root in roots for p in sorted(Path(root).rglob("*")) if p.is_file()]
    for name, data in [*blobs, *extra]:
        for canary in canaries:
            if canary.encode() in data:
                found.append(f"{name}: {canary[:10]}…")
    return found


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """The demo's sample repository (a real bug, a failing test), committed on `main`."""
    from bot.ensemble.demo import create_sample_repo

    return create_sample_repo(tmp_path / "sample")


@pytest.fixture
def docker_runner() -> Iterator[Callable[[SandboxSpec], SandboxRunner]]:
    """A test runner on the Docker sandbox, made per spec."""
    from sandbox.docker_sandbox import DockerSandbox
    from tests.conftest import docker_engine

    with docker_engine() as client:
        yield lambda spec: SandboxRunner(DockerSandbox(client), spec)

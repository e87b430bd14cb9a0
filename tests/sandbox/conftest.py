"""Sandbox fixtures: small sample repositories, a Docker sandbox with tight limits, and a check that
no labelled container or volume outlives the tests."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import DockerSandbox, LocalSandbox
from sandbox.images import BASE_IMAGE
from sandbox.model import Environment, Sandbox, SandboxSpec
from sandbox.ownership import OWNER_LABEL, labels

SAMPLE_TESTS = '''\
from calc import add


def test_adds():
    assert add(2, 2) == 4


def test_adds_negative():
    assert add(-1, -1) == -2, "negative numbers"
'''


def base_image() -> str:
    """The image CI and this machine use: ENSEMBLE_BASE_IMAGE or the base image."""
    return os.environ.get("ENSEMBLE_BASE_IMAGE") or BASE_IMAGE


def write_sample(root: Path, correct: bool = True) -> Path:
    """A tiny Python project with two pytest tests; `correct=False` breaks `add`."""
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "conftest.py").write_text("")
    (root / "calc.py").write_text(f"def add(a, b):\n    return a {'+' if correct else '-'} b\n")
    (root / "tests" / "test_calc.py").write_text(SAMPLE_TESTS)
    return root


def prepare_suite(sandbox: Sandbox, repo: Path, files: dict[str, str], **spec: object) -> Environment:
    """`files` written into `repo`, prepared on the base image without setup (`spec` overrides)."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return sandbox.prepare(repo, SandboxSpec(**{"image": base_image(), "setup": "", "memory": "256m", **spec}))


@pytest.fixture(params=[pytest.param("docker", marks=pytest.mark.docker), "local"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sandbox]:
    """Each test that asks for it runs in the Docker sandbox and in the local one (with no container or volume
    left behind)."""
    if request.param == "local":
        yield LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
        return
    request.getfixturevalue("no_leftovers")
    yield DockerSandbox(request.getfixturevalue("docker_client"), env={})


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A fresh sample project."""
    return write_sample(tmp_path / "sample")


@pytest.fixture(scope="module")
def tight_spec() -> SandboxSpec:
    """Small limits so misbehaving commands hit them fast; no setup, straight on the base image."""
    return SandboxSpec(image=base_image(), setup="", timeout_s=20, memory="256m", cpus=1.0, pids=64,
                       workspace_size="64m", tmp_size="16m", max_files=5000, output_limit=64_000)


@pytest.fixture(scope="session")
def docker_client() -> Iterator[object]:
    """A client for the engine; skipped (or failed on CI) by the `docker` marker policy when none answers."""
    from sandbox.engine import docker_client as connect
    from sandbox.errors import EngineUnavailable

    try:
        client = connect()
    except EngineUnavailable as exc:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"CI=true but {exc}")
        pytest.skip(str(exc))
    yield client
    client.close()


def labelled(client: object, kind: str = "containers") -> list[object]:
    """The labelled containers or volumes this test process owns."""
    mine = {"label": f"ensemble.sandbox.owner={labels('test')[OWNER_LABEL]}"}  # others' runs are not ours
    collection = getattr(client, kind)
    if kind == "containers":
        return collection.list(all=True, filters=mine)
    return collection.list(filters=mine)


@pytest.fixture
def no_leftovers(docker_client: object) -> Iterator[None]:
    """Fail the test if it leaves a labelled container or volume behind (and remove them anyway)."""
    before = {c.id for c in labelled(docker_client)} | {v.id for v in labelled(docker_client, "volumes")}
    yield
    left = [c for c in labelled(docker_client) if c.id not in before]
    volumes = [v for v in labelled(docker_client, "volumes") if v.id not in before]
    from sandbox.ownership import remove_container

    for container in left:
        remove_container(container)
    for volume in volumes:
        volume.remove(force=True)
    assert not left, f"containers left behind: {[c.name for c in left]}"
    assert not volumes, f"volumes left behind: {[v.name for v in volumes]}"

"""The one Docker client factory: every caller connects through it, and no engine is a clear error."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sandbox.engine import docker_client
from sandbox.errors import EngineUnavailable

ROOT = Path(__file__).resolve().parents[2]


def test_no_engine_is_an_error_that_names_where_it_looked_and_the_fix() -> None:
    with pytest.raises(EngineUnavailable) as caught:
        docker_client(timeout=2, env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    message = str(caught.value)
    assert "no Docker engine answers at unix:///nonexistent/docker.sock" in message
    assert "dockerd" in message and "sandbox.require_docker: false" in message
    assert caught.value.reason  # the client's own error type, for the doctor's one-line answer


def test_a_malformed_docker_host_is_the_same_clear_error() -> None:
    with pytest.raises(EngineUnavailable, match="no Docker engine answers at nonsense://x"):
        docker_client(timeout=2, env={"DOCKER_HOST": "nonsense://x"})


@pytest.mark.docker
def test_an_engine_that_answers_gives_a_working_client() -> None:
    client = docker_client(timeout=10)
    try:
        assert client.version()["ApiVersion"]
    finally:
        client.close()


def test_only_the_factory_builds_docker_clients() -> None:
    """Production code connects through `sandbox.engine` (tests may point a client at a fake engine)."""
    builders = {"from_env", "DockerClient", "APIClient"}
    offenders = []
    for package in ("bot", "actions", "indexer", "sandbox", "common", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "sandbox" / "engine.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in builders and isinstance(node.func.value, ast.Name)
                        and node.func.value.id == "docker"):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], "build Docker clients with sandbox.engine.docker_client"

"""The one way to reach a Docker engine: `docker_client`, with the clear error when none answers.

The sandbox backend, the toolchain builder (`python -m sandbox`) and the doctor's checks all connect
here, so they honour the same `DOCKER_HOST` (and TLS variables) and say the same thing, with the fix,
when no engine is there. The docker SDK is imported on the first connection, never at import time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from sandbox.errors import EngineUnavailable

if TYPE_CHECKING:
    from docker import DockerClient

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"


def docker_client(timeout: float = 60, env: Mapping[str, str] | None = None) -> DockerClient:
    """A client for the engine `env` (default: this process's environment) points at, pinged.

    Raises EngineUnavailable, naming where it looked and how to fix it, when no engine answers.
    """
    environment = dict(os.environ if env is None else env)
    try:
        import docker

        client = docker.from_env(timeout=timeout, environment=environment)
    except Exception as exc:  # noqa: BLE001 - any failure means "no engine"; say which
        raise _unavailable(environment, exc) from None
    try:
        client.ping()
    except Exception as exc:  # noqa: BLE001
        client.close()
        raise _unavailable(environment, exc) from None
    return client


def engine_address(env: Mapping[str, str] | None = None) -> str:
    """Where a client built from `env` looks for the engine."""
    return (os.environ if env is None else env).get("DOCKER_HOST") or DEFAULT_DOCKER_HOST


def _unavailable(env: Mapping[str, str], exc: Exception) -> EngineUnavailable:
    return EngineUnavailable(f"no Docker engine answers at {engine_address(env)} ({type(exc).__name__}: {exc}); "
                             "start one (`sudo dockerd &` or `bash scripts/setup.sh`) or set "
                             "`sandbox.require_docker: false` to use the weaker local sandbox", type(exc).__name__)

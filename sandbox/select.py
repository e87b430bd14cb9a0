"""Choosing a backend: Docker when an engine answers, else the local fallback with a loud warning."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.docker_sandbox import DockerSandbox
from sandbox.engine import docker_client
from sandbox.errors import EngineUnavailable
from sandbox.local import LocalSandbox
from sandbox.model import Sandbox

if TYPE_CHECKING:
    from docker import DockerClient

log = logging.getLogger(__name__)


def select_sandbox(require_docker: bool, *, client: DockerClient | None = None, env: Mapping[str, str] | None = None,
                   cache_dir: Path | None = None) -> Sandbox:
    """A DockerSandbox if an engine answers; otherwise LocalSandbox, or EngineUnavailable when Docker is required."""
    try:
        return DockerSandbox(client or docker_client(), env)
    except EngineUnavailable as exc:
        if require_docker:
            raise EngineUnavailable(f"{exc} (`sandbox.require_docker` is true)") from None
        log.warning("%s; falling back to the WEAKER local sandbox", exc)
        return LocalSandbox(cache_dir, env)

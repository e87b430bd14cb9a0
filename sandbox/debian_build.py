"""Images made from the base image by installing Debian packages in a container and committing it.

The toolchain images (sandbox/toolchains.py) and the service images (sandbox/service_images.py) are both
built this way: looked up by a tag that hashes the base image and what goes in, built once under a file
lock (parallel runs build it once), and the same name's images from an earlier base removed after.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sandbox.errors import SetupFailed
from sandbox.output import cap_text

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.containers import Container
    from docker.models.images import Image

log = logging.getLogger(__name__)


def ensure_built(client: DockerClient, tag: str, build: Callable[[], None], what: str) -> tuple[Image, bool]:
    """(image, built now): the image tagged `tag`, built by `build` when missing; `what` says what it is in the
    log ("the rust toolchain image from ensemble-base:bookworm with Debian packages rustc cargo (a few minutes)").
    Older images of the same repository and name are removed after a build."""
    import docker.errors
    from filelock import FileLock

    with FileLock(os.path.join(tempfile.gettempdir(), f"ensemble-{tag.replace(':', '-')}.lock")):
        try:
            return client.images.get(tag), False
        except docker.errors.ImageNotFound:
            pass
        log.warning("building %s: %s, once", tag, what)
        started = time.monotonic()
        build()
        log.info("image %s built in %.0f s", tag, time.monotonic() - started)
        _remove_older(client, tag)
        return client.images.get(tag), True


def run_build(container: Container, command: str, base: str, timeout_s: int, advice: str) -> str:
    """Run the build `container` to its end and give its output's last lines; a build that times out or fails
    raises SetupFailed with `advice`. Removing the container is the caller's (after it committed it)."""
    container.start()
    try:
        code = container.wait(timeout=timeout_s)["StatusCode"]
    except Exception as exc:  # noqa: BLE001 - the docker SDK reports a wait timeout as a requests error
        container.kill()
        raise SetupFailed(command, base, -1, f"timed out after {timeout_s}s") from exc
    output: str = container.logs(tail=40).decode("utf-8", "replace")
    if code != 0:
        raise SetupFailed(command, base, code, cap_text(output, 3000), advice)
    return output


def _remove_older(client: DockerClient, keep: str) -> None:
    """Remove the images of `keep`'s repository and name (`repo:name-<hash>`) built from an earlier base image or
    recipe (a new one makes a new tag)."""
    repository, _, rest = keep.partition(":")
    prefix = f"{repository}:{rest.rsplit('-', 1)[0]}-"
    for image in client.images.list(name=repository):
        for tag in image.tags:
            if tag.startswith(prefix) and tag != keep:
                try:
                    client.images.remove(tag)
                except Exception as exc:  # noqa: BLE001 - in use by an environment image or a run: kept for now
                    log.debug("keeping %s: %s", tag, exc)

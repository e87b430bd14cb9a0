"""Images made from the base image by installing Debian packages in a container and committing it.

The toolchain images (sandbox/toolchains.py) and the service images (sandbox/service_images.py) are both
built this way, so both describe their image as a `DebianImage` and leave the rest here: the install script,
the tag (`<repository>:<name>-<hash>`, hashing the base image's id and everything that goes in, so an image is
built once per machine and a new base or recipe makes a new one), the lookup, the build under a file lock
(parallel runs build it once), the commit, and the removal of the same name's images from an earlier base.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sandbox.docker_json import Limits
from sandbox.errors import ImageMissing, SetupFailed
from sandbox.output import cap_text
from sandbox.ownership import labels, remove_container

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.containers import Container
    from docker.models.images import Image

log = logging.getLogger(__name__)
BUILD_TIMEOUT_S = 1800
# Installs the packages given as its arguments from the Debian mirror the base image names, leaving no apt lists.
APT_INSTALL = r"""
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "$@"
apt-get clean
rm -rf /var/lib/apt/lists/*
"""
# How the image is committed, given the base image and the build's last lines of output.
CommitConf = Callable[["Image", str], Mapping[str, object]]


@dataclass(frozen=True)
class DebianImage:
    """One image built from the base image with Debian packages: what its tag holds, what builds it, and how the
    log and the errors name it."""

    repository: str  # the tag's repository, `ensemble-toolchain`; also the build script's $0
    name: str  # the tag's name before the hash: `rust`, `postgresql`
    packages: tuple[str, ...]  # installed, and given to `script` as its arguments
    script: str  # the shell script run as root in the build container (`APT_INSTALL` and any more steps)
    role: str  # the ownership label of the build container (sandbox/ownership.py)
    title: str  # how the log and the errors name it: "the rust toolchain image"
    instead: str  # the user's other way when it cannot be built: "set `sandbox.image` ... to an image that has it"
    took: str  # about how long a build takes, for the log: "a few minutes"
    hashed: tuple[str, ...] = ()  # more of what goes in, hashed into the tag between the script and the packages
    environment: tuple[tuple[str, str], ...] = ()  # the build container's variables

    def tag(self, base_id: str) -> str:
        """`<repository>:<name>-<hash of the base image's id, the script, `hashed` and the packages>`."""
        parts = (base_id, self.script, *self.hashed, *self.packages)
        return f"{self.repository}:{self.name}-{hashlib.sha256(chr(0).join(parts).encode()).hexdigest()[:12]}"


def find_image(client: DockerClient, image: DebianImage, base: str) -> Image | None:
    """The image built from the current base image, or None (also when the base is missing)."""
    import docker.errors

    try:
        return client.images.get(image.tag(client.images.get(base).id))
    except docker.errors.ImageNotFound:
        return None


def ensure_image(client: DockerClient, image: DebianImage, base: str, limits: Limits | None,
                 commit_conf: CommitConf) -> tuple[Image, bool]:
    """(image, built now): the image, built from the base image with its Debian packages when missing and committed
    with `commit_conf`; ImageMissing when the base image is missing, SetupFailed when the build fails."""
    import docker.errors
    from filelock import FileLock

    try:
        base_image = client.images.get(base)
    except docker.errors.ImageNotFound:
        raise ImageMissing(f"the base image {base} is missing, so {image.title} ({', '.join(image.packages)}) cannot "
                           f"be built; run `bash scripts/setup.sh`, or {image.instead}") from None
    tag = image.tag(base_image.id)
    with FileLock(os.path.join(tempfile.gettempdir(), f"ensemble-{tag.replace(':', '-')}.lock")):
        try:
            return client.images.get(tag), False
        except docker.errors.ImageNotFound:
            pass
        log.warning("building %s: %s from %s with Debian packages %s (%s), once", tag, image.title, base,
                    " ".join(image.packages), image.took)
        started = time.monotonic()
        _build(client, image, base_image, base, tag, limits, commit_conf)
        log.info("image %s built in %.0f s", tag, time.monotonic() - started)
        _remove_older(client, tag)
        return client.images.get(tag), True


def _build(client: DockerClient, image: DebianImage, base_image: Image, base: str, tag: str, limits: Limits | None,
           commit_conf: CommitConf) -> None:
    """Run the build container to its end and commit it as `tag`; a build that times out or fails raises
    SetupFailed with the apt output and the fix."""
    container = client.containers.create(
        base_image.id, entrypoint=["sh", "-c", image.script, image.repository], command=list(image.packages),
        environment=dict(image.environment) or None, user="0:0", labels=labels(image.role, BUILD_TIMEOUT_S),
        security_opt=["no-new-privileges"], log_config={"type": "json-file", "config": {"max-size": "5m"}},
        **(limits or Limits()))
    command = f"apt-get install {' '.join(image.packages)}"
    try:
        output = _run(container, command, base, f"{image.title} is built with the Debian mirror in the base image's "
                      f"apt sources: make it reachable, or {image.instead}")
        container.commit(repository=image.repository, tag=tag.split(":", 1)[1], conf=commit_conf(base_image, output))
    finally:
        remove_container(container)


def _run(container: Container, command: str, base: str, advice: str) -> str:
    """Run the build `container` to its end and give its output's last lines; a build that times out or fails
    raises SetupFailed with `advice`."""
    container.start()
    try:
        code = container.wait(timeout=BUILD_TIMEOUT_S)["StatusCode"]
    except Exception as exc:  # noqa: BLE001 - the docker SDK reports a wait timeout as a requests error
        container.kill()
        raise SetupFailed(command, base, -1, f"timed out after {BUILD_TIMEOUT_S}s") from exc
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

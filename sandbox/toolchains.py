"""Toolchain images: the base image plus a language's Debian packages, for machines without an image registry.

When a language's default image (`golang:…`, `rust:…`, `node:…`) cannot be pulled, the sandbox
builds `ensemble-toolchain:<name>-<hash>` from the base image with the distribution's packages
(`golang-go`, `cargo`/`rustc`, `nodejs`/`npm`, `build-essential`/`cmake`, `default-jdk`/`maven`)
from the Debian mirror the base image already names. The tag hashes the base image's id and the
package list, so a toolchain image is built once per machine and reused like an environment image.

    python -m sandbox toolchains go rust node c     # build ahead of time (scripts/setup.sh --dev does)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sandbox.debian_build import ensure_built, run_build
from sandbox.docker_json import Limits, committed_config
from sandbox.errors import ImageMissing
from sandbox.images import BASE_IMAGE
from sandbox.ownership import LABEL, labels, remove_container

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.images import Image

TOOLCHAIN_REPOSITORY = "ensemble-toolchain"
BUILD_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Toolchain:
    """A named set of Debian packages that gives a language its compiler, runner and package manager."""

    name: str
    packages: tuple[str, ...]
    tools: tuple[str, ...]  # the commands it provides, for messages


TOOLCHAINS = {
    "go": Toolchain("go", ("golang-go",), ("go", "gofmt")),
    "rust": Toolchain("rust", ("cargo", "rustc"), ("cargo", "rustc", "rustdoc")),
    "node": Toolchain("node", ("nodejs", "npm"), ("node", "nodejs", "npm", "npx")),
    "c": Toolchain("c", ("build-essential", "cmake"), ("make", "cc", "gcc", "c++", "g++", "cpp", "cmake", "ctest")),
    "java": Toolchain("java", ("default-jdk-headless", "maven"), ("java", "javac", "mvn")),
}
# detected language -> toolchain; Python (and anything unknown) runs on the base image itself
LANGUAGE_TOOLCHAINS = {"go": "go", "rust": "rust", "javascript": "node", "make": "c", "cmake": "c",
                       "java-maven": "java", "java-gradle": "java"}

INSTALL_SCRIPT = r"""
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "$@"
apt-get clean
rm -rf /var/lib/apt/lists/*
"""


def toolchain_for(language: str) -> Toolchain | None:
    """The toolchain a detected language needs, or None when the base image serves it."""
    name = LANGUAGE_TOOLCHAINS.get(language)
    return TOOLCHAINS[name] if name else None


def toolchain_tag(toolchain: Toolchain, base_id: str) -> str:
    """`ensemble-toolchain:<name>-<hash of base image id and packages>`."""
    digest = hashlib.sha256("\0".join((base_id, INSTALL_SCRIPT, *toolchain.packages)).encode()).hexdigest()
    return f"{TOOLCHAIN_REPOSITORY}:{toolchain.name}-{digest[:12]}"


def find_toolchain_image(client: DockerClient, toolchain: Toolchain, base: str = BASE_IMAGE) -> Image | None:
    """The toolchain image built from the current base image, or None (also when the base is missing)."""
    import docker.errors

    try:
        base_image = client.images.get(base)
        return client.images.get(toolchain_tag(toolchain, base_image.id))
    except docker.errors.ImageNotFound:
        return None


def ensure_toolchain_image(client: DockerClient, toolchain: Toolchain, base: str = BASE_IMAGE,
                           limits: Limits | None = None) -> tuple[Image, bool]:
    """(image, built now): the toolchain image, built from the base image with Debian packages when missing."""
    import docker.errors

    try:
        base_image = client.images.get(base)
    except docker.errors.ImageNotFound:
        raise ImageMissing(f"the base image {base} is missing, so the {toolchain.name} toolchain "
                           f"({', '.join(toolchain.packages)}) cannot be built; run `bash scripts/setup.sh`, or set "
                           "`sandbox.image` in .github/ensemble.yml to an image that has it") from None
    tag = toolchain_tag(toolchain, base_image.id)
    return ensure_built(client, tag, lambda: _install(client, base_image, base, toolchain, tag, limits),
                        f"the {toolchain.name} toolchain image from {base} with Debian packages "
                        f"{' '.join(toolchain.packages)} (a few minutes)")


def _install(client: DockerClient, base_image: Image, base: str, toolchain: Toolchain, tag: str,
             limits: Limits | None) -> None:
    container = client.containers.create(
        base_image.id, entrypoint=["sh", "-c", INSTALL_SCRIPT, "ensemble-toolchain"], command=list(toolchain.packages),
        user="0:0", labels=labels("toolchain", BUILD_TIMEOUT_S), security_opt=["no-new-privileges"],
        log_config={"type": "json-file", "config": {"max-size": "5m"}}, **(limits or Limits()))
    command = f"apt-get install {' '.join(toolchain.packages)}"
    try:
        run_build(container, command, base, BUILD_TIMEOUT_S, f"the {toolchain.name} toolchain image is built with "
                  "the Debian mirror in the base image's apt sources: make it reachable, or set `sandbox.image` in "
                  ".github/ensemble.yml to an image that has the toolchain")
        container.commit(repository=TOOLCHAIN_REPOSITORY, tag=tag.split(":", 1)[1], conf=committed_config(
            base_image, {LABEL: "toolchain", "ensemble.toolchain.packages": " ".join(toolchain.packages)}))
    finally:
        remove_container(container)

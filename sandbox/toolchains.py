"""Toolchain images: the base image plus a language's Debian packages, for machines without an image registry.

When a language's default image (`golang:…`, `rust:…`, `node:…`) cannot be pulled, the sandbox
builds `ensemble-toolchain:<name>-<hash>` from the base image with the distribution's packages
(`golang-go`, `cargo`/`rustc`, `nodejs`/`npm`, `build-essential`/`cmake`, `default-jdk`/`maven`)
from the Debian mirror the base image already names. The tag hashes the base image's id and the
package list, so a toolchain image is built once per machine and reused like an environment image.

    python -m sandbox toolchains go rust node c     # build ahead of time (scripts/setup.sh --dev does)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sandbox.debian_build import APT_INSTALL, DebianImage, ensure_image, find_image
from sandbox.docker_json import Limits, committed_config
from sandbox.images import BASE_IMAGE
from sandbox.ownership import LABEL

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.images import Image

TOOLCHAIN_REPOSITORY = "ensemble-toolchain"


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


def toolchain_for(language: str) -> Toolchain | None:
    """The toolchain a detected language needs, or None when the base image serves it."""
    name = LANGUAGE_TOOLCHAINS.get(language)
    return TOOLCHAINS[name] if name else None


def toolchain_image(toolchain: Toolchain) -> DebianImage:
    """How the toolchain's image is built: the base image with its packages installed, nothing more."""
    return DebianImage(TOOLCHAIN_REPOSITORY, toolchain.name, toolchain.packages, APT_INSTALL, "toolchain",
                       f"the {toolchain.name} toolchain image",
                       "set `sandbox.image` in .github/ensemble.yml to an image that has the toolchain", "a few minutes")


def toolchain_tag(toolchain: Toolchain, base_id: str) -> str:
    """`ensemble-toolchain:<name>-<hash of the base image's id, the install script and the packages>`."""
    return toolchain_image(toolchain).tag(base_id)


def find_toolchain_image(client: DockerClient, toolchain: Toolchain, base: str = BASE_IMAGE) -> Image | None:
    """The toolchain image built from the current base image, or None (also when the base is missing)."""
    return find_image(client, toolchain_image(toolchain), base)


def ensure_toolchain_image(client: DockerClient, toolchain: Toolchain, base: str = BASE_IMAGE,
                           limits: Limits | None = None) -> tuple[Image, bool]:
    """(image, built now): the toolchain image, built from the base image with Debian packages when missing."""
    labels = {LABEL: "toolchain", "ensemble.toolchain.packages": " ".join(toolchain.packages)}
    return ensure_image(client, toolchain_image(toolchain), base, limits,
                        lambda base_image, _output: committed_config(base_image, labels))

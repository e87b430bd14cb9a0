"""Names of the sandbox's images: the base image, default images by language, environment image tags.

An environment image is the chosen image after the setup phase, tagged by a hash of the image's
id, the setup command and the dependency files, so runs whose dependencies did not change skip setup.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

# Built by scripts/setup.sh from Debian packages (debootstrap + docker import), no registry needed.
BASE_IMAGE = "ensemble-base:bookworm"
IMAGE_ENV_VAR = "ENSEMBLE_SANDBOX_IMAGE"
ENV_IMAGE_REPOSITORY = "ensemble-env"

# Used on GitHub runners, where the registry is reachable; ENSEMBLE_SANDBOX_IMAGE overrides them.
DEFAULT_IMAGES: dict[str, str | None] = {
    "python": "python:3.12-slim",
    "javascript": "node:20-bookworm-slim",
    "go": "golang:1.22-bookworm",
    "rust": "rust:1-slim-bookworm",
    "java-maven": "maven:3-eclipse-temurin-21",
    "java-gradle": "gradle:8-jdk21",
    "make": "buildpack-deps:bookworm",
    "cmake": None,  # no official image has CMake: the toolchain image (Debian packages) serves
    "unknown": "buildpack-deps:bookworm",
}


def configured_image(config_image: str | None, env: Mapping[str, str]) -> str | None:
    """The image the user chose: config `sandbox.image` first, then ENSEMBLE_SANDBOX_IMAGE."""
    return config_image or env.get(IMAGE_ENV_VAR) or None


def default_image(language: str) -> str | None:
    """The default image for a detected language; None when only a toolchain image serves it."""
    return DEFAULT_IMAGES.get(language, DEFAULT_IMAGES["unknown"])


def environment_key(image_id: str, setup: str, env: Iterable[tuple[str, str]], repo_dir: Path,
                    dependency_files: Iterable[str]) -> str:
    """A stable hash of everything the setup phase depends on."""
    digest = hashlib.sha256()
    for part in (image_id, setup, repr(sorted(env))):
        digest.update(part.encode() + b"\0")
    for name in sorted(dependency_files):
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256((repo_dir / name).read_bytes()).digest())
    return digest.hexdigest()[:24]


def environment_tag(key: str) -> str:
    """The image tag of a prepared environment."""
    return f"{ENV_IMAGE_REPOSITORY}:{key}"

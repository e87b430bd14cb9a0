"""Per language, whether a toolchain image is available: the registry image, or one built from Debian packages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.doctor.check import Check, DoctorContext

if TYPE_CHECKING:  # docker loads only when the doctor asks an engine (sandbox/engine.py)
    from docker import DockerClient


def check_toolchains(ctx: DoctorContext) -> list[Check]:
    """One line per toolchain (Go, Rust, Node, C/CMake, Java); nothing when no Docker engine answers."""
    from sandbox.engine import docker_client
    from sandbox.errors import EngineUnavailable

    try:
        client = docker_client(timeout=5, env=ctx.env)
    except EngineUnavailable:  # the Docker check already says so, and how to fix it
        return []
    try:
        return [_toolchain_check(client, name, _repo_language(ctx)) for name in _names()]
    finally:
        client.close()


def _names() -> list[str]:
    from sandbox.toolchains import TOOLCHAINS

    return list(TOOLCHAINS)


def _repo_language(ctx: DoctorContext) -> str:
    from sandbox.detect import detect_project

    try:
        return detect_project(ctx.repo, env=ctx.env).language
    except OSError:
        return "unknown"


def _toolchain_check(client: DockerClient, name: str, repo_language: str) -> Check:
    from sandbox.images import DEFAULT_IMAGES
    from sandbox.toolchains import LANGUAGE_TOOLCHAINS, TOOLCHAINS, find_toolchain_image

    toolchain = TOOLCHAINS[name]
    languages = [lang for lang, tc in LANGUAGE_TOOLCHAINS.items() if tc == name]
    title = f"Toolchain {name}" + (" (this repository)" if repo_language in languages else "")
    registry = list(dict.fromkeys(image for lang in languages if (image := DEFAULT_IMAGES.get(lang))))
    present = [image for image in registry if _has(client, image)]
    if present:
        return Check(title, True, f"{', '.join(present)} (registry image, present)")
    if (built := find_toolchain_image(client, toolchain)) is not None:
        return Check(title, True, f"{built.tags[0]} (built from Debian packages {' '.join(toolchain.packages)})")
    pulled = f"pulled ({', '.join(registry)}) where a registry answers, else " if registry else ""
    return Check(title, False, f"no image yet: {pulled}built on first use from Debian packages "
                 f"{' '.join(toolchain.packages)} (a minute or two)",
                 f"build it now: `python -m sandbox toolchains {name}` (or ENSEMBLE_TOOLCHAINS={name} bash "
                 "scripts/setup.sh)")


def _has(client: DockerClient, image: str) -> bool:
    try:
        client.images.get(image)
        return True
    except Exception:  # noqa: BLE001 - absent, or unreadable: not available either way
        return False

"""The Docker engine's JSON that the sandbox reads and writes, typed where it enters and leaves.

The docker SDK hands the engine's answers back as plain dicts (`Image.attrs`, `Volume.attrs`,
`APIClient.exec_inspect`) and takes plain dicts for a commit's image config. These TypedDicts name
the fields the sandbox uses, in the engine's own spelling, and the functions here are where the
sandbox reads a raw answer; its other modules get the typed view. The SDK's objects themselves
(`DockerClient`, `Container`, `Image`, `Volume`, `APIClient`) are used as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict, cast

if TYPE_CHECKING:
    from docker import APIClient
    from docker.models.images import Image
    from docker.models.volumes import Volume


class ImageConfig(TypedDict, total=False):
    """An image's `Config`: the environment, entrypoint, command and labels it runs with (each may be null)."""

    Env: list[str] | None
    Entrypoint: list[str] | None
    Cmd: list[str] | None
    Labels: dict[str, str] | None


class ImageAttrs(TypedDict, total=False):
    """`docker image inspect`, as far as the sandbox reads it."""

    Id: str
    Created: str  # RFC 3339, so newer sorts later
    Size: int
    Config: ImageConfig | None


class ExecState(TypedDict, total=False):
    """`docker exec inspect`: whether the command still runs, and its exit status once it has stopped."""

    Running: bool
    ExitCode: int | None


class VolumeAttrs(TypedDict, total=False):
    """`docker volume inspect`, as far as the sandbox reads it."""

    Labels: dict[str, str] | None


class Limits(TypedDict, total=False):
    """The resource limits a container is created with (keyword arguments of `containers.create`; those left
    out are the engine's defaults)."""

    mem_limit: str
    memswap_limit: str
    pids_limit: int
    nano_cpus: int


class CommitConfig(TypedDict):
    """The image config a container is committed with: our label, and the base image's entrypoint and command."""

    Labels: dict[str, str]
    Entrypoint: list[str]
    Cmd: list[str]


def image_attrs(image: Image) -> ImageAttrs:
    """What the engine said about `image` when it was listed or fetched."""
    return cast(ImageAttrs, image.attrs)


def image_config(image: Image) -> ImageConfig:
    """The image's `Config`; empty when the engine gives none."""
    return image_attrs(image).get("Config") or {}


def volume_labels(volume: Volume) -> dict[str, str]:
    """The labels a volume was created with; empty when it has none."""
    return cast(VolumeAttrs, volume.attrs).get("Labels") or {}


def exec_state(api: APIClient, exec_id: str) -> ExecState:
    """Where the exec `exec_id` stands, asked of the engine now."""
    return cast(ExecState, api.exec_inspect(exec_id))


def committed_config(base: Image, labels: dict[str, str]) -> CommitConfig:
    """The config to commit a container made from `base` with: `labels`, and the base's entrypoint and command
    (an empty list, not null: a commit would otherwise keep the setup container's)."""
    config = image_config(base)
    return CommitConfig(Labels=labels, Entrypoint=config.get("Entrypoint") or [], Cmd=config.get("Cmd") or ["sh"])

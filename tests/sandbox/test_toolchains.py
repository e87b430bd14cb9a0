"""Toolchain images built from the base image and Debian packages, with a real engine and the Debian mirror
(a one-package toolchain keeps it quick): built when the default image cannot be pulled, then reused."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.docker_env import resolve_image
from sandbox.errors import ImageMissing, SetupFailed
from sandbox.images import BASE_IMAGE
from sandbox.toolchains import (
    LANGUAGE_TOOLCHAINS,
    TOOLCHAIN_REPOSITORY,
    TOOLCHAINS,
    Toolchain,
    ensure_toolchain_image,
    toolchain_tag,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]
TINY = Toolchain("test-make", ("make",), ("make",))
UNPULLABLE = "ensemble-unpullable.invalid/none:1"  # a registry that does not exist anywhere


@pytest.fixture
def tiny_toolchain(docker_client: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The `test-lang` language served by a toolchain of GNU make alone; its image removed before and after."""
    monkeypatch.setitem(TOOLCHAINS, TINY.name, TINY)
    monkeypatch.setitem(LANGUAGE_TOOLCHAINS, "test-lang", TINY.name)
    tag = toolchain_tag(TINY, docker_client.images.get(BASE_IMAGE).id)
    _remove(docker_client, tag)
    yield tag
    _remove(docker_client, tag)


def _remove(client: Any, tag: str) -> None:
    import docker.errors

    with contextlib.suppress(docker.errors.ImageNotFound):
        client.images.remove(tag, force=True)


def test_an_unpullable_default_image_gets_a_toolchain_image_once(docker_client: Any, tiny_toolchain: str,
                                                                  no_leftovers: None) -> None:
    older = f"{TOOLCHAIN_REPOSITORY}:{TINY.name}-0123456789ab"  # as if built from an earlier base image
    docker_client.images.get(BASE_IMAGE).tag(older)

    image, how = resolve_image(docker_client, UNPULLABLE, False, "test-lang")
    assert image.tags == [tiny_toolchain]
    assert how.startswith(f"{tiny_toolchain} (toolchain from Debian packages make, built now; {UNPULLABLE} cannot be")
    output = docker_client.containers.run(image.id, ["make", "--version"], remove=True)
    assert output.startswith(b"GNU Make")
    assert image.labels["ensemble.toolchain.packages"] == "make"
    assert not docker_client.images.list(name=older)  # the older build is removed

    again, how = resolve_image(docker_client, UNPULLABLE, False, "test-lang")
    assert again.id == image.id and how == f"{tiny_toolchain} (toolchain from Debian packages make, cached)"


def test_an_image_the_user_chose_is_never_replaced_by_a_toolchain(docker_client: Any, tiny_toolchain: str) -> None:
    with pytest.raises(ImageMissing, match="is not present and cannot be pulled"):
        resolve_image(docker_client, UNPULLABLE, True, "test-lang")
    assert not docker_client.images.list(name=tiny_toolchain)


def test_a_present_default_image_is_used_as_it_is(docker_client: Any, tiny_toolchain: str) -> None:
    image, how = resolve_image(docker_client, BASE_IMAGE, False, "test-lang")
    assert image.tags == [BASE_IMAGE] and how == f"{BASE_IMAGE} (present)"


def test_a_package_the_mirror_does_not_have_fails_with_the_apt_output_and_the_fix(docker_client: Any,
                                                                                   no_leftovers: None) -> None:
    broken = Toolchain("test-broken", ("ensemble-no-such-package",), ())
    with pytest.raises(SetupFailed) as caught:
        ensure_toolchain_image(docker_client, broken)
    message = str(caught.value)
    assert message.startswith(f"sandbox setup `apt-get install ensemble-no-such-package` in image {BASE_IMAGE} exited")
    assert "Unable to locate package ensemble-no-such-package" in message
    assert "Debian mirror in the base image's apt sources" in message and "sandbox.image" in message

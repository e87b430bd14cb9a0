"""Names of the sandbox's environment images."""

from __future__ import annotations

from collections.abc import Mapping

# Built by scripts/setup.sh from Debian packages (debootstrap + docker import), no registry needed.
BASE_IMAGE = "ensemble-base:bookworm"
IMAGE_ENV_VAR = "ENSEMBLE_SANDBOX_IMAGE"


def configured_image(config_image: str | None, env: Mapping[str, str]) -> str | None:
    """The image the user chose: config `sandbox.image` first, then ENSEMBLE_SANDBOX_IMAGE."""
    return config_image or env.get(IMAGE_ENV_VAR) or None

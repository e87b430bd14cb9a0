"""`python -m sandbox toolchains NAME...`: build toolchain images ahead of time (scripts/setup.sh --dev does)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from sandbox.docker_json import image_attrs
from sandbox.images import BASE_IMAGE
from sandbox.toolchains import TOOLCHAINS, ensure_toolchain_image


def main(argv: list[str] | None = None) -> int:
    """Build (or find) the named toolchain images and say where each came from."""
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("toolchains", help="build toolchain images from the base image and Debian packages")
    build.add_argument("names", nargs="+", choices=sorted(TOOLCHAINS), help="toolchains to build")
    build.add_argument("--base", default=os.environ.get("ENSEMBLE_BASE_IMAGE") or BASE_IMAGE)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from sandbox.engine import docker_client

    client = docker_client()
    for name in args.names:
        started = time.monotonic()
        image, built = ensure_toolchain_image(client, TOOLCHAINS[name], args.base)
        how = f"built in {time.monotonic() - started:.0f} s" if built else "present"
        print(f"{name}: {image.tags[0]} ({image_attrs(image).get('Size', 0) >> 20} MiB, {how})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

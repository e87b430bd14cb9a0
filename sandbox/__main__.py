"""`python -m sandbox toolchains NAME...` and `python -m sandbox services KIND...`: build toolchain and service
images ahead of time from Debian packages (scripts/setup.sh --dev does)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from sandbox.docker_json import image_attrs
from sandbox.images import BASE_IMAGE
from sandbox.service_images import KINDS, ensure_service_image
from sandbox.toolchains import TOOLCHAINS, ensure_toolchain_image


def main(argv: list[str] | None = None) -> int:
    """Build (or find) the named toolchain or service images and say where each came from."""
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("toolchains", help="build toolchain images from the base image and Debian packages")
    build.add_argument("names", nargs="+", choices=sorted(TOOLCHAINS), help="toolchains to build")
    build.add_argument("--base", default=os.environ.get("ENSEMBLE_BASE_IMAGE") or BASE_IMAGE)
    services = commands.add_parser("services", help="build service images (PostgreSQL, Redis, MariaDB) from the base "
                                   "image and Debian packages")
    services.add_argument("names", nargs="+", choices=sorted(KINDS), help="services to build")
    services.add_argument("--base", default=os.environ.get("ENSEMBLE_BASE_IMAGE") or BASE_IMAGE)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from sandbox.engine import docker_client

    client = docker_client()
    for name in args.names:
        started = time.monotonic()
        if args.command == "services":
            image, built = ensure_service_image(client, KINDS[name], args.base)
        else:
            image, built = ensure_toolchain_image(client, TOOLCHAINS[name], args.base)
        how = f"built in {time.monotonic() - started:.0f} s" if built else "present"
        print(f"{name}: {image.tags[0]} ({image_attrs(image).get('Size', 0) >> 20} MiB, {how})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

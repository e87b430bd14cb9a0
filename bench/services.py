#!/usr/bin/env python
"""What services cost: building their images from Debian packages (once per machine), and each run's start.

    .venv/bin/python bench/services.py [--runs 3] [--rebuild]

With `--rebuild` each kind's image (PostgreSQL, Redis, MariaDB) is removed and built again from the base image,
timed. Then, per kind, a run's services are started `--runs` times as a test run starts them
(sandbox/services.py: the internal network, the service container, the port forwarder, the health check
passing) and removed; "healthy" is from the service container's creation to its health check passing,
"with network" the whole start including the network and the forwarder. Medians are printed.
"""

from __future__ import annotations

import argparse
import logging
import re
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
sys.path.insert(0, str(BENCH.parent))

from sandbox.engine import docker_client  # noqa: E402
from sandbox.images import BASE_IMAGE  # noqa: E402
from sandbox.model import Environment, ProjectInfo, SandboxSpec  # noqa: E402
from sandbox.recipe import service  # noqa: E402
from sandbox.service_images import KINDS, ensure_service_image, find_service_image  # noqa: E402
from sandbox.services import prepare_services, running_services  # noqa: E402

IMAGES = {"postgresql": ("postgres:16", {"POSTGRES_PASSWORD": "bench", "POSTGRES_DB": "bench"}, "5432:5432"),
          "redis": ("redis:7", {}, "6379:6379"),
          "mariadb": ("mariadb:11", {"MARIADB_ROOT_PASSWORD": "bench", "MARIADB_DATABASE": "bench"}, "3306:3306")}


class _Healthy(logging.Handler):
    """Keeps the seconds sandbox/services.py logs when a service passes its health check."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        if found := re.search(r"healthy ([\d.]+) s after its start", record.getMessage()):
            self.seconds.append(float(found.group(1)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true", help="remove and build each service image again, timed")
    args = parser.parse_args()
    client = docker_client()
    healthy = _Healthy()
    logging.getLogger("sandbox.services").addHandler(healthy)
    logging.getLogger("sandbox.services").setLevel(logging.INFO)
    for name, kind in KINDS.items():
        if args.rebuild and (old := find_service_image(client, kind)) is not None:
            client.images.remove(old.tags[0])
        started = time.monotonic()
        image, built = ensure_service_image(client, kind, BASE_IMAGE)
        build = f"built in {time.monotonic() - started:.0f} s" if built else "present"
        image_name, env, port = IMAGES[name]
        spec = SandboxSpec()
        prepared = prepare_services(client, [service(kind.name, image_name, tuple(env.items()), [port], "")], spec)
        environment = Environment(Path("."), spec, ProjectInfo("unknown", None), BASE_IMAGE, "docker", "", True,
                                  services=prepared)
        healthy.seconds.clear()
        whole = []
        for _ in range(args.runs):
            started = time.monotonic()
            with running_services(client, environment, 600):
                whole.append(time.monotonic() - started)
        print(f"{name}: {image.tags[0]} ({build}); start to healthy, median of {args.runs}: "
              f"{statistics.median(healthy.seconds):.2f} s (with network and forwarder "
              f"{statistics.median(whole):.2f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

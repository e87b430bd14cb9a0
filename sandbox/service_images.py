"""Service images: the image a service names, or one built from Debian packages where no registry answers.

A service's image is used when present, pulled where a registry answers, and otherwise, for the kinds
the sandbox knows (PostgreSQL for `postgres`, Redis for `redis`, MariaDB for `mariadb` and `mysql`),
built once from the base image with Debian's packages (`postgresql`, `redis-server`, `mariadb-server`),
as the toolchain images are (sandbox/toolchains.py). The data directory is initialised at build time; the
entry point, `sandbox/service_entry.py`, is given when a service starts (so a change to it rebuilds
nothing) and reads the official images' variables (POSTGRES_PASSWORD, MYSQL_DATABASE ...). The tag
`ensemble-service:<kind>-<hash>` hashes the base image's id, the packages and the build script, so an image
is built once per machine.

    python -m sandbox services postgresql redis mariadb     # build ahead of time (scripts/setup.sh --dev does)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.debian_build import APT_INSTALL, DebianImage, ensure_image, find_image
from sandbox.docker_json import Limits, image_config
from sandbox.errors import ServiceFailed
from sandbox.images import BASE_IMAGE
from sandbox.model import ServiceImage
from sandbox.ownership import LABEL
from sandbox.recipe import Service

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.images import Image

SERVICE_REPOSITORY = "ensemble-service"
VERSIONS_LABEL = "ensemble.service.versions"


@dataclass(frozen=True)
class ServiceKind:
    """A server the sandbox can build from Debian packages, and the registry images it stands in for."""

    name: str
    packages: tuple[str, ...]
    repositories: tuple[str, ...]  # `postgres` for postgres:16, docker.io/library/postgres:16-alpine ...
    user: str  # the server runs as this user, with no capability at all
    health: str  # the health check when the workflow gives none (it works in the official images too)
    prepare: str  # shell run as root after the packages are installed: data directory, socket folder


KINDS = {
    "postgresql": ServiceKind(
        "postgresql", ("postgresql",), ("postgres",), "postgres", "pg_isready -h 127.0.0.1 -p 5432 -q", r"""
for cluster in $(pg_lsclusters -h | awk '{print $1 "/" $2}'); do pg_dropcluster --stop "${cluster%/*}" "${cluster#*/}"; done
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
install -d -o postgres -g postgres -m 700 /var/lib/ensemble/postgresql
install -d -o postgres -g postgres -m 2775 /var/run/postgresql
su postgres -s /bin/sh -c "$bin/initdb -D /var/lib/ensemble/postgresql -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8" >/dev/null
"""),
    "redis": ServiceKind("redis", ("redis-server",), ("redis",), "redis", "redis-cli -h 127.0.0.1 ping", ""),
    "mariadb": ServiceKind(
        "mariadb", ("mariadb-server", "mariadb-client"), ("mariadb", "mysql"), "mysql",
        "mariadb-admin ping -h 127.0.0.1 --silent || mysqladmin ping -h 127.0.0.1 --silent", r"""
install -d -o mysql -g mysql /var/lib/ensemble/mariadb /run/mysqld
mariadb-install-db --user=mysql --datadir=/var/lib/ensemble/mariadb --auth-root-authentication-method=normal --skip-test-db >/dev/null
# the official image's health check (`healthcheck.sh --connect --innodb_initialized`): ready when it answers
printf '#!/bin/sh\nexec mariadb-admin ping -h 127.0.0.1 --silent\n' > /usr/local/bin/healthcheck.sh
chmod 755 /usr/local/bin/healthcheck.sh
"""),
}
# The packages installed, then the kind's `prepare` run, then the packages' versions written for the image's label.
BUILD_SCRIPT = APT_INSTALL + r"""sh -ec "$ENSEMBLE_PREPARE"
echo "ensemble-versions: $(dpkg-query -W -f '${Package} ${Version} ' "$@")"
"""


def kind_of(image: str) -> ServiceKind | None:
    """The kind a registry image is (`postgres:16-alpine` -> PostgreSQL), or None for any other image."""
    name = image.split("@", 1)[0]
    repository = name.rsplit(":", 1)[0] if ":" in name.rsplit("/", 1)[-1] else name
    parts = repository.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # a registry host
    if parts[:1] == ["library"]:
        parts = parts[1:]
    return next((k for k in KINDS.values() if "/".join(parts) in k.repositories), None)


def default_health(image: str) -> str | None:
    """The health check of a known kind of image, for a service whose workflow gives none."""
    kind = kind_of(image)
    return kind.health if kind else None


def service_build(kind: ServiceKind) -> DebianImage:
    """How the kind's image is built: the base image with its packages installed and its `prepare` run."""
    return DebianImage(SERVICE_REPOSITORY, kind.name, kind.packages, BUILD_SCRIPT, "service-build",
                       f"the {kind.name} service image",
                       "name an image you have under `sandbox.services` in .github/ensemble.yml", "a minute or two",
                       hashed=(kind.prepare,), environment=(("ENSEMBLE_PREPARE", kind.prepare),))


def service_tag(kind: ServiceKind, base_id: str) -> str:
    """`ensemble-service:<kind>-<hash of the base image, packages and build script>`."""
    return service_build(kind).tag(base_id)


def entrypoint(kind: ServiceKind) -> list[str]:
    """How a service built from Debian packages starts: the entry point's current source, for its kind."""
    return ["python3", "-c", Path(__file__).with_name("service_entry.py").read_text(encoding="utf-8"), kind.name]


def find_service_image(client: DockerClient, kind: ServiceKind, base: str = BASE_IMAGE) -> Image | None:
    """The kind's image built from the current base image, or None (also when the base is missing)."""
    return find_image(client, service_build(kind), base)


def ensure_service_image(client: DockerClient, kind: ServiceKind, base: str = BASE_IMAGE,
                         limits: Limits | None = None) -> tuple[Image, bool]:
    """(image, built now): the kind's image, built from the base image with Debian packages when missing."""
    return ensure_image(client, service_build(kind), base, limits, lambda _base, output: _commit_conf(kind, output))


def _commit_conf(kind: ServiceKind, output: str) -> dict[str, object]:
    """The service image's config: no entry point of its own (the current one is given at start, see `entrypoint`),
    the kind's user, and the packages' versions the build printed as a label."""
    versions = next((line.split(":", 1)[1].strip() for line in output.splitlines()
                     if line.startswith("ensemble-versions:")), "")
    return {"Labels": {LABEL: "service", VERSIONS_LABEL: versions}, "Entrypoint": [], "Cmd": ["sh"], "User": kind.user,
            "Env": ["LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"], "WorkingDir": "/tmp"}


def service_image(client: DockerClient, service: Service, limits: Limits) -> ServiceImage:
    """The image a service runs from, and how it was had: present, a cached Debian build, pulled, or built now."""
    import docker.errors

    from sandbox.docker_env import pull_image

    try:
        client.images.get(service.image)
        return ServiceImage(service, service.image, f"{service.image} (present)")
    except docker.errors.ImageNotFound:
        pass
    kind = kind_of(service.image)
    if kind is not None and (found := find_service_image(client, kind)) is not None:
        return _built(service, found, kind, "cached")
    pulled, reason = pull_image(client, service.image)
    if pulled is not None:
        return ServiceImage(service, service.image, f"{service.image} (pulled)")
    if kind is None:
        raise ServiceFailed(f"service `{service.name}`: image {service.image} is not present and cannot be pulled "
                            f"({reason}); without a registry the sandbox builds only PostgreSQL (postgres), Redis "
                            "(redis) and MariaDB (mariadb, mysql) from Debian packages. Pull or build the image, or "
                            f"name one you have as `sandbox.services.{service.name}.image` in .github/ensemble.yml")
    image, _ = ensure_service_image(client, kind, limits=limits)
    return _built(service, image, kind, f"built now; {reason}")


def _built(service: Service, image: Image, kind: ServiceKind, how: str) -> ServiceImage:
    tag = image.tags[0] if image.tags else image.id
    versions = (image_config(image).get("Labels") or {}).get(VERSIONS_LABEL, "").strip()
    what = versions or " ".join(kind.packages)
    return ServiceImage(service, tag, f"{tag} in place of {service.image} (built from Debian packages {what}, {how})",
                        built=True)

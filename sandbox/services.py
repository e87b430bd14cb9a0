"""The services of one test run: containers beside the sandbox on an internal network made for the run.

    with running_services(client, env, lifetime_s) as network_mode:   # "none" when there are no services
        ... the test container, created with `network_mode` ...

Each service runs in its own container from its image (sandbox/service_images.py), with only the variables
its workflow entry (or `sandbox.services`) gives it and the run's memory, CPU and process limits, on a Docker
network created `internal` for the run: no route out, and names resolve only to the run's own containers.
Every container and the network carry the sandbox's labels (sandbox/ownership.py), so a crashed run's are
reaped like its test container; all are removed when the run ends. Services are fresh for every run: no
test run sees another's data, and two teams' runs in parallel never share a database.

How the tests reach them, as on GitHub: by the service's name (its network alias), and at `localhost:PORT`
where the entry maps a port. The test container cannot share localhost with several service containers, so
it joins the network namespace of a small forwarder container (sandbox/forwarder.py) that listens on the
mapped ports of 127.0.0.1 and forwards each connection to its service. The test container keeps every
hardening of the test phase (no capability, no new privileges, read-only root, uid 1000, limits); only its
network changes from none to this namespace, which has the internal network and nothing else. The
forwarder is hardened the same way.

A service is ready when its health check passes: the `--health-cmd` of its options, else its kind's own
(`pg_isready`, `redis-cli ping`, `mariadb-admin ping`), else a TCP connection to its first port, run every
quarter second (not at docker's `--health-interval`) within the patience its options give. One that exits
or stays unhealthy raises `ServiceFailed` with its last words and the fix.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.docker_env import limits
from sandbox.errors import ServiceFailed
from sandbox.images import BASE_IMAGE, DEFAULT_IMAGES
from sandbox.model import Environment, ServiceImage
from sandbox.output import cap_text
from sandbox.ownership import labels, remove_container
from sandbox.service_images import default_health, entrypoint, kind_of, service_image
from sandbox.workspace import SANDBOX_UID

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.containers import Container
    from docker.models.networks import Network

    from sandbox.model import SandboxSpec
    from sandbox.recipe import Service

log = logging.getLogger(__name__)
POLL_S = 0.25
FORWARDER_START_S = 30.0
FIX = ("fix the service in the workflow, or state it under `sandbox.services` in .github/ensemble.yml (image, env, "
       "ports, options: --health-cmd ...)")
# Capabilities a pulled image keeps: its entry point may need to change owners and drop to its own user, as the
# official database images do; raw sockets and device nodes it never needs.
PULLED_CAP_DROP = ["NET_RAW", "MKNOD", "AUDIT_WRITE", "SETFCAP"]


def prepare_services(client: DockerClient, services: Sequence[Service], spec: SandboxSpec) -> tuple[ServiceImage, ...]:
    """Each service's image, found, pulled or built now, before any run (so a missing one stops the run early)."""
    return tuple(service_image(client, service, limits(spec)) for service in services)


@contextlib.contextmanager
def running_services(client: DockerClient, env: Environment, lifetime_s: float) -> Iterator[str]:
    """The run's services started and healthy; yields the network mode the test container takes."""
    if not env.services:
        yield "none"
        return
    network = client.networks.create(f"ensemble-run-{uuid.uuid4().hex[:12]}", driver="bridge", internal=True,
                                     labels=labels("network", lifetime_s))
    started: list[Container] = []
    since = time.monotonic()
    try:
        for prepared in env.services:
            started.append(_start_service(client, network, prepared, env.spec, lifetime_s))
        pairs = list(zip(env.services, started, strict=True))
        forwarder = _start_forwarder(client, network, env, lifetime_s)
        started.append(forwarder)
        _wait_healthy(pairs, forwarder, since)
        yield f"container:{forwarder.id}"
    finally:
        for container in reversed(started):
            remove_container(container)
        _remove_network(network)


def _start_service(client: DockerClient, network: Network, prepared: ServiceImage, spec: SandboxSpec,
                   lifetime_s: float) -> Container:
    from docker.errors import APIError

    service = prepared.service
    kind = kind_of(service.image) if prepared.built else None
    # The sandbox's own images run as their server's user; nothing there needs a capability.
    hardening = ({"cap_drop": ["ALL"], "entrypoint": entrypoint(kind)} if kind is not None
                 else {"cap_drop": PULLED_CAP_DROP})
    try:
        container = client.containers.create(
            prepared.image, environment=dict(service.env), labels=labels("service", lifetime_s),
            network=network.name,
            networking_config={network.name: client.api.create_endpoint_config(aliases=[service.name])},
            security_opt=["no-new-privileges"], log_config={"type": "json-file", "config": {"max-size": "1m"}},
            **hardening, **limits(spec))
    except APIError as exc:
        raise ServiceFailed(f"service `{service.name}` (image {prepared.image}) could not be created: "
                            f"{exc.explanation or exc}; {FIX}") from None
    try:
        container.start()
    except BaseException:
        remove_container(container)
        raise
    return container


def _start_forwarder(client: DockerClient, network: Network, env: Environment, lifetime_s: float) -> Container:
    """The container whose network namespace the tests join, forwarding localhost's mapped ports to the services."""
    routes: dict[int, str] = {}
    for prepared in env.services:
        for local, port in prepared.service.ports:
            if local in routes:
                raise ServiceFailed(f"services `{routes[local].split(':')[0]}` and `{prepared.service.name}` both map "
                                    f"localhost:{local}; give one another port ({FIX})")
            routes[local] = f"{prepared.service.name}:{port}"
    image = _forwarder_image(client, env.image)
    low = any(port < 1024 for port in routes)
    container = client.containers.create(
        image, entrypoint=["python3", "-c", _FORWARDER.read_text(encoding="utf-8")],
        command=[f"{local}={target}" for local, target in routes.items()], user=f"{SANDBOX_UID}:{SANDBOX_UID}",
        network=network.name, cap_drop=["ALL"], security_opt=["no-new-privileges"], read_only=True,
        labels=labels("forwarder", lifetime_s), mem_limit="128m", memswap_limit="128m", pids_limit=64,
        nano_cpus=500_000_000, log_config={"type": "json-file", "config": {"max-size": "1m"}},
        # ports below 1024 (80:80) in this namespace only, without giving anyone a capability
        sysctls={"net.ipv4.ip_unprivileged_port_start": "0"} if low else None)
    try:
        container.start()
        _wait_forwarder(container, image)
    except BaseException:
        remove_container(container)
        raise
    return container


_FORWARDER = Path(__file__).with_name("forwarder.py")


def _forwarder_image(client: DockerClient, test_image: str) -> str:
    """An image with python3 for the forwarder: the sandbox's base image, else the registry's Python image (pulled
    where a registry answers, as on GitHub's runners), else the test image itself."""
    import docker.errors

    from sandbox.docker_env import pull_image

    try:
        client.images.get(BASE_IMAGE)
        return BASE_IMAGE
    except docker.errors.ImageNotFound:
        pass
    python = DEFAULT_IMAGES["python"] or BASE_IMAGE
    try:
        client.images.get(python)
        return python
    except docker.errors.ImageNotFound:
        return python if pull_image(client, python)[0] is not None else test_image


def _wait_forwarder(container: Container, image: str) -> None:
    deadline = time.monotonic() + FORWARDER_START_S
    while time.monotonic() < deadline:
        if b"ready" in container.logs(stdout=True, stderr=False):
            return
        container.reload()
        if container.status not in ("created", "running"):
            break
        time.sleep(0.05)
    words = container.logs(tail=20).decode("utf-8", "replace").strip() or "(no output)"
    raise ServiceFailed(f"the forwarder that gives the tests the services' ports on localhost did not start in image "
                        f"{image} (it runs python3 there): {cap_text(words, 1500)}; build the sandbox's base image "
                        f"{BASE_IMAGE} (`bash scripts/setup.sh`) or use a `sandbox.image` with python3")


def _wait_healthy(services: list[tuple[ServiceImage, Container]], forwarder: Container, started: float) -> None:
    """Return once every service passes its health check; raise ServiceFailed for the first that cannot. Times
    count from `started`, when the first service was created."""
    waiting = dict(enumerate(services))
    last: dict[int, str] = {}
    while waiting:
        for index, (prepared, container) in list(waiting.items()):
            healthy, words = _check(prepared, container, forwarder)
            last[index] = words
            if healthy:
                log.info("service %s healthy %.2f s after its start", prepared.service.name, time.monotonic() - started)
                del waiting[index]
            elif _exited(container) or time.monotonic() - started > prepared.service.health.patience_s:
                raise _unhealthy(prepared, container, words, time.monotonic() - started)
        if waiting:
            time.sleep(POLL_S)


def health_command(prepared: ServiceImage) -> str | None:
    """The command that says a service is ready: its own, else its kind's, else None (a TCP connection)."""
    return prepared.service.health.command or default_health(prepared.service.image)


def _check(prepared: ServiceImage, container: Container, forwarder: Container) -> tuple[bool, str]:
    """(healthy, what the check said)."""
    command = health_command(prepared)
    timeout = max(1, int(prepared.service.health.timeout_s))
    if command is not None:
        argv = ["sh", "-c", f'if command -v timeout >/dev/null; then exec timeout {timeout} sh -c "$0"; '
                'else exec sh -c "$0"; fi', command]
        where = container
    elif prepared.service.ports:
        probe = "import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 2).close()"
        argv = ["python3", "-c", probe, prepared.service.name, str(prepared.service.ports[0][1])]
        where = forwarder
    else:
        return _running(container), "(no health check: running)"
    try:
        code, output = where.exec_run(argv, demux=False)
    except Exception as exc:  # noqa: BLE001 - the container is not running (yet, or any more)
        return False, str(exc)
    return code == 0, (output or b"").decode("utf-8", "replace").strip()


def _running(container: Container) -> bool:
    container.reload()
    return str(container.status) == "running"


def _exited(container: Container) -> bool:
    container.reload()
    return str(container.status) in ("exited", "dead")


def _unhealthy(prepared: ServiceImage, container: Container, words: str, waited: float) -> ServiceFailed:
    service = prepared.service
    logs = container.logs(tail=30).decode("utf-8", "replace").strip() or "(no output)"
    state = "exited" if _exited(container) else f"did not become healthy within {waited:.0f} s"
    check = health_command(prepared) or (f"a connection to port {service.ports[0][1]}" if service.ports else "running")
    return ServiceFailed(f"service `{service.name}` ({prepared.source}) {state}: its health check ({check}) last "
                         f"said: {cap_text(words or '(nothing)', 500)}; its log ends:\n{cap_text(logs, 2000)}\n{FIX}")


def _remove_network(network: Network) -> None:
    for _ in range(20):
        try:
            network.remove()
            return
        except Exception as exc:  # noqa: BLE001 - an endpoint still going away; the next reap removes it
            if "No such" in str(exc) or "not found" in str(exc):
                return
            time.sleep(0.25)
    log.warning("could not remove the run's network %s; the next sandbox run removes it (its label names this "
                "process and an expiry)", network.name)


def reap_networks(client: DockerClient, is_leftover: Callable[[Mapping[str, str]], bool]) -> int:
    """Remove the labelled networks that `is_leftover(labels)` says are leftovers (their containers are gone first);
    count them."""
    from sandbox.ownership import LABEL

    removed = 0
    for network in client.networks.list(filters={"label": LABEL}):
        if is_leftover((network.attrs or {}).get("Labels") or {}):
            with contextlib.suppress(Exception):
                network.remove()
                removed += 1
    return removed

"""Ownership of what the sandbox creates: every container, volume and image carries labels naming its
kind, its owner process and its expiry, so leftovers can be found and reaped; and removing a container.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docker.models.containers import Container

log = logging.getLogger(__name__)
LABEL = "ensemble.sandbox"
OWNER_LABEL = "ensemble.sandbox.owner"


EXPIRES_LABEL = "ensemble.sandbox.expires"
REAP_GRACE_S = 900  # past a container's own lifetime, it is a leftover whoever owns it


def labels(kind: str, lifetime_s: float | None = None) -> dict[str, str]:
    """Labels every container, volume and image of ours carries, so leftovers can be found and reaped.

    The owner is `host:pid-namespace:pid:start-time`, so a reaper never mistakes another
    namespace's process, or a new process that reuses the pid, for the owner. With a lifetime,
    the expiry (epoch seconds) lets any reaper remove the leftover once it has passed.
    """
    found = {LABEL: kind, OWNER_LABEL: owner_id(os.getpid())}
    if lifetime_s is not None:
        found[EXPIRES_LABEL] = str(int(time.time() + lifetime_s + REAP_GRACE_S))
    return found


def owner_id(pid: int) -> str:
    """`host:pid-namespace:pid:start-time` of process `pid` as seen from this process."""
    return f"{socket.gethostname()}:{pid_namespace()}:{pid}:{process_start(pid)}"


def pid_namespace() -> str:
    """This process's pid namespace ('pid:[4026531836]' -> '4026531836'); '' where /proc does not say."""
    try:
        return os.readlink("/proc/self/ns/pid").strip("pid:[]")
    except OSError:
        return ""


def process_start(pid: int) -> str:
    """The start time of `pid` in clock ticks since boot, '' when it does not exist (or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rindex(")") + 2:].split()[19]


def remove_container(container: Container, patience_s: float = 60) -> None:
    """Force-remove a container and its anonymous volumes, waiting out a slow or in-progress removal.

    A daemon that refuses the connection is gone, not busy: nothing is waited for then (a run whose
    engine died ends at once), and the container's labels let the next sandbox run reap it.
    """
    import docker.errors
    import requests

    deadline = time.monotonic() + patience_s
    while True:
        try:
            container.remove(force=True, v=True)
            return
        except docker.errors.NotFound:
            return
        except Exception as exc:  # noqa: BLE001 - a busy daemon; retry until the deadline
            gone = isinstance(exc, requests.ConnectionError) and not isinstance(exc, requests.Timeout)
            if gone or time.monotonic() > deadline:
                log.warning("could not remove sandbox container %s: %s; the next sandbox run removes it "
                            "(its label names this process and an expiry)",
                            container.short_id, exc)
                return
            time.sleep(0.5)

"""The Docker backend: a hardened, throw-away container per run, with the repository copied in.

Test phase: no network, every capability dropped, `no-new-privileges`, uid 1000, memory (swap
equal to memory), CPU and pids limits, read-only root, a size-capped tmpfs workspace and `/tmp` (both allow running what the tests build),
a wall-clock timeout, then kill. Nothing comes back but capped output and capped result files
read through the API; the host's repository (and its `.git`) is never written.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from sandbox.detect import detect_project
from sandbox.docker_env import ENV_DIR, WORKSPACE, image_path, limits, prepare_image
from sandbox.docker_json import exec_state, volume_labels
from sandbox.engine import docker_client
from sandbox.errors import EngineUnavailable, ImageMissing, SandboxError
from sandbox.evidence import Ended, result_of
from sandbox.images import IMAGE_ENV_VAR
from sandbox.model import Environment, ExecResult, SandboxSpec
from sandbox.output import CappedBuffer
from sandbox.ownership import (
    EXPIRES_LABEL,
    LABEL,
    OWNER_LABEL,
    labels,
    pid_namespace,
    process_start,
    remove_container,
)
from sandbox.scripts import RUN_SCRIPT, command_env, new_nonce, plugin_files, results_folder, run_variables
from sandbox.services import prepare_services, reap_networks, running_services
from sandbox.workspace import OWNED_FOLDER_MODE, SANDBOX_UID, Overlay, build_tar, read_tar_files

if TYPE_CHECKING:
    from docker import APIClient, DockerClient
    from docker.models.containers import Container
    from docker.models.volumes import Volume

log = logging.getLogger(__name__)
TIMEOUT_EXIT = 124
MAX_RESULT_BYTES = 16 << 20
MAX_RESULT_FILE = 8 << 20
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([bkmg]?)$")


def size_bytes(text: str) -> int:
    """'512m' -> bytes."""
    match = _SIZE.match(text.strip().lower())
    if not match:
        raise SandboxError(f"size {text!r} is not valid; use a number with b, k, m or g, like 512m")
    return int(float(match.group(1)) * 1024 ** "bkmg".index(match.group(2) or "b"))


class DockerSandbox:
    """Runs commands in hardened containers from cached environment images."""

    name = "docker"

    def __init__(self, client: DockerClient | None = None, env: Mapping[str, str] | None = None):
        self.client = client or docker_client()
        self.env = dict(os.environ if env is None else env)
        try:
            if reaped := reap(self.client):
                log.info("removed %d sandbox containers left by runs that are gone", reaped)
        except Exception as exc:  # noqa: BLE001 - housekeeping must not stop a run
            log.debug("reaping leftovers failed: %s", exc)

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        """Detect the project and build (or reuse) its environment image."""
        repo_dir = Path(repo_dir).resolve()
        project = detect_project(repo_dir, spec, self.env)
        user_chosen = bool(spec.image or self.env.get(IMAGE_ENV_VAR))
        with engine_errors(project.image or ""):
            image, key, cached, setup_s, source = prepare_image(self.client, repo_dir, project, spec, user_chosen,
                                                                self.env)
            services = prepare_services(self.client, project.services, spec)
        return Environment(repo_dir, spec, project, image, self.name, key, cached, setup_s, image_source=source,
                           services=services)

    def run(self, env: Environment, command: str, timeout: float | None = None,
            files: Overlay | None = None, trace_reads: bool = False, owned: Collection[str] = ()) -> ExecResult:
        """Run `command` on a fresh copy of the repository (with `files` over it); failures, timeouts and OOM
        are data. `trace_reads`: report the repository files the tests' Python processes open. `owned`: files the
        command cannot change, remove or rename (read-only, root's, in root's sticky folders: sandbox/workspace.py)."""
        timeout = float(timeout or env.spec.timeout_s)
        with engine_errors(env.image), running_services(self.client, env, timeout + 600) as network_mode:
            return self._run(env, command, timeout, files, trace_reads, network_mode, owned)

    def _run(self, env: Environment, command: str, timeout: float, files: Overlay | None, trace_reads: bool,
             network_mode: str, owned: Collection[str] = ()) -> ExecResult:
        volume = container = None
        started = time.monotonic()  # the services' start is not the tests' time
        try:
            with engine_errors(env.image):
                volume, container = self._start(env, timeout, network_mode, owned_root=bool(owned))
                plugins = plugin_files(owned)  # the sandbox's own files are the judge's too
                archive = build_tar(env.repo_dir, max_bytes=size_bytes(env.spec.workspace_size),
                                    extra=plugins.items(), overlay=files, owned=[*owned, *plugins] if owned else ())
                container.put_archive(WORKSPACE, archive)
                return self._exec(env, container, command, timeout, started, trace_reads, files)
        finally:
            if container is not None:
                remove_container(container)
            if volume is not None:
                _quietly(volume.remove, force=True)

    def _start(self, env: Environment, timeout: float, network_mode: str = "none",
               owned_root: bool = False) -> tuple[Volume, Container]:
        """The test container on a fresh workspace volume; `network_mode` is none, or the run's services' namespace
        (sandbox/services.py), which reaches the services and nothing else. `owned_root`: the workspace's root is
        root's and sticky, so the folders holding owned files cannot be renamed away (sandbox/workspace.py)."""
        spec = env.spec
        lifetime = timeout + 600  # the container's `sleep` outlives the command by this much
        owner = f"uid=0,gid=0,mode={OWNED_FOLDER_MODE:o}" if owned_root else f"uid={SANDBOX_UID},gid={SANDBOX_UID},mode=0755"
        volume = self.client.volumes.create(driver="local", labels=labels("test", lifetime), driver_opts={
            "type": "tmpfs", "device": "tmpfs",
            "o": f"size={size_bytes(spec.workspace_size)},{owner},nosuid,nodev,nr_inodes={spec.max_files}"})
        try:
            from docker.types import Mount

            container = self.client.containers.create(
                env.image, entrypoint=["sleep"], command=[str(int(timeout) + 600)], init=True,
                user=f"{SANDBOX_UID}:{SANDBOX_UID}", working_dir=WORKSPACE, network_mode=network_mode,
                cap_drop=["ALL"], security_opt=["no-new-privileges"], read_only=True,
                # exec: compilers (go test, cmake) build and run test programs in the scratch space, as in the workspace
                tmpfs={"/tmp": f"rw,exec,nosuid,nodev,size={size_bytes(spec.tmp_size)},mode=1777,nr_inodes={spec.max_files}"},
                mounts=[Mount(WORKSPACE, volume.name, type="volume")], labels=labels("test", lifetime),
                log_config={"type": "none", "config": {}}, **limits(spec))
        except BaseException:
            _quietly(volume.remove, force=True)
            raise
        try:
            container.start()
        except BaseException:
            remove_container(container)
            _quietly(volume.remove, force=True)
            raise
        return volume, container

    def _exec(self, env: Environment, container: Container, command: str, timeout: float, started: float,
              trace_reads: bool, files: Overlay | None) -> ExecResult:
        api = self.client.api
        base_path = image_path(self.client.images.get(env.image))
        results = f"{WORKSPACE}/{results_folder(new_nonce())}"
        environment = command_env(env.project, env_dir=ENV_DIR, workspace=WORKSPACE, tmp="/tmp", base_path=base_path,
                                  results=results, extra=run_variables(trace_reads))
        exec_id: str = api.exec_create(container.id, ["sh", "-c", RUN_SCRIPT, "ensemble-run", command],
                                       user=f"{SANDBOX_UID}:{SANDBOX_UID}", workdir=WORKSPACE,
                                       environment=environment)["Id"]
        out, err = CappedBuffer(env.spec.output_limit), CappedBuffer(env.spec.output_limit)
        stream = api.exec_start(exec_id, stream=True, demux=True)
        reader = threading.Thread(target=_drain, args=(stream, out, err), daemon=True)
        reader.start()
        timed_out = not _wait_for_exec(api, exec_id, reader, started + timeout)

        def read() -> tuple[dict[str, bytes], dict[str, bytes]]:  # the run's own result files, the runners' reports
            return (self._result_files(container, [results]),
                    self._result_files(container, [f"{WORKSPACE}/{path}" for path in env.project.result_paths]))

        if timed_out:  # read before the kill: the workspace's tmpfs volume is unmounted when the container stops
            own, reports = read()
            _quietly(container.kill)
            reader.join(5)
        duration = time.monotonic() - started
        code = TIMEOUT_EXIT if timed_out else exec_state(api, exec_id).get("ExitCode")
        if code is None:  # never a pass: a run whose exit status is unknown did not succeed
            raise EngineUnavailable(f"the Docker engine lost the exit status of `{command}` in image {env.image}; "
                                    "check `docker info` and the daemon's log, then retry")
        code = int(code)
        oom = not timed_out and code != 0 and _oom_killed(api, container)
        if not timed_out:
            own, reports = read()  # a killed run's progress log too
        folder = PurePosixPath(results).name
        own_files = {PurePosixPath(name).name: data for name, data in own.items()
                     if PurePosixPath(name).parent == PurePosixPath(folder)}  # the folder's own files, not deeper ones
        ended = Ended(command, code, out.text(), err.text(), duration, timed_out, oom)
        return result_of(ended, own_files, reports, env.repo_dir, files)

    def _result_files(self, container: Container, paths: list[str]) -> dict[str, bytes]:
        import docker.errors

        files: dict[str, bytes] = {}
        for path in paths:
            try:
                chunks, _ = container.get_archive(path)
            except docker.errors.NotFound:
                continue
            except docker.errors.APIError as exc:
                log.warning("cannot read result files at %s: %s", path, exc)
                continue
            files.update(read_tar_files(chunks, MAX_RESULT_BYTES - sum(map(len, files.values())), MAX_RESULT_FILE))
        return files


@contextlib.contextmanager
def engine_errors(image: str) -> Iterator[None]:
    """Turn the docker SDK's infrastructure failures into SandboxErrors that say what to do."""
    import docker.errors
    import requests

    try:
        yield
    except docker.errors.ImageNotFound as exc:
        raise ImageMissing(f"sandbox image {image} is gone ({exc.explanation}); prepare the environment again "
                           "or pull/build the image") from None
    except (docker.errors.APIError, requests.exceptions.ConnectionError) as exc:
        raise EngineUnavailable(f"the Docker engine failed while using image {image}: {exc}; check `docker info` "
                                "and the daemon's log, then retry") from None


def _wait_for_exec(api: APIClient, exec_id: str, reader: threading.Thread, deadline: float) -> bool:
    """Wait until the engine says the command exited; False on timeout.

    The end of the output stream is not the end of the command (the stream can break while
    it runs), and a leftover daemon may hold the stream open after it: only the engine's
    `Running` flag counts.
    """
    while time.monotonic() < deadline:
        reader.join(min(0.25, max(0.0, deadline - time.monotonic())))
        if not exec_state(api, exec_id).get("Running", True):
            reader.join(0.5)  # let the last output arrive
            return True
        if not reader.is_alive():
            time.sleep(min(0.25, max(0.0, deadline - time.monotonic())))
    return False


def _drain(stream: Iterable[tuple[bytes | None, bytes | None]], out: CappedBuffer, err: CappedBuffer) -> None:
    try:
        for stdout, stderr in stream:
            out.write(stdout or b"")
            err.write(stderr or b"")
    except Exception as exc:  # noqa: BLE001 - the stream breaks when the container is killed
        log.debug("output stream ended: %s", exc)


def _oom_killed(api: APIClient, container: Container) -> bool:
    """Whether the kernel's OOM killer fired in this container's memory cgroup (v1 or v2)."""
    probe = "cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null"
    try:
        exec_id: str = api.exec_create(container.id, ["sh", "-c", probe])["Id"]
        answer: bytes = api.exec_start(exec_id)
        text = answer.decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - no answer means we cannot tell
        return False
    return any(int(n) > 0 for n in re.findall(r"^oom_kill (\d+)", text, re.M))


def _quietly(action: Callable[..., object], **kwargs: object) -> None:
    try:
        action(**kwargs)
    except Exception as exc:  # noqa: BLE001 - cleanup must not hide the real error
        if "No such" not in str(exc) and "404" not in str(exc):
            log.warning("sandbox cleanup: %s", exc)


def reap(client: DockerClient, everything: bool = False) -> int:
    """Remove labelled containers and volumes that are leftovers; count the containers.

    A leftover has passed its expiry, or its owner (a process in this host's and this pid
    namespace) is gone. Anything owned by a live process, or by another namespace before its
    expiry, is left alone: it may be another run's.
    """
    now = time.time()
    removed = 0
    # ignore_removed: another run may remove a container between the listing and its inspection
    for container in client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True):
        if everything or leftover(container.labels or {}, now):
            remove_container(container)
            removed += 1
    for volume in client.volumes.list(filters={"label": LABEL}):
        if everything or leftover(volume_labels(volume), now):
            _quietly(volume.remove, force=True)
    reap_networks(client, lambda found: everything or leftover(found, now))  # the services' networks
    return removed


def leftover(found: Mapping[str, str], now: float) -> bool:
    """Whether a labelled container or volume is safe to remove (see `reap`)."""
    expires = found.get(EXPIRES_LABEL, "")
    if expires.isdigit() and now > int(expires):
        return True
    parts = found.get(OWNER_LABEL, "").split(":")
    if len(parts) != 4 or not parts[2].isdigit():
        return False  # an older or foreign label: only its expiry decides
    host, namespace, pid, start = parts
    if host != socket.gethostname() or namespace != pid_namespace() or not namespace:
        return False
    alive = process_start(int(pid))
    return not alive or alive != start  # gone, or the pid now belongs to a newer process


__all__ = ["DockerSandbox", "docker_client", "reap"]

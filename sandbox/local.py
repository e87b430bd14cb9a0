"""The local fallback, for when no Docker engine answers. WEAKER than Docker, and it says so.

A subprocess in a copy of the repository, in its own process group (killed on timeout), with
rlimits (CPU time, address space, processes, file size), a scrubbed environment and, where
`unshare -n` is permitted, no network. It cannot stop a process that leaves its session, stop
reads of world-readable host files, or cap disk use beyond the file-size limit. Files the caller owns
(`owned`: the judge's tests and data) are made read-only, and every Python process of the run refuses to change
them from an audit hook (sandbox/run_hooks.py, as in Docker); a process other than Python's running as root (or
changing the mode back) is not bound by either: what a run changed of them anyway is a finding (`owned_changed`),
read after the run, so such a change put back before the run ends goes unseen.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path

from sandbox.detect import detect_project
from sandbox.docker_sandbox import MAX_RESULT_FILE, TIMEOUT_EXIT, size_bytes
from sandbox.environment import setup_error
from sandbox.errors import ServiceFailed
from sandbox.evidence import Ended, result_of
from sandbox.images import environment_key
from sandbox.model import OWNED_CHANGED, Environment, ExecResult, Finding, ProjectInfo, SandboxSpec
from sandbox.output import CappedBuffer, cap_text
from sandbox.recipe import setup_secret_values
from sandbox.scripts import (
    RUN_FILES,
    RUN_SCRIPT,
    SETUP_SCRIPT,
    command_env,
    new_nonce,
    plugin_files,
    results_folder,
    run_variables,
    toplevel_listing,
)
from sandbox.workspace import EXCLUDED, Overlay, digests, repo_entries, write_overlay

log = logging.getLogger(__name__)
WARNING = ("no Docker engine: tests run in the WEAKER local sandbox (rlimits and a process group{net}; run as "
           "root, the process limit and the protection of the bot's own environment do not hold); "
           "set `sandbox.require_docker: true` in .github/ensemble.yml to refuse this")
WORKSPACE_DIR = "workspace"
PR_SET_DUMPABLE = 4


@cache
def network_isolation() -> tuple[str, ...] | None:
    """The `unshare` prefix that takes the network away, or None where it is not permitted."""
    for prefix in (("unshare", "-n"), ("unshare", "-rn")):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=5).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            return None
    return None


class LocalSandbox:
    """Runs commands as host subprocesses with limits; dependencies live in a cached directory."""

    name = "local"

    def __init__(self, cache_dir: Path | None = None, env: Mapping[str, str] | None = None):
        default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ensemble" / "envs"
        self.cache_dir = Path(cache_dir or default)
        self.env = dict(os.environ if env is None else env)

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        """Detect the project and run its setup once per dependency set (with network)."""
        log.warning(WARNING.format(net=", no network" if network_isolation() else ", WITH network"))
        repo_dir = Path(repo_dir).resolve()
        project = detect_project(repo_dir, spec, self.env)
        if project.services:
            raise ServiceFailed(f"the tests need services ({', '.join(s.name for s in project.services)}), which run as "
                                "containers beside the sandbox, and no Docker engine answers: start one (`bash "
                                "scripts/setup.sh`), or set `sandbox.services: {}` in .github/ensemble.yml to run "
                                "the tests without them")
        if not project.setup:
            return Environment(repo_dir, spec, project, "host", self.name, "none", True)
        key = environment_key("local", project.setup, project.env, repo_dir, project.dependency_files)
        env_dir = self.cache_dir / key
        if (env_dir / ".ready").exists():
            return Environment(repo_dir, spec, project, "host", self.name, key, True, env_dir=env_dir)
        from filelock import FileLock

        self.cache_dir.mkdir(parents=True, exist_ok=True)
        with FileLock(str(env_dir) + ".lock"):
            started = time.monotonic()
            if not (env_dir / ".ready").exists():
                self._setup(repo_dir, project.setup, env_dir, spec, project)
            took = time.monotonic() - started
        return Environment(repo_dir, spec, project, "host", self.name, key, False, took, env_dir)

    def _setup(self, repo_dir: Path, setup: str, env_dir: Path, spec: SandboxSpec, project: ProjectInfo) -> None:
        shutil.rmtree(env_dir, ignore_errors=True)
        env_dir.mkdir(parents=True)
        listing = env_dir / ".toplevel"
        listing.write_bytes(toplevel_listing(p.name for p in repo_entries(repo_dir) if p.parent == repo_dir))
        with tempfile.TemporaryDirectory(prefix="ensemble-setup-") as tmp:
            # The setup's workspace stays where every run will put its copy: an editable install
            # (`pip install -e .`) points there.
            work, scratch = _copy_repo(repo_dir, env_dir / WORKSPACE_DIR), Path(tmp)
            environment = command_env(project, env_dir=str(env_dir), workspace=str(work), tmp=str(scratch),
                                      base_path=self.env.get("PATH"),
                                      extra={"PIP_NO_CACHE_DIR": "1", **setup_secret_values(spec.setup_env, self.env)})
            argv = ["sh", "-c", SETUP_SCRIPT, "ensemble-setup", setup, str(listing)]
            code, out, err, timed_out, _ = execute(argv, work, environment, spec.setup_timeout_s, 200_000)
        if code != 0 or timed_out:
            shutil.rmtree(env_dir, ignore_errors=True)
            raise setup_error(project, "the host", code, cap_text(err + out, 4000))
        (env_dir / ".ready").write_text("ok\n")

    def run(self, env: Environment, command: str, timeout: float | None = None,
            files: Overlay | None = None, trace_reads: bool = False, owned: Collection[str] = ()) -> ExecResult:
        """Run `command` on a fresh copy of the repository (with `files` over it) with limits; failures are data.
        `trace_reads`: report the repository files the tests' Python processes open; `owned`: files the command
        must leave as they are (the module's docstring)."""
        timeout = float(timeout or env.spec.timeout_s)
        _protect_own_environment()
        folder = results_folder(new_nonce())
        with tempfile.TemporaryDirectory(prefix="ensemble-run-") as tmp, _workspace(env, Path(tmp)) as work:
            write_overlay(work, files or {})
            plugins = plugin_files(owned)
            for rel, data in plugins.items():
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                (work / rel).write_bytes(data)
            before = digests(work, [*owned, *plugins] if owned else ())  # the sandbox's own files are the judge's
            for rel, digest in before.items():
                if digest is not None:
                    (work / rel).chmod(0o444)
            scratch = Path(tmp)
            env_dir = str(env.env_dir or Path(tmp) / "env")
            environment = command_env(env.project, env_dir=env_dir, workspace=str(work), tmp=str(scratch),
                                      base_path=self.env.get("PATH"), results=str(work / folder),
                                      extra=run_variables(trace_reads))
            argv = [*(network_isolation() or ()), "sh", "-c", RUN_SCRIPT, "ensemble-run", command]
            code, out, err, timed_out, took = execute(argv, work, environment, timeout, env.spec.output_limit,
                                                      _limits(env.spec, timeout))
            own = _own_files(work, folder)  # a killed run's progress log too
            reports = _result_files(work, env.project.result_paths)
            changed = [rel for rel, digest in digests(work, before).items() if digest != before[rel]]
        out, err = (text.replace(f"{work}/", "/workspace/") for text in (out, err))
        own, reports = ({name: data.replace(f"{work}/".encode(), b"/workspace/") for name, data in found.items()}
                        for found in (own, reports))
        oom = code != 0 and ("MemoryError" in err[-4000:] or "Cannot allocate memory" in err[-4000:])
        ended = Ended(command, TIMEOUT_EXIT if timed_out else code, out, err, took, timed_out, oom)
        result = result_of(ended, own, reports, env.repo_dir, files)
        return replace(result, findings=(*result.findings, *owned_changed(changed))) if changed else result


def owned_changed(paths: Iterable[str]) -> list[Finding]:
    """The findings of a run that changed, removed or replaced files its caller owns: one per file."""
    return [Finding(OWNED_CHANGED, f"{path}: the test run changed this file, which the judge owns (a test, the "
                                   "harness or the tests' data)") for path in paths]


@contextlib.contextmanager
def _workspace(env: Environment, tmp: Path) -> Iterator[Path]:
    """A fresh copy of the repository where the setup had its own (runs of one environment take turns)."""
    if env.env_dir is None:
        yield _copy_repo(env.repo_dir, tmp / WORKSPACE_DIR)
        return
    from filelock import FileLock

    work = Path(env.env_dir) / WORKSPACE_DIR
    with FileLock(str(work) + ".lock"):
        yield _copy_repo(env.repo_dir, work)


def _copy_repo(repo_dir: Path, work: Path) -> Path:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(repo_dir, work, symlinks=True, ignore=lambda _d, names: [n for n in names if n in EXCLUDED])
    return work


def _protect_own_environment() -> None:
    """Make this process's /proc/<pid>/environ unreadable to the commands it starts (same user, not root).

    A command could otherwise read the bot's secrets from its parent. Root reads it anyway:
    the local sandbox says so in its warning.
    """
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError) as exc:
        log.debug("could not make the process non-dumpable: %s", exc)


def _limits(spec: SandboxSpec, timeout: float) -> list[tuple[int, int]]:
    memory = size_bytes(spec.memory)
    mine = sum(1 for p in Path("/proc").iterdir() if p.name.isdigit() and _owned(p))
    return [(resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, int(timeout) + 5),
            (resource.RLIMIT_NPROC, mine + spec.pids), (resource.RLIMIT_FSIZE, size_bytes(spec.workspace_size)),
            (resource.RLIMIT_CORE, 0)]


def _owned(proc: Path) -> bool:
    try:
        return proc.stat().st_uid == os.getuid()
    except OSError:
        return False


# util-linux's prlimit(1) option for each limit a run is started under
PRLIMIT_OPTIONS = {resource.RLIMIT_AS: "--as", resource.RLIMIT_CPU: "--cpu", resource.RLIMIT_NPROC: "--nproc",
                   resource.RLIMIT_FSIZE: "--fsize", resource.RLIMIT_CORE: "--core"}


def limited(argv: list[str], rlimits: list[tuple[int, int]]) -> tuple[list[str], Callable[[], None] | None]:
    """`argv` started under `rlimits`, and the `preexec_fn` that still has to set them (None where none has to).

    prlimit(1) sets the limits and then runs the command, so the bot is never forked whole: a `preexec_fn` makes
    subprocess copy the bot's whole address space with fork() rather than vfork() (0.13 s a run in a 1.5 GB process
    against 2 ms), and is unsafe while other threads run, as the teams' do. Where prlimit is missing (macOS), the
    `preexec_fn` sets them."""
    if not rlimits:
        return argv, None
    rlimits = [(which, _within_hard_limit(which, value)) for which, value in rlimits]
    prlimit = shutil.which("prlimit")
    if prlimit is None or any(which not in PRLIMIT_OPTIONS for which, _ in rlimits):
        def apply_limits() -> None:
            for which, value in rlimits:
                resource.setrlimit(which, (value, value))
        return argv, apply_limits
    return [prlimit, *(f"{PRLIMIT_OPTIONS[which]}={value}" for which, value in rlimits), "--", *argv], None


def _within_hard_limit(which: int, value: int) -> int:
    """`value`, or this process's hard limit where that is lower: only a privileged process may raise its own."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def execute(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, limit: int,
            rlimits: list[tuple[int, int]] | None = None) -> tuple[int, str, str, bool, float]:
    """Run argv in a new process group with capped output; (exit code, stdout, stderr, timed out, seconds)."""
    argv, apply_limits = limited(argv, rlimits or [])
    started = time.monotonic()
    out, err = CappedBuffer(limit), CappedBuffer(limit)
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=apply_limits)
    readers = [threading.Thread(target=_pump, args=(pipe, buf), daemon=True)
               for pipe, buf in ((proc.stdout, out), (proc.stderr, err))]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(proc.pid)  # also ends daemons the command left behind in its group
        proc.wait()
    for reader in readers:
        reader.join(5)
    return proc.returncode, out.text(), err.text(), timed_out, time.monotonic() - started


def _pump(pipe: io.BufferedReader, buffer: CappedBuffer) -> None:
    for chunk in iter(lambda: pipe.read1(65536), b""):
        buffer.write(chunk)


def _kill_group(pgid: int) -> None:
    for _ in range(50):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)


def _own_files(work: Path, folder: str) -> dict[str, bytes]:
    """The files the run's runners were told to write into its own folder, never through a symlink."""
    top = work / folder
    if any(p.is_symlink() for p in (top.parent, top)) or not top.is_dir():
        return {}
    files: dict[str, bytes] = {}
    for name in RUN_FILES:
        path = top / name
        if not path.is_symlink() and path.is_file() and path.stat().st_size <= MAX_RESULT_FILE:
            files[name] = path.read_bytes()
    return files


def _result_files(work: Path, paths: tuple[str, ...]) -> dict[str, bytes]:
    """Regular result files under the workspace, never following a symlink, capped in size."""
    files: dict[str, bytes] = {}
    for rel in paths:
        top = work / rel
        if top.is_symlink() or not top.exists():
            continue
        candidates = [top] if top.is_file() else [Path(r) / n for r, _, ns in os.walk(top) for n in ns]
        for path in candidates:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_RESULT_FILE:
                continue
            files[path.relative_to(work).as_posix()] = path.read_bytes()
    return files

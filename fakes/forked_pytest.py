"""pytest on the host, started once: each run is a fork of a process that has imported pytest already.

`python -m pytest` spends most of a small sample suite's run importing pytest and its plugins (about
two thirds of a run of the median() sample). The fakes' host runner (`fakes.engine_parts.HostPytest`)
runs the suite hundreds of times in the test suite, so it asks a server instead: a child process that
imports pytest and its built-in plugins once, then forks for each run. Each fork starts from that
pristine process (no test module of an earlier run is loaded), takes the run's folder as `python -m`
would (first on `sys.path`), its environment and arguments, and writes its output to a file.

A server serves one run at a time; concurrent runs (two teams) each take an idle server or start one.
A server ends when its client goes (the end of its standard input). The protocol is a line of JSON each
way: the request, then the run's process id and its exit code.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

_POOL_LOCK = threading.Lock()
_IDLE: list[subprocess.Popen[str]] = []  # servers waiting for a run


@contextlib.contextmanager
def _server() -> Iterator[subprocess.Popen[str]]:
    with _POOL_LOCK:
        proc = _IDLE.pop() if _IDLE else None
    if proc is None or proc.poll() is not None:
        proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield proc
    except BaseException:
        proc.kill()
        raise
    with _POOL_LOCK:
        _IDLE.append(proc)



def run_pytest(cwd: Path, args: Sequence[str], env: Mapping[str, str], out: Path, err: Path, timeout: float) -> int:
    """`python -m pytest *args` in `cwd` with `env`, its stdout and stderr written to `out` and `err`: the exit
    code. Raises TimeoutError after `timeout` seconds (the run is killed)."""
    request = json.dumps({"cwd": str(cwd), "args": list(args), "env": dict(env), "out": str(out), "err": str(err)})
    with _server() as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(request + "\n")
        proc.stdin.flush()
        started = _read_line(proc.stdout, timeout)
        ended = _read_line(proc.stdout, timeout) if started else started
        if ended:
            return int(json.loads(ended)["code"])
        if started:  # the run is still going: it ends with the server
            with contextlib.suppress(OSError):
                os.kill(int(json.loads(started)["pid"]), signal.SIGKILL)
        if ended is None:
            raise TimeoutError(f"pytest in {cwd} ran past {timeout} s")
        raise RuntimeError(f"the pytest server ended (exit status {proc.wait()}) during a run in {cwd}")


def _read_line(stream: IO[str], timeout: float) -> str | None:
    """The next line, '' at the stream's end, None when none came within `timeout` seconds."""
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return found[0] if found else None


def serve() -> None:
    """The server's loop: a request per line on stdin, the exit code per line on stdout."""
    import importlib

    import pytest
    from _pytest.config import default_plugins

    for name in default_plugins:  # what each run would import first
        with contextlib.suppress(ImportError):
            importlib.import_module(f"_pytest.{name}")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C to the client's group is the client's to handle
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:  # the run
            code = 70
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["env"])
                sys.path.insert(0, request["cwd"])  # as `python -m pytest` has it
                for fd, path in ((1, request["out"]), (2, request["err"])):
                    os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
                code = int(pytest.main(request["args"]))
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.path.pop(0)  # this folder (fakes/) is no run's
    serve()

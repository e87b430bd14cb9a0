"""The Docker daemon gone mid-run: the run ends with an error that names Docker and the fix, and the
user's checkout and branches are as they were (no half-made branch, no worktree, no container left).

The daemon is reached through DOCKER_HOST=tcp://127.0.0.1:<port>, a forwarder to the real engine's
socket that this test closes while the coder works: from then on DOCKER_HOST is unreachable, as
when the daemon dies. The shared engine itself is never stopped.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import parse_config
from bot.ensemble.demo import create_sample_repo
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import Task
from bot.llm.manager import ModelManager
from fakes.engine_parts import FileRetriever
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO
from fakes.openai_server import FakeOpenAI
from tests.sandbox.conftest import base_image

pytestmark = [pytest.mark.docker, pytest.mark.slow]
SOCKET = "/var/run/docker.sock"


class Forwarder:
    """TCP on 127.0.0.1 to the engine's Unix socket, until `close()` (then nothing answers there)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            engine = socket.socket(socket.AF_UNIX)
            engine.connect(SOCKET)
            self.open += [client, engine]
            for a, b in ((client, engine), (engine, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        """One direction; its end is passed on as a half-close (docker's exec streams rely on it)."""
        try:
            while data := source.recv(65536):
                sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
        for end in self.open:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()


@pytest.fixture
def forwarder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Forwarder]:
    proxy = Forwarder()
    monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{proxy.port}")
    yield proxy
    proxy.close()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def test_the_docker_daemon_gone_mid_run_ends_it_clearly_and_leaves_the_checkout_intact(
        forwarder: Forwarder, tmp_path: Path) -> None:
    sample = create_sample_repo(tmp_path / "stats")
    before = (git(sample, "rev-parse", "HEAD"), git(sample, "branch", "--list"), git(sample, "status", "--porcelain"))
    config = parse_config(f"ensembles: 1\nmax_iterations: 2\nsandbox: {{image: \"{base_image()}\", setup: \"\", "
                          "require_docker: true, timeout_s: 60}\n")

    def daemon_dies_while_coding(team: str, phase: str, rnd: int, detail: str) -> None:
        if phase == "coding" and not forwarder.closed.is_set():
            forwarder.close()

    with FakeOpenAI() as openai:
        openai.reply(data=PLAN, schema="plan", times=0)
        openai.reply(ENOUGH, marker="You are the planner", times=0)
        openai.reply(REPRO, marker="You are the coder")
        openai.reply(FIX, marker="You are the coder", times=0)
        openai.reply(data=ACCEPT, schema="review", times=0)
        models = ModelManager.from_config(config, openai.env(), None, use_cache=False)
        parts = Components(models=models, retriever=FileRetriever(sample), progress=daemon_dies_while_coding,
                           use_cache=False)
        result = run_task(sample, Task("median() is wrong for an even count", "median([1, 2, 3, 4]) returns 3.",
                                       slug="median"), config, openai.env(), parts)

    assert forwarder.closed.is_set(), "the run never reached the coder"
    assert not result.success and not result.commits
    assert "Docker engine" in result.decision and "docker info" in result.decision, result.decision
    after = (git(sample, "rev-parse", "HEAD"), git(sample, "branch", "--list"), git(sample, "status", "--porcelain"))
    assert after == before  # no commit, no branch left behind, nothing changed in the checkout
    assert git(sample, "worktree", "list").count("\n") == 1

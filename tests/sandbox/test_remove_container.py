"""Removing a sandbox container: a busy daemon is waited out, a daemon that is gone is not.

The client talks HTTP to a fake engine on 127.0.0.1 (the Docker API's DELETE /containers/{id}), or
to a port where nothing listens, as when the daemon died mid-run.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import docker
import pytest

from sandbox.ownership import remove_container

CONTAINER_ID = "c0ffee" * 10 + "abcd"


class FakeEngine(ThreadingHTTPServer):
    """Answers container removal: `busy` times 409 (removal already in progress), then 204."""

    def __init__(self, busy: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.busy = busy
        self.deletes: list[str] = []


class _Handler(BaseHTTPRequestHandler):
    server: FakeEngine

    def do_DELETE(self) -> None:  # noqa: N802 - http.server's naming
        self.server.deletes.append(self.path)
        if self.server.busy > 0:
            self.server.busy -= 1
            body = b'{"message": "removal of container is already in progress"}'
            self.send_response(409)
        else:
            body = b""
            self.send_response(204)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def engine() -> Iterator[FakeEngine]:
    server = FakeEngine(busy=2)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def container_at(base_url: str) -> docker.models.containers.Container:
    client = docker.DockerClient(base_url=base_url, version="1.41", timeout=5)
    return client.containers.prepare_model({"Id": CONTAINER_ID})


def test_a_busy_daemon_is_asked_again_until_the_container_is_gone(engine: FakeEngine) -> None:
    remove_container(container_at(f"tcp://127.0.0.1:{engine.server_port}"), patience_s=30)
    assert len(engine.deletes) == 3  # two 409s waited out, the third removes it
    assert all(path.startswith(f"/v1.41/containers/{CONTAINER_ID}?") and "force=True" in path and "v=True" in path
               for path in engine.deletes)


def test_a_daemon_that_is_gone_is_not_waited_for(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="sandbox.ownership"):
        remove_container(container_at(f"tcp://127.0.0.1:{port}"), patience_s=60)
    assert time.monotonic() - started < 30  # asked once, not again every half second for the minute
    assert "the next sandbox run removes it" in caplog.text

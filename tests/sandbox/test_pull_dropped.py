"""An image pull the engine drops: the sandbox says the image cannot be pulled, over a fake Docker engine.

(The docker SDK streams pulls without a client-side timeout, so a slow registry is the engine's to
time out; what reaches us is a refused pull or a dropped connection.)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import docker
import pytest

from sandbox.docker_env import ensure_image
from sandbox.errors import ImageMissing
from sandbox.images import BASE_IMAGE


class _Engine(BaseHTTPRequestHandler):
    """Knows only the base image; a pull request is dropped without an answer."""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's naming
        if self.path.endswith(f"/images/{BASE_IMAGE}/json"):
            return self._json(200, {"Id": "sha256:" + "b" * 64, "RepoTags": [BASE_IMAGE], "Config": {}})
        return self._json(404, {"message": "No such image"})

    def do_POST(self) -> None:  # noqa: N802
        if "/images/create" in self.path:
            self.close_connection = True  # the engine went away mid-pull
            return
        return self._json(500, {"message": "not expected"})

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hanging_engine() -> Iterator[docker.DockerClient]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Engine)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = docker.DockerClient(base_url=f"tcp://127.0.0.1:{server.server_address[1]}", version="1.41", timeout=1)
    try:
        yield client
    finally:
        client.close()
        server.shutdown()


def test_a_dropped_pull_is_a_clear_error_for_a_chosen_image(hanging_engine: docker.DockerClient) -> None:
    with pytest.raises(ImageMissing, match=r"python:3\.12-slim is not present and cannot be pulled"):
        ensure_image(hanging_engine, "python:3.12-slim", user_chosen=True)


def test_a_default_image_whose_pull_is_dropped_falls_back_to_the_base_image(hanging_engine: docker.DockerClient) -> None:
    assert ensure_image(hanging_engine, "python:3.12-slim", user_chosen=False).tags == [BASE_IMAGE]

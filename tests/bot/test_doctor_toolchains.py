"""`ensemble doctor` says, per language, whether a toolchain image is available, over a fake Docker engine."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest

from bot.doctor import DoctorContext, check_toolchains, render
from sandbox.images import BASE_IMAGE
from sandbox.toolchains import TOOLCHAINS, toolchain_tag

BASE_ID = "sha256:" + "b" * 64
GO_TAG = toolchain_tag(TOOLCHAINS["go"], BASE_ID)


class _Engine(BaseHTTPRequestHandler):
    """Holds the base image and the Go toolchain image built from it; nothing else."""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's naming
        path = unquote(self.path)
        if path.endswith("/_ping"):
            return self._send(200, b"OK", "text/plain")
        if path.endswith("/version"):
            return self._send(200, b'{"ApiVersion": "1.41", "Version": "24.0"}')
        for name, image_id in ((BASE_IMAGE, BASE_ID), (GO_TAG, "sha256:" + "9" * 64)):
            if path.endswith(f"/images/{name}/json"):
                return self._send(200, json.dumps({"Id": image_id, "RepoTags": [name]}).encode())
        return self._send(404, b'{"message": "No such image"}')

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def engine() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Engine)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_each_toolchain_is_reported_built_or_to_be_built_with_the_command(engine: str, tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/x\n")
    checks = {c.name: c for c in check_toolchains(DoctorContext(tmp_path, {"DOCKER_HOST": engine}))}
    assert set(checks) == {"Toolchain go (this repository)", "Toolchain rust", "Toolchain node", "Toolchain c",
                           "Toolchain java"}
    go = checks["Toolchain go (this repository)"]
    assert go.ok and go.detail == f"{GO_TAG} (built from Debian packages golang-go)"
    rust = checks["Toolchain rust"]
    assert not rust.ok and not rust.essential
    assert "pulled (rust:1-slim-bookworm) where a registry answers" in rust.detail and "cargo rustc" in rust.detail
    assert rust.fix.startswith("build it now: `python -m sandbox toolchains rust`")
    assert "built on first use from Debian packages build-essential cmake" in checks["Toolchain c"].detail
    assert render(list(checks.values())).endswith("ready")  # advice, never what makes the machine not ready


def test_without_an_engine_there_is_nothing_to_say_beyond_the_docker_check(tmp_path: Path) -> None:
    assert check_toolchains(DoctorContext(tmp_path, {"DOCKER_HOST": "unix:///nonexistent/docker.sock"})) == []

"""Servers on this machine: recognised by their URL, and asked one request at a time."""

from __future__ import annotations

import threading
import time

import pytest

from bot.llm.local import is_local, server_turn


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:11434/v1", True), ("http://[::1]:8000/v1", True),
    ("http://127.0.0.2:9/v1", True), ("http://ollama.localhost/v1", True),
    ("https://api.openai.com/v1", False), ("http://10.0.0.5:8000/v1", False), (None, False),
])
def test_local_servers_are_recognised_by_their_host(url: str | None, local: bool) -> None:
    assert is_local(url) is local


def overlapping(url: str) -> bool:
    """Whether two requests to `url` held their turn at the same time."""
    inside, most = [0], [0]
    lock = threading.Lock()

    def request() -> None:
        with server_turn(url):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.2)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=request) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return most[0] > 1


def test_a_local_server_gets_one_request_at_a_time_and_a_remote_one_is_not_held_back() -> None:
    assert not overlapping("http://127.0.0.1:8080/v1")
    assert overlapping("https://api.example.com/v1")

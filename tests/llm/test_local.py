"""Servers on this machine: recognised by their URL, and asked no more requests at a time than they answer at once."""

from __future__ import annotations

import threading
import time

import pytest

from bot.llm import Message, OpenAIChatModel
from bot.llm.local import is_local, server_turn
from bot.llm.types import ChatRequest
from fakes.openai_server import FakeOpenAI


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
    with FakeOpenAI.llama_cpp() as server:  # llama-cpp-python's server: no `GET /props`
        assert not overlapping(server.url)
    assert overlapping("https://api.example.com/v1")


@pytest.mark.parametrize("props, at_once", [
    ({"total_slots": 2}, True), ({"total_slots": 1}, False), ({"total_slots": "2"}, False), ({"total_slots": 0}, False),
    ([2], False), (None, False),
])
def test_a_local_server_gets_as_many_turns_at_once_as_the_slots_it_names(props: object, at_once: bool) -> None:
    class Server(FakeOpenAI):
        def get(self, path: str, headers: dict[str, str]) -> tuple[int, object] | None:
            return (200, props) if path == "/props" and props is not None else None

    with Server() as server:
        assert overlapping(server.url) is at_once


def test_a_local_server_that_does_not_answer_gets_one_turn() -> None:
    with FakeOpenAI.llama_cpp(slots=2) as server:
        url = server.url
    assert not overlapping(url)  # stopped: its port refuses the question, and the turns are still taken one by one


def ask_together(url: str, count: int, key: str | None = None) -> float:
    """`count` requests sent at once through the SDK, each answered 0.3 s after it reaches the server: the seconds
    until the last answer came."""
    model = OpenAIChatModel("qwen2.5-coder-1.5b-instruct", key, base_url=url)
    request = ChatRequest("coder", (Message("user", "Fix add()."),))
    began = time.monotonic()
    threads = [threading.Thread(target=model.complete, args=(request,)) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - began


@pytest.mark.parametrize("slots", [None, 2])
def test_two_teams_requests_to_llama_server_with_two_slots_are_answered_side_by_side(slots: int | None) -> None:
    """llama.cpp's `llama-server --parallel 2` decodes two requests at once: a team's fix and its hidden check (or
    two teams' requests) are sent together; to a server that names no slots they go one after the other. Told by
    how many the server held at once, not by the wall time (which the machine's load moves: 0.67 s for two 0.3 s
    replies side by side in a fresh clone's suite)."""
    with FakeOpenAI.llama_cpp(slots=slots) as server:
        server.reply("ok", delay_s=0.3, times=4)
        ask_together(server.url, 2)
        assert [r.status for r in server.requests] == [200, 200]
        assert server.most_in_flight == (slots or 1)


def test_a_local_server_started_with_a_key_is_asked_its_slots_with_it() -> None:
    with FakeOpenAI.llama_cpp(api_key="local-key", slots=2) as server:
        server.reply("ok", delay_s=0.3, times=2)
        ask_together(server.url, 2, key="local-key")
        assert server.most_in_flight == 2

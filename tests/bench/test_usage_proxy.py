"""bench/usage_proxy.py in front of the fake OpenAI server, driven by the real openai SDK."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import openai
import pytest

from fakes.model_server import Logged
from fakes.openai_server import FakeOpenAI
from tests.bench.loading import load_bench

ROOT = Path(__file__).resolve().parents[2]




usage_proxy = load_bench("usage_proxy")


class StreamingFakeOpenAI(FakeOpenAI):
    """The fake, answering `stream: true` with server-sent events as OpenAI does (usage last, when asked)."""

    def _respond(self, handler: Any, request: Logged) -> None:
        if not (isinstance(request.body, dict) and request.body.get("stream")):
            return super()._respond(handler, request)
        rule = self._take(request)
        text = (rule.text if rule else "") or ""
        prompt, completion, _ = (rule.usage if rule and rule.usage else (1, 1, 0))
        chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": piece}, "finish_reason": None}]}
                  for piece in (text[: len(text) // 2], text[len(text) // 2:])]
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (request.body.get("stream_options") or {}).get("include_usage"):
            chunks.append({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                                    "total_tokens": prompt + completion}})
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for chunk in chunks:
            body = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0, "model": request.model, **chunk}
            handler.wfile.write(f"data: {json.dumps(body)}\n\n".encode())
            handler.wfile.flush()
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.close_connection = True


@pytest.fixture
def server():
    with StreamingFakeOpenAI(api_key="sk-test") as fake:
        yield fake


@pytest.fixture
def proxy(server: StreamingFakeOpenAI):
    with usage_proxy.CountingProxy(server.url) as counting:
        yield counting


def client(proxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key="sk-test", max_retries=0, timeout=10)


def ask(proxy, **kwargs: Any) -> Any:
    return client(proxy).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], **kwargs)


def test_the_proxy_keeps_the_upstream_path(server: StreamingFakeOpenAI, proxy):
    assert proxy.url.startswith("http://127.0.0.1:") and proxy.url.endswith("/v1")
    assert proxy.url != server.url


def test_usage_of_plain_answers_is_summed(server: StreamingFakeOpenAI, proxy):
    server.reply("first", usage=(100, 20, 0))
    server.reply("second", usage=(150, 30, 90))  # the second prompt's head came from the server's prefix cache
    assert ask(proxy).choices[0].message.content == "first"
    assert ask(proxy).choices[0].message.content == "second"
    assert proxy.usage.as_dict() == {"requests": 2, "prompt_tokens": 250, "completion_tokens": 50,
                                     "unreported": 0, "errors": 0, "cached_tokens": 90, "estimated": 0, "tokens": 300}
    assert server.requests[0].headers.get("Authorization") == "Bearer sk-test"


def test_a_stream_is_relayed_and_its_usage_asked_for(server: StreamingFakeOpenAI, proxy):
    server.reply("streamed answer", usage=(40, 7, 0))
    pieces = [chunk.choices[0].delta.content for chunk in ask(proxy, stream=True) if chunk.choices]
    assert "".join(p or "" for p in pieces) == "streamed answer"
    assert server.requests[-1].body["stream_options"] == {"include_usage": True}
    assert (proxy.usage.requests, proxy.usage.prompt_tokens, proxy.usage.completion_tokens) == (1, 40, 7)


def test_a_stream_that_already_asks_for_usage_is_left_alone():
    body = json.dumps({"stream": True, "stream_options": {"include_usage": False}}).encode()
    assert usage_proxy.ask_for_stream_usage(body) == (body, True)
    assert usage_proxy.ask_for_stream_usage(b'{"stream": false}') == (b'{"stream": false}', False)
    assert usage_proxy.ask_for_stream_usage(b"not json") == (b"not json", False)


def test_errors_are_relayed_and_counted(server: StreamingFakeOpenAI, proxy):
    server.server_error()
    with pytest.raises(openai.InternalServerError):
        ask(proxy)
    assert proxy.usage.requests == 1 and proxy.usage.errors == 1 and proxy.usage.tokens == 0


def test_an_answer_without_usage_is_unreported(server: StreamingFakeOpenAI, proxy):
    server.reply("streamed answer", usage=(40, 7, 0))
    list(ask(proxy, stream=True, stream_options={"include_usage": False}))
    assert proxy.usage.as_dict() == {"requests": 1, "prompt_tokens": 0, "completion_tokens": 0, "unreported": 1,
                                     "errors": 0, "cached_tokens": 0, "estimated": 0, "tokens": 0}


class LocalLikeFake(FakeOpenAI):
    """A server like a local one: it streams a token at a time without usage whatever it is asked (as
    llama-cpp-python's does), and its tokenizer (`/extras/tokenize/count`, a word a token) answers only once the
    reply it is writing has ended: written whole, or its client gone."""

    def check(self, request: Logged) -> tuple[int, Any] | None:
        if request.path == "/extras/tokenize/count":
            waited_until = time.monotonic() + 10
            while not self.requests[0].ended and time.monotonic() < waited_until:
                time.sleep(0.01)
            return 200, {"count": len(str(request.body.get("input", "")).split())}
        return super().check(request)

    def _respond(self, handler: Any, request: Logged) -> None:
        request.body.pop("stream_options", None)
        super()._respond(handler, request)


def test_a_stream_without_usage_is_counted_by_the_servers_tokenizer():
    with LocalLikeFake(api_key="sk-test") as server, usage_proxy.CountingProxy(server.url) as proxy:
        server.reply("a streamed answer in two pieces")
        stream = client(proxy).chat.completions.create(
            model="m", stream=True, messages=[{"role": "system", "content": "be brief"},
                                              {"role": "user", "content": "how many tokens here"}])
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == \
            "a streamed answer in two pieces"
        # the prompt: the messages' six words; the reply: the eight pieces of four characters the server streamed
        assert proxy.usage.as_dict() == {"requests": 1, "prompt_tokens": 6, "completion_tokens": 8, "unreported": 0,
                                         "errors": 0, "cached_tokens": 0, "estimated": 1, "tokens": 14}
    assert usage_proxy.prompt_text(b'{"prompt": "plain"}') == "plain"
    assert usage_proxy.prompt_text(b'{"messages": [{"content": [{"type": "text", "text": "part"}]}]}') == "part"
    assert usage_proxy.prompt_text(b"not json") is None


def test_a_stream_the_agent_leaves_is_ended_upstream_then_counted():
    with LocalLikeFake(api_key="sk-test") as server, usage_proxy.CountingProxy(server.url) as proxy:
        server.token_delay_s = 0.05
        server.reply("word " * 40)  # 50 tokens of 4 characters: 2.5 s to write whole
        stream = client(proxy).chat.completions.create(model="m", stream=True,
                                                       messages=[{"role": "user", "content": "one two three"}])
        for _, _chunk in zip(range(3), stream, strict=False):
            pass
        stream.close()  # the agent read what it needed
        waited_until = time.monotonic() + 10
        while not proxy.usage.estimated and time.monotonic() < waited_until:
            time.sleep(0.02)
        chat = server.requests[0]
        # the proxy closed the upstream's reply before asking its tokenizer, so the server stopped writing it
        assert chat.closed_early and chat.sent_tokens < 50
        assert proxy.usage.estimated == 1 and proxy.usage.prompt_tokens == 3
        assert 3 <= proxy.usage.completion_tokens < 50


def test_other_calls_pass_through_uncounted(server: StreamingFakeOpenAI, proxy):
    request = urllib.request.Request(proxy.url + "/models", headers={"Authorization": "Bearer sk-test"})
    with pytest.raises(urllib.error.HTTPError) as caught:  # the fake has no /v1/models: its 404 comes through
        urllib.request.urlopen(request, timeout=5)
    assert caught.value.code in (404, 501)
    assert proxy.usage.requests == 0


def test_an_unreachable_upstream_is_a_502_and_an_error():
    with usage_proxy.CountingProxy("http://127.0.0.1:9/v1") as proxy:
        with pytest.raises(openai.APIStatusError) as caught:
            ask(proxy)
        assert caught.value.status_code == 502 and "did not answer" in str(caught.value)
        assert proxy.usage.requests == 1 and proxy.usage.errors == 1


def test_responses_api_names_are_read():
    assert usage_proxy.tokens_of({"input_tokens": 5, "output_tokens": 2}) == (5, 2)
    assert usage_proxy.tokens_of({"total_tokens": 7}) is None and usage_proxy.tokens_of(None) is None


def test_a_base_url_without_scheme_is_refused():
    with pytest.raises(ValueError, match="http"):
        usage_proxy.CountingProxy("127.0.0.1:8080/v1")


def test_every_reply_is_capped_at_the_same_output_budget(server: StreamingFakeOpenAI):
    server.set_default("ok")
    with usage_proxy.CountingProxy(server.url, max_output_tokens=512) as capped:
        ask(capped)  # an agent that sets no cap gets the bench's
        ask(capped, max_tokens=4000)  # a bigger one is brought down
        ask(capped, max_tokens=100)  # a smaller one is kept
        ask(capped, max_completion_tokens=9000)  # under the name the agent used
    bodies = [r.body for r in server.requests]
    assert [b.get("max_tokens") for b in bodies[:3]] == [512, 512, 100]
    assert bodies[3].get("max_completion_tokens") == 512 and "max_tokens" not in bodies[3]


def test_a_request_left_behind_by_a_stopped_agent_is_waited_for(server: StreamingFakeOpenAI):
    import threading

    server.hang(seconds=1.5)
    with usage_proxy.CountingProxy(server.url) as counting:
        agent = threading.Thread(target=lambda: pytest.raises(openai.APITimeoutError, ask, counting, timeout=0.3))
        agent.start()
        agent.join()  # the agent gave up (as a killed one would); the server still works on its request
        assert counting.in_flight == 1
        waited = counting.settle(limit_s=10)
    assert counting.in_flight == 0 and 0.5 < waited < 10


def test_an_upstream_failing_after_the_agent_gave_up_is_counted_without_a_traceback(capfd):
    """The model server restarted under a request a killed agent left behind: an error, not a stack dump."""
    import socket
    import threading
    import time

    listener = socket.create_server(("127.0.0.1", 0))

    def accept_then_hang_up() -> None:
        conn, _ = listener.accept()
        time.sleep(1.0)  # the agent's timeout passes first
        conn.close()  # no answer at all

    threading.Thread(target=accept_then_hang_up, daemon=True).start()
    with listener, usage_proxy.CountingProxy(f"http://127.0.0.1:{listener.getsockname()[1]}/v1") as counting:
        with pytest.raises(openai.APITimeoutError):
            ask(counting, timeout=0.3)
        counting.settle(limit_s=10)
        assert counting.usage.requests == 1 and counting.usage.errors == 1
    assert "Traceback" not in capfd.readouterr().err


def test_cached_prompt_tokens_are_read_where_the_server_reports_them():
    assert usage_proxy.cached_of({"usage": {"prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": 4}}}) == 4
    assert usage_proxy.cached_of({"usage": {"input_tokens": 9, "input_tokens_details": {"cached_tokens": 3}}}) == 3
    assert usage_proxy.cached_of({"usage": {"prompt_tokens": 9}, "timings": {"cache_n": 7}}) == 7  # llama.cpp
    assert usage_proxy.cached_of({"usage": {"prompt_tokens": 9}}) == 0 and usage_proxy.cached_of(None) == 0


def test_every_exchange_is_logged_when_asked(server: StreamingFakeOpenAI, tmp_path: Path):
    server.reply("plain", usage=(5, 1, 0))
    server.reply("streamed", usage=(6, 2, 0))
    log = tmp_path / "model.jsonl"
    with usage_proxy.CountingProxy(server.url, exchanges=log) as counting:
        ask(counting)
        "".join(c.choices[0].delta.content or "" for c in ask(counting, stream=True) if c.choices)
        with pytest.raises(urllib.error.HTTPError):  # not a model request (the fake has no /models): not logged
            urllib.request.urlopen(urllib.request.Request(counting.url + "/models"), timeout=5)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["request"]["messages"][0]["content"] for line in lines] == ["hi", "hi"]
    assert json.loads(lines[0]["answer"])["choices"][0]["message"]["content"] == "plain"
    assert "streamed"[:4] in lines[1]["answer"] and "[DONE]" in lines[1]["answer"]


def test_a_proxy_takes_the_port_it_is_given_or_any_when_that_one_is_taken(server: StreamingFakeOpenAI):
    with usage_proxy.CountingProxy(server.url) as first:
        port = first.port
    with usage_proxy.CountingProxy(server.url, port=port) as again:
        assert again.url == f"http://127.0.0.1:{port}/v1"
        with usage_proxy.CountingProxy(server.url, port=port) as beside:  # taken by `again`
            assert beside.port != port
            client = openai.OpenAI(base_url=beside.url, api_key="sk-test", max_retries=0, timeout=5)
            server.reply("still counted", usage=(5, 2, 0))
            assert client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}]) \
                .choices[0].message.content == "still counted"
        assert beside.usage.requests == 1

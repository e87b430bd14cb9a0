"""A counting HTTP proxy in front of an OpenAI-compatible server: model requests and tokens, whoever asks.

    with CountingProxy("http://127.0.0.1:8080/v1") as proxy:
        run_an_agent(base_url=proxy.url)        # http://127.0.0.1:<port>/v1
    proxy.usage.requests, proxy.usage.prompt_tokens, proxy.usage.completion_tokens

Every request is forwarded as it came to the upstream's origin (same path, headers less the
hop-by-hop ones) and its answer relayed as it comes. A POST to a completions endpoint is a
model request: the proxy reads `usage` from the JSON answer, or, for `stream: true`, from the
server-sent events as they pass (asking for the final usage chunk with `stream_options` when
the client did not). A stream that ends without usage (llama-cpp-python's server sends none) is
counted by the upstream's own tokenizer where it has one (`/extras/tokenize/count`, llama.cpp's
`/tokenize`): the prompt as the messages' text (without the chat template's few tokens a message),
the reply as the pieces streamed, one token each as such servers send them; those requests are
`estimated`. A request whose answer carries no usage otherwise is counted as `unreported`, an
error status or an unreachable upstream as `errors`, so a gap in the figures shows.

`max_output_tokens` caps every model request's reply (`max_tokens`, `max_completion_tokens`,
`max_output_tokens`), so all agents get the same cap; `in_flight` counts the requests the
upstream is still working on, which outlive an agent that was killed while it waited (a
local server goes on generating for a client that hung up). With `exchanges`, every model request
and its answer are appended to that JSONL file, to read what an agent asked and got.
Standard library only; it serves 127.0.0.1 on a free port, or on `port` when that one is free (so
that proxies one after another keep the URL a client may remember a server by).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

MODEL_PATHS = ("/chat/completions", "/completions", "/responses")
HOP_HEADERS = {"host", "connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer",
               "transfer-encoding", "upgrade", "content-length", "accept-encoding"}


@dataclass
class Usage:
    """What the agents behind one proxy asked of the model."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    unreported: int = 0  # answered without a usage figure
    errors: int = 0      # an error status, or no answer from the upstream
    cached_tokens: int = 0  # prompt tokens the server said it took from its prefix cache (where it says so)
    estimated: int = 0   # streamed without usage: counted by the upstream's tokenizer (`prompt_text`)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "tokens": self.tokens}


def tokens_of(usage: Any) -> tuple[int, int] | None:
    """(prompt, completion) from a `usage` object (chat completions' or the responses API's names)."""
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens"))
    if prompt is None and completion is None:
        return None
    return int(prompt or 0), int(completion or 0)


def cached_of(answer: Any) -> int:
    """Prompt tokens served from the server's prefix cache, as far as the answer says: OpenAI's and vLLM's
    `usage.prompt_tokens_details.cached_tokens` (`input_tokens_details` in the responses API), llama.cpp's
    `timings.cache_n`; 0 when it says nothing."""
    if not isinstance(answer, dict):
        return 0
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    for details in (usage.get("prompt_tokens_details"), usage.get("input_tokens_details")):
        if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
            return int(details["cached_tokens"])
    timings = answer.get("timings")
    return int(timings["cache_n"]) if isinstance(timings, dict) and isinstance(timings.get("cache_n"), int) else 0


REPLY_CAPS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


def cap_reply(body: bytes, cap: int) -> bytes:
    """The request body with its reply capped at `cap` tokens (a smaller cap of its own is kept)."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if not isinstance(data, dict):
        return body
    given = [data[k] for k in REPLY_CAPS if isinstance(data.get(k), int)]
    name = next((k for k in REPLY_CAPS if k in data), "max_tokens")
    data[name] = min([cap, *given])
    return json.dumps(data).encode()


def prompt_text(body: bytes | None) -> str | None:
    """The text a model request asks about: its messages' text one after another (a part that is not text left
    out), or a completion's prompt; None for a body that is neither."""
    data = _json(body or b"")
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("prompt"), str):
        return str(data["prompt"])
    messages = data.get("messages", data.get("input"))
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, list):
        return None
    texts = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        parts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        texts += [p if isinstance(p, str) else str(p.get("text") or "") for p in parts if isinstance(p, (str, dict))]
    return "\n".join(texts)


def streamed_piece(event: Any) -> bool:
    """Whether a stream's event carries a piece of the reply (text or a tool call's), which servers that report
    no usage send a token at a time."""
    if not isinstance(event, dict):
        return False
    for choice in event.get("choices") or ():
        delta = (choice.get("delta") or {}) if isinstance(choice, dict) else {}
        if delta.get("content") or delta.get("tool_calls") or (isinstance(choice, dict) and choice.get("text")):
            return True
    return False


def ask_for_stream_usage(body: bytes) -> tuple[bytes, bool]:
    """The request body with `stream_options.include_usage` set when it streams; and whether it streams."""
    try:
        data = json.loads(body)
    except ValueError:
        return body, False
    if not isinstance(data, dict) or not data.get("stream"):
        return body, False
    options = data.get("stream_options")
    if isinstance(options, dict) and "include_usage" in options:
        return body, True
    data["stream_options"] = {**(options if isinstance(options, dict) else {}), "include_usage": True}
    return json.dumps(data).encode(), True


class CountingProxy:
    """The proxy: start it (or use it as a context manager), give agents `url`, read `usage`."""

    def __init__(self, upstream: str, timeout_s: float = 1800.0, max_output_tokens: int | None = None,
                 exchanges: Path | None = None, port: int = 0):
        parts = urlsplit(upstream.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not an http(s) base URL: {upstream!r} (e.g. http://127.0.0.1:8080/v1)")
        self.origin, self.prefix = f"{parts.scheme}://{parts.netloc}", parts.path
        self.timeout_s = timeout_s
        self.max_output_tokens = max_output_tokens
        self.usage = Usage()
        self.exchanges = exchanges  # JSONL of every model request and its answer, for reading a run afterwards
        self.in_flight = 0
        self._lock = threading.Lock()
        # a loopback upstream is reached directly, whatever proxy the environment names
        self._opener = (urllib.request.build_opener(urllib.request.ProxyHandler({}))
                        if _is_loopback(parts.hostname or "") else urllib.request.build_opener())
        try:
            self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        except OSError:  # that port was taken meanwhile: any free one
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_port)

    @property
    def url(self) -> str:
        """The base URL agents get: the upstream's path on the proxy's address."""
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def start(self) -> CountingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> CountingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def add(self, *, requests: int = 0, tokens: tuple[int, int] = (0, 0), unreported: int = 0,
            errors: int = 0, cached: int = 0, estimated: int = 0) -> None:
        """Add to the counts; the handler adds what it learns before the agent sees the bytes, so no count lags."""
        with self._lock:
            self.usage.requests += requests
            self.usage.prompt_tokens += tokens[0]
            self.usage.completion_tokens += tokens[1]
            self.usage.unreported += unreported
            self.usage.errors += errors
            self.usage.cached_tokens += cached
            self.usage.estimated += estimated

    def flying(self, delta: int) -> None:
        with self._lock:
            self.in_flight += delta

    def settle(self, limit_s: float) -> float:
        """Wait until the upstream has answered every request (at most `limit_s`); the seconds waited."""
        started = time.monotonic()
        while self.in_flight and time.monotonic() - started < limit_s:
            time.sleep(0.2)
        return time.monotonic() - started

    def record(self, request: bytes | None, answer: bytes, seconds: float) -> None:
        """Append one exchange (the request's JSON, the answer's bytes as text) to `exchanges`, if asked for."""
        if self.exchanges is None:
            return
        try:
            sent: Any = json.loads(request or b"null")
        except ValueError:
            sent = (request or b"").decode(errors="replace")
        line = json.dumps({"seconds": round(seconds, 2), "request": sent,
                           "answer": answer.decode(errors="replace")})
        with self._lock, self.exchanges.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    def count_tokens(self, text: str) -> int | None:
        """`text`'s tokens by the upstream's tokenizer: llama-cpp-python's `/extras/tokenize/count`, else
        llama.cpp's `/tokenize`; None when it has neither."""
        for path, body, read in (("/extras/tokenize/count", {"input": text}, lambda a: a.get("count")),
                                 ("/tokenize", {"content": text}, lambda a: len(a.get("tokens") or ()))):
            request = urllib.request.Request(self.origin + path, data=json.dumps(body).encode(), method="POST",
                                             headers={"Content-Type": "application/json"})
            try:
                with self._opener.open(request, timeout=30) as answer:
                    count = read(_json(answer.read()) or {})
            except (OSError, ValueError, AttributeError):
                continue
            if isinstance(count, int):
                return count
        return None

    def open(self, request: urllib.request.Request) -> Any:
        """The upstream's answer; an error status comes back as a response too."""
        try:
            return self._opener.open(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as exc:
            return exc


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _handler(proxy: CountingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.0: each answer closes its connection, so a relayed stream needs no length
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's naming
            self.forward()

        do_POST = do_PUT = do_DELETE = do_GET  # noqa: N815

        def forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            counted = self.command == "POST" and self.path.split("?")[0].endswith(MODEL_PATHS)
            streaming = False
            if counted:
                proxy.add(requests=1)
                if body and proxy.max_output_tokens:
                    body = cap_reply(body, proxy.max_output_tokens)
                if body:
                    body, streaming = ask_for_stream_usage(body)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
            request = urllib.request.Request(proxy.origin + self.path, data=body, headers=headers,
                                             method=self.command)
            proxy.flying(1)
            started = time.monotonic()
            try:
                answered = self.answer(proxy, request, counted, streaming)
            finally:
                proxy.flying(-1)
            if counted:
                proxy.record(body, answered or b"", time.monotonic() - started)

        def answer(self, proxy: CountingProxy, request: urllib.request.Request, counted: bool,
                   streaming: bool) -> bytes | None:
            """Relay the upstream's answer; its bytes (None when there was none)."""
            try:
                answer = proxy.open(request)
            except OSError as exc:  # refused, reset, timed out
                proxy.add(errors=int(counted))
                # the agent may have hung up first (it was stopped): the error is counted all the same
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.reply(502, {"error": {"message": f"the model server at {proxy.origin} did not "
                                                      f"answer: {exc}", "type": "proxy_error"}})
                return None
            self.unaccounted: tuple[bytes | None, int] | None = None
            try:
                return self.relay_answer(answer, request, counted, streaming)
            finally:  # a stream the agent hung up on, counted once the upstream's answer is closed, which ends it:
                if self.unaccounted is not None:  # a local server would otherwise write it on before it tokenizes
                    self.estimate(*self.unaccounted)

        def relay_answer(self, answer: Any, request: urllib.request.Request, counted: bool,
                         streaming: bool) -> bytes | None:
            """Relay the upstream's open `answer`, then close it; its bytes (None when the agent hung up)."""
            with answer:
                status = getattr(answer, "status", None) or answer.code
                if counted and status != 200:
                    proxy.add(errors=1)
                try:
                    if streaming and status == 200:
                        return self.relay_stream(answer, request.data if isinstance(request.data, bytes) else None)
                    else:
                        data = answer.read()
                        if counted and status == 200:
                            parsed = _json(data)
                            tokens = _tokens_of_answer(parsed)
                            proxy.add(tokens=tokens or (0, 0), unreported=int(tokens is None),
                                      cached=cached_of(parsed))
                        self.relay(status, answer.headers, data)
                        return data
                except (BrokenPipeError, ConnectionResetError):
                    return None  # the agent hung up (it was stopped); what it asked still counts

        def relay(self, status: int, headers: Any, data: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                if name.lower() not in HOP_HEADERS and name.lower() != "content-encoding":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def relay_stream(self, answer: Any, body: bytes | None) -> bytes:
            """Pass server-sent events on line by line; the last usage seen is the request's, or, when the stream
            carried none, what the upstream's tokenizer counts (`body`: the request). The events' bytes."""
            self.send_response(200)
            for name, value in answer.headers.items():
                if name.lower() not in HOP_HEADERS and name.lower() != "content-encoding":
                    self.send_header(name, value)
            self.end_headers()
            seen, accounted, cached, pieces = (0, 0), False, 0, 0
            events = bytearray()
            try:
                for line in iter(answer.readline, b""):
                    events += line
                    data = line[5:].strip() if line.startswith(b"data:") else b""
                    event = _json(data) if data.startswith(b"{") else None
                    pieces += streamed_piece(event)
                    tokens = _tokens_of_answer(event)
                    if tokens is not None:  # a server may repeat a running total: count the difference
                        proxy.add(tokens=(tokens[0] - seen[0], tokens[1] - seen[1]))
                        seen, accounted = tokens, True
                        cached = cached_of(event)
                    elif data == b"[DONE]" and not accounted:  # counted before the agent reads the end
                        self.estimate(body, pieces)
                        accounted = True
                    self.wfile.write(line)
                    self.wfile.flush()
            finally:  # also when the agent hung up: what the upstream read and wrote so far still counts
                if accounted:
                    proxy.add(cached=cached)  # the last usage seen is the request's
                else:
                    self.unaccounted = (body, pieces)  # counted by `answer`, once the upstream is closed
            return bytes(events)

        def estimate(self, body: bytes | None, pieces: int) -> None:
            """Count a stream that reported no usage by the upstream's tokenizer, or as `unreported`."""
            text = prompt_text(body)
            prompt = proxy.count_tokens(text) if text is not None else None
            if prompt is None:
                proxy.add(unreported=1)
            else:
                proxy.add(tokens=(prompt, pieces), estimated=1)

        def reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _tokens_of_answer(parsed: Any) -> tuple[int, int] | None:
    """(prompt, completion) from a parsed answer or stream event; None when it carries no usage."""
    return tokens_of(parsed.get("usage")) if isinstance(parsed, dict) else None

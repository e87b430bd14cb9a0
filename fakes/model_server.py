"""The shared core of the fake model servers: scripted rules, injectable faults, a request log.

A rule is a reply or a fault, matched against each request by schema name, by a marker
(a substring of the system prompt or of the last user message, which says what is asked; of any
message when there is no system prompt) and by model; the first matching rule answers and is
used up after `times` uses (0: forever).
A request no rule matches gets the `default` reply, or a 400 that says what was asked.
Like a real server the fakes end a reply at the request's output cap (`max_tokens`, a fake token being
4 characters; finish "length") and before its first stop sequence; a streamed request (`stream: true`)
is answered as server-sent events, a token at a time, and each request logs how many tokens it sent
before the client closed the connection (`sent_tokens`).

    server.reply("text", marker="You are the coder")
    server.reply("the first half", finish="length")  # cut off by the output cap
    server.reply("text", usage=(1000, 50, 800))  # 800 of the 1000 prompt tokens read from the provider's cache
    server.reply("text", extra={"timings": {"prompt_ms": 120.0, "predicted_ms": 900.0}})  # as llama.cpp answers
    server.reply(data={"verdict": "accept", "feedback": "ok"}, schema="review")
    server.rate_limit(retry_after=2)            # 429 + Retry-After, then the next rule
    server.server_error(times=3)                # a 500 storm
    server.hang()                               # no answer until the client gives up
    server.malformed_body()                     # a 200 whose body is not JSON
    server.requests                             # what was asked, in order
    server.token_delay_s = 0.002                # a streamed reply's pace: one fake token (4 characters) at a time
    FakeOpenAI(trace_peers=True)                # each request's `peer`: the sending process and its environment

Subclasses speak one provider's wire format (`openai_server.FakeOpenAI`, `gemini_server.FakeGemini`).
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fakes.peers import Peer, peer_of

HANG_LIMIT_S = 30.0
CHARS_PER_TOKEN = 4  # a fake token: the unit of output caps, usage and streamed pieces


@dataclass
class Logged:
    """One request as the fake saw it, with what it understood of it."""

    path: str
    headers: dict[str, str]
    body: Any
    model: str | None = None
    schema: str | None = None
    system: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)
    status: int = 0
    peer: Peer | None = None  # the process that sent it, when the server looks (`trace_peers`)
    stop: tuple[str, ...] = ()  # the stop sequences it sent: a reply ends before the first of them
    max_tokens: int | None = None  # the output cap it sent
    stream: bool = False  # asked for server-sent events
    sent_tokens: int = 0  # the reply's tokens (4 characters each) written before the reply ended or the client left
    closed_early: bool = False  # the client closed the connection before the reply's end
    ended: bool = False  # a streamed reply was written whole, or its client left
    client_port: int = 0  # the port of the connection it came on: requests on one connection share it

    @property
    def last_user(self) -> str:
        """The content of the last user message."""
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")


@dataclass
class Rule:
    """A scripted answer (kind: reply, status, hang, malformed) for requests that match."""

    kind: str
    text: str | None = None
    status: int = 200
    message: str = ""
    code: str | None = None
    retry_after: float | None = None
    details: list[dict[str, Any]] | None = None  # provider-specific error details (Gemini's QuotaFailure, ...)
    usage: tuple[int, int, int] | None = None
    finish: str = "stop"  # "stop" or "length" (cut off by the output cap); each fake words it its own way
    extra: dict[str, Any] | None = None  # fields added to the reply's body (llama.cpp's `timings`)
    hang_s: float = HANG_LIMIT_S
    delay_s: float = 0.0  # a reply's time to its first byte: a model reading the prompt
    schema: str | None = None
    marker: str | None = None
    model: str | None = None
    times: int = 1
    used: int = 0

    def matches(self, request: Logged) -> bool:
        haystack = (f"{request.system}\n{request.last_user}" if request.system
                    else "\n".join(m["content"] for m in request.messages))
        return ((self.schema is None or self.schema == request.schema)
                and (self.marker is None or self.marker in haystack)
                and (self.model is None or self.model == request.model))


class _Server(ThreadingHTTPServer):
    """The fake's HTTP server: a client that hung up mid-answer (a stream it closed once the reply was complete, with
    the rest unread) resets its connection, which a real server does not report as an error either."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class FakeModelServer:
    """A model API on 127.0.0.1 (random port) answering from rules; use as a context manager."""

    def __init__(self, api_key: str | None = None, trace_peers: bool = False):
        self.api_key = api_key
        self.trace_peers = trace_peers  # look up the process at the other end of each request's connection
        self.rules: list[Rule] = []
        self.requests: list[Logged] = []
        self.default: Rule | None = None
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._ids = itertools.count(1)
        self.token_delay_s = 0.0  # between a streamed reply's tokens
        self.in_flight = 0  # requests being answered now
        self.most_in_flight = 0  # the most answered at once since the server started
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> FakeModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- scripting ---------------------------------------------------------------------
    def add(self, rule: Rule) -> Rule:
        with self._lock:
            self.rules.append(rule)
        return rule

    def reply(self, text: str | None = None, *, data: dict[str, Any] | None = None,
              usage: tuple[int, int, int] | None = None, finish: str = "stop", times: int = 1,
              extra: dict[str, Any] | None = None, delay_s: float = 0.0, **match: Any) -> Rule:
        """Answer with `text`, or with `data` as JSON text; usage is (input, output, cached) tokens;
        `finish="length"` says the output cap cut the reply off; `extra` adds fields to the reply's body; the answer
        starts `delay_s` after the request came."""
        body = json.dumps(data) if data is not None else (text if text is not None else "")
        return self.add(Rule("reply", text=body, usage=usage, finish=finish, times=times, extra=extra,
                             delay_s=delay_s, **match))

    def set_default(self, text: str | None = None, *, data: dict[str, Any] | None = None) -> None:
        """The reply for requests no rule matches (instead of a 400)."""
        self.default = Rule("reply", text=json.dumps(data) if data is not None else text or "", times=0)

    def fail(self, status: int, message: str = "", *, code: str | None = None, retry_after: float | None = None,
             details: list[dict[str, Any]] | None = None, times: int = 1, **match: Any) -> Rule:
        """Answer with an error status in the provider's error format."""
        return self.add(Rule("status", status=status, message=message or f"injected {status}", code=code,
                             retry_after=retry_after, details=details, times=times, **match))

    def rate_limit(self, retry_after: float | None = 1, times: int = 1, **match: Any) -> Rule:
        return self.fail(429, "Rate limit reached; please try again later.", code="rate_limit_exceeded",
                         retry_after=retry_after, times=times, **match)

    def server_error(self, times: int = 1, status: int = 500, **match: Any) -> Rule:
        return self.fail(status, "The server had an error while processing your request.", times=times, **match)

    def hang(self, seconds: float = HANG_LIMIT_S, times: int = 1, **match: Any) -> Rule:
        """Accept the request and say nothing for `seconds` (or until the server stops), then answer 503."""
        return self.add(Rule("hang", hang_s=seconds, times=times, **match))

    def malformed_body(self, times: int = 1, **match: Any) -> Rule:
        """A 200 whose body is not JSON at all."""
        return self.add(Rule("malformed", times=times, **match))

    def count(self, **match: Any) -> int:
        """How many logged requests match (schema=, marker=, model=)."""
        probe = Rule("probe", **match)
        return sum(1 for r in self.requests if probe.matches(r))

    # -- serving -----------------------------------------------------------------------
    def _take(self, request: Logged) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.matches(request):
                    rule.used += 1
                    if rule.times and rule.used >= rule.times:
                        self.rules.remove(rule)
                    return rule
            return self.default

    def _respond(self, handler: BaseHTTPRequestHandler, request: Logged) -> None:
        rule = self._take(request)
        if rule is None:
            detail = f"fake server: no scripted reply for model={request.model} schema={request.schema}"
            return self._send(handler, request, 400, self.error_body(400, detail, "no_rule"))
        if rule.kind == "hang":
            self._release.wait(rule.hang_s)
            return self._send(handler, request, 503, self.error_body(503, "hung request released", None))
        if rule.kind == "malformed":
            return self._send(handler, request, 200, b'{"choices": [ this is not json')
        if rule.kind == "status":
            headers = {"Retry-After": f"{rule.retry_after:g}"} if rule.retry_after is not None else {}
            body = self.error_body(rule.status, rule.message, rule.code)
            if rule.details is not None and isinstance(body.get("error"), dict):
                body["error"]["details"] = rule.details
            return self._send(handler, request, rule.status, body, headers)
        if rule.delay_s:
            self._release.wait(rule.delay_s)
        text, finish = _cut_at_stop(rule.text or "", request.stop), rule.finish
        if request.max_tokens is not None and len(text) > request.max_tokens * CHARS_PER_TOKEN:
            text, finish = text[:request.max_tokens * CHARS_PER_TOKEN], "length"
        usage = rule.usage or (_estimate(request), _estimate_text(text), 0)
        headers = {"x-request-id": f"req_{len(self.requests)}"}
        if request.stream:
            return self._stream(handler, request, text, usage, next(self._ids), finish, headers, rule.extra)
        request.sent_tokens = _estimate_text(text)
        body = {**self.success_body(request, text, usage, next(self._ids), finish), **(rule.extra or {})}
        return self._send(handler, request, 200, body, headers)

    def _stream(self, handler: BaseHTTPRequestHandler, request: Logged, text: str, usage: tuple[int, int, int],
                number: int, finish: str, headers: dict[str, str], extra: dict[str, Any] | None = None) -> None:
        """`text` as server-sent events, a token at a time (chunked transfer), until its end or the client leaves."""
        request.status = 200
        pieces = [text[i:i + CHARS_PER_TOKEN] for i in range(0, len(text), CHARS_PER_TOKEN)]
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Transfer-Encoding", "chunked")
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            for index, piece in enumerate(pieces):
                _write_chunk(handler, self.stream_event(request, piece, None, None, number))
                request.sent_tokens = index + 1
                if self.token_delay_s:
                    time.sleep(self.token_delay_s)
            _write_chunk(handler, self.stream_event(request, "", finish, usage, number, extra))
            for event in self.stream_end():
                _write_chunk(handler, event)
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            request.closed_early = True  # the client read what it needed and closed the connection
        finally:
            request.ended = True

    def _send(self, handler: BaseHTTPRequestHandler, request: Logged, status: int, body: Any,
              headers: dict[str, str] | None = None) -> None:
        request.status = status
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stall

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = None
                request = fake.parse(self.path, dict(self.headers), body)
                request.client_port = self.client_address[1]
                if fake.trace_peers:
                    request.peer = peer_of(self.client_address[:2], self.server.server_address[:2])
                with fake._lock:
                    fake.requests.append(request)
                problem = fake.check(request)
                if problem is not None:
                    fake._send(self, request, problem[0], problem[1])
                    return
                with fake._lock:
                    fake.in_flight += 1
                    fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
                try:
                    fake._respond(self, request)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's naming
                found = fake.get(self.path, dict(self.headers))
                status, body = found if found is not None else (404, fake.error_body(404, "File Not Found", None))
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    # -- provider specifics (subclasses) -------------------------------------------------
    def parse(self, path: str, headers: dict[str, str], body: Any) -> Logged:
        raise NotImplementedError

    def check(self, request: Logged) -> tuple[int, Any] | None:
        """A (status, body) refusal before any rule is used (bad path, wrong key), else None."""
        raise NotImplementedError

    def get(self, path: str, headers: dict[str, str]) -> tuple[int, Any] | None:
        """The (status, body) of a `GET path` the server answers (None: a 404); a model API answers none."""
        return None

    def error_body(self, status: int, message: str, code: str | None) -> Any:
        raise NotImplementedError

    def success_body(self, request: Logged, text: str, usage: tuple[int, int, int], number: int,
                     finish: str = "stop") -> Any:
        raise NotImplementedError

    def stream_event(self, request: Logged, piece: str, finish: str | None, usage: tuple[int, int, int] | None,
                     number: int, extra: dict[str, Any] | None = None) -> bytes:
        """One server-sent event of a streamed reply: a piece of its text, or its end (finish reason and usage, and
        `extra`: fields a server adds to its last event, such as llama.cpp's `timings`)."""
        raise NotImplementedError

    def stream_end(self) -> list[bytes]:
        """The events after the last one (OpenAI's `data: [DONE]`)."""
        return []


def _write_chunk(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    handler.wfile.flush()


def _estimate(request: Logged) -> int:
    return _estimate_text(request.system + "".join(m["content"] for m in request.messages))


def _cut_at_stop(text: str, stop: tuple[str, ...]) -> str:
    """`text` up to the first of the stop sequences, as a real server answers a request that sent them."""
    ends = [i for s in stop if s and (i := text.find(s)) >= 0]
    return text[:min(ends)] if ends else text


def _estimate_text(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)

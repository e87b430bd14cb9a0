"""The plain data of a model call, and the `ChatModel` seam every provider implements.

A provider turns a `ChatRequest` into a `Completion` (text, usage, request id) or raises a
`ProviderError`. Everything else (retries, failover, schemas, budget, cache, tracing) lives
in `ModelManager`, which hands callers a `Reply`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

MessageRole = Literal["system", "user", "assistant"]
# A JSON object as parsed (a structured reply's data): its values are read only after checking what they are.
JsonObject = dict[str, object]
LENGTH = "length"  # the finish reason of a reply cut off by the output cap (OpenAI's word; Gemini's MAX_TOKENS)
STOP_LIMIT = 4  # stop sequences a request sends at most (OpenAI's chat completions take up to 4; Gemini 5)


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: MessageRole
    content: str


@dataclass(frozen=True)
class Usage:
    """Tokens a call used; `cached_tokens` is the part of the input the provider served from its cache."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                     self.cached_tokens + other.cached_tokens)

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class ReplyEnd:
    """Where a reply is complete before the model would stop: what it writes after that is not waited for and not
    kept. A stop sequence ends a reply before a text; this ends it after what the caller needs, which no fixed text
    marks (the closing fence of a whole-file listing is also how another opens). On a local server a reply's length
    is its time, and a small model goes on after its answer (a word on the change, a test nobody asked for).

    `name` says what it waits for (it keys cached replies and is traced); `at(text)` is the length of the complete
    reply in a text read so far, None while it is not complete."""

    name: str
    at: Callable[[str], int | None] = field(compare=False, repr=False)

    def cut(self, text: str) -> str:
        """`text` up to where it is complete, or all of it."""
        end = self.at(text)
        return text if end is None else text[:end]


@dataclass(frozen=True)
class ChatRequest:
    """What a provider is asked: the role is passed for scripted replay and tracing only."""

    role: str
    messages: tuple[Message, ...]
    schema: str | None = None
    temperature: float = 0.0
    max_output_tokens: int = 4096  # the output cap sent to the provider
    timeout_s: float = 120.0
    stop: tuple[str, ...] = ()  # the reply ends before the first of these (at most STOP_LIMIT are sent)
    until: ReplyEnd | None = None  # the reply ends once it is complete (read as it streams where a provider can)


def cut_at_stop(text: str, stop: tuple[str, ...]) -> str:
    """`text` up to the first of the `stop` sequences, as a server that was sent them returns it (a replayed reply)."""
    ends = [i for s in stop[:STOP_LIMIT] if s and (i := text.find(s)) >= 0]
    return text[:min(ends)] if ends else text


def cut_reply(text: str, request: ChatRequest) -> str:
    """`text` as `request` keeps it: up to its first stop sequence, then up to where it is complete."""
    text = cut_at_stop(text, request.stop)
    return request.until.cut(text) if request.until is not None else text


@dataclass(frozen=True)
class ServerTiming:
    """Seconds a server says it spent reading the prompt and writing the reply (llama.cpp's `timings`: prompt_ms,
    predicted_ms). Hosted APIs say neither, and a whole reply's latency does not split into the two."""

    prompt_s: float
    reply_s: float

    def __add__(self, other: ServerTiming) -> ServerTiming:
        return ServerTiming(self.prompt_s + other.prompt_s, self.reply_s + other.reply_s)


def add_timing(first: ServerTiming | None, second: ServerTiming | None) -> ServerTiming | None:
    """Both parts' timing together; unknown when either part's is (a sum of known and unknown is no split)."""
    return first + second if first is not None and second is not None else None


@dataclass(frozen=True)
class Completion:
    """A provider's raw answer to one request."""

    text: str
    usage: Usage = Usage()
    request_id: str | None = None
    replayed: bool = False
    data: JsonObject | None = None  # set by providers that return parsed data (scripted)
    finish_reason: str = "stop"  # lower case; "length" when the output cap cut the reply
    model: str = ""  # the model (with its version) as the provider reported it, when it did
    timing: ServerTiming | None = None  # how the server split its time, when it said (llama.cpp's `timings`)


@dataclass(frozen=True)
class Reply:
    """What `ModelManager.complete` returns: the text, parsed data for schema replies, and accounting."""

    text: str
    data: JsonObject | None
    usage: Usage
    cost_usd: float
    latency_s: float
    request_id: str | None
    provider: str
    model: str
    role: str = ""
    cached: bool = False
    replayed: bool = False
    fallback_from: str | None = None
    retries: int = 0
    repaired: bool = False
    finish_reason: str = "stop"  # of the last part; "length" when the output cap cut it
    truncated: bool = False  # still cut off by the output cap after asking the model to continue
    timing: ServerTiming | None = None  # the server's own split of its time (None: it did not say)


class ChatModel(Protocol):
    """One provider and model; `complete` sends one request, with no retries of its own."""

    provider: str
    model: str
    base_url: str | None  # the server (None: the provider's own): the same model name elsewhere is another model

    def complete(self, request: ChatRequest) -> Completion:
        """Send `request` once; raise a `bot.errors.ProviderError` subclass on failure."""
        ...

"""`OpenAIChatModel`: OpenAI and any OpenAI-compatible server (vLLM, Ollama, llama.cpp) by URL.

Uses the official `openai` SDK with its own retries off (`max_retries=0`): `ModelManager`
owns the retry policy. `OPENAI_API_KEY` and `OPENAI_BASE_URL` come from the environment,
unless the role's config names its own `base_url` and `api_key_env`.
Structured replies ask for `response_format` JSON schema under the schema's name; a server
that refuses it, with whatever status (llama.cpp's answers 500), is asked again in JSON mode,
then with the schema in the prompt alone, and the manager validates whatever comes back; a
server that refuses stop sequences is asked without them, and its reply is cut at the first one
here. What a server refused is remembered per base URL and model, for this process and for later
runs (bot/llm/refusals.py), so every role on that model skips what it cannot do.
A structured reply is streamed and read only until its JSON object is complete, and a reply the caller
says when it is complete (`ChatRequest.until`: a whole-file listing closed) only until then: what a
model writes after it is never waited for, and closing the connection stops a local server's decoding
(a server that refuses to stream is asked without streaming from then on, and its reply cut there).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from bot.errors import (
    ContextTooLong,
    ModelAuthError,
    ModelConnectionError,
    ModelNotFound,
    ModelRequestError,
    ModelServerError,
    ModelTimeout,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    UnreadableReply,
)
from bot.llm import refusals
from bot.llm.local import is_local, server_extras, server_turn
from bot.llm.reasoning import REASONING_PREFIXES, strip_reasoning
from bot.llm.retry import parse_retry_after
from bot.llm.schemas import SchemaViolation, get_schema, parse_structured
from bot.llm.tokens import count_tokens
from bot.llm.types import STOP_LIMIT, ChatRequest, Completion, ReplyEnd, ServerTiming, Usage, cut_reply
from bot.redact import Redactor, clip

if TYPE_CHECKING:  # the SDK loads on the first call (bot/llm/__init__.py)
    from openai import APIStatusError, OpenAI, Stream
    from openai.types import CompletionUsage
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "the OpenAI API"
DEFAULT_KEY_VAR = "OPENAI_API_KEY"
FORMAT_LEVELS = ("json_schema", "json_object", "prompt")
# REASONING_PREFIXES: these accept only the default temperature, and take max_completion_tokens instead of max_tokens
# words of a refused response_format: OpenAI, vLLM ("guided"), Ollama, llama.cpp ("grammar", and
# llama-cpp-python's pydantic text "Input should be 'text' or 'json_object'"); "not supported" alone
# is not enough ("'max_tokens' is not supported with this model" is about something else)
FORMAT_WORDS = ("response_format", "json_schema", "json_object", "guided", "grammar")
UNSUPPORTED_WORDS = ("not supported", "unsupported")

# words of a refused stop parameter: OpenAI's reasoning models and Azure deployments of them
# ("Unsupported parameter: 'stop' is not supported with this model."), strict servers' "unknown field"
STOP_WORDS = ("'stop'", '"stop"', "`stop`", "stop sequence")
STOP_REFUSED_WORDS = (*UNSUPPORTED_WORDS, "not permitted", "not allowed", "unknown", "unrecognized", "invalid")
STREAM = "stream"  # the feature name of streamed replies (bot/llm/refusals.py)
# pieces (about a token each) read after a structured reply's answer: enough for the end of a stream (its finish
# reason and usage) to come, far too few for a model that goes on writing to cost time
AFTER_ANSWER = 16
STREAM_WORDS = ("'stream", '"stream', "`stream", "stream_options", "streaming")


def format_level(refused: frozenset[str]) -> int:
    """The structured-output mode (index into FORMAT_LEVELS) to try first with a server that refused `refused`."""
    level = 0
    while level < len(FORMAT_LEVELS) - 1 and FORMAT_LEVELS[level] in refused:
        level += 1
    return level


def schema_instruction(schema: str) -> str:
    """The system note that asks for JSON when the server cannot enforce the schema itself."""
    return (f"Reply with one JSON object only, no prose and no code fence, matching this JSON schema "
            f"(named {schema!r}): {json.dumps(get_schema(schema))}")


@functools.lru_cache(maxsize=16)
def _shared_client(api_key: str, base_url: str | None) -> OpenAI:
    """One SDK client per key and server in a process, with its own retries off, shared by every model on them: a
    client holds a connection pool and reads the CA bundle when made (30 ms and more), and it is safe to share
    between threads (the two teams')."""
    import openai

    return openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0)


class OpenAIChatModel:
    """One model behind the OpenAI chat completions API."""

    provider = "openai"

    def __init__(self, model: str, api_key: str | None, base_url: str | None = None,
                 key_var: str = DEFAULT_KEY_VAR):
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.key_var = key_var  # named in messages about the key

    @classmethod
    def from_env(cls, model: str, env: Mapping[str, str], base_url: str | None = None,
                 api_key_env: str | None = None) -> OpenAIChatModel:
        """A model on `base_url` with the key in `api_key_env`; by default OPENAI_BASE_URL and OPENAI_API_KEY."""
        key_var = api_key_env or DEFAULT_KEY_VAR
        return cls(model, env.get(key_var) or None, base_url or env.get("OPENAI_BASE_URL") or None, key_var)

    @property
    def where(self) -> str:
        """The server's URL for messages, without any user:password it carries."""
        url = urlsplit(self.base_url or DEFAULT_BASE_URL)
        host = url.hostname or ""
        netloc = f"{host}:{url.port}" if url.port else host
        return urlunsplit((url.scheme, netloc, url.path, url.query, url.fragment)) if url.username else url.geturl()

    def client(self) -> OpenAI:
        """The SDK client for this key and server (a local server needs no key, so a placeholder is sent)."""
        if not self.api_key and not self.base_url:
            raise ModelAuthError(f"{self.key_var} is not set; export {self.key_var}=... (or set "
                                 "OPENAI_BASE_URL for a local OpenAI-compatible server)")
        return _shared_client(self.api_key or "not-needed", self.base_url)

    def complete(self, request: ChatRequest) -> Completion:
        """Send one chat completion; refused structured-output modes step down to simpler ones, refused stop
        sequences are cut here instead."""
        while True:
            refused = refusals.refused(self.where, self.model)
            level = format_level(refused)
            reasoning = self.model.startswith(REASONING_PREFIXES)  # which take no stop sequences
            stop = bool(request.stop) and refusals.STOP not in refused and not reasoning
            stream = bool(request.schema or request.until) and STREAM not in refused
            try:
                completion = self._send(request, FORMAT_LEVELS[level] if request.schema else None, stop, stream)
            except ProviderError as exc:
                feature = _refused_feature(exc, request, level, stop, stream)
                if feature is None:
                    raise
                log.info("%s refused %s for %s (%s); asking without it", self.where, feature, self.model, exc)
                refusals.learn_refusal(self.where, self.model, feature)
                continue
            return _cut(completion, request if not stop else dataclasses.replace(request, stop=()))

    def _send(self, request: ChatRequest, fmt: str | None, stop: bool, stream: bool = False) -> Completion:
        import openai

        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": request.timeout_s}
        if self.model.startswith(REASONING_PREFIXES):
            kwargs["max_completion_tokens"] = request.max_output_tokens
        else:
            kwargs["temperature"] = request.temperature
            kwargs["max_tokens"] = request.max_output_tokens
        if stop:
            kwargs["stop"] = list(request.stop[:STOP_LIMIT])
        if extras := server_extras(self.base_url):  # a local server keeps the prompt's prefix for the next request
            kwargs["extra_body"] = extras
        if request.schema and fmt == "json_schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema, "schema": get_schema(request.schema), "strict": True}}
        elif request.schema:
            messages.insert(0, {"role": "system", "content": schema_instruction(request.schema)})
            if fmt == "json_object":
                kwargs["response_format"] = {"type": "json_object"}
        if stream:
            kwargs.update(stream=True, stream_options={"include_usage": True})
        try:
            with server_turn(self.base_url, self.api_key):  # a local server's queue is ours, outside the timeout
                began = time.monotonic()
                completion = self.client().chat.completions.create(**kwargs)
                if stream:
                    return self._read_stream(completion, request.schema or "", messages, request.timeout_s,
                                             None if request.schema else request.until, began)
        except (openai.OpenAIError, ValueError) as exc:  # ValueError: a body that is not JSON
            raise self._map_error(exc, request.timeout_s) from exc
        return self._read(completion)

    def _read_stream(self, stream: Stream[ChatCompletionChunk], schema: str, messages: list[dict[str, str]],
                     timeout_s: float, until: ReplyEnd | None = None, began: float | None = None) -> Completion:
        """A streamed reply, read until it is complete and within `timeout_s` in all as an answer that is not
        streamed: a structured one until it holds a JSON object that validates as `schema` (the first such object is
        the answer) and then at most AFTER_ANSWER more pieces (a server that enforces the schema ends it right after
        the object, and its last event brings the server's usage, cached tokens included); a plain one to its end, or
        up to where `until` says it is complete. A reply that goes on after it is cut: the connection is closed,
        which stops a local server's decoding, and its usage is counted here from the prompt and the text read. A
        local server's split of its time comes with its last event, if at all (llama.cpp's server sends it,
        llama-cpp-python's does not stream it): without it, the split is timed here, from `began` (when the request
        was sent): until the first piece of text the server was reading the prompt."""
        import openai

        parts: list[str] = []
        finish, usage, model, chunk_id, answered, cut = "stop", None, "", None, -1, False
        timings: dict[str, float] = {}
        ends = time.monotonic() + timeout_s
        first: float | None = None  # when the first piece of text came
        try:
            for chunk in stream:
                if time.monotonic() > ends:
                    raise openai.APITimeoutError(request=stream.response.request)
                chunk_id, model = chunk_id or chunk.id, model or str(chunk.model or "")
                usage = chunk.usage or usage
                timings = _timings(chunk.model_extra) or timings  # llama.cpp's, on its last event
                choice = chunk.choices[0] if chunk.choices else None
                piece = (choice.delta.content or "") if choice is not None and choice.delta else ""
                if choice is not None and choice.finish_reason:
                    finish = str(choice.finish_reason).lower()
                if piece and first is None:
                    first = time.monotonic()
                if piece and answered >= 0 and len(parts) - answered >= AFTER_ANSWER:
                    cut = True  # the model goes on writing after its answer: not waited for
                    break
                parts.append(piece)
                if until is not None and "\n" in piece and (end := until.at(text := "".join(parts))) is not None:
                    parts, cut = [text[:end]], True  # complete: what the model would write next is not waited for
                    break
                if schema and answered < 0 and "}" in piece and _holds_answer("".join(parts), schema):
                    answered = len(parts)
        except openai.OpenAIError:
            raise
        except Exception as exc:  # noqa: BLE001 - the SDK maps transport errors (httpx's or httpx2's) before the
            # stream, not while it is read: they are mapped by name, as bot/llm/gemini.py does
            names = {cls.__name__ for cls in type(exc).__mro__}
            if "TimeoutException" in names:
                raise openai.APITimeoutError(request=stream.response.request) from exc
            if names & {"TransportError", "HTTPError", "StreamError"}:
                raise openai.APIConnectionError(request=stream.response.request) from exc
            raise
        finally:
            stream.close()
        text = "".join(parts)
        if chunk_id is None:
            raise UnreadableReply(f"{self.where} answered a streamed request without any event; is it an "
                                  "OpenAI-compatible server?")
        tokens = _usage(usage, timings) if usage is not None and not cut else Usage(
            sum(count_tokens(m["content"], self.model) + 4 for m in messages), count_tokens(text, self.model))
        request_id = stream.response.headers.get("x-request-id") or chunk_id
        timing = _timing(timings)
        if timing is None and began is not None and first is not None and is_local(self.base_url):
            timing = ServerTiming(first - began, time.monotonic() - first)
        return Completion(text=text, usage=tokens, request_id=request_id, finish_reason="stop" if cut else finish,
                          model=model, timing=timing)

    def _read(self, completion: ChatCompletion) -> Completion:
        # The SDK builds replies without validating them: a field a compatible server left out is None,
        # whatever its annotation says, so every field is read with a fallback.
        if not completion.choices:
            raise ModelRequestError(f"{self.where} answered without choices; is it an OpenAI-compatible server?")
        choice = completion.choices[0]
        message = choice.message
        text = message.content or message.refusal or ""
        timings = _timings(completion.model_extra)
        tokens = _usage(completion.usage, timings) if completion.usage else Usage()
        request_id = completion._request_id or completion.id  # the x-request-id header, as the SDK documents it
        finish = str(choice.finish_reason or "stop").lower()
        return Completion(text=text, usage=tokens, request_id=request_id, finish_reason=finish,
                          model=str(completion.model or ""), timing=_timing(timings))

    def _map_error(self, exc: Exception, timeout_s: float) -> ProviderError:
        """The SDK's exception as one of ours, with a message that says what to do and no secret in it
        (a compatible server or proxy may echo the key, or the base URL may carry a password)."""
        error = self._classify(exc, timeout_s)
        password = urlsplit(self.base_url).password if self.base_url else None
        redactor = Redactor([v for v in (self.api_key, password) if v])
        error.args = (redactor.text(str(error)),)
        return error

    def _classify(self, exc: Exception, timeout_s: float) -> ProviderError:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return ModelTimeout(f"no answer from {self.where} within {timeout_s:g}s (raise llm.timeout_s)")
        if isinstance(exc, openai.APIConnectionError):
            return ModelConnectionError(f"cannot reach {self.where} ({exc}); check OPENAI_BASE_URL and the network")
        if isinstance(exc, ValueError):  # a 200 whose body is not JSON: a proxy or a cut connection, try again
            return UnreadableReply(f"unreadable reply from {self.where}: {exc}")
        if not isinstance(exc, openai.APIStatusError):
            return ModelRequestError(f"unreadable reply from {self.where}: {exc}")
        status, body_code = exc.status_code, str(exc.code or "")
        detail = _error_text(exc)
        retry_after = parse_retry_after(exc.response.headers)
        if status in (401, 403):
            return ModelAuthError(f"{self.key_var} was rejected by {self.where} ({status}: {detail}); "
                                  "export a valid key, or point OPENAI_BASE_URL at the right server", status)
        if status == 404:
            return ModelNotFound(f"model {self.model!r} was not found at {self.where} (404: {detail})", status)
        # OpenAI's code for an empty account; a compatible server's "quota" text is permanent only when
        # it gives no Retry-After (a per-minute quota says when to come back)
        if status == 429 and (body_code == "insufficient_quota" or ("quota" in detail.lower() and retry_after is None)):
            return QuotaExhausted(f"the OpenAI account has no quota left ({detail}); add credit or billing, "
                                  "or switch the role to another provider", status)
        if status == 429:
            return RateLimited(f"rate limited by {self.where} (429: {detail})", status, retry_after)
        if body_code == "context_length_exceeded" or "context length" in detail.lower() or \
                "maximum context" in detail.lower():
            return ContextTooLong(f"the prompt is longer than {self.model}'s context window ({detail}); "
                                  "send less context or use a model with a larger window", status)
        if status >= 500:
            return ModelServerError(f"{self.where} failed ({status}: {detail})", status, retry_after)
        return ModelRequestError(f"{self.where} refused the request ({status}: {detail})", status)


def _timings(extra: Mapping[str, object] | None) -> dict[str, float]:
    """The numbers of llama.cpp's `timings` in a reply's body (prompt_ms, predicted_ms, cache_n, ...); none elsewhere."""
    timings = (extra or {}).get("timings")
    if not isinstance(timings, Mapping):
        return {}
    return {str(k): float(v) for k, v in timings.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def _timing(timings: Mapping[str, float]) -> ServerTiming | None:
    """Seconds the server spent reading the prompt and writing the reply, where it says (llama.cpp's `timings`)."""
    if not {"prompt_ms", "predicted_ms"} <= timings.keys():
        return None
    return ServerTiming(timings["prompt_ms"] / 1000, timings["predicted_ms"] / 1000)


def _usage(usage: CompletionUsage, timings: Mapping[str, float] | None = None) -> Usage:
    """A reply's tokens: OpenAI's (and vLLM's) cached prompt tokens, or the prefix llama.cpp's server reused, counted
    in its `timings` (`cache_n`)."""
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details else 0
    prompt = usage.prompt_tokens or 0
    cached = min(cached or int((timings or {}).get("cache_n", 0)), prompt)
    return Usage(prompt, usage.completion_tokens or 0, cached)


def _holds_answer(text: str, schema: str) -> bool:
    """Whether `text` already holds its answer: its first JSON object complete (not an object inside it, which can
    validate alone: a finding before the list of findings closes) and valid as `schema`. Text whose first `{` opens
    no JSON at all is never taken as answered early: it is read to its end."""
    body = strip_reasoning(text)
    start = body.find("{")
    if start < 0:
        return False
    try:
        json.JSONDecoder().raw_decode(body, start)
    except json.JSONDecodeError:
        return False
    try:
        parse_structured(text, schema)
    except SchemaViolation:
        return False
    return True


def _error_text(exc: APIStatusError) -> str:
    body = exc.body  # the error's JSON, or its text when it was not JSON
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return clip(str(inner["message"]), 500)
    return clip(str(exc.message or exc), 500)


def _refused_feature(exc: ProviderError, request: ChatRequest, level: int, stop: bool,
                     stream: bool = False) -> str | None:
    """The feature a server's error says it refused, when asking without it may work; None for other errors."""
    if exc.status is None:  # no answer at all: nothing was refused
        return None
    message = str(exc)
    if stream and _refuses_stream(message):
        return STREAM
    if request.schema and level < len(FORMAT_LEVELS) - 1 and _refuses_format(message):
        return FORMAT_LEVELS[level]
    if stop and _refuses_stop(message):
        return refusals.STOP
    return None


def _refuses_stream(message: str) -> bool:
    text = message.lower()
    return any(word in text for word in STREAM_WORDS) and any(word in text for word in STOP_REFUSED_WORDS)


def _refuses_stop(message: str) -> bool:
    text = message.lower()
    return any(word in text for word in STOP_WORDS) and any(word in text for word in STOP_REFUSED_WORDS)


def _cut(completion: Completion, request: ChatRequest) -> Completion:
    """`completion` ended as `request` would have ended it: before its first stop sequence (as a server that was sent
    them ends it) and where it is complete (`until`, for a reply that was not streamed)."""
    text = cut_reply(completion.text, request)
    if text == completion.text:
        return completion
    return dataclasses.replace(completion, text=text, finish_reason="stop")


def _refuses_format(message: str) -> bool:
    text = message.lower()
    if any(word in text for word in FORMAT_WORDS):
        return True
    return any(word in text for word in UNSUPPORTED_WORDS) and ("format" in text or "schema" in text)

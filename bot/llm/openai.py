"""`OpenAIChatModel`: OpenAI and any OpenAI-compatible server (vLLM, Ollama, llama.cpp) by URL.

Uses the official `openai` SDK with its own retries off (`max_retries=0`): `ModelManager`
owns the retry policy. `OPENAI_API_KEY` and `OPENAI_BASE_URL` come from the environment.
Structured replies ask for `response_format` JSON schema under the schema's name; a server
that refuses it is asked again in JSON mode, then with the schema in the prompt alone, and
the manager validates whatever comes back.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any
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
)
from bot.llm.retry import parse_retry_after
from bot.llm.schemas import get_schema
from bot.llm.types import ChatRequest, Completion, Usage
from bot.redact import Redactor

DEFAULT_BASE_URL = "the OpenAI API"
FORMAT_LEVELS = ("json_schema", "json_object", "prompt")
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")  # these accept only the default temperature


def schema_instruction(schema: str) -> str:
    """The system note that asks for JSON when the server cannot enforce the schema itself."""
    return (f"Reply with one JSON object only, no prose and no code fence, matching this JSON schema "
            f"(named {schema!r}): {json.dumps(get_schema(schema))}")


class OpenAIChatModel:
    """One model behind the OpenAI chat completions API."""

    provider = "openai"

    def __init__(self, model: str, api_key: str | None, base_url: str | None = None):
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self._client: Any = None
        self._format_level = 0  # index into FORMAT_LEVELS; moves down when a server refuses one
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, model: str, env: Mapping[str, str]) -> OpenAIChatModel:
        """A model using OPENAI_API_KEY and OPENAI_BASE_URL from `env`."""
        return cls(model, env.get("OPENAI_API_KEY"), env.get("OPENAI_BASE_URL") or None)

    @property
    def where(self) -> str:
        """The server's URL for messages, without any user:password it carries."""
        url = urlsplit(self.base_url or DEFAULT_BASE_URL)
        host = url.hostname or ""
        netloc = f"{host}:{url.port}" if url.port else host
        return urlunsplit((url.scheme, netloc, url.path, url.query, url.fragment)) if url.username else url.geturl()

    def client(self) -> Any:
        """The SDK client, made on first use (a local server needs no key, so a placeholder is sent)."""
        with self._lock:
            if self._client is None:
                import openai

                if not self.api_key and not self.base_url:
                    raise ModelAuthError("OPENAI_API_KEY is not set; export OPENAI_API_KEY=... (or set "
                                         "OPENAI_BASE_URL for a local OpenAI-compatible server)")
                self._client = openai.OpenAI(api_key=self.api_key or "not-needed", base_url=self.base_url,
                                             max_retries=0)
            return self._client

    def complete(self, request: ChatRequest) -> Completion:
        """Send one chat completion; refused structured-output modes step down to simpler ones."""
        while True:
            level = self._format_level
            try:
                return self._send(request, FORMAT_LEVELS[level] if request.schema else None)
            except ModelRequestError as exc:
                if not (request.schema and _refuses_format(str(exc)) and level < len(FORMAT_LEVELS) - 1):
                    raise
                with self._lock:
                    self._format_level = max(self._format_level, level + 1)

    def _send(self, request: ChatRequest, fmt: str | None) -> Completion:
        import openai

        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": request.timeout_s}
        if not self.model.startswith(REASONING_PREFIXES):
            kwargs["temperature"] = request.temperature
        if request.schema and fmt == "json_schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema, "schema": get_schema(request.schema), "strict": True}}
        elif request.schema:
            messages.insert(0, {"role": "system", "content": schema_instruction(request.schema)})
            if fmt == "json_object":
                kwargs["response_format"] = {"type": "json_object"}
        try:
            completion = self.client().chat.completions.create(**kwargs)
        except (openai.OpenAIError, ValueError) as exc:  # ValueError: a body that is not JSON
            raise self._map_error(exc, request.timeout_s) from exc
        return self._read(completion)

    def _read(self, completion: Any) -> Completion:
        if not getattr(completion, "choices", None):
            raise ModelRequestError(f"{self.where} answered without choices; is it an OpenAI-compatible server?")
        message = completion.choices[0].message
        text = message.content or getattr(message, "refusal", None) or ""
        usage = completion.usage
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        cached = (getattr(details, "cached_tokens", 0) or 0) if details else 0
        tokens = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, cached) if usage else Usage()
        request_id = getattr(completion, "_request_id", None) or getattr(completion, "id", None)
        return Completion(text=text, usage=tokens, request_id=request_id)

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
        if not isinstance(exc, openai.APIStatusError):
            return ModelRequestError(f"unreadable reply from {self.where}: {exc}")
        status, body_code = exc.status_code, str(getattr(exc, "code", "") or "")
        detail = _error_text(exc)
        retry_after = parse_retry_after(exc.response.headers)
        if status in (401, 403):
            return ModelAuthError(f"OPENAI_API_KEY was rejected by {self.where} ({status}: {detail}); "
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


def _error_text(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:500]
    return str(getattr(exc, "message", exc))[:500]


def _refuses_format(message: str) -> bool:
    text = message.lower()
    return "response_format" in text or "json_schema" in text or "json_object" in text

"""`GeminiChatModel`: Google's Gemini API through the `google-genai` SDK.

The key comes from `GEMINI_API_KEY` or `GOOGLE_API_KEY`; `GOOGLE_GEMINI_BASE_URL` (the SDK's
own variable) points it elsewhere, which is how tests reach a fake server. The SDK's retries
are off (one attempt); `ModelManager` owns the retry policy. Structured replies use
`response_schema`, titled with the schema's name.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

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
from bot.llm.types import LENGTH, STOP_LIMIT, ChatRequest, Completion, Usage
from bot.redact import clip

if TYPE_CHECKING:  # the SDK loads on the first call (bot/llm/__init__.py)
    from google.genai import Client
    from google.genai.errors import APIError
    from google.genai.types import Candidate, GenerateContentResponse

KEY_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
BASE_URL_VAR = "GOOGLE_GEMINI_BASE_URL"


@functools.lru_cache(maxsize=16)
def _shared_client(api_key: str, base_url: str | None) -> Client:
    """One SDK client per key and server in a process, shared by every model on them: a client holds a connection
    pool and reads the CA bundle when made (twice: for HTTP and for websockets), and is safe to share between
    threads."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=base_url, retry_options=types.HttpRetryOptions(attempts=1))
    return genai.Client(api_key=api_key, http_options=options)


class GeminiChatModel:
    """One Gemini model behind `generateContent`."""

    provider = "gemini"

    def __init__(self, model: str, api_key: str | None, base_url: str | None = None, key_var: str = KEY_VARS[0]):
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.key_var = key_var  # named in messages about the key

    @classmethod
    def from_env(cls, model: str, env: Mapping[str, str], base_url: str | None = None,
                 api_key_env: str | None = None) -> GeminiChatModel:
        """A model on `base_url` with the key in `api_key_env`; by default GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL."""
        names = (api_key_env,) if api_key_env else KEY_VARS
        key = next((env[name] for name in names if env.get(name)), None)
        return cls(model, key, base_url or env.get(BASE_URL_VAR) or None, api_key_env or KEY_VARS[0])

    def _key_names(self) -> str:
        return self.key_var if self.key_var not in KEY_VARS else f"{KEY_VARS[0]} (or {KEY_VARS[1]})"

    @property
    def where(self) -> str:
        return self.base_url or "the Gemini API"

    def client(self) -> Client:
        """The SDK client for this key and server, with its own retries off."""
        if not self.api_key:
            raise ModelAuthError(f"no Gemini key: export {self.key_var}=..."
                                 + (f" (or {KEY_VARS[1]})" if self.key_var == KEY_VARS[0] else ""))
        return _shared_client(self.api_key, self.base_url)

    def complete(self, request: ChatRequest) -> Completion:
        """Send one generateContent request."""
        from google.genai import errors, types

        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        contents = [types.Content(role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)])
                    for m in request.messages if m.role != "system"]
        config = types.GenerateContentConfig(
            system_instruction=system or None, temperature=request.temperature,
            max_output_tokens=request.max_output_tokens, stop_sequences=list(request.stop[:STOP_LIMIT]) or None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            http_options=types.HttpOptions(timeout=int(request.timeout_s * 1000)))
        if request.schema:
            config.response_mime_type = "application/json"
            config.response_schema = {"title": request.schema, **gemini_schema(get_schema(request.schema))}
        try:
            response = self.client().models.generate_content(model=self.model, contents=contents, config=config)
        except errors.APIError as exc:
            raise self._map_status(exc) from exc
        except ProviderError:
            raise
        except Exception as exc:  # noqa: BLE001 - transport errors come from httpx or httpx2
            raise self._map_transport(exc, request.timeout_s) from exc
        completion = self._read(response)
        if request.until is not None and (text := request.until.cut(completion.text)) != completion.text:
            # read whole, then cut where the caller says it is complete (a hosted model writes fast; not streamed)
            return dataclasses.replace(completion, text=text, finish_reason="stop")
        return completion

    def _read(self, response: GenerateContentResponse) -> Completion:
        candidate = response.candidates[0] if response.candidates else None
        content = candidate.content if candidate is not None else None
        parts = [p.text for p in (content.parts if content else None) or [] if p.text and not p.thought]
        meta = response.usage_metadata
        usage = Usage(meta.prompt_token_count or 0,
                      (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
                      meta.cached_content_token_count or 0) if meta else Usage()
        return Completion(text="".join(parts), usage=usage, request_id=response.response_id,
                          finish_reason=_finish_reason(candidate), model=str(response.model_version or ""))

    def _map_transport(self, exc: Exception, timeout_s: float) -> ProviderError:
        names = {cls.__name__ for cls in type(exc).__mro__}
        if names & {"TimeoutException", "TimeoutError", "ReadTimeout"}:
            return ModelTimeout(f"no answer from {self.where} within {timeout_s:g}s (raise llm.timeout_s)")
        if names & {"TransportError", "ConnectionError", "OSError"}:
            return ModelConnectionError(f"cannot reach {self.where} ({exc}); check the network "
                                        f"(and {BASE_URL_VAR} if set)")
        return ModelRequestError(f"unreadable reply from {self.where}: {type(exc).__name__}: {exc}")

    def _map_status(self, exc: APIError) -> ProviderError:
        """The SDK's APIError as one of ours, with a message that says what to do."""
        code, status, detail = int(exc.code or 0), str(exc.status or ""), clip(str(exc.message or exc), 500)
        lowered = detail.lower()
        if code in (401, 403) or status in ("UNAUTHENTICATED", "PERMISSION_DENIED") or "api key" in lowered:
            return ModelAuthError(f"{self._key_names()} was rejected by {self.where} "
                                  f"({code}: {detail}); export a valid key", code)
        if code == 404:
            return ModelNotFound(f"model {self.model!r} was not found at {self.where} (404: {detail})", code)
        if code == 429:
            # Per-minute limits say "check your plan and billing details" too: only a daily quota, a quota
            # of 0 (no access on this tier) or spent prepaid credits are worth giving up on.
            quotas = _quota_violations(exc)
            retry_after = _retry_after(exc)
            used_up = [q for q in quotas if "PerDay" in str(q.get("quotaId", "")) or str(q.get("quotaValue")) == "0"]
            if used_up or "limit: 0" in lowered or ("credit" in lowered and retry_after is None):
                which = ", ".join(str(q.get("quotaId")) for q in used_up) or "the project's quota"
                return QuotaExhausted(f"{which} is used up at {self.where} (429: {detail}); wait for the quota to "
                                      "reset, enable billing, or give the role a fallback on another provider", code)
            return RateLimited(f"rate limited by {self.where} (429: {detail})", code, retry_after)
        if "token count" in lowered and ("exceed" in lowered or "maximum" in lowered):
            return ContextTooLong(f"the prompt is longer than {self.model}'s context window ({detail}); "
                                  "send less context", code)
        if code >= 500:
            return ModelServerError(f"{self.where} failed ({code}: {detail})", code, _retry_after(exc))
        return ModelRequestError(f"{self.where} refused the request ({code}: {detail})", code)


def _finish_reason(candidate: Candidate | None) -> str:
    """The candidate's finish reason in lower case, MAX_TOKENS read as OpenAI's "length"."""
    reason = candidate.finish_reason if candidate is not None else None
    name = str(reason.value if reason is not None else "STOP").upper()
    return LENGTH if name == "MAX_TOKENS" else name.lower()


def gemini_schema(schema: Mapping[str, object]) -> dict[str, object]:
    """`schema` without `additionalProperties`, which Gemini's response schema does not accept."""
    return {k: _without_additional(v) for k, v in schema.items() if k != "additionalProperties"}


def _without_additional(value: object) -> object:
    if isinstance(value, Mapping):
        return gemini_schema(value)
    if isinstance(value, list):
        return [_without_additional(v) for v in value]
    return value


def _error_details(exc: APIError) -> list[object]:
    """The `error.details` list of a Google API error body (empty when absent or malformed)."""
    error = exc.details.get("error") if isinstance(exc.details, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return details if isinstance(details, list) else []


def _quota_violations(exc: APIError) -> list[dict[str, object]]:
    """The QuotaFailure violations of a 429 (quotaId like 'GenerateRequestsPerDayPerProjectPerModel')."""
    found: list[dict[str, object]] = []
    for item in _error_details(exc):
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("QuotaFailure"):
            found += [v for v in item.get("violations") or [] if isinstance(v, dict)]
    return found


def _retry_after(exc: APIError) -> float | None:
    """Retry-After from the HTTP headers, else the RetryInfo detail Google APIs send ('12s')."""
    # The SDK's error holds one of several HTTP libraries' responses, or None when it was made without one:
    # whichever it is, its headers are read where it has them.
    seconds = parse_retry_after(getattr(exc.response, "headers", None))
    if seconds is not None:
        return seconds
    for item in _error_details(exc):
        delay = item.get("retryDelay") if isinstance(item, dict) else None
        if isinstance(delay, str) and (match := re.fullmatch(r"(\d+(?:\.\d+)?)s", delay)):
            return float(match.group(1))
    return None

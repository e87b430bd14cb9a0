"""A fake OpenAI-compatible server: `POST /v1/chat/completions`, driven by the real `openai` SDK.

    with FakeOpenAI(api_key="sk-test") as server:
        server.reply(data={"verdict": "accept", "feedback": "fine"}, schema="review")
        client = OpenAI(base_url=server.url, api_key="sk-test", max_retries=0)

The schema name is read from `response_format.json_schema.name`; a request in JSON mode or
with no response format has no schema name. `supports_json_schema=False` makes the server
refuse `json_schema` response formats, by default with a 400; `refusal=(status, message)`
words it like a given server, and `FakeOpenAI.llama_cpp()` answers as llama.cpp's server
(llama-cpp-python) does: a 500 whose text is a pydantic validation error. `supports_stop=False`
refuses requests with stop sequences as OpenAI's reasoning models do (a 400 naming the `stop`
parameter). Errors use
OpenAI's shape, `{"error": {"message", "type", "code", "param"}}`; `quota_exhausted()` sends
the 429 `insufficient_quota` that retrying cannot fix, `context_too_long()` the 400
`context_length_exceeded`. See `model_server` for rules, faults and the request log.
"""

from __future__ import annotations

import json
import time
from typing import Any

from fakes.model_server import FakeModelServer, Logged, Rule

PATH = "/v1/chat/completions"
GENERIC_REFUSAL = (400, "response_format of type json_schema is not supported by this server")
LLAMA_CPP_REFUSAL = (500, "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should "
                          "be 'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]")
STOP_REFUSAL = "Unsupported parameter: 'stop' is not supported with this model."
ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error",
               429: "requests", 500: "server_error", 503: "server_error"}


class FakeOpenAI(FakeModelServer):
    """OpenAI's chat completions endpoint on localhost."""

    def __init__(self, api_key: str | None = None, supports_json_schema: bool = True,
                 refusal: tuple[int, str] = GENERIC_REFUSAL, trace_peers: bool = False, supports_stop: bool = True,
                 slots: int | None = None):
        super().__init__(api_key, trace_peers)
        self.supports_json_schema = supports_json_schema
        self.refusal = refusal
        self.supports_stop = supports_stop
        self.slots = slots

    @classmethod
    def llama_cpp(cls, api_key: str | None = None, slots: int | None = None) -> FakeOpenAI:
        """A server that answers like llama.cpp's: json_schema refused with a 500 (JSON mode works); with `slots`, as
        llama.cpp's own `llama-server --parallel N` does, it says at `GET /props` how many requests it decodes at once
        (llama-cpp-python's server has no such route)."""
        return cls(api_key, supports_json_schema=False, refusal=LLAMA_CPP_REFUSAL, slots=slots)

    def get(self, path: str, headers: dict[str, str]) -> tuple[int, Any] | None:
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        if self.api_key is not None and auth != f"Bearer {self.api_key}":  # llama-server guards /props with its key
            return 401, self.error_body(401, "Invalid API Key", "invalid_api_key")
        if path.split("?")[0] == "/props" and self.slots is not None:
            return 200, {"total_slots": self.slots, "model_path": "model.gguf", "chat_template": "",
                         "default_generation_settings": {"n_ctx": 16384}}
        return None

    @property
    def url(self) -> str:
        """The base URL to give the SDK (`OPENAI_BASE_URL`)."""
        return self.base + "/v1"

    def env(self) -> dict[str, str]:
        """The environment that points `OpenAIChatModel` at this server."""
        return {"OPENAI_BASE_URL": self.url, "OPENAI_API_KEY": self.api_key or "sk-fake-key-not-checked"}

    def unauthorized(self, **match: Any) -> Rule:
        return self.fail(401, "Incorrect API key provided: sk-te****. You can find your API key in your account "
                         "settings.", code="invalid_api_key", **match)

    def model_not_found(self, model: str = "the model", **match: Any) -> Rule:
        return self.fail(404, f"The model `{model}` does not exist or you do not have access to it.",
                         code="model_not_found", **match)

    def quota_exhausted(self, **match: Any) -> Rule:
        return self.fail(429, "You exceeded your current quota, please check your plan and billing details.",
                         code="insufficient_quota", **match)

    def context_too_long(self, **match: Any) -> Rule:
        return self.fail(400, "This model's maximum context length is 128000 tokens. However, your messages "
                         "resulted in 200000 tokens.", code="context_length_exceeded", **match)

    def parse(self, path: str, headers: dict[str, str], body: Any) -> Logged:
        body = body if isinstance(body, dict) else {}
        messages = [{"role": str(m.get("role")), "content": _content(m.get("content"))}
                    for m in body.get("messages", []) if isinstance(m, dict)]
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("name") if fmt.get("type") == "json_schema" else None
        system = "\n".join(m["content"] for m in messages if m["role"] in ("system", "developer"))
        stop = body.get("stop") or ()
        cap = body.get("max_completion_tokens", body.get("max_tokens"))
        return Logged(path, headers, body, body.get("model"), schema, system, messages,
                      stop=(stop,) if isinstance(stop, str) else tuple(map(str, stop)),
                      max_tokens=cap if isinstance(cap, int) else None, stream=body.get("stream") is True)

    def check(self, request: Logged) -> tuple[int, Any] | None:
        if request.path.split("?")[0] != PATH:
            return 404, self.error_body(404, f"Invalid URL (POST {request.path})", None)
        if request.body == {} or not request.messages:
            return 400, self.error_body(400, "'messages' is a required property", None)
        auth = {k.lower(): v for k, v in request.headers.items()}.get("authorization", "")
        if self.api_key is not None and auth != f"Bearer {self.api_key}":
            return 401, self.error_body(401, "Incorrect API key provided.", "invalid_api_key")
        fmt = request.body.get("response_format") or {}
        if fmt.get("type") == "json_schema" and not self.supports_json_schema:
            status, message = self.refusal
            return status, self.error_body(status, message, None)
        if "stop" in request.body and not self.supports_stop:
            return 400, {"error": {**self.error_body(400, STOP_REFUSAL, "unsupported_parameter")["error"],
                                   "param": "stop"}}
        return None

    def error_body(self, status: int, message: str, code: str | None) -> Any:
        return {"error": {"message": message, "type": ERROR_TYPES.get(status, "invalid_request_error"),
                          "param": None, "code": code}}

    def success_body(self, request: Logged, text: str, usage: tuple[int, int, int], number: int,
                     finish: str = "stop") -> Any:
        prompt, completion, cached = usage
        return {
            "id": f"chatcmpl-fake{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None},
                         "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                      "prompt_tokens_details": {"cached_tokens": cached}},
            "system_fingerprint": "fp_fake",
        }

    def stream_event(self, request: Logged, piece: str, finish: str | None, usage: tuple[int, int, int] | None,
                     number: int, extra: dict[str, Any] | None = None) -> bytes:
        choices = [{"index": 0, "delta": {"content": piece} if piece else {}, "logprobs": None,
                    "finish_reason": finish}]
        chunk: dict[str, Any] = {"id": f"chatcmpl-fake{number}", "object": "chat.completion.chunk",
                                 "created": int(time.time()), "model": request.model, "choices": choices}
        events = [chunk]
        if usage is not None and (request.body.get("stream_options") or {}).get("include_usage"):
            prompt, completion, cached = usage
            events.append({**chunk, "choices": [], "usage": {
                "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached}}})
        if finish is not None and extra:
            events[-1] = {**events[-1], **extra}  # llama.cpp's `timings` ride on its last event
        return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)

    def stream_end(self) -> list[bytes]:
        return [b"data: [DONE]\n\n"]


def _content(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)

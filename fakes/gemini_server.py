"""A fake Gemini API: `POST /v1beta/models/{model}:generateContent` (and `/v1/…`), for `google-genai`.

    with FakeGemini(api_key="AIza-test") as server:
        server.reply(data={"summary": "…", "files": [], "steps": [], "questions": []}, schema="plan")
        env = {"GEMINI_API_KEY": "AIza-test", "GOOGLE_GEMINI_BASE_URL": server.url}

Gemini requests carry no schema name, so the fake reads it from the response schema's
`title` (which `GeminiChatModel` sets to the schema's name). A wrong key gets Gemini's real
answer, a 400 INVALID_ARGUMENT "API key not valid". Errors use Google's shape,
`{"error": {"code", "message", "status", "details"}}`. See `model_server` for rules, faults
and the request log.
"""

from __future__ import annotations

import re
from typing import Any

from fakes.model_server import FakeModelServer, Logged, Rule

PATH = re.compile(r"^/v1(?:beta)?/models/([^/:?]+):generateContent$")  # the SDK picks v1 or v1beta
FINISH = {"stop": "STOP", "length": "MAX_TOKENS"}  # Gemini's words for why a reply ended
STATUSES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


class FakeGemini(FakeModelServer):
    """Gemini's generateContent endpoint on localhost."""

    @property
    def url(self) -> str:
        """The base URL to give the SDK (`GOOGLE_GEMINI_BASE_URL`)."""
        return self.base

    def env(self) -> dict[str, str]:
        """The environment that points `GeminiChatModel` at this server."""
        return {"GOOGLE_GEMINI_BASE_URL": self.url, "GEMINI_API_KEY": self.api_key or "AIza-fake-key-not-checked"}

    def unauthorized(self, **match: Any) -> Rule:
        return self.fail(400, "API key not valid. Please pass a valid API key.", **match)

    def model_not_found(self, model: str = "the model", **match: Any) -> Rule:
        return self.fail(404, f"models/{model} is not found for API version v1beta, or is not supported for "
                         "generateContent.", **match)

    def quota_exceeded(self, quota_id: str = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                       limit: int = 10, retry_delay_s: int | None = 16, times: int = 1, **match: Any) -> Rule:
        """A 429 as the Gemini API sends it: the same text for every quota, the quota in QuotaFailure."""
        model = match.get("model", "gemini-2.5-flash")
        message = ("You exceeded your current quota, please check your plan and billing details. For more "
                   "information on this error, see the rate-limits page of the Gemini API documentation.\n"
                   "* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, "
                   f"limit: {limit}, model: {model}" + (f"\nPlease retry in {retry_delay_s}.3s." if retry_delay_s else ""))
        details: list[dict[str, Any]] = [{
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                            "quotaId": quota_id, "quotaDimensions": {"location": "global", "model": model},
                            "quotaValue": str(limit)}]}]
        if retry_delay_s is not None:
            details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_delay_s}s"})
        return self.fail(429, message, details=details, times=times, **match)

    def parse(self, path: str, headers: dict[str, str], body: Any) -> Logged:
        body = body if isinstance(body, dict) else {}
        match = PATH.match(path.split("?")[0])
        messages = []
        for content in body.get("contents", []):
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": "".join(p.get("text", "") for p in content.get("parts", []))})
        system_parts = (body.get("systemInstruction") or {}).get("parts", [])
        system = "".join(p.get("text", "") for p in system_parts)
        config = body.get("generationConfig") or {}
        schema_spec = config.get("responseSchema") or config.get("responseJsonSchema") or {}
        schema = schema_spec.get("title") if isinstance(schema_spec, dict) else None
        cap = config.get("maxOutputTokens")
        return Logged(path, headers, body, match.group(1) if match else None, schema, system, messages,
                      stop=tuple(map(str, config.get("stopSequences") or ())),
                      max_tokens=cap if isinstance(cap, int) else None)

    def check(self, request: Logged) -> tuple[int, Any] | None:
        if request.model is None:
            return 404, self.error_body(404, f"no route for {request.path}", None)
        key = {k.lower(): v for k, v in request.headers.items()}.get("x-goog-api-key")
        if self.api_key is not None and key != self.api_key:
            return 400, self.error_body(400, "API key not valid. Please pass a valid API key.", None)
        if not request.messages:
            return 400, self.error_body(400, "* GenerateContentRequest.contents: contents is not specified", None)
        return None

    def error_body(self, status: int, message: str, code: str | None) -> Any:
        return {"error": {"code": status, "message": message, "status": STATUSES.get(status, "UNKNOWN"),
                          "details": []}}

    def success_body(self, request: Logged, text: str, usage: tuple[int, int, int], number: int,
                     finish: str = "stop") -> Any:
        prompt, output, cached = usage
        meta = {"promptTokenCount": prompt, "candidatesTokenCount": output, "totalTokenCount": prompt + output}
        if cached:
            meta["cachedContentTokenCount"] = cached
        return {
            "candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                            "finishReason": FINISH.get(finish, finish.upper()), "index": 0}],
            "usageMetadata": meta,
            "modelVersion": request.model,
            "responseId": f"resp-fake{number}",
        }

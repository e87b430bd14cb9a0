"""OpenTelemetry export: a run's spans also sent over OTLP/HTTP when the standard variables ask for it.

`bot/trace.py` stays the record (`ensemble report` reads its JSONL); when
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, each span is mirrored
into the OpenTelemetry SDK with the same, already redacted, attributes, and model calls get the
GenAI semantic-convention names too. One TracerProvider (batching, OTLP http/protobuf) per
process and endpoint. The SDK is imported only then, so an unconfigured run pays nothing.
Endpoint, headers and service name come from the environment given; the SDK reads the other
`OTEL_*` variables (resource attributes, timeout, compression, certificates, sampler) itself.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span as OtelSpan
    from opentelemetry.util.types import AttributeValue

log = logging.getLogger(__name__)

DEFAULT_SERVICE = "ensemble-bot"
FLUSH_TIMEOUT_MS = 5000  # a collector that does not answer must not hold the end of a run
SUPPORTED_PROTOCOL = "http/protobuf"
# Our llm.complete attribute -> its GenAI semantic-convention name.
GENAI_NAMES = {"model": "gen_ai.request.model", "tokens_in": "gen_ai.usage.input_tokens",
               "tokens_out": "gen_ai.usage.output_tokens", "temperature": "gen_ai.request.temperature",
               "max_tokens": "gen_ai.request.max_tokens", "request_id": "gen_ai.response.id"}
# Our provider -> (gen_ai.system, gen_ai.provider.name): the older and the newer convention.
GENAI_SYSTEMS = {"openai": ("openai", "openai"), "gemini": ("gemini", "gcp.gemini")}
MODEL_CALL = "llm.complete"


@dataclass(frozen=True)
class OtlpSettings:
    """Where spans go: the traces endpoint, headers (often a credential) and the service name."""

    endpoint: str
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    service_name: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> OtlpSettings | None:
        """The settings the standard OTEL_* variables in `env` describe; None: export is off."""
        if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return None
        if env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() == "none":
            return None
        endpoint = _traces_endpoint(env)
        if endpoint is None:
            return None
        protocol = _first(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL") or SUPPORTED_PROTOCOL
        if protocol != SUPPORTED_PROTOCOL:
            log.warning("OpenTelemetry export is off: OTEL_EXPORTER_OTLP_PROTOCOL=%s is not supported; set it to "
                        "%s and point the endpoint at the collector's HTTP port (usually 4318)",
                        protocol, SUPPORTED_PROTOCOL)
            return None
        headers = _first(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS") or ""
        return cls(endpoint, _parse_headers(headers), env.get("OTEL_SERVICE_NAME") or None)

    def secrets(self) -> tuple[str, ...]:
        """Header values, which a trace must not repeat (an API key for the collector, say)."""
        return tuple(value for _, value in self.headers)


class OtelExport:
    """Mirrors one run's spans into OpenTelemetry; every span carries `ensemble.run_id`."""

    def __init__(self, provider: TracerProvider, run_id: str):
        self.provider = provider
        self.run_id = run_id
        self._tracer = provider.get_tracer("ensemble-bot")

    def start(self, name: str, start: float) -> tuple[OtelSpan, object]:
        """Start a span under the current OpenTelemetry span and make it the current one."""
        from opentelemetry import context, trace

        otel_span = self._tracer.start_span(name, start_time=int(start * 1e9),
                                            attributes={"ensemble.run_id": self.run_id})
        return otel_span, context.attach(trace.set_span_in_context(otel_span))

    def end(self, started: tuple[OtelSpan, object], name: str, attributes: Mapping[str, object],
            error: str | None) -> None:
        """Set the (already redacted) attributes and the status, end the span and restore its parent."""
        from opentelemetry import context
        from opentelemetry.trace import Status, StatusCode

        otel_span, token = started
        try:
            values = otel_attributes(attributes)
            if name == MODEL_CALL:
                values.update(genai_attributes(attributes))
            otel_span.set_attributes(values)
            if error is not None:
                otel_span.set_status(Status(StatusCode.ERROR, error))
            otel_span.end()
        finally:
            context.detach(token)  # type: ignore[arg-type]

    def flush(self) -> None:
        """Send what is still batched (the end of a run or an event), waiting a bounded time."""
        if not self.provider.force_flush(FLUSH_TIMEOUT_MS):
            log.warning("OpenTelemetry: spans of run %s not all sent within %d ms", self.run_id, FLUSH_TIMEOUT_MS)


def export_for(settings: OtlpSettings | None, run_id: str) -> OtelExport | None:
    """The exporter for one run, or None when OpenTelemetry is not configured."""
    return None if settings is None else OtelExport(_provider(settings), run_id)


def otel_attributes(attributes: Mapping[str, object]) -> dict[str, AttributeValue]:
    """Attribute values OpenTelemetry accepts: scalars and same-typed lists as they are, others as JSON."""
    return {key: _otel_value(value) for key, value in attributes.items() if value is not None}


def genai_attributes(attributes: Mapping[str, object]) -> dict[str, AttributeValue]:
    """A model call's attributes under their GenAI semantic-convention names (ours stay too)."""
    out: dict[str, AttributeValue] = {"gen_ai.operation.name": "chat"}
    out.update({theirs: _otel_value(attributes[ours]) for ours, theirs in GENAI_NAMES.items()
                if attributes.get(ours) is not None})
    if attributes.get("finish_reason"):
        out["gen_ai.response.finish_reasons"] = [str(attributes["finish_reason"])]
    if provider := str(attributes.get("provider") or ""):
        out["gen_ai.system"], out["gen_ai.provider.name"] = GENAI_SYSTEMS.get(provider, (provider, provider))
    return out


def _otel_value(value: object) -> AttributeValue:
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple) and len({type(v) for v in value}) <= 1 \
            and all(isinstance(v, str | bool | int | float) for v in value):
        return list(value)
    return json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)


_providers: dict[OtlpSettings, TracerProvider] = {}
_providers_lock = threading.Lock()


def _provider(settings: OtlpSettings) -> TracerProvider:
    """The process's provider for `settings`, made on first use (its batch thread is flushed at exit)."""
    with _providers_lock:
        if settings not in _providers:
            _providers[settings] = _new_provider(settings)
        return _providers[settings]


def _new_provider(settings: OtlpSettings) -> TracerProvider:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({SERVICE_NAME: settings.service_name} if settings.service_name else None)
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE}))
    provider = TracerProvider(resource=resource)
    exporter = OTLPSpanExporter(endpoint=settings.endpoint, headers=dict(settings.headers))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _traces_endpoint(env: Mapping[str, str]) -> str | None:
    """The signal-specific endpoint as given, or the base endpoint with `/v1/traces` added (as the spec says)."""
    if traces := env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
        return traces
    if base := env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        return base.rstrip("/") + "/v1/traces"
    return None


def _first(env: Mapping[str, str], *names: str) -> str | None:
    return next((env[name].strip() for name in names if env.get(name, "").strip()), None)


def _parse_headers(text: str) -> tuple[tuple[str, str], ...]:
    """`key=value,...` (URL-encoded) read as the SDK reads it; only called once an endpoint is set."""
    from opentelemetry.util.re import parse_env_headers

    return tuple(parse_env_headers(text, liberal=True).items())

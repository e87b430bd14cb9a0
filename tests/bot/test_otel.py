"""OpenTelemetry export: what a traced run sends to a real OTLP/HTTP receiver on localhost, decoded."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bot.config import Config, Models, RoleModel
from bot.llm import Message, ModelManager
from bot.otel import OtlpSettings, genai_attributes, otel_attributes
from bot.trace import Tracer, read_trace, span
from fakes.openai_server import FakeOpenAI

KEY = "sk-canary-otel-0123456789abcdef"
COLLECTOR_TOKEN = "collector-canary-token-42"
REPO = Path(__file__).resolve().parents[2]


class OtlpReceiver:
    """An OTLP/HTTP collector's trace endpoint: `POST /v1/traces`, protobuf bodies kept as received."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/v1/traces":
                    receiver.bodies.append(body)
                    receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self) -> dict[str, Any]:
        """Every span received, decoded, by name; with the resource of the first batch."""
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        found: dict[str, Any] = {}
        for body in self.bodies:
            request = ExportTraceServiceRequest.FromString(body)
            for resource_spans in request.resource_spans:
                self.resource = _attrs(resource_spans.resource.attributes)
                for scope in resource_spans.scope_spans:
                    found.update({s.name: s for s in scope.spans})
        return found


def _attrs(key_values: Any) -> dict[str, Any]:
    """OTLP KeyValues as plain Python values (arrays as lists)."""
    def plain(v: Any) -> Any:
        kind = v.WhichOneof("value")
        return [plain(x) for x in v.array_value.values] if kind == "array_value" else getattr(v, kind)

    return {kv.key: plain(kv.value) for kv in key_values}


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    r = OtlpReceiver()
    thread = threading.Thread(target=r.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield r
    finally:
        r.server.shutdown()
        r.server.server_close()


def traced_run(tmp_path: Path, env: dict[str, str], server: FakeOpenAI) -> Tracer:
    """A run: nested spans, a real model call through the manager and SDK, one failed step, one exception."""
    models = Models(planner=RoleModel("openai", "gpt-4o"), coder=RoleModel("openai", "gpt-4o-mini"),
                    critic=RoleModel("openai", "gpt-4o-mini"))
    manager = ModelManager.from_config(Config(models=models), env, cache_dir=None, sleep=lambda s: None)
    server.reply("done", usage=(120, 7, 0))
    tracer = Tracer.for_run(tmp_path / "runs", run_id="run-otel", env=env)
    with tracer.activate(), span("ensemble.run", task=f"fix it, key {KEY}") as run:
        with span("team.a", files=["a.py", "b.py"], plan={"steps": 2}) as team:
            manager.complete("coder", [Message("user", "code it")], temperature=0.3)
            team.fail(f"crashed while using {KEY}")
        with pytest.raises(RuntimeError), span("sandbox.run"):
            raise RuntimeError("daemon gone")
        run.set(success=False)
    return tracer


def test_a_run_is_received_with_links_attributes_genai_names_and_errors(
        tmp_path: Path, receiver: OtlpReceiver) -> None:
    env = {"OPENAI_API_KEY": KEY, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.base, "OTEL_SERVICE_NAME": "bot-under-test",
           "OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer%20{COLLECTOR_TOKEN}"}
    server = FakeOpenAI(api_key=KEY)
    with server:
        env["OPENAI_BASE_URL"] = server.url
        tracer = traced_run(tmp_path, env, server)

    spans = receiver.spans()  # activate()'s exit flushed: everything has arrived
    assert set(spans) == {"ensemble.run", "team.a", "llm.complete", "sandbox.run"}
    run, team, call, sandbox = (spans[n] for n in ("ensemble.run", "team.a", "llm.complete", "sandbox.run"))
    assert len({s.trace_id for s in spans.values()}) == 1 and run.parent_span_id == b""
    assert team.parent_span_id == run.span_id and sandbox.parent_span_id == run.span_id
    assert call.parent_span_id == team.span_id
    assert receiver.resource["service.name"] == "bot-under-test"
    assert receiver.headers[0]["authorization"] == f"Bearer {COLLECTOR_TOKEN}"

    attrs = {name: _attrs(s.attributes) for name, s in spans.items()}
    assert all(a["ensemble.run_id"] == "run-otel" for a in attrs.values())
    assert attrs["team.a"]["files"] == ["a.py", "b.py"] and attrs["team.a"]["plan"] == '{"steps": 2}'
    assert attrs["ensemble.run"]["success"] is False and attrs["ensemble.run"]["task"] == "fix it, key [REDACTED]"
    model_call = attrs["llm.complete"]
    assert model_call["role"] == "coder" and model_call["tokens_in"] == 120  # ours stay
    assert {k: v for k, v in model_call.items() if k.startswith("gen_ai.")} == {
        "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini", "gen_ai.request.temperature": 0.3,
        "gen_ai.request.max_tokens": model_call["max_tokens"], "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 7, "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.response.id": model_call["request_id"]}
    assert model_call["request_id"] == "req_1"  # the fake's x-request-id header

    assert (call.status.code, run.status.code) == (call.status.STATUS_CODE_UNSET,) * 2
    assert team.status.code == team.status.STATUS_CODE_ERROR
    assert team.status.message == "crashed while using [REDACTED]"
    assert sandbox.status.message == "RuntimeError: daemon gone"

    assert tracer.path is not None
    received = b"".join(receiver.bodies)
    for secret in (KEY, COLLECTOR_TOKEN):
        assert secret.encode() not in received
        assert secret not in tracer.path.read_text()  # the collector's token is redacted from the JSONL too
    assert [r["name"] for r in read_trace(tracer.path)][-1] == "ensemble.run"  # the JSONL trace is still written


def settings(env: dict[str, str]) -> OtlpSettings:
    found = OtlpSettings.from_env(env)
    assert found is not None
    return found


def test_settings_follow_the_standard_variables() -> None:
    assert OtlpSettings.from_env({}) is None
    assert settings({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}).endpoint == "http://c:4318/v1/traces"
    both = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/x"}
    assert settings(both).endpoint == "http://t/x"  # the signal's own endpoint, as given
    assert OtlpSettings.from_env({**both, "OTEL_SDK_DISABLED": "true"}) is None
    assert OtlpSettings.from_env({**both, "OTEL_TRACES_EXPORTER": "none"}) is None
    assert OtlpSettings.from_env({**both, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}) is None  # we send http/protobuf
    with_headers = settings({**both, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=s3cret-value,x=1"})
    assert with_headers.secrets() == ("s3cret-value", "1") and "s3cret" not in repr(with_headers)


def test_attribute_values_become_otel_types() -> None:
    assert otel_attributes({"n": 1, "ok": True, "f": 0.5, "s": "x", "none": None, "l": ("a", "b"),
                            "mixed": [1, "a"], "d": {"b": 1}}) == {
        "n": 1, "ok": True, "f": 0.5, "s": "x", "l": ["a", "b"], "mixed": '[1, "a"]', "d": '{"b": 1}'}
    assert genai_attributes({"provider": "gemini", "model": "gemini-2.5-flash"})["gen_ai.provider.name"] == "gcp.gemini"


def test_without_otel_variables_nothing_is_exported_or_imported(tmp_path: Path) -> None:
    assert Tracer.for_run(tmp_path, env={}).otel is None
    code = ("import sys; from pathlib import Path; from bot.trace import Tracer, span\n"
            f"t = Tracer.for_run(Path({str(tmp_path)!r}), env={{}})\n"
            "with t.activate(), span('run'):\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

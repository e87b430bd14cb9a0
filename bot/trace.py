"""Execution traces: nested, timed spans written as JSON lines to a run's trace file.

    tracer = Tracer.for_run(repo_dir / ".ensemble" / "runs")
    with tracer.activate(), span("model.call", role="planner") as s:
        s.set(tokens_in=812)

Each finished span is one line in `<runs>/<run-id>/trace.jsonl`: name, ids, parent, start,
duration, status and attributes, with secrets redacted before anything is written. Spans
nest through a context variable, so nesting is per thread; wrap work handed to another
thread with `propagate()` to keep its spans under the caller's span. When the standard
`OTEL_EXPORTER_OTLP_*ENDPOINT` variable is set, spans are also exported with OpenTelemetry
(`bot/otel.py`), with the same redacted attributes; the JSONL file stays the record.
"""

from __future__ import annotations

import contextvars
import functools
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NotRequired, ParamSpec, TypedDict, TypeVar

from bot.otel import OtelExport, OtlpSettings, export_for
from bot.redact import Redactor

if TYPE_CHECKING:
    from opentelemetry.trace import Span as OtelSpan

P = ParamSpec("P")
R = TypeVar("R")

TRACE_FILE = "trace.jsonl"
RUNS_DIR_VAR = "ENSEMBLE_RUNS_DIR"  # where traces go instead of the default (the Action sets it)


def new_run_id() -> str:
    """A sortable, unique run id: UTC timestamp plus random suffix."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


Status = Literal["ok", "error"]


class SpanRecord(TypedDict):
    """One line of trace.jsonl: a span as it ended (`ensemble report` reads these)."""

    run_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: float  # seconds since the epoch
    duration_s: float
    status: Status
    attributes: dict[str, object]
    error: NotRequired[str]


@dataclass
class Span:
    """An open span; `set()` adds attributes until it ends."""

    name: str
    span_id: str
    parent_id: str | None
    start: float
    attributes: dict[str, object] = field(default_factory=dict)  # JSON values; others are written as their str
    error: str | None = None  # set by `fail()`: the span ends as an error without an exception

    def set(self, **attributes: object) -> None:
        """Add or replace attributes."""
        self.attributes.update(attributes)

    def fail(self, error: str) -> None:
        """End this span as an error (for failures handled inside it, such as a team that crashed)."""
        self.error = error


class Tracer:
    """Writes spans of one run to a JSONL file; safe to use from many threads."""

    def __init__(self, path: Path | None, run_id: str, redactor: Redactor | None = None,
                 otel: OtelExport | None = None):
        self.path = path
        self.run_id = run_id
        self.redactor = redactor or Redactor()
        self.otel = otel
        self._lock = threading.Lock()
        self._current: contextvars.ContextVar[Span | None] = contextvars.ContextVar(f"span-{run_id}", default=None)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    @classmethod
    def for_run(cls, runs_dir: Path, run_id: str | None = None, env: Mapping[str, str] | None = None,
                secret_names: tuple[str, ...] = ()) -> Tracer:
        """A tracer writing to `runs_dir/<run-id>/trace.jsonl`, redacting secrets found in `env`;
        it also exports to OpenTelemetry when `env` configures an OTLP endpoint."""
        env = os.environ if env is None else env
        run_id = run_id or new_run_id()
        otlp = OtlpSettings.from_env(env)
        redactor = Redactor.from_env(env, secret_names).extended(otlp.secrets() if otlp else ())
        return cls(runs_dir / run_id / TRACE_FILE, run_id, redactor, export_for(otlp, run_id))

    def add_secrets(self, values: Iterable[str]) -> None:
        """Also redact these values from now on (e.g. the variables a config names in `secret_env`)."""
        if self.path is None and self.otel is None:
            return  # writes nothing, so there is nothing to redact
        with self._lock:
            self.redactor = self.redactor.extended(values)

    @contextmanager
    def span(self, name: str, **attributes: object) -> Iterator[Span]:
        """Open a span nested under the current one; an exception marks it as an error."""
        parent = self._current.get()
        current = Span(name, secrets.token_hex(6), parent.span_id if parent else None, time.time(), dict(attributes))
        exported = self.otel.start(name, current.start) if self.otel else None
        token = self._current.set(current)
        status: Status = "ok"
        error: str | None = None
        try:
            yield current
        except BaseException as exc:
            status, error = "error", f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self._current.reset(token)
            if current.error is not None and status == "ok":
                status, error = "error", current.error
            self._write(current, status, error)
            if exported is not None:
                self._export(exported, current, error)

    @contextmanager
    def activate(self) -> Iterator[Tracer]:
        """Make this the tracer that module-level `span()` and `@traced` use; flush exported spans at exit."""
        token = _active.set(self)
        try:
            yield self
        finally:
            _active.reset(token)
            if self.otel is not None:
                self.otel.flush()

    def _export(self, started: tuple[OtelSpan, object], span: Span, error: str | None) -> None:
        assert self.otel is not None
        self.otel.end(started, span.name, self.redactor.value(span.attributes),
                      None if error is None else self.redactor.text(error))

    def _write(self, span: Span, status: Status, error: str | None) -> None:
        if self.path is None:
            return
        record = SpanRecord(run_id=self.run_id, span_id=span.span_id, parent_id=span.parent_id, name=span.name,
                            start=round(span.start, 6), duration_s=round(time.time() - span.start, 6), status=status,
                            attributes=span.attributes)
        if error is not None:
            record["error"] = error
        line = json.dumps(self.redactor.value(record), default=str, ensure_ascii=False)
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def runs_dir(env: Mapping[str, str], default: Path) -> Path:
    """The folder run traces go to: $ENSEMBLE_RUNS_DIR when set, else `default`."""
    return Path(env[RUNS_DIR_VAR]) if env.get(RUNS_DIR_VAR) else default


NULL_TRACER = Tracer(None, "untraced")
_active: contextvars.ContextVar[Tracer] = contextvars.ContextVar("ensemble-tracer", default=NULL_TRACER)


def current_tracer() -> Tracer:
    """The tracer activated in this context, or one that records nothing."""
    return _active.get()


@contextmanager
def span(name: str, **attributes: object) -> Iterator[Span]:
    """A span on the active tracer."""
    with current_tracer().span(name, **attributes) as s:
        yield s


def traced(name: str | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: run the function inside a span named `name` (default: its qualified name)."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        span_name = name or fn.__qualname__

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with span(span_name):
                return fn(*args, **kwargs)

        return wrapper

    return decorate


def propagate(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap `fn` to run in a copy of the caller's context (tracer and parent span) in another thread."""
    context = contextvars.copy_context()

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return context.copy().run(fn, *args, **kwargs)

    return wrapper


def read_trace(path: Path) -> list[SpanRecord]:
    """All span records of a trace file, in the order they ended."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]

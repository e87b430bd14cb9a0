"""Fixtures for the model query manager: fake model servers, a fake clock, a manager factory."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Config, LLMSpec, ModelChoice, Models, RoleModel
from bot.llm import ModelManager
from bot.trace import Tracer, read_trace
from fakes.gemini_server import FakeGemini
from fakes.openai_server import FakeOpenAI

OPENAI_KEY = "sk-test-openai-key-0123456789"
GEMINI_KEY = "AIza-test-gemini-key-0123456789abcdefgh"
PLAN = {"summary": "Add a greeting", "files": ["app.py"], "steps": ["write greet()"], "questions": []}
REVIEW = {"verdict": "accept", "feedback": "Looks right."}


class FakeClock:
    """A monotonic clock that only moves when `sleep` is called; remembers every sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=OPENAI_KEY) as server:
        yield server


@pytest.fixture
def gemini_server() -> Iterator[FakeGemini]:
    with FakeGemini(api_key=GEMINI_KEY) as server:
        yield server


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def env(openai_server: FakeOpenAI, gemini_server: FakeGemini) -> dict[str, str]:
    return {**openai_server.env(), **gemini_server.env()}


def role(provider: str, model: str, *fallback: tuple[str, str], temperature: float = 0.0) -> RoleModel:
    return RoleModel(provider, model, temperature, tuple(ModelChoice(p, m) for p, m in fallback))  # type: ignore[arg-type]


def make_config(planner: RoleModel | None = None, coder: RoleModel | None = None, critic: RoleModel | None = None,
                **changes: Any) -> Config:
    """A config with every role on a fake-served model unless given; `llm_*` keys go to LLMSpec."""
    llm = LLMSpec(**{k[4:]: changes.pop(k) for k in list(changes) if k.startswith("llm_")})
    models = Models(planner or role("openai", "gpt-4o"), coder or role("openai", "gpt-4o-mini"),
                    critic or role("gemini", "gemini-2.5-flash"))
    return dataclasses.replace(Config(), models=models, llm=llm, **changes)


@pytest.fixture
def make_manager(env: dict[str, str], clock: FakeClock) -> Callable[..., ModelManager]:
    def make(config: Config | None = None, cache_dir: Path | None = None, **kwargs: Any) -> ModelManager:
        return ModelManager.from_config(config or make_config(), env, cache_dir, clock=clock, sleep=clock.sleep,
                                        **kwargs)

    return make


@pytest.fixture
def tracer(tmp_path: Path) -> Iterator[Tracer]:
    tracer = Tracer(tmp_path / "trace.jsonl", "test-run")
    with tracer.activate():
        yield tracer


def spans(tracer: Tracer, name: str = "llm.complete") -> list[dict[str, Any]]:
    assert tracer.path is not None
    return [r for r in read_trace(tracer.path) if r["name"] == name] if tracer.path.exists() else []

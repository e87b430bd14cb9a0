"""The provider registry: a config provider name to its `ChatModel` class."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bot.errors import UsageError
from bot.llm.gemini import GeminiChatModel
from bot.llm.openai import OpenAIChatModel
from bot.llm.scripted import ScriptedChatModel
from bot.llm.types import ChatModel

PROVIDERS: dict[str, type] = {
    "openai": OpenAIChatModel,
    "gemini": GeminiChatModel,
    "scripted": ScriptedChatModel,
}


def create_model(provider: str, model: str, env: Mapping[str, str], base_dir: Path | None = None) -> ChatModel:
    """The `ChatModel` for `provider`/`model`, reading keys from `env`."""
    if provider not in PROVIDERS:
        raise UsageError(f"unknown model provider {provider!r}; expected one of {', '.join(PROVIDERS)}")
    if provider == "scripted":
        return ScriptedChatModel.from_env(model, env, base_dir)
    cls = PROVIDERS[provider]
    return cls.from_env(model, env)  # type: ignore[no-any-return]

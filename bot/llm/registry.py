"""The provider registry: a config provider name to its `ChatModel` class."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from bot.errors import UsageError
from bot.llm.gemini import GeminiChatModel
from bot.llm.openai import OpenAIChatModel
from bot.llm.scripted import ScriptedChatModel
from bot.llm.types import ChatModel

# provider name -> factory(model, env, base_dir); only the scripted provider reads files (from base_dir).
PROVIDERS: dict[str, Callable[[str, Mapping[str, str], Path | None], ChatModel]] = {
    "openai": lambda model, env, base_dir: OpenAIChatModel.from_env(model, env),
    "gemini": lambda model, env, base_dir: GeminiChatModel.from_env(model, env),
    "scripted": ScriptedChatModel.from_env,
}


def create_model(provider: str, model: str, env: Mapping[str, str], base_dir: Path | None = None) -> ChatModel:
    """The `ChatModel` for `provider`/`model`, reading keys from `env`."""
    if provider not in PROVIDERS:
        raise UsageError(f"unknown model provider {provider!r}; expected one of {', '.join(PROVIDERS)}")
    return PROVIDERS[provider](model, env, base_dir)

"""The provider registry: a config provider name to its `ChatModel` class."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from bot.errors import UsageError
from bot.llm.gemini import GeminiChatModel
from bot.llm.openai import OpenAIChatModel
from bot.llm.scripted import ScriptedChatModel
from bot.llm.types import ChatModel

# provider name -> factory(model, env, base_dir, base_url, api_key_env); only the scripted provider reads
# files (from base_dir), and it has no server or key.
PROVIDERS: dict[str, Callable[[str, Mapping[str, str], Path | None, str | None, str | None], ChatModel]] = {
    "openai": lambda model, env, base_dir, url, key_env: OpenAIChatModel.from_env(model, env, url, key_env),
    "gemini": lambda model, env, base_dir, url, key_env: GeminiChatModel.from_env(model, env, url, key_env),
    "scripted": lambda model, env, base_dir, url, key_env: ScriptedChatModel.from_env(model, env, base_dir),
}


def create_model(provider: str, model: str, env: Mapping[str, str], base_dir: Path | None = None,
                 base_url: str | None = None, api_key_env: str | None = None) -> ChatModel:
    """The `ChatModel` for `provider`/`model` on `base_url` (None: the default), its key read from `env`."""
    if provider not in PROVIDERS:
        raise UsageError(f"unknown model provider {provider!r}; expected one of {', '.join(PROVIDERS)}")
    return PROVIDERS[provider](model, env, base_dir, base_url, api_key_env)

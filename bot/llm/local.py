"""Servers on this machine (llama.cpp, Ollama, vLLM on loopback): recognised, asked one at a time, told to keep prompts.

A local server usually decodes one request at a time and queues the rest, so with two teams
the second request's clock would run while it waits behind the first and time out for no
fault of its own. Requests to a loopback server therefore wait for their turn here, on our
side, and their timeout starts only once they are sent: queue time never counts.

A local server is also sent `cache_prompt: true` (`server_extras`): llama.cpp's server (and llama-cpp-python's)
then keeps the prompt it read, and reads only what follows the prefix the next request shares with it. vLLM
caches prefixes by itself and Ollama ignores the field; a hosted API is never sent it (OpenAI's own caching is
automatic, and an unknown field is not its to ignore).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from bot.config import ModelChoice

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")

_turns: dict[str, threading.Lock] = {}
_turns_lock = threading.Lock()


BASE_URL_VARS = {"openai": "OPENAI_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}


def base_url(choice: ModelChoice, env: Mapping[str, str]) -> str | None:
    """The server a model's requests go to: its own base_url, else the provider's variable (None: hosted)."""
    return choice.base_url or env.get(BASE_URL_VARS.get(choice.provider, "")) or None


def is_local(url: str | None) -> bool:
    """Whether `url` points at this machine (a llama.cpp, Ollama or vLLM server, say)."""
    host = (urlsplit(url).hostname or "") if url else ""
    return host in LOCAL_HOSTS or host.startswith("127.") or host.endswith(".localhost")


def server_extras(url: str | None) -> dict[str, object]:
    """Fields a request to the server at `url` carries besides OpenAI's: prefix reuse for a local server, none
    for a hosted one."""
    return {"cache_prompt": True} if is_local(url) else {}


@contextlib.contextmanager
def server_turn(url: str | None) -> Iterator[None]:
    """Hold the turn of the local server at `url` while a request is sent (no-op for remote servers)."""
    if not is_local(url):
        yield
        return
    key = url or ""
    with _turns_lock:
        turn = _turns.setdefault(key, threading.Lock())
    with turn:
        yield

"""Servers on this machine (llama.cpp, Ollama, vLLM on loopback): recognised, asked no more at a time than they
answer at once, told to keep prompts.

A local server usually decodes one request at a time and queues the rest, so with two teams
the second request's clock would run while it waits behind the first and time out for no
fault of its own. Requests to a loopback server therefore wait for their turn here, on our
side, and their timeout starts only once they are sent: queue time never counts. A server that
says how many requests it decodes side by side is given that many turns at once: llama.cpp's own
`llama-server --parallel N` answers `GET /props` with `total_slots` (llama-cpp-python's server,
Ollama and vLLM say nothing there, and get one turn). A team's hidden check then runs beside its
fix (`hidden_check: early`) instead of waiting behind it.

A local server is also sent `cache_prompt: true` (`server_extras`): llama.cpp's server (and llama-cpp-python's)
then keeps the prompt it read, and reads only what follows the prefix the next request shares with it. vLLM
caches prefixes by itself and Ollama ignores the field; a hosted API is never sent it (OpenAI's own caching is
automatic, and an unknown field is not its to ignore).
"""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.request
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from bot.config import ModelChoice

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")

MAX_SLOTS = 8  # turns at once, whatever a server claims: more teams than this never run
PROPS_TIMEOUT_S = 2.0  # a server that does not answer its properties this quickly gets one turn

_turns: dict[str, threading.BoundedSemaphore] = {}
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


def server_slots(url: str, api_key: str | None = None) -> int:
    """How many requests the local server at `url` decodes side by side: llama.cpp's `total_slots` from `GET /props`
    at the server's root (beside `/v1`; with the server's key, where it was started with one), else 1. Asked once
    per server (`server_turn`)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    root = path[: -len("/v1")] if path.endswith("/v1") else path
    props = urlunsplit((parts.scheme, parts.netloc, f"{root}/props", "", ""))
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        ask = urllib.request.Request(props, headers=headers)
        with urllib.request.urlopen(ask, timeout=PROPS_TIMEOUT_S) as answer:  # noqa: S310 - a loopback URL
            body = json.loads(answer.read(1 << 20))
    except (OSError, ValueError):  # refused, 404, timed out, not JSON: a server that does not say
        return 1
    slots = body.get("total_slots") if isinstance(body, dict) else None
    return max(1, min(slots, MAX_SLOTS)) if isinstance(slots, int) and not isinstance(slots, bool) else 1


def forget_servers() -> None:
    """Forget what this process learned of local servers' slots (each is asked again at its next request)."""
    with _turns_lock:
        _turns.clear()


@contextlib.contextmanager
def server_turn(url: str | None, api_key: str | None = None) -> Iterator[None]:
    """Hold one of the turns of the local server at `url` while a request is sent: as many at once as the server
    has slots (`server_slots`, asked at its first request); no-op for remote servers."""
    if not is_local(url):
        yield
        return
    key = url or ""
    with _turns_lock:
        turn = _turns.get(key)
        if turn is None:
            turn = _turns[key] = threading.BoundedSemaphore(server_slots(key, api_key))
    with turn:
        yield

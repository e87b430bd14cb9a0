"""The engine extra: whether `ensemble-bot[engine]` (retrieval and embeddings) is installed.

The core install answers GitHub's light events (help, status, stop, refusals, labels) and runs
`ensemble doctor` and `ensemble report`; planning, coding and searching need the extra. The
check looks the modules up without importing them, so it costs milliseconds.
"""

from __future__ import annotations

import importlib.util

from bot.errors import UsageError

# One module per package of the extra that every engine run loads (numpy, FAISS, BM25, embeddings).
ENGINE_MODULES = ("numpy", "faiss", "bm25s", "torch", "sentence_transformers")
INSTALL_ENGINE = "pip install 'ensemble-bot[engine]' (from a clone: bash scripts/setup.sh)"


class EngineNotInstalled(UsageError):
    """A command needs the engine extra, which is not installed; the message says how to install it."""


def missing_engine_modules() -> list[str]:
    """The engine's modules that cannot be found; empty when the extra is installed."""
    return [name for name in ENGINE_MODULES if importlib.util.find_spec(name) is None]


def engine_missing_message() -> str:
    """One line saying that the extra is missing and how to install it; '' when it is installed."""
    missing = missing_engine_modules()
    if not missing:
        return ""
    return f"the engine extra is not installed (no {', '.join(missing)}): {INSTALL_ENGINE}"


def require_engine() -> None:
    """Raise EngineNotInstalled (exit 2) unless the engine extra is installed."""
    if message := engine_missing_message():
        raise EngineNotInstalled(message)

"""Worker settings from environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping


def env_int(environ: Mapping[str, str], name: str, default: int) -> int:
    """An integer setting; ValueError names the variable when it is not a number."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from None


def env_flag(environ: Mapping[str, str], name: str, default: bool = False) -> bool:
    """An on/off setting: 1/0, true/false, yes/no or on/off, in any case."""
    raw = environ.get(name)
    if raw is None or not raw.strip():
        return default
    return bool(raw)


@dataclass(frozen=True)
class WorkerSettings:
    concurrency: int = 4
    queue: str = "default"
    dry_run: bool = False
    verbose: bool = False
    retry_failed: bool = True


def load_settings(environ: Mapping[str, str] | None = None) -> WorkerSettings:
    """The worker's settings from `environ` (the process environment by default)."""
    env = os.environ if environ is None else environ
    concurrency = env_int(env, "WORKER_CONCURRENCY", 4)
    if concurrency < 1:
        raise ValueError(f"WORKER_CONCURRENCY must be at least 1, got {concurrency}")
    return WorkerSettings(
        concurrency=concurrency,
        queue=env.get("WORKER_QUEUE", "").strip() or "default",
        dry_run=env_flag(env, "WORKER_DRY_RUN"),
        verbose=env_flag(env, "WORKER_VERBOSE"),
        retry_failed=env_flag(env, "WORKER_RETRY_FAILED", default=True),
    )

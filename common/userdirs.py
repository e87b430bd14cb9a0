"""The per-user cache folder every repository on the machine shares: `$XDG_CACHE_HOME/ensemble-bot`.

What depends only on the machine (the distilled embedding model, keyed by its source model) lives
here, once per user; what depends on a repository stays in that repository's `.ensemble/`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def user_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/ensemble-bot`, or `~/.cache/ensemble-bot` when the variable is unset or empty."""
    env = os.environ if env is None else env
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ensemble-bot"

"""What a doctor check gets and gives: the repository and environment in, one `Check` out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.config import Config


@dataclass(frozen=True)
class Check:
    """The outcome of one check: a name, whether it passed, what was found, and the fix."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    essential: bool = False


@dataclass
class DoctorContext:
    """What the checks look at: the repository and the environment."""

    repo: Path
    env: Mapping[str, str]
    config: Config | None = None

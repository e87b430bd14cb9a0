"""Secret redaction: no secret value may reach a trace, a log, a comment or a container.

Two nets: the values of known secret variables (exact match), and token-shaped strings
(GitHub, OpenAI and Google key formats) whatever variable they came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_ENV_VARS = ("GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                   "INPUT_GITHUB-TOKEN", "INPUT_OPENAI-API-KEY", "INPUT_GEMINI-API-KEY")
MASK = "[REDACTED]"
# Shorter values would blank out ordinary words; real keys are far longer.
MIN_SECRET_LENGTH = 6

TOKEN_PATTERNS = re.compile(
    r"""
      \bgh[pousr]_[A-Za-z0-9]{20,}          # GitHub classic, OAuth, app, refresh tokens
    | \bgithub_pat_[A-Za-z0-9_]{20,}        # GitHub fine-grained personal access tokens
    | \bsk-[A-Za-z0-9][A-Za-z0-9_\-]{16,}   # OpenAI keys (sk-..., sk-proj-...)
    | \bAIza[0-9A-Za-z_\-]{30,}             # Google API keys
    | (?<=x-access-token:)(?!\[REDACTED\])[^@\s]+   # tokens embedded in clone URLs (not yet masked)
    """,
    re.VERBOSE,
)


class Redactor:
    """Replaces secret values and token-shaped strings with a mask."""

    def __init__(self, secrets: Iterable[str] = ()):
        values = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret that contains another is masked whole.
        self._values = sorted(values, key=len, reverse=True)

    def extended(self, secrets: Iterable[str]) -> Redactor:
        """A redactor that also masks `secrets`."""
        return Redactor([*self._values, *secrets])

    @classmethod
    def from_env(cls, env: Mapping[str, str], extra_names: Iterable[str] = ()) -> Redactor:
        """A redactor for the secrets in `env` under the known names plus `extra_names`."""
        names = (*SECRET_ENV_VARS, *extra_names)
        return cls(env[name] for name in names if env.get(name))

    def text(self, text: str) -> str:
        """`text` with every secret masked."""
        for value in self._values:
            if value in text:
                text = text.replace(value, MASK)
        return TOKEN_PATTERNS.sub(MASK, text)

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple | set):
            return [self.value(v) for v in value]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self.text(repr(value))

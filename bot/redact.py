"""Secret redaction: no secret value may reach a trace, a log, a file, a comment or a container.

Two nets: the values of known secret variables (exact match), and token-shaped strings
(GitHub, OpenAI, Google and AWS key formats, private key blocks) whatever variable they came
from. Secrets are known from the environment (`SECRET_ENV_VARS`) and from what the entry points
register once they know more (a config's `secret_env`, a model's `api_key_env`):
`register_secrets` adds to the process-wide set every `Redactor` masks as well, so each sink
(trace, reply cache, insights, index, comments, commit messages, step summary) applies the same
one. `find_secrets` names what a text holds without repeating it, for refusals.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_ENV_VARS = ("GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                   "INPUT_GITHUB-TOKEN", "INPUT_OPENAI-API-KEY", "INPUT_GEMINI-API-KEY")
MASK = "[REDACTED]"
# Shorter values would blank out ordinary words; real keys are far longer.
MIN_SECRET_LENGTH = 6

# (what it is, its shape); each names a kind of credential in refusals without repeating it.
TOKEN_SHAPES = (
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # classic, OAuth, app, refresh tokens
    ("a GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),  # fine-grained personal access tokens
    ("an OpenAI-style API key", r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{16,}"),  # sk-..., sk-proj-...
    ("a Google API key", r"\bAIza[0-9A-Za-z_\-]{30,}"),
    ("an AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("an AWS secret access key", r"(?i:aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)\K[A-Za-z0-9/+]{40}"),
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY"
                      r"(?: BLOCK)?-----|\Z)"),
    ("a token in a URL", r"(?<=x-access-token:)(?!\[REDACTED\])[^@\s]+"),  # clone URLs (not yet masked)
)


def _compile(pattern: str) -> re.Pattern[str]:
    # `\K` (keep the prefix out of the match) is not Python's: a lookbehind of variable width is
    # not either, so the prefix becomes a group that the substitution puts back.
    if r"\K" in pattern:
        prefix, rest = pattern.split(r"\K", 1)
        return re.compile(f"(?P<keep>{prefix}){rest}")
    return re.compile(pattern)


_SHAPES = tuple((kind, _compile(pattern)) for kind, pattern in TOKEN_SHAPES)
TOKEN_PATTERNS = re.compile("|".join(f"(?:{pattern.pattern})" for _, pattern in _SHAPES))  # any shape at all
_registered: tuple[str, ...] = ()
_lock = threading.Lock()


def register_secrets(values: Iterable[str]) -> None:
    """Mask these values too, in every redactor of this process from now on."""
    global _registered
    with _lock:
        known = {*_registered, *(v for v in values if v and len(v) >= MIN_SECRET_LENGTH)}
        _registered = tuple(sorted(known, key=len, reverse=True))


def registered_secrets() -> tuple[str, ...]:
    """The values registered so far (longest first)."""
    return _registered


def secret_values(env: Mapping[str, str], extra_names: Iterable[str] = ()) -> list[str]:
    """The values in `env` of the known secret variables and of `extra_names`."""
    return [env[name] for name in (*SECRET_ENV_VARS, *extra_names) if env.get(name)]


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
        return cls(secret_values(env, extra_names))

    def values(self) -> list[str]:
        """Every exact value masked: this redactor's and the process's registered ones, longest first."""
        return sorted({*self._values, *_registered}, key=len, reverse=True)

    def text(self, text: str) -> str:
        """`text` with every secret masked."""
        for value in self.values():
            if value in text:
                text = text.replace(value, MASK)
        for _kind, pattern in _SHAPES:
            text = pattern.sub(_mask, text)
        return text

    def known_values(self, text: str) -> str:
        """`text` with the exact secret values masked, token shapes left alone (for prompts: code may
        hold fake tokens the coder must quote exactly)."""
        for value in self.values():
            if value in text:
                text = text.replace(value, MASK)
        return text

    def find(self, text: str) -> list[str]:
        """What kinds of secret `text` holds ("the value of a secret variable", "a GitHub token"), once each."""
        found = ["the value of a secret variable"] if any(v in text for v in self.values()) else []
        found += [kind for kind, pattern in _SHAPES if pattern.search(text)]
        return list(dict.fromkeys(found))

    def introduced(self, old: str, new: str) -> list[str]:
        """The kinds of secret `new` holds that `old` did not (an edit near an old fixture is not refused)."""
        found = ["the value of a secret variable"] if any(v in new and v not in old for v in self.values()) else []
        for kind, pattern in _SHAPES:
            before = {m[0] for m in pattern.finditer(old)} if old else set()
            if any(m[0] not in before for m in pattern.finditer(new)):
                found.append(kind)
        return list(dict.fromkeys(found))

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


def _mask(match: re.Match[str]) -> str:
    keep = match.groupdict().get("keep")
    return (keep or "") + MASK


def process_redactor() -> Redactor:
    """The redactor for this process: the secret variables of its environment and every registered value."""
    return Redactor.from_env(os.environ)


def scrub(text: str) -> str:
    """`text` with every secret this process knows of, and every token shape, masked."""
    return process_redactor().text(text)


def withhold_secrets(text: str) -> str:
    """`text` without the values of the secrets this process knows of: what may be sent to a model."""
    return process_redactor().known_values(text)


def find_secrets(text: str) -> list[str]:
    """The kinds of secret `text` holds, named without repeating them (empty when none)."""
    return process_redactor().find(text)


class RedactingFilter(logging.Filter):
    """A logging filter that masks secrets in every record's message (installed on the CLI's handlers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True

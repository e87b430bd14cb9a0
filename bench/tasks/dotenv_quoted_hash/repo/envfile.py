"""Read `.env` files: KEY=value lines, comments, quotes and `export` prefixes."""

from __future__ import annotations

import os
import re
from collections.abc import MutableMapping
from pathlib import Path

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


class EnvFileError(ValueError):
    """A line that is not KEY=value."""

    def __init__(self, source: str, lineno: int, line: str):
        super().__init__(f"{source}:{lineno}: expected KEY=value, got {line!r}")
        self.source = source
        self.lineno = lineno


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


def _value(raw: str) -> str:
    """The value part of a line, its comment dropped and its quotes read."""
    raw = raw.split("#", 1)[0].strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return _unescape(raw[1:-1])
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1]
    return raw


def parse(text: str, source: str = "<string>") -> dict[str, str]:
    """The settings in `text`, in file order; a later line wins over an earlier one."""
    settings: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export "):].lstrip()
        key, sep, rest = stripped.partition("=")
        key = key.strip()
        if not sep or not _KEY.fullmatch(key):
            raise EnvFileError(source, lineno, line)
        settings[key] = _value(rest)
    return settings


def load(path: str | Path, environ: MutableMapping[str, str] | None = None, override: bool = False) -> dict[str, str]:
    """Put the settings of the file at `path` into `environ` (os.environ by default); returns them."""
    path = Path(path)
    settings = parse(path.read_text(encoding="utf-8"), str(path))
    target = os.environ if environ is None else environ
    for key, value in settings.items():
        if override or key not in target:
            target[key] = value
    return settings

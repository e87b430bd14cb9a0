"""Glob patterns over repository paths, with `**` spanning folders (as in .gitignore and config)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence


@functools.lru_cache(maxsize=256)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile `a/**/b*.py`-style globs: `**` any folders, `*` and `?` within one path part."""
    out, i = [], 0
    pattern = pattern.strip().lstrip("/")
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches_any(path: str, patterns: Sequence[str]) -> bool:
    """True when the repository-relative `path` matches one of `patterns`."""
    return any(glob_to_regex(p).match(path) for p in patterns)

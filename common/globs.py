"""Path patterns with .gitignore semantics, the one glob engine of the project (pathspec's gitignore rules).

Patterns are matched against repository-relative paths with `/` separators, as git would:

    *.pem         a name pattern without a slash matches at any depth: key.pem, deep/dir/key.pem
    migrations    a bare name matches a file or folder of that name anywhere, and everything under it
    secrets/      a trailing slash matches a folder only, with everything under it: secrets/key.txt
    /build        a leading (or inner) slash anchors the pattern at the repository root
    docs/**/*.md  `**` spans folders; `*` and `?` stay within one path part
    !keep.pem     a later `!pattern` takes a path back out
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from pathspec import GitIgnoreSpec

__all__ = ["PathPatterns", "matches_any"]


class PathPatterns:
    """A list of gitignore-style patterns compiled once; `matches(path)` says whether it selects `path`."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = tuple(p for p in (p.strip() for p in patterns) if p and not p.startswith("#"))
        self._spec = GitIgnoreSpec.from_lines(self.patterns)

    def matches(self, path: str) -> bool:
        """True when `path` (relative to the repository root) is selected by the patterns."""
        path = path.replace("\\", "/").lstrip("/")
        return bool(path) and self._spec.match_file(path)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __repr__(self) -> str:
        return f"PathPatterns({list(self.patterns)!r})"


@functools.lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> PathPatterns:
    return PathPatterns(patterns)


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    """True when the repository-relative `path` is selected by `patterns` (gitignore rules, `!` included)."""
    return _compiled(tuple(patterns)).matches(path)

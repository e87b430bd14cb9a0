"""The repo map: an outline of files with their classes and function signatures for the planner.

Files are ranked by relevance to the query (hybrid search); each gets its definitions' signatures,
methods indented under their class. The outline stops at the token budget, counted by the project's
token estimate (`common.tokens`).
"""

from __future__ import annotations

from typing import Protocol

from common.tokens import estimate_tokens
from indexer.chunks import Chunk
from indexer.retrieval import DEFINITION_KINDS, SearchHit


class Outlined(Protocol):
    """What the map reads of an index (`RepoIndex`): its files, their chunks, and file-level search."""

    @property
    def chunks(self) -> list[Chunk]:
        """Every chunk of every file."""
        ...

    @property
    def files(self) -> list[str]:
        """The indexed files' paths."""
        ...

    def search(self, query: str, k: int = 10, level: str = "file") -> list[SearchHit]:
        """The best `k` hits for `query`, one per file at the "file" level."""
        ...


def outline_file(index: Outlined, path: str) -> list[str]:
    """The definitions of one file as outline lines, in line order."""
    seen: set[str] = set()
    lines = []
    for chunk in sorted((c for c in index.chunks if c.path == path), key=lambda c: c.start_line):
        if chunk.kind not in DEFINITION_KINDS or chunk.symbol in seen:
            continue
        seen.add(chunk.symbol)
        depth = chunk.symbol.count(".")
        signature = " ".join(chunk.signature.split()) or chunk.symbol
        lines.append(f"{'  ' * (depth + 1)}{signature}  # L{chunk.start_line}")
    return lines


def render_repo_map(index: Outlined, query: str, max_tokens: int) -> str:
    """Outlines of the files most relevant to `query`, best first, within `max_tokens`."""
    ranked = [hit.path for hit in index.search(query, k=len(index.files), level="file")] if query else []
    order = list(dict.fromkeys([*ranked, *index.files]))
    parts: list[str] = []
    used = 0
    for path in order:
        block = "\n".join([f"{path}:", *outline_file(index, path)])
        cost = estimate_tokens(block) + 1
        if used + cost > max_tokens:
            if not parts or used + estimate_tokens(path) + 2 > max_tokens:
                break
            block, cost = f"{path}: ...", estimate_tokens(path) + 2  # name the file, no room for its outline
        parts.append(block)
        used += cost
    return "\n".join(parts)

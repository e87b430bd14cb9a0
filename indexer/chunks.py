"""The chunk, the unit the index stores and returns, and line windows: the chunker that cuts any text.

The language chunkers (indexer/chunking.py for Python, indexer/treesitter.py for the rest) fall back
to windows and cut an oversized definition into them.
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW_LINES = 60
WINDOW_OVERLAP = 15
MAX_CHUNK_LINES = 200


@dataclass(frozen=True)
class Chunk:
    """A piece of a file that is indexed and returned on its own."""

    path: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    text: str
    signature: str = ""


def chunk_windows(path: str, text: str, size: int = WINDOW_LINES, overlap: int = WINDOW_OVERLAP,
                  first_line: int = 1, symbol: str = "") -> list[Chunk]:
    """Overlapping windows of `size` lines; the fallback for any text."""
    lines = text.splitlines()
    chunks: list[Chunk] = []
    step = max(1, size - overlap)
    for start in range(0, max(1, len(lines)), step):
        piece = lines[start:start + size]
        if any(line.strip() for line in piece):
            end = start + len(piece)
            chunks.append(Chunk(path, first_line + start, first_line + end - 1, symbol, "window", "\n".join(piece)))
        if start + size >= len(lines):
            break
    return chunks

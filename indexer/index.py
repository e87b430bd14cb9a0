"""`RepoIndex`: build or incrementally update a repository's index, then search it.

`open_index` compares the files' git blob SHAs with those the index was built from, re-chunks
and re-embeds only added and modified files (embeddings come from the content-hash cache when
seen before), drops deleted ones, and writes the new generation under a file lock.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from indexer.chunks import Chunk
from indexer.embedder import Embedder
from indexer.embedding import make_embedder
from indexer.files import read_text
from indexer.history import HistoryUpdate
from indexer.history_rank import HistoryRanker, with_history
from indexer.lexical import LexicalIndex
from indexer.query import analyze_query
from indexer.repomap import render_repo_map
from indexer.retrieval import (
    FusionParams,
    SearchHit,
    SymbolTable,
    analysis_scores,
    file_channels,
    fuse_files,
    hybrid_chunks,
)
from indexer.store import RowMapped, StoredIndex, load_faiss

if TYPE_CHECKING:
    import faiss

log = logging.getLogger(__name__)

EMBED_CHARS = 2000


def embedding_input(chunk: Chunk) -> str:
    """What the embedder sees: the path and symbol as context, then the code, cut to a sane length.

    The cache key is a hash of exactly this text, so a renamed file is embedded again: its
    vectors change with its path, which is context the dense ranking uses.
    """
    head = f"{chunk.path} {chunk.symbol}".strip()
    return f"{head}\n{chunk.text}"[:EMBED_CHARS]


class RepoIndex:
    """A loaded index: hybrid search, symbol lookup, chunk access and the repo map.

    `history` is the commit history read beside the index (None: the channel is off); its `note`
    says why the history is missing or thin (a shallow clone), for the trace and `ensemble doctor`.
    """

    def __init__(self, repo: Path, stored: StoredIndex, embedder: Embedder | None = None,
                 params: FusionParams | None = None, history: HistoryUpdate | None = None):
        self.repo, self.stored, self.params = repo, stored, params or FusionParams()
        self.history = history
        self._history_ranker: HistoryRanker | None = None
        self._embedder = embedder
        self._lexical: LexicalIndex | None = None
        self._faiss: faiss.Index | RowMapped | None = None
        self._has_vector = np.zeros(0, dtype=bool)
        self._symbols: SymbolTable | None = None

    @property
    def chunks(self) -> list[Chunk]:
        """All chunks, aligned with the vectors."""
        return self.stored.chunks

    @property
    def files(self) -> list[str]:
        """Indexed file paths."""
        return sorted(self.stored.files)

    @property
    def embedder(self) -> Embedder:
        """The embedder that built the index (loaded on first use)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.stored.model)
        return self._embedder

    @property
    def lexical(self) -> LexicalIndex:
        """The BM25 index over chunk tokens (built on first use)."""
        if self._lexical is None:
            self._lexical = LexicalIndex(self.stored.tokens)
        return self._lexical

    @property
    def symbols(self) -> SymbolTable:
        """The symbol-definition table (built on first use)."""
        if self._symbols is None:
            self._symbols = SymbolTable(self.chunks)
        return self._symbols

    @property
    def history_ranker(self) -> HistoryRanker | None:
        """File scores from the commit history, or None when the index has none (built on first use)."""
        loaded = self.history.load() if self._history_ranker is None and self.history is not None else None
        if loaded is not None:
            self._history_ranker = HistoryRanker(loaded, self.stored.files)
        return self._history_ranker

    def dense_scores(self, query: str, depth: int | None = None) -> dict[int, float]:
        """Cosine similarity of the query to its nearest chunks."""
        if not self.chunks:
            return {}
        if self._faiss is None:
            self._faiss = load_faiss(self.stored)
            self._has_vector = np.any(self.stored.vectors != 0, axis=1)
        vector = self.embedder.embed([query])
        k = min(len(self.chunks), depth or self.params.dense_depth)
        scores, ids = self._faiss.search(vector, k)
        return {int(i): float(s) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0 and self._has_vector[i]}

    def search(self, query: str, k: int = 10, level: str = "file") -> list[SearchHit]:
        """The `k` best files (level "file") or chunks (level "chunk") for a query, best first."""
        if level not in ("file", "chunk"):
            raise ValueError(f"level must be 'file' or 'chunk', not {level!r}")
        chunks = self.chunks
        if not chunks:
            return []
        lexical, dense = self.lexical.scores(query), self.dense_scores(query)
        boosts = analysis_scores(analyze_query(query), chunks, self.symbols, self.files)
        if level == "chunk":
            ranked = hybrid_chunks(lexical, dense, boosts, chunks, self.params)
            best = sorted(ranked, key=lambda i: (-ranked[i], i))[:k]
            return [_chunk_hit(chunks[i], ranked[i]) for i in best]
        channels = file_channels(lexical, dense, boosts, chunks, self.params.runner_up_weight)
        files = fuse_files(with_history(channels, self.history_ranker, query, self.params), self.params)
        top_chunk = self._best_chunk_per_file(lexical, dense)
        ordered = sorted(files, key=lambda p: (-files[p], p))[:k]
        return [_file_hit(path, files[path], chunks[top_chunk[path]] if path in top_chunk else None)
                for path in ordered]

    def _best_chunk_per_file(self, lexical: np.ndarray, dense: dict[int, float]) -> dict[str, int]:
        best: dict[str, tuple[float, int]] = {}
        for i, score in dense.items():
            combined = score + float(lexical[i]) / (float(lexical.max()) or 1.0)
            path = self.chunks[i].path
            if combined > best.get(path, (-np.inf, 0))[0]:
                best[path] = (combined, i)
        return {path: i for path, (_, i) in best.items()}

    def lookup_symbol(self, name: str) -> list[SearchHit]:
        """Definitions of `name` (`func`, `Class.method`, or dotted `pkg.module.func`)."""
        table = self.symbols
        found = list(table.by_name.get(name, []))
        if not found and "." in name:
            module, _, leaf = name.rpartition(".")
            paths = {p for m in (module, module.rpartition(".")[0]) for p in table.modules.get(m, [])}
            found = [i for i in table.by_name.get(leaf, []) if self.chunks[i].path in paths]
        return [_chunk_hit(self.chunks[i], 1.0) for i in dict.fromkeys(found)]

    def read_chunk(self, hit: SearchHit) -> str:
        """The current text of a hit's line range, read from the working tree."""
        text = read_text(self.repo / hit.path) or ""
        return "\n".join(text.splitlines()[hit.start_line - 1:hit.end_line])

    def repo_map(self, query: str, max_tokens: int = 1024) -> str:
        """An outline of the most relevant files' classes and signatures, cut to `max_tokens`."""
        return render_repo_map(self, query, max_tokens)


def _chunk_hit(chunk: Chunk, score: float) -> SearchHit:
    return SearchHit(chunk.path, score, chunk.start_line, chunk.end_line, chunk.symbol, chunk.kind, chunk.text)


def _file_hit(path: str, score: float, chunk: Chunk | None) -> SearchHit:
    if chunk is None:
        return SearchHit(path, score, 1, 1, "", "file")
    return SearchHit(path, score, chunk.start_line, chunk.end_line, chunk.symbol, "file")

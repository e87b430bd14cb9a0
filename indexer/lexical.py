"""The BM25 lexical index (bm25s) over code-aware tokens."""

from __future__ import annotations

import numpy as np

from indexer.tokens import tokenize


class LexicalIndex:
    """BM25 over pre-tokenized documents; scores every document for a query."""

    def __init__(self, documents: list[list[str]]):
        import bm25s

        self.size = len(documents)
        self._bm25 = bm25s.BM25()
        if documents:
            self._bm25.index([doc or [""] for doc in documents], show_progress=False)
        self._vocab = getattr(self._bm25, "vocab_dict", None) or {}

    def scores(self, query: str | list[str]) -> np.ndarray:
        """BM25 score of each document (zeros when nothing matches)."""
        tokens = tokenize(query) if isinstance(query, str) else query
        known = [t for t in tokens if t in self._vocab]
        if not self.size or not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float32)

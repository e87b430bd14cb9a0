"""Retrieval: chunking, embeddings, the FAISS and BM25 indexes, hybrid search and the repo map.

Public API: `open_index(repo_dir, ...) -> RepoIndex` (builds or incrementally updates), `RepoIndex`
(`search`, `lookup_symbol`, `read_chunk`, `repo_map`), `SearchHit`, the `Embedder` Protocol and
`make_embedder`. Heavy libraries (torch, faiss, bm25s) load on first use.
"""

from indexer.build import open_index
from indexer.embedder import Embedder, EmbedderError
from indexer.embedding import make_embedder
from indexer.files import IndexerError
from indexer.index import RepoIndex
from indexer.retrieval import FusionParams, SearchHit

__all__ = ["Embedder", "EmbedderError", "FusionParams", "IndexerError", "RepoIndex", "SearchHit", "make_embedder",
           "open_index"]

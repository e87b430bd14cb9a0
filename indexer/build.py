"""Building and incrementally updating the on-disk index; `open_index` is the entry point."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from indexer.cache import EmbeddingCache, embed_cached
from indexer.chunking import chunk_file
from indexer.chunks import Chunk
from indexer.embedder import Embedder
from indexer.embedding import canonical_model_name, make_embedder
from indexer.files import (
    IndexerError,
    RepoFile,
    head_commit,
    is_auxiliary_path,
    is_test_path,
    list_files,
    read_text,
)
from indexer.history import HistoryUpdate, cached_history, update_history
from indexer.index import RepoIndex, embedding_input
from indexer.retrieval import FusionParams
from indexer.store import StoredIndex, index_dir, load_store, lock_path, save_store
from indexer.tokens import tokenize

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]


def open_index(repo_dir: Path, *, include: Sequence[str] = (), exclude: Sequence[str] = (), max_file_kb: int = 512,
               model: str | None = None, progress: Progress | None = None, embedder: Embedder | None = None,
               cache_path: Path | None = None, params: FusionParams | None = None,
               update: bool = True, embed_all: bool = False, index_path: Path | None = None,
               redact: Callable[[str], str] | None = None, history: bool = True) -> RepoIndex:
    """Build the index of `repo_dir`, or bring an existing one up to date, and return it loaded.

    Only source files are embedded unless `embed_all`: the embedding model is the slow part, and
    tests, docs and other text count for less in the ranking anyway (BM25 still covers them).
    `index_path` keeps the index somewhere other than `repo_dir/.ensemble/index`. `redact` masks
    secrets in each chunk's text before it is stored (a CI cache may carry the index far). With
    `history` the commit history up to the indexed commit is read too (incrementally, cached beside
    the index) for the history channels; a shallow clone leaves them off, with a note saying so.
    """
    from filelock import FileLock

    repo = Path(repo_dir).resolve()
    if not repo.is_dir():
        raise IndexerError(f"{repo} is not a folder; pass --repo the path of a git checkout")
    model_name = embedder.name if embedder else canonical_model_name(model)
    root = Path(index_path) if index_path else index_dir(repo)
    root.mkdir(parents=True, exist_ok=True)
    ignore = repo / ".ensemble" / ".gitignore"
    if not index_path and not ignore.exists():  # like .pytest_cache: the index never shows up in `git status` or a commit
        ignore.write_text("# created by ensemble-bot\n*\n")
    with FileLock(str(lock_path(root)), timeout=600):
        stored = load_store(root)
        if stored is not None and stored.model != model_name:
            log.warning("the index was built with %s, not %s; re-embedding it", stored.model, model_name)
            stored = None
        if stored is not None and not update:
            stored.records = []  # only an update writes them again: no need to hold the text twice
            return RepoIndex(repo, stored, embedder, params, cached_history(root) if history else None)
        files = list_files(repo, tuple(include), tuple(exclude), max_file_kb)
        if stored is None or stored.files != {f.path: f.blob for f in files} or stored.commit != head_commit(repo):
            embedder = embedder or make_embedder(model_name)
            stored = update_store(repo, stored, files, embedder, cache_path or root / "embeddings.sqlite", progress,
                                  embed_all, redact)
            try:
                save_store(root, stored)
            except OSError as exc:  # a full disk: search with this index, keep the last one on disk
                log.warning("could not save the index in %s (%s); this run searches it from memory and the "
                            "index on disk stays as it was", root, exc)
        past = _read_history(repo, root, stored.commit, progress, redact) if history else None
    stored.records = []
    return RepoIndex(repo, stored, embedder, params, past)


def _read_history(repo: Path, root: Path, commit: str, progress: Progress | None,
                  redact: Callable[[str], str] | None) -> HistoryUpdate:
    """The history channel's commits, brought up to date; progress reports it as one stage."""
    if progress:
        progress("history", 0, 1)
    past = update_history(repo, root, commit, redact=redact)
    if progress:
        progress("history", past.count, past.count)
    return past


def wants_vector(path: str) -> bool:
    """Source files get embeddings; tests, docs and other text are found by BM25 alone (zero vectors)."""
    return not is_test_path(path) and not is_auxiliary_path(path)


def update_store(repo: Path, old: StoredIndex | None, files: list[RepoFile], embedder: Embedder,
                 cache_path: Path, progress: Progress | None = None, embed_all: bool = False,
                 redact: Callable[[str], str] | None = None) -> StoredIndex:
    """A new StoredIndex: unchanged files keep their chunks and vectors, the rest are (re)built."""
    started = time.perf_counter()
    current = {f.path: f.blob for f in files}
    keep_files = {p for p, blob in (old.files.items() if old else ()) if current.get(p) == blob}
    kept = [i for i, c in enumerate(old.chunks) if c.path in keep_files] if old else []
    changed = [f for f in files if f.path not in keep_files]
    new_chunks = _chunk_files(repo, changed, progress)  # binary files stay listed, without chunks
    if redact is not None:  # line numbers stay those of the file: only the stored text is masked
        new_chunks = [replace(c, text=redact(c.text)) for c in new_chunks]
    cache = EmbeddingCache(cache_path)
    try:
        report = (lambda done, total: progress("embedding", done, total)) if progress else None
        dense = [i for i, c in enumerate(new_chunks) if embed_all or wants_vector(c.path)]
        new_vectors = np.zeros((len(new_chunks), embedder.dim), dtype=np.float32)
        new_vectors[dense] = embed_cached(embedder, [embedding_input(new_chunks[i]) for i in dense], cache, report)
    finally:
        cache.close()
    chunks = [old.chunks[i] for i in kept] + new_chunks if old else new_chunks
    tokens = ([old.tokens[i] for i in kept] if old else []) + [_chunk_tokens(c) for c in new_chunks]
    old_vectors = old.vectors[kept] if old and kept else np.zeros((0, embedder.dim), dtype=np.float32)
    vectors = np.concatenate([old_vectors.reshape(-1, embedder.dim), new_vectors.reshape(-1, embedder.dim)])
    # the kept chunks' stored lines are written again as they are; the new chunks' are encoded on saving
    records = [old.records[i] for i in kept] + [""] * len(new_chunks) if old and len(old.records) == len(old.chunks) else []
    log.info("index: %d files (%d re-chunked, %d removed), %d chunks in %.1fs", len(current), len(changed),
             len(old.files) - len(keep_files) if old else 0, len(chunks), time.perf_counter() - started)
    return StoredIndex(embedder.name, embedder.dim, head_commit(repo), current, chunks, tokens, vectors, records=records)


def _chunk_tokens(chunk: Chunk) -> list[str]:
    """BM25 tokens of a chunk: its path and symbol count as text too."""
    return tokenize(f"{chunk.path} {chunk.symbol} {chunk.text}")


def _chunk_files(repo: Path, files: list[RepoFile], progress: Progress | None) -> list[Chunk]:
    """Chunks of the given files; binary and unreadable files have none."""
    chunks: list[Chunk] = []
    for n, repo_file in enumerate(files, 1):
        try:
            text = read_text(repo / repo_file.path)
        except OSError as exc:
            log.warning("skipping %s: %s", repo_file.path, exc)
            text = None
        if text is not None:
            chunks.extend(chunk_file(repo_file.path, text))
        if progress and (n % 50 == 0 or n == len(files)):
            progress("chunking", n, len(files))
    return chunks

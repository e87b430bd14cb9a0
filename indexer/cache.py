"""The embedding cache: vectors by (model, content hash) in SQLite, so no chunk is embedded twice."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from indexer.embedder import Embedder

log = logging.getLogger(__name__)
BATCH = 256


def content_key(text: str) -> str:
    """The cache key of an embedding input."""
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest()


class EmbeddingCache:
    """A SQLite table of float32 vectors; safe across processes, survives across commits and branches."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, vector BLOB, "
                         "PRIMARY KEY (model, key))")

    def get(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        """Cached vectors for those keys that have one."""
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            rows = self._db.execute(f"SELECT key, vector FROM vectors WHERE model = ? AND key IN "
                                    f"({','.join('?' * len(part))})", [model, *part])
            found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows)
        return found

    def put(self, model: str, items: dict[str, np.ndarray]) -> None:
        """Store vectors (one transaction); a database that cannot be written (a full disk) is logged and
        skipped: the vectors are still used, only not kept for next time."""
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                     [(model, k, v.astype(np.float32).tobytes()) for k, v in items.items()])
        except sqlite3.Error as exc:
            log.warning("could not keep %d embeddings in the cache (%s); going on without", len(items), exc)

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def embed_cached(embedder: Embedder, texts: list[str], cache: EmbeddingCache | None,
                 progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Embeddings of `texts`, taking what the cache has and embedding (then caching) the rest."""
    keys = [content_key(t) for t in texts]
    known = cache.get(embedder.name, list(set(keys))) if cache else {}
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items(),
                     key=lambda kv: len(kv[1]))  # similar lengths batch with little padding
    done = len(texts) - len(missing)
    for start in range(0, len(missing), BATCH):
        part = missing[start:start + BATCH]
        vectors = embedder.embed([t for _, t in part])
        fresh = {k: v for (k, _), v in zip(part, vectors, strict=True)}
        known.update(fresh)
        if cache:
            cache.put(embedder.name, fresh)
        done += len(part)
        if progress:
            progress(done, len(texts))
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([known[k] for k in keys]).astype(np.float32)

"""The index on disk under `.ensemble/index/`: chunks, vectors, FAISS, manifest; atomic and locked.

Layout (one generation is live at a time; the manifest names it and is replaced last, atomically):
    manifest.json          format, chunker version, model, dim, commit, files {path: blob}, generation, checksums
    chunks-<gen>.jsonl     one chunk per line, with its BM25 tokens
    vectors-<gen>.npy      float32 embeddings aligned with the chunks
    hnsw-<gen>.faiss       only above HNSW_THRESHOLD vectors; updated by adding, not rebuilt
    hnsw-<gen>.rows.npy    the HNSW id -> chunk row map (-1: the vector of a removed chunk)
    embeddings.sqlite      the embedding cache by content hash (shared across generations)
A missing, corrupt or version-mismatched manifest or generation makes `load_store` return None, and
the caller rebuilds. Writers hold `.ensemble/index.lock`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

import numpy as np
from numpy.typing import NDArray

from common.atomic import write_atomic
from indexer.chunking import CHUNKER_VERSION
from indexer.chunks import Chunk

if TYPE_CHECKING:
    import faiss

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
INDEX_DIR = ".ensemble/index"
# Where earlier versions kept the static embedder's distillation (31 MB per repository); it now lives in
# the user's cache (indexer/static.py), and a save removes this folder.
LEGACY_MODELS_DIR = "models"
REBUILD_SHARE = 0.25  # HNSW is built afresh once removed vectors are this share of it
HNSW_THRESHOLD = 200_000  # exact search stays under ~50 ms up to here on 2 cores (bench/retrieval.py)


class Checksums(TypedDict):
    """The SHA-256 of a generation's files, as the manifest records them."""

    chunks: str
    vectors: str


class Manifest(TypedDict, total=False):
    """`manifest.json` as `save_store` writes it; read back from disk any key may be missing or of another
    type, which `load_store` turns into a rebuild."""

    format: int
    chunker: int
    model: str
    dim: int
    commit: str
    generation: str
    chunk_count: int
    built_at: float
    files: dict[str, str]
    sha256: Checksums


@dataclass
class StoredIndex:
    """Everything a search needs, as loaded from or about to be written to disk."""

    model: str
    dim: int
    commit: str
    files: dict[str, str]
    chunks: list[Chunk]
    tokens: list[list[str]]
    vectors: NDArray[np.float32]
    built_at: float = field(default_factory=time.time)
    location: Path | None = None  # the index folder and live generation, once saved or loaded
    generation: str = ""
    # each chunk's line as stored (aligned with `chunks`; "" for a chunk not yet written): an update rewrites
    # the chunks file from these instead of encoding 25k unchanged chunks again
    records: list[str] = field(default_factory=list)


def index_dir(repo: Path) -> Path:
    """Where a repository's index lives."""
    return repo / INDEX_DIR


def lock_path(root: Path) -> Path:
    """The file lock that serializes writers of the index in `root`."""
    return root.with_name(root.name + ".lock")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save_store(root: Path, stored: StoredIndex) -> None:
    """Write a new generation, then switch the manifest to it, then drop older generations."""
    root.mkdir(parents=True, exist_ok=True)
    gen = f"{int(time.time() * 1000):x}{os.getpid():x}"
    chunks_path, vectors_path = root / f"chunks-{gen}.jsonl", root / f"vectors-{gen}.npy"
    records = stored.records if len(stored.records) == len(stored.chunks) else [""] * len(stored.chunks)
    lines = [record or encode_chunk(c, t) for c, t, record in zip(stored.chunks, stored.tokens, records, strict=True)]
    write_atomic(chunks_path, lambda h: h.writelines(line.encode("utf-8") for line in lines))
    write_atomic(vectors_path, lambda h: np.save(h, stored.vectors.astype(np.float32), allow_pickle=False))
    if len(stored.vectors) > HNSW_THRESHOLD:
        _save_hnsw(root, gen, stored.vectors)
    manifest: Manifest = {
        "format": FORMAT_VERSION, "chunker": CHUNKER_VERSION, "model": stored.model, "dim": stored.dim, "commit": stored.commit,
        "generation": gen, "chunk_count": len(stored.chunks), "built_at": stored.built_at, "files": stored.files,
        "sha256": {"chunks": _sha256(chunks_path), "vectors": _sha256(vectors_path)},
    }
    # the manifest's rename is the switch to the new generation: make it survive a power cut
    write_atomic(root / "manifest.json", json.dumps(manifest, indent=1).encode(), sync_dir=True)
    stored.location, stored.generation = root, gen
    for old in root.glob("*-*.*"):
        if gen not in old.name and old.name.split("-")[0] in ("chunks", "vectors", "hnsw"):
            old.unlink(missing_ok=True)
    shutil.rmtree(root / LEGACY_MODELS_DIR, ignore_errors=True)


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def encode_chunk(chunk: Chunk, tokens: list[str]) -> str:
    """A chunk's line in the chunks file, its BM25 tokens included.

    vars(), not asdict(): a Chunk is flat, and asdict's deep copy was half of an update's time (25k chunks).
    """
    return _ENCODE({**vars(chunk), "tokens": " ".join(tokens)}) + "\n"


def read_manifest(root: Path) -> Manifest | None:
    """The manifest, or None when absent or unreadable."""
    try:
        data = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cast(Manifest, data) if isinstance(data, dict) else None


def load_store(root: Path) -> StoredIndex | None:
    """The live generation, or None (with a warning) when it is missing, corrupt or of another format."""
    manifest = read_manifest(root)
    if manifest is None:
        if (root / "manifest.json").exists():
            log.warning("the index manifest in %s is unreadable; rebuilding the index", root)
        return None
    try:
        return _load_generation(root, manifest)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the index in %s is corrupt or from another version (%s); rebuilding it", root, exc)
        return None


def _load_generation(root: Path, manifest: Manifest) -> StoredIndex:
    if manifest.get("format") != FORMAT_VERSION:
        raise ValueError(f"format {manifest.get('format')!r}, expected {FORMAT_VERSION}")
    if manifest.get("chunker") != CHUNKER_VERSION:
        raise ValueError(f"chunker version {manifest.get('chunker')!r}, expected {CHUNKER_VERSION}")
    gen = manifest["generation"]
    chunks_path, vectors_path = root / f"chunks-{gen}.jsonl", root / f"vectors-{gen}.npy"
    checksums = manifest["sha256"]
    for path, expected in ((chunks_path, checksums["chunks"]), (vectors_path, checksums["vectors"])):
        if _sha256(path) != expected:
            raise ValueError(f"{path.name} does not match its checksum")
    chunks, tokens, records = [], [], []
    with chunks_path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            tokens.append(row.pop("tokens").split())
            chunks.append(Chunk(**row))
            records.append(line)
    vectors = np.load(vectors_path, allow_pickle=False)
    if len(chunks) != manifest["chunk_count"] or vectors.shape != (len(chunks), manifest["dim"]):
        raise ValueError("chunk and vector counts disagree")
    return StoredIndex(manifest["model"], manifest["dim"], manifest["commit"], dict(manifest["files"]),
                       chunks, tokens, vectors, manifest.get("built_at", 0.0), root, gen, records)


def build_faiss(vectors: NDArray[np.float32]) -> faiss.Index:
    """Exact inner product below HNSW_THRESHOLD vectors, HNSW (inner product) above it."""
    import faiss

    dim = vectors.shape[1] if vectors.ndim == 2 and vectors.shape[1] else 1
    index: faiss.Index
    if len(vectors) > HNSW_THRESHOLD:
        hnsw = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efSearch = 128
        index = hnsw
    else:
        index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def load_faiss(stored: StoredIndex) -> faiss.Index | RowMapped:
    """The persisted HNSW index when there is one, else an exact index built from the vectors."""
    path = stored.location / f"hnsw-{stored.generation}.faiss" if stored.location else None
    if len(stored.vectors) > HNSW_THRESHOLD and path is not None and path.is_file():
        import faiss

        rows = np.load(path.with_suffix(".rows.npy")) if path.with_suffix(".rows.npy").is_file() else None
        return RowMapped(faiss.read_index(str(path)), rows)
    return build_faiss(stored.vectors)


class RowMapped:
    """An HNSW index whose ids are mapped to the generation's rows; removed vectors (-1) are skipped."""

    def __init__(self, index: faiss.Index, rows: NDArray[np.int64] | None):
        self.index, self.rows = index, rows
        self.ntotal = index.ntotal

    def search(self, vectors: NDArray[np.float32], k: int) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
        if self.rows is None:
            return self.index.search(vectors, k)
        removed = int(np.count_nonzero(self.rows < 0))
        scores, ids = self.index.search(vectors, min(self.index.ntotal, k + removed))
        mapped = np.where(ids >= 0, self.rows[np.maximum(ids, 0)], -1)
        out_scores, out_ids = np.full((len(ids), k), -1.0, np.float32), np.full((len(ids), k), -1, np.int64)
        for q in range(len(ids)):
            keep = mapped[q] >= 0
            n = min(k, int(keep.sum()))
            out_scores[q, :n], out_ids[q, :n] = scores[q][keep][:n], mapped[q][keep][:n]
        return out_scores, out_ids


def _save_hnsw(root: Path, gen: str, vectors: NDArray[np.float32]) -> None:
    """Write the generation's HNSW, adding only new vectors to the live one when there is one.

    HNSW cannot delete: a vector of a changed or deleted chunk stays in the graph, mapped to
    row -1 and skipped by searches, until removed vectors pass REBUILD_SHARE of the index;
    then it is built afresh.
    """
    import faiss

    index, rows = _previous_hnsw(root, vectors)
    if index is None or rows is None:
        index, rows = build_faiss(vectors), np.arange(len(vectors), dtype=np.int64)
    mapping: NDArray[np.int64] = rows
    faiss.write_index(index, str(root / f"hnsw-{gen}.faiss"))
    write_atomic(root / f"hnsw-{gen}.rows.npy", lambda h: np.save(h, mapping, allow_pickle=False))


def _previous_hnsw(root: Path, vectors: NDArray[np.float32]) -> tuple[faiss.Index | None, NDArray[np.int64] | None]:
    """The live generation's HNSW with the new vectors added and ids re-mapped, or (None, None) to rebuild."""
    import faiss

    manifest = read_manifest(root) or {}
    old_gen = manifest.get("generation", "")
    paths = [root / f"{name}-{old_gen}.{ext}" for name, ext in (("hnsw", "faiss"), ("hnsw", "rows.npy"),
                                                                   ("vectors", "npy"))]
    if not old_gen or not all(p.is_file() for p in paths):
        return None, None
    try:
        index, old_rows, old_vectors = faiss.read_index(str(paths[0])), np.load(paths[1]), np.load(paths[2])
    except (OSError, ValueError, RuntimeError) as exc:
        log.warning("cannot reuse the HNSW index in %s (%s); building it afresh", root, exc)
        return None, None
    by_content: dict[bytes, list[int]] = {}
    for hnsw_id, row in enumerate(old_rows):
        if row >= 0:
            by_content.setdefault(old_vectors[row].tobytes(), []).append(hnsw_id)
    rows = np.full(index.ntotal, -1, dtype=np.int64)
    fresh = []
    for row, vector in enumerate(vectors):
        reuse = by_content.get(vector.tobytes())
        if reuse:
            rows[reuse.pop()] = row
        else:
            fresh.append(row)
    if (index.ntotal + len(fresh) - len(vectors)) > REBUILD_SHARE * (index.ntotal + len(fresh)):
        return None, None  # too many removed vectors: searches would wade through them
    if fresh:
        index.add(np.ascontiguousarray(vectors[fresh], dtype=np.float32))
        rows = np.concatenate([rows, np.asarray(fresh, dtype=np.int64)])
    return index, rows

"""A static distillation of a sentence-transformers model: one vector per vocabulary token.

Built once, offline, from the local model: each token is run through the transformer on its own,
the vectors are reduced by PCA and down-weighted for frequent tokens (Zipf prior on vocabulary
rank), then saved in the user's cache (`$XDG_CACHE_HOME/ensemble-bot/static/`), shared by every
repository; a repository's `.ensemble/index/` holds only what depends on the repository. Embedding
a text is a tokenizer call and an average: no transformer at query or index time. Same idea as model2vec's distillation, without its extra dependencies.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path

import numpy as np

from common.atomic import write_atomic
from common.userdirs import user_cache_dir
from indexer.embedder import (
    DEFAULT_MODEL,
    STATIC_PREFIX,
    embedding_dimension,
    load_sentence_model,
    resolve_model_path,
)

log = logging.getLogger(__name__)

PCA_DIMS = 256
SIF = 1e-4
MAX_TOKENS = 2048
DISTILL_VERSION = "1"


def default_cache_dir() -> Path:
    """Where distilled models live: `$XDG_CACHE_HOME/ensemble-bot/static`, one per source model for the user,
    shared by every repository (about 31 MB each: too much to keep in each repository's index)."""
    return user_cache_dir() / "static"


def distill(model_name: str | None, pca_dims: int = PCA_DIMS) -> np.ndarray:
    """Token vectors for the model's whole vocabulary, PCA-reduced and frequency-weighted."""
    import torch

    model = load_sentence_model(model_name)
    tokenizer = model.tokenizer
    vocab_size = len(tokenizer)
    special = [i for i in (tokenizer.cls_token_id, tokenizer.sep_token_id) if i is not None]
    dim = embedding_dimension(model, model_name)
    vectors = np.zeros((vocab_size, dim), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, vocab_size, 1024):
            ids = torch.tensor([[*special[:1], i, *special[1:]] for i in range(start, min(vocab_size, start + 1024))])
            features = model({"input_ids": ids, "attention_mask": torch.ones_like(ids)})
            vectors[start:start + len(ids)] = features["sentence_embedding"].numpy()
    centered = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centered[: min(vocab_size, 30000)], full_matrices=False)
    reduced = centered @ components[:pca_dims].T
    rank = np.arange(1, vocab_size + 1, dtype=np.float64)
    probability = (1 / rank) / np.sum(1 / rank)
    weighted: np.ndarray = (reduced * (SIF / (SIF + probability))[:, None]).astype(np.float32)
    return weighted


def distilled_path(model_name: str | None, cache_dir: Path | None = None) -> Path:
    """Where the distillation of a sentence-transformers model (None: the bundled one) is (or will be)
    stored: named after the model and keyed by its files' contents, so a changed model is distilled afresh
    and one model is distilled once whatever folder (virtual environment, worktree) it is installed in."""
    source = resolve_model_path(model_name)
    key = hashlib.sha256(f"{DISTILL_VERSION}:{PCA_DIMS}:{model_fingerprint(source)}".encode()).hexdigest()[:16]
    return (cache_dir or default_cache_dir()) / f"{Path(model_name or DEFAULT_MODEL).name}-{key}.npy"


def model_fingerprint(source: str) -> str:
    """A SHA-256 over the relative paths and contents of the files in the model folder `source`."""
    files = sorted(p for p in Path(source).rglob("*") if p.is_file())
    return _fingerprint(tuple((str(p.relative_to(source)), *_stat(p)) for p in files), source)


def _stat(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


@functools.cache
def _fingerprint(files: tuple[tuple[str, int, int], ...], source: str) -> str:
    """Hashing 90 MB of weights takes a fraction of a second: once per process and unchanged folder."""
    digest = hashlib.sha256()
    for relative, _size, _mtime in files:
        digest.update(relative.encode() + b"\0")
        with open(Path(source) / relative, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _save(path: Path, vectors: np.ndarray) -> None:
    """Replace `path` atomically (common/atomic.py): two runs distilling at once each rename a whole file,
    and a failed write leaves no half one behind. A cache that cannot be written only costs a distillation."""
    try:
        write_atomic(path, lambda handle: np.save(handle, vectors, allow_pickle=False))
    except OSError as exc:
        log.warning("cannot keep the distilled model in %s: %s", path.parent, exc)


class StaticEmbedder:
    """Averages distilled token vectors; builds and caches the distillation on first use."""

    def __init__(self, model_name: str | None = None, cache_dir: Path | None = None):
        from tokenizers import Tokenizer

        source = resolve_model_path(model_name)
        self.name = STATIC_PREFIX + (model_name or DEFAULT_MODEL)
        self.path = distilled_path(model_name, cache_dir)
        if self.path.is_file():
            self._vectors = np.load(self.path, allow_pickle=False)
        else:
            log.info("distilling a static embedding model from %s into %s (once per user, about 30 s)",
                     source, self.path.parent)
            self._vectors = distill(model_name)
            _save(self.path, self._vectors)
        self.dim = int(self._vectors.shape[1])
        self._tokenizer = Tokenizer.from_file(str(Path(source) / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Mean of the token vectors of each text, L2-normalized."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(texts, add_special_tokens=False)):
            ids = [i for i in encoding.ids if i < len(self._vectors)]
            if ids:
                out[row] = self._vectors[ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: np.ndarray = out / np.maximum(norms, 1e-12)
        return unit

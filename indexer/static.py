"""A static distillation of a sentence-transformers model: one vector per vocabulary token.

Built once, offline, from the local model: each token is run through the transformer on its own,
the vectors are reduced by PCA and down-weighted for frequent tokens (Zipf prior on vocabulary
rank), then saved. Embedding a text is a tokenizer call and an average: no transformer at query
or index time. Same idea as model2vec's distillation, without its extra dependencies.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import numpy as np

from indexer.embedder import DEFAULT_MODEL, STATIC_PREFIX, load_sentence_model, resolve_model_path

log = logging.getLogger(__name__)

PCA_DIMS = 256
SIF = 1e-4
MAX_TOKENS = 2048
DISTILL_VERSION = "1"


def default_cache_dir() -> Path:
    """Where distilled models live unless told otherwise: $XDG_CACHE_HOME/ensemble-bot/static."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ensemble-bot" / "static"


def distill(model_name: str | None, pca_dims: int = PCA_DIMS) -> np.ndarray:
    """Token vectors for the model's whole vocabulary, PCA-reduced and frequency-weighted."""
    import torch

    model = load_sentence_model(model_name)
    tokenizer = model.tokenizer
    vocab_size = len(tokenizer)
    special = [i for i in (tokenizer.cls_token_id, tokenizer.sep_token_id) if i is not None]
    dim = model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension") else model.get_sentence_embedding_dimension()
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


def distilled_path(source: str, cache_dir: Path | None = None) -> Path:
    """Where the distillation of the model folder `source` is (or will be) stored."""
    key = hashlib.sha256(f"{DISTILL_VERSION}:{PCA_DIMS}:{source}".encode()).hexdigest()[:16]
    return (cache_dir or default_cache_dir()) / f"{key}.npy"


def _save(path: Path, vectors: np.ndarray) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}.npy")
        np.save(tmp, vectors, allow_pickle=False)
        os.replace(tmp, path)
    except OSError as exc:  # a read-only cache only costs a distillation next time
        log.warning("cannot keep the distilled model in %s: %s", path.parent, exc)


class StaticEmbedder:
    """Averages distilled token vectors; builds and caches the distillation on first use."""

    def __init__(self, model_name: str | None = None, cache_dir: Path | None = None):
        from tokenizers import Tokenizer

        source = resolve_model_path(model_name)
        self.name = STATIC_PREFIX + (model_name or DEFAULT_MODEL)
        # the distillation is looked for beside the index (which CI caches) and in the user's cache, and
        # kept in both: one per machine, not one per repository
        paths = list(dict.fromkeys(distilled_path(source, d) for d in (cache_dir, default_cache_dir()) if d))
        found = next((p for p in paths if p.is_file()), None)
        if found is not None:
            self._vectors = np.load(found, allow_pickle=False)
        else:
            log.info("distilling a static embedding model from %s (once, about 30 s)", source)
            self._vectors = distill(model_name)
        for path in paths:
            if not path.is_file():
                _save(path, self._vectors)
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

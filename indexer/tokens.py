"""Code-aware tokens for BM25: identifiers kept whole and also split on camelCase and snake_case."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "if", "in", "into", "is", "it", "its", "of", "on", "or", "that", "the", "then", "there", "these", "this", "to", "was", "were", "will", "with", "i", "you", "we", "he", "she", "they", "me", "my", "our", "your", "self", "def", "return", "none", "true", "false", "not", "import", "class", "cls"]
)


@lru_cache(maxsize=200_000)
def split_identifier(word: str) -> tuple[str, ...]:
    """`HTTPResponse_code` -> ('httpresponse_code', 'http', 'response', 'code'): whole word first, then parts."""
    lower = word.lower()
    parts = [p.lower() for piece in word.split("_") for p in CAMEL.findall(piece)]
    if len(parts) <= 1 and parts == [lower]:
        return (lower,)
    return (lower, *(p for p in parts if p != lower))


class _Stemmer(Protocol):
    """What is used of PyStemmer's `Stemmer`, which ships no type stubs."""

    def stemWord(self, word: str) -> str: ...  # noqa: N802 - PyStemmer's name


@lru_cache(maxsize=1)
def _stemmer() -> _Stemmer:
    from Stemmer import Stemmer

    stemmer: _Stemmer = Stemmer("english")
    return stemmer


def tokenize(text: str) -> list[str]:
    """Lower-cased, stemmed code-aware tokens without stop words or single characters."""
    out: list[str] = []
    for word in WORD.findall(text):
        for token in split_identifier(word):
            if len(token) > 1 and token not in STOPWORDS:
                out.append(_stem_cached(token))
    return out


_STEMS: dict[str, str] = {}


def _stem_cached(token: str) -> str:
    """English stem of an alphabetic token (numbers and mixed tokens stay as they are), memoized."""
    stem = _STEMS.get(token)
    if stem is None:
        if len(_STEMS) > 500_000:
            _STEMS.clear()
        stem = _STEMS[token] = _stemmer().stemWord(token) if token.isalpha() else token
    return stem

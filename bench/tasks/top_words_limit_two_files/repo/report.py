"""Word statistics of a text."""

import re
from collections import Counter

WORD = re.compile(r"[A-Za-z']+")


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased."""
    return [w.lower() for w in WORD.findall(text)]


def top_words(text: str) -> list[tuple[str, int]]:
    """The ten most frequent words of `text` with their counts, most frequent first, ties alphabetical."""
    counts = Counter(words(text))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:10]


def word_count(text: str) -> int:
    """How many words `text` has."""
    return len(words(text))

"""Words and headlines."""

from __future__ import annotations

import re
import unicodedata

SMALL_WORDS = {"a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with"}


def fold(text: str) -> str:
    """`text` with accents dropped: 'Zürich' -> 'Zurich'."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def words(text: str) -> list[str]:
    """The words of `text`: runs of ASCII letters and digits once accents are folded, case kept."""
    return re.findall(r"[A-Za-z0-9]+", fold(text))


def headline(text: str) -> str:
    """`text` in title case: small words lower case except first, words with capitals kept as written."""
    out = []
    for i, word in enumerate(words(text)):
        if any(c.isupper() for c in word):
            out.append(word)
        elif i > 0 and word in SMALL_WORDS:
            out.append(word)
        else:
            out.append(word[:1].upper() + word[1:])
    return " ".join(out)

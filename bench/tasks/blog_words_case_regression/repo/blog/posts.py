"""Blog posts and their permalinks."""

from __future__ import annotations

from dataclasses import dataclass

from blog.text import words

MAX_SLUG = 60


def slug(title: str, max_length: int = MAX_SLUG) -> str:
    """The title's words joined by '-', cut at a word so that it has at most `max_length` characters."""
    out = ""
    for word in words(title):
        longer = f"{out}-{word}" if out else word
        if len(longer) > max_length:
            break
        out = longer
    return out or "post"


@dataclass(frozen=True)
class Post:
    id: int
    title: str
    body: str
    published: str  # YYYY-MM-DD

    @property
    def permalink(self) -> str:
        year, month, _ = self.published.split("-")
        return f"/{year}/{month}/{slug(self.title)}"

"""Full-text search over posts: every word of the query must be in the post."""

from __future__ import annotations

from collections.abc import Iterable

from blog.posts import Post
from blog.text import words

Index = dict[str, set[int]]


def build_index(posts: Iterable[Post]) -> Index:
    """For every word of every post's title and body, the ids of the posts that have it."""
    index: Index = {}
    for post in posts:
        for word in words(f"{post.title} {post.body}"):
            index.setdefault(word, set()).add(post.id)
    return index


def search(index: Index, query: str) -> list[int]:
    """The ids of the posts that have every word of `query`, in ascending order."""
    found: set[int] | None = None
    for word in words(query):
        ids = index.get(word, set())
        found = set(ids) if found is None else found & ids
    return sorted(found or ())

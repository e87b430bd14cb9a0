"""Turning titles into URL slugs."""

import re


def slugify(title: str) -> str:
    """A URL slug for `title`: words of letters and digits joined by hyphens, lower case."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "-".join(words)

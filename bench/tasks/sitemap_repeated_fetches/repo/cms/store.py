"""Where pages live."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Page:
    id: int
    parent: int | None  # None for the home page
    slug: str           # '' for the home page
    title: str


class PageNotFound(LookupError):
    pass


class Store(Protocol):
    def get(self, page_id: int) -> Page: ...
    def ids(self) -> list[int]: ...


class MemoryStore:
    """A store in memory that counts its queries, as the database's query log would."""

    def __init__(self, pages: Iterable[Page]):
        self._pages = {page.id: page for page in pages}
        self.queries = 0

    def get(self, page_id: int) -> Page:
        self.queries += 1
        try:
            return self._pages[page_id]
        except KeyError:
            raise PageNotFound(page_id) from None

    def ids(self) -> list[int]:
        self.queries += 1
        return sorted(self._pages)

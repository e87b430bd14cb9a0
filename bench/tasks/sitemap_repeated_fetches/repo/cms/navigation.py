"""URLs, breadcrumbs and the sitemap of the page tree."""

from __future__ import annotations

from cms.store import Page, Store


def ancestry(store: Store, page_id: int) -> list[Page]:
    """The page and its ancestors, home page first."""
    chain = []
    current: int | None = page_id
    while current is not None:
        page = store.get(current)
        chain.append(page)
        current = page.parent
    return chain[::-1]


def _url(chain: list[Page]) -> str:
    path = "/".join(page.slug for page in chain if page.slug)
    return f"/{path}/" if path else "/"


def url_of(store: Store, page_id: int) -> str:
    """The page's URL: its ancestors' slugs and its own, between slashes."""
    return _url(ancestry(store, page_id))


def breadcrumbs(store: Store, page_id: int) -> list[tuple[str, str]]:
    """(title, URL) of the home page, each ancestor and the page."""
    chain = ancestry(store, page_id)
    return [(page.title, _url(chain[:i + 1])) for i, page in enumerate(chain)]


def sitemap(store: Store) -> list[tuple[str, str]]:
    """(URL, title) of every page, sorted by URL."""
    entries = []
    for page_id in store.ids():
        page = store.get(page_id)
        entries.append((url_of(store, page_id), page.title))
    return sorted(entries)

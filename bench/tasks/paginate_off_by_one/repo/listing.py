"""Splitting long lists into pages for display."""


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill, `per_page` to a page."""
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return (total + per_page - 1) // per_page


def paginate(items: list, page: int, per_page: int = 10) -> list:
    """The items on page `page`; pages are numbered from 1."""
    if page < 1:
        raise ValueError("pages are numbered from 1")
    start = page * per_page
    return items[start:start + per_page]

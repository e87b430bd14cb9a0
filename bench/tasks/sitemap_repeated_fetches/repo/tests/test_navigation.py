from cms.navigation import breadcrumbs, sitemap, url_of
from cms.store import MemoryStore, Page

PAGES = [
    Page(1, None, "", "Home"),
    Page(2, 1, "about", "About us"),
    Page(3, 2, "team", "Team"),
    Page(4, 1, "blog", "Blog"),
    Page(5, 4, "2024", "2024"),
    Page(6, 5, "hello", "Hello world"),
]


def test_url_of():
    store = MemoryStore(PAGES)
    assert url_of(store, 1) == "/"
    assert url_of(store, 6) == "/blog/2024/hello/"


def test_breadcrumbs():
    assert breadcrumbs(MemoryStore(PAGES), 3) == [("Home", "/"), ("About us", "/about/"), ("Team", "/about/team/")]


def test_sitemap_lists_every_page_by_url():
    assert sitemap(MemoryStore(PAGES)) == [
        ("/", "Home"), ("/about/", "About us"), ("/about/team/", "Team"), ("/blog/", "Blog"),
        ("/blog/2024/", "2024"), ("/blog/2024/hello/", "Hello world")]


def big_site(sections: int, per_section: int, depth: int) -> list[Page]:
    """A home page, `sections` sections, and in each a chain of `depth` levels of `per_section` pages."""
    pages = [Page(1, None, "", "Home")]
    for s in range(sections):
        parent = len(pages) + 1
        pages.append(Page(parent, 1, f"section{s}", f"Section {s}"))
        for level in range(depth):
            first = len(pages) + 1
            for n in range(per_section):
                pages.append(Page(len(pages) + 1, parent, f"p{level}-{n}", f"Page {level}.{n}"))
            parent = first
    return pages


def test_sitemap_of_a_big_site_reads_each_page_once():
    pages = big_site(sections=5, per_section=8, depth=6)
    store = MemoryStore(pages)
    entries = sitemap(store)
    assert len(entries) == len(pages) == 246
    assert ("/section4/p0-0/p1-0/p2-0/p3-0/p4-0/p5-7/", "Page 5.7") in entries
    assert store.queries <= len(pages) + 1  # ids() once, get() once per page


def test_sitemap_output_is_unchanged_on_a_big_site():
    pages = big_site(sections=2, per_section=3, depth=3)
    expected = sorted((url_of(MemoryStore(pages), page.id), page.title) for page in pages)
    assert sitemap(MemoryStore(pages)) == expected

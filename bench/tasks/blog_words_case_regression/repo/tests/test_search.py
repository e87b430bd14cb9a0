from blog.posts import Post
from blog.search import build_index, search

POSTS = [
    Post(1, "Python tips", "Use a virtual environment for every project.", "2024-01-10"),
    Post(2, "Office move", "We moved to Zürich; the new office has a rooftop.", "2024-03-01"),
    Post(3, "Rooftop party", "Friday on the office rooftop, bring friends.", "2024-04-12"),
]


def test_every_word_must_match():
    index = build_index(POSTS)
    assert search(index, "office rooftop") == [2, 3]
    assert search(index, "rooftop friday project") == []


def test_nothing_for_an_empty_query():
    assert search(build_index(POSTS), "  ") == []


def test_search_ignores_case_and_accents():
    index = build_index(POSTS)
    assert search(index, "python") == [1]
    assert search(index, "ZURICH Office") == [2]

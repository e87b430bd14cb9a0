from textkit import slugify


def test_slugify_joins_words():
    assert slugify("a b  c!") == "a-b-c"


def test_slugify_lower_case():
    assert slugify("Hello World") == "hello-world"

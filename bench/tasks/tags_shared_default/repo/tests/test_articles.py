from articles import Article


def test_add_tag_lowercases_and_dedupes():
    a = Article("x", tags=[])
    a.add_tag("Python")
    a.add_tag("python")
    assert a.tags == ["python"]


def test_articles_do_not_share_tags():
    a = Article("first")
    b = Article("second")
    a.add_tag("python")
    assert b.tags == []

from listing import page_count, paginate


def test_page_count():
    assert page_count(25, 10) == 3
    assert page_count(20, 10) == 2


def test_first_page():
    assert paginate(list(range(25)), page=1, per_page=10) == list(range(10))


def test_last_page():
    assert paginate(list(range(25)), page=3, per_page=10) == [20, 21, 22, 23, 24]

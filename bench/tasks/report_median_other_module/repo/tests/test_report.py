from shop.report import render, weekly_summary


def test_summary_counts_and_totals():
    s = weekly_summary([30.0, 10.0, 20.0])
    assert s["count"] == 3
    assert s["total"] == 60.0


def test_summary_median():
    assert weekly_summary([30.0, 10.0, 20.0])["median"] == 20.0
    assert weekly_summary([4.0, 1.0, 3.0, 2.0])["median"] == 2.5


def test_empty_week():
    assert weekly_summary([]) == {"count": 0, "total": 0.0, "median": 0.0}


def test_render():
    assert render({"count": 2, "total": 3.5, "median": 1.75}) == "2 orders, total 3.50, median 1.75"

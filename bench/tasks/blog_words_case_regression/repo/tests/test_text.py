from blog.text import fold, headline, words


def test_fold_drops_accents():
    assert fold("Zürich Crème brûlée") == "Zurich Creme brulee"


def test_words_keep_case():
    assert words("The iPhone 15, in Zürich!") == ["The", "iPhone", "15", "in", "Zurich"]


def test_headline():
    assert headline("notes from the road: a week in zürich") == "Notes from the Road a Week in Zurich"


def test_headline_keeps_words_written_with_capitals():
    assert headline("what NASA taught us about the iPhone") == "What NASA Taught Us About the iPhone"

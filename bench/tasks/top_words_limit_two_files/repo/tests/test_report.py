from report import top_words, word_count

TEXT = " ".join((letter * 3 + " ") * (20 - i) for i, letter in enumerate("abcdefghijklmno")) + " The the THE"


def test_top_words_default_ten():
    top = top_words(TEXT)
    assert len(top) == 10 and top[0] == ("aaa", 20) and top[-1] == ("jjj", 11)


def test_top_words_limit():
    assert top_words(TEXT, limit=3) == [("aaa", 20), ("bbb", 19), ("ccc", 18)]
    assert len(top_words(TEXT, limit=12)) == 12


def test_word_count():
    assert word_count("It's a small, small world.") == 5

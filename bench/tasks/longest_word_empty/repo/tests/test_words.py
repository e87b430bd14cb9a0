from words import longest_word, word_count


def test_longest_word():
    assert longest_word("a quick brown fox") == "quick"


def test_longest_word_empty():
    assert longest_word("") == ""
    assert longest_word("   ") == ""


def test_word_count():
    assert word_count("one two  three") == 3

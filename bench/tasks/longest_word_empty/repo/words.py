"""Word-level helpers for comment text."""


def split_words(text: str) -> list[str]:
    """The words of `text`, split on whitespace."""
    return text.split()


def longest_word(text: str) -> str:
    """The longest word in `text`; the first one wins a tie."""
    return max(split_words(text), key=len)


def word_count(text: str) -> int:
    """How many words `text` has."""
    return len(split_words(text))

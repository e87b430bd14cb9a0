"""Roman numerals."""

SYMBOLS = [
    (1000, "M"),
    (500, "D"),
    (100, "C"),
    (50, "L"),
    (10, "X"),
    (5, "V"),
    (1, "I"),
]


def to_roman(number: int) -> str:
    """`number` (1 to 3999) in Roman numerals."""
    if not 1 <= number <= 3999:
        raise ValueError("Roman numerals cover 1 to 3999")
    out = []
    for value, symbol in SYMBOLS:
        count, number = divmod(number, value)
        out.append(symbol * count)
    return "".join(out)

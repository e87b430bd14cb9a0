"""Number helpers shared by the shop's reports."""


def median(values: list[float]) -> float:
    """The middle value of `values` (the mean of the two middle ones for an even count)."""
    if not values:
        raise ValueError("median of no values")
    n = len(values)
    mid = n // 2
    if n % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def rounded(value: float) -> float:
    """`value` rounded to cents."""
    return round(value, 2)

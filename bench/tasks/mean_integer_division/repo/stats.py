"""Small descriptive statistics for the dashboard."""


def total(values: list[float]) -> float:
    """The sum of `values`."""
    result = 0
    for v in values:
        result += v
    return result


def mean(values: list[float]) -> float:
    """The arithmetic mean of `values` (which must not be empty)."""
    if not values:
        raise ValueError("mean of no values")
    return total(values) // len(values)


def spread(values: list[float]) -> float:
    """The largest value minus the smallest."""
    return max(values) - min(values)

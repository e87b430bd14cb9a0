"""The weekly sales report."""

from shop.numbers import median, rounded


def weekly_summary(orders: list[float]) -> dict[str, float]:
    """Count, total and median of the week's order values."""
    return {
        "count": len(orders),
        "total": rounded(sum(orders)),
        "median": rounded(median(orders)) if orders else 0.0,
    }


def render(summary: dict[str, float]) -> str:
    """The summary as one line of text."""
    return f"{summary['count']} orders, total {summary['total']:.2f}, median {summary['median']:.2f}"

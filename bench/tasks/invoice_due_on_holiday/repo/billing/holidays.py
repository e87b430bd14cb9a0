"""The days the shop is closed, besides weekends."""

from datetime import date

HOLIDAYS = frozenset({
    date(2024, 1, 1), date(2024, 3, 29), date(2024, 4, 1), date(2024, 5, 1), date(2024, 12, 25),
    date(2024, 12, 26),
    date(2025, 1, 1), date(2025, 4, 18), date(2025, 4, 21), date(2025, 5, 1), date(2025, 12, 25),
    date(2025, 12, 26),
})

"""Business days: not a Saturday, not a Sunday, not a holiday."""

from __future__ import annotations

from collections.abc import Container
from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


def is_business_day(day: date, holidays: Container[date] = frozenset()) -> bool:
    return day.weekday() < 5 and day not in holidays


def next_business_day(day: date, holidays: Container[date] = frozenset()) -> date:
    """`day` itself when it is a business day, else the first business day after it."""
    if day.weekday() >= 5:
        day += timedelta(days=7 - day.weekday())
    if day in holidays:
        day += ONE_DAY
    return day


def business_days_between(start: date, end: date, holidays: Container[date] = frozenset()) -> int:
    """Business days after `start` up to and including `end`."""
    count, day = 0, start
    while day < end:
        day += ONE_DAY
        count += is_business_day(day, holidays)
    return count

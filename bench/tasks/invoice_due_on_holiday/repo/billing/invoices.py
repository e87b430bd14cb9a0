"""Invoice numbers, due dates and reminders."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from billing.holidays import HOLIDAYS
from billing.workdays import next_business_day

REMINDER_AFTER = timedelta(days=7)


@dataclass(frozen=True)
class Invoice:
    number: str
    issued: date
    net_days: int = 30

    @property
    def due(self) -> date:
        return next_business_day(self.issued + timedelta(days=self.net_days), HOLIDAYS)

    @property
    def reminder(self) -> date:
        return self.due + REMINDER_AFTER


def invoice_number(year: int, sequence: int) -> str:
    """'2024-0042': the year and the invoice's place in it."""
    return f"{year}-{sequence:04d}"

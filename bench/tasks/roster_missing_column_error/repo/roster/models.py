"""A club member."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Member:
    name: str
    email: str
    joined: date

    @classmethod
    def from_row(cls, row: Mapping[str, str]) -> Member:
        """A member from a CSV row whose keys are the lower-cased column names."""
        return cls(
            name=row["name"].strip(),
            email=row["email"].strip().lower(),
            joined=date.fromisoformat(row["joined"].strip()),
        )

    def line(self) -> str:
        return f"{self.name} <{self.email}>, member since {self.joined:%d %B %Y}"

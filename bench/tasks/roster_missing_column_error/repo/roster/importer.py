"""Read the member list the committee exports from its spreadsheet."""

from __future__ import annotations

import csv
from pathlib import Path

from roster.models import Member

REQUIRED = ("name", "email", "joined")


class ImportFormatError(ValueError):
    """The file is not a member list we can read."""


def load_members(path: str | Path) -> list[Member]:
    """Every member in the CSV file at `path`, in file order."""
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None:
            raise ImportFormatError(f"{path.name}: the file is empty; "
                                    f"it needs a header row with {', '.join(REQUIRED)}")
        reader.fieldnames = [name.strip().lower() for name in reader.fieldnames]
        members = []
        for row in reader:
            members.append(Member.from_row(row))
    return members

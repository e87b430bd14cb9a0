"""Exporting report rows as CSV text."""

import csv
import io


def to_csv(rows: list[dict[str, object]], columns: list[str], delimiter: str = ";") -> str:
    """`rows` as CSV with a header of `columns`; a missing value is empty."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else row[c] for c in columns])
    return out.getvalue()

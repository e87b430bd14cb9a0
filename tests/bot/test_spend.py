"""The spend ledger's arithmetic: reservations, settlements, the rule for a run never settled, the caps."""

from __future__ import annotations

import logging

import pytest

from bot.spend import RESERVE, SETTLE, Entry, read_entries, refusal, totals

DAY = "2026-11-25"


def ledger(*entries: Entry) -> list[Entry]:
    return read_entries("".join(entry.line() for entry in entries))


def test_a_settled_run_counts_what_it_charged_and_an_unsettled_one_its_reservation() -> None:
    entries = ledger(Entry("a", RESERVE, 2.0, 1, DAY), Entry("a", SETTLE, 0.3),
                     Entry("killed", RESERVE, 2.0, 1, DAY),  # its job was killed: never settled
                     Entry("c", RESERVE, 2.0, 2, DAY), Entry("c", SETTLE, 0.2),
                     Entry("old", RESERVE, 2.0, 1, "2026-11-24"), Entry("old", SETTLE, 1.0))
    counted = totals(entries, DAY, issue=1)
    assert counted.day_usd == pytest.approx(2.5)  # 0.3 + 2.0 (still counted in full) + 0.2
    assert counted.issue_usd == pytest.approx(3.3)  # the issue's runs on any day
    assert counted.open_usd == pytest.approx(2.0)


def test_a_reservation_past_a_cap_is_refused_with_the_figures_the_issue_cap_first() -> None:
    entries = ledger(Entry("a", RESERVE, 1.0, 1, DAY), Entry("a", SETTLE, 0.75), Entry("b", RESERVE, 1.0, 2, DAY))
    assert refusal(entries, DAY, 3, 1.0, issue_usd=None, day_usd=2.75) is None  # 1.75 + 1.0 fits exactly
    over = refusal(entries, DAY, 1, 1.0, issue_usd=1.5, day_usd=2.5)
    assert over is not None and (over.cap, over.limit, over.spent, over.open_usd, over.reserve) == (
        "issue_usd", 1.5, 0.75, 0.0, 1.0)
    over = refusal(entries, DAY, 3, 1.0, issue_usd=None, day_usd=2.5)
    assert over is not None and (over.cap, over.spent, over.open_usd) == ("day_usd", 1.75, 1.0)
    assert refusal(entries, "2026-11-26", 3, 1.0, issue_usd=None, day_usd=2.5) is None  # a new UTC day


def test_a_line_that_is_not_an_entry_is_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    text = Entry("a", RESERVE, 1.0, 1, DAY).line() + "not json\n" + '{"id": "b"}\n'
    with caplog.at_level(logging.WARNING):
        assert [e.id for e in read_entries(text)] == ["a"]
    assert "ledger line 2 is not an entry" in caplog.text and "ledger line 3" in caplog.text

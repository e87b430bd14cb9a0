"""The ledger: reservations keep concurrent calls under the caps; spend is reported per role."""

from __future__ import annotations

import pytest

from bot.errors import BudgetExceeded
from bot.llm import PriceTable, Usage
from bot.llm.budget import Ledger


def test_calls_in_flight_count_against_the_cap():
    ledger = Ledger(budget_usd=1.0, budget_tokens=None, prices=PriceTable())
    held = ledger.reserve("coder", "openai/gpt-4o", "gpt-4o", 300_000)  # $0.75 while in flight
    with pytest.raises(BudgetExceeded) as caught:
        ledger.reserve("critic", "openai/gpt-4o", "gpt-4o", 200_000)  # $0.50 more would pass $1.00
    assert "critic call to openai/gpt-4o" in str(caught.value) and caught.value.spend["calls"] == 0
    ledger.release(held)
    again = ledger.reserve("critic", "openai/gpt-4o", "gpt-4o", 200_000)
    ledger.settle(again, "critic", Usage(200_000, 1_000, 0), 0.51)
    summary = ledger.summary()
    assert summary["by_role"]["critic"]["cost_usd"] == pytest.approx(0.51) and summary["calls"] == 1


def test_free_models_are_never_refused_by_the_usd_cap():
    ledger = Ledger(budget_usd=0.0, budget_tokens=None, prices=PriceTable())
    ledger.reserve("coder", "openai/llama3", "llama3", 10**6)


def test_spend_is_also_reported_per_model_as_the_provider_named_it():
    ledger = Ledger(budget_usd=None, budget_tokens=None, prices=PriceTable())
    ledger.settle(None, "coder", Usage(100, 10, 0), 0.01, model="gpt-4o-2024-08-06")
    ledger.settle(None, "critic", Usage(50, 5, 0), 0.005, model="gpt-4o-2024-08-06")
    by_model = ledger.summary()["by_model"]
    assert list(by_model) == ["gpt-4o-2024-08-06"] and by_model["gpt-4o-2024-08-06"]["calls"] == 2
    assert by_model["gpt-4o-2024-08-06"]["cost_usd"] == pytest.approx(0.015)

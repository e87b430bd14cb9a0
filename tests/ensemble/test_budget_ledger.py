"""The budget through the real model manager and its ledger, against the fake OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import parse_config
from bot.ensemble.report import render_summary
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import Task
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.openai_server import FakeOpenAI

CONFIG = """ensembles: 1
budget_usd: 0.05
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
"""


def test_the_call_that_would_pass_the_cap_is_never_sent(sample: Path) -> None:
    with FakeOpenAI() as openai:
        # the exploration reply costs 19,500 input tokens on gpt-4o: $0.04875 of the $0.05
        openai.reply('{"search": [], "open": [], "symbols": []}', marker="You are the planner", usage=(19_500, 0, 0))
        openai.set_default("should never be asked")
        parts = Components(retriever=FileRetriever(sample), runner=HostPytest(), use_cache=False)
        result = run_task(sample, Task("median() is wrong", "median([1, 2, 3, 4]) returns 3.", slug="m"),
                          parse_config(CONFIG), openai.env(), parts)
        sent = len(openai.requests)

    assert sent == 1  # the plan request would have passed the cap, so it was not sent
    assert result.stop_reason == "budget" and not result.success and not result.commits
    assert result.usage["cost_usd"] == pytest.approx(0.04875)
    assert "budget" in result.stop_detail.lower() or "$0.05" in result.stop_detail
    summary = render_summary(result)
    assert "stop reason: budget" in summary and "cost $0.0488" in summary

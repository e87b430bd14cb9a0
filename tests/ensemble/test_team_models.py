"""Each team may have its own models (`team_models`): team b's coder asks another provider."""

from __future__ import annotations

from pathlib import Path

from bot.config import parse_config
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import Task
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.gemini_server import FakeGemini
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO
from fakes.model_server import Logged
from fakes.openai_server import FakeOpenAI

CONFIG = """ensembles: 2
max_iterations: 1
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: gemini, model: gemini-2.5-flash}
team_models:
  - {}
  - {coder: {provider: gemini, model: gemini-2.5-pro}}
"""


def said(request: Logged) -> str:
    return "\n".join(m["content"] for m in request.messages)


def test_team_b_codes_with_its_own_model(sample: Path) -> None:
    with FakeOpenAI() as openai, FakeGemini() as gemini:
        openai.reply(data=PLAN, schema="plan", times=0)
        openai.reply(ENOUGH, marker="You are the planner", times=0)
        openai.reply(REPRO, marker="You are the coder")
        openai.reply(FIX, marker="You are the coder", times=0)
        gemini.reply(data=ACCEPT, schema="review", times=0)
        gemini.reply(REPRO, marker="You are the coder", model="gemini-2.5-pro")
        gemini.reply(FIX, marker="You are the coder", model="gemini-2.5-pro", times=0)
        config = parse_config(CONFIG)
        parts = Components(retriever=FileRetriever(sample), runner=HostPytest(), use_cache=False)
        task = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3.", slug="m")
        result = run_task(sample, task, config, {**openai.env(), **gemini.env()}, parts)

    assert result.success
    coders_on_gemini = {r.model for r in gemini.requests if "You are the coder" in r.system}
    assert coders_on_gemini == {"gemini-2.5-pro"}
    assert all("coder of team b" not in said(r) for r in openai.requests)  # the team is named last, not in the system
    assert any("coder of team a" in said(r) for r in openai.requests)
    # each: the reproduction test, the fix, and the hidden check's request (answered with no test file: no check)
    # each team's reproduction test and fix (no hidden check: the fix writes none of the test's values)
    assert result.usage["by_role"]["coder@b"]["calls"] == 2 and result.usage["by_role"]["coder"]["calls"] == 2
    assert {t.name: t.models for t in result.teams} == {"a": "gpt-4o/gpt-4o-mini/gemini-2.5-flash",
                                                              "b": "gpt-4o/gemini-2.5-pro/gemini-2.5-flash"}

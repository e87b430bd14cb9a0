"""A 1 MB issue body costs what a normal one does: every request is fitted to the model's window.

The real model manager and OpenAI client against the fake OpenAI server; the task body alone is
four times the coder's whole window.
"""

from __future__ import annotations

from pathlib import Path

from bot.config import parse_config
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import Task
from bot.llm.manager import ModelManager
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import ACCEPT, ENOUGH, FIX
from fakes.openai_server import FakeOpenAI
from tests.security.test_edit_guards import PLAN

CONFIG = """ensembles: 1
max_iterations: 1
models:
  planner: {provider: openai, model: small-planner}
  coder: {provider: openai, model: small-coder}
  critic: {provider: openai, model: small-critic}
llm:
  prices:
    - {model: small-planner, context_window: 32000}
    - {model: small-coder, context_window: 32000}
    - {model: small-critic, context_window: 32000}
"""
MEGABYTE = 1024 * 1024


def test_a_1_mb_issue_body_is_cut_to_the_window_in_every_request(sample: Path) -> None:
    body = "The median is wrong for even counts. " + ("Here is a long log line that says nothing new. " * 23_000)
    assert len(body) > MEGABYTE
    with FakeOpenAI() as openai:
        openai.reply(data=PLAN, schema="plan", times=0)
        openai.reply(ENOUGH, marker="You are the planner", times=0)
        openai.reply(FIX, marker="You are the coder", times=0)
        openai.reply(data=ACCEPT, schema="review", times=0)
        config = parse_config(CONFIG)
        models = ModelManager.from_config(config, openai.env(), None, use_cache=False)
        parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest(), use_cache=False)
        result = run_task(sample, Task("median() is wrong for an even count", body), config, openai.env(), parts)
        sizes = [sum(len(m["content"]) for m in r.messages) for r in openai.requests]
    assert result.success, result.stop_detail
    assert sizes and max(sizes) < 32_000 * 4, f"largest request {max(sizes)} characters"  # within a 32k-token window

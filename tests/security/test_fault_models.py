"""Model faults mid-run: 429s, 5xx storms, timeouts and garbage are survived; a dead model ends the run clearly.

A real run (ModelManager, the OpenAI SDK) against the fake OpenAI server on localhost, with the
faults injected between good answers; tests run with pytest on the host.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.config import parse_config
from bot.ensemble.demo import create_sample_repo
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import RunResult, Task
from bot.llm.manager import ModelManager
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO
from fakes.openai_server import FakeOpenAI

CONFIG = """ensembles: 1
max_iterations: 2
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
llm: {timeout_s: 1, max_attempts: 6}
"""
TASK = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3.", slug="median")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return create_sample_repo(tmp_path / "sample")


def run(sample: Path, openai: FakeOpenAI, config: str = CONFIG, waits: list[float] | None = None) -> RunResult:
    """The whole run; backoff waits are recorded in `waits` instead of slept (the timeouts are real)."""
    parsed = parse_config(config)
    models = ModelManager.from_config(parsed, openai.env(), None, use_cache=False,
                                      sleep=(waits if waits is not None else []).append)
    parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest(), use_cache=False)
    return run_task(sample, TASK, parsed, openai.env(), parts)


def branches(repo: Path) -> list[str]:
    out = subprocess.run(["git", "branch", "--list", "ensemble/*", "--format=%(refname:short)"], cwd=repo,
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def test_rate_limits_server_errors_timeouts_and_garbage_mid_run_are_survived(sample: Path) -> None:
    coder, critic = "You are the coder", "You are the critic"
    with FakeOpenAI() as openai:
        openai.reply(data=PLAN, schema="plan", times=0)
        openai.reply(ENOUGH, marker="You are the planner", times=0)
        openai.reply(REPRO, marker=coder)  # the first coder call goes through; the faults come mid-run
        openai.rate_limit(retry_after=0.2, marker=coder)
        openai.server_error(status=503, marker=coder)
        openai.hang(seconds=5, marker=coder)  # longer than llm.timeout_s
        openai.malformed_body(marker=coder)
        openai.server_error(status=502, marker=coder)
        openai.reply(FIX, marker=coder, times=0)
        openai.reply("Looks fine to me!", schema="review", marker=critic)  # garbage: not the JSON asked for
        openai.reply(data=ACCEPT, schema="review", marker=critic, times=0)
        waits: list[float] = []
        result = run(sample, openai, waits=waits)
        statuses = [r.status for r in openai.requests if coder in r.system]

    assert result.success, result.decision
    assert result.stop_reason == "accepted"
    # The hung request (the fourth) stays at 0 while the server still hangs, and reads 503 once the server
    # answered a client that had stopped waiting: on a slow machine the run outlasts the hang.
    assert statuses[1:3] + statuses[4:7] == [429, 503, 200, 502, 200] and statuses[3] in (0, 503), statuses
    assert len(waits) == 5 and waits[0] == 0.2  # one wait per retry; the 429's Retry-After was honoured
    fixed = subprocess.run(["git", "show", f"{result.branch}:stats/core.py"], cwd=sample, capture_output=True,
                           text=True, check=True).stdout
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in fixed
    # five failed attempts were retried within one call; no hidden check is asked for a fix that writes none of the
    # reproduction test's values
    assert result.usage["by_role"]["coder"]["calls"] == 2
    assert result.usage["by_role"]["critic"]["calls"] >= 1


def test_a_model_that_keeps_failing_ends_the_run_with_a_clear_error_and_no_branch(sample: Path) -> None:
    config = CONFIG.replace("max_attempts: 6", "max_attempts: 2")
    with FakeOpenAI() as openai:
        openai.reply(data=PLAN, schema="plan", times=0)
        openai.reply(ENOUGH, marker="You are the planner", times=0)
        openai.server_error(status=500, marker="You are the coder", times=0)
        result = run(sample, openai, config)

    assert not result.success and not result.commits
    assert "coder" in result.decision and "gpt-4o-mini" in result.decision and "500" in result.decision
    assert not branches(sample) or subprocess.run(
        ["git", "rev-list", "--count", f"HEAD..{branches(sample)[0]}"], cwd=sample, capture_output=True, text=True,
        check=True).stdout.strip() == "0"

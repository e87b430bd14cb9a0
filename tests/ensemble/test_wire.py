"""The run's data survives the trip through JSON between the handler and the engine process."""

from __future__ import annotations

import json

import pytest

from bot.config import parse_config
from bot.ensemble import wire
from bot.ensemble.types import ACCEPTED, Judgement, Plan, RunnerHook, RunResult, StopReason, Task, TeamSummary
from bot.forge import Commit
from tests.actions.child_engines import full_result

CONFIG = """ensembles: 1
max_iterations: 2
deadline_minutes: 30
models:
  planner: {provider: openai, model: gpt-4o, base_url: "http://127.0.0.1:8080/v1", api_key_env: LOCAL_KEY,
            fallback: [{provider: gemini, model: gemini-2.5-flash}]}
team_models: [{coder: {provider: openai, model: small}}]
sandbox: {image: "python:3.12-slim", timeout_s: 120}
paths: {deny: ["secrets/"]}
secret_env: [DEPLOY_KEY]
commit: {signoff: true}
"""


def through_json(value: object) -> object:
    return json.loads(json.dumps(wire.dump(value)))  # type: ignore[arg-type]


def test_a_run_result_round_trips_losslessly() -> None:
    task = Task("Fix median", "body", "issue-7", Plan("approved", ("a.py",), ("do it",), (), "tests/t.py", ""))
    result = full_result("run-9", task)
    back = wire.load(RunResult, through_json(result))
    assert back == result
    assert isinstance(back.stop_reason, StopReason) and back.stop_reason == ACCEPTED
    assert isinstance(back.judgement, Judgement) and back.judgement.fixed == ("tests/test_even.py::test_even",)
    assert back.task.plan == task.plan and back.passed and back.success
    assert back.commits == [Commit("a" * 40, "Fix median")] and isinstance(back.commits[0], Commit)
    [team] = back.teams
    assert isinstance(team, TeamSummary) and team.stop_reason is ACCEPTED and team.refused == ("ci.yml: CI file",)
    assert back.usage["by_role"]["coder"]["calls"] == 2 and back.usage["fallbacks"][0]["from"] == "openai/gpt-4o-mini"
    assert back.runner_hooks == result.runner_hooks and isinstance(back.runner_hooks[0], RunnerHook)


def test_a_test_runs_findings_reads_and_listing_round_trip() -> None:
    from dataclasses import replace

    result = full_result("run-9", Task("t"))
    assert result.tests_before is not None and result.tests_after is not None
    before = replace(result.tests_before, findings=("exit_status: none of the 3 reported tests failed, but ...",),
                     reads=("fixtures/expected.json", "stats/core.py"), listed=("tests/test_even.py::test_even",))
    after = replace(result.tests_after, listed=())  # a runner that listed no tests is not one that cannot list
    back = wire.load(RunResult, through_json(replace(result, tests_before=before, tests_after=after)))
    assert back.tests_before == before and back.tests_after == after
    assert back.tests_before is not None and isinstance(back.tests_before.listed, tuple)
    assert back.tests_after is not None and back.tests_after.listed == ()
    assert wire.load(RunResult, through_json(result)).tests_before.listed is None  # type: ignore[union-attr]


def test_the_json_of_a_run_keeps_its_keys() -> None:
    """`ensemble run --json` is a contract: commits, teams and usage print as they always have."""
    data = json.loads(json.dumps(full_result("run-9", Task("t")).to_dict(), default=str))
    assert data["commits"] == [{"sha": "a" * 40, "summary": "Fix median"}]
    assert data["runner_hooks"] == [{"path": "stats/__init__.py", "line": 7, "what": "patches builtins.median",
                                     "code": "builtins.median = median"}]
    assert data["teams"] == [{"name": "a", "rank": 1, "outcome": "tests pass", "stop_reason": "accepted", "rounds": 2,
                              "passed": True, "accepted": True, "diff_lines": 1, "error": "", "kept": "",
                              "refused": ["ci.yml: CI file"], "models": "gpt-4o/gpt-4o-mini/gemini-2.5-flash",
                              "judgement": None, "cross": []}]  # added: what its ranking compared
    assert list(data["usage"]) == ["calls", "cache_hits", "replayed", "input_tokens", "output_tokens", "cached_tokens",
                                   "parse_failures", "repaired", "truncated", "cost_usd", "budget_usd",
                                   "budget_tokens", "by_role", "by_model", "fallbacks"]
    assert list(data["usage"]["by_role"]["coder"]) == ["calls", "cache_hits", "replayed", "input_tokens",
                                                       "output_tokens", "cached_tokens", "cost_usd",
                                                       "parse_failures", "repaired", "truncated"]
    assert data["usage"]["fallbacks"] == [{"role": "coder", "from": "openai/gpt-4o-mini",
                                           "to": "gemini/gemini-2.5-flash", "reason": "RateLimited: 429"}]


def test_a_config_round_trips_losslessly() -> None:
    config = parse_config(CONFIG, ".github/ensemble.yml")
    assert wire.load(type(config), through_json(config)) == config


def test_data_that_does_not_fit_names_the_field() -> None:
    data = through_json(full_result("run-9", Task("t")))
    data["stop_reason"] = "exploded"  # type: ignore[index]
    with pytest.raises(ValueError, match="stop_reason"):
        wire.load(RunResult, data)


def test_usage_without_a_figure_names_the_figure() -> None:
    data = through_json(full_result("run-9", Task("t")))
    del data["usage"]["by_role"]["coder"]["cost_usd"]  # type: ignore[index]
    with pytest.raises(ValueError, match=r"usage\.by_role\.coder\.cost_usd"):
        wire.load(RunResult, data)

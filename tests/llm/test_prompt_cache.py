"""Prompt prefixes served from a provider's cache: counted, priced as cached input, and shown by `ensemble report`.

The real `openai` and `google-genai` SDKs talk to the fake OpenAI and Gemini endpoints, whose replies report
cached prompt tokens the way the APIs do (`usage.prompt_tokens_details.cached_tokens`,
`usageMetadata.cachedContentTokenCount`); a local llama.cpp-style server is also asked to keep the prompt
(`cache_prompt`) and answers with its `timings`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Config, Models, RoleModel
from bot.llm import Message, ModelManager
from bot.llm.local import server_extras
from bot.llm.prices import MODEL_TABLE
from bot.trace import Tracer
from fakes.gemini_server import FakeGemini
from fakes.openai_server import FakeOpenAI
from tests.llm.conftest import GEMINI_KEY, OPENAI_KEY, REVIEW

CODE = "app.py\n<<<<<<< SEARCH\n=======\nprint('hi')\n>>>>>>> REPLACE"
LLAMA_TIMINGS = {"prompt_n": 200, "prompt_ms": 400.0, "predicted_n": 100, "predicted_ms": 2500.0, "cache_n": 800}


def traced_calls(tmp_path: Path, models: Models, env: dict[str, str]) -> ModelManager:
    """One coder and one critic call through the real manager, traced where `ensemble report` reads traces."""
    manager = ModelManager.from_config(Config(models=models), env, cache_dir=None, sleep=lambda s: None)
    with Tracer.for_run(tmp_path / "runs", run_id="r1", env=env).activate():
        manager.complete("coder", [Message("system", "You are the coder."), Message("user", "Add a greeting.")])
        manager.complete("critic", [Message("system", "You are the critic."), Message("user", "Review it.")],
                         schema="review")
    return manager


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    """`ensemble report` over the run, as JSON and as text."""
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["report", str(tmp_path / "runs")]) == 0
    return data, capsys.readouterr().out


def test_cached_prompt_tokens_of_openai_and_gemini_are_priced_as_cached_and_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = Models(planner=RoleModel("openai", "gpt-4o"), coder=RoleModel("openai", "gpt-4o-mini"),
                    critic=RoleModel("gemini", "gemini-2.5-flash"))
    with FakeOpenAI(api_key=OPENAI_KEY) as openai, FakeGemini(api_key=GEMINI_KEY) as gemini:
        openai.reply(CODE, usage=(1000, 100, 800))  # 800 of the 1000 prompt tokens read from OpenAI's cache
        gemini.reply(data=REVIEW, schema="review", usage=(2000, 50, 1500))
        spend = traced_calls(tmp_path, models, {**openai.env(), **gemini.env()}).spend()

    for role, model, (prompt, output, cached) in (("coder", "gpt-4o-mini", (1000, 100, 800)),
                                                  ("critic", "gemini-2.5-flash", (2000, 50, 1500))):
        price = MODEL_TABLE[model]
        figures = spend["by_role"][role]
        assert (figures["input_tokens"], figures["cached_tokens"], figures["output_tokens"]) == (prompt, cached, output)
        uncached = (prompt * price.input + output * price.output) / 1e6
        # cheaper than the same tokens uncached by exactly the cached tokens' price difference
        assert figures["cost_usd"] == pytest.approx(uncached - cached * (price.input - price.cached_input) / 1e6)
        assert spend["by_model"][model]["cost_usd"] == pytest.approx(figures["cost_usd"])

    data, text = report(tmp_path, capsys)
    rows = {row["role"]: row for row in data["prompt_cache"]}
    assert (rows["coder"]["tokens_cached"], rows["coder"]["cached_share"]) == (800, 0.8)
    assert (rows["critic"]["tokens_cached"], rows["critic"]["cached_share"]) == (1500, 0.75)
    # a hosted API says nothing of how it spent its time: the split is unknown, not guessed from the latency
    assert rows["coder"]["prompt_s"] is None and rows["critic"]["reply_s"] is None
    costs = {m["role"]: m["cost_usd"] for m in data["models"]}
    assert costs == {role: pytest.approx(spend["by_role"][role]["cost_usd"], abs=1e-6) for role in ("coder", "critic")}
    table = text[text.index("prompt tokens served from the provider's cache"):].splitlines()
    assert table[2].split() == ["coder", "1000", "800", "80%", "unknown", "unknown"]
    assert table[3].split() == ["critic", "2000", "1500", "75%", "unknown", "unknown"]


def test_a_local_server_keeps_the_prompt_and_its_timings_split_reading_from_writing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = Models(planner=RoleModel("openai", "qwen-local"), coder=RoleModel("openai", "qwen-local"),
                    critic=RoleModel("openai", "qwen-local"))
    with FakeOpenAI.llama_cpp() as server:
        server.reply(CODE, usage=(1000, 100, 0), extra={"timings": LLAMA_TIMINGS})
        server.reply(json.dumps(REVIEW), usage=(1200, 20, 0),
                     extra={"timings": {"prompt_n": 1200, "prompt_ms": 1500.0, "predicted_n": 20, "predicted_ms": 500.0}})
        spend = traced_calls(tmp_path, models, {"OPENAI_BASE_URL": server.url}).spend()
        bodies = [r.body for r in server.requests if r.status == 200]

    assert [body.get("cache_prompt") for body in bodies] == [True, True]  # llama.cpp reuses the prefix it kept
    assert spend["by_role"]["coder"]["cached_tokens"] == 800  # its `cache_n`: the prompt tokens it did not read again
    data, text = report(tmp_path, capsys)
    rows = {row["role"]: row for row in data["prompt_cache"]}
    assert (rows["coder"]["prompt_s"], rows["coder"]["reply_s"], rows["coder"]["cached_share"]) == (0.4, 2.5, 0.8)
    assert (rows["critic"]["prompt_s"], rows["critic"]["reply_s"], rows["critic"]["cached_share"]) == (1.5, 0.5, 0.0)
    table = text[text.index("prompt tokens served from the provider's cache"):].splitlines()
    assert table[2].split() == ["coder", "1000", "800", "80%", "0.40s", "2.50s"]


def test_only_a_local_server_is_asked_to_keep_the_prompt() -> None:
    for hosted in (None, "https://api.openai.com/v1", "https://my-vllm.example.com/v1"):
        assert server_extras(hosted) == {}
    for local in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1"):
        assert server_extras(local) == {"cache_prompt": True}

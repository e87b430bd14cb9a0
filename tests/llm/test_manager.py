"""ModelManager across providers: failover, cache, budget, threads and the trace."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.config import PriceSpec
from bot.errors import BudgetExceeded, ModelAuthError, ModelNotFound, UsageError
from bot.llm import Message, ModelManager
from tests.llm.conftest import REVIEW, make_config, role, spans

ASK = [Message("system", "You are the critic."), Message("user", "Review the change.")]


def test_failover_from_openai_to_gemini_is_reported(openai_server, gemini_server, make_manager, tracer):
    openai_server.rate_limit(retry_after=1, times=0)
    gemini_server.reply(data=REVIEW, schema="review")
    config = make_config(critic=role("openai", "gpt-4o-mini", ("gemini", "gemini-2.5-flash")), llm_max_attempts=3)
    manager = make_manager(config)
    reply = manager.complete("critic", ASK, schema="review")
    assert reply.data == REVIEW and (reply.provider, reply.model) == ("gemini", "gemini-2.5-flash")
    assert reply.fallback_from == "openai/gpt-4o-mini"
    assert len(openai_server.requests) == 3 and len(gemini_server.requests) == 1
    [fallback] = manager.spend()["fallbacks"]
    assert fallback["from"] == "openai/gpt-4o-mini" and fallback["to"] == "gemini/gemini-2.5-flash"
    assert "RateLimited" in fallback["reason"]
    assert list(manager.spend()["by_model"]) == ["gemini-2.5-flash"]  # as the server named it; openai never answered
    [record] = spans(tracer)
    assert record["attributes"]["fallback_from"] == "openai/gpt-4o-mini"
    assert record["attributes"]["provider"] == "gemini" and "RateLimited" in record["attributes"]["failovers"][0]


def test_permanent_failure_fails_over_at_once_and_the_last_error_lists_the_chain(openai_server, gemini_server,
                                                                                  make_manager, env):
    env["OPENAI_API_KEY"] = "sk-wrong-key-000000000000"
    gemini_server.unauthorized()
    config = make_config(critic=role("openai", "gpt-4o-mini", ("gemini", "gemini-2.5-flash")))
    with pytest.raises(ModelAuthError) as caught:
        make_manager(config).complete("critic", ASK)
    message = str(caught.value)
    assert message.startswith("critic (gemini/gemini-2.5-flash)") and "GEMINI_API_KEY" in message
    assert "earlier in the fallback chain: openai/gpt-4o-mini" in message
    assert len(openai_server.requests) == 1


def test_cache_hit_sends_no_second_request_and_costs_nothing(openai_server, make_manager, tmp_path, tracer):
    openai_server.reply(data=REVIEW, schema="review", usage=(500, 20, 0))
    config = make_config(critic=role("openai", "gpt-4o-mini"))
    first = make_manager(config, tmp_path / "cache").complete("critic", ASK, schema="review")
    again = make_manager(config, tmp_path / "cache")  # a new manager: the hit comes from disk
    second = again.complete("critic", ASK, schema="review")
    assert len(openai_server.requests) == 1
    assert not first.cached and second.cached and second.data == REVIEW
    assert second.cost_usd == 0 and second.usage.total_tokens == 0
    critic = again.spend()["by_role"]["critic"]
    assert (critic["calls"], critic["cache_hits"], critic["cost_usd"]) == (0, 1, 0)
    assert [s["attributes"]["cache_hit"] for s in spans(tracer)] == [False, True]


def test_a_cache_that_cannot_be_written_loses_no_reply(openai_server, make_manager, tmp_path):
    openai_server.reply("the fix", usage=(100, 10, 0))
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")  # every write fails with an OSError
    reply = make_manager(make_config(), blocked).complete("coder", ASK)
    assert reply.text == "the fix" and len(openai_server.requests) == 1


def test_cache_misses_on_a_different_prompt_and_is_off_when_asked(openai_server, make_manager, tmp_path):
    openai_server.set_default("ok")
    manager = make_manager(make_config(), tmp_path / "cache")
    manager.complete("coder", ASK)
    manager.complete("coder", [*ASK, Message("user", "More.")])
    manager.complete("coder", ASK, temperature=0.7)  # sampling: never cached
    manager.complete("coder", ASK, temperature=0.7)  # ... so the same sampled call goes out again
    make_manager(make_config(), tmp_path / "cache", use_cache=False).complete("coder", ASK)
    assert len(openai_server.requests) == 5


def test_budget_cap_stops_the_run_before_the_call_is_sent(openai_server, make_manager):
    openai_server.set_default("ok")
    openai_server.reply("first", usage=(400_000, 0, 0))  # $1.00 on gpt-4o
    wide = (PriceSpec("gpt-4o", context_window=2_000_000),)  # so the window does not refuse it first
    manager = make_manager(make_config(budget_usd=1.5, llm_prices=wide))
    manager.complete("planner", ASK)
    big = [Message("user", "x" * 3_500_000)]  # about 1M tokens, $2.50: over the cap
    with pytest.raises(BudgetExceeded) as caught:
        manager.complete("planner", big)
    assert len(openai_server.requests) == 1
    assert caught.value.spend["cost_usd"] == pytest.approx(1.0)
    assert "$1.50" in str(caught.value) and "budget_usd" in str(caught.value)
    manager.complete("planner", ASK)  # a small call still fits


def test_token_cap(openai_server, make_manager):
    openai_server.set_default("ok")
    openai_server.reply("first", usage=(900, 50, 0))
    manager = make_manager(make_config(budget_tokens=1000))
    manager.complete("coder", ASK)
    with pytest.raises(BudgetExceeded, match="1,000 tokens"):
        manager.complete("coder", [Message("user", "y" * 1000)])
    assert manager.spend()["input_tokens"] == 900


def test_two_threads_at_once_are_accounted_per_call(openai_server, gemini_server, make_manager):
    for i in range(5):
        openai_server.reply(f"code {i}", marker="coder", usage=(100, 10, 0))
        gemini_server.reply(data=REVIEW, marker="critic", usage=(200, 20, 50))
    manager = make_manager()
    replies: dict[str, list] = {"coder": [], "critic": []}
    errors: list[BaseException] = []

    def work(who: str) -> None:
        try:
            for i in range(5):
                messages = [Message("system", f"You are the {who}."), Message("user", f"round {i}")]
                replies[who].append(manager.complete(who, messages, schema="review" if who == "critic" else None))
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(who,)) for who in replies]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert sorted(r.text for r in replies["coder"]) == [f"code {i}" for i in range(5)]
    assert all(r.data == REVIEW for r in replies["critic"])
    spend = manager.spend()
    assert spend["by_role"]["coder"]["input_tokens"] == 500 and spend["by_role"]["coder"]["calls"] == 5
    assert spend["by_role"]["critic"]["cached_tokens"] == 250 and spend["by_role"]["critic"]["output_tokens"] == 100
    assert spend["cost_usd"] == pytest.approx(sum(r.cost_usd for rs in replies.values() for r in rs))


def test_scripted_transcript_from_config_is_replayed_and_free(tmp_path: Path, tracer):
    transcript = tmp_path / "demo.jsonl"
    transcript.write_text('{"role": "critic", "schema": "review", "reply": {"verdict": "revise", "feedback": "no"}}\n')
    config = make_config(critic=role("scripted", "demo.jsonl"), budget_usd=0.0)
    manager = ModelManager.from_config(config, {}, tmp_path / "cache", base_dir=tmp_path)
    reply = manager.complete("critic", ASK, schema="review")
    assert reply.replayed and reply.data == {"verdict": "revise", "feedback": "no"} and reply.cost_usd == 0
    assert spans(tracer)[0]["attributes"]["replayed"] is True
    assert manager.spend()["replayed"] == 1 and not (tmp_path / "cache").exists()


def test_unknown_role_and_schema_are_usage_errors(make_manager):
    manager = make_manager()
    with pytest.raises(UsageError, match="expected one of planner, coder, critic"):
        manager.complete("reviewer", ASK)
    with pytest.raises(ValueError, match="expected one of plan, review"):
        manager.complete("critic", ASK, schema="verdict")


def test_a_missing_fallback_model_names_its_own_setting(openai_server, gemini_server, make_manager):
    gemini_server.unauthorized()
    openai_server.model_not_found("gpt-4o-mini")
    config = make_config(critic=role("gemini", "gemini-2.5-flash", ("openai", "gpt-4o-mini")))
    with pytest.raises(ModelNotFound) as caught:
        make_manager(config).complete("critic", ASK)
    assert "set models.critic.fallback[0].model in" in str(caught.value)
    assert "ENSEMBLE_CRITIC_MODEL" not in str(caught.value)  # that variable sets the primary, not this one

"""GeminiChatModel through the real `google-genai` SDK against a fake server, via ModelManager."""

from __future__ import annotations

import pytest

from bot.errors import ModelAuthError, ModelNotFound, ModelServerError, ModelTimeout, QuotaExhausted
from bot.llm import Message
from tests.llm.conftest import PLAN, REVIEW, make_config, role

ASK = [Message("system", "You are the critic."), Message("user", "Review this diff."),
       Message("assistant", "Which file?"), Message("user", "app.py")]


def test_text_reply_with_system_instruction_and_turns(gemini_server, make_manager):
    gemini_server.reply("Looks fine.", usage=(2000, 100, 1000))
    reply = make_manager(make_config(coder=role("gemini", "gemini-2.5-flash"))).complete("coder", ASK)
    assert reply.text == "Looks fine." and reply.request_id == "resp-fake1"
    assert reply.cost_usd == pytest.approx((1000 * 0.30 + 1000 * 0.075 + 100 * 2.50) / 1e6)
    sent = gemini_server.requests[0]
    assert sent.model == "gemini-2.5-flash" and sent.system == "You are the critic."
    assert [m["role"] for m in sent.messages] == ["user", "assistant", "user"]


@pytest.mark.parametrize(("schema", "data", "who"), [("plan", PLAN, "planner"), ("review", REVIEW, "critic")])
def test_structured_reply_uses_response_schema(gemini_server, make_manager, schema, data, who):
    gemini_server.reply(data=data, schema=schema)
    config = make_config(planner=role("gemini", "gemini-2.5-pro"))
    reply = make_manager(config).complete(who, ASK, schema=schema)
    assert reply.data == data
    generation = gemini_server.requests[0].body["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert generation["responseSchema"]["title"] == schema
    assert sorted(generation["responseSchema"]["required"]) == sorted(data)


def test_rate_limit_with_retry_after_then_success(gemini_server, make_manager, clock):
    gemini_server.rate_limit(retry_after=3)
    gemini_server.reply(data=REVIEW)
    reply = make_manager().complete("critic", ASK, schema="review")
    assert reply.data == REVIEW and clock.sleeps == [3.0]
    assert len(gemini_server.requests) == 2  # the SDK's own retries are off: ours made the second


def test_per_minute_quota_429_waits_the_retry_delay_and_retries(gemini_server, make_manager, clock):
    # its text says "check your plan and billing details", like every Gemini 429
    gemini_server.quota_exceeded(retry_delay_s=16)
    gemini_server.reply(data=REVIEW)
    reply = make_manager().complete("critic", ASK, schema="review")
    assert reply.data == REVIEW and clock.sleeps == [16.0]


@pytest.mark.parametrize(("quota_id", "limit"), [("GenerateRequestsPerDayPerProjectPerModel-FreeTier", 250),
                                                  ("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", 0)])
def test_daily_or_zero_quota_fails_at_once(gemini_server, make_manager, clock, quota_id, limit):
    gemini_server.quota_exceeded(quota_id=quota_id, limit=limit, retry_delay_s=40, times=0)
    with pytest.raises(QuotaExhausted, match="used up") as info:
        make_manager().complete("critic", ASK)
    assert quota_id in str(info.value)
    assert len(gemini_server.requests) == 1 and clock.sleeps == []


def test_server_error_storm(gemini_server, make_manager, clock):
    gemini_server.server_error(times=0, status=503)
    with pytest.raises(ModelServerError, match=r"critic \(gemini/gemini-2.5-flash\)"):
        make_manager(make_config(llm_max_attempts=3)).complete("critic", ASK)
    assert len(gemini_server.requests) == 3 and len(clock.sleeps) == 2


def test_rejected_key_says_which_variable(gemini_server, make_manager, env):
    env["GEMINI_API_KEY"] = "AIza-wrong-key-00000000000000000000000"
    with pytest.raises(ModelAuthError, match="GEMINI_API_KEY"):
        make_manager().complete("critic", ASK)
    assert len(gemini_server.requests) == 1


def test_missing_key_is_reported_without_a_request(gemini_server, make_manager, env):
    del env["GEMINI_API_KEY"]
    with pytest.raises(ModelAuthError, match="export GEMINI_API_KEY"):
        make_manager().complete("critic", ASK)
    assert gemini_server.requests == []


def test_unknown_model(gemini_server, make_manager):
    gemini_server.model_not_found("gemini-9")
    with pytest.raises(ModelNotFound, match="models.critic.model"):
        make_manager(make_config(critic=role("gemini", "gemini-9"))).complete("critic", ASK)


def test_hung_response_times_out(gemini_server, make_manager):
    gemini_server.hang()
    with pytest.raises(ModelTimeout):
        make_manager(make_config(llm_timeout_s=0.3, llm_max_attempts=1)).complete("critic", ASK)


def test_stop_sequences_are_sent_and_the_reply_ends_before_the_first(gemini_server, make_manager):
    gemini_server.reply("the fix\n```\nx = 1\n```\ntests/t.py\n```\nimport pytest\nfrom x import y\n```")
    reply = make_manager().complete("critic", ASK, stop=["import pytest\nfrom x import y"])
    assert gemini_server.requests[0].body["generationConfig"]["stopSequences"] == ["import pytest\nfrom x import y"]
    assert reply.text == "the fix\n```\nx = 1\n```\ntests/t.py\n```\n"


def test_the_output_cap_is_sent_and_max_tokens_reads_as_length(gemini_server, make_manager):
    gemini_server.reply("half of it", finish="length", times=0)  # every continuation is cut too
    reply = make_manager(make_config(llm_max_output_tokens=777)).complete("critic", ASK)
    assert gemini_server.requests[0].body["generationConfig"]["maxOutputTokens"] == 777
    assert reply.finish_reason == "length" and reply.truncated


def test_the_roles_on_one_server_share_one_client_and_its_connection(gemini_server, make_manager):
    gemini_server.set_default("ok")
    manager = make_manager(make_config(coder=role("gemini", "gemini-2.5-flash")))
    for who in ("critic", "coder", "critic"):
        manager.complete(who, ASK)
    assert len(gemini_server.requests) == 3
    assert len({r.client_port for r in gemini_server.requests}) == 1

"""OpenAIChatModel through the real `openai` SDK against a fake server, via ModelManager."""

from __future__ import annotations

from typing import Any

import pytest

from bot.errors import (
    ContextTooLong,
    ModelAuthError,
    ModelNotFound,
    ModelRequestError,
    ModelServerError,
    ModelTimeout,
    QuotaExhausted,
    StructuredReplyError,
    UnreadableReply,
)
from bot.llm import Message, OpenAIChatModel
from bot.llm.types import ChatRequest, Usage
from fakes.model_server import Logged
from fakes.openai_server import FakeOpenAI
from tests.llm.conftest import PLAN, REVIEW, make_config, role, spans

ASK = [Message("system", "You are the coder."), Message("user", "Add a greeting.")]


def test_text_reply_has_usage_cost_and_request_id(openai_server, make_manager):
    openai_server.reply("app.py\n<<<<<<< SEARCH\n=======\nprint('hi')\n>>>>>>> REPLACE", usage=(1000, 200, 400))
    reply = make_manager().complete("coder", ASK)
    assert reply.text.startswith("app.py")
    assert reply.data is None
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cached_tokens) == (1000, 200, 400)
    # gpt-4o-mini: 600 fresh x 0.15 + 400 cached x 0.075 + 200 out x 0.60, per million
    assert reply.cost_usd == pytest.approx((600 * 0.15 + 400 * 0.075 + 200 * 0.60) / 1e6)
    assert reply.request_id == "req_1" and (reply.provider, reply.model) == ("openai", "gpt-4o-mini")
    sent = openai_server.requests[0]
    assert sent.model == "gpt-4o-mini" and sent.messages[-1] == {"role": "user", "content": "Add a greeting."}
    assert sent.body["temperature"] == 0.0


@pytest.mark.parametrize(("schema", "data"), [("plan", PLAN), ("review", REVIEW)])
def test_structured_reply_is_asked_by_schema_name_and_parsed(openai_server, make_manager, schema, data):
    openai_server.reply(data=data, schema=schema)
    config = make_config(critic=role("openai", "gpt-4o-mini"))
    reply = make_manager(config).complete("planner" if schema == "plan" else "critic", ASK, schema=schema)
    assert reply.data == data
    fmt = openai_server.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == schema
    assert fmt["json_schema"]["strict"] is True


def test_rate_limit_honours_retry_after_then_succeeds(openai_server, make_manager, clock, tracer):
    openai_server.rate_limit(retry_after=7)
    openai_server.reply("done")
    reply = make_manager().complete("coder", ASK)
    assert reply.text == "done" and reply.retries == 1
    assert clock.sleeps == [7.0]
    assert [r.status for r in openai_server.requests] == [429, 200]
    assert spans(tracer)[0]["attributes"]["retries"] == 1


def test_server_error_storm_exhausts_retries_with_backoff(openai_server, make_manager, clock):
    openai_server.server_error(times=0)
    with pytest.raises(ModelServerError) as caught:
        make_manager(make_config(llm_max_attempts=4)).complete("coder", ASK)
    assert len(openai_server.requests) == 4
    assert len(clock.sleeps) == 3
    assert all(0 <= s <= 2 ** i for i, s in enumerate(clock.sleeps))  # full jitter under 1, 2, 4 s
    assert "coder (openai/gpt-4o-mini)" in str(caught.value) and "500" in str(caught.value)


def test_total_retry_wait_is_capped(openai_server, make_manager, clock):
    openai_server.rate_limit(retry_after=50, times=0)
    with pytest.raises(Exception, match="rate limited"):
        make_manager(make_config(llm_max_attempts=10, llm_max_retry_wait_s=120)).complete("coder", ASK)
    assert clock.sleeps == [50.0, 50.0]  # a third wait would pass 120 s
    assert len(openai_server.requests) == 3


def test_hung_response_ends_in_timeout(openai_server, make_manager):
    openai_server.hang(times=0)
    with pytest.raises(ModelTimeout, match=r"within 0.3s"):
        make_manager(make_config(llm_timeout_s=0.3, llm_max_attempts=2)).complete("coder", ASK)
    assert len(openai_server.requests) == 2


def test_malformed_json_is_repaired_once(openai_server, make_manager, tracer):
    openai_server.reply('{"summary": "Add a greeting", "files": "app.py"', schema="plan", usage=(100, 10, 0))
    openai_server.reply(data=PLAN, schema="plan", usage=(150, 30, 0))
    reply = make_manager().complete("planner", ASK, schema="plan")
    assert reply.data == PLAN and reply.repaired
    repair = openai_server.requests[1]
    assert repair.messages[-2]["role"] == "assistant"
    assert "not valid JSON" in repair.last_user
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (250, 40)  # both rounds are paid for
    assert spans(tracer)[0]["attributes"]["raw_reply"].startswith('{"summary"')


def test_wrong_shape_is_sent_back_and_a_failed_repair_names_role_and_model(openai_server, make_manager, tracer):
    openai_server.reply(data={"summary": "x", "files": [3], "steps": [], "questions": []}, schema="plan")
    openai_server.reply(data={"files": ["app.py"]}, schema="plan")
    with pytest.raises(StructuredReplyError) as caught:
        make_manager().complete("planner", ASK, schema="plan")
    message = str(caught.value)
    assert "planner (openai/gpt-4o)" in message and "missing required field 'summary'" in message
    assert "$.files[0]: expected string, got an integer" in openai_server.requests[1].last_user
    attributes = spans(tracer)[0]["attributes"]
    assert attributes["raw_repair_reply"] == '{"files": ["app.py"]}'
    assert attributes["tokens_in"] > 0 and attributes["cost_usd"] > 0  # the failed rounds still cost money
    assert spans(tracer)[0]["status"] == "error"


def test_rejected_key_fails_at_once_saying_which_variable(openai_server, make_manager, env):
    env["OPENAI_API_KEY"] = "sk-wrong-key-000000000000"
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY was rejected") as caught:
        make_manager().complete("coder", ASK)
    assert len(openai_server.requests) == 1
    assert "sk-wrong" not in str(caught.value)


def test_missing_model_names_the_model_and_config_key(openai_server, make_manager):
    openai_server.model_not_found("gpt-4o-mini")
    with pytest.raises(ModelNotFound) as caught:
        make_manager().complete("coder", ASK)
    assert "'gpt-4o-mini'" in str(caught.value) and "models.coder.model" in str(caught.value)


def test_context_too_long_and_quota_are_not_retried(openai_server, make_manager):
    openai_server.context_too_long()
    openai_server.quota_exhausted()
    manager = make_manager()
    with pytest.raises(ContextTooLong, match="context window"):
        manager.complete("coder", ASK)
    with pytest.raises(QuotaExhausted, match="add credit"):
        manager.complete("coder", ASK)
    assert len(openai_server.requests) == 2


def test_server_without_json_schema_gets_json_mode_and_validation(make_manager, env):
    from fakes.openai_server import FakeOpenAI

    with FakeOpenAI(supports_json_schema=False) as local:
        local.reply(data=REVIEW)
        env.update(OPENAI_BASE_URL=local.url, OPENAI_API_KEY="")
        reply = make_manager(make_config(critic=role("openai", "qwen2.5-coder"))).complete("critic", ASK, "review")
    assert reply.data == REVIEW and reply.cost_usd == 0.0
    first, second = local.requests
    assert first.status == 400 and second.body["response_format"] == {"type": "json_object"}
    assert '"verdict"' in second.messages[0]["content"]


def test_an_unreadable_body_is_retried_then_an_error_not_a_crash(openai_server, make_manager):
    openai_server.malformed_body(times=0)
    with pytest.raises(UnreadableReply, match="unreadable reply") as caught:
        make_manager().complete("coder", ASK)
    assert "coder (openai/gpt-4o-mini)" in str(caught.value)
    assert len(openai_server.requests) == make_config().llm.max_attempts  # a proxy's hiccup is worth a retry


def test_a_server_that_echoes_the_key_does_not_get_it_into_the_message(openai_server, make_manager, env):
    env["OPENAI_API_KEY"] = openai_server.api_key = "local-key-not-shaped-like-a-token-123"  # a local server's key
    openai_server.fail(401, "invalid api key: local-key-not-shaped-like-a-token-123")
    with pytest.raises(ModelAuthError) as caught:
        make_manager().complete("coder", ASK)
    assert "invalid api key" in str(caught.value) and "local-key-not-shaped" not in str(caught.value)


def test_a_password_in_the_base_url_stays_out_of_messages(openai_server, make_manager, env):
    env["OPENAI_BASE_URL"] = openai_server.url.replace("http://", "http://proxyuser:hunter2-secret@")
    openai_server.server_error(times=0, status=400)
    with pytest.raises(Exception) as caught:  # noqa: B017 - whichever error, its words are what matter
        make_manager().complete("coder", ASK)
    assert "hunter2-secret" not in str(caught.value) and "proxyuser" not in str(caught.value)


def test_a_per_minute_quota_with_retry_after_is_retried(openai_server, make_manager):
    openai_server.fail(429, "You exceeded your current quota for requests per minute.", retry_after=1, times=1)
    openai_server.reply("fine")
    assert make_manager().complete("coder", ASK).text == "fine"
    assert len(openai_server.requests) == 2


def test_the_output_cap_is_sent_and_a_cut_off_reply_says_so(openai_server, make_manager):
    openai_server.reply("half of it", finish="length", times=0)  # every continuation is cut too
    reply = make_manager(make_config(llm_max_output_tokens=1000)).complete("planner", ASK)
    assert openai_server.requests[0].body["max_tokens"] == 1000
    assert reply.finish_reason == "length" and reply.truncated


def test_reasoning_models_get_max_completion_tokens_and_no_temperature(openai_server, make_manager):
    openai_server.reply("done")
    make_manager(make_config(coder=role("openai", "gpt-5-mini"))).complete("coder", ASK, stop=["STOP HERE"])
    body = openai_server.requests[0].body
    assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body and "temperature" not in body
    assert "stop" not in body  # which they refuse


def test_stop_sequences_are_sent_and_the_reply_ends_before_the_first(openai_server, make_manager):
    openai_server.reply("the fix\n```\nx = 1\n```\ntests/t.py\n```\nimport pytest\nfrom x import y\n```")
    stop = ["a", "b", "c", "import pytest\nfrom x import y", "the fifth is not sent"]
    reply = make_manager().complete("coder", ASK, stop=stop)
    assert openai_server.requests[0].body["stop"] == stop[:4]
    assert reply.text == "the fix\n```\nx = 1\n```\ntests/t.py\n```\n" and reply.finish_reason == "stop"


@pytest.mark.parametrize("refusal", [
    (500, "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be 'text' or "
          "'json_object' [type=literal_error, input_value='json_schema', input_type=str]"),  # llama.cpp
    (400, "Invalid 'response_format': json_schema is not supported"),
    (400, "guided decoding is not available for this model"),
    (422, "the grammar backend cannot compile this schema"),
])
def test_a_refused_json_schema_steps_down_whatever_the_status(make_manager, env, clock, refusal):
    from fakes.openai_server import FakeOpenAI

    with FakeOpenAI(supports_json_schema=False, refusal=refusal) as local:
        local.reply(data=REVIEW)
        env.update(OPENAI_BASE_URL=local.url, OPENAI_API_KEY="")
        reply = make_manager(make_config(critic=role("openai", "qwen2.5-coder"))).complete("critic", ASK, "review")
    assert reply.data == REVIEW and clock.sleeps == []  # a refusal is not a server fault to retry
    assert [r.status for r in local.requests] == [refusal[0], 200]
    assert local.requests[1].body["response_format"] == {"type": "json_object"}


def test_what_llama_cpp_refused_is_learned_once_for_every_role_on_that_model(make_manager, env):
    from fakes.openai_server import FakeOpenAI

    with FakeOpenAI.llama_cpp() as local:
        local.reply(data=REVIEW)
        local.reply(data=PLAN)
        local.reply(data=REVIEW)
        env.update(OPENAI_BASE_URL=local.url, OPENAI_API_KEY="")
        config = make_config(planner=role("openai", "qwen2.5-coder-7b"), critic=role("openai", "qwen2.5-coder-7b"))
        assert make_manager(config).complete("critic", ASK, "review").data == REVIEW
        assert make_manager(config).complete("planner", ASK, "plan").data == PLAN  # another manager and role
        other = make_config(critic=role("openai", "llama-3.1-8b"))  # another model there may take the schema
        assert make_manager(other).complete("critic", ASK, "review").data == REVIEW
    assert [r.status for r in local.requests] == [500, 200, 200, 500, 200]
    assert [r.body["response_format"]["type"] for r in local.requests] == [
        "json_schema", "json_object", "json_object", "json_schema", "json_object"]


def test_a_plain_server_fault_is_still_retried_not_taken_for_a_refusal(openai_server, make_manager, clock):
    openai_server.server_error()
    openai_server.reply(data=PLAN, schema="plan")
    reply = make_manager().complete("planner", ASK, schema="plan")
    assert reply.data == PLAN and len(clock.sleeps) == 1
    assert [r.body["response_format"]["type"] for r in openai_server.requests] == ["json_schema", "json_schema"]


def test_an_unrelated_not_supported_error_does_not_change_the_format(openai_server, make_manager):
    openai_server.fail(400, "Unsupported parameter: 'max_tokens' is not supported with this model.")
    with pytest.raises(ModelRequestError, match="max_tokens"):
        make_manager().complete("planner", ASK, schema="plan")
    assert len(openai_server.requests) == 1


class SparseServer(FakeOpenAI):
    """A minimal OpenAI-compatible server: the choices and their text, and nothing else (no id, model, usage,
    finish reason), as small local servers answer."""

    def success_body(self, request: Logged, text: str, usage: tuple[int, int, int], number: int,
                     finish: str = "stop") -> Any:
        return {"choices": [{"message": {"role": "assistant", "content": text}}]}


def test_a_reply_with_choices_alone_is_read_with_what_it_lacks_taken_as_unknown() -> None:
    with SparseServer() as server:
        server.reply("hello")
        model = OpenAIChatModel("local-model", None, base_url=server.url)
        completion = model.complete(ChatRequest("coder", tuple(ASK)))
    assert completion.text == "hello" and completion.usage == Usage() and completion.finish_reason == "stop"
    assert completion.model == "" and completion.request_id == "req_1"  # the x-request-id header


def test_the_roles_on_one_server_share_one_client_and_its_connection(openai_server, make_manager):
    """The planner and the coder on one server and key: one SDK client (the CA bundle read once), whose pooled
    connection carries both roles' requests."""
    openai_server.set_default("ok")
    manager = make_manager()
    for who in ("planner", "coder", "planner"):
        manager.complete(who, ASK)
    models = {r.model for r in openai_server.requests}
    assert models == {"gpt-4o", "gpt-4o-mini"}
    assert len({r.client_port for r in openai_server.requests}) == 1

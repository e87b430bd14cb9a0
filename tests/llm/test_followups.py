"""Follow-up rounds: repairs, failover when a structured reply stays invalid, continuing cut-off replies."""

from __future__ import annotations

import pytest

from bot.errors import StructuredReplyError
from bot.llm import Message
from bot.llm.followups import CONTINUE_PROMPT
from tests.llm.conftest import PLAN, REVIEW, make_config, role, spans

ASK = [Message("system", "You are the critic."), Message("user", "Review the change.")]


def test_a_reply_still_invalid_after_repair_fails_over_to_the_next_model(openai_server, gemini_server,
                                                                          make_manager, tracer):
    openai_server.reply("I think it is fine.", schema="review", times=2)
    gemini_server.reply(f"Sure:\n```json\n{{\"verdict\": \"LGTM\", \"feedback\": \"{REVIEW['feedback']}\"}}\n```")
    config = make_config(critic=role("openai", "gpt-4o-mini", ("gemini", "gemini-2.5-flash")))
    manager = make_manager(config)
    reply = manager.complete("critic", ASK, schema="review")
    assert reply.data == REVIEW and reply.provider == "gemini" and reply.fallback_from == "openai/gpt-4o-mini"
    [fallback] = manager.spend()["fallbacks"]
    assert "StructuredReplyError" in fallback["reason"] and fallback["to"] == "gemini/gemini-2.5-flash"
    critic = manager.spend()["by_role"]["critic"]
    assert (critic["parse_failures"], critic["repaired"], critic["calls"]) == (2, 0, 3)
    assert spans(tracer)[0]["status"] == "ok"


def test_only_the_last_model_failing_raises_with_the_chain_listed(openai_server, gemini_server, make_manager):
    openai_server.reply("no json here", schema="review", times=2)
    gemini_server.reply("nor here", times=2)
    config = make_config(critic=role("openai", "gpt-4o-mini", ("gemini", "gemini-2.5-flash")))
    with pytest.raises(StructuredReplyError) as caught:
        make_manager(config).complete("critic", ASK, schema="review")
    message = str(caught.value)
    assert message.startswith("critic (gemini/gemini-2.5-flash): no valid 'review' reply")
    assert "models.critic.fallback[0].model" in message and "earlier in the fallback chain: openai/gpt-4o-mini" in message
    assert caught.value.raw_reply == "nor here"


def test_a_repair_is_counted(openai_server, make_manager):
    openai_server.reply("Here you go: {\"summary\": ", schema="plan")
    openai_server.reply(data=PLAN, schema="plan")
    manager = make_manager()
    assert manager.complete("planner", ASK, schema="plan").repaired
    planner = manager.spend()["by_role"]["planner"]
    assert (planner["parse_failures"], planner["repaired"], planner["truncated"]) == (1, 1, 0)
    assert manager.spend()["parse_failures"] == 1


def test_a_cut_off_plain_reply_is_continued_and_joined(openai_server, make_manager, tracer):
    openai_server.reply("def greet():\n    return ", finish="length", usage=(100, 50, 0))
    openai_server.reply("'hello'\n", usage=(160, 5, 0))
    manager = make_manager()
    reply = manager.complete("coder", ASK)
    assert reply.text == "def greet():\n    return 'hello'\n" and not reply.truncated
    assert reply.finish_reason == "stop" and reply.usage.input_tokens == 260
    follow = openai_server.requests[1].messages
    assert follow[-2] == {"role": "assistant", "content": "def greet():\n    return "}
    assert follow[-1] == {"role": "user", "content": CONTINUE_PROMPT}
    assert manager.spend()["by_role"]["coder"]["truncated"] == 1
    assert spans(tracer)[0]["attributes"]["truncated"] is False


def test_a_reply_still_cut_off_after_a_continuation_is_marked_truncated(openai_server, make_manager):
    openai_server.reply("more ", finish="length", times=0)
    reply = make_manager().complete("coder", ASK)
    assert reply.text == "more more " and reply.truncated and len(openai_server.requests) == 2
    assert openai_server.requests[1].messages[-2]["content"] == "more "


def test_a_cut_off_reply_that_loops_is_not_continued(openai_server, make_manager):
    openai_server.reply("x = compute()\n" + "    return total\n    total += 1\n" * 40, finish="length")
    reply = make_manager().complete("coder", ASK)
    assert reply.truncated and len(openai_server.requests) == 1


def test_a_continuation_counts_against_the_same_output_cap(openai_server, make_manager):
    openai_server.reply("def greet():\n    return ", finish="length", usage=(100, 1000, 0))
    openai_server.reply("'hello'\n", usage=(160, 5, 0))
    manager = make_manager(make_config(llm_max_output_tokens=1500))
    reply = manager.complete("coder", ASK)
    assert reply.text.endswith("'hello'\n") and openai_server.requests[1].body["max_tokens"] == 500
    openai_server.reply("x = 1\n", finish="length", usage=(100, 1500, 0))
    whole = manager.complete("coder", [*ASK, Message("user", "again")])
    assert whole.truncated and len(openai_server.requests) == 3  # the whole cap used: not continued


def test_a_cut_off_structured_reply_is_told_to_be_shorter(openai_server, make_manager):
    openai_server.reply('{"summary": "Add a greeting", "steps": ["one", "tw', schema="plan", finish="length")
    openai_server.reply(data=PLAN, schema="plan")
    reply = make_manager(make_config(llm_max_output_tokens=500)).complete("planner", ASK, schema="plan")
    assert reply.data == PLAN and reply.repaired
    assert "cut off at the output cap of 500 tokens" in openai_server.requests[1].last_user
    assert "must be shorter" in openai_server.requests[1].last_user

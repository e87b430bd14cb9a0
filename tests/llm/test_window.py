"""Every request fitted to its model's window: the output cap, `prompt_budget`, and refusing what cannot fit."""

from __future__ import annotations

import pytest

from bot.config import PriceSpec
from bot.errors import PromptTooLong, UsageError
from bot.llm import Message
from bot.llm.window import DEFAULT_CONTEXT_WINDOW
from tests.llm.conftest import make_config, role

TINY = (PriceSpec("tiny-local", context_window=4096),)


def test_prompt_budget_is_the_window_less_the_output_cap_and_a_margin(make_manager):
    manager = make_manager(make_config(coder=role("openai", "tiny-local"), planner=role("openai", "llama3.1:8b"),
                                       llm_prices=TINY))
    assert manager.prompt_budget("coder") == 4096 - 2048 - 128  # the cap is at most half the window
    assert DEFAULT_CONTEXT_WINDOW == 8192
    assert manager.prompt_budget("planner") == 8192 - 4096 - 256  # unknown model: the cautious default
    assert manager.prompt_budget("critic") == 1_048_576 - 4096 - 32_768  # gemini-2.5-flash from the table


def test_prompt_budget_is_capped_by_the_token_budget_left(openai_server, make_manager):
    openai_server.reply("ok", usage=(900, 100, 0))
    manager = make_manager(make_config(budget_tokens=5000))
    assert manager.prompt_budget("coder") == 5000
    manager.complete("coder", [Message("user", "hi")])
    assert manager.prompt_budget("coder") == 4000


def test_a_prompt_that_does_not_fit_is_never_sent_and_the_error_names_the_setting(openai_server, make_manager):
    manager = make_manager(make_config(coder=role("openai", "tiny-local"), llm_prices=TINY))
    with pytest.raises(PromptTooLong) as caught:
        manager.complete("coder", [Message("user", "word " * 3000)])
    message = str(caught.value)
    assert isinstance(caught.value, UsageError) and openai_server.requests == []
    assert message.startswith("coder (openai/tiny-local):") and "4,096 tokens" in message
    assert "llm.prices[].context_window" in message and "llm.max_output_tokens" in message


def test_a_prompt_sized_by_prompt_budget_is_sent_with_the_cap(openai_server, make_manager):
    openai_server.reply("ok")
    manager = make_manager(make_config(coder=role("openai", "tiny-local"), llm_prices=TINY))
    text = "x" * int((manager.prompt_budget("coder") - 4) * 3.5)  # the documented estimate for other models
    assert manager.complete("coder", [Message("user", text)]).text == "ok"
    assert openai_server.requests[0].body["max_tokens"] == 2048


def test_a_fallback_with_a_larger_window_takes_a_prompt_the_primary_cannot(openai_server, make_manager):
    openai_server.reply("done", model="gpt-4o-mini")
    config = make_config(coder=role("openai", "tiny-local", ("openai", "gpt-4o-mini")), llm_prices=TINY)
    manager = make_manager(config)
    reply = manager.complete("coder", [Message("user", "word " * 3000)])
    assert reply.model == "gpt-4o-mini" and reply.fallback_from == "openai/tiny-local"
    assert [r.model for r in openai_server.requests] == ["gpt-4o-mini"]
    assert "PromptTooLong" in manager.spend()["fallbacks"][0]["reason"]

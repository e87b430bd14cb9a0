"""`deadline_minutes` bounds the model calls: none is sent after it and none is waited for past it."""

from __future__ import annotations

import time

import pytest

from bot.errors import StopRequested
from bot.llm import Message, ModelManager
from tests.llm.conftest import make_config

ASK = [Message("system", "You are the planner."), Message("user", "Plan the change.")]


def test_a_hanging_call_ends_at_the_deadline_not_at_the_request_timeout(openai_server, env) -> None:
    openai_server.hang(seconds=60)
    manager = ModelManager.from_config(make_config(deadline_minutes=0.03, llm_timeout_s=120), env, None)
    start = time.monotonic()
    with pytest.raises(StopRequested, match="deadline"):
        manager.complete("planner", ASK)
    assert time.monotonic() - start < 15  # 1.8 s of deadline, a retry's backoff; never the 120 s timeout


def test_no_call_is_sent_once_the_deadline_passed(openai_server, env) -> None:
    openai_server.set_default("the plan")
    manager = ModelManager.from_config(make_config(deadline_minutes=0.01), env, None)
    assert manager.complete("planner", ASK).text == "the plan"
    time.sleep(0.7)
    with pytest.raises(StopRequested):
        manager.complete("planner", ASK)
    assert openai_server.count() == 1


def test_a_call_the_deadline_would_cut_off_is_not_sent(openai_server, env) -> None:
    """Each answer takes a minute (the clock moves 60 s with every request the server gets); 150 s of deadline
    leave room for two, and the third would end after it: it is not sent, so no tokens are spent on it."""
    openai_server.set_default("the plan")
    manager = ModelManager.from_config(make_config(deadline_minutes=2.5), env, None,
                                       clock=lambda: 60.0 * openai_server.count())
    assert manager.complete("planner", ASK).text == "the plan"
    assert manager.complete("planner", ASK).text == "the plan"  # 90 s left, the quickest answer took 60 s
    with pytest.raises(StopRequested, match="30 s away and no planner answer to the same instructions so far "
                                            "took less than 60 s"):
        manager.complete("planner", ASK)
    assert openai_server.count() == 2
    assert manager.complete("coder", ASK).text == "the plan"  # another role has no answer to go by yet


def test_a_call_with_other_instructions_is_not_timed_by_another_kind_of_answer(openai_server, env) -> None:
    """A coder asked for whole files answers slowly (a minute here); the same coder asked for edit blocks has
    not answered yet, so with 30 s left that call is sent; one more whole-file call is not."""
    openai_server.set_default("the change")
    manager = ModelManager.from_config(make_config(deadline_minutes=1.5), env, None,
                                       clock=lambda: 60.0 * min(openai_server.count(), 1))
    whole = [Message("system", "Reply with whole files."), Message("user", "Fix it.")]
    blocks = [Message("system", "Reply with edit blocks."), Message("user", "Fix it.")]
    assert manager.complete("coder", whole).text == "the change"  # took 60 s: 30 s are left
    with pytest.raises(StopRequested, match="no coder answer to the same instructions so far took less than 60 s"):
        manager.complete("coder", whole)
    assert manager.complete("coder", blocks).text == "the change"
    # a conversation that goes on in the other format says so in a system message: not timed by the whole answers
    going_on = [*whole, Message("assistant", "the change"), Message("system", "From now on, edit blocks."),
                Message("user", "Tests fail; fix it.")]
    assert manager.complete("coder", going_on).text == "the change"
    assert openai_server.count() == 3


def _sent_cap(server) -> int:  # noqa: ANN001 - the fake server
    body = server.requests[-1].body
    return int(body.get("max_tokens") or body.get("max_completion_tokens"))


def test_a_reply_due_by_a_time_is_cut_to_what_the_model_writes_by_then(openai_server, env) -> None:
    """Each answer takes a minute and writes 600 tokens: 10 a second. A reply due in 25 s gets an output cap of
    250 tokens, and is sent even where a whole answer (a minute) would not fit in the 30 s left."""
    openai_server.reply("the change", usage=(900, 600, 0), times=5)
    manager = ModelManager.from_config(make_config(deadline_minutes=2.5), env, None,
                                       clock=lambda: 60.0 * openai_server.count())
    manager.complete("coder", ASK)
    manager.complete("coder", ASK)  # 30 s are left now
    with pytest.raises(StopRequested, match="took less than 60 s"):
        manager.complete("coder", ASK)
    assert manager.complete("coder", ASK, by=120.0 + 25).text == "the change"
    assert _sent_cap(openai_server) == 250
    assert openai_server.count() == 3


def test_a_reply_due_too_soon_for_a_useful_answer_is_not_asked_for(openai_server, env) -> None:
    openai_server.reply("the change", usage=(900, 600, 0), times=5)
    manager = ModelManager.from_config(make_config(deadline_minutes=10), env, None,
                                       clock=lambda: 60.0 * openai_server.count())
    manager.complete("coder", ASK)
    with pytest.raises(StopRequested, match="a coder reply due in 10 s would hold about 100 tokens"):
        manager.complete("coder", ASK, by=60.0 + 10)
    assert openai_server.count() == 1


def test_a_reply_due_by_a_time_is_not_cut_before_the_model_was_timed(openai_server, env) -> None:
    """Without an answer of the same instructions to measure the model's pace, the request goes as it is (the
    deadline still bounds it)."""
    openai_server.set_default("the change")
    manager = ModelManager.from_config(make_config(deadline_minutes=10), env, None)
    assert manager.complete("coder", ASK, by=time.monotonic() + 5).text == "the change"
    assert _sent_cap(openai_server) > 1000


def test_a_continuation_the_deadline_refuses_leaves_the_reply_cut_off_not_lost(openai_server, env) -> None:
    """The first answer is cut off by the output cap and took a minute; with 30 s left, asking it to continue
    would not end in time: the cut-off part is the reply."""
    openai_server.reply("half of the change", usage=(900, 600, 0), finish="length")
    openai_server.reply("the rest", usage=(900, 600, 0))
    manager = ModelManager.from_config(make_config(deadline_minutes=1.5), env, None,
                                       clock=lambda: 60.0 * openai_server.count())
    reply = manager.complete("coder", ASK)
    assert (reply.text, reply.truncated) == ("half of the change", True)
    assert openai_server.count() == 1


def test_a_reply_cut_short_is_no_measure_of_how_long_a_whole_answer_takes(openai_server, env) -> None:
    """A whole answer took a minute; a reply due in 25 s came in 5 s. With 25 s left, a whole answer is still
    expected to take a minute: it is not asked for."""
    openai_server.reply("the change", usage=(900, 600, 0))
    openai_server.reply("a short change", usage=(900, 50, 0))
    manager = ModelManager.from_config(make_config(deadline_minutes=1.5), env, None,
                                       clock=lambda: (0.0, 60.0, 65.0)[min(openai_server.count(), 2)])
    manager.complete("coder", ASK)
    manager.complete("coder", ASK, by=60.0 + 25)
    with pytest.raises(StopRequested, match="25 s away and no coder answer to the same instructions so far took "
                                            "less than 60 s"):
        manager.complete("coder", ASK)
    assert openai_server.count() == 2


def test_a_capped_reply_that_would_still_end_after_the_deadline_is_refused_for_its_cap(openai_server, env) -> None:
    """An answer takes a minute for 600 tokens (10 a second). With 30 s left, a reply due in 40 s is capped to 400
    tokens, which take 40 s at that pace: not sent, and the refusal says why in those terms."""
    openai_server.reply("the change", usage=(900, 600, 0), times=5)
    manager = ModelManager.from_config(make_config(deadline_minutes=1.5), env, None,
                                       clock=lambda: 60.0 * openai_server.count())
    manager.complete("coder", ASK)
    with pytest.raises(StopRequested, match="30 s away and 400 output tokens take 40 s at the pace of the coder's "
                                            "earlier answers to the same instructions"):
        manager.complete("coder", ASK, by=60.0 + 40)
    assert openai_server.count() == 1

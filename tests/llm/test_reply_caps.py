"""Replies no longer than they need: the output cap each request is sent with, what a reply that outruns it gets, and
a structured reply read only until its answer is complete (bot/llm/manager.py, bot/llm/openai.py), over the fakes'
wire protocols."""

from __future__ import annotations

import json
import time

from bot.llm.manager import MIN_NEED_TOKENS
from bot.llm.openai import AFTER_ANSWER
from bot.llm.schemas import REPLY_TOKENS
from bot.llm.types import Message, ReplyEnd
from fakes.gemini_server import FakeGemini
from fakes.openai_server import FakeOpenAI
from tests.llm.conftest import PLAN, REVIEW, make_config, role

ASK = [Message("system", "You are the planner."), Message("user", "Plan the change.")]
CODE = [Message("system", "You are the coder."), Message("user", "Fix it.")]
RAMBLE = "\n\nThat is the plan. Let me explain each step in detail. " * 80  # about 1,100 fake tokens after the JSON


def test_each_role_is_sent_the_cap_its_reply_can_need_never_above_the_configured_one(
        openai_server: FakeOpenAI, gemini_server: FakeGemini, make_manager) -> None:
    config = make_config(critic=role("gemini", "gemini-2.0-flash"), llm_max_output_tokens=4096)
    manager = make_manager(config)
    openai_server.reply(data=PLAN, schema="plan")
    openai_server.reply("a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE", marker="You are the coder")
    openai_server.reply("a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE", marker="You are the coder")
    gemini_server.reply(data=REVIEW, schema="review")
    manager.complete("planner", ASK, schema="plan")
    manager.complete("coder", CODE, max_tokens=900)  # what the coder's round reckons it can need
    manager.complete("coder", CODE, max_tokens=90_000)  # more than configured: the configured cap
    manager.complete("critic", [Message("user", "Review this.")], schema="review")
    planner, coder, coder_big = openai_server.requests
    assert planner.max_tokens == REPLY_TOKENS["plan"] < 4096
    assert coder.max_tokens == 900 and coder_big.max_tokens == 4096
    assert gemini_server.requests[0].max_tokens == REPLY_TOKENS["review"]
    assert gemini_server.requests[0].body["generationConfig"]["maxOutputTokens"] == REPLY_TOKENS["review"]


def test_a_cap_is_never_below_the_least_a_reply_needs(openai_server: FakeOpenAI, make_manager) -> None:
    openai_server.reply("ok", marker="You are the coder")
    make_manager().complete("coder", CODE, max_tokens=10)
    assert openai_server.requests[0].max_tokens == MIN_NEED_TOKENS


def test_models_that_think_before_answering_get_the_configured_cap(
        openai_server: FakeOpenAI, gemini_server: FakeGemini, make_manager) -> None:
    """Their thoughts count against the cap: a reply capped at what its answer needs would be spent on thinking."""
    config = make_config(planner=role("openai", "o3-mini"), critic=role("gemini", "gemini-2.5-flash"),
                         llm_max_output_tokens=4096)
    manager = make_manager(config)
    openai_server.reply(data=PLAN, schema="plan")
    gemini_server.reply(data=REVIEW, schema="review")
    manager.complete("planner", ASK, schema="plan")
    manager.complete("critic", [Message("user", "Review this.")], schema="review")
    assert openai_server.requests[0].body["max_completion_tokens"] == 4096
    assert gemini_server.requests[0].max_tokens == 4096


def test_a_structured_reply_the_cap_cuts_is_asked_again_with_the_configured_cap_and_the_role_keeps_it(
        openai_server: FakeOpenAI, make_manager) -> None:
    """A local model that thinks out loud, or a long plan: the cut JSON is no answer and the model did nothing wrong,
    so it is asked again with room (not told to be shorter), and later requests of the role get the room at once."""
    long_plan = {**PLAN, "steps": [f"step {n}: change the part of the code that does thing number {n}"
                                   for n in range(80)]}  # about 1,500 fake tokens: more than a plan's cap
    openai_server.reply(data=long_plan, schema="plan", times=2)
    openai_server.reply(data=PLAN, schema="plan")
    manager = make_manager(make_config(llm_max_output_tokens=4096))
    reply = manager.complete("planner", ASK, schema="plan")
    assert reply.data is not None and len(reply.data["steps"]) == 80 and not reply.repaired
    first, again = openai_server.requests
    assert first.max_tokens == REPLY_TOKENS["plan"] and again.max_tokens == 4096
    assert again.messages == first.messages  # the same request, with room: no repair prompt
    manager.complete("planner", [*ASK, Message("user", "Plan again.")], schema="plan")
    assert openai_server.requests[-1].max_tokens == 4096


def test_a_text_reply_the_cap_cuts_is_continued_within_the_configured_cap(
        openai_server: FakeOpenAI, make_manager) -> None:
    whole = "src/a.py\n```python\n" + "".join(f"value_{n} = {n}\n" for n in range(300)) + "```\n"  # ~1,100 tokens
    openai_server.reply(whole, marker="You are the coder")
    openai_server.reply(whole[300 * 4:], marker="You are the coder")  # the rest, after 300 fake tokens
    reply = make_manager(make_config(llm_max_output_tokens=4096)).complete("coder", CODE, max_tokens=300)
    first, rest = openai_server.requests
    assert first.max_tokens == 300 and first.status == 200
    assert "Continue exactly where you stopped" in rest.last_user and 300 < rest.max_tokens <= 4096 - 300
    assert reply.text == whole and reply.finish_reason == "stop" and not reply.truncated


def test_a_model_that_rambles_after_its_json_is_not_read_to_the_end(make_manager, clock) -> None:
    """The reply is streamed and the connection closed once it holds a valid answer: the server writes a few
    tokens more, not the thousand after the JSON (on a local server, the seconds they would take)."""
    with FakeOpenAI(api_key=None) as server:
        server.token_delay_s = 0.002
        answer = json.dumps(REVIEW)
        server.reply(answer + RAMBLE, schema="review")
        config = make_config(critic=role("openai", "gpt-4o-mini"))
        from bot.llm import ModelManager

        manager = ModelManager.from_config(config, server.env(), clock=clock, sleep=clock.sleep)
        reply = manager.complete("critic", [Message("user", "Review this.")], schema="review")
        request = server.requests[0]
        assert reply.data == REVIEW
        waited = time.monotonic() + 5  # the server notices the closed connection at its next write
        while not request.closed_early and time.monotonic() < waited:
            time.sleep(0.01)
        assert request.stream and request.closed_early
        total = (len(answer) + len(RAMBLE)) // 4
        assert request.sent_tokens <= len(answer) // 4 + 2 * AFTER_ANSWER + 8 < total // 5
        assert reply.usage.output_tokens < total // 5  # what was read is what is counted


def test_a_streamed_answer_is_its_whole_object_not_the_first_object_inside_it(make_manager, clock) -> None:
    """A finding closes long before the list of findings does, and alone it would validate as a reply with none:
    the stream is read until the object that opened it closes."""
    from bot.llm import ModelManager

    findings = {"findings": [{"path": "calc.py", "line": 5, "comment": "a negative `b` is dropped: add(2, -1) returns 2"},
                             {"path": "calc.py", "line": 1, "comment": "the docstring is fine"},
                             {"path": "elsewhere.py", "line": 3, "comment": "not in this pull request"}]}
    with FakeOpenAI(api_key=None) as server:
        server.reply(data=findings, schema="findings")
        config = make_config(critic=role("openai", "gpt-4o-mini"))
        manager = ModelManager.from_config(config, server.env(), clock=clock, sleep=clock.sleep)
        reply = manager.complete("critic", [Message("user", "Review this pull request.")], schema="findings")
    assert reply.data == findings


def test_a_streamed_structured_reply_that_ends_with_its_json_brings_the_servers_usage(
        openai_server: FakeOpenAI, make_manager) -> None:
    """A server that ends the reply with its object (one that enforces the schema) sends its usage, cached
    tokens included, after the last piece: it is read, not estimated."""
    openai_server.reply(data=PLAN, schema="plan", usage=(1200, 40, 1024))
    reply = make_manager().complete("planner", ASK, schema="plan")
    assert openai_server.requests[0].stream and not openai_server.requests[0].closed_early
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cached_tokens) == (1200, 40, 1024)
    assert reply.request_id == "req_1"  # the x-request-id header


def test_a_server_that_refuses_to_stream_is_asked_without_streaming(make_manager, clock) -> None:
    from bot.llm import ModelManager

    with FakeOpenAI(api_key=None) as server:
        server.fail(400, "'stream' is not supported by this server", schema="review")
        server.reply(data=REVIEW, schema="review", times=2)
        config = make_config(critic=role("openai", "local-model"))
        manager = ModelManager.from_config(config, server.env(), clock=clock, sleep=clock.sleep)
        assert manager.complete("critic", [Message("user", "Review this.")], schema="review").data == REVIEW
        assert manager.complete("critic", [Message("user", "Again.")], schema="review").data == REVIEW
        assert [r.stream for r in server.requests] == [True, False, False]


LISTING = "Pad the numbers.\n\ntimefmt.py\n```python\n" + "".join(f"value_{n} = {n}\n" for n in range(40)) + "```\n"
CHATTER = "\nWith this change the failing tests pass. " * 60 + "\n\ntests/test_new.py\n```python\nimport timefmt\n```\n"


def _listed(text: str) -> int | None:
    """Where LISTING ends in `text` (as the coder's round says of a reply changing timefmt.py whole)."""
    end = text.find("```\n", text.find("```python") + 1)
    return end + 4 if end >= 0 and "```python" in text else None


def test_a_text_reply_is_read_only_until_the_caller_says_it_is_complete(make_manager, clock) -> None:
    """A small coder goes on after the file it was asked for (a word on the change, a test nobody asked for): the
    reply is streamed and the connection closed once it holds the listing, so a local server stops writing."""
    from bot.llm import ModelManager

    with FakeOpenAI(api_key=None) as server:
        server.token_delay_s = 0.002
        server.reply(LISTING + CHATTER, marker="You are the coder")
        manager = ModelManager.from_config(make_config(), server.env(), clock=clock, sleep=clock.sleep)
        reply = manager.complete("coder", CODE, until=ReplyEnd("the listing of timefmt.py", _listed))
        request = server.requests[0]
        waited = time.monotonic() + 5  # the server notices the closed connection at its next write
        while not request.closed_early and time.monotonic() < waited:
            time.sleep(0.01)
    assert reply.text == LISTING and reply.finish_reason == "stop"
    assert request.stream and request.closed_early
    total = len(LISTING + CHATTER) // 4
    assert request.sent_tokens < len(LISTING) // 4 + 16 < total // 2
    assert reply.usage.output_tokens < total // 2  # what was read is what is counted
    # a local server's own split of its time comes with its last event, which a reply cut short never gets: timed here
    assert reply.timing is not None and reply.timing.reply_s > 0 and reply.timing.prompt_s >= 0


def test_a_reply_that_is_not_streamed_is_cut_where_it_is_complete(
        openai_server: FakeOpenAI, gemini_server: FakeGemini, make_manager, clock) -> None:
    """Gemini's reply is read whole, and so is one from a server that refuses to stream: both are cut where the
    caller says they are complete, so every provider hands back the same reply."""
    from bot.llm import ModelManager

    end = ReplyEnd("the listing of timefmt.py", _listed)
    gemini_server.reply(LISTING + CHATTER)
    config = make_config(coder=role("gemini", "gemini-2.0-flash"))
    assert make_manager(config).complete("coder", CODE, until=end).text == LISTING
    with FakeOpenAI(api_key=None) as server:
        server.fail(400, "'stream' is not supported by this server", marker="You are the coder")
        server.reply(LISTING + CHATTER, marker="You are the coder")
        manager = ModelManager.from_config(make_config(), server.env(), clock=clock, sleep=clock.sleep)
        assert manager.complete("coder", CODE, until=end).text == LISTING
        assert [r.stream for r in server.requests] == [True, False]


def test_a_reply_never_complete_is_read_to_its_end(openai_server: FakeOpenAI, make_manager) -> None:
    """A reply without the listing (a READ request, blocks after all) is the model's whole reply, with its usage."""
    openai_server.reply("READ src/other.py\n", marker="You are the coder", usage=(300, 5, 0))
    reply = make_manager().complete("coder", CODE, until=ReplyEnd("the listing of timefmt.py", _listed))
    assert reply.text == "READ src/other.py\n" and not openai_server.requests[0].closed_early
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (300, 5)

"""What a server refused is remembered across runs in the user's cache: the next run does not pay for it again."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest

from bot.llm.refusals import REMEMBER_DAYS, Refusals, forget_refusals, memory_file
from fakes.openai_server import FakeOpenAI
from tests.llm.conftest import PLAN, REVIEW, make_config, role

ASK_PLAN = "Plan: add a greeting."
MODEL = "qwen2.5-coder-1.5b-instruct"


def local_config():
    return make_config(planner=role("openai", MODEL), coder=role("openai", MODEL), critic=role("openai", MODEL))


def plan_and_review(make_manager) -> None:
    """One run's structured requests: a plan, then a review."""
    from bot.llm import Message

    manager = make_manager(local_config())
    assert manager.complete("planner", [Message("user", ASK_PLAN)], "plan").data == PLAN
    assert manager.complete("critic", [Message("user", "Review it.")], "review").data == REVIEW


def formats(server: FakeOpenAI) -> list[str]:
    return [(r.body.get("response_format") or {}).get("type", "none") for r in server.requests]


def test_a_later_run_on_llama_cpp_sends_no_request_it_refused(make_manager, env):
    with FakeOpenAI.llama_cpp() as local:
        env.update(OPENAI_BASE_URL=local.url, OPENAI_API_KEY="")
        for _ in range(2):
            local.reply(data=PLAN)
            local.reply(data=REVIEW)
        plan_and_review(make_manager)
        assert formats(local) == ["json_schema", "json_object", "json_object"]
        forget_refusals()  # a new process: only the user's cache remembers
        del local.requests[:]
        plan_and_review(make_manager)
    assert formats(local) == ["json_object", "json_object"] and [r.status for r in local.requests] == [200, 200]
    saved = json.loads(memory_file().read_text())
    assert saved["refused"] == [{"server": local.url, "model": MODEL, "refused": "json_schema",
                                 "at": pytest.approx(time.time(), abs=60)}]


def test_a_server_that_accepts_the_schema_is_not_held_back(make_manager, env, openai_server):
    """Other servers, and other models on the same server, still get the schema: the memory is per both."""
    with FakeOpenAI.llama_cpp() as local:
        env.update(OPENAI_BASE_URL=local.url, OPENAI_API_KEY="")
        local.reply(data=PLAN)
        local.reply(data=REVIEW)
        plan_and_review(make_manager)
    forget_refusals()
    env.update(openai_server.env())
    openai_server.reply(data=PLAN, schema="plan")
    openai_server.reply(data=REVIEW, schema="review")
    plan_and_review(make_manager)
    assert formats(openai_server) == ["json_schema", "json_schema"]


def test_a_refusal_is_tried_again_after_some_days(make_manager, env):
    """An upgraded server is asked with the schema again once the entry is older than REMEMBER_DAYS."""
    with FakeOpenAI() as upgraded:
        env.update(OPENAI_BASE_URL=upgraded.url, OPENAI_API_KEY="")
        old = time.time() - REMEMBER_DAYS * 86400 - 60
        memory_file().parent.mkdir(parents=True, exist_ok=True)
        memory_file().write_text(json.dumps({"version": 1, "refused": [
            {"server": upgraded.url, "model": MODEL, "refused": "json_schema", "at": old}]}))
        upgraded.reply(data=PLAN, schema="plan")
        upgraded.reply(data=REVIEW, schema="review")
        plan_and_review(make_manager)
    assert formats(upgraded) == ["json_schema", "json_schema"]


def test_refused_stop_sequences_are_cut_here_and_not_sent_again(make_manager, env):
    from bot.llm import Message

    reply = "calc.py\n```\nx = 1\n```\ntests/test_calc.py\n```\nimport pytest\n```"
    with FakeOpenAI(supports_stop=False) as strict:
        env.update(OPENAI_BASE_URL=strict.url, OPENAI_API_KEY="")
        strict.reply(reply, times=2)
        first = make_manager(local_config()).complete("coder", [Message("user", "Fix it.")], stop=["tests/test_calc"])
        forget_refusals()
        second = make_manager(local_config()).complete("coder", [Message("user", "Fix it.")], stop=["tests/test_calc"])
    assert first.text == second.text == "calc.py\n```\nx = 1\n```\n" and first.finish_reason == "stop"
    assert [r.status for r in strict.requests] == [400, 200, 200]
    assert ["stop" in r.body for r in strict.requests] == [True, False, False]


def test_a_corrupt_memory_is_ignored_with_a_warning_and_replaced(make_manager, env, caplog):
    memory_file().parent.mkdir(parents=True, exist_ok=True)
    memory_file().write_text('{"version": 1, "refused": [{"server": "x"')  # cut off mid-write by another tool
    with FakeOpenAI.llama_cpp() as local, caplog.at_level(logging.WARNING, logger="bot.llm.refusals"):
        env.update(OPENAI_BASE_URL=local.url, OPENAI_API_KEY="")
        local.reply(data=PLAN)
        local.reply(data=REVIEW)
        plan_and_review(make_manager)
    assert f"ignoring {memory_file()}" in caplog.text
    assert [e["refused"] for e in json.loads(memory_file().read_text())["refused"]] == ["json_schema"]


@pytest.mark.parametrize("content", [
    '{"refused": []}',  # no version: not this module's file
    '{"version": 1, "refused": [{"server": "http://h/v1", "model": "m", "refused": "stop"}]}',  # no time
    "[1, 2, 3]",
])
def test_a_file_of_another_shape_is_ignored(tmp_path, caplog, content):
    path = tmp_path / "servers.json"
    path.write_text(content)
    with caplog.at_level(logging.WARNING, logger="bot.llm.refusals"):
        assert Refusals(lambda: path).refused("http://h/v1", "m") == frozenset()
    assert f"ignoring {path}" in caplog.text


def test_runs_learning_at_once_keep_each_others_refusals(tmp_path):
    """Two processes read the file before either learned anything; each write merges the other's."""
    path = tmp_path / "cache" / "servers.json"
    first, second = Refusals(lambda: path), Refusals(lambda: path)
    assert first.refused("http://a/v1", "m") == second.refused("http://b/v1", "m") == frozenset()
    first.learn("http://a/v1", "m", "json_schema")
    second.learn("http://b/v1", "m", "stop")
    third = Refusals(lambda: path)
    assert third.refused("http://a/v1", "m") == {"json_schema"} and third.refused("http://b/v1", "m") == {"stop"}
    assert sorted(p.name for p in path.parent.iterdir()) == ["servers.json"]  # no temporary file left behind
    assert os.stat(path).st_mode & 0o077 == 0  # the owner's alone


def test_an_unwritable_cache_keeps_the_refusal_for_this_run(tmp_path, caplog):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    memory = Refusals(lambda: blocked / "servers.json")
    with caplog.at_level(logging.WARNING, logger="bot.llm.refusals"):
        memory.learn("http://a/v1", "m", "json_schema")
    assert memory.refused("http://a/v1", "m") == {"json_schema"}
    assert "remembered for this run only" in caplog.text


def test_a_password_in_the_base_url_is_not_written(make_manager, env):
    with FakeOpenAI.llama_cpp() as local:
        env.update(OPENAI_BASE_URL=local.url.replace("http://", "http://proxyuser:hunter2-secret@"), OPENAI_API_KEY="")
        local.reply(data=PLAN)
        local.reply(data=REVIEW)
        plan_and_review(make_manager)
    text = memory_file().read_text()
    assert "hunter2-secret" not in text and "proxyuser" not in text and local.url in text


def test_each_test_has_a_memory_of_its_own():
    """What one test's fake server refused never reaches another's (a later fake may reuse the port)."""
    assert not memory_file().exists() and memory_file().parent.parent == Path(os.environ["XDG_CACHE_HOME"])

"""ScriptedChatModel: transcript replay, labelled as replayed."""

from __future__ import annotations

import re

import pytest

from bot.errors import ConfigError, ModelRequestError
from bot.llm import ChatRequest, Message, ScriptedChatModel


def ask(role: str, schema: str | None = None, text: str = "go") -> ChatRequest:
    return ChatRequest(role, (Message("user", text),), schema)


def test_entries_replay_in_order_per_role_and_schema(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([
        '# a demo transcript',
        '{"role": "planner", "schema": "plan", "reply": {"summary": "s", "files": [], "steps": [], "questions": []}}',
        '{"role": "coder", "reply": "first edit"}',
        '',
        '{"role": "coder", "reply": "second edit", "usage": {"input_tokens": 10, "output_tokens": 3}}',
        '{"role": "critic", "reply": "fine", "repeat": true}',
        '{"role": "coder", "reply": "tests fixed", "match": "FAILED"}',
    ]))
    model = ScriptedChatModel.from_file(path)
    assert model.complete(ask("coder", text="FAILED test_x")).text == "first edit"  # file order wins
    second = model.complete(ask("coder"))
    assert second.text == "second edit" and second.replayed and second.usage.input_tokens == 10
    assert model.complete(ask("planner", "plan")).text.startswith('{"summary"')
    assert [model.complete(ask("critic")).text for _ in range(3)] == ["fine"] * 3
    with pytest.raises(ModelRequestError, match="no reply left for role 'coder'"):
        model.complete(ask("coder", text="no match here"))
    assert model.complete(ask("coder", text="1 FAILED")).text == "tests fixed"


@pytest.mark.parametrize(("line", "problem"), [
    ("{not json", "not valid JSON"),
    ('{"role": "coder"}', 'needs "reply"'),
    ('{"role": "coder", "reply": "x", "when": 1}', "unknown keys ['when']"),
])
def test_bad_lines_name_the_file_and_line(tmp_path, line, problem):
    path = tmp_path / "t.jsonl"
    path.write_text('{"reply": "ok"}\n' + line + "\n")
    with pytest.raises(ConfigError, match=re.escape(problem)) as caught:
        ScriptedChatModel.from_file(path)
    assert f"{path}:2" in str(caught.value)


def test_missing_transcript_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="transcript not found"):
        ScriptedChatModel.from_env("missing.jsonl", {}, tmp_path)

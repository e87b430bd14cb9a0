"""Structured replies: the strict schemas sent to providers, and lenient reading of what comes back."""

from __future__ import annotations

import pytest

from bot.llm import EXPLORE_SCHEMA, PLAN_SCHEMA, REVIEW_SCHEMA, SCHEMAS
from bot.llm.schemas import SchemaViolation, get_schema, parse_structured

PLAN_JSON = '{"summary": "Add greet()", "files": ["app.py"], "steps": ["write it"], "questions": []}'
PLAN = {"summary": "Add greet()", "files": ["app.py"], "steps": ["write it"], "questions": []}


def test_schemas_are_the_design_contract_in_openais_strict_shape():
    assert list(SCHEMAS) == ["plan", "review", "explore", "findings"] and get_schema("plan") is PLAN_SCHEMA
    assert PLAN_SCHEMA["required"] == ["summary", "files", "steps", "questions"]
    assert REVIEW_SCHEMA["properties"]["verdict"] == {"type": "string", "enum": ["accept", "revise"]}
    assert EXPLORE_SCHEMA["required"] == ["search", "open", "symbols", "grep", "done"]
    assert EXPLORE_SCHEMA["properties"]["done"] == {"type": "boolean"}
    assert EXPLORE_SCHEMA["properties"]["grep"] == {"type": "array", "items": {"type": "string"}}
    note = SCHEMAS["findings"]["properties"]["findings"]["items"]  # an array of objects, strict all the way down
    assert note["required"] == ["path", "line", "comment"] and note["properties"]["line"] == {"type": "integer"}
    for schema in [*SCHEMAS.values(), note]:
        assert schema["additionalProperties"] is False and schema["required"] == list(schema["properties"])


def test_findings_read_a_sloppy_reply_and_default_to_none():
    reply = '<think>hmm</think> {"findings": [{"path": "calc.py", "line": "4", "comment": "wrong sign", "x": 1}]}'
    assert parse_structured(reply, "findings") == {"findings": [{"path": "calc.py", "line": 4, "comment": "wrong sign"}]}
    assert parse_structured('{"findings": null}', "findings") == {"findings": []}


@pytest.mark.parametrize("text", [
    PLAN_JSON,
    f"Here is the plan:\n{PLAN_JSON}\nLet me know if you want changes.",
    f"```json\n{PLAN_JSON}\n```",
    f"<think>maybe {{\"summary\": \"draft\"}} first</think>\n{PLAN_JSON}",
    f"the template opened the thought {{\"summary\": \"no\"}}</think>{PLAN_JSON}",
    f'{{"note": "not it"}} {PLAN_JSON} {{"summary": "a second plan"}}',
    f'{{"answer": {PLAN_JSON}}}',
    '{"summary": "Add greet()", "files": "app.py", "steps": ["write it"], "extra": {"x": 1}}',
])
def test_the_first_valid_object_is_the_answer_wherever_it_sits(text):
    assert parse_structured(text, "plan") == PLAN


def test_missing_lists_default_to_empty_and_only_summary_and_verdict_are_required():
    assert parse_structured('{"summary": "s"}', "plan") == {"summary": "s", "files": [], "steps": [],
                                                            "questions": []}
    assert parse_structured('{"verdict": "revise"}', "review") == {"verdict": "revise", "feedback": ""}
    assert parse_structured('{"grep": "def greet"}', "explore") == {"search": [], "open": [], "symbols": [],
                                                                    "grep": ["def greet"], "done": False}
    assert parse_structured('{"done": true}', "explore")["done"] is True


@pytest.mark.parametrize(("word", "verdict"), [("ACCEPT", "accept"), (" Approve ", "accept"), ("LGTM", "accept"),
                                               ("reject", "revise"), ("changes_requested", "revise"),
                                               ("Changes requested", "revise"), ("Revise", "revise")])
def test_verdicts_are_read_tolerantly(word, verdict):
    assert parse_structured(f'{{"verdict": "{word}", "feedback": null}}', "review") == {"verdict": verdict,
                                                                                       "feedback": ""}


@pytest.mark.parametrize(("text", "schema", "problem"), [
    ('{"verdict": "maybe", "feedback": ""}', "review", "$.verdict: 'maybe' is not one of 'accept', 'revise'"),
    ('{"feedback": "fine"}', "review", "$: missing required field 'verdict'"),
    ('{"verdict": "accept", "feedback": ["a"]}', "review", "$.feedback: expected string, got an array"),
    ('{"summary": "s", "files": [1]}', "plan", "$.files[0]: expected string, got an integer"),
    ('{"unrelated": 1}', "explore", "has none of the fields search, open, symbols, grep, done"),
    ('["accept"]', "review", "not valid JSON"),
    ("Sure! Here it is", "review", "not valid JSON"),
    ('{"summary": "Add a greeting", "files": ["app.py"', "plan", "not valid JSON"),
])
def test_violations_say_what_was_wrong(text, schema, problem):
    with pytest.raises(SchemaViolation) as caught:
        parse_structured(text, schema)
    assert problem in str(caught.value)


def test_the_first_objects_error_is_reported_when_none_validates():
    with pytest.raises(SchemaViolation, match=r"\$.verdict: 'maybe'"):
        parse_structured('{"verdict": "maybe"} and {"verdict": "perhaps"}', "review")


def test_an_answer_drafted_only_inside_a_reasoning_block_is_not_read():
    with pytest.raises(SchemaViolation, match="not valid JSON"):
        parse_structured('<think>{"verdict": "accept"}</think>I will think more.', "review")


def test_unknown_schema_names_the_choices():
    with pytest.raises(ValueError, match="expected one of plan, review, explore"):
        parse_structured("{}", "verdict")

"""The JSON schemas of structured replies (DESIGN.md, "Model roles and structured replies").

`plan` is the planner's reply and `review` the critic's. Both are strict: every property is
required and no others are allowed, as OpenAI's strict `json_schema` mode demands.
`parse_structured` reads a reply and checks it with a small validator covering exactly the
keywords these schemas use (type, properties, required, additionalProperties, items, enum).
"""

from __future__ import annotations

import json
import re
from typing import Any

PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "files": {"type": "array", "items": {"type": "string"}},
        "steps": {"type": "array", "items": {"type": "string"}},
        "questions": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["summary", "files", "steps", "questions"],
    "additionalProperties": False,
}

REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["accept", "revise"]},
        "feedback": {"type": "string"},
    },
    "required": ["verdict", "feedback"],
    "additionalProperties": False,
}

SCHEMAS: dict[str, dict[str, Any]] = {"plan": PLAN_SCHEMA, "review": REVIEW_SCHEMA}

_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,),
                                       "boolean": (bool,), "number": (int, float), "integer": (int,)}
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


class SchemaViolation(ValueError):
    """A reply is not JSON, or not the shape its schema asks for; the message says where."""


def get_schema(name: str) -> dict[str, Any]:
    """The schema called `name`; a clear error lists the known names."""
    try:
        return SCHEMAS[name]
    except KeyError:
        raise ValueError(f"unknown reply schema {name!r}; expected one of {', '.join(SCHEMAS)}") from None


def parse_structured(text: str, name: str) -> dict[str, Any]:
    """Parse `text` as JSON (a Markdown code fence around it is tolerated) and validate it."""
    schema = get_schema(name)
    match = _FENCE.match(text)
    body = match.group(1) if match else text
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise SchemaViolation(f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    errors = validate(data, schema)
    if errors:
        raise SchemaViolation(f"the reply does not match the {name!r} schema: " + "; ".join(errors))
    return data


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Every way `value` breaks `schema`, as 'path: problem' strings (empty when valid)."""
    expected = schema.get("type")
    if expected and not _is_type(value, expected):
        return [f"{path}: expected {expected}, got {_kind(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {', '.join(map(repr, schema['enum']))}"]
    errors: list[str] = []
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errors += [f"{path}: missing required field {key!r}" for key in schema.get("required", []) if key not in value]
        if schema.get("additionalProperties") is False:
            errors += [f"{path}: unexpected field {key!r}" for key in value if key not in props]
        for key, sub in props.items():
            if key in value:
                errors += validate(value[key], sub, f"{path}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += validate(item, schema["items"], f"{path}[{i}]")
    return errors


def _is_type(value: Any, expected: str) -> bool:
    if isinstance(value, bool) and expected in ("number", "integer"):
        return False
    return isinstance(value, _TYPES[expected])


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)

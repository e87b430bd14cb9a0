"""Structured replies (DESIGN.md, "Model roles and structured replies"): their models, strict schemas, and parsing.

`plan` is the planner's reply, `review` the critic's, `explore` the planner's requests
to look around the repository before planning, and `findings` the critic's line-tied notes on someone's pull request. Each is a Pydantic model that reads sloppy
replies leniently; the JSON schema sent to providers is generated from it in the strict
shape OpenAI's `json_schema` mode demands (every property required, no others allowed).

`parse_structured` reads a reply the way DESIGN.md's "Reading models' replies" says:
reasoning blocks are stripped, then the first balanced JSON object that validates is the
answer (prose, a code fence or a note around it, or a wrapper object, do not matter);
unknown keys are ignored and missing lists default to empty.
"""

from __future__ import annotations

import json
import typing
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from bot.llm.reasoning import strip_reasoning
from bot.llm.types import JsonObject

VERDICT_SYNONYMS = {"approve": "accept", "approved": "accept", "accepted": "accept", "lgtm": "accept",
                    "reject": "revise", "rejected": "revise", "changes_requested": "revise",
                    "request_changes": "revise", "revision": "revise", "needs_revision": "revise"}


def _as_list(value: object) -> object:
    """A lone string where a list belongs becomes a one-item list; null becomes empty."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else value


class _Reply(BaseModel):
    """Shared leniency: unknown keys are ignored, list fields accept a lone string or null."""

    model_config = ConfigDict(extra="ignore")


class Plan(_Reply):
    """The planner's plan; non-empty `questions` means the task is too ambiguous to start."""

    summary: str
    files: list[str] = []
    steps: list[str] = []
    questions: list[str] = []

    _lists = field_validator("files", "steps", "questions", mode="before")(_as_list)


class Review(_Reply):
    """The critic's verdict on a change."""

    verdict: Literal["accept", "revise"]
    feedback: str = ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        word = value.strip().lower().replace(" ", "_").replace("-", "_")
        return VERDICT_SYNONYMS.get(word, word)

    @field_validator("feedback", mode="before")
    @classmethod
    def _feedback(cls, value: object) -> object:
        return "" if value is None else value


class Explore(_Reply):
    """What the planner wants to see: index queries, files, symbols, exact text; `done` when it has enough."""

    search: list[str] = []
    open: list[str] = []
    symbols: list[str] = []
    grep: list[str] = []
    done: bool = False

    _lists = field_validator("search", "open", "symbols", "grep", mode="before")(_as_list)

    @model_validator(mode="before")
    @classmethod
    def _some_known_key(cls, value: object) -> object:
        # with no field required, an object sharing no key with the schema is some other object
        if isinstance(value, dict) and not set(value) & set(cls.model_fields):
            raise ValueError(f"has none of the fields {', '.join(cls.model_fields)}")
        return value


class LineNote(_Reply):
    """One finding of the critic on a pull request, tied to a line of its head."""

    path: str
    line: int
    comment: str


class Findings(_Reply):
    """The critic's findings on someone's pull request (`/ensemble verify` with `verify.review: on`)."""

    findings: list[LineNote] = []

    _lists = field_validator("findings", mode="before")(_as_list)


MODELS: dict[str, type[_Reply]] = {"plan": Plan, "review": Review, "explore": Explore, "findings": Findings}


def strict_schema(model: type[BaseModel]) -> JsonObject:
    """`model`'s JSON schema in OpenAI's strict shape: every property required, no others allowed."""
    hints = typing.get_type_hints(model)
    properties = {name: _json_type(hints[name]) for name in model.model_fields}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _json_type(hint: object) -> JsonObject:
    origin = typing.get_origin(hint)
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return strict_schema(hint)
    if origin is list:
        return {"type": "array", "items": _json_type(typing.get_args(hint)[0])}
    if origin is Literal:
        return {"type": "string", "enum": list(typing.get_args(hint))}
    scalars: dict[object, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}
    return {"type": scalars[hint]}


PLAN_SCHEMA = strict_schema(Plan)
REVIEW_SCHEMA = strict_schema(Review)
EXPLORE_SCHEMA = strict_schema(Explore)
FINDINGS_SCHEMA = strict_schema(Findings)
SCHEMAS: dict[str, JsonObject] = {"plan": PLAN_SCHEMA, "review": REVIEW_SCHEMA, "explore": EXPLORE_SCHEMA,
                                  "findings": FINDINGS_SCHEMA}
# What a structured reply can need, in output tokens: the cap it is asked with (never above llm.max_output_tokens),
# from what its prompt asks for, with room to spare. A plan is a paragraph, the files and up to a dozen short steps
# (a few hundred tokens); an explore request at most four entries in each of four lists; a review a verdict and a
# few sentences that quote a line; findings at most a few notes of a sentence or two (bot/ensemble/prompts.py). A
# reply the cap cuts anyway is asked again with the configured cap (bot/llm/manager.py).
REPLY_TOKENS: dict[str, int] = {"plan": 1024, "explore": 512, "review": 512, "findings": 1024}


class SchemaViolation(ValueError):
    """A reply holds no JSON object of the shape its schema asks for; the message says what was wrong."""


def get_schema(name: str) -> JsonObject:
    """The strict JSON schema called `name`; a clear error lists the known names."""
    try:
        return SCHEMAS[name]
    except KeyError:
        raise ValueError(f"unknown reply schema {name!r}; expected one of {', '.join(SCHEMAS)}") from None


def parse_structured(text: str, name: str) -> JsonObject:
    """The first JSON object in `text` (reasoning stripped) that validates as schema `name`, as plain data."""
    get_schema(name)
    model = MODELS[name]
    first_error: ValidationError | None = None
    for candidate in json_objects(strip_reasoning(text)):
        try:
            return model.model_validate(candidate).model_dump()
        except ValidationError as exc:
            first_error = first_error or exc
    if first_error is None:
        raise SchemaViolation("the reply is not valid JSON: it holds no complete JSON object")
    raise SchemaViolation(f"the reply does not match the {name!r} schema: " + describe(first_error))


def json_objects(text: str) -> list[JsonObject]:
    """Every JSON object that starts at some '{' in `text`, in order (an outer object before its inner ones)."""
    decoder = json.JSONDecoder()
    found: list[JsonObject] = []
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            found.append(value)
        start = text.find("{", start + 1)
    return found


def describe(error: ValidationError) -> str:
    """Pydantic's errors as 'path: problem' phrases a model can act on."""
    return "; ".join(_problem(e) for e in error.errors())


def _problem(error: ErrorDetails) -> str:
    loc = [part for part in error["loc"] if part != "__root__"]
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)
    kind, value = error["type"], error.get("input")
    if kind == "missing":
        parent = path.rsplit(".", 1)[0]
        return f"{parent}: missing required field {loc[-1]!r}"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        return f"{path}: {value!r} is not one of {expected.replace(' or ', ', ')}"
    expected = {"string_type": "string", "list_type": "array", "bool_type": "boolean", "bool_parsing": "boolean",
                "dict_type": "object", "model_type": "object"}.get(kind)
    if expected:
        return f"{path}: expected {expected}, got {_kind(value)}"
    return f"{path}: {str(error['msg']).removeprefix('Value error, ')}"


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)

"""The run's data as JSON, for crossing a process boundary: the task, the config, the plan, the result.

The Action runs the engine in a child process that holds no GitHub token
(`actions/engine_process.py`); what goes in and what comes back is this data and nothing else.
One Pydantic `TypeAdapter` per type reads and writes the dataclasses as they are, nested ones
(`Plan`, `TestOutcome`, `Judgement`, `Reproduction`, `TestChange`, `Retrieved`) and enums
included (an update's job and result, `bot/ensemble/update.py`, and a verification's, `bot/ensemble/verify.py`, too),
so a value read back equals the value written.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import TypeAdapter

from bot.config import Config
from bot.ensemble.types import Plan, RunResult, Task
from bot.ensemble.update import UpdateJob, UpdateResult
from bot.ensemble.verify import VerifyJob, VerifyResult

T = TypeVar("T", Config, Plan, RunResult, Task, UpdateJob, UpdateResult, VerifyJob, VerifyResult)
_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}  # one adapter per type: the dict holds several types


def _adapter(kind: type[Any]) -> TypeAdapter[Any]:
    """The adapter for `kind`, built on first use (a few milliseconds each)."""
    if kind not in _ADAPTERS:
        _ADAPTERS[kind] = TypeAdapter(kind)
    return _ADAPTERS[kind]


def dump(value: Config | Plan | RunResult | Task | UpdateJob | UpdateResult | VerifyJob | VerifyResult) -> object:
    """`value` as JSON-ready data (dicts, lists, strings, numbers)."""
    data: object = _adapter(type(value)).dump_python(value, mode="json")
    return data


def load(kind: type[T], data: object) -> T:
    """A `kind` read back from what `dump` wrote; a ValueError names the field that did not fit."""
    value: T = _adapter(kind).validate_python(data)
    return value

"""Building frozen config dataclasses from plain YAML data, collecting every problem on the way.

`build_checked` walks the data against a dataclass's fields and type hints (bool, int, float, str,
Literal, tuples, mappings, optionals, unions of scalars, nested dataclasses) and the bounds in each field's
metadata (`min`, `max`, `pattern` with a `hint`, `required`; a mapping's `keys` and `items`; `shorthand`: the field a
lone value given for the whole section sets), and reports each problem as a `ConfigIssue` with the file, the
line of the key, the key path, the bad value and what was expected.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import types
import typing
from collections import abc
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

import yaml

from bot.errors import ConfigIssue

T = TypeVar("T")


def build_checked(cls: type[T], data: object, filename: str, root: yaml.Node | None) -> tuple[T, list[ConfigIssue]]:
    """`cls` built from `data` (parsed from the YAML whose node tree is `root`), and every problem found."""
    checker = _Checker(filename, key_lines(root))
    return typing.cast(T, checker.build(cls, data, "")), checker.issues


def key_lines(node: yaml.Node | None, prefix: str = "") -> dict[str, int]:
    """Map each key path ('models.planner.model', 'paths.deny[1]') to its 1-based line."""
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            path = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            lines.setdefault(path, key_node.start_mark.line + 1)
            lines.update(key_lines(value_node, path))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            path = f"{prefix}[{i}]"
            lines[path] = item.start_mark.line + 1
            lines.update(key_lines(item, path))
    return lines


def _describe(value: object) -> str:
    """'a list', 'a string 'abc'': how a bad value reads in a message."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    kinds = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", type(None): "nothing (null)"}
    return f"{kinds.get(type(value), type(value).__name__)} {value!r}"


class _Checker:
    """Builds config dataclasses from plain YAML data, collecting every issue on the way."""

    def __init__(self, filename: str, lines: dict[str, int]):
        self.filename = filename
        self.lines = lines
        self.issues: list[ConfigIssue] = []

    def fail(self, path: str, message: str) -> None:
        line = self.lines.get(path) or self.lines.get(path.rsplit(".", 1)[0])
        self.issues.append(ConfigIssue(self.filename, line, path or "(top level)", message))

    def build(self, cls: type, data: object, path: str, base: Any = None) -> Any:
        short = next((f.name for f in dataclasses.fields(cls) if f.metadata.get("shorthand")), None)
        if short is not None and not isinstance(data, dict | list):  # `verify: auto` for `verify: {when: auto}`
            data = {short: data}
        if not isinstance(data, dict):
            self.fail(path, f"expected a mapping of keys to values, got {_describe(data)}")
            return base if base is not None else cls()
        hints = typing.get_type_hints(cls)
        fields = {f.name: f for f in dataclasses.fields(cls) if not f.metadata.get("internal")}
        values: dict[str, Any] = {}
        for key, value in data.items():
            key_path = f"{path}.{key}" if path else str(key)
            if key not in fields:
                close = difflib.get_close_matches(str(key), list(fields), n=1, cutoff=0.6)
                hint = f"did you mean {close[0]!r}?" if close else f"valid keys here: {', '.join(fields)}"
                self.fail(key_path, f"unknown key; {hint}")
                continue
            default = fields[key].default
            if dataclasses.is_dataclass(default) and isinstance(value, dict):
                # a partly given section keeps its own defaults (critic: {temperature: 0.2} stays gemini)
                converted = self.build(type(default), value, key_path, base=default)
            else:
                converted = self.convert(hints[key], value, key_path, fields[key].metadata)
            if converted is not _INVALID:
                values[key] = converted
        for name, spec in fields.items():
            if spec.metadata.get("required") and name not in data:
                self.fail(f"{path}.{name}" if path else name, f"is required here; {spec.metadata['required']}")
        if base is not None:
            return dataclasses.replace(base, **values)
        return cls(**values)  # keys not given keep the class defaults

    def convert(self, hint: Any, value: Any, path: str, meta: Mapping[str, Any]) -> Any:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            if value is None and type(None) in args:
                return None
            hint = _arm([a for a in args if a is not type(None)], value)
            origin, args = typing.get_origin(hint), typing.get_args(hint)
        if dataclasses.is_dataclass(hint):
            return self.build(typing.cast(type, hint), value, path)
        if origin is Literal:
            if isinstance(value, bool) and ("on" if value else "off") in args:
                return "on" if value else "off"  # YAML 1.1 reads an unquoted on/off as a boolean
            if value in args:
                return value
            noun = "provider" if path.endswith("provider") else "value"
            also = f", {meta['also']}" if "also" in meta else ""
            self.fail(path, f"unknown {noun} {value!r}; expected one of {', '.join(map(str, args))}{also}")
            return _INVALID
        if origin in (abc.Mapping, dict):
            return self.mapping(args[1], value, path, meta)
        if origin is tuple:
            if not isinstance(value, list):
                self.fail(path, f"expected a list, got {_describe(value)}")
                return _INVALID
            if len(value) < meta.get("min_items", 0):
                self.fail(path, f"the list is empty; give at least {meta['min_items']} entry, or remove the key")
                return _INVALID
            items = [self.convert(args[0], item, f"{path}[{i}]", meta.get("items", {})) for i, item in enumerate(value)]
            return _INVALID if _INVALID in items else tuple(items)
        return self.scalar(hint, value, path, meta)

    def mapping(self, hint: Any, value: Any, path: str, meta: Mapping[str, Any]) -> Any:
        """A mapping of names to values of `hint`; `keys` and `items` in `meta` bound the names and the values."""
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping of names to values, got {_describe(value)}")
            return _INVALID
        found = {}
        for key, item in value.items():
            key_path = f"{path}.{key}"
            keys = meta.get("keys", {})
            if not isinstance(key, str) or ("pattern" in keys and not re.match(keys["pattern"], key)):
                self.fail(key_path, f"{key!r} is not a valid name here; expected {keys.get('hint', 'a name')}")
                continue
            found[key] = self.convert(hint, item, key_path, meta.get("items", {}))
        return _INVALID if _INVALID in found.values() or len(found) < len(value) else found

    def scalar(self, hint: type, value: Any, path: str, meta: Mapping[str, Any]) -> Any:
        ok = {
            bool: isinstance(value, bool),
            int: isinstance(value, int) and not isinstance(value, bool),
            float: isinstance(value, int | float) and not isinstance(value, bool),
            str: isinstance(value, str),
        }[hint]
        if not ok:
            expected = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}[hint]
            self.fail(path, f"expected {expected}, got {_describe(value)}")
            return _INVALID
        if hint is float and not math.isfinite(value):
            self.fail(path, f"{value!r} is not a finite number; give a plain number like 2.5")
            return _INVALID
        if "min" in meta and value < meta["min"]:
            self.fail(path, f"{value!r} is below the minimum {meta['min']}; use a value >= {meta['min']}")
            return _INVALID
        if "max" in meta and value > meta["max"]:
            self.fail(path, f"{value!r} is above the maximum {meta['max']}; use a value <= {meta['max']}")
            return _INVALID
        if "pattern" in meta and not re.match(meta["pattern"], str(value)):
            self.fail(path, f"{value!r} is not valid; expected a value {meta.get('hint', meta['pattern'])}")
            return _INVALID
        return float(value) if hint is float else value


def _arm(hints: list[Any], value: Any) -> Any:
    """The member of a union that `value` is meant for: a list goes to the tuple member, a scalar to the member of its
    own type (`str | int`), anything else to the first."""
    lists = [h for h in hints if typing.get_origin(h) is tuple]
    if isinstance(value, list) and lists:
        return lists[0]
    if type(value) in hints:
        return type(value)
    return next((h for h in hints if typing.get_origin(h) is not tuple), hints[0])


_INVALID = object()

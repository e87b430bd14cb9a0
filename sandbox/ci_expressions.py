"""GitHub Actions expressions (`${{ matrix.python }}`, `runner.os == 'Linux'`), evaluated as far as the sandbox can.

The contexts a recipe knows are plain data: the chosen matrix entry, the variables set so far, the
runner (Linux), the job's services and a few `github` fields. A secret is never looked up: `secrets.X`
evaluates to a `SecretRef` the caller decides about (skip the step, or hand it to the setup phase when
`sandbox.setup_env` maps it). Whatever cannot be known here (`steps.*`, `needs.*`, `hashFiles()`)
evaluates to `Unknown`, which reads as an empty string, and is reported.

Grammar (GitHub's): literals (`null`, `true`, `false`, numbers, 'strings'), contexts with `.name`,
`['name']` and `.*`, `!`, `<`, `<=`, `>`, `>=`, `==`, `!=`, `&&`, `||`, parentheses, and the functions
contains, startsWith, endsWith, format, join, toJSON, fromJSON, success, always, failure, cancelled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_TOKEN = re.compile(r"\s*(?:(?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+)|'(?P<string>(?:[^']|'')*)'"
                    r"|(?P<op>&&|\|\||==|!=|<=|>=|[<>!()\[\].,*])|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))")


class ExpressionError(ValueError):
    """An expression that is not valid syntax."""


@dataclass(frozen=True)
class SecretRef:
    """`secrets.NAME`: never resolved to a value here."""

    name: str


@dataclass(frozen=True)
class Unknown:
    """A value the sandbox cannot know (`steps.x.outputs.y`, `hashFiles(...)`): reads as an empty string."""

    what: str


@dataclass
class Evaluation:
    """What evaluating text met along the way: secrets referenced, values that could not be known."""

    secrets: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


Value = object  # str | float | bool | None | dict | list | SecretRef | Unknown


class Partial(dict[str, object]):
    """A context the sandbox knows only part of (`github`, `runner`): a property it lacks is `Unknown`, not null."""

    def __init__(self, name: str, known: Mapping[str, object]):
        super().__init__(known)
        self.name = name


def substitute(text: str, contexts: Mapping[str, object], seen: Evaluation | None = None,
               secret: Callable[[str], str] | None = None) -> str:
    """`text` with every `${{ ... }}` replaced by its value as a string; a secret becomes `secret(name)`
    (default: empty). What was met is added to `seen`."""
    seen = seen if seen is not None else Evaluation()

    def one(match: re.Match[str]) -> str:
        value = evaluate(match.group(1), contexts, seen)
        if isinstance(value, SecretRef):
            return secret(value.name) if secret else ""
        return to_text(value)

    return EXPRESSION.sub(one, text)


def condition(text: str, contexts: Mapping[str, object], seen: Evaluation | None = None) -> bool | None:
    """An `if:` condition (with or without `${{ }}`): True, False, or None when it cannot be known here."""
    seen = seen if seen is not None else Evaluation()
    stripped = text.strip()
    inner = EXPRESSION.fullmatch(stripped)
    before = len(seen.unknown) + len(seen.secrets)
    value = evaluate(inner.group(1) if inner else stripped, contexts, seen)
    if isinstance(value, Unknown | SecretRef) or len(seen.unknown) + len(seen.secrets) > before:
        return None
    return truthy(value)


def evaluate(text: str, contexts: Mapping[str, object], seen: Evaluation | None = None) -> Value:
    """The value of one expression (the text between `${{` and `}}`)."""
    seen = seen if seen is not None else Evaluation()
    parser = _Parser(_tokens(text), contexts, seen)
    value = parser.disjunction()
    if parser.position != len(parser.tokens):
        raise ExpressionError(f"unexpected {parser.tokens[parser.position][1]!r} in expression {text.strip()!r}")
    return value


def to_text(value: Value) -> str:
    """A value as GitHub writes it into text: `true`, `3.11`, '' for null, JSON for objects."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, Unknown | SecretRef):
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def truthy(value: Value) -> bool:
    """GitHub's truthiness: false, 0, '', null (and NaN) are false."""
    if isinstance(value, Unknown | SecretRef):
        return True
    return not (value is None or value is False or value == "" or (isinstance(value, int | float) and value == 0))


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = _TOKEN.match(text, position)
        if not match:
            raise ExpressionError(f"cannot read {text[position:].strip()[:20]!r} in expression {text.strip()!r}")
        kind = match.lastgroup or "op"
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens, evaluating as it goes."""

    def __init__(self, tokens: list[tuple[str, str]], contexts: Mapping[str, object], seen: Evaluation):
        self.tokens = tokens
        self.position = 0
        self.contexts = contexts
        self.seen = seen

    def peek(self, *ops: str) -> bool:
        return self.position < len(self.tokens) and self.tokens[self.position] in (("op", o) for o in ops)

    def take(self, op: str) -> None:
        if not self.peek(op):
            found = self.tokens[self.position][1] if self.position < len(self.tokens) else "the end"
            raise ExpressionError(f"expected {op!r}, found {found!r}")
        self.position += 1

    def disjunction(self) -> Value:
        value = self.conjunction()
        while self.peek("||"):
            self.position += 1
            other = self.conjunction()
            value = value if truthy(value) and not isinstance(value, Unknown) else other
        return value

    def conjunction(self) -> Value:
        value = self.comparison()
        while self.peek("&&"):
            self.position += 1
            other = self.comparison()
            value = other if truthy(value) else value
        return value

    def comparison(self) -> Value:
        value = self.unary()
        while self.peek("==", "!=", "<", "<=", ">", ">="):
            op = self.tokens[self.position][1]
            self.position += 1
            value = _compare(op, value, self.unary())
        return value

    def unary(self) -> Value:
        if self.peek("!"):
            self.position += 1
            value = self.unary()
            return value if isinstance(value, Unknown) else not truthy(value)
        return self.postfix(self.primary())

    def primary(self) -> Value:
        if self.position >= len(self.tokens):
            raise ExpressionError("the expression ends too early")
        kind, text = self.tokens[self.position]
        self.position += 1
        if kind == "number":
            return float(int(text, 16)) if text.startswith("0x") else float(text)
        if kind == "string":
            return text.replace("''", "'")
        if (kind, text) == ("op", "("):
            value = self.disjunction()
            self.take(")")
            return value
        if kind != "name":
            raise ExpressionError(f"unexpected {text!r}")
        literals: dict[str, Value] = {"true": True, "false": False, "null": None}
        if text in literals:
            return literals[text]
        if self.peek("("):
            return self.call(text)
        if text == "secrets":
            return _SECRETS
        if text not in self.contexts:
            return Unknown(text)
        return self.contexts[text]

    def postfix(self, value: Value) -> Value:
        while self.peek(".", "["):
            if self.peek("."):
                self.position += 1
                kind, name = self.tokens[self.position] if self.position < len(self.tokens) else ("", "")
                self.position += 1
                if (kind, name) == ("op", "*"):
                    value = list(value.values()) if isinstance(value, dict) else value
                    continue
                if kind != "name":
                    raise ExpressionError(f"expected a property name after '.', found {name!r}")
            else:
                self.position += 1
                name = to_text(self.disjunction())
                self.take("]")
            value = self.member(value, name)
        return value

    def member(self, value: Value, name: str) -> Value:
        if value is _SECRETS:
            self.seen.secrets.append(name)
            return SecretRef(name)
        if isinstance(value, Unknown):
            what = f"{value.what}.{name}"
            if what.count(".") == 1:
                self.seen.unknown.append(what)
            return Unknown(what)
        if isinstance(value, dict):
            for key, item in value.items():
                if str(key).lower() == name.lower():  # property names are case-insensitive
                    return item
            if isinstance(value, Partial):
                self.seen.unknown.append(f"{value.name}.{name}")
                return Unknown(f"{value.name}.{name}")
            return None
        if isinstance(value, list) and name.isdigit() and int(name) < len(value):
            return value[int(name)]
        return None

    def call(self, name: str) -> Value:
        self.take("(")
        args: list[Value] = []
        while not self.peek(")"):
            args.append(self.disjunction())
            if not self.peek(")"):
                self.take(",")
        self.take(")")
        function = _FUNCTIONS.get(name.lower())
        if function is None or any(isinstance(a, Unknown | SecretRef) for a in args):
            self.seen.unknown.append(f"{name}()")
            return Unknown(f"{name}()")
        return function(args)


_SECRETS: Value = object()


def _number(value: Value) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if value is None:
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or 0)
        except ValueError:
            return float("nan")
    return float("nan")


def _compare(op: str, left: Value, right: Value) -> Value:
    if isinstance(left, Unknown | SecretRef) or isinstance(right, Unknown | SecretRef):
        return Unknown("a comparison")
    if op in ("==", "!="):
        return _equal(left, right) == (op == "==")
    if isinstance(left, str) and isinstance(right, str):
        a, b = left.lower(), right.lower()
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    x, y = _number(left), _number(right)
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


def _equal(left: Value, right: Value) -> bool:
    """GitHub's loose equality: strings ignoring case, objects by identity, anything else as numbers."""
    if isinstance(left, str) and isinstance(right, str):
        return left.lower() == right.lower()
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return left is right
    return _number(left) == _number(right)


def _format(args: list[Value]) -> Value:
    if not args:
        return ""
    texts = [to_text(a) for a in args[1:]]
    return re.sub(r"\{(\d+)\}", lambda m: texts[int(m[1])] if int(m[1]) < len(texts) else m[0],
                  to_text(args[0]).replace("{{", "\0").replace("}}", "\1")).replace("\0", "{").replace("\1", "}")


def _contains(args: list[Value]) -> Value:
    where, what = (args + [None, None])[:2]
    if isinstance(where, list):
        return any(_compare("==", item, what) is True for item in where)
    return to_text(what).lower() in to_text(where).lower()


def _from_json(args: list[Value]) -> Value:
    try:
        value: Value = json.loads(to_text(args[0]) if args else "")
    except json.JSONDecodeError:
        return Unknown("fromJSON()")
    return value


_FUNCTIONS: dict[str, Callable[[list[Value]], Value]] = {
    "contains": _contains,
    "startswith": lambda a: to_text(a[0]).lower().startswith(to_text(a[1]).lower()) if len(a) > 1 else False,
    "endswith": lambda a: to_text(a[0]).lower().endswith(to_text(a[1]).lower()) if len(a) > 1 else False,
    "format": _format,
    "join": lambda a: (to_text(a[1]) if len(a) > 1 else ",").join(map(to_text, a[0]))
    if a and isinstance(a[0], list) else to_text(a[0] if a else ""),
    "tojson": lambda a: json.dumps(a[0] if a else None),
    "fromjson": _from_json,
    "success": lambda a: True,
    "always": lambda a: True,
    "failure": lambda a: False,
    "cancelled": lambda a: False,
}

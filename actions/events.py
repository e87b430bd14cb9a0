"""GitHub event payloads: read GITHUB_EVENT_NAME / GITHUB_EVENT_PATH and keep the fields we use.

The payload is untrusted data. A malformed or truncated one raises `EventError` (exit 2)
naming the field that is missing or of the wrong type; no handler ever sees a half-parsed event.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypedDict

from bot.errors import UsageError

SUPPORTED = ("issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment",
             "workflow_run", "check_suite", "workflow_dispatch", "push")


class EventError(UsageError):
    """The event payload is missing a field, has the wrong type, or is not JSON."""


@dataclass(frozen=True)
class Event:
    """The fields of one event that the handlers need."""

    name: str
    action: str
    repo: str
    sender: str
    sender_is_bot: bool = False
    number: int | None = None
    is_pull: bool = False
    title: str = ""
    body: str = ""
    label: str = ""
    comment_id: int | None = None
    comment_body: str = ""
    review_id: int | None = None
    review_state: str = ""
    review_commit: str = ""  # the commit an approval was given for
    review_body: str = ""
    head_branch: str = ""
    head_sha: str = ""
    conclusion: str = ""
    run_id: int | None = None
    run_attempt: int = 1
    check_suite_id: int | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    delivery: str = ""  # the same for a re-delivered event, different for a new one ('' for manual dispatch)
    default_branch: str = ""  # the repository's, as GitHub sent it with the event ('' when the payload has none)
    author: str = ""  # a pull request's: who opened it
    head_repo: str = ""  # a pull request's or a workflow run's: the repository its head lives in (a fork's)
    trigger: str = ""  # a workflow run's: the event that started it (`pull_request`, `push` ...)
    workflow: str = ""  # a workflow run's: its workflow's name


def load_event(env: Mapping[str, str]) -> Event:
    """Read the event named by GITHUB_EVENT_NAME from the file at GITHUB_EVENT_PATH."""
    name = env.get("GITHUB_EVENT_NAME", "")
    path = env.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        missing = "GITHUB_EVENT_NAME" if not name else "GITHUB_EVENT_PATH"
        raise EventError(f"{missing} is not set; `ensemble handle-event` runs inside GitHub Actions, "
                         "or set both variables to an event name and a payload file")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise EventError(f"GITHUB_EVENT_PATH {path}: cannot read the payload ({exc.strerror})") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EventError(f"GITHUB_EVENT_PATH {path}: not valid JSON at line {exc.lineno} column {exc.colno} "
                         f"({exc.msg}); the payload is malformed or truncated") from None
    return parse_event(name, payload)


class _Common(TypedDict):
    """The fields every event has."""

    name: str
    action: str
    repo: str
    sender: str
    sender_is_bot: bool
    default_branch: str


class _Specific(TypedDict, total=False):
    """The fields one kind of event adds (its parser fills those it has; the others keep `Event`'s defaults)."""

    action: str
    number: int | None
    is_pull: bool
    title: str
    body: str
    label: str
    comment_id: int | None
    comment_body: str
    review_id: int | None
    review_state: str
    review_commit: str
    review_body: str
    head_branch: str
    head_sha: str
    conclusion: str
    run_id: int | None
    run_attempt: int
    check_suite_id: int | None
    inputs: Mapping[str, str]
    delivery: str
    author: str
    head_repo: str
    trigger: str
    workflow: str


def parse_event(name: str, payload: object) -> Event:
    """Parse one payload; unsupported events parse to an Event with only the common fields."""
    if not isinstance(payload, dict):
        raise EventError(f"{name} payload: expected a JSON object at the top level")
    p = _Fields(name, payload)
    common = _Common(name=name, action=p.text("action", optional=True), repo=p.text("repository.full_name"),
                     sender=p.text("sender.login"), sender_is_bot=p.text("sender.type", optional=True) == "Bot",
                     default_branch=p.text("repository.default_branch", optional=True))
    parser = _PARSERS.get(name)
    return replace(Event(**common), **parser(p)) if parser else Event(**common)


class _Fields:
    """Typed access to dotted paths in a payload, raising EventError that names the path."""

    def __init__(self, name: str, payload: dict[str, object]):
        self.name = name
        self.payload = payload

    def get(self, dotted: str, kind: type | tuple[type, ...], optional: bool = False) -> object:
        node: object = self.payload
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node or node[part] is None:
                if optional:
                    return None
                raise EventError(f"{self.name} payload: missing field `{dotted}`; the payload is malformed or truncated")
            node = node[part]
        if not isinstance(node, kind) or (kind is int and isinstance(node, bool)):
            expected = kind.__name__ if isinstance(kind, type) else "value"
            raise EventError(f"{self.name} payload: field `{dotted}` should be {expected}, got {type(node).__name__}")
        return node

    def text(self, dotted: str, optional: bool = False) -> str:
        found = self.get(dotted, str, optional)
        return found if isinstance(found, str) else ""

    def number(self, dotted: str, optional: bool = False) -> int | None:
        found = self.get(dotted, int, optional)
        return found if isinstance(found, int) else None

    def table(self, dotted: str, optional: bool = False) -> dict[str, object] | None:
        found = self.get(dotted, dict, optional)
        return found if isinstance(found, dict) else None


def _issues(p: _Fields) -> _Specific:
    return {"number": p.number("issue.number"), "title": p.text("issue.title"), "body": p.text("issue.body", optional=True),
            "is_pull": p.table("issue.pull_request", optional=True) is not None,
            "label": p.text("label.name", optional=True),
            "delivery": f"issues:{p.number('issue.number')}:{p.text('label.name', optional=True)}:"
                        f"{p.text('issue.updated_at', optional=True)}"}


def _issue_comment(p: _Fields) -> _Specific:
    return _issues(p) | {"label": "", "comment_id": p.number("comment.id"), "comment_body": p.text("comment.body", optional=True),
                         "delivery": f"comment:{p.number('comment.id')}"}


def _review(p: _Fields) -> _Specific:
    return {"number": p.number("pull_request.number"), "is_pull": True, "title": p.text("pull_request.title"),
            "head_branch": p.text("pull_request.head.ref"), "head_sha": p.text("pull_request.head.sha"),
            "review_id": p.number("review.id"), "review_state": p.text("review.state").lower(),
            "review_commit": p.text("review.commit_id", optional=True),
            "review_body": p.text("review.body", optional=True), "delivery": f"review:{p.number('review.id')}"}


def _pull_request(p: _Fields) -> _Specific:
    return {"number": p.number("pull_request.number"), "is_pull": True, "title": p.text("pull_request.title"),
            "body": p.text("pull_request.body", optional=True), "head_branch": p.text("pull_request.head.ref"),
            "head_sha": p.text("pull_request.head.sha"), "author": p.text("pull_request.user.login"),
            "head_repo": p.text("pull_request.head.repo.full_name", optional=True),
            "delivery": f"pull:{p.number('pull_request.number')}:{p.text('pull_request.head.sha')}"}


def _review_comment(p: _Fields) -> _Specific:
    return {"number": p.number("pull_request.number"), "is_pull": True, "head_branch": p.text("pull_request.head.ref"),
            "comment_id": p.number("comment.id"), "comment_body": p.text("comment.body", optional=True),
            "review_id": p.number("comment.pull_request_review_id", optional=True)}


def _workflow_run(p: _Fields) -> _Specific:
    return {"head_branch": p.text("workflow_run.head_branch", optional=True), "head_sha": p.text("workflow_run.head_sha"),
            "conclusion": p.text("workflow_run.conclusion", optional=True), "run_id": p.number("workflow_run.id"),
            "run_attempt": p.number("workflow_run.run_attempt", optional=True) or 1,
            "check_suite_id": p.number("workflow_run.check_suite_id", optional=True),
            "trigger": p.text("workflow_run.event", optional=True), "workflow": p.text("workflow_run.name", optional=True),
            "head_repo": p.text("workflow_run.head_repository.full_name", optional=True),
            "delivery": f"run:{p.number('workflow_run.id')}:{p.number('workflow_run.run_attempt', optional=True) or 1}"}


def _check_suite(p: _Fields) -> _Specific:
    return {"head_branch": p.text("check_suite.head_branch", optional=True), "head_sha": p.text("check_suite.head_sha"),
            "conclusion": p.text("check_suite.conclusion", optional=True), "check_suite_id": p.number("check_suite.id"),
            "delivery": f"suite:{p.number('check_suite.id')}:{p.text('check_suite.updated_at', optional=True)}"}


def _push(p: _Fields) -> _Specific:
    ref = p.text("ref")
    return {"head_branch": ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else "",
            "head_sha": p.text("after"), "delivery": f"push:{p.text('after')}"}


def _dispatch(p: _Fields) -> _Specific:
    inputs = p.table("inputs", optional=True) or {}
    number = str(inputs.get("issue", "") or "").strip()
    if number and not number.isdigit():
        raise EventError(f"workflow_dispatch payload: input `issue` should be an issue number, got {number!r}")
    return {"action": "dispatch", "inputs": {str(k): str(v) for k, v in inputs.items()},
            "number": int(number) if number else None, "head_branch": p.text("ref", optional=True).removeprefix("refs/heads/")}


_PARSERS = {"issues": _issues, "issue_comment": _issue_comment, "pull_request": _pull_request,
            "pull_request_review": _review,
            "pull_request_review_comment": _review_comment, "workflow_run": _workflow_run,
            "check_suite": _check_suite, "workflow_dispatch": _dispatch, "push": _push}

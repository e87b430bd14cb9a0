"""`ScriptedChatModel`: replays a JSONL transcript of replies, for demos and tests.

Everything it returns is labelled `replayed`, and it costs nothing: these are recorded or
hand-written replies, never passed off as a model's work. The config names the transcript
as the model, `{provider: scripted, model: path/to/transcript.jsonl}` (relative to the
repository). One JSON object per line:

    {"role": "planner", "schema": "plan", "reply": {"summary": "…", "files": [], "steps": [], "questions": []}}
    {"role": "coder", "reply": "src/app.py\\n<<<<<<< SEARCH\\n…", "match": "greeting"}
    {"role": "critic", "schema": "review", "reply": {"verdict": "accept", "feedback": "ok"}, "repeat": true}

- `reply` (required): a string (sent as the text) or an object (sent as its JSON text).
- `role`, `schema` (optional): the entry only answers that role / schema; absent means any.
- `match` (optional): the entry only answers a prompt containing this text.
- `repeat` (optional, default false): the entry is not used up, so it answers every match.
- `usage` (optional): `{"input_tokens": n, "output_tokens": n}` to report.

For each request the first unused entry that matches answers it, so a role's entries are
replayed in file order. Blank lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from bot.errors import ConfigError, ConfigIssue, ModelRequestError
from bot.llm.types import ChatRequest, Completion, Usage, cut_reply

ENTRY_KEYS = {"role", "schema", "reply", "match", "repeat", "usage"}


class ScriptedChatModel:
    """Answers from a list of transcript entries, in order."""

    provider = "scripted"
    base_url: str | None = None

    def __init__(self, entries: Iterable[Mapping[str, object]], model: str = "scripted"):
        self.model = model
        self._entries = [dict(e) for e in entries]
        self._used: set[int] = set()
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: Path) -> ScriptedChatModel:
        """Load a transcript; a bad line is a ConfigError naming the file, line and fix."""
        if not path.is_file():
            raise ConfigError([ConfigIssue(str(path), None, "models.*.model",
                                           "scripted transcript not found; give the path of a JSONL file")])
        entries = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError([ConfigIssue(str(path), number, "", f"not valid JSON ({exc.msg})")]) from None
            problem = _entry_problem(entry)
            if problem:
                raise ConfigError([ConfigIssue(str(path), number, "", problem)])
            entries.append(entry)
        return cls(entries, model=str(path))

    @classmethod
    def from_env(cls, model: str, env: Mapping[str, str], base_dir: Path | None = None) -> ScriptedChatModel:
        """The transcript named by `model`, relative to `base_dir` (default: the current directory)."""
        path = Path(model)
        return cls.from_file(path if path.is_absolute() else (base_dir or Path.cwd()) / path)

    def complete(self, request: ChatRequest) -> Completion:
        """The next matching entry's reply, labelled replayed."""
        prompt = "\n".join(m.content for m in request.messages)
        with self._lock:
            for index, entry in enumerate(self._entries):
                if index in self._used or not _matches(entry, request, prompt):
                    continue
                if not entry.get("repeat"):
                    self._used.add(index)
                break
            else:
                raise ModelRequestError(f"the transcript {self.model} has no reply left for role {request.role!r}"
                                        f" with schema {request.schema!r}; add a line for it")
        reply = entry["reply"]
        text = cut_reply(reply, request) if isinstance(reply, str) else json.dumps(reply)
        usage = entry.get("usage")
        return Completion(text=text, usage=Usage(_tokens(usage, "input_tokens"), _tokens(usage, "output_tokens")),
                          request_id=f"scripted-{index + 1}", replayed=True)


def _tokens(usage: object, name: str) -> int:
    """A token count from an entry's `usage` (none given: 0)."""
    return int(usage.get(name, 0)) if isinstance(usage, Mapping) else 0


def _matches(entry: Mapping[str, object], request: ChatRequest, prompt: str) -> bool:
    return (entry.get("role") in (None, request.role) and entry.get("schema") in (None, request.schema)
            and (not entry.get("match") or str(entry["match"]) in prompt))


def _entry_problem(entry: object) -> str | None:
    if not isinstance(entry, dict):
        return "each line must be a JSON object like {\"role\": \"planner\", \"reply\": ...}"
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        return f"unknown keys {sorted(unknown)}; allowed: {', '.join(sorted(ENTRY_KEYS))}"
    if "reply" not in entry or not isinstance(entry["reply"], str | dict):
        return "needs \"reply\": a string or a JSON object"
    return None

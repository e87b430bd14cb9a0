"""The planner (slow thinker): explore the index in up to two rounds, then write the plan.

Exploration is agentic retrieval over our own index: the planner sees the repo map and the
top chunks for the task, and may ask for search queries, files and symbols before planning.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.ensemble import prompts
from bot.ensemble.ports import ModelClient, Retriever
from bot.ensemble.types import Plan, Retrieved, Task

log = logging.getLogger(__name__)
MAX_EXPLORE_ROUNDS = 2
MAX_REQUESTS = 3
OPEN_FILE_CHARS = 12_000
REPRO_RE = re.compile(r"^\s*reproduction test\s*:\s*(.+)$", re.IGNORECASE)
JSON_RE = re.compile(r"\{.*\}", re.DOTALL)


@dataclass
class Exploration:
    """What the planner has read: the repo map, context text and where each piece came from."""

    repo_map: str = ""
    context: list[str] = field(default_factory=list)
    retrieved: list[Retrieved] = field(default_factory=list)

    def add(self, item: Retrieved, text: str) -> None:
        """Add a piece of context unless the same place is already there."""
        key = (item.path, item.start_line, item.end_line)
        if any((r.path, r.start_line, r.end_line) == key for r in self.retrieved):
            return
        self.retrieved.append(item)
        lines = f":{item.start_line}-{item.end_line}" if item.start_line else ""
        self.context.append(f"# {item.path}{lines} ({item.how})\n{text.rstrip()}")

    @property
    def text(self) -> str:
        """All context pieces as one text."""
        return "\n\n".join(self.context)


def explore(models: ModelClient, retriever: Retriever, task: Task, insights: str,
            read_file: Callable[[str], str | None], team: str = "a") -> Exploration:
    """Initial retrieval for the task, then up to two rounds of the planner's own requests."""
    found = Exploration(repo_map=retriever.repo_map(task.text))
    for item, text in retriever.search(task.text, k=6):
        found.add(item, text)
    for round_no in range(1, MAX_EXPLORE_ROUNDS + 1):
        reply = models.complete("planner", prompts.localization_messages(
            task, found.repo_map, found.text, insights, round_no, team))
        requests = parse_requests(reply.text)
        if not any(requests.values()):
            break
        _fulfil(requests, found, retriever, read_file)
    return found


def _fulfil(requests: dict[str, list[str]], found: Exploration, retriever: Retriever,
            read_file: Callable[[str], str | None]) -> None:
    for query in requests["search"]:
        for item, text in retriever.search(query, k=3):
            found.add(Retrieved(item.path, "search", item.score, item.start_line, item.end_line, query), text)
    for path in requests["open"]:
        content = read_file(path)
        if content is None:
            found.context.append(f"# {path}\n(no such file)")
        else:
            found.add(Retrieved(path, "open"), content[:OPEN_FILE_CHARS])
    for name in requests["symbols"]:
        for item, text in retriever.lookup_symbol(name)[:2]:
            found.add(Retrieved(item.path, "symbol", 1.0, item.start_line, item.end_line, name), text)


def parse_requests(text: str) -> dict[str, list[str]]:
    """The planner's exploration request; anything unreadable counts as 'I have enough'."""
    empty: dict[str, list[str]] = {"search": [], "open": [], "symbols": []}
    match = JSON_RE.search(text or "")
    try:
        data = json.loads(match.group(0)) if match else {}
    except json.JSONDecodeError:
        return empty
    if not isinstance(data, dict):
        return empty
    return {key: [str(v) for v in data.get(key, []) if isinstance(v, str | int)][:MAX_REQUESTS]
            if isinstance(data.get(key), list) else [] for key in empty}


# A repository path as it may appear in an instruction to the coder: nothing that could carry text.
SAFE_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}")


def make_plan(models: ModelClient, task: Task, found: Exploration, insights: str, history: str = "",
              team: str = "a") -> Plan:
    """Ask the planner for the `plan` reply and read the reproduction test out of it."""
    reply = models.complete("planner", prompts.planner_messages(task, found.repo_map, found.text, insights, history, team),
                            schema="plan")
    return parse_plan(reply.data or {})


def parse_plan(data: dict) -> Plan:
    """A `Plan` from the schema's fields; the step 'Reproduction test: PATH' names the test."""
    steps = tuple(str(s) for s in data.get("steps", []))
    repro, reason = None, "the plan named no reproduction test"
    for step in steps:
        match = REPRO_RE.match(step)
        if match:
            value = match.group(1).strip().strip("`'\"")
            if value.lower().startswith("none"):
                reason = value[4:].strip(" -:—") or "the planner found no way to test it"
            else:
                repro, reason = value.split()[0].split("::")[0].strip("`'\""), ""
                if not SAFE_PATH.fullmatch(repro) or ".." in repro.split("/"):
                    repro, reason = None, "the plan's reproduction test path is not a plain repository path"
            break
    return Plan(summary=str(data.get("summary", "")), files=tuple(str(f) for f in data.get("files", [])),
                steps=steps, questions=tuple(str(q) for q in data.get("questions", []) if str(q).strip()),
                reproduction_test=repro, no_test_reason=reason)

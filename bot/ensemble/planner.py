"""The planner (slow thinker): explore the repository until the code is found, then write the plan.

Exploration is agentic retrieval: the planner sees the repo map and the top chunks for the
task, and asks in rounds for index searches, exact-text searches (`git grep`), files and
symbols (the `explore` reply), until it says it has enough (`done`), a round brings nothing
new, or the budget (rounds, tokens of context gathered) runs out.

`plan_task` is the one way a task is planned, by a team and for plan approval alike: exploring
within the repository's `explore` limits (answering the planner's exact-text requests), then the
plan; a re-plan explores further from what was read, with what the rounds taught.

A direct attempt needs no planner call: `first_look` is the retrieval alone, and `direct_plan`
names the files the coder should see, from the frames of the failing tests' tracebacks, the
paths the task names and the retrieval ranking, in that order.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TypedDict

from bot.config import ExploreSpec
from bot.ensemble import prompts
from bot.ensemble.asking import ask
from bot.ensemble.coder import DEFINITION, PATH_LINE
from bot.ensemble.instructions import Instructions
from bot.ensemble.ports import ModelClient, ModelReply, Retriever
from bot.ensemble.types import Exploration, Plan, Retrieved, Task
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import StructuredReplyError
from bot.llm.schemas import SchemaViolation, parse_structured
from bot.llm.types import Message
from common.languages import is_code
from common.testfiles import is_test_path

log = logging.getLogger(__name__)
MAX_REQUESTS = 4  # of each kind per exploration round
OPEN_FILE_CHARS = 12_000
REPRO_RE = re.compile(r"^\s*reproduction test\s*:\s*(.+)$", re.IGNORECASE)
RequestKind = Literal["search", "open", "symbols", "grep"]
REQUEST_KINDS: tuple[RequestKind, ...] = ("search", "open", "symbols", "grep")
DIRECT_FILES = 2  # source files a direct attempt shows the coder (the failing tests' files come on top)
ReadFile = Callable[[str], str | None]
Grep = Callable[[str], list[tuple[str, int, str]]]


@dataclass(frozen=True)
class TaskPlanner:
    """What planning a task takes: the planner's models, the index, the checkout (its files are read and searched
    for exact text), how far to explore (`explore` in the config), the repository's conventions, and the notes
    the planner reads (lessons, the other teams' notes: read anew at each call)."""

    models: ModelClient
    retriever: Retriever
    root: Path
    grep: Grep
    budget: ExploreSpec = ExploreSpec()
    instructions: Instructions = Instructions()
    team: str = "a"
    notes: Callable[[], str] = lambda: ""


def plan_task(planner: TaskPlanner, task: Task, found: Exploration | None = None, history: str = "",
              before_planning: Callable[[], None] = lambda: None,
              explore_while: Callable[[], bool] = lambda: True) -> tuple[Exploration, Plan]:
    """Explore the task, then plan it: what was read, and the plan.

    Retrieval and the planner's own requests (`explore`, while `explore_while()` holds: a re-plan's share of the
    time left) come first; `before_planning` is called between the two (a progress report, a stop check). The
    planner explores only while what was read lacks a source file: in a small repository retrieval alone reads
    every one, and each exploring request would ask for what it has (on the local 1.5B planner, two such requests
    took 54 s of a 150 s task: bench/peers.py's model.jsonl). Given `found` and `history` (a re-plan), exploring
    goes on from what was read, with what the rounds taught. An approved plan (`task.plan`) is binding: the planner is not asked for a
    first plan, and a re-plan only adds to it.
    """
    files = WorkspaceFiles(planner.root)
    first = found is None
    found = found or first_look(planner.retriever, task)
    if not _all_code_read(files, found):
        found = explore(planner.models, planner.retriever, task, planner.notes(), files.read, planner.team,
                        grep=planner.grep, budget=planner.budget, history=history, found=found,
                        conventions=planner.instructions.applying_to(()).render(), keep_going=explore_while)
    before_planning()
    if first and task.plan:
        return found, task.plan
    plan = make_plan(planner.models, task, found, planner.notes(), history, planner.team,
                     planner.instructions.applying_to(r.path for r in found.retrieved).render())
    return found, _refined(task.plan, plan) if task.plan else plan


def _all_code_read(files: WorkspaceFiles, found: Exploration) -> bool:
    """True when what was read already includes every source file outside the tests (a small repository):
    a planner call to explore it would only ask for what it has."""
    read = {r.path for r in found.retrieved}
    code = [p for p in files if is_code(p) and not is_test_path(p)]
    return bool(code) and all(p in read for p in code)


def _refined(approved: Plan, new: Plan) -> Plan:
    """The approved plan with the new plan's other steps and files added after its own."""
    steps = approved.steps + tuple(f"(refinement) {s}" for s in new.steps if s not in approved.steps)
    files = approved.files + tuple(f for f in new.files if f not in approved.files)
    return replace(approved, steps=steps, files=files)


def explore(models: ModelClient, retriever: Retriever, task: Task, insights: str, read_file: ReadFile,
            team: str = "a", grep: Grep | None = None, budget: ExploreSpec | None = None,
            history: str = "", found: Exploration | None = None, conventions: str = "",
            keep_going: Callable[[], bool] = lambda: True) -> Exploration:
    """Retrieval for the task, then the planner's own requests until it has enough, the budget ends, or
    `keep_going()` says no more (a re-plan's share of the time left is spent).

    Passing `found` (a re-plan) keeps what was read and explores further with the run's history;
    `conventions` are the repository's instructions (bot/ensemble/instructions.py), rendered.
    """
    budget = budget or ExploreSpec()
    if found is None:
        found = first_look(retriever, task)
    for round_no in range(1, budget.max_rounds + 1):
        if found.tokens >= budget.max_tokens:
            log.info("team %s: exploration stops at its token budget (%d tokens read)", team, found.tokens)
            break
        if not keep_going():
            log.info("team %s: exploration stops at its share of the time left", team)
            break
        try:
            def asking(size: int, n: int = round_no) -> list[Message]:
                return prompts.localization_messages(task, found.repo_map, found.text, insights, n, team,
                                                     budget.max_rounds, history, size, conventions)

            reply = ask(models, "planner", asking, models.prompt_budget("planner"), schema="explore")
        except StructuredReplyError as exc:  # exploring is optional: plan with what was found
            log.warning("team %s: exploration reply unreadable (%s); planning with what was found", team, exc)
            break
        requests = read_requests(reply)
        if requests["done"] or not any(requests[k] for k in REQUEST_KINDS):
            break
        before = len(found.context)
        _fulfil(requests, found, retriever, read_file, grep)
        if len(found.context) == before:
            break  # nothing new came of the requests: asking again would not help
    return found


def first_look(retriever: Retriever, task: Task) -> Exploration:
    """What retrieval alone finds for the task: the ranked repo map and the top chunks. No model call."""
    found = Exploration(repo_map=retriever.repo_map(task.text))
    for item, text in retriever.search(task.text, k=6):
        found.add(item, text)
    return found


def direct_plan(task: Task, found: Exploration, failures: str, read: Callable[[str], str | None]) -> Plan:
    """A plan without a planner call, for a direct attempt: the source files to show the coder.

    The frames of the failing tests' tracebacks (`failures`) point at the code that runs wrong,
    a path the task names is where its reporter looked, and retrieval ranks the rest; test files
    are left out (the failing tests' own files are shown with the test output). A file that defines what the task
    names comes first: a small coder sends the first file it is shown, and
    a failure the task calls unrelated (a service the test machines cannot reach) named its file first
    (bench/peers.py, slugify_preexisting_failure: 11 requests, every one sending that file back).
    """
    def exists(path: str) -> bool:
        return read(path) is not None

    named = [path for text in (failures, task.text) for path in mentioned_paths(text, exists)]
    ranked = [r.path for r in found.retrieved]
    files = [p for p in dict.fromkeys([*named, *ranked]) if not is_test_path(p) and exists(p)]
    words = set(re.findall(r"[A-Za-z_]\w{2,}", task.text))
    files.sort(key=lambda path: not _defines_any(read(path) or "", words))  # stable: else frames, task, retrieval
    return Plan(summary="", files=tuple(files[:DIRECT_FILES]), no_test_reason="a direct attempt: the failing tests "
                "are the reproduction")


def _defines_any(text: str, names: set[str]) -> bool:
    """Whether `text` defines a function or type of one of `names`."""
    return any(m is not None and m["name"] in names for m in map(DEFINITION.match, text.splitlines()))


def mentioned_paths(text: str, exists: Callable[[str], bool]) -> list[str]:
    """Repository files that `text` names as `path:LINE` or in a traceback's `File "path"` (absolute paths are
    matched by their tail: `/srv/app/pkg/mod.py` is `pkg/mod.py` when that file exists)."""
    found = []
    for m in PATH_LINE.finditer(text):
        parts = [part for part in (m["path"] or m["tpath"]).replace("\\", "/").split("/") if part not in ("", ".")]
        tails = ("/".join(parts[i:]) for i in range(len(parts)))
        path = next((t for t in tails if t and exists(t)), None)
        if path is not None:
            found.append(path)
    return list(dict.fromkeys(found))


class ExploreRequests(TypedDict):
    """The planner's `explore` reply as the loop acts on it: at most MAX_REQUESTS of each kind, and whether it is done."""

    search: list[str]
    open: list[str]
    symbols: list[str]
    grep: list[str]
    done: bool


def _fulfil(requests: ExploreRequests, found: Exploration, retriever: Retriever, read_file: ReadFile,
            grep: Grep | None) -> None:
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
    for text in requests["grep"]:
        hits = grep(text) if grep is not None else []
        if not hits:
            found.context.append(f"# exact text {text!r}\n(no matches)")
            continue
        listing = "\n".join(f"{path}:{line}: {code}" for path, line, code in hits)
        found.add(Retrieved(hits[0][0], "grep", 1.0, hits[0][1], hits[0][1], text[:80]),
                  f"exact text {text!r} ({len(hits)} matches):\n{listing}")


def read_requests(reply: ModelReply) -> ExploreRequests:
    """The planner's `explore` request from a reply: its parsed data, else its text read leniently."""
    if reply.data is None:
        return parse_requests(reply.text or "")
    return _normalise(reply.data)


def parse_requests(text: str) -> ExploreRequests:
    """The exploration request in `text` (reasoning, prose and fences tolerated); unreadable means done."""
    try:
        return _normalise(parse_structured(text, "explore"))
    except SchemaViolation as exc:
        log.info("the planner's exploration reply could not be read (%s); planning with what was found", exc)
        return _normalise({"done": True})


def _normalise(data: Mapping[str, object]) -> ExploreRequests:
    return ExploreRequests(search=_requested(data, "search"), open=_requested(data, "open"),
                           symbols=_requested(data, "symbols"), grep=_requested(data, "grep"),
                           done=bool(data.get("done")))


def _requested(data: Mapping[str, object], kind: RequestKind) -> list[str]:
    values = data.get(kind) or []
    listed = values if isinstance(values, list | tuple) else []
    return [str(v) for v in listed if isinstance(v, str | int)][:MAX_REQUESTS]


# A repository path as it may appear in an instruction to the coder: nothing that could carry text.
SAFE_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}")


def make_plan(models: ModelClient, task: Task, found: Exploration, insights: str, history: str = "",
              team: str = "a", conventions: str = "") -> Plan:
    """Ask the planner for the `plan` reply and read the reproduction test out of it."""
    reply = ask(models, "planner", lambda size: prompts.planner_messages(
        task, found.repo_map, found.text, insights, history, team, size, conventions),
        models.prompt_budget("planner"), schema="plan")
    return parse_plan(reply.data or {})


def parse_plan(data: Mapping[str, object]) -> Plan:
    """A `Plan` from the schema's fields; the step 'Reproduction test: PATH' names the test."""
    steps = _texts(data.get("steps"))
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
    return Plan(summary=str(data.get("summary", "")), files=_texts(data.get("files")),
                steps=steps, questions=tuple(q for q in _texts(data.get("questions")) if q.strip()),
                reproduction_test=repro, no_test_reason=reason)


def _texts(value: object) -> tuple[str, ...]:
    """A list field of a reply as strings (the schema made it a list; anything else reads as empty)."""
    return tuple(str(item) for item in value) if isinstance(value, list | tuple) else ()

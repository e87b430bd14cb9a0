"""Scripted models for the ensemble loop, and a run of the sample median() task with them.

The retriever and the test runner they run with, and the replies, are in `fakes` (bench/ uses them too)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.ensemble.coder import HIDDEN_CHECK_GOAL
from bot.ensemble.demo import create_sample_repo
from bot.ensemble.types import Task
from bot.errors import ModelError
from bot.llm.budget import SpendSummary, no_spend
from bot.llm.types import ReplyEnd, cut_at_stop
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO

PROMPT_BUDGET = 24_000  # tokens a scripted model takes as a prompt
HIDDEN_ASK = HIDDEN_CHECK_GOAL.split("{", 1)[0]  # what the hidden check's request says: scripted as ("coder", "hidden")


@dataclass
class Said:
    text: str
    data: dict[str, Any] | None = None
    finish_reason: str = "stop"
    truncated: bool = False


def team_of(messages: Sequence[Any]) -> str:
    """The team a request is for: prompts name it last ("(You are the coder of team b.)"), after what the teams share."""
    return re.findall(r"of team (\w)", "\n".join(m.content for m in messages))[-1]


class ScriptedModels:
    """Replies per (role, schema) in order; a reply may be an exception to raise. Records every call."""

    def __init__(self, script: dict[tuple[str, str | None], list[Any]], team: str | None = None):
        self.script = {k: list(v) for k, v in script.items()}
        self.calls: list[tuple[str, str | None, str]] = []
        self.prompts: list[tuple[str, list[Any]]] = []  # (role, messages) of every call
        self.temperatures: list[float | None] = []  # the temperature each call asked for (None: the model's own)
        self.stops: list[tuple[str, ...]] = []  # the stop sequences each call sent
        self.due: list[float | None] = []  # the time each call's reply was due by (None: no short round)
        self.caps: list[int | None] = []  # what each call said its reply can need (None: the model's own cap)
        self.ends: list[ReplyEnd | None] = []  # where each call said its reply is complete
        self.unanswered: list[tuple[str, list[Any]]] = []  # hidden-check requests the script has no reply for
        self.lock = threading.Lock()

    def complete(self, role: str, messages: Sequence[Any], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> Said:
        with self.lock:
            team = team_of(messages)
            if HIDDEN_ASK in messages[-1].content:  # the hidden check's request (bot/ensemble/judge/hidden.py)
                schema = "hidden"
                if self.unscripted_hidden(messages):
                    # a script without one: the model cannot write it, and the request is kept apart from the
                    # conversation the script is about
                    self.unanswered.append((role, list(messages)))
                    raise ModelError("no hidden check is scripted")
            self.calls.append((role, schema, team))
            self.prompts.append((role, list(messages)))
            self.temperatures.append(temperature)
            self.stops.append(tuple(stop))
            self.due.append(by)
            self.caps.append(max_tokens)
            self.ends.append(until)
            queue = self.script.get((role, schema, team)) or self.script.get((role, schema)) or []
            if not queue:
                raise AssertionError(f"no scripted reply left for {role}/{schema}/team {team}")
            reply = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Said):
            return reply
        if isinstance(reply, dict):
            return Said(json.dumps(reply), reply)
        text = cut_at_stop(reply, tuple(stop))  # as a server sent the stop sequences answers
        return Said(until.cut(text) if until is not None else text)  # and as a client reads it to where it is complete

    def unscripted_hidden(self, messages: Sequence[Any]) -> bool:
        """Whether `messages` ask for a hidden check the script has no reply for (answered at once, by an error)."""
        if HIDDEN_ASK not in messages[-1].content:
            return False
        team = team_of(messages)
        return not (self.script.get(("coder", "hidden", team)) or self.script.get(("coder", "hidden")))

    def prompt_budget(self, role: str) -> int:
        return PROMPT_BUDGET

    def has_role(self, role: str) -> bool:
        return "@" not in role  # one model for every team

    def spend(self) -> SpendSummary:
        return no_spend()  # a scripted script costs nothing


MEDIAN_TASK = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3; expected 2.5.",
                   slug="median")


def run_scripted(sample: Path, script: dict, ensembles: int = 1, **config: object) -> tuple[Any, ScriptedModels]:
    """`run_task` of MEDIAN_TASK on `sample` with the scripted models, file retrieval and pytest on the host."""
    from bot.config import Config
    from bot.ensemble.runner import Components, run_task

    models = ScriptedModels(script)
    parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest())
    return run_task(sample, MEDIAN_TASK, Config(ensembles=ensembles, **config), {}, parts), models


def happy_script() -> dict:
    return {("planner", "explore"): ['{"search": ["median"], "open": ["stats/core.py"], "symbols": ["median"]}', ENOUGH],
            ("planner", "plan"): [PLAN], ("coder", None): [REPRO, FIX], ("critic", "review"): [ACCEPT]}


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """The demo's sample repository, with one module more that the task's words do not find: retrieval alone does
    not read all of its code, so the planner explores (planner.plan_task)."""
    repo = create_sample_repo(tmp_path / "sample")
    (repo / "stats" / "fmt.py").write_text('def percent(share):\n    return f"{share:.0%}"\n')
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "Percentages"], cwd=repo, check=True)
    return repo

"""Deterministic parts for the ensemble loop: scripted replies, a file-listing retriever, pytest on the host."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.ensemble.adapters import compile_check
from bot.ensemble.demo import create_sample_repo
from bot.ensemble.types import Retrieved, Task, TestOutcome
from bot.llm.budget import SpendSummary, no_spend

PROMPT_BUDGET = 24_000  # tokens a scripted model takes as a prompt


@dataclass
class Said:
    text: str
    data: dict[str, Any] | None = None
    finish_reason: str = "stop"
    truncated: bool = False


class ScriptedModels:
    """Replies per (role, schema) in order; a reply may be an exception to raise. Records every call."""

    def __init__(self, script: dict[tuple[str, str | None], list[Any]], team: str | None = None):
        self.script = {k: list(v) for k, v in script.items()}
        self.calls: list[tuple[str, str | None, str]] = []
        self.prompts: list[tuple[str, list[Any]]] = []  # (role, messages) of every call
        self.lock = threading.Lock()

    def complete(self, role: str, messages: Sequence[Any], schema: str | None = None,
                 temperature: float | None = None) -> Said:
        with self.lock:
            team = re.search(r"of team (\w)", messages[0].content).group(1)
            self.calls.append((role, schema, team))
            self.prompts.append((role, list(messages)))
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
        return Said(reply)

    def prompt_budget(self, role: str) -> int:
        return PROMPT_BUDGET

    def has_role(self, role: str) -> bool:
        return "@" not in role  # one model for every team

    def spend(self) -> SpendSummary:
        return no_spend()  # a scripted script costs nothing


class FileRetriever:
    """Returns whole files whose text mentions a query word; no index needed."""

    embed = None  # no embedding model: the lessons store matches by words

    def __init__(self, root: Path):
        self.root = root

    def search(self, query: str, k: int = 8) -> list[tuple[Retrieved, str]]:
        words = set(re.findall(r"\w{4,}", query.lower()))
        hits = []
        for path in sorted(self.root.rglob("*.py")):
            text = path.read_text()
            if words & set(re.findall(r"\w{4,}", text.lower())):
                hits.append((Retrieved(str(path.relative_to(self.root)), "search", 1.0, 1, text.count("\n")), text))
        return hits[:k]

    def lookup_symbol(self, name: str) -> list[tuple[Retrieved, str]]:
        return [h for h in self.search(name) if f"def {name}" in h[1]]

    def repo_map(self, query: str, max_tokens: int = 1500) -> str:
        return "\n".join(str(p.relative_to(self.root)) for p in sorted(self.root.rglob("*.py")))


class HostPytest:
    """Runs pytest on the host in the workspace (our own sample code only), with per-test results."""

    environment = "pytest on the host"

    def __init__(self) -> None:
        self.runs = 0
        self.known: list[frozenset[str]] = []  # the known failures each run was given
        self.overlays: list[dict[str, bytes | None]] = []  # what the judge put over the tree in each run

    def compile_check(self, workspace: Path, paths: Sequence[str]) -> str:
        return compile_check(workspace, paths)

    def run_tests(self, workspace: Path, known_failures: Collection[str] = (),
                  files: Mapping[str, bytes | None] | None = None) -> TestOutcome:
        from sandbox.results import parse_junit_xml
        from sandbox.workspace import EXCLUDED, write_overlay

        self.runs += 1
        self.known.append(frozenset(known_failures))
        self.overlays.append(dict(files or {}))
        with tempfile.TemporaryDirectory() as out:
            junit = Path(out) / "junit.xml"
            tree = Path(out) / "tree"  # the judge's files over a copy, as the sandbox does
            shutil.copytree(workspace, tree, symlinks=True, ignore=lambda _d, names: [n for n in names if n in EXCLUDED])
            write_overlay(tree, files or {})
            proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf",
                                   f"--junitxml={junit}", "-o", "junit_family=xunit1"],
                                  cwd=tree, capture_output=True, text=True, timeout=120)
            cases = parse_junit_xml(junit.read_bytes()) if junit.exists() else []
        failing = tuple(c.name for c in cases if c.outcome in ("fail", "error"))
        summary = "\n".join(line for line in proc.stdout.splitlines()
                            if not any(name.split("::")[-1] in line for name in known_failures))
        return TestOutcome(proc.returncode == 0, failing, summary[-1500:], proc.returncode, len(cases) or None,
                           results=tuple((c.name, c.outcome) for c in cases))


PLAN = {"summary": "Average the two middle values when the count is even.", "files": ["stats/core.py"],
        "steps": ["Reproduction test: tests/test_repro_median.py", "Fix median() in stats/core.py"],
        "questions": []}
REPRO = """tests/test_repro_median.py
```python
<<<<<<< SEARCH
=======
from stats import median


def test_even_count_is_mean_of_middles():
    assert median([4, 1, 3, 2]) == 2.5
>>>>>>> REPLACE
```"""
FIX = """stats/core.py
<<<<<<< SEARCH
    middle = len(ordered) // 2
    return ordered[middle]
=======
    middle = len(ordered) // 2
    if len(ordered) % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
>>>>>>> REPLACE"""
BAD_FIX = """stats/core.py
<<<<<<< SEARCH
    middle = len(ordered) // 2
    return ordered[middle]
=======
    middle = len(ordered) // 2
    return ordered[middle - 1]
>>>>>>> REPLACE"""
NO_MATCH = """stats/core.py
<<<<<<< SEARCH
    return values[len(values) / 2]
=======
    return 0
>>>>>>> REPLACE"""
ENOUGH = '{"search": [], "open": [], "symbols": []}'
ACCEPT = {"verdict": "accept", "feedback": "Correct and tested."}
REVISE = {"verdict": "revise", "feedback": "Still wrong for even counts."}


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
    return create_sample_repo(tmp_path / "sample")

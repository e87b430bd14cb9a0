"""Deterministic parts for the ensemble loop: a retriever that reads whole files, pytest on the host.

They stand behind the engine's `Retriever` and `TestRunner` seams (`bot/ensemble/ports.py`) where a
test or a benchmark wants the real loop without an index or a container.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path

from bot.ensemble.types import Retrieved, TestOutcome
from fakes.forked_pytest import run_pytest


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


# The sample repositories need no pytest plugin; not loading the ones installed beside the suite
# (xdist and the like) halves each run's start-up.
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


class HostPytest:
    """Runs pytest on the host in the workspace (our own sample code only), with per-test results; the files the
    judge owns (`owned`) are not guarded here (sandbox/local.py and sandbox/docker_sandbox.py guard them)."""

    environment = "pytest on the host"

    def __init__(self) -> None:
        self.runs = 0
        self.known: list[frozenset[str]] = []  # the known failures each run was given
        self.overlays: list[dict[str, bytes | None]] = []  # what the judge put over the tree in each run

    def run_tests(self, workspace: Path, known_failures: Collection[str] = (),
                  files: Mapping[str, bytes | None] | None = None, *, trace_reads: bool = False,
                  listing: bool = False, checks: str = "", owned: Collection[str] = (),
                  leave_out: Collection[str] = ()) -> TestOutcome:  # leave_out: every test runs here
        from sandbox.results import parse_junit_xml
        from sandbox.workspace import EXCLUDED, write_overlay

        self.runs += 1
        self.known.append(frozenset(known_failures))
        self.overlays.append(dict(files or {}))
        with tempfile.TemporaryDirectory() as out_dir:
            junit = Path(out_dir) / "junit.xml"
            tree = Path(out_dir) / "tree"  # the judge's files over a copy, as the sandbox does
            shutil.copytree(workspace, tree, symlinks=True, ignore=lambda _d, names: [n for n in names if n in EXCLUDED])
            write_overlay(tree, files or {})
            out = Path(out_dir) / "stdout"
            code = run_pytest(tree, ["-q", "-p", "no:cacheprovider", "-rf", f"--junitxml={junit}", "-o",
                                     "junit_family=xunit1"], {**os.environ, **PYTEST_ENV}, out,
                              Path(out_dir) / "stderr", timeout=120)
            stdout = out.read_text(errors="replace")
            cases = parse_junit_xml(junit.read_bytes()) if junit.exists() else []
        failing = tuple(c.name for c in cases if c.outcome in ("fail", "error"))
        summary = "\n".join(line for line in stdout.splitlines()
                            if not any(name.split("::")[-1] in line for name in known_failures)
                            and not (checks and checks in line))
        return TestOutcome(code == 0, failing, summary[-1500:], code, len(cases) or None,
                           results=tuple((c.name, c.outcome) for c in cases))

"""Adapters from the real components to the loop's ports: the indexer, the sandbox, the models."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.ensemble.insights import Embed
from bot.ensemble.ports import ModelClient, ModelReply
from bot.ensemble.types import Retrieved, TestOutcome
from bot.llm.budget import SpendSummary
from bot.llm.types import Message, ReplyEnd
from bot.redact import clip
from bot.trace import span
from sandbox.model import FAILING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from indexer import RepoIndex
    from sandbox.model import Environment, ExecResult, Sandbox, SandboxSpec

log = logging.getLogger(__name__)
MAX_PASS_SUMMARY = 400


class IndexRetriever:
    """`Retriever` over the indexer's `RepoIndex` (search, lookup_symbol, repo_map)."""

    def __init__(self, index: RepoIndex):
        self.index = index

    @property
    def embed(self) -> Embed | None:
        """The index's own embedding model, for the lessons store."""
        return self._embed

    def _embed(self, texts: list[str]) -> NDArray[np.float32]:
        # the model loads on first use (that takes seconds, so only when something embeds)
        return self.index.embedder.embed(list(texts))

    def search(self, query: str, k: int = 8) -> list[tuple[Retrieved, str]]:
        """Chunk-level hits for `query`, best first."""
        with span("index.search", query=clip(query, 200), k=k) as s:
            hits = self.index.search(query, k=k, level="chunk")
            s.set(hits=len(hits), top=[h.path for h in hits[:3]])
        return [(Retrieved(h.path, "search", float(h.score), h.start_line, h.end_line, clip(query, 80)), h.text or "")
                for h in hits]

    def lookup_symbol(self, name: str) -> list[tuple[Retrieved, str]]:
        """Definitions of `name`."""
        with span("index.symbol", symbol=clip(name, 200)) as s:
            hits = self.index.lookup_symbol(name)
            s.set(hits=len(hits))
        return [(Retrieved(h.path, "symbol", h.score, h.start_line, h.end_line, name), h.text) for h in hits]

    def repo_map(self, query: str, max_tokens: int = 1500) -> str:
        """The ranked outline of the repository."""
        return str(self.index.repo_map(query, max_tokens=max_tokens))


class SandboxRunner:
    """`TestRunner` over a `sandbox.Sandbox`: one prepared environment per workspace and dependency set.

    An edit to a dependency file (requirements, pyproject.toml, package.json, go.mod …) prepares
    the environment again, so the tests run against the dependencies the change asks for.

    The first run is the base's (the engine runs it before any model call): when its test command
    cannot start because a tool is missing, that is the environment's fault, not a failing test,
    and `sandbox.errors.ToolMissing` ends the run there. Its test command is the one every later run
    uses: a candidate's own files (package.json, tox.ini ...) never choose how it is judged.
    """

    def __init__(self, sandbox: Sandbox, spec: SandboxSpec):
        self.sandbox = sandbox
        self.spec = spec
        self._envs: dict[Path, tuple[str, Environment]] = {}
        self._base_checked = False
        self._command: str | None = None  # the base's test command, fixed by the first run
        self._runner = ""  # the runner whose report named the base's tests (pytest, unittest, go ...)
        self.environment = ""  # where the tests run: backend and image, and how the image was found

    def run_tests(self, workspace: Path, known_failures: Collection[str] = (),
                  files: Mapping[str, bytes | None] | None = None, *, trace_reads: bool = False,
                  listing: bool = False, checks: str = "", owned: Collection[str] = (),
                  leave_out: Collection[str] = ()) -> TestOutcome:
        """Run the repository's tests on the workspace's current files, with `files` over them, in the sandbox.

        Tests in `known_failures` (those that already failed at the base) are left out of the
        summary the models read, which says how many were left out; so are the judge's own checks,
        whose ids hold `checks` (never out of the results). A run a limit killed is resumed without the
        test that was running (sandbox/suite.py). `trace_reads` records the repository files the tests'
        Python processes open; `listing` lists the suite's tests first (where the runner can) and holds
        the run to that listing. The tests cannot change the files in `owned` (the judge's: sandbox/model.py).
        `leave_out`: tests the base's runner is told not to run, each reported as an error that says why.
        """
        from sandbox.suite import accounted, list_tests, listing_itself, run_suite

        env = self._environment(workspace)
        command = self._command = self._command or env.test_command
        with span("sandbox.run", backend=env.backend, image=env.image) as s:
            s.set(command=command, overlay=sorted(files or ())[:50], trace_reads=trace_reads)
            # a listed run lists its tests itself where its runner can (pytest), else in a listing run of its own
            result = run_suite(self.sandbox, env, listing_itself(command) if listing else command,
                               self.spec.timeout_s, files, None, trace_reads, owned, leave_out, self._runner)
            self._runner = self._runner or result.runner
            listed = result.listed if listing else None
            if listing and listed is None:
                with span("sandbox.list", backend=env.backend) as listing_span:
                    listed = list_tests(self.sandbox, env, command, files)
                    listing_span.set(listed=None if listed is None else len(listed))
            result = accounted(replace(result, command=command), listed)  # the repository's own command
            s.set(exit_code=result.exit_code, duration_s=round(result.duration_s, 2), timed_out=result.timed_out,
                  oom_killed=result.oom_killed, tests=len(result.tests), failing=len(result.failures),
                  complete=result.complete, findings=[f"{f.kind}: {f.detail}" for f in result.findings][:10])
        if not self._base_checked:
            from sandbox.environment import check_base_run

            self._base_checked = True
            check_base_run(env, result)
        return outcome_of(result, known_failures, listed, checks)

    def _environment(self, workspace: Path) -> Environment:
        from sandbox.detect import dependency_files

        key = _files_hash(workspace, dependency_files(workspace))
        known = self._envs.get(workspace)
        if known is not None and known[0] == key:
            return known[1]
        with span("sandbox.prepare", rebuilt=known is not None) as s:
            env = self.sandbox.prepare(workspace, self.spec)
            s.set(backend=env.backend, image=env.image, cached=env.cached, language=env.project.language,
                  setup_s=round(env.setup_s, 2), image_source=env.image_source,
                  recipe=env.project.recipe.lines() if env.project.recipe else None,
                  services=[s.describe() for s in env.services])
        self.environment = self.environment or environment_text(env)
        if known is not None:
            log.info("dependency files changed in %s: the test environment was prepared again", workspace.name)
        self._envs[workspace] = (key, env)
        return env


def environment_text(env: Environment) -> str:
    """Where the tests run, for the summary: language, backend, image, the CI recipe's source and the services."""
    text = f"{env.project.language} tests in the {env.backend} sandbox, image {env.image_source or env.image}"
    if env.project.recipe is not None:
        text += f"; recipe {env.project.recipe.lines()[0]}"
    if env.services:
        text += f"; services {'; '.join(s.describe() for s in env.services)}"
    return text


def outcome_of(result: ExecResult, known_failures: Collection[str] = (),
               listed: Sequence[str] | None = None, checks: str = "") -> TestOutcome:
    """The loop's view of a sandbox `ExecResult`, its summary without the tests in `known_failures` and the
    judge's checks (ids holding `checks`); `listed`, the suite's listing the run was held to."""

    from sandbox.summary import summarize_failures

    failing = tuple(t.name for t in result.failures)
    shown = [t for t in result.tests if not (checks and checks in t.name)]
    only_checks_failed = bool(checks) and len(shown) < len(result.tests) and result.complete and not result.killed \
        and not any(t.outcome in FAILING for t in shown)
    if result.ok or only_checks_failed:
        passed = sum(t.outcome == "pass" for t in shown)
        summary = f"{passed} passed" if shown else "the test command succeeded"
    else:
        own = [t for t in shown if t.name not in known_failures]
        summary = summarize_failures(replace(result, tests=own))
        hidden = len(shown) - len(own)
        if hidden:
            summary += (f"\n({hidden} test(s) that already failed before any change are not shown: "
                        "they are not yours to fix)")
    if not result.complete:
        summary += f"\nThe run is incomplete: {result.incomplete_reason}."
    return TestOutcome(result.ok, failing, summary, result.exit_code, len(result.tests) or None,
                       round(result.duration_s, 2), tuple((t.name, t.outcome) for t in result.tests),
                       result.timed_out, result.complete, result.incomplete_reason,
                       tuple(f"{f.kind}: {f.detail}" for f in result.findings), result.reads,
                       None if listed is None else tuple(listed), opened=result.opened, hung=result.hung)


def _files_hash(root: Path, paths: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for rel in paths:
        digest.update(rel.encode() + b"\0")
        try:
            digest.update((root / rel).read_bytes())
        except OSError:
            digest.update(b"(unreadable)")
    return digest.hexdigest()


class TeamModels:
    """A team's view of the shared model manager: its own models and temperature, the shared budget."""

    def __init__(self, models: ModelClient, temperature: float | None, team: str = "a"):
        self.models = models
        self.temperature = temperature
        self.team = team

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> ModelReply:
        """Ask the team's model for `role` (its own when configured), at the team's temperature unless given."""
        chosen = self.temperature if temperature is None else temperature
        return self.models.complete(self._role(role), messages, schema=schema, temperature=chosen, stop=stop, by=by,
                                    max_tokens=max_tokens, until=until)

    def prompt_budget(self, role: str) -> int:
        """Tokens the team's model for `role` can take as a prompt."""
        return self.models.prompt_budget(self._role(role))

    def has_role(self, role: str) -> bool:
        """True when `role` has models of its own in the shared manager."""
        return self.models.has_role(role)

    def spend(self) -> SpendSummary:
        """The whole run's usage: the teams share one budget."""
        return self.models.spend()

    def _role(self, role: str) -> str:
        """The team's own model for `role` when it has one (`coder@b`), else the run's."""
        own = f"{role}@{self.team}"
        return own if self.models.has_role(own) else role

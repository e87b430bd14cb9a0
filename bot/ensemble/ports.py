"""The seams the ensemble loop is written against, so it runs with a deterministic model in tests.

`ModelClient` is what `bot.llm.ModelManager` provides; `Retriever` wraps the indexer's
`RepoIndex`; `TestRunner` wraps the sandbox. The real adapters live in bot/ensemble/adapters.py.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from bot.ensemble.insights import Embed
from bot.ensemble.types import Retrieved, TestOutcome
from bot.llm.budget import SpendSummary
from bot.llm.types import JsonObject, Message, ReplyEnd


class ModelReply(Protocol):
    """The parts of `bot.llm.Reply` the loop reads."""

    @property
    def text(self) -> str:
        """The reply's text."""
        ...

    @property
    def data(self) -> JsonObject | None:
        """The validated JSON of a schema reply; None for plain text."""
        ...

    @property
    def finish_reason(self) -> str:
        """Why the model stopped: "length" when the output cap cut the reply."""
        ...

    @property
    def truncated(self) -> bool:
        """True when the reply is still cut off by the output cap after the model was asked to continue."""
        ...


class ModelClient(Protocol):
    """Role-based completion: `complete("planner", messages, schema="plan")`."""

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> ModelReply:
        """One reply for `role`; schema replies carry parsed `data`; a reply ends before the first `stop` sequence,
        and once it is complete (`until`); with `by` (the clock's time) it is cut short to be done by then;
        `max_tokens` is what the reply can need (None: what the role's model may write), a cap below the configured
        one."""
        ...

    def prompt_budget(self, role: str) -> int:
        """Tokens the role's model can take as a prompt (its window less room for the reply)."""
        ...

    def has_role(self, role: str) -> bool:
        """True when `role` has models of its own: a team's own model for a role is `coder@b`."""
        ...

    def spend(self) -> SpendSummary:
        """The run's usage so far (tokens, cost, per role and model): what the run's report shows."""
        ...


class Retriever(Protocol):
    """Search over the repository's index."""

    @property
    def embed(self) -> Embed | None:
        """The index's embedding model (texts -> vectors), for the lessons store; None without one."""
        ...

    def search(self, query: str, k: int = 8) -> list[tuple[Retrieved, str]]:
        """Chunks most relevant to `query`, with their text."""
        ...

    def lookup_symbol(self, name: str) -> list[tuple[Retrieved, str]]:
        """Where `name` is defined, with the definition's text."""
        ...

    def repo_map(self, query: str, max_tokens: int = 1500) -> str:
        """A compact outline of the repository ranked for `query`."""
        ...


class TestRunner(Protocol):
    """Runs a workspace's tests."""

    @property
    def environment(self) -> str:
        """Where the tests run (language, backend, image and how it was found); '' before the first run."""
        ...

    def run_tests(self, workspace: Path, known_failures: Collection[str] = (),
                  files: Mapping[str, bytes | None] | None = None, *, trace_reads: bool = False,
                  listing: bool = False, checks: str = "", owned: Collection[str] = (),
                  leave_out: Collection[str] = ()) -> TestOutcome:
        """Run the repository's tests on the workspace's current files, with `files` over them.

        `known_failures` are tests that failed at the base: the summary leaves them out. `files`
        replaces files (bytes) or leaves them out (None) in the tested copy, never in the workspace:
        how the judge runs the base's tests on a candidate (bot/ensemble/judge/runs.py). `trace_reads`
        records the repository files the tests open (`TestOutcome.reads`); `listing` lists the tests
        up front where the runner can (`TestOutcome.listed`), so a killed run's unreached tests are known.
        Tests whose ids hold `checks` are the judge's own (bot/ensemble/judge/sentinels.py): kept in the results,
        left out of the summary the models read. The test process cannot change the files in `owned` (the judge's
        tests, harness and data), or changing them is a finding (`TestOutcome.findings`). `leave_out`: tests that
        need not run (the time limit killed them at the base), reported as errors where the runner can be told so.
        """
        ...

"""The spend ledger on GitHub: a run reserves its cap before it starts and settles to what its models charged after.

The ledger is `ledger.jsonl` on the bot's own orphan branch `ensemble/ledger` (created on first use; bot/spend.py
reads it), kept only when `budget.issue_usd` or `budget.day_usd` is set. Every change is one commit on top of the
head the job fetched, pushed with `--force-with-lease` against that head through the same authenticated path as the
bot's other pushes. When another job wrote in between, GitHub refuses the push; the job fetches again, re-applies its
change on the new head (re-checking the caps, for a reservation) and pushes again, a bounded number of times with
random waits. So concurrent jobs never lose an entry, and never pass a cap together.

    LedgerBranch   the branch: read it, change it with compare-and-swap
    run_spend      a run's reservation around the engine: refused with the figures, or capped and settled after
"""

from __future__ import annotations

import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from actions.context import Context, Outcome
from actions.github import GitHubError
from bot.config import Config
from bot.ensemble.types import Plan, RunResult
from bot.spend import (
    LEDGER_BRANCH,
    LEDGER_FILE,
    RESERVE,
    SETTLE,
    Entry,
    Refusal,
    Totals,
    left_under_caps,
    read_entries,
    refusal,
    totals,
)
from common.git import GitError, git, git_succeeds

if TYPE_CHECKING:
    from actions.github.remote import RemoteCalls
    from actions.progress import ProgressComment

log = logging.getLogger(__name__)
T = TypeVar("T")
TRIES = 16  # pushes a change may try before the job gives up
WAIT_S, MAX_WAIT_S = 0.1, 3.0  # the random wait after a refused push: up to WAIT_S·2^try, at most MAX_WAIT_S
README = ("# The spend ledger of ensemble-bot\n\nWritten by the bot alone, one JSON line per run's reservation and "
          "settlement, so that `budget.issue_usd` and `budget.day_usd` hold across jobs. Do not edit it: the bot "
          "pushes with a lease and a change of yours would make its next write start over.\n")
IDENTITY = {"GIT_AUTHOR_NAME": "ensemble-bot", "GIT_AUTHOR_EMAIL": "ensemble-bot@users.noreply.github.com",
            "GIT_COMMITTER_NAME": "ensemble-bot", "GIT_COMMITTER_EMAIL": "ensemble-bot@users.noreply.github.com"}


class LedgerBranch:
    """The ledger branch of one repository, worked on in a bare repository of the job's own (no checkout)."""

    def __init__(self, github: RemoteCalls, folder: Path):
        self.github = github
        self.repo = github.bare_repo(folder)

    def read(self) -> list[Entry]:
        """The entries on GitHub now ([] before the first run)."""
        return read_entries(self._text(self._fetch()))

    def change(self, make: Callable[[list[Entry]], tuple[list[Entry], T]], what: str) -> T:
        """Append what `make` returns for the entries on GitHub, and return its value.

        `make` is called again on the new entries whenever another job wrote first, so what it decides always
        holds for the ledger its entries land on. Raises GitHubError when no push got through after TRIES tries.
        """
        refused: GitHubError | None = None
        for attempt in range(TRIES):
            try:
                head = self._fetch()
                text = self._text(head)
                new, value = make(read_entries(text))
                if not new:
                    return value
                commit = self._commit(head, text + "".join(entry.line() for entry in new), what)
                self.github.push(self.repo, LEDGER_BRANCH, head, source=commit)
                return value
            except (GitHubError, GitError) as exc:  # another job moved the branch (or GitHub failed): try again
                refused = GitHubError(str(exc))
                log.info("the spend ledger moved while writing (%s); trying again", exc)
                time.sleep(random.uniform(0, min(MAX_WAIT_S, WAIT_S * 2 ** attempt)))
        raise GitHubError(f"could not write the spend ledger ({LEDGER_BRANCH}) in {TRIES} tries: {refused}")

    def _fetch(self) -> str | None:
        """The branch's head, fetched alone: the file in it is the whole ledger, so its history is never needed."""
        return self.github.fetch(self.repo, LEDGER_BRANCH, depth=1)

    def _text(self, head: str | None) -> str:
        """The ledger file at `head` ('' before the first run, or if someone deleted the file)."""
        if not head or not git_succeeds(self.repo, "cat-file", "-e", f"{head}:{LEDGER_FILE}"):
            return ""
        return git(self.repo, "show", f"{head}:{LEDGER_FILE}")

    def _commit(self, parent: str | None, text: str, what: str) -> str:
        """A commit of the ledger file holding `text` on top of `parent` (an orphan commit when there is none)."""
        blobs = {name: git(self.repo, "hash-object", "-w", "--stdin", stdin=content).strip()
                 for name, content in (("README.md", README), (LEDGER_FILE, text))}
        tree = git(self.repo, "mktree", stdin="".join(f"100644 blob {sha}\t{name}\n" for name, sha in blobs.items()))
        # [skip ci]: the branch holds no code, so a push to it starts no CI (and no fix of a failed check)
        message = f"Spend ledger: {what}\n\n[skip ci]\n"
        return git(self.repo, "commit-tree", tree.strip(), *(("-p", parent) if parent else ()), "-m", message,
                   env=IDENTITY).strip()


@dataclass
class Spend:
    """One run's place in the ledger: its reservation (None without caps across runs), the cap its engine gets,
    the refusal when it may not start, and what its models charged (None: unknown)."""

    config: Config
    issue: int
    reservation: Entry | None = None
    engine_cap: float | None = None
    refused: Outcome | None = None
    charged: float | None = None

    def capped(self, config: Config) -> Config:
        """`config` with the engine's cap: the run's, never more than is left under the caps across runs."""
        return config if self.engine_cap is None else replace(config, budget_usd=self.engine_cap)

    def charge(self, made: RunResult | Plan) -> None:
        """Record what the run's models charged (the engine's usage, or the plan's cost when the planner reports it),
        to settle the reservation to."""
        if isinstance(made, Plan):
            self.charged = made.cost_usd
        else:
            self.charged = made.usage["cost_usd"]


@contextlib.contextmanager
def run_spend(ctx: Context, config: Config, issue: int, progress: ProgressComment) -> Iterator[Spend]:
    """Reserve the run's cap for `issue` before the block, settle it after (also when the block raises).

    Without `budget.issue_usd` and `budget.day_usd` nothing is kept and the run goes ahead. A run the caps leave no
    room for gets `refused` (already explained in the progress comment) and must start nothing; so does one whose
    ledger cannot be written, since the caps could not be kept.
    """
    spend = Spend(config, issue)
    if config.budget.across_runs:
        _reserve(ctx, spend, progress)
    try:
        yield spend
    finally:
        if spend.reservation is not None:
            _settle(ctx, spend)


def _ledger(ctx: Context) -> LedgerBranch:
    return LedgerBranch(ctx.github, ctx.workdir / f"ledger-{secrets.token_hex(3)}")


def _reserve(ctx: Context, spend: Spend, progress: ProgressComment) -> None:
    budget, run_usd = spend.config.budget, spend.config.budget_usd
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    entry = Entry(f"{ctx.run_key}-{secrets.token_hex(3)}", RESERVE, run_usd, spend.issue, day, ctx.run_key, _now())

    def make(entries: list[Entry]) -> tuple[list[Entry], Refusal | float | None]:
        if over := refusal(entries, day, spend.issue, run_usd, budget.issue_usd, budget.day_usd):
            return [], over
        return [entry], left_under_caps(totals(entries, day, spend.issue), budget.issue_usd, budget.day_usd)

    try:
        decided = _ledger(ctx).change(make, f"reserve ${run_usd:.2f} for issue #{spend.issue} (run {ctx.run_key})")
    except GitHubError as exc:
        message = (f"I could not read or write the spend ledger (branch `{LEDGER_BRANCH}`), so I cannot keep "
                   f"`budget.issue_usd` / `budget.day_usd` and started nothing: {exc}")
        progress.update(message)
        spend.refused = Outcome("ledger-unavailable", message, spend.issue, 1)
        return
    if isinstance(decided, Refusal):
        progress.update(refusal_words(decided, day, spend.issue))
        spend.refused = Outcome("over-budget", f"a run on issue #{spend.issue} would pass budget.{decided.cap}: "
                                f"${decided.spent:.2f} counted, cap ${decided.limit:.2f}, the run would reserve "
                                f"${decided.reserve:.2f}; nothing started", spend.issue)
        return
    spend.reservation = entry
    spend.engine_cap = run_usd if decided is None else min(run_usd, decided)


def _settle(ctx: Context, spend: Spend) -> None:
    """Settle the reservation to what the run charged; when that is unknown (the engine raised, or a planner that
    does not report its charge), to the reserved amount, the most the run could have charged."""
    assert spend.reservation is not None
    usd = spend.reservation.usd if spend.charged is None else spend.charged
    entry = replace(spend.reservation, kind=SETTLE, usd=round(usd, 6), issue=None, day="", at=_now())
    after: list[Entry] = []

    def make(entries: list[Entry]) -> tuple[list[Entry], None]:
        after[:] = [*entries, entry]
        return [entry], None

    try:
        _ledger(ctx).change(make, f"settle ${usd:.4f} for issue #{spend.issue} (run {ctx.run_key})")
    except GitHubError as exc:
        log.warning("could not settle the run's reservation in the spend ledger; it counts at $%.2f: %s",
                    spend.reservation.usd, exc)
        ctx.spend = f"the ledger could not be settled ({exc}); this run counts at its reservation"
        return
    ctx.spend = spend_words(totals(after, spend.reservation.day, spend.issue), spend.config, usd)


def refusal_words(over: Refusal, day: str, issue: int) -> str:
    """The answer on the thread to a run the caps refuse: the figures, and what to change."""
    where = f"on issue #{issue} (all its runs)" if over.cap == "issue_usd" else f"on {day} (UTC)"
    running = f", of which ${over.open_usd:.2f} is reserved by runs still going" if over.open_usd else ""
    ways = [f"raise `budget.{over.cap}` in `.github/ensemble.yml`", "lower `budget.run_usd` so a run fits"]
    if over.cap == "day_usd":
        ways.insert(1, "wait until tomorrow (UTC)")
    if over.open_usd:
        ways.append("wait for the runs still going to settle (they usually charge less than they reserve)")
    return (f"Not started: this run would pass the spend cap `budget.{over.cap}`. Spent {where} so far: "
            f"${over.spent:.2f}{running}; the cap is ${over.limit:.2f}; this run would reserve ${over.reserve:.2f} "
            f"(`budget.run_usd`). Nothing ran and nothing was charged. To run it, {_or(ways)}, then comment "
            "`/ensemble run` (or `/ensemble revise …` on the pull request).")


def spend_words(now: Totals, config: Config, charged: float) -> str:
    """The spend line of the step summary: this run, its issue and its day, against their caps."""
    def against(cap: float | None, key: str) -> str:
        return f" of ${cap:.2f} (`budget.{key}`)" if cap is not None else ""

    issue, day = against(config.budget.issue_usd, "issue_usd"), against(config.budget.day_usd, "day_usd")
    running = f"; ${now.open_usd:.2f} of it still reserved by runs going on" if now.open_usd else ""
    return (f"this run ${charged:.4f}; issue #{now.issue} ${now.issue_usd:.4f}{issue}; "
            f"{now.day} (UTC) ${now.day_usd:.4f}{day}{running}")


def _or(ways: list[str]) -> str:
    return ", ".join(ways[:-1]) + f" or {ways[-1]}" if len(ways) > 1 else ways[0]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

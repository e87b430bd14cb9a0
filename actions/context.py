"""What every handler gets: the event, GitHub (`ctx.github`), the engine, settings from the action's inputs.

Also who may trigger the bot (write, maintain or admin, asked through the collaborator
permission API, never `author_association`), which comments are the bot's own (only those
carry trusted markers), and the `Outcome` a handler returns.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from actions.engine import Engine, Planner, Updater, Verifier
from actions.events import Event
from actions.github import CommentInfo, GitHubRepo, PullInfo
from actions.markers import read_marker
from bot.ensemble.types import RunResult

log = logging.getLogger(__name__)
WRITE_PERMISSIONS = ("admin", "write")  # the API's legacy field maps maintain to write, triage to read
WORKING, NEEDS_HUMAN = "ensemble:working", "ensemble:needs-human"
PARTIAL = "ensemble:partial"  # on a draft PR holding partial work: a run stopped by a limit, some tests fixed
BRANCH_PREFIX = "ensemble/issue-"
NEEDS_ENGINE = "needs-engine"  # the `result` after which the action installs the engine extra and runs again


@dataclass(frozen=True)
class Outcome:
    """What a handler did: a short result word for the `result` output, one line for the log, and for the
    step summary the engine's result (when it ran) and the self-healing attempt (on a failed check)."""

    result: str
    message: str
    pr_number: int | None = None
    exit_code: int = 0
    run: RunResult | None = field(default=None, compare=False, repr=False)
    heal: str = ""  # e.g. "attempt 1 of 2: pushed a fix"
    update: str = ""  # e.g. "merged main (abc1234): clean, no model call; re-judged there: 1 test fixed"
    spend: str = ""  # with caps across runs: this run, its issue and its day in the spend ledger (actions/ledger.py)
    evidence: str = ""  # a verification this job could not post (a read-only token): the file holding its evidence


class EngineNeeded(Exception):
    """The event runs the engine, whose extra is not installed; raised before the run writes anything."""


@dataclass
class Context:
    """Everything a handler needs; built once per event by actions.app."""

    event: Event
    github: GitHubRepo
    env: Mapping[str, str]
    workdir: Path
    # The Action's are ChildEngine and ChildPlanner (their own process, no GitHub token); an engine a test
    # injects runs in this process.
    engine: Engine
    planner: Planner
    updater: Updater | None = None  # None: `ChildUpdater`, the Action's (actions/engine_process.py)
    verifier: Verifier | None = None  # None: `ChildVerifier`, the Action's
    trigger_label: str = "ensemble"
    config_path: str | None = None
    default_token: bool = True
    run_key: str = "local"
    bot_logins: frozenset[str] = frozenset({"github-actions[bot]"})
    stop_poll_s: float = 15.0
    engine_missing: str = ""  # why the engine cannot run here ('' when it can): the extra is not installed
    spend: str = ""  # the spend line of the last run this job settled in the ledger, for the step summary
    _permissions: dict[str, bool] = field(default_factory=dict)
    _me: str | None = None

    def may_trigger(self, login: str) -> bool:
        """True when `login` has write, maintain or admin permission on the repository."""
        if login not in self._permissions:
            self._permissions[login] = self.github.permission(login) in WRITE_PERMISSIONS
        return self._permissions[login]

    def need_engine(self) -> None:
        """Call before a run's first write: raises EngineNeeded when the engine cannot run in this install.

        The action then installs the extra and handles the event again; everything the handler
        did before this point is read-only or idempotent by markers, so the second pass redoes it.
        """
        if self.engine_missing:
            raise EngineNeeded(self.engine_missing)

    def is_own(self, comment: CommentInfo) -> bool:
        """A comment the bot wrote (its markers are trusted): by one of the bot's logins, or the token's own user.

        Other bots' comments are not trusted: any installed App could write a marker.
        """
        if comment.login in self.bot_logins:
            return True
        return not comment.is_bot and comment.login == self.me()

    def me(self) -> str:
        """The token's own login for a PAT ('' for App and default tokens, which comment as `[bot]`)."""
        if self._me is None:
            self._me = self.github.whoami() or ""
        return self._me

    def own_markers(self, number: int, kind: str) -> list[tuple[CommentInfo, dict[str, object]]]:
        """The bot's comments on #number that carry a `kind` marker, oldest first, with the marker data."""
        found = []
        for comment in self.github.comments(number):
            data = read_marker(comment.body, kind) if self.is_own(comment) else None
            if data is not None:
                found.append((comment, data))
        return found


def issue_of_pull(ctx: Context, pull: PullInfo) -> int | None:
    """The issue a pull request of the bot works on; None for any other pull request.

    A bot branch name is not enough: a fork can name its branch `ensemble/issue-1` too.
    The head must live in this repository, where only writers can push.
    """
    if pull.head_repo.lower() != ctx.github.full_name.lower():
        return None
    return issue_of_branch(pull.branch)


def issue_of_branch(branch: str) -> int | None:
    """The issue number of a bot branch `ensemble/issue-<N>`, or None for any other branch."""
    rest = branch.removeprefix(BRANCH_PREFIX)
    return int(rest) if branch.startswith(BRANCH_PREFIX) and rest.isdigit() else None


def branch_of_issue(number: int) -> str:
    return f"{BRANCH_PREFIX}{number}"

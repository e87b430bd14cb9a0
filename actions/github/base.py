"""Calling GitHub: the PyGithub client for one repository, rate-limit waits and `GitHubError`.

The client is built and every call made through common/github.py (shared with the doctor):
PyGithub runs with its own retries off; secondary rate limits (403/429 with `retry-after`)
are waited out, up to `max_wait_s` in total per call. A 5xx (GitHub's 502s come and go)
is tried again after 1, 2 and 4 seconds, except for calls that would do twice what the failed
one may already have done (posting a comment, dispatching a workflow). Every other GitHub
error becomes a `GitHubError` that says what the bot was trying to do and what GitHub answered.

What one event reads is kept for the event (threads, files, issues, pull requests), true to the bot's
own writes; the event's first questions are answered by one GraphQL snapshot (snapshot.py), sent
before the first of them, whose gaps the REST calls fill.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from actions.github.info import CommentInfo, PullInfo
from actions.github.markdown import allowed_hosts, neutralise_links
from actions.github.snapshot import Snapshot, SnapshotPlan, parse_snapshot
from bot.errors import EnsembleError
from bot.redact import Redactor
from bot.trace import span
from common.github import call_github, github_client, rate_limit_wait
from common.retry import RetryLog

if TYPE_CHECKING:
    from github import GithubException

log = logging.getLogger(__name__)
T = TypeVar("T")
INSTALLATION_TOKEN = "ghs_"  # the prefix of an App installation token; the Actions GITHUB_TOKEN is one


class GitHubError(EnsembleError):
    """A GitHub or git operation failed; the message says which and what GitHub answered."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class GitHubBase:
    """One repository on one GitHub (github.com or Enterprise Server, or a fake): the client and `call`."""

    def __init__(self, repo: str, token: str, api_url: str = "https://api.github.com",
                 server_url: str = "https://github.com", max_wait_s: float = 300.0,
                 sleep: Callable[[float], None] = time.sleep, secrets: Iterable[str] = (), default_branch: str = ""):
        self.full_name = repo
        self._token = token
        # Everything the bot writes on GitHub is public: secret values and token shapes are masked.
        self.redactor = Redactor([token, *secrets])
        self.server_url = server_url.rstrip("/")
        self._hosts = allowed_hosts(self.server_url)
        self.max_wait_s = max_wait_s
        self._sleep = sleep
        self._gh = github_client(api_url, token)
        self._repo = self._gh.get_repo(repo)
        # The threads read in this event (issue or PR number -> comments, oldest first), kept up to date with
        # what the bot writes: one event reads a thread once, however many questions it asks of it.
        self._threads: dict[int, list[CommentInfo]] = {}
        self._threads_lock = threading.Lock()
        self._files: dict[tuple[str, str], str | None] = {}  # (path, ref) -> text, None where there is none
        self._default_branch = default_branch  # the event's payload names it; else read once when asked
        # Pull requests read in this event, kept true to the bot's own pushes (`branch_moved`) and forgotten when it
        # edits one (a PR's number, branch and head repository never change, which is what most questions ask).
        self._pulls: dict[int, PullInfo] = {}
        self._issues: dict[int, tuple[str, str, list[str]]] = {}  # issues read in this event, as `issue` answers
        # The event's GraphQL snapshot (actions/github/snapshot.py): sent before the first question it answers.
        self._plan: SnapshotPlan | None = None
        self._snapshot_lock = threading.Lock()
        self._granted: dict[str, str] = {}  # login -> admin or write, from the snapshot
        self._first: Snapshot = Snapshot()  # the branch heads and open pull requests it answers, once each
        self._node_ids: dict[int, str] = {}  # issue or PR number -> GraphQL node id, from the snapshot
        self._reaction: tuple[int, str] | None = None  # (number, content) waiting for the bot's next comment there

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.full_name!r}, server_url={self.server_url!r})"

    def outgoing(self, text: str) -> str:
        """What may be posted of `text`: secrets masked, images and links to other hosts made inert."""
        return neutralise_links(self.redactor.text(text), self._hosts)

    # -- calling GitHub ------------------------------------------------------------------
    def call(self, what: str, fn: Callable[[], T], *, repeatable: bool = True) -> T:
        """Run `fn`, waiting out secondary rate limits (and 5xx answers when `repeatable`);
        other GitHub errors become GitHubError."""
        from github import GithubException

        record = RetryLog()
        with span("github.api", what=what) as s:
            try:
                return call_github(fn, what=what, repeatable=repeatable, max_wait_s=self.max_wait_s,
                                   sleep=self._sleep, log_to=record, on_error=lambda status: s.set(status_code=status))
            except GithubException as exc:
                if record.over_budget and retry_after(exc) is not None:
                    raise GitHubError(f"GitHub rate-limited us while trying to {what}; waited {record.waited_s:.0f}s, "
                                     "which is the limit; run again later") from None
                raise GitHubError(f"GitHub refused to {what}: {exc.status} {message(exc)}", exc.status) from None
            finally:
                if record.waited_s:
                    s.set(rate_limited_s=record.waited_s)

    def _not_found_is_none(self, what: str, fn: Callable[[], T]) -> T | None:
        try:
            return self.call(what, fn)
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise

    # -- the event's snapshot ------------------------------------------------------------
    def expect(self, plan: SnapshotPlan) -> None:
        """What this event will ask first: one GraphQL read answers it at the first such question (or never)."""
        self._plan = plan

    def _prefetch(self, number: int | None = None, login: str = "", branch: str = "",
                  file: tuple[str, str] | None = None) -> None:
        """Send the snapshot now if it answers this question and was not sent yet."""
        plan = self._plan
        if plan is None or not plan.covers(number, login, branch, file):
            return
        with self._snapshot_lock:
            if self._plan is None:
                return
            self._plan = None  # sent once, whatever comes back
            found = self._read_snapshot(plan)
        with self._threads_lock:
            for path_ref, text in found.files.items():
                self._files.setdefault(path_ref, text)
            for number_, thread in found.threads.items():
                self._threads.setdefault(number_, thread)
            for number_, issue in found.issues.items():
                self._issues.setdefault(number_, issue)
            for number_, pull in found.pulls.items():
                self._pulls.setdefault(number_, pull)
            self._granted |= found.granted
            self._node_ids |= found.node_ids
            self._first = found

    def _read_snapshot(self, plan: SnapshotPlan) -> Snapshot:
        """The snapshot's answer; an empty one when GitHub refused it (every piece is then read over REST)."""
        def fetch() -> dict[str, object]:
            _, data = self._gh.requester.requestJsonAndCheck(
                "POST", self._gh.requester.graphql_url,
                input={"query": plan.query(), "variables": plan.variables(self.full_name)})
            return data if isinstance(data, dict) else {}
        try:
            answer = self.call("read the event's snapshot", fetch)
        except GitHubError as exc:
            log.info("the event's GraphQL snapshot failed (%s); each piece is read over REST", exc)
            return Snapshot()
        if answer.get("errors"):
            log.info("the event's GraphQL snapshot left out what failed: %s", answer["errors"])
        return parse_snapshot(answer, plan, self.full_name)

    def _first_head(self, branch: str) -> tuple[bool, str | None]:
        """(True, head) when the snapshot answers `branch`'s head and nothing asked it yet; spent once asked (the
        bot pushes while the event is handled: a later question reads GitHub again)."""
        self._prefetch(branch=branch)
        with self._threads_lock:
            found = branch in self._first.heads
            return found, self._first.heads.pop(branch, None)

    def _first_open_pull(self, branch: str) -> tuple[bool, PullInfo | None]:
        """(True, pull request) when the snapshot answers `branch`'s open pull request and nothing asked it yet;
        spent once asked, as `_first_head`."""
        self._prefetch(branch=branch)
        with self._threads_lock:
            found = branch in self._first.open_pulls
            return found, self._first.open_pulls.pop(branch, None)

    def whoami(self) -> str | None:
        """The token's user for a personal token; None for App and Actions tokens (they cannot ask)."""
        if self._token.startswith(INSTALLATION_TOKEN):  # GitHub answers /user with 403: no need to ask
            return None
        try:
            return self.call("read the token's user", lambda: self._gh.get_user().login)
        except GitHubError as exc:
            if exc.status in (401, 403, 404):
                return None
            raise

    def default_branch(self) -> str:
        """The repository's default branch: the event's, or read from GitHub once per event."""
        if not self._default_branch:
            self._default_branch = self.call("read the repository", lambda: self._repo.default_branch)
        return self._default_branch

    def read_file(self, path: str, ref: str) -> str | None:
        """A file's text at `ref`, or None when it does not exist there; read once per event (the config, the
        CODEOWNERS and the workflow are asked for by several steps of one event)."""
        self._prefetch(file=(path, ref))
        with self._threads_lock:
            if (path, ref) in self._files:
                return self._files[(path, ref)]
        text = self._read_file(path, ref)
        with self._threads_lock:
            self._files[(path, ref)] = text
        return text

    def _read_file(self, path: str, ref: str) -> str | None:
        def fetch() -> str:
            content = self._repo.get_contents(path, ref=ref)
            if isinstance(content, list):
                raise GitHubError(f"{path} is a directory in {self.full_name}; expected a file", 404)
            return content.decoded_content.decode("utf-8", errors="replace")
        return self._not_found_is_none(f"read {path}", fetch)

    def branch_moved(self, branch: str, head: str) -> None:
        """Keep the pull requests read in this event true to the bot's push of `branch`, now at `head`."""
        with self._threads_lock:
            self._first.heads.pop(branch, None)
            for number, pull in list(self._pulls.items()):
                if pull.branch == branch and pull.head_repo.lower() == self.full_name.lower():
                    self._pulls[number] = replace(pull, head_sha=head)

    def forget_pulls(self) -> None:
        """Read pull requests (and their issue side) afresh from now on, after the bot changed one: a push, an edit."""
        with self._threads_lock:
            self._pulls.clear()
            self._issues.clear()
            self._first.open_pulls.clear()

    def add_secrets(self, values: Iterable[str]) -> None:
        """Also mask these values (a configured `secret_env`) in everything written from now on."""
        self.redactor = self.redactor.extended(values)


def retry_after(exc: Exception) -> float | None:
    """Seconds to wait for a rate-limit answer, or None when the error is not one (common/github.py reads it)."""
    return rate_limit_wait(exc)


def message(exc: GithubException) -> str:
    """The message GitHub sent with an error answer."""
    data = exc.data
    return str(data.get("message", "")) if isinstance(data, dict) else str(data or "")

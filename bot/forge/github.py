"""The GitHub forge: clone and push with GitPython, issues, pulls and Actions with PyGithub.

The ensemble works in a clone through the local forge (worktrees, branch `ensemble/<slug>`);
this forge brings the clone in and publishes the branch, the pull request and the comments.

The token never appears on a command line, in output or in `.git/config`: git gets it as an
`http.extraheader` through GIT_CONFIG_* environment variables (as actions/checkout does),
scoped to the server URL. PyGithub runs with its own retries off; secondary rate limits
(403/429 with `retry-after`) are waited out here, up to `max_wait_s` in total per call.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bot.errors import EnsembleError
from bot.redact import Redactor
from bot.trace import span

log = logging.getLogger(__name__)
T = TypeVar("T")
GREEN = ("success", "skipped", "neutral")


class ForgeError(EnsembleError):
    """A GitHub or git operation failed; the message says which and what GitHub answered."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class CommentInfo:
    """An issue or PR comment."""

    id: int
    body: str
    login: str
    is_bot: bool


@dataclass(frozen=True)
class PullInfo:
    """A pull request as the handlers see it."""

    number: int
    branch: str
    head_sha: str
    draft: bool
    state: str
    body: str
    url: str
    head_repo: str = ""  # full name of the repository the head branch lives in ("" when it was deleted)


@dataclass(frozen=True)
class ReviewInfo:
    """A submitted review with its inline comments as (path, line, body)."""

    id: int
    state: str
    body: str
    login: str
    commit_id: str
    inline: tuple[tuple[str, int, str], ...] = ()


@dataclass(frozen=True)
class ReviewThread:
    """An inline review thread: its GraphQL node id, where it sits, and its first comment's REST id."""

    id: str
    resolved: bool
    outdated: bool
    path: str
    line: int | None  # None for a comment on the whole file, or on a line that no longer exists
    comment_id: int


THREADS_QUERY = """query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
    reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor }
      nodes { id isResolved isOutdated path line comments(first: 1) { nodes { databaseId } } } } } } }"""
RESOLVE_MUTATION = """mutation($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }"""


@dataclass(frozen=True)
class RunInfo:
    """A workflow run."""

    id: int
    branch: str
    head_sha: str
    conclusion: str
    attempt: int
    workflow_path: str


class GitHubForge:
    """One repository on one GitHub (github.com or Enterprise Server, or a fake)."""

    def __init__(self, repo: str, token: str, api_url: str = "https://api.github.com",
                 server_url: str = "https://github.com", max_wait_s: float = 300.0,
                 sleep: Callable[[float], None] = time.sleep, secrets: Iterable[str] = ()):
        from github import Auth, Github

        self.full_name = repo
        self._token = token
        # Everything the bot writes on GitHub is public: secret values and token shapes are masked.
        self.redactor = Redactor([token, *secrets])
        self.server_url = server_url.rstrip("/")
        self.max_wait_s = max_wait_s
        self._sleep = sleep
        self._gh = Github(base_url=api_url.rstrip("/"), auth=Auth.Token(token), retry=None, lazy=True,
                          seconds_between_requests=None, seconds_between_writes=None, timeout=30)
        self._repo = self._gh.get_repo(repo)

    def __repr__(self) -> str:
        return f"GitHubForge({self.full_name!r}, server_url={self.server_url!r})"

    # -- calling GitHub ------------------------------------------------------------------
    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run `fn`, waiting out secondary rate limits; other GitHub errors become ForgeError."""
        from github import GithubException, RateLimitExceededException

        waited = 0.0
        with span("github.api", what=what) as s:
            while True:
                try:
                    return fn()
                except (RateLimitExceededException, GithubException) as exc:
                    s.set(status_code=exc.status)
                    wait = _retry_after(exc)
                    if wait is None:
                        raise ForgeError(f"GitHub refused to {what}: {exc.status} {_message(exc)}",
                                         exc.status) from None
                    if waited + wait > self.max_wait_s:
                        raise ForgeError(f"GitHub rate-limited us while trying to {what}; waited {waited:.0f}s, "
                                         "which is the limit; run again later") from None
                    log.warning("GitHub secondary rate limit while trying to %s; waiting %.0fs", what, wait)
                    self._sleep(wait)
                    waited += wait
                    s.set(rate_limited_s=waited)

    def _not_found_is_none(self, what: str, fn: Callable[[], T]) -> T | None:
        try:
            return self.call(what, fn)
        except ForgeError as exc:
            if exc.status == 404:
                return None
            raise

    def whoami(self) -> str | None:
        """The token's user for a personal token; None for App and Actions tokens (they cannot ask)."""
        try:
            return self.call("read the token's user", lambda: self._gh.get_user().login)
        except ForgeError as exc:
            if exc.status in (401, 403, 404):
                return None
            raise

    def default_branch(self) -> str:
        return self.call("read the repository", lambda: self._repo.default_branch)

    def read_file(self, path: str, ref: str) -> str | None:
        """A file's text at `ref`, or None when it does not exist there."""
        def fetch() -> str:
            content = self._repo.get_contents(path, ref=ref)
            if isinstance(content, list):
                raise ForgeError(f"{path} is a directory in {self.full_name}; expected a file", 404)
            return content.decoded_content.decode("utf-8", errors="replace")
        return self._not_found_is_none(f"read {path}", fetch)

    # -- people, issues, comments, labels -------------------------------------------------
    def permission(self, login: str) -> str:
        """The user's legacy permission: admin, write (also maintain), read (also triage) or none."""
        return self._not_found_is_none("check permission", lambda: self._repo.get_collaborator_permission(login)) or "none"

    def issue(self, number: int) -> tuple[str, str, list[str]]:
        """An issue's title, body and label names."""
        def fetch() -> tuple[str, str, list[str]]:
            issue = self._repo.get_issue(number)
            return issue.title, issue.body or "", [label.name for label in issue.labels]
        return self.call(f"read issue #{number}", fetch)

    def comments(self, number: int) -> list[CommentInfo]:
        """All comments on an issue or PR, oldest first."""
        def fetch() -> list[CommentInfo]:
            return [CommentInfo(c.id, c.body or "", c.user.login, c.user.type == "Bot")
                    for c in self._repo.get_issue(number).get_comments()]
        return self.call(f"list comments on #{number}", fetch)

    def add_secrets(self, values: Iterable[str]) -> None:
        """Also mask these values (a configured `secret_env`) in everything written from now on."""
        self.redactor = self.redactor.extended(values)

    def comment(self, number: int, body: str) -> int:
        """Post a comment; returns its id."""
        body = self.redactor.text(body)
        return self.call(f"comment on #{number}", lambda: self._repo.get_issue(number).create_comment(body)).id

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        """Replace a comment's body in place."""
        body = self.redactor.text(body)
        self.call("update a comment", lambda: self._repo.get_issue(number).get_comment(comment_id).edit(body))

    def react(self, number: int, comment_id: int | None = None, content: str = "eyes") -> None:
        """Put a reaction on comment `comment_id`, or on issue #number itself; reacting twice keeps one."""
        issue = self._repo.get_issue(number)  # lazy: no request until the reaction is posted
        target = issue.get_comment(comment_id) if comment_id else issue
        self.call(f"react to #{number}", lambda: target.create_reaction(content))

    def add_labels(self, number: int, *labels: str) -> None:
        self.call(f"label #{number}", lambda: self._repo.get_issue(number).add_to_labels(*labels))

    def remove_label(self, number: int, label: str) -> None:
        """Remove a label; a label that is not there is fine."""
        self._not_found_is_none(f"unlabel #{number}", lambda: self._repo.get_issue(number).remove_from_labels(label))

    # -- pull requests and reviews --------------------------------------------------------
    def find_pull(self, branch: str) -> PullInfo | None:
        """The open pull request from `branch`, if any."""
        owner = self.full_name.split("/")[0]
        pulls = self.call("list pull requests", lambda: list(self._repo.get_pulls(state="open", head=f"{owner}:{branch}")))
        return _pull_info(pulls[0]) if pulls else None

    def pull(self, number: int) -> PullInfo:
        return self.call(f"read PR #{number}", lambda: _pull_info(self._repo.get_pull(number)))

    def open_draft_pull(self, branch: str, base: str, title: str, body: str) -> PullInfo:
        """Open a draft PR; when one already exists for `branch`, update its body instead."""
        from github import GithubException

        title, body = self.redactor.text(title), self.redactor.text(body)
        try:
            pull = self._repo.create_pull(base=base, head=branch, title=title, body=body, draft=True)
            return _pull_info(pull)
        except GithubException as exc:
            if exc.status == 422 and "already exists" in str(exc.data):
                existing = self.find_pull(branch)
                if existing:
                    self.update_pull_body(existing.number, body)
                    return existing
            if _retry_after(exc) is not None:
                return self.call("open a pull request", lambda: _pull_info(
                    self._repo.create_pull(base=base, head=branch, title=title, body=body, draft=True)))
            raise ForgeError(f"GitHub refused to open a pull request from {branch}: {exc.status} {_message(exc)}") from None

    def update_pull_body(self, number: int, body: str) -> None:
        body = self.redactor.text(body)
        self.call(f"update PR #{number}", lambda: self._repo.get_pull(number).edit(body=body))

    def mark_ready(self, number: int) -> None:
        self.call(f"mark PR #{number} ready for review", lambda: self._repo.get_pull(number).mark_ready_for_review())

    def merge(self, number: int, sha: str, method: str = "squash") -> None:
        """Merge PR #`number` only if its head is still `sha` (GitHub refuses otherwise)."""
        self.call(f"merge PR #{number}", lambda: self._repo.get_pull(number).merge(merge_method=method, sha=sha))

    def review(self, number: int, review_id: int) -> ReviewInfo:
        """A review with its inline comments."""
        def fetch() -> ReviewInfo:
            pull = self._repo.get_pull(number)
            review = pull.get_review(review_id)
            inline = tuple((c.path, c.line or c.position or 0, c.body) for c in pull.get_single_review_comments(review_id))
            return ReviewInfo(review.id, review.state, review.body or "", review.user.login, review.commit_id, inline)
        return self.call(f"read review {review_id} on PR #{number}", fetch)

    def reviews(self, number: int) -> list[ReviewInfo]:
        """The reviews of a PR with their current state (APPROVED, CHANGES_REQUESTED, DISMISSED, ...)."""
        def fetch() -> list[ReviewInfo]:
            return [ReviewInfo(r.id, r.state, r.body or "", r.user.login, r.commit_id)
                    for r in self._repo.get_pull(number).get_reviews()]
        return self.call(f"list reviews on PR #{number}", fetch)

    def review_threads(self, number: int) -> list[ReviewThread]:
        """The PR's inline review threads (GraphQL: REST has no threads; `<api>/graphql` on GHES too)."""
        owner, name = self.full_name.split("/")
        threads: list[ReviewThread] = []
        cursor = None
        while True:
            variables: dict[str, Any] = {"owner": owner, "name": name, "number": number, "cursor": cursor}

            def page_of_threads(v: dict[str, Any] = variables) -> tuple[Any, Any]:
                return self._gh.requester.graphql_query(THREADS_QUERY, v)

            _, data = self.call(f"list review threads on PR #{number}", page_of_threads)
            page = data["data"]["repository"]["pullRequest"]["reviewThreads"]
            threads += [ReviewThread(t["id"], t["isResolved"], t["isOutdated"], t["path"], t["line"],
                                     t["comments"]["nodes"][0]["databaseId"])
                        for t in page["nodes"] if t["comments"]["nodes"]]
            if not page["pageInfo"]["hasNextPage"]:
                return threads
            cursor = page["pageInfo"]["endCursor"]

    def reply_in_thread(self, number: int, comment_id: int, body: str) -> None:
        """Answer in the review thread that review comment `comment_id` starts."""
        body = self.redactor.text(body)
        self.call(f"reply to review comment {comment_id}",
                  lambda: self._repo.get_pull(number).create_review_comment_reply(comment_id, body))

    def resolve_thread(self, thread_id: str) -> None:
        """Mark a review thread resolved (GraphQL `resolveReviewThread`)."""
        self.call("resolve a review thread",
                  lambda: self._gh.requester.graphql_query(RESOLVE_MUTATION, {"threadId": thread_id}))

    def request_review(self, number: int, login: str) -> None:
        """Ask `login` to review PR #`number`."""
        self.call(f"request a review of PR #{number} from @{login}",
                  lambda: self._repo.get_pull(number).create_review_request(reviewers=[login]))

    # -- refs and Actions ----------------------------------------------------------------
    def branch_head(self, branch: str) -> str | None:
        """The branch's current head SHA on GitHub, or None when it does not exist."""
        return self._not_found_is_none(f"read branch {branch}", lambda: self._repo.get_git_ref(f"heads/{branch}").object.sha)

    def run(self, run_id: int) -> RunInfo:
        return self.call(f"read workflow run {run_id}", lambda: _run_info(self._repo.get_workflow_run(run_id)))

    def runs(self, head_sha: str | None = None, check_suite_id: int | None = None) -> list[RunInfo]:
        """Workflow runs for a head SHA or a check suite."""
        kwargs: dict[str, Any] = {"head_sha": head_sha} if head_sha else {"check_suite_id": check_suite_id}
        return self.call("list workflow runs", lambda: [_run_info(r) for r in self._repo.get_workflow_runs(**kwargs)])

    def failed_job_logs(self, run_id: int) -> list[tuple[str, str]]:
        """(job name, log text) of the failed (or timed-out) jobs of a run's latest attempt."""
        import requests

        def fetch() -> list[tuple[str, str]]:
            jobs = [j for j in self._repo.get_workflow_run(run_id).jobs() if j.conclusion in ("failure", "timed_out")]
            return [(job.name, job.logs_url()) for job in jobs]

        logs = []
        for name, url in self.call(f"list failed jobs of run {run_id}", fetch):
            response = requests.get(url, timeout=60)  # a signed URL: no token goes there
            if response.status_code != 200:
                raise ForgeError(f"could not download the log of job {name!r}: HTTP {response.status_code}")
            logs.append((name, response.text))
        return logs

    def suite_failures(self, suite_id: int) -> list[tuple[str, str]]:
        """(check run name, report) of the failed check runs of another CI app's check suite.

        The report is what the app published: the output's title, summary and text, then its
        annotations (file:line: message), as the closest thing to a log such apps offer.
        """
        def fetch() -> list[tuple[str, str]]:
            found = []
            for run in self._repo.get_check_suite(suite_id).get_check_runs():
                if run.conclusion not in ("failure", "timed_out"):
                    continue
                output = run.output
                parts = [output.title, output.summary, output.text] if output is not None else []
                notes = [f"{a.path}:{a.start_line}: {a.annotation_level}: {a.message}"
                         for a in list(run.get_annotations())[:50]]
                found.append((run.name, "\n".join(p for p in [*parts, *notes] if p)))
            return found
        return self.call(f"read the check runs of check suite {suite_id}", fetch)

    def rerequest_suite(self, suite_id: int) -> bool:
        """Ask the suite's app to run it again (its check_suite `rerequested` event)."""
        return self.call(f"re-request check suite {suite_id}", lambda: self._repo.get_check_suite(suite_id).rerequest())

    def rerun_failed_jobs(self, run_id: int) -> bool:
        return self.call(f"re-run failed jobs of run {run_id}", lambda: self._repo.get_workflow_run(run_id).rerun_failed_jobs())

    def dispatch(self, workflow: str, ref: str) -> None:
        """Start `workflow` (file name or id) on `ref` through workflow_dispatch."""
        self.call(f"dispatch {workflow} on {ref}", lambda: self._repo.get_workflow(workflow).create_dispatch(ref, throw=True))

    def checks_green(self, sha: str, ignore_run: str | None = None) -> tuple[bool, str]:
        """Whether every check on `sha` finished green, and a sentence saying why (not).

        Checks are the check runs of every app (GitHub Actions' jobs among them) and the commit
        statuses of older CI services. No checks at all is not green: nothing tested the commit.
        `ignore_run` is the Actions run id of the bot's own job, which is still running.
        """
        def fetch() -> tuple[list[tuple[str, str, str | None]], list[tuple[str, str]]]:
            commit = self._repo.get_commit(sha)
            mine = f"/actions/runs/{ignore_run}/" if ignore_run else None
            runs: list[tuple[str, str, str | None]] = [
                (c.name, c.status, c.conclusion) for c in commit.get_check_runs()
                if not (mine and mine in (c.details_url or ""))]
            statuses = [(st.context, st.state) for st in commit.get_combined_status().statuses]
            return runs, statuses

        runs, statuses = self.call(f"read the checks of {sha[:7]}", fetch)
        short = sha[:7]
        if not runs and not statuses:
            return False, f"no checks have run on {short}, so nothing has tested it"
        failed = [n for n, status, c in runs if status == "completed" and c not in GREEN]
        failed += [context for context, state in statuses if state in ("failure", "error")]
        if failed:
            return False, f"{len(failed)} checks on {short} did not pass ({', '.join(failed[:5])})"
        pending = [n for n, status, _ in runs if status != "completed"]
        pending += [context for context, state in statuses if state == "pending"]
        if pending:
            return False, f"{len(pending)} checks on {short} have not finished ({', '.join(pending[:5])})"
        return True, f"all {len(runs) + len(statuses)} checks on {short} are green"

    # -- git -------------------------------------------------------------------------------
    def git_env(self) -> dict[str, str]:
        """Environment that lets git authenticate to the server without storing the token."""
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{self.server_url}/.extraheader",
                "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}", "GIT_TERMINAL_PROMPT": "0"}

    def clone(self, dest: Path, branch: str | None = None) -> Path:
        """Clone the repository into `dest` (and fetch `branch` as a remote branch when it exists)."""
        from git import GitCommandError, Repo

        url = f"{self.server_url}/{self.full_name}.git"
        try:
            with span("git.clone", url=url):
                repo = Repo.clone_from(url, dest, env=self.git_env())
        except GitCommandError as exc:
            raise ForgeError(f"could not clone {url}: {_git_words(exc)}; check the token can read the repository") from None
        with repo.config_writer() as cfg:
            cfg.set_value("user", "name", "ensemble-bot")
            cfg.set_value("user", "email", "ensemble-bot@users.noreply.github.com")
        return Path(dest)

    def push(self, clone: Path, branch: str, expected: str | None, source: str | None = None) -> None:
        """Push local `branch` (or `source`) to `branch`, only if the remote is still at `expected` (None: absent)."""
        from git import GitCommandError, Repo

        repo = Repo(clone)
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        try:
            with span("git.push", branch=branch, expected=expected or "(absent)"), \
                    repo.git.custom_environment(**self.git_env()):
                repo.git.push(lease, "origin", f"{source or 'refs/heads/' + branch}:refs/heads/{branch}")
        except GitCommandError as exc:
            raise ForgeError(f"could not push {branch}: {_git_words(exc)}; someone else may have pushed to it") from None


def _retry_after(exc: Exception) -> float | None:
    """Seconds to wait for a rate-limit answer, or None when the error is not one."""
    from github import RateLimitExceededException

    status = getattr(exc, "status", None)
    headers = {k.lower(): v for k, v in (getattr(exc, "headers", None) or {}).items()}
    if not (isinstance(exc, RateLimitExceededException) or status == 429):
        return None
    if headers.get("retry-after", "").isdigit():
        return float(headers["retry-after"])
    if headers.get("x-ratelimit-reset", "").isdigit():
        return max(1.0, float(headers["x-ratelimit-reset"]) - time.time())
    return 60.0  # GitHub's advice when neither header is present


def _message(exc: Any) -> str:
    data = getattr(exc, "data", None)
    return data.get("message", "") if isinstance(data, dict) else str(data or "")


def _git_words(exc: Any) -> str:
    return (getattr(exc, "stderr", "") or str(exc)).strip().replace("\n", " ")[-400:]


def _pull_info(pull: Any) -> PullInfo:
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else ""
    return PullInfo(pull.number, pull.head.ref, pull.head.sha, bool(pull.draft), pull.state, pull.body or "",
                    pull.html_url, head_repo)


def _run_info(run: Any) -> RunInfo:
    return RunInfo(run.id, run.head_branch or "", run.head_sha, run.conclusion or "", run.run_attempt or 1, run.path or "")

"""What the handlers read from GitHub, as plain frozen data (no PyGithub objects past this point)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.WorkflowRun import WorkflowRun


@dataclass(frozen=True)
class CommentInfo:
    """An issue or PR comment."""

    id: int
    body: str
    login: str
    is_bot: bool
    created_at: datetime | None = None  # timezone-aware (UTC)


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
    labels: tuple[str, ...] = ()
    base_ref: str = ""  # the branch it would merge into
    author: str = ""  # who opened it
    title: str = ""


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


@dataclass(frozen=True)
class RunInfo:
    """A workflow run."""

    id: int
    branch: str
    head_sha: str
    conclusion: str
    attempt: int
    workflow_path: str
    status: str = "completed"  # queued, in_progress, ... or completed


@dataclass(frozen=True)
class CommitInfo:
    """A commit as the history listing shows it: its first parent, author (their GitHub login when GitHub knows
    it) and summary line."""

    sha: str
    parent: str  # the first parent ('' for a root commit)
    login: str  # '' when the author's e-mail belongs to no GitHub account
    name: str
    summary: str


@dataclass(frozen=True)
class IssueInfo:
    """An issue in a listing: its number, author, state and body."""

    number: int
    login: str
    state: str
    body: str


def pull_info(pull: PullRequest) -> PullInfo:
    """A PyGithub pull request as `PullInfo`."""
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else ""
    return PullInfo(pull.number, pull.head.ref, pull.head.sha, bool(pull.draft), pull.state, pull.body or "",
                    pull.html_url, head_repo, tuple(label.name for label in pull.labels), pull.base.ref,
                    pull.user.login if pull.user is not None else "", pull.title or "")


def run_info(run: WorkflowRun) -> RunInfo:
    """A PyGithub workflow run as `RunInfo`."""
    return RunInfo(run.id, run.head_branch or "", run.head_sha, run.conclusion or "", run.run_attempt or 1, run.path or "",
                   run.status or "completed")

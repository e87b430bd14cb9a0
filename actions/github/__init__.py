"""GitHub for the Actions entry: issues, pulls, reviews, checks and Actions through PyGithub, clone and push through the git facade (common.git).

Only `actions/` talks to GitHub. The engine never does: it works in the clone through the local
forge (`bot/forge`: worktrees and the branch `ensemble/<slug>`), and the handlers bring the clone
in, push the branch and write the pull request and comments with `GitHubRepo`.

    base.py      the client, `call` (rate-limit waits), `GitHubError`, the event's caches and its snapshot
    snapshot.py  the event's one GraphQL read of its first questions: the query and reading the answer
    issues.py    issues, comments, reactions, labels
    pulls.py     pull requests, reviews, review threads
    checks.py    branches, workflow runs, check suites, commit statuses
    remote.py    clone and push, the token passed to git through the environment
    info.py      the plain data the handlers read (`PullInfo`, `CommentInfo`, ...)
"""

from __future__ import annotations

from actions.github.base import GitHubError
from actions.github.checks import GREEN, CheckCalls
from actions.github.info import (
    CommentInfo,
    CommitInfo,
    IssueInfo,
    PullInfo,
    ReviewInfo,
    ReviewThread,
    RunInfo,
)
from actions.github.issues import IssueCalls
from actions.github.pulls import PullCalls
from actions.github.remote import RemoteCalls

__all__ = ["GREEN", "CommentInfo", "CommitInfo", "GitHubError", "GitHubRepo", "IssueInfo", "PullInfo", "ReviewInfo",
           "ReviewThread", "RunInfo"]


class GitHubRepo(IssueCalls, PullCalls, CheckCalls, RemoteCalls):
    """One repository on one GitHub (github.com or Enterprise Server, or a fake)."""

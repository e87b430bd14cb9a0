"""A fake GitHub on localhost: the REST subset the bot uses, its GraphQL (fakes/github_graphql.py), git smart HTTP.

    with FakeGitHub(tmp_path) as gh:
        repo = gh.add_repo("octo/demo", {"app.py": "..."})
        gh.set_permission("octo/demo", "alice", "write")
        Github(base_url=gh.api_url, ...)          # PyGithub, unmodified
        git clone http://127.0.0.1:PORT/octo/demo.git   (Basic auth x-access-token:<token>)

State lives in memory (issues, comments, labels, pulls, reviews, Actions runs and jobs, check
suites); git refs live in real bare repositories served by `git http-backend`, so branch heads
are what git really pushed. Every API request is logged in `requests` for tests to assert on.
JSON shapes and status codes follow GitHub's: 404 "Not Found", 422 with "already exists",
403 secondary rate limit with `retry-after` (inject with `fail_next`). Reads carry an `ETag`; a
read that sends it back in `If-None-Match` while the answer is unchanged gets 304 Not Modified,
with no body (logged like any request, with its status).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess
import tempfile
import threading
import time
import urllib.parse
from base64 import b64decode, b64encode
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fakes.peers import Peer, peer_of

API = "/api/v3"
SECONDARY_LIMIT = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class Logged:
    """One API request as the fake saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int = 0
    peer: Peer | None = None  # the process that sent it, when the fake looks (`trace_peers`)


@dataclass
class Injected:
    """An error to answer instead of the real response, `times` times."""

    status: int
    message: str
    headers: dict[str, str]
    times: int
    method: str | None
    path_pattern: str | None
    body_pattern: str | None = None  # a GraphQL request is told apart by its document: "addComment"


@dataclass
class RepoState:
    """One repository: its bare git directory and its issue tracker, pulls and Actions."""

    full_name: str
    bare: Path
    id: int
    default_branch: str = "main"
    dismiss_stale_reviews: bool = False
    permissions: dict[str, str] = field(default_factory=dict)
    issues: dict[int, dict] = field(default_factory=dict)
    comments: dict[int, dict] = field(default_factory=dict)
    labels: dict[str, dict] = field(default_factory=dict)
    pulls: dict[int, dict] = field(default_factory=dict)
    reviews: dict[int, dict] = field(default_factory=dict)
    review_comments: dict[int, dict] = field(default_factory=dict)
    resolved_threads: set[int] = field(default_factory=set)  # review threads by their first comment's id
    workflows: dict[int, dict] = field(default_factory=dict)
    runs: dict[int, dict] = field(default_factory=dict)
    jobs: dict[int, dict] = field(default_factory=dict)
    dispatches: list[dict] = field(default_factory=list)
    reruns: list[int] = field(default_factory=list)
    cancels: list[int] = field(default_factory=list)  # ids of the workflow runs cancelled through the API
    statuses: list[dict] = field(default_factory=list)  # commit statuses (sha, state, context)
    check_runs: list[dict] = field(default_factory=list)  # check runs of other apps (Actions jobs are derived)
    suites: dict[int, dict] = field(default_factory=dict)  # check suites of other apps
    rerequests: list[int] = field(default_factory=list)
    reactions: list[dict] = field(default_factory=list)  # on issues and comments: subject, id, content, user
    verified: set[str] = field(default_factory=set)  # commits made through the Git Data API, which GitHub signs


class FakeGitHub:
    """The fake server; use as a context manager. Helpers below set up state for tests."""

    def __init__(self, root: Path, token: str = "ghs_faketoken0123456789", token_user: str = "github-actions[bot]"):
        self.root = Path(root)
        self.tokens: dict[str, str] = {token: token_user}
        self.token = token
        self.read_only: set[str] = set()  # tokens that may read and nothing else (a fork's pull_request job's)
        self.repos: dict[str, RepoState] = {}
        self.requests: list[Logged] = []
        self.git_requests: list[str] = []  # "METHOD /path" of each git smart-HTTP request (clone, fetch, push)
        self.injected: list[Injected] = []
        self.teams: dict[str, dict[str, str]] = {}  # "org/team-slug" -> {login: membership state}
        self.emails: dict[str, str] = {}  # commit e-mail -> the GitHub login it belongs to (add_email)
        self.trace_peers = False  # look up the process at the other end of each API request's connection
        # GraphQL (fakes/github_graphql.py): fields that answer with an error (name -> (type, message)), and
        # fields the schema lacks (as on an older Enterprise Server: the whole document is refused)
        self.graphql_errors: dict[str, tuple[str, str]] = {}
        self.graphql_missing: set[str] = set()
        self.graphql_blob_limit = 512 * 1024  # a Blob's `text` longer than this is cut and `isTruncated`
        self.on_rerun: Callable[[RepoState, dict], None] | None = None
        self.on_dispatch: Callable[[RepoState, dict], None] | None = None
        self.on_rerequest: Callable[[RepoState, dict], None] | None = None
        self._ids = itertools.count(1000)
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def server_url(self) -> str:
        assert self._server is not None, "use FakeGitHub as a context manager"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.server_url + API

    def next_id(self) -> int:
        return next(self._ids)

    # -- set-up helpers --------------------------------------------------------------------
    def add_user_token(self, token: str, login: str) -> None:
        """Accept `token` as `login` (for a PAT or an App installation token)."""
        self.tokens[token] = login

    def add_repo(self, full_name: str, files: dict[str, str], default_branch: str = "main") -> RepoState:
        """A repository whose default branch holds `files` in one commit."""
        bare = self.root / "git" / f"{full_name}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        _git(self.root, "init", "-q", "--bare", "-b", default_branch, str(bare))
        _git(bare, "config", "uploadpack.allowFilter", "true")  # as github.com: partial clones (--filter=blob:none)
        with tempfile.TemporaryDirectory() as work:
            _git(Path(work), "init", "-q", "-b", default_branch)
            for name, text in files.items():
                (Path(work) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(work) / name).write_text(text)
            _git(Path(work), "add", "-A")
            _git(Path(work), "-c", "user.name=Octo", "-c", "user.email=octo@example.com", "commit", "-q", "-m", "initial")
            _git(Path(work), "push", "-q", str(bare), f"HEAD:refs/heads/{default_branch}")
        state = RepoState(full_name, bare, self.next_id(), default_branch)
        self.repos[full_name] = state
        return state

    def add_team(self, org: str, slug: str, members: tuple[str, ...], pending: tuple[str, ...] = ()) -> None:
        """A team `org/slug` with active `members` and invited (`pending`) ones."""
        self.teams[f"{org}/{slug}"] = {**{m: "active" for m in members}, **{m: "pending" for m in pending}}

    def add_email(self, email: str, login: str) -> None:
        """Commits by `email` are `login`'s (as GitHub links a verified e-mail to its account)."""
        self.emails[email.lower()] = login

    def login_of(self, email: str) -> str:
        """The account a commit e-mail belongs to: one added with `add_email`, or a `<login>@users.noreply...`
        address; '' for any other (GitHub shows no account for such a commit)."""
        email = email.lower()
        if email in self.emails:
            return self.emails[email]
        local, _, domain = email.partition("@")
        return local.split("+", 1)[-1] if domain == "users.noreply.github.com" else ""

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        """`permission` is admin, maintain, write, triage, read or none."""
        self.repos[full_name].permissions[login] = permission

    def add_issue(self, full_name: str, title: str, body: str, user: str = "alice", labels: tuple[str, ...] = ()) -> dict:
        repo = self.repos[full_name]
        number = self._next_number(repo)
        issue = {"id": self.next_id(), "number": number, "title": title, "body": body, "user": self.user(user),
                 "labels": [self._label(repo, name) for name in labels], "state": "open", "locked": False,
                 "comments": 0, "created_at": _now(), "updated_at": _now(), "closed_at": None,
                 "author_association": "MEMBER", "assignees": [], "milestone": None}
        repo.issues[number] = issue
        return self.issue_json(repo, issue)

    def add_comment(self, full_name: str, number: int, body: str, user: str = "alice") -> dict:
        repo = self.repos[full_name]
        comment = {"id": self.next_id(), "issue_number": number, "body": body, "user": self.user(user),
                   "created_at": _now(), "updated_at": _now(), "author_association": "MEMBER"}
        repo.comments[comment["id"]] = comment
        repo.issues[number]["comments"] += 1
        return self.comment_json(repo, comment)

    def add_fork_pull(self, full_name: str, fork_owner: str, branch: str, title: str,
                      files: dict[str, str | None] | None = None, body: str = "from a fork") -> int:
        """An open PR from `branch` of `fork_owner`'s fork: its head is the default branch's commit, or a commit of
        `files` (None deletes one) on it, which only `refs/pull/<N>/head` names here, as on GitHub."""
        repo = self.repos[full_name]
        head = self.head_sha(full_name, repo.default_branch) or ""
        if files:
            head = self.make_commit(full_name, head, files, author=(fork_owner, f"{fork_owner}@example.com"))
        issue = self.add_issue(full_name, title, body, user=fork_owner)
        repo.pulls[issue["number"]] = {"id": self.next_id(), "number": issue["number"], "head_ref": branch,
                                       "base_ref": repo.default_branch, "draft": False, "merged": False,
                                       "fork": fork_owner, "last_head_sha": head}
        _git(repo.bare, "update-ref", f"refs/pull/{issue['number']}/head", head)
        return issue["number"]

    def add_pull(self, full_name: str, branch: str, title: str, body: str = "", user: str = "alice") -> int:
        """An open PR from `branch` of the repository itself into the default branch, opened by `user`."""
        repo = self.repos[full_name]
        issue = self.add_issue(full_name, title, body, user=user)
        repo.pulls[issue["number"]] = {"id": self.next_id(), "number": issue["number"], "head_ref": branch,
                                       "base_ref": repo.default_branch, "draft": False, "merged": False}
        return issue["number"]

    def make_commit(self, full_name: str, parent: str, files: dict[str, str | None], message: str = "a change",
                    author: tuple[str, str] = ("Octo", "octo@example.com")) -> str:
        """A commit of `files` (None deletes one) on `parent` in the repository, on no branch; its SHA."""
        repo = self.repos[full_name]
        with tempfile.TemporaryDirectory() as work:
            index = {"GIT_INDEX_FILE": str(Path(work) / "index")}
            _git_env(repo.bare, index, "read-tree", parent)
            for name, text in files.items():
                if text is None:
                    _git_env(repo.bare, index, "update-index", "--force-remove", name)
                    continue
                blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo.bare, input=text,
                                      capture_output=True, text=True, check=True).stdout.strip()
                _git_env(repo.bare, index, "update-index", "--add", "--cacheinfo", f"100644,{blob},{name}")
            tree = _git_env(repo.bare, index, "write-tree").strip()
        who = {f"GIT_{role}_{part}": value for role in ("AUTHOR", "COMMITTER")
               for part, value in (("NAME", author[0]), ("EMAIL", author[1]))}
        return _git_env(repo.bare, who, "commit-tree", tree, "-p", parent, "-m", message).strip()

    def add_review(self, full_name: str, number: int, state: str, body: str, user: str = "alice",
                   inline: tuple[tuple[str, int, str], ...] = (), commit: str | None = None) -> dict:
        """A submitted review (APPROVED, CHANGES_REQUESTED, COMMENTED) with inline (path, line, body)."""
        repo = self.repos[full_name]
        pull = repo.pulls[number]
        head = commit or self.head_sha(full_name, pull["head_ref"]) or pull.get("last_head_sha")
        review = {"id": self.next_id(), "pull_number": number, "user": self.user(user), "body": body, "state": state,
                  "commit_id": head, "submitted_at": _now(),
                  "author_association": "MEMBER"}
        repo.reviews[review["id"]] = review
        for path, line, text in inline:
            rc = {"id": self.next_id(), "pull_number": number, "pull_request_review_id": review["id"], "path": path,
                  "line": line, "body": text, "user": self.user(user), "commit_id": review["commit_id"],
                  "created_at": _now(), "updated_at": _now(), "diff_hunk": "", "position": line}
            repo.review_comments[rc["id"]] = rc
        return self.review_json(repo, review)

    def add_workflow(self, full_name: str, file_name: str, name: str = "CI") -> dict:
        repo = self.repos[full_name]
        wf = {"id": self.next_id(), "name": name, "path": f".github/workflows/{file_name}", "state": "active",
              "created_at": _now(), "updated_at": _now()}
        repo.workflows[wf["id"]] = wf
        return wf

    def add_run(self, full_name: str, branch: str, head_sha: str, conclusion: str,
                jobs: tuple[tuple[str, str, str], ...], workflow: str = "ci.yml", event: str = "pull_request") -> dict:
        """A completed workflow run on `branch` at `head_sha`; jobs are (name, conclusion, log text)."""
        repo = self.repos[full_name]
        wf = next((w for w in repo.workflows.values() if w["path"].endswith("/" + workflow)), None) or \
            self.add_workflow(full_name, workflow)
        run = {"id": self.next_id(), "name": wf["name"], "workflow_id": wf["id"], "head_branch": branch,
               "head_sha": head_sha, "event": event, "status": "completed", "conclusion": conclusion,
               "run_attempt": 1, "run_number": len(repo.runs) + 1, "check_suite_id": self.next_id(),
               "created_at": _now(), "updated_at": _now(), "run_started_at": _now(), "pull_requests": []}
        repo.runs[run["id"]] = run
        self.set_jobs(full_name, run, jobs)
        return self.run_json(repo, run)

    def start_run(self, full_name: str, branch: str, head_sha: str, status: str = "in_progress",
                  workflow: str = "ci.yml", event: str = "push") -> dict:
        """A workflow run that has not finished (`status` queued, in_progress, waiting or pending)."""
        run = self.add_run(full_name, branch, head_sha, "", (), workflow=workflow, event=event)
        self.repos[full_name].runs[run["id"]].update(status=status, conclusion=None)
        return self.run_json(self.repos[full_name], self.repos[full_name].runs[run["id"]])

    def set_jobs(self, full_name: str, run: dict, jobs: tuple[tuple[str, str, str], ...]) -> None:
        """Replace the latest attempt's jobs of `run` (as a re-run does)."""
        repo = self.repos[full_name]
        run = repo.runs[run["id"]]
        for job_id in [j for j, job in repo.jobs.items() if job["run_id"] == run["id"]]:
            repo.jobs[job_id]["superseded"] = True
        for name, conclusion, log in jobs:
            job = {"id": self.next_id(), "run_id": run["id"], "name": name, "status": "completed",
                   "conclusion": conclusion, "head_sha": run["head_sha"], "run_attempt": run["run_attempt"],
                   "started_at": _now(), "completed_at": _now(), "log": log, "superseded": False,
                   "steps": [{"name": "test", "status": "completed", "conclusion": conclusion, "number": 1}]}
            repo.jobs[job["id"]] = job
        if jobs:
            conclusions = {c for _, c, _ in jobs}
            run["conclusion"] = next((c for c in ("failure", "timed_out", "cancelled") if c in conclusions), "success")

    def add_status(self, full_name: str, sha: str, state: str, context: str = "ci/external") -> None:
        """A commit status (success, pending, failure, error), as older CI services report."""
        self.repos[full_name].statuses.append({"id": self.next_id(), "sha": sha, "state": state, "context": context,
                                               "description": f"{context}: {state}", "created_at": _now()})

    def add_check_run(self, full_name: str, sha: str, name: str, status: str = "completed",
                      conclusion: str | None = "success", app: str = "circleci-checks", suite: int | None = None,
                      output: dict | None = None, annotations: list[dict] | None = None) -> dict:
        """A check run of a third-party app on `sha` (output: title, summary, text)."""
        run = {"id": self.next_id(), "head_sha": sha, "name": name, "status": status, "conclusion": conclusion,
               "app": app, "suite": suite, "output": output or {}, "annotations": annotations or []}
        self.repos[full_name].check_runs.append(run)
        return run

    def add_check_suite(self, full_name: str, branch: str, sha: str, runs: tuple[tuple[str, str, str], ...],
                        app: str = "circleci-checks") -> dict:
        """A completed check suite of a third-party CI app; runs are (name, conclusion, report text)."""
        suite = {"id": self.next_id(), "head_branch": branch, "head_sha": sha, "app": app, "status": "completed"}
        self.repos[full_name].suites[suite["id"]] = suite
        self.set_suite_runs(full_name, suite, runs)
        return suite

    def set_suite_runs(self, full_name: str, suite: dict, runs: tuple[tuple[str, str, str], ...]) -> None:
        """Replace the suite's check runs (as a re-requested suite reports anew)."""
        repo = self.repos[full_name]
        repo.check_runs = [r for r in repo.check_runs if r["suite"] != suite["id"]]
        for name, conclusion, report in runs:
            self.add_check_run(full_name, suite["head_sha"], name, conclusion=conclusion, app=suite["app"],
                               suite=suite["id"], output={"title": f"{name}: {conclusion}", "summary": report,
                                                          "text": None},
                               annotations=[{"path": "calc.py", "start_line": 2, "end_line": 2,
                                             "annotation_level": "failure", "message": "assertion failed here"}]
                               if conclusion == "failure" else [])
        suite["conclusion"] = "failure" if any(c == "failure" for _, c, _ in runs) else "success"

    def fail_next(self, status: int = 403, message: str = SECONDARY_LIMIT, retry_after: int | str | None = 1,
                  times: int = 1, method: str | None = None, path_pattern: str | None = None,
                  body_pattern: str | None = None) -> None:
        """Answer the next matching API request(s) with an error (default: a secondary rate limit)."""
        headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
        self.injected.append(Injected(status, message, headers, times, method, path_pattern, body_pattern))

    def sync_pull_refs(self) -> None:
        """`refs/pull/<N>/head` at each same-repository pull request's branch head, as GitHub keeps it."""
        with self._lock:
            for repo in self.repos.values():
                for number, pull in repo.pulls.items():
                    head = None if pull.get("fork") else self.head_sha(repo.full_name, pull["head_ref"])
                    if head:
                        _git(repo.bare, "update-ref", f"refs/pull/{number}/head", head)

    # -- queries for assertions ------------------------------------------------------------
    def head_sha(self, full_name: str, branch: str) -> str | None:
        out = subprocess.run(["git", "rev-parse", "--verify", "-q", f"refs/heads/{branch}"],
                             cwd=self.repos[full_name].bare, capture_output=True, text=True)
        return out.stdout.strip() or None

    def commit_messages(self, full_name: str, branch: str) -> list[str]:
        """Messages of the commits on `branch` that are not on the default branch, newest first."""
        repo = self.repos[full_name]
        out = _git(repo.bare, "log", "--format=%B%x00", f"{repo.default_branch}..refs/heads/{branch}")
        return [m.strip() for m in out.split("\x00") if m.strip()]

    def file_at(self, full_name: str, ref: str, path: str) -> str:
        return _git(self.repos[full_name].bare, "show", f"{ref}:{path}")

    def comments_on(self, full_name: str, number: int) -> list[dict]:
        repo = self.repos[full_name]
        return [c for c in sorted(repo.comments.values(), key=lambda c: c["id"]) if c["issue_number"] == number]

    def labels_on(self, full_name: str, number: int) -> list[str]:
        return [label["name"] for label in self.repos[full_name].issues[number]["labels"]]

    def calls(self, method: str, pattern: str) -> list[Logged]:
        """Logged requests with `method` whose path matches the regex `pattern`."""
        return [r for r in self.requests if r.method == method and re.search(pattern, r.path)]

    # -- JSON shapes -----------------------------------------------------------------------
    def user(self, login: str) -> dict:
        kind = "Bot" if login.endswith("[bot]") else "User"
        uid = abs(hash(login)) % 10_000_000
        return {"login": login, "id": uid, "node_id": f"U_{uid}", "type": kind, "site_admin": False,
                "url": f"{self.api_url}/users/{login}", "html_url": f"{self.server_url}/{login}"}

    def repo_json(self, repo: RepoState) -> dict:
        owner, name = repo.full_name.split("/")
        base = f"{self.api_url}/repos/{repo.full_name}"
        return {"id": repo.id, "node_id": f"R_{repo.id}", "name": name, "full_name": repo.full_name,
                "private": True, "owner": self.user(owner) | {"type": "Organization"}, "url": base,
                "html_url": f"{self.server_url}/{repo.full_name}", "clone_url": f"{self.server_url}/{repo.full_name}.git",
                "default_branch": repo.default_branch, "fork": False, "archived": False, "disabled": False}

    def issue_json(self, repo: RepoState, issue: dict) -> dict:
        base = f"{self.api_url}/repos/{repo.full_name}/issues/{issue['number']}"
        out = {k: v for k, v in issue.items()} | {
            "node_id": f"I_{issue['id']}", "url": base, "html_url": f"{self.server_url}/{repo.full_name}/issues/{issue['number']}",
            "repository_url": f"{self.api_url}/repos/{repo.full_name}", "comments_url": base + "/comments",
            "labels_url": base + "/labels{/name}", "events_url": base + "/events"}
        if issue["number"] in repo.pulls:
            out["pull_request"] = {"url": f"{self.api_url}/repos/{repo.full_name}/pulls/{issue['number']}"}
        return out

    def comment_json(self, repo: RepoState, comment: dict) -> dict:
        url = f"{self.api_url}/repos/{repo.full_name}/issues/comments/{comment['id']}"
        return {k: v for k, v in comment.items() if k != "issue_number"} | {
            "node_id": f"IC_{comment['id']}", "url": url,
            "html_url": f"{self.server_url}/{repo.full_name}/issues/{comment['issue_number']}#issuecomment-{comment['id']}",
            "issue_url": f"{self.api_url}/repos/{repo.full_name}/issues/{comment['issue_number']}"}

    def pull_json(self, repo: RepoState, pull: dict) -> dict:
        issue = repo.issues[pull["number"]]
        url = f"{self.api_url}/repos/{repo.full_name}/pulls/{pull['number']}"
        head_sha = self.head_sha(repo.full_name, pull["head_ref"]) or pull.get("last_head_sha")
        base_sha = self.head_sha(repo.full_name, pull["base_ref"])
        owner = repo.full_name.split("/")[0]
        return {"id": pull["id"], "node_id": f"PR_{pull['id']}", "number": pull["number"], "url": url,
                "html_url": f"{self.server_url}/{repo.full_name}/pull/{pull['number']}", "issue_url": issue.get("url", ""),
                "state": issue["state"], "title": issue["title"], "body": issue["body"], "user": issue["user"],
                "labels": issue["labels"], "draft": pull["draft"], "merged": pull["merged"], "mergeable": True,
                "locked": False, "created_at": issue["created_at"], "updated_at": issue["updated_at"],
                "closed_at": issue["closed_at"], "merged_at": pull.get("merged_at"), "author_association": "NONE",
                "head": self._head_json(repo, pull, owner, head_sha),
                "base": {"label": f"{owner}:{pull['base_ref']}", "ref": pull["base_ref"], "sha": base_sha,
                         "repo": self.repo_json(repo), "user": self.user(owner)},
                "commits_url": url + "/commits", "review_comments_url": url + "/comments",
                "comments_url": f"{self.api_url}/repos/{repo.full_name}/issues/{pull['number']}/comments"}

    def _head_json(self, repo: RepoState, pull: dict, owner: str, head_sha: str | None) -> dict:
        """The PR's head; `pull["fork"]` (a fork's owner) puts the head branch in that user's fork."""
        if not pull.get("fork"):
            return {"label": f"{owner}:{pull['head_ref']}", "ref": pull["head_ref"], "sha": head_sha,
                    "repo": self.repo_json(repo), "user": self.user(owner)}
        fork = pull["fork"]
        name = f"{fork}/{repo.full_name.split('/')[1]}"
        fork_json = self.repo_json(repo) | {"full_name": name, "name": name.split("/")[1], "fork": True,
                                            "owner": self.user(fork), "id": repo.id + 1,
                                            "url": f"{self.api_url}/repos/{name}",
                                            "html_url": f"{self.server_url}/{name}"}
        return {"label": f"{fork}:{pull['head_ref']}", "ref": pull["head_ref"], "sha": pull.get("last_head_sha"),
                "repo": fork_json, "user": self.user(fork)}

    def review_json(self, repo: RepoState, review: dict) -> dict:
        pr_url = f"{self.api_url}/repos/{repo.full_name}/pulls/{review['pull_number']}"
        return {k: v for k, v in review.items() if k != "pull_number"} | {
            "node_id": f"PRR_{review['id']}", "pull_request_url": pr_url,
            "html_url": f"{self.server_url}/{repo.full_name}/pull/{review['pull_number']}#pullrequestreview-{review['id']}"}

    def review_comment_json(self, repo: RepoState, rc: dict) -> dict:
        return {k: v for k, v in rc.items() if k != "pull_number"} | {
            "node_id": f"PRRC_{rc['id']}", "url": f"{self.api_url}/repos/{repo.full_name}/pulls/comments/{rc['id']}",
            "pull_request_url": f"{self.api_url}/repos/{repo.full_name}/pulls/{rc['pull_number']}"}

    def run_json(self, repo: RepoState, run: dict) -> dict:
        url = f"{self.api_url}/repos/{repo.full_name}/actions/runs/{run['id']}"
        return dict(run) | {"node_id": f"WFR_{run['id']}", "url": url, "jobs_url": url + "/jobs", "logs_url": url + "/logs",
                            "rerun_url": url + "/rerun", "cancel_url": url + "/cancel",
                            "workflow_url": f"{self.api_url}/repos/{repo.full_name}/actions/workflows/{run['workflow_id']}",
                            "html_url": f"{self.server_url}/{repo.full_name}/actions/runs/{run['id']}",
                            "repository": self.repo_json(repo), "head_repository": self.repo_json(repo)}

    def job_json(self, repo: RepoState, job: dict) -> dict:
        url = f"{self.api_url}/repos/{repo.full_name}/actions/jobs/{job['id']}"
        return {k: v for k, v in job.items() if k not in ("log", "superseded")} | {
            "node_id": f"J_{job['id']}", "url": url, "run_url": f"{self.api_url}/repos/{repo.full_name}/actions/runs/{job['run_id']}",
            "html_url": f"{self.server_url}/{repo.full_name}/actions/runs/{job['run_id']}/job/{job['id']}",
            "check_run_url": f"{self.api_url}/repos/{repo.full_name}/check-runs/{job['id']}", "labels": ["ubuntu-latest"]}

    def workflow_json(self, repo: RepoState, wf: dict) -> dict:
        url = f"{self.api_url}/repos/{repo.full_name}/actions/workflows/{wf['id']}"
        return dict(wf) | {"node_id": f"W_{wf['id']}", "url": url,
                           "html_url": f"{self.server_url}/{repo.full_name}/blob/main/{wf['path']}", "badge_url": url + "/badge"}

    def _label(self, repo: RepoState, name: str) -> dict:
        if name not in repo.labels:
            lid = self.next_id()
            repo.labels[name] = {"id": lid, "node_id": f"LA_{lid}", "name": name, "color": "ededed", "default": False,
                                 "description": None, "url": f"{self.api_url}/repos/{repo.full_name}/labels/{urllib.parse.quote(name)}"}
        return repo.labels[name]

    def _next_number(self, repo: RepoState) -> int:
        return max([0, *repo.issues]) + 1


def _git(cwd: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {result.stderr}")
    return result.stdout


def _git_env(cwd: Path, env: dict[str, str], *args: str) -> str:
    """`_git` with variables added to the environment (an index file of its own, an author)."""
    import os

    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env})
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {result.stderr}")
    return result.stdout


class _Handler(BaseHTTPRequestHandler):
    """Routes API requests to `fakes.github_routes` and git requests to `git http-backend`."""

    fake: FakeGitHub
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes; no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _dispatch(self, method: str) -> None:
        from fakes.github_routes import handle_api, handle_blob

        parsed = urllib.parse.urlsplit(self.path)
        raw = self._read_body()
        if parsed.path.startswith("/_blobs/"):
            status, headers, payload = handle_blob(self.fake, parsed.path)
            return self._send(status, headers, payload)
        if not parsed.path.startswith(API + "/") and parsed.path != "/api/graphql":
            return self._git(method, parsed, raw)
        body = json.loads(raw) if raw else None
        entry = Logged(method, parsed.path.removeprefix(API), urllib.parse.parse_qs(parsed.query), body)
        if self.fake.trace_peers:
            entry.peer = peer_of(self.client_address[:2], self.server.server_address[:2])
        with self.fake._lock:
            self.fake.requests.append(entry)
            status, headers, payload = self._injected(method, entry.path, raw) or self._authorized() or \
                self._writable(method, entry.path, body) or \
                handle_api(self.fake, method, entry.path, entry.query, body, self._login())
        data = b"" if payload is None else payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        if method == "GET" and status == 200:  # as GitHub: an ETag on every read, 304 when it still holds
            headers["ETag"] = etag(data, headers.get("Link", ""))
            if headers["ETag"] in _if_none_match(self.headers.get("If-None-Match", "")):
                status, data = 304, b""
        entry.status = status
        self._send(status, {"Content-Type": "application/json; charset=utf-8", **headers}, data)

    def _login(self) -> str:
        auth = self.headers.get("Authorization", "")
        token = auth.split(" ", 1)[1] if " " in auth else ""
        return self.fake.tokens.get(token, "")

    def _token(self) -> str:
        auth = self.headers.get("Authorization", "")
        return auth.split(" ", 1)[1] if " " in auth else ""

    def _writable(self, method: str, path: str, body: Any) -> tuple[int, dict, Any] | None:
        """403 for a read-only token's write (a GraphQL mutation included) or its question about someone's
        permission, as GitHub answers a fork's job."""
        query = str((body or {}).get("query", "")) if isinstance(body, dict) else ""
        writes = method != "GET" and not (path.endswith("graphql") and not query.lstrip().startswith("mutation"))
        if self._token() not in self.fake.read_only:
            return None
        if writes:
            return 403, {}, {"message": "Resource not accessible by integration",
                             "documentation_url": "https://docs.github.com/rest"}
        if "/collaborators/" in path:  # reading someone's permission needs push access
            return 403, {}, {"message": "Must have push access to view repository collaborators.",
                             "documentation_url": "https://docs.github.com/rest"}
        return None

    def _authorized(self) -> tuple[int, dict, Any] | None:
        if self._login():
            return None
        return 401, {}, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}

    def _injected(self, method: str, path: str, raw: bytes) -> tuple[int, dict, Any] | None:
        for item in self.fake.injected:
            if item.times > 0 and (item.method in (None, method)) and \
                    (item.path_pattern is None or re.search(item.path_pattern, path)) and \
                    (item.body_pattern is None or re.search(item.body_pattern, raw.decode("utf-8", "replace"))):
                item.times -= 1
                return item.status, dict(item.headers), {"message": item.message,
                                                         "documentation_url": "https://docs.github.com/rest"}
        return None

    def _send(self, status: int, headers: dict[str, str], data: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _git(self, method: str, parsed: urllib.parse.SplitResult, raw: bytes) -> None:
        auth = self.headers.get("Authorization", "")
        if auth[:6].lower() != "basic ":
            return self._send(401, {"WWW-Authenticate": 'Basic realm="GitHub"'}, b"authentication required\n")
        _user, _, token = b64decode(auth[6:]).decode().partition(":")
        if token not in self.fake.tokens:
            return self._send(403, {}, b"invalid credentials\n")
        env = {"GIT_PROJECT_ROOT": str(self.fake.root / "git"), "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": parsed.path,
               "REQUEST_METHOD": method, "QUERY_STRING": parsed.query, "REMOTE_USER": self.fake.tokens[token],
               "REMOTE_ADDR": "127.0.0.1", "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(raw)), "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""), "PATH": "/usr/bin:/bin"}
        if "git-receive-pack" in parsed.path + parsed.query and token in self.fake.read_only:
            return self._send(403, {}, b"write access to repository not granted\n")
        self.fake.sync_pull_refs()
        self.fake.git_requests.append(f"{method} {parsed.path}")
        out = subprocess.run(["git", "http-backend"], input=raw, env=env, capture_output=True)
        head, _, body = out.stdout.partition(b"\r\n\r\n")
        status, headers = 200, {}
        for line in head.decode().split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.strip().split()[0])
            elif key:
                headers[key] = value.strip()
        self._send(status, headers, body)


def etag(data: bytes, link: str = "") -> str:
    """A weak entity tag for a response body (and its pages' Link header), as GitHub sends on reads."""
    return 'W/"' + hashlib.sha256(data + link.encode()).hexdigest()[:32] + '"'


def _if_none_match(header: str) -> set[str]:
    """The entity tags an If-None-Match header lists (GitHub matches a strong or weak form alike)."""
    tags = {tag.strip() for tag in header.split(",") if tag.strip()}
    return tags | {f"W/{tag}" for tag in tags if not tag.startswith("W/")}


def basic_auth(token: str) -> str:
    """The Authorization header git sends for `token`."""
    return "Basic " + b64encode(f"x-access-token:{token}".encode()).decode()

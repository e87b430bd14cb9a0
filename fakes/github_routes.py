"""The REST routes of the fake GitHub (see github_server.py): plain functions over its state.

Each route takes (fake, repo, match, query, body, login) and returns (status, headers, payload).
"""

from __future__ import annotations

import re
import time
import urllib.parse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakes.github_server import FakeGitHub, RepoState

Reply = tuple[int, dict[str, str], Any]
NOT_FOUND: Reply = (404, {}, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
LEGACY_PERMISSION = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}


def _validation(resource: str, code: str, message: str | None = None, field: str | None = None) -> Reply:
    error = {"resource": resource, "code": code} | ({"message": message} if message else {}) | \
        ({"field": field} if field else {})
    return 422, {}, {"message": "Validation Failed", "errors": [error],
                     "documentation_url": "https://docs.github.com/rest"}


def _page(fake: FakeGitHub, path: str, query: dict, items: list, key: str | None = None,
          render: Any = None) -> Reply:
    """One page of `items` (each passed through `render`, when given) with a Link header built from the
    fake's own base URL."""
    per_page = int(query.get("per_page", ["30"])[0])
    page = int(query.get("page", ["1"])[0])
    chunk = items[(page - 1) * per_page: page * per_page]
    chunk = [render(item) for item in chunk] if render else chunk
    headers = {}
    last = max(1, -(-len(items) // per_page))
    if page < last:
        params = {k: v[0] for k, v in query.items()} | {"page": str(page + 1), "per_page": str(per_page)}
        nxt = f"{fake.api_url}{path}?{urllib.parse.urlencode(params)}"
        params["page"] = str(last)
        headers["Link"] = f'<{nxt}>; rel="next", <{fake.api_url}{path}?{urllib.parse.urlencode(params)}>; rel="last"'
    payload = {"total_count": len(items), key: chunk} if key else chunk
    return 200, headers, payload


# -- repository, issues, comments, labels ---------------------------------------------------
def get_repo(fake, repo, m, q, body, login) -> Reply:
    data = fake.repo_json(repo)
    if not login.endswith("[bot]"):  # GitHub tells a user's token what that user may do; installation tokens get none
        role = repo.permissions.get(login, "none")
        ranks = ("none", "read", "triage", "write", "maintain", "admin")
        have = ranks.index(role) if role in ranks else 0
        data["permissions"] = {"admin": have >= 5, "maintain": have >= 4, "push": have >= 3, "triage": have >= 2,
                               "pull": have >= 1}
    return 200, {}, data


def get_issue(fake, repo, m, q, body, login) -> Reply:
    issue = repo.issues.get(int(m["n"]))
    return (200, {}, fake.issue_json(repo, issue)) if issue else NOT_FOUND


def edit_issue(fake, repo, m, q, body, login) -> Reply:
    issue = repo.issues.get(int(m["n"]))
    if not issue:
        return NOT_FOUND
    for key in ("title", "body", "state"):
        if key in body:
            issue[key] = body[key]
    if "labels" in body:
        issue["labels"] = [fake._label(repo, name) for name in body["labels"]]
    return 200, {}, fake.issue_json(repo, issue)


def list_issues(fake, repo, m, q, body, login) -> Reply:
    """GET /issues: issues and pull requests, newest first, by `state` (open, closed, all) and `labels` (all of them)."""
    state = q.get("state", ["open"])[0]
    wanted = [name for name in q.get("labels", [""])[0].split(",") if name]
    items = []
    for issue in sorted(repo.issues.values(), key=lambda i: -i["number"]):
        names = {label["name"] for label in issue["labels"]}
        if (state == "all" or issue["state"] == state) and set(wanted) <= names:
            items.append(fake.issue_json(repo, issue))
    return _page(fake, m.string, q, items)


def create_issue(fake, repo, m, q, body, login) -> Reply:
    """POST /issues: a new issue by the token's user, with the labels named (made when they do not exist)."""
    if not (body or {}).get("title"):
        return _validation("Issue", "missing_field", field="title")
    return 201, {}, fake.add_issue(repo.full_name, body["title"], body.get("body") or "", user=login,
                                   labels=tuple(body.get("labels") or ()))


def list_comments(fake, repo, m, q, body, login) -> Reply:
    number = int(m["n"])
    if number not in repo.issues:
        return NOT_FOUND
    since = q.get("since", [""])[0]  # ISO 8601 in UTC: comments updated at or after it
    items = [c for c in fake.comments_on(repo.full_name, number) if c["updated_at"] >= since]
    return _page(fake, m.string, q, items, render=lambda c: fake.comment_json(repo, c))  # a long thread: only the page


def create_comment(fake, repo, m, q, body, login) -> Reply:
    number = int(m["n"])
    if number not in repo.issues:
        return NOT_FOUND
    return 201, {}, fake.add_comment(repo.full_name, number, body["body"], user=login)


def get_comment(fake, repo, m, q, body, login) -> Reply:
    comment = repo.comments.get(int(m["id"]))
    return (200, {}, fake.comment_json(repo, comment)) if comment else NOT_FOUND


def edit_comment(fake, repo, m, q, body, login) -> Reply:
    comment = repo.comments.get(int(m["id"]))
    if not comment:
        return NOT_FOUND
    comment["body"] = body["body"]
    comment["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return 200, {}, fake.comment_json(repo, comment)


REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


def create_reaction(fake, repo, m, q, body, login) -> Reply:
    """A reaction on an issue or an issue comment: 201 when new, 200 with the existing one when repeated."""
    subject, key = ("comment", int(m["id"])) if "id" in m.groupdict() else ("issue", int(m["n"]))
    if key not in (repo.comments if subject == "comment" else repo.issues):
        return NOT_FOUND
    content = (body or {}).get("content")
    if content not in REACTIONS:
        return _validation("Reaction", "invalid", field="content")
    for reaction in repo.reactions:
        if (reaction["subject"], reaction["subject_id"], reaction["content"], reaction["user"]["login"]) == \
                (subject, key, content, login):
            return 200, {}, {k: v for k, v in reaction.items() if not k.startswith("subject")}
    reaction = {"id": fake.next_id(), "node_id": f"REA_{key}", "user": fake.user(login), "content": content,
                "created_at": "2024-01-01T00:00:00Z", "subject": subject, "subject_id": key}
    repo.reactions.append(reaction)
    return 201, {}, {k: v for k, v in reaction.items() if not k.startswith("subject")}


def add_labels(fake, repo, m, q, body, login) -> Reply:
    issue = repo.issues.get(int(m["n"]))
    if not issue:
        return NOT_FOUND
    names = body["labels"] if isinstance(body, dict) else body
    for name in names:
        if name not in [label["name"] for label in issue["labels"]]:
            issue["labels"].append(fake._label(repo, name))
    return 200, {}, issue["labels"]


def remove_label(fake, repo, m, q, body, login) -> Reply:
    issue = repo.issues.get(int(m["n"]))
    name = urllib.parse.unquote(m["label"])
    if not issue or name not in [label["name"] for label in issue["labels"]]:
        return 404, {}, {"message": "Label does not exist", "documentation_url": "https://docs.github.com/rest"}
    issue["labels"] = [label for label in issue["labels"] if label["name"] != name]
    return 200, {}, issue["labels"]


def create_label(fake, repo, m, q, body, login) -> Reply:
    if body["name"] in repo.labels:
        return _validation("Label", "already_exists", field="name")
    label = fake._label(repo, body["name"])
    label.update(color=body.get("color", "ededed"), description=body.get("description"))
    return 201, {}, label


def permission(fake, repo, m, q, body, login) -> Reply:
    role = repo.permissions.get(m["user"], "none")
    return 200, {}, {"permission": LEGACY_PERMISSION.get(role, "none"), "role_name": role, "user": fake.user(m["user"])}


# -- pulls and reviews ----------------------------------------------------------------------
def list_pulls(fake, repo, m, q, body, login) -> Reply:
    state = q.get("state", ["open"])[0]
    head = q.get("head", [None])[0]
    items = []
    for number in sorted(repo.pulls):
        pull = fake.pull_json(repo, repo.pulls[number])
        if state != "all" and pull["state"] != state:
            continue
        if head and head not in (pull["head"]["label"], pull["head"]["ref"]):
            continue
        items.append(pull)
    return _page(fake, m.string, q, items)


def create_pull(fake, repo, m, q, body, login) -> Reply:
    head = body["head"].split(":")[-1]
    if fake.head_sha(repo.full_name, head) is None:
        return _validation("PullRequest", "invalid", field="head")
    for pull in repo.pulls.values():
        if pull["head_ref"] == head and repo.issues[pull["number"]]["state"] == "open":
            owner = repo.full_name.split("/")[0]
            return _validation("PullRequest", "custom", f"A pull request already exists for {owner}:{head}.")
    issue = fake.add_issue(repo.full_name, body["title"], body.get("body") or "", user=login)
    repo.pulls[issue["number"]] = {"id": fake.next_id(), "number": issue["number"], "head_ref": head,
                                   "base_ref": body["base"], "draft": bool(body.get("draft")), "merged": False}
    return 201, {}, fake.pull_json(repo, repo.pulls[issue["number"]])


def get_pull(fake, repo, m, q, body, login) -> Reply:
    pull = repo.pulls.get(int(m["n"]))
    return (200, {}, fake.pull_json(repo, pull)) if pull else NOT_FOUND


def edit_pull(fake, repo, m, q, body, login) -> Reply:
    pull = repo.pulls.get(int(m["n"]))
    if not pull:
        return NOT_FOUND
    edit_issue(fake, repo, {"n": m["n"]}, q, {k: v for k, v in body.items() if k in ("title", "body", "state")}, login)
    return 200, {}, fake.pull_json(repo, pull)


def merge_pull(fake, repo, m, q, body, login) -> Reply:
    pull = repo.pulls.get(int(m["n"]))
    if not pull:
        return NOT_FOUND
    if pull["draft"]:
        return 405, {}, {"message": "Pull Request is still a draft", "documentation_url": "https://docs.github.com/rest"}
    sha = fake.head_sha(repo.full_name, pull["head_ref"])
    if body and body.get("sha") and body["sha"] != sha:
        return 409, {}, {"message": "Head branch was modified. Review and try the merge again.",
                         "documentation_url": "https://docs.github.com/rest"}
    from fakes.github_server import _git

    _git(repo.bare, "update-ref", f"refs/heads/{pull['base_ref']}", sha)
    pull.update(merged=True, merged_at="2026-01-01T00:00:00Z", last_head_sha=sha)
    repo.issues[pull["number"]]["state"] = "closed"
    return 200, {}, {"sha": sha, "merged": True, "message": "Pull Request successfully merged"}


def list_reviews(fake, repo, m, q, body, login) -> Reply:
    number = int(m["n"])
    if repo.dismiss_stale_reviews:  # branch protection: a push dismisses approvals of older commits
        head = fake.head_sha(repo.full_name, repo.pulls[number]["head_ref"])
        for review in repo.reviews.values():
            if review["pull_number"] == number and review["state"] == "APPROVED" and review["commit_id"] != head:
                review["state"] = "DISMISSED"
    items = [fake.review_json(repo, r) for r in repo.reviews.values() if r["pull_number"] == number]
    return _page(fake, m.string, q, items)


REVIEW_EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}


def create_review(fake, repo, m, q, body, login) -> Reply:
    """POST /pulls/{n}/reviews: a submitted review (an `event`), or a pending one without; GitHub refuses an
    approval or a change request by the PR's own author."""
    pull = repo.pulls.get(int(m["n"]))
    if not pull:
        return NOT_FOUND
    event = (body or {}).get("event")
    if event is not None and event not in REVIEW_EVENTS:
        return _validation("PullRequestReview", "invalid", field="event")
    if event in ("APPROVE", "REQUEST_CHANGES") and repo.issues[pull["number"]]["user"]["login"] == login:
        return 422, {}, {"message": "Unprocessable Entity", "errors": [
            f"Can not {'approve' if event == 'APPROVE' else 'request changes on'} your own pull request"]}
    inline = tuple((c["path"], int(c["line"]), c["body"]) for c in (body or {}).get("comments") or [])
    review = fake.add_review(repo.full_name, pull["number"], REVIEW_EVENTS.get(event or "", "PENDING"),
                             (body or {}).get("body") or "", user=login, inline=inline,
                             commit=(body or {}).get("commit_id"))
    return 200, {}, review


def pull_files(fake, repo, m, q, body, login) -> Reply:
    """GET /pulls/{n}/files: the files the pull request changes, from its merge base to its head."""
    from fakes.github_server import _git

    pull = repo.pulls.get(int(m["n"]))
    if not pull:
        return NOT_FOUND
    head = fake.pull_json(repo, pull)["head"]["sha"]
    base = _git(repo.bare, "merge-base", f"refs/heads/{pull['base_ref']}", head).strip()
    out = _git(repo.bare, "diff", "--name-status", "--no-renames", base, head)
    statuses = {"A": "added", "M": "modified", "D": "removed"}
    files = [{"sha": head, "filename": name, "status": statuses.get(kind[:1], "modified"), "additions": 0,
              "deletions": 0, "changes": 0} for kind, _, name in (line.partition("\t") for line in out.splitlines())]
    return _page(fake, m.string, q, files)


def get_review(fake, repo, m, q, body, login) -> Reply:
    review = repo.reviews.get(int(m["id"]))
    return (200, {}, fake.review_json(repo, review)) if review else NOT_FOUND


def review_comments(fake, repo, m, q, body, login) -> Reply:
    review_id = int(m["id"]) if m.groupdict().get("id") else None
    number = int(m["n"])
    items = [fake.review_comment_json(repo, c) for c in repo.review_comments.values()
             if c["pull_number"] == number and review_id in (None, c["pull_request_review_id"])]
    return _page(fake, m.string, q, items)


def reply_review_comment(fake, repo, m, q, body, login) -> Reply:
    """A reply in the thread that review comment `id` starts (GitHub refuses replies to replies)."""
    parent = repo.review_comments.get(int(m["id"]))
    if not parent or parent["pull_number"] != int(m["n"]):
        return NOT_FOUND
    if parent.get("in_reply_to_id"):
        return _validation("PullRequestReviewComment", "invalid", "in_reply_to cannot be a reply to a reply")
    rc = {k: parent[k] for k in ("pull_number", "path", "line", "commit_id", "diff_hunk", "position")} | {
        "id": fake.next_id(), "pull_request_review_id": None, "in_reply_to_id": parent["id"], "body": body["body"],
        "user": fake.user(login), "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"}
    repo.review_comments[rc["id"]] = rc
    return 201, {}, fake.review_comment_json(repo, rc)


def request_reviewers(fake, repo, m, q, body, login) -> Reply:
    pull = repo.pulls.get(int(m["n"]))
    if not pull:
        return NOT_FOUND
    if repo.issues[pull["number"]]["user"]["login"] in body.get("reviewers", []):
        return _validation("PullRequest", "custom", "Review cannot be requested from pull request author.")
    pull.setdefault("requested_reviewers", []).extend(body.get("reviewers", []))
    return 201, {}, fake.pull_json(repo, pull)


def _threads(fake, variables: dict) -> Reply:
    """`reviewThreads` of a PR: one per top-level review comment, replies grouped under it; one page."""
    repo = fake.repos.get(f"{variables['owner']}/{variables['name']}")
    if not repo or variables["number"] not in repo.pulls:
        return 200, {}, {"errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a PullRequest"}]}
    nodes = [{"id": f"PRRT_{rc['id']}", "isResolved": rc["id"] in repo.resolved_threads, "isOutdated": False,
              "path": rc["path"], "line": rc["line"], "comments": {"nodes": [{"databaseId": rc["id"]}]}}
             for rc in sorted(repo.review_comments.values(), key=lambda c: c["id"])
             if rc["pull_number"] == variables["number"] and not rc.get("in_reply_to_id")]
    return 200, {}, {"data": {"repository": {"pullRequest": {"reviewThreads": {
        "pageInfo": {"hasNextPage": False, "endCursor": None}, "nodes": nodes}}}}}


def _resolve_thread(fake, variables: dict) -> Reply:
    thread = str(variables.get("threadId", ""))
    for repo in fake.repos.values():
        if thread.startswith("PRRT_") and int(thread[5:]) in repo.review_comments:
            repo.resolved_threads.add(int(thread[5:]))
            return 200, {}, {"data": {"resolveReviewThread": {"thread": {"id": thread, "isResolved": True}}}}
    return 200, {}, {"errors": [{"type": "NOT_FOUND", "message": f"Could not resolve to a node with the global id of '{thread}'"}]}


def graphql(fake, body, login) -> Reply:
    """The GraphQL the bot uses: PR review threads, resolveReviewThread, markPullRequestReadyForReview; the
    event's snapshot (queries over `repository`) and addReaction with addComment are answered by the executor
    in fakes/github_graphql.py."""
    from fakes.github_graphql import execute

    query = body.get("query", "")
    if "resolveReviewThread" in query:
        return _resolve_thread(fake, body.get("variables") or {})
    if "reviewThreads" in query:
        return _threads(fake, body.get("variables") or {})
    if "markPullRequestReadyForReview" not in query:
        return 200, {}, execute(fake, body, login)
    node_id = body["variables"]["input"]["pullRequestId"]
    for repo in fake.repos.values():
        for pull in repo.pulls.values():
            if f"PR_{pull['id']}" == node_id:
                pull["draft"] = False
                return 200, {}, {"data": {"markPullRequestReadyForReview": {
                    "clientMutationId": None, "pullRequest": {"isDraft": False}}}}
    return 200, {}, {"errors": [{"type": "NOT_FOUND", "message": f"Could not resolve to a node with the global id of '{node_id}'"}]}


# -- refs -----------------------------------------------------------------------------------
def get_ref(fake, repo, m, q, body, login) -> Reply:
    ref = m["ref"]
    sha = fake.head_sha(repo.full_name, ref.removeprefix("heads/")) if ref.startswith("heads/") else None
    if not sha:
        return NOT_FOUND
    url = f"{fake.api_url}/repos/{repo.full_name}/git/refs/{ref}"
    return 200, {}, {"ref": f"refs/{ref}", "node_id": f"REF_{ref}", "url": url,
                     "object": {"type": "commit", "sha": sha, "url": f"{fake.api_url}/repos/{repo.full_name}/git/commits/{sha}"}}


# -- the Git Data API: real objects in the bare repository ------------------------------------
def _gitb(repo: RepoState, *args: str, stdin: bytes | None = None, env: dict | None = None) -> bytes:
    import os
    import subprocess

    out = subprocess.run(["git", *args], cwd=repo.bare, input=stdin, capture_output=True,
                         env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.decode(errors='replace')}")
    return out.stdout


def _object_type(repo: RepoState, sha: str) -> str:
    try:
        return _gitb(repo, "cat-file", "-t", sha).decode().strip()
    except RuntimeError:
        return ""


def create_blob(fake, repo, m, q, body, login) -> Reply:
    import base64

    content = body.get("content", "")
    data = base64.b64decode(content) if body.get("encoding") == "base64" else content.encode()
    sha = _gitb(repo, "hash-object", "-w", "--stdin", stdin=data).decode().strip()
    return 201, {}, {"sha": sha, "url": f"{fake.api_url}/repos/{repo.full_name}/git/blobs/{sha}"}


def _tree_json(fake, repo, sha: str) -> dict:
    entries = []
    for line in _gitb(repo, "ls-tree", sha).decode().splitlines():
        head, _, path = line.partition("\t")
        mode, kind, obj = head.split(" ")
        entries.append({"path": path, "mode": mode, "type": kind, "sha": obj})
    return {"sha": sha, "url": f"{fake.api_url}/repos/{repo.full_name}/git/trees/{sha}", "tree": entries,
            "truncated": False}


def get_tree(fake, repo, m, q, body, login) -> Reply:
    if _object_type(repo, m["sha"]) != "tree":
        return NOT_FOUND
    return 200, {}, _tree_json(fake, repo, m["sha"])


def create_tree(fake, repo, m, q, body, login) -> Reply:
    """POST git/trees: the entries over `base_tree` (a null SHA deletes a path), through a temporary index."""
    import tempfile

    base = body.get("base_tree")
    if base and _object_type(repo, base) != "tree":
        return _validation("Tree", "invalid", "base_tree is not a valid tree oid", "base_tree")
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": f"{tmp}/index"}
        _gitb(repo, "read-tree", *([base] if base else ["--empty"]), env=env)
        for entry in body.get("tree", []):
            if entry.get("sha") is None:
                _gitb(repo, "update-index", "--force-remove", entry["path"], env=env)
            elif _object_type(repo, entry["sha"]) != entry.get("type", "blob"):
                return _validation("Tree", "invalid", f"tree.sha {entry['sha']} is not a valid {entry.get('type')}",
                                   "tree")
            else:
                _gitb(repo, "update-index", "--add", "--cacheinfo", f"{entry['mode']},{entry['sha']},{entry['path']}",
                      env=env)
        sha = _gitb(repo, "write-tree", env=env).decode().strip()
    return 201, {}, _tree_json(fake, repo, sha)


def _git_commit_json(fake, repo, sha: str) -> dict:
    raw = _gitb(repo, "cat-file", "commit", sha).decode(errors="replace")
    head, _, message = raw.partition("\n\n")
    fields = [line.split(" ", 1) for line in head.splitlines()]
    tree = next(v for k, v in fields if k == "tree")
    parents = [v for k, v in fields if k == "parent"]
    base = f"{fake.api_url}/repos/{repo.full_name}/git"
    people = {k: _person(v) for k, v in fields if k in ("author", "committer")}
    return {"sha": sha, "node_id": f"C_{sha[:10]}", "url": f"{base}/commits/{sha}", "message": message, **people,
            "tree": {"sha": tree, "url": f"{base}/trees/{tree}"},
            "parents": [{"sha": p, "url": f"{base}/commits/{p}"} for p in parents],
            "verification": {"verified": sha in repo.verified, "reason": "valid" if sha in repo.verified else "unsigned"}}


def get_git_commit(fake, repo, m, q, body, login) -> Reply:
    if _object_type(repo, m["sha"]) != "commit":
        return NOT_FOUND
    return 200, {}, _git_commit_json(fake, repo, m["sha"])


def _person(line: str) -> dict:
    """A commit header's `Name <email> time zone` as the API writes an author or committer."""
    name, _, rest = line.partition(" <")
    email, _, when = rest.partition("> ")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(when.split()[0]))) if when else ""
    return {"name": name, "email": email, "date": stamp}


def create_git_commit(fake, repo, m, q, body, login) -> Reply:
    """POST git/commits: a commit by the token's user (GitHub's committer), which GitHub signs (so verified) when no
    signature and no author or committer of the caller's own are given, as it does for an App's token."""
    if _object_type(repo, body.get("tree", "")) != "tree":
        return _validation("Commit", "invalid", "Tree SHA does not exist", "tree")
    parents = body.get("parents", [])
    if any(_object_type(repo, p) != "commit" for p in parents):
        return _validation("Commit", "invalid", "Parent SHA does not exist or is not a commit object", "parents")
    author = body.get("author") or {"name": login, "email": f"{login}@users.noreply.github.com"}
    committer = body.get("committer") or ({"name": "GitHub", "email": "noreply@github.com"}
                                          if not body.get("author") else author)
    who = {"GIT_AUTHOR_NAME": author["name"], "GIT_AUTHOR_EMAIL": author["email"],
           "GIT_COMMITTER_NAME": committer["name"], "GIT_COMMITTER_EMAIL": committer["email"]}
    args = [a for p in parents for a in ("-p", p)]
    sha = _gitb(repo, "commit-tree", body["tree"], *args, stdin=body.get("message", "").encode(),
                env=who).decode().strip()
    if not any(body.get(k) for k in ("author", "committer", "signature")):
        repo.verified.add(sha)
    return 201, {}, _git_commit_json(fake, repo, sha)


def _ref_json(fake, repo, ref: str, sha: str) -> dict:
    url = f"{fake.api_url}/repos/{repo.full_name}/git/refs/{ref}"
    return {"ref": f"refs/{ref}", "node_id": f"REF_{ref}", "url": url,
            "object": {"type": "commit", "sha": sha, "url": f"{fake.api_url}/repos/{repo.full_name}/git/commits/{sha}"}}


def create_ref(fake, repo, m, q, body, login) -> Reply:
    """POST git/refs: 422 "Reference already exists" when it does."""
    ref, sha = body.get("ref", ""), body.get("sha", "")
    if not ref.startswith("refs/") or ref.count("/") < 2:
        return 422, {}, {"message": "Reference name must start with 'refs/' and have at least two slashes."}
    if _object_type(repo, sha) != "commit":
        return 422, {}, {"message": "Object does not exist"}
    try:
        _gitb(repo, "update-ref", ref, sha, "0" * 40)
    except RuntimeError:
        return 422, {}, {"message": "Reference already exists"}
    return 201, {}, _ref_json(fake, repo, ref.removeprefix("refs/"), sha)


def update_ref(fake, repo, m, q, body, login) -> Reply:
    """PATCH git/refs/{ref}: only a fast-forward unless `force`; a moved ref between the check and the write is a 409."""
    ref, sha = "refs/" + m["ref"], body.get("sha", "")
    try:
        old = _gitb(repo, "rev-parse", "--verify", "-q", ref).decode().strip()
    except RuntimeError:
        return 422, {}, {"message": "Reference does not exist"}
    if _object_type(repo, sha) != "commit":
        return 422, {}, {"message": "Object does not exist"}
    import subprocess

    fast_forward = subprocess.run(["git", "merge-base", "--is-ancestor", old, sha], cwd=repo.bare).returncode == 0
    if not body.get("force") and not fast_forward:
        return 422, {}, {"message": "Update is not a fast forward"}
    try:
        _gitb(repo, "update-ref", ref, sha, old)
    except RuntimeError:
        return 409, {}, {"message": "Reference cannot be updated"}
    return 200, {}, _ref_json(fake, repo, m["ref"], sha)


def get_contents(fake, repo, m, q, body, login) -> Reply:
    ref = q.get("ref", [repo.default_branch])[0]
    try:
        text = fake.file_at(repo.full_name, ref, m["path"])
    except RuntimeError:
        return NOT_FOUND
    import base64

    url = f"{fake.api_url}/repos/{repo.full_name}/contents/{m['path']}"
    return 200, {}, {"type": "file", "encoding": "base64", "size": len(text), "name": m["path"].rsplit("/", 1)[-1],
                     "path": m["path"], "content": base64.b64encode(text.encode()).decode(), "sha": "0" * 40,
                     "url": url, "html_url": f"{fake.server_url}/{repo.full_name}/blob/{ref}/{m['path']}"}


# -- Actions and check suites ---------------------------------------------------------------
def list_runs(fake, repo, m, q, body, login) -> Reply:
    runs = sorted(repo.runs.values(), key=lambda r: -r["id"])
    for key in ("branch", "head_sha", "status", "event", "check_suite_id"):
        if key in q:
            field = "head_branch" if key == "branch" else key
            value = q[key][0]
            runs = [r for r in runs if str(r.get(field)) == value or (key == "status" and r["conclusion"] == value)]
    return _page(fake, m.string, q, [fake.run_json(repo, r) for r in runs], key="workflow_runs")


def get_run(fake, repo, m, q, body, login) -> Reply:
    run = repo.runs.get(int(m["id"]))
    return (200, {}, fake.run_json(repo, run)) if run else NOT_FOUND


def list_jobs(fake, repo, m, q, body, login) -> Reply:
    run_id = int(m["id"])
    if run_id not in repo.runs:
        return NOT_FOUND
    latest = q.get("filter", ["latest"])[0] == "latest"
    jobs = [fake.job_json(repo, j) for j in repo.jobs.values()
            if j["run_id"] == run_id and not (latest and j["superseded"])]
    return _page(fake, m.string, q, jobs, key="jobs")


def get_job(fake, repo, m, q, body, login) -> Reply:
    job = repo.jobs.get(int(m["id"]))
    return (200, {}, fake.job_json(repo, job)) if job else NOT_FOUND


def job_logs(fake, repo, m, q, body, login) -> Reply:
    job = repo.jobs.get(int(m["id"]))
    if not job:
        return NOT_FOUND
    return 302, {"Location": f"{fake.server_url}/_blobs/logs/{repo.id}/{job['id']}?sig=fake"}, None


def rerun_failed(fake, repo, m, q, body, login) -> Reply:
    run = repo.runs.get(int(m["id"]))
    if not run:
        return NOT_FOUND
    repo.reruns.append(run["id"])
    run["run_attempt"] += 1
    if fake.on_rerun:
        fake.on_rerun(repo, run)
    return 201, {}, {}


def cancel_run(fake, repo, m, q, body, login) -> Reply:
    """Cancel a run that has not finished: 202 (GitHub finishes the cancelling later; the fake at once),
    409 for a run that already completed."""
    run = repo.runs.get(int(m["id"]))
    if not run:
        return NOT_FOUND
    if run["status"] == "completed":
        return 409, {}, {"message": "Cannot cancel a workflow run that is completed.",
                         "documentation_url": "https://docs.github.com/rest"}
    run.update(status="completed", conclusion="cancelled")
    repo.cancels.append(run["id"])
    return 202, {}, {}


def _workflow(repo: RepoState, key: str) -> dict | None:
    return next((w for w in repo.workflows.values() if str(w["id"]) == key or w["path"].endswith("/" + key)), None)


def get_workflow(fake, repo, m, q, body, login) -> Reply:
    wf = _workflow(repo, m["wf"])
    return (200, {}, fake.workflow_json(repo, wf)) if wf else NOT_FOUND


def dispatch(fake, repo, m, q, body, login) -> Reply:
    wf = _workflow(repo, m["wf"])
    if not wf:
        return NOT_FOUND
    if fake.head_sha(repo.full_name, body["ref"].removeprefix("refs/heads/")) is None:
        return _validation("Workflow", "invalid", f"No ref found for: {body['ref']}", field="ref")
    entry = {"workflow": wf["path"], "ref": body["ref"], "inputs": body.get("inputs") or {}, "by": login}
    repo.dispatches.append(entry)
    if fake.on_dispatch:
        fake.on_dispatch(repo, entry)
    return 204, {}, None


def _check_run_json(fake, repo, run: dict) -> dict:
    return {k: v for k, v in run.items() if k not in ("annotations", "suite")} | {
        "app": {"slug": run["app"], "name": run["app"]}, "details_url": f"https://{run['app']}.example/runs/{run['id']}",
        "url": f"{fake.api_url}/repos/{repo.full_name}/check-runs/{run['id']}",
        "output": {**(run.get("output") or {}), "annotations_count": len(run.get("annotations") or []),
                   "annotations_url": f"{fake.api_url}/repos/{repo.full_name}/check-runs/{run['id']}/annotations"},
        "check_suite": {"id": run.get("suite")}}


def create_check_run(fake, repo, m, q, body, login) -> Reply:
    """POST /check-runs: a check run of the token's app on `head_sha` (a completed one needs a conclusion)."""
    if not body.get("name") or not body.get("head_sha"):
        return _validation("CheckRun", "missing_field", field="name" if not body.get("name") else "head_sha")
    status = body.get("status") or ("completed" if body.get("conclusion") else "queued")
    if status == "completed" and not body.get("conclusion"):
        return _validation("CheckRun", "missing_field", "conclusion is required when status is completed")
    run = fake.add_check_run(repo.full_name, body["head_sha"], body["name"], status=status,
                             conclusion=body.get("conclusion"), app=login.removesuffix("[bot]") or "app",
                             output=body.get("output") or {})
    return 201, {}, _check_run_json(fake, repo, run)


def get_check_run(fake, repo, m, q, body, login) -> Reply:
    run = next((r for r in repo.check_runs if r["id"] == int(m["id"])), None)
    return (200, {}, _check_run_json(fake, repo, run)) if run else NOT_FOUND


def update_check_run(fake, repo, m, q, body, login) -> Reply:
    """PATCH /check-runs/{id}: its status, conclusion and output."""
    run = next((r for r in repo.check_runs if r["id"] == int(m["id"])), None)
    if not run:
        return NOT_FOUND
    run.update({k: body[k] for k in ("status", "conclusion", "output", "name") if k in body})
    if body.get("conclusion"):
        run["status"] = "completed"
    return 200, {}, _check_run_json(fake, repo, run)


def suite_check_runs(fake, repo, m, q, body, login) -> Reply:
    suite = repo.suites.get(int(m["id"]))
    if not suite:
        return NOT_FOUND
    runs = [_check_run_json(fake, repo, r) for r in repo.check_runs if r["suite"] == suite["id"]]
    return _page(fake, m.string, q, runs, key="check_runs")


def check_run_annotations(fake, repo, m, q, body, login) -> Reply:
    run = next((r for r in repo.check_runs if r["id"] == int(m["id"])), None)
    return (200, {}, list(run["annotations"])) if run else NOT_FOUND


def rerequest_suite(fake, repo, m, q, body, login) -> Reply:
    suite = repo.suites.get(int(m["id"]))
    if not suite:
        return NOT_FOUND
    repo.rerequests.append(suite["id"])
    if fake.on_rerequest:
        fake.on_rerequest(repo, suite)
    return 201, {}, {}


def get_check_suite(fake, repo, m, q, body, login) -> Reply:
    if suite := repo.suites.get(int(m["id"])):
        return 200, {}, {"id": suite["id"], "node_id": f"CS_{suite['id']}", "head_branch": suite["head_branch"],
                         "head_sha": suite["head_sha"], "status": suite["status"], "conclusion": suite["conclusion"],
                         "url": f"{fake.api_url}/repos/{repo.full_name}/check-suites/{suite['id']}",
                         "app": {"id": 99, "slug": suite["app"], "name": suite["app"]},
                         "repository": fake.repo_json(repo), "pull_requests": [],
                         "check_runs_url": f"{fake.api_url}/repos/{repo.full_name}/check-suites/{suite['id']}/check-runs"}
    run = next((r for r in repo.runs.values() if str(r["check_suite_id"]) == m["id"]), None)
    if not run:
        return NOT_FOUND
    return 200, {}, {"id": run["check_suite_id"], "node_id": f"CS_{run['check_suite_id']}", "head_branch": run["head_branch"],
                     "head_sha": run["head_sha"], "status": run["status"], "conclusion": run["conclusion"],
                     "url": f"{fake.api_url}/repos/{repo.full_name}/check-suites/{run['check_suite_id']}",
                     "app": {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"},
                     "repository": fake.repo_json(repo), "pull_requests": [], "latest_check_runs_count": 1}


def _commit_json(fake, repo, sha: str) -> dict:
    """A commit as the commits API shows it: GitHub's account of its author (by e-mail), its parents, its message."""
    git_commit = _git_commit_json(fake, repo, sha)
    account = fake.login_of(git_commit["author"]["email"])
    url = f"{fake.api_url}/repos/{repo.full_name}/commits"
    return {"sha": sha, "node_id": f"C_{sha[:10]}", "url": f"{url}/{sha}",
            "html_url": f"{fake.server_url}/{repo.full_name}/commit/{sha}",
            "commit": {k: git_commit[k] for k in ("author", "committer", "message", "tree", "url", "verification")},
            "author": fake.user(account) if account else None, "committer": None,
            "parents": [{"sha": p["sha"], "url": f"{url}/{p['sha']}"} for p in git_commit["parents"]], "files": []}


def get_commit(fake, repo, m, q, body, login) -> Reply:
    from fakes.github_server import _git

    try:
        sha = _git(repo.bare, "rev-parse", "--verify", "-q", m["sha"] + "^{commit}").strip()
    except RuntimeError:
        sha = ""
    if not sha:
        return 422, {}, {"message": f"No commit found for SHA: {m['sha']}"}
    return 200, {}, _commit_json(fake, repo, sha)


def list_commits(fake, repo, m, q, body, login) -> Reply:
    """GET /commits?sha=: the history of `sha` (default: the default branch), newest first."""
    from fakes.github_server import _git

    start = q.get("sha", [repo.default_branch])[0]
    try:
        shas = _git(repo.bare, "rev-list", "--date-order", start).split()
    except RuntimeError:
        return NOT_FOUND
    return _page(fake, m.string, q, shas, render=lambda sha: _commit_json(fake, repo, sha))


def commit_check_runs(fake, repo, m, q, body, login) -> Reply:
    """Check runs on a commit: each latest Actions job, then other apps' runs."""
    runs = []
    for job in repo.jobs.values():
        run = repo.runs[job["run_id"]]
        if job["head_sha"] == m["sha"] and not job["superseded"]:
            runs.append({"id": job["id"], "head_sha": job["head_sha"], "name": job["name"], "status": job["status"],
                         "conclusion": job["conclusion"], "app": {"slug": "github-actions", "name": "GitHub Actions"},
                         "details_url": f"{fake.server_url}/{repo.full_name}/actions/runs/{run['id']}/job/{job['id']}"})
    runs += [_check_run_json(fake, repo, other) for other in repo.check_runs if other["head_sha"] == m["sha"]]
    return _page(fake, m.string, q, runs, key="check_runs")


def commit_status(fake, repo, m, q, body, login) -> Reply:
    """The combined status: failure beats pending beats success; no statuses at all is pending."""
    latest = {s["context"]: s for s in repo.statuses if s["sha"] == m["sha"]}  # the newest per context wins
    states = {s["state"] for s in latest.values()}
    state = "failure" if states & {"failure", "error"} else "pending" if "pending" in states or not states else "success"
    return 200, {}, {"state": state, "sha": m["sha"], "total_count": len(latest), "statuses": list(latest.values()),
                     "repository": fake.repo_json(repo),
                     "commit_url": f"{fake.api_url}/repos/{repo.full_name}/commits/{m['sha']}",
                     "url": f"{fake.api_url}/repos/{repo.full_name}/commits/{m['sha']}/status"}


R = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
ROUTES: list[tuple[str, str, Any]] = [
    ("GET", R + r"$", get_repo),
    ("GET", R + r"/issues$", list_issues),
    ("POST", R + r"/issues$", create_issue),
    ("GET", R + r"/issues/(?P<n>\d+)$", get_issue),
    ("PATCH", R + r"/issues/(?P<n>\d+)$", edit_issue),
    ("GET", R + r"/issues/(?P<n>\d+)/comments$", list_comments),
    ("POST", R + r"/issues/(?P<n>\d+)/comments$", create_comment),
    ("GET", R + r"/issues/comments/(?P<id>\d+)$", get_comment),
    ("PATCH", R + r"/issues/comments/(?P<id>\d+)$", edit_comment),
    ("POST", R + r"/issues/comments/(?P<id>\d+)/reactions$", create_reaction),
    ("POST", R + r"/issues/(?P<n>\d+)/reactions$", create_reaction),
    ("POST", R + r"/issues/(?P<n>\d+)/labels$", add_labels),
    ("DELETE", R + r"/issues/(?P<n>\d+)/labels/(?P<label>[^/]+)$", remove_label),
    ("POST", R + r"/labels$", create_label),
    ("GET", R + r"/collaborators/(?P<user>[^/]+)/permission$", permission),
    ("GET", R + r"/pulls$", list_pulls),
    ("POST", R + r"/pulls$", create_pull),
    ("GET", R + r"/pulls/(?P<n>\d+)$", get_pull),
    ("PATCH", R + r"/pulls/(?P<n>\d+)$", edit_pull),
    ("PUT", R + r"/pulls/(?P<n>\d+)/merge$", merge_pull),
    ("GET", R + r"/pulls/(?P<n>\d+)/reviews$", list_reviews),
    ("POST", R + r"/pulls/(?P<n>\d+)/reviews$", create_review),
    ("GET", R + r"/pulls/(?P<n>\d+)/reviews/(?P<id>\d+)$", get_review),
    ("GET", R + r"/pulls/(?P<n>\d+)/files$", pull_files),
    ("GET", R + r"/pulls/(?P<n>\d+)/reviews/(?P<id>\d+)/comments$", review_comments),
    ("GET", R + r"/pulls/(?P<n>\d+)/comments$", review_comments),
    ("POST", R + r"/pulls/(?P<n>\d+)/comments/(?P<id>\d+)/replies$", reply_review_comment),
    ("POST", R + r"/pulls/(?P<n>\d+)/requested_reviewers$", request_reviewers),
    ("GET", R + r"/git/ref/(?P<ref>.+)$", get_ref),
    ("GET", R + r"/git/refs/(?P<ref>.+)$", get_ref),
    ("POST", R + r"/git/blobs$", create_blob),
    ("GET", R + r"/git/trees/(?P<sha>[0-9a-f]{40})$", get_tree),
    ("POST", R + r"/git/trees$", create_tree),
    ("GET", R + r"/git/commits/(?P<sha>[0-9a-f]{40})$", get_git_commit),
    ("POST", R + r"/git/commits$", create_git_commit),
    ("POST", R + r"/git/refs$", create_ref),
    ("PATCH", R + r"/git/refs/(?P<ref>.+)$", update_ref),
    ("GET", R + r"/contents/(?P<path>.+)$", get_contents),
    ("GET", R + r"/actions/runs$", list_runs),
    ("GET", R + r"/actions/runs/(?P<id>\d+)$", get_run),
    ("GET", R + r"/actions/runs/(?P<id>\d+)/jobs$", list_jobs),
    ("GET", R + r"/actions/jobs/(?P<id>\d+)$", get_job),
    ("GET", R + r"/actions/jobs/(?P<id>\d+)/logs$", job_logs),
    ("POST", R + r"/actions/runs/(?P<id>\d+)/rerun-failed-jobs$", rerun_failed),
    ("POST", R + r"/actions/runs/(?P<id>\d+)/cancel$", cancel_run),
    ("GET", R + r"/actions/workflows/(?P<wf>[^/]+)$", get_workflow),
    ("POST", R + r"/actions/workflows/(?P<wf>[^/]+)/dispatches$", dispatch),
    ("GET", R + r"/check-suites/(?P<id>\d+)$", get_check_suite),
    ("GET", R + r"/check-suites/(?P<id>\d+)/check-runs$", suite_check_runs),
    ("POST", R + r"/check-suites/(?P<id>\d+)/rerequest$", rerequest_suite),
    ("GET", R + r"/check-runs/(?P<id>\d+)/annotations$", check_run_annotations),
    ("POST", R + r"/check-runs$", create_check_run),
    ("GET", R + r"/check-runs/(?P<id>\d+)$", get_check_run),
    ("PATCH", R + r"/check-runs/(?P<id>\d+)$", update_check_run),
    ("GET", R + r"/commits$", list_commits),
    ("GET", R + r"/commits/(?P<sha>[0-9a-f]{7,40})$", get_commit),
    ("GET", R + r"/commits/(?P<sha>[0-9a-f]{40})/check-runs$", commit_check_runs),
    ("GET", R + r"/commits/(?P<sha>[0-9a-f]{40})/status$", commit_status),
]


TEAM_MEMBERSHIP = r"/orgs/(?P<org>[^/]+)/teams/(?P<team>[^/]+)/memberships/(?P<user>[^/]+)$"


def team_membership(fake: FakeGitHub, m: re.Match[str]) -> Reply:
    """GET /orgs/{org}/teams/{team_slug}/memberships/{username}: 404 for a non-member (or an unknown team)."""
    members = {k.lower(): v for k, v in fake.teams.get(f"{m['org']}/{m['team']}".lower(), {}).items()}
    state = members.get(m["user"].lower())
    if state is None:
        return NOT_FOUND
    url = f"{fake.api_url}/organizations/1/team/1/memberships/{m['user']}"
    return 200, {}, {"url": url, "role": "member", "state": state}


def render_markdown(body: Any) -> Reply:
    """POST /markdown: GitHub-flavoured markdown as GitHub renders it for a comment (tables, strikethrough, raw HTML
    such as `<details>`), its HTML comments (the bot's markers) dropped as GitHub's sanitizer drops them; answered as
    `text/html`, not JSON."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    html = re.sub(r"<!--.*?-->", "", renderer.render(str((body or {}).get("text", ""))), flags=re.DOTALL)
    return 200, {"Content-Type": "text/html;charset=utf-8"}, html.encode()


def handle_api(fake: FakeGitHub, method: str, path: str, query: dict, body: Any, login: str) -> Reply:
    """Route one API request; unknown routes answer 404 like GitHub does."""
    if method == "POST" and path == "/markdown":
        return render_markdown(body)
    if method == "GET" and path == "/user":
        if login.endswith("[bot]"):  # App and Actions tokens cannot read /user
            return 403, {}, {"message": "Resource not accessible by integration",
                             "documentation_url": "https://docs.github.com/rest"}
        return 200, {}, fake.user(login)
    if path == "/api/graphql" or path.endswith("/graphql"):
        return graphql(fake, body or {}, login)
    if method == "GET" and (match := re.match(TEAM_MEMBERSHIP, path)):
        return team_membership(fake, match)
    for verb, pattern, route in ROUTES:
        match = re.match(pattern, path)
        if verb == method and match:
            repo = fake.repos.get(f"{match['owner']}/{match['name']}")
            if not repo:
                return NOT_FOUND
            try:
                return route(fake, repo, match, query, body, login)
            except Exception as exc:  # noqa: BLE001 - a fake's bug shows as a 500, not a dropped connection
                return 500, {}, {"message": f"fake GitHub error: {type(exc).__name__}: {exc}"}
    return NOT_FOUND


def handle_blob(fake: FakeGitHub, path: str) -> Reply:
    """A signed download URL, as job logs redirect to: plain text, no auth needed."""
    match = re.match(r"/_blobs/logs/(\d+)/(\d+)$", path)
    for repo in fake.repos.values():
        if match and repo.id == int(match[1]) and int(match[2]) in repo.jobs:
            return 200, {"Content-Type": "text/plain"}, repo.jobs[int(match[2])]["log"].encode()
    return 404, {}, b"not found"

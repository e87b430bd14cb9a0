"""The event's snapshot: one GraphQL read of what an event's handling asks first, instead of six REST reads.

GitHub's advice for cutting request counts is to read many things in one GraphQL request. Before an event's
first question about them, one query asks for the config file on the default branch, the sender's permission,
the issue or pull request (title, body, labels, its thread of comments; for a pull request its branch, head and
state), the open pull request from the bot's branch and that branch's head. The answers fill the caches the
REST calls keep (`GitHubBase`, which sends it), so those calls answer from them. This module builds the query
and reads the answer; it does no I/O.

The snapshot is an optimisation, never a dependency: a piece GraphQL did not give whole (an error for that
field, such as FORBIDDEN for the collaborators of a token without push access; a truncated or binary file; a
thread of more than 100 comments or labels; a field an older Enterprise Server lacks; the whole request
failing) is not cached, and its REST call asks GitHub as it always did. A permission is taken from the
snapshot only when it grants (write, maintain, admin): a login missing from the collaborators GraphQL lists
(members with access through an organization's base permission are not listed) is asked over REST.
The branch head and the open pull request change while an event is handled (the bot pushes, opens the pull
request), so the snapshot answers each of them once; a later question reads GitHub again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from actions.github.info import CommentInfo, PullInfo

PAGE = 100  # GitHub's largest `first`; a thread or label list longer than this is read over REST
# GraphQL's RepositoryPermission as the legacy values the REST permission API answers (and the handlers compare)
LEGACY_PERMISSION = {"ADMIN": "admin", "MAINTAIN": "write", "WRITE": "write", "TRIAGE": "read", "READ": "read"}
GRANTS = ("admin", "write")

COMMENT_FIELDS = "databaseId body createdAt author { __typename login }"  # what `comment_info` reads
_THREAD = f"comments(first: {PAGE}) {{ pageInfo {{ hasNextPage }} nodes {{ {COMMENT_FIELDS} }} }}"
_LABELS = f"labels(first: {PAGE}) {{ pageInfo {{ hasNextPage }} nodes {{ name }} }}"
_PULL = "number title headRefName headRefOid baseRefName isDraft state body url headRepository { nameWithOwner } " \
        "headRepositoryOwner { login } author { __typename login } " + _LABELS


@dataclass(frozen=True)
class SnapshotPlan:
    """What the event will ask first: its issue or PR `number`, the `login` whose permission decides, the
    bot's `branch` (its open pull request and head) and the config file `config` at `ref`; empty: not asked."""

    number: int | None = None
    login: str = ""
    branch: str = ""
    config: str = ""
    ref: str = ""

    def covers(self, number: int | None = None, login: str = "", branch: str = "",
               file: tuple[str, str] | None = None) -> bool:
        """True when the snapshot answers this question (so it is sent before the question is asked)."""
        return bool((number and number == self.number) or (login and login == self.login) or
                    (branch and branch == self.branch) or (file and self.ref and file == (self.config, self.ref)))

    def parts(self) -> list[str]:
        """The fields of `repository` the query asks for, with the variables they use."""
        parts = []
        if self.config and self.ref:
            parts.append("config: object(expression: $config) { ... on Blob { text isTruncated } }")
        if self.login:
            parts.append("collaborators(query: $login, first: 10) { pageInfo { hasNextPage } "
                         "edges { permission node { login } } }")
        if self.number:
            parts.append(f"issueOrPullRequest(number: $number) {{ __typename "
                         f"... on Issue {{ id title body {_LABELS} {_THREAD} }} "
                         f"... on PullRequest {{ id {_PULL} headRef {{ target {{ oid }} }} {_THREAD} }} }}")
        if self.branch:
            parts.append("pullRequests(headRefName: $branch, states: [OPEN], first: 5, "
                         f"orderBy: {{field: CREATED_AT, direction: DESC}}) {{ pageInfo {{ hasNextPage }} nodes {{ {_PULL} }} }}")
            parts.append("ref(qualifiedName: $ref) { target { oid } }")
        return parts

    def query(self) -> str:
        """The GraphQL document: only the variables its parts use are declared (GraphQL refuses unused ones)."""
        body = " ".join(self.parts())
        declared = [("$owner", "String!"), ("$name", "String!")] + \
            [(var, kind) for var, kind in (("$config", "String!"), ("$login", "String!"), ("$number", "Int!"),
                                           ("$branch", "String!"), ("$ref", "String!")) if var in body]
        return f"query EventSnapshot({', '.join(f'{v}: {k}' for v, k in declared)}) " \
               f"{{ repository(owner: $owner, name: $name) {{ {body} }} }}"

    def variables(self, full_name: str) -> dict[str, str | int]:
        owner, name = full_name.split("/", 1)
        found: dict[str, str | int] = {"owner": owner, "name": name}
        if self.config and self.ref:
            found["config"] = f"{self.ref}:{self.config}"
        if self.login:
            found["login"] = self.login
        if self.number:
            found["number"] = self.number
        if self.branch:
            found |= {"branch": self.branch, "ref": f"refs/heads/{self.branch}"}
        return found


Json = dict[str, object]


@dataclass
class Snapshot:
    """The answers the snapshot gave whole, keyed as the caches of `GitHubBase` keep them."""

    files: dict[tuple[str, str], str | None] = field(default_factory=dict)
    granted: dict[str, str] = field(default_factory=dict)  # login -> admin or write
    issues: dict[int, tuple[str, str, list[str]]] = field(default_factory=dict)
    threads: dict[int, list[CommentInfo]] = field(default_factory=dict)
    pulls: dict[int, PullInfo] = field(default_factory=dict)
    heads: dict[str, str | None] = field(default_factory=dict)  # branch -> head, None: no such branch
    open_pulls: dict[str, PullInfo | None] = field(default_factory=dict)  # branch -> its open pull request
    node_ids: dict[int, str] = field(default_factory=dict)  # issue or PR number -> GraphQL node id (for mutations)


def parse_snapshot(answer: Json, plan: SnapshotPlan, full_name: str) -> Snapshot:
    """What GraphQL's `answer` to `plan.query()` gave whole; a field with an error is left out."""
    found = Snapshot()
    failed = {tuple(str(p) for p in _list(_obj(e).get("path"))) for e in _list(answer.get("errors"))}
    repo = _obj(_obj(answer.get("data")).get("repository"))

    def usable(key: str) -> bool:
        return key in repo and not any(path[:2] == ("repository", key) for path in failed)
    if usable("config"):
        blob = repo["config"]
        if blob is None:  # no such file (or ref): as REST's 404
            found.files[(plan.config, plan.ref)] = None
        elif isinstance(text := _obj(blob).get("text"), str) and _obj(blob).get("isTruncated") is False:
            found.files[(plan.config, plan.ref)] = text  # a binary or truncated blob is read over REST
    if usable("collaborators"):
        found.granted = _granted(plan.login, _obj(repo["collaborators"]))
    if usable("issueOrPullRequest") and plan.number:
        _subject(found, plan.number, _obj(repo["issueOrPullRequest"]), full_name)
    if usable("pullRequests"):
        _open_pull(found, plan.branch, _obj(repo["pullRequests"]), full_name)
    if usable("ref"):
        found.heads[plan.branch] = str(_obj(_obj(repo["ref"]).get("target")).get("oid")) if repo["ref"] else None
    return found


def _granted(login: str, collaborators: Json) -> dict[str, str]:
    for edge in _list(collaborators.get("edges")):
        if str(_obj(_obj(edge).get("node")).get("login", "")).lower() == login.lower():  # `query` is a substring
            legacy = LEGACY_PERMISSION.get(str(_obj(edge).get("permission")), "none")
            return {login: legacy} if legacy in GRANTS else {}
    return {}


def _subject(found: Snapshot, number: int, node: Json, full_name: str) -> None:
    kind = node.get("__typename")
    if kind not in ("Issue", "PullRequest"):
        return
    if isinstance(node.get("id"), str):
        found.node_ids[number] = str(node["id"])
    labels = _complete(node.get("labels"))
    if labels is not None:
        found.issues[number] = (str(node.get("title") or ""), str(node.get("body") or ""),
                                [str(_obj(label).get("name")) for label in labels])
    comments = _complete(node.get("comments"))
    if comments is not None:
        found.threads[number] = [comment_info(_obj(c)) for c in comments]
    if kind == "PullRequest" and (pull := _pull(node)) is not None:
        found.pulls[number] = pull
        if pull.head_repo.lower() == full_name.lower() and "headRef" in node:  # the live ref of its branch
            head = node["headRef"]
            found.heads[pull.branch] = str(_obj(_obj(head).get("target")).get("oid")) if head else None


def _open_pull(found: Snapshot, branch: str, connection: Json, full_name: str) -> None:
    owner = full_name.split("/")[0].lower()
    # as REST's `head=owner:branch`: a pull request whose head lives in the owner's account
    ours = [pull for node in _list(connection.get("nodes")) if (pull := _pull(_obj(node))) is not None
            and str(_obj(_obj(node).get("headRepositoryOwner")).get("login", "")).lower() == owner]
    if ours:
        found.open_pulls[branch] = ours[0]
    elif _obj(connection.get("pageInfo")).get("hasNextPage") is False:
        found.open_pulls[branch] = None


def _obj(value: object) -> Json:
    return cast(Json, value) if isinstance(value, dict) else {}


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _complete(connection: object) -> list[object] | None:
    """A connection's nodes when they are all of them; None when there are more pages (read over REST)."""
    found = _obj(connection)
    if "nodes" not in found or _obj(found.get("pageInfo")).get("hasNextPage", True):
        return None
    return _list(found["nodes"])


def comment_info(node: Json) -> CommentInfo:
    """A GraphQL IssueComment as REST's: a Bot's login carries `[bot]`; a deleted user is REST's `ghost`."""
    author = _obj(node.get("author"))
    is_bot = author.get("__typename") == "Bot"
    login = str(author.get("login") or "ghost") + ("[bot]" if is_bot else "")
    created = node.get("createdAt")
    when = datetime.fromisoformat(str(created).replace("Z", "+00:00")) if created else None
    return CommentInfo(int(str(node["databaseId"])), str(node.get("body") or ""), login, is_bot, when)


def _pull(node: Json) -> PullInfo | None:
    """A GraphQL PullRequest as `PullInfo` (REST's `state` is open or closed; a merged one is closed)."""
    labels = _complete(node.get("labels"))
    if labels is None or "number" not in node:
        return None
    state = "open" if node.get("state") == "OPEN" else "closed"
    head_repo = str(_obj(node.get("headRepository")).get("nameWithOwner") or "")
    author = _obj(node.get("author"))
    login = str(author.get("login") or "ghost") + ("[bot]" if author.get("__typename") == "Bot" else "")
    return PullInfo(int(str(node["number"])), str(node.get("headRefName") or ""), str(node.get("headRefOid") or ""),
                    bool(node.get("isDraft")), state, str(node.get("body") or ""), str(node.get("url") or ""),
                    head_repo, tuple(str(_obj(label).get("name")) for label in labels),
                    str(node.get("baseRefName") or ""), login, str(node.get("title") or ""))

"""GraphQL for the fake GitHub: a small executor that answers a document from the fake's state in GitHub's shape.

graphql-core parses what the bot sends (operations with variables, aliases, inline fragments on a union or
interface, named fragments, list and object arguments); the executor answers only the fields asked, under their aliases, as
GitHub does: `data` with null where a field failed and `errors` entries with `message`, `type` and `path`;
a field GitHub's schema lacks rejects the whole document (no `data`), as GitHub's validation does.

    fake.graphql_errors["collaborators"] = ("FORBIDDEN", "...")   # that field answers with an error
    fake.graphql_missing.add("issueOrPullRequest")                 # an older server without that field
    fake.graphql_blob_limit = 100                                   # longer blob texts come back truncated

Objects are plain dicts: a key holds a value, or a function of the field's arguments for fields that take
some (connections, lookups). `__typename` picks the inline fragments that apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphql import GraphQLError, parse
from graphql.language import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValueNode,
)
from graphql.pyutils import Undefined
from graphql.utilities import value_from_ast_untyped

if TYPE_CHECKING:
    from fakes.github_server import FakeGitHub, RepoState

ROLE_PERMISSION = {"admin": "ADMIN", "maintain": "MAINTAIN", "write": "WRITE", "triage": "TRIAGE", "read": "READ"}
PUSH_ROLES = ("admin", "maintain", "write")
ANY_TYPE = "*"  # the type condition of an inline fragment that names none


class FieldError(Exception):
    """A field that answers with an error (its value becomes null)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class InvalidDocument(Exception):
    """The document does not validate (an unknown field): GitHub answers errors and no data."""


@dataclass
class Selection:
    """A field (`name`, `alias`, `args`, sub-selections), an inline fragment (`on`) or a spread (`spread`)."""

    name: str = ""
    alias: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    children: list[Selection] = field(default_factory=list)
    on: str = ""
    spread: str = ""


@dataclass
class Document:
    kind: str  # query or mutation
    selections: list[Selection]
    fragments: dict[str, tuple[str, list[Selection]]]


def parse_document(text: str, variables: dict[str, Any]) -> Document:
    """The document as the executor walks it: graphql-core parses it (the reference parser, so a query the fake
    accepts is one GitHub's parser accepts), arguments resolved with the request's variables."""
    try:
        ast = parse(text)
    except GraphQLError as exc:
        raise InvalidDocument(f"Parse error: {exc.message}") from exc
    kind, selections, fragments = "query", [], {}
    for definition in ast.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            fragments[definition.name.value] = (definition.type_condition.name.value,
                                                _selections(definition.selection_set, variables))
        elif isinstance(definition, OperationDefinitionNode):
            kind, selections = definition.operation.value, _selections(definition.selection_set, variables)
    return Document(kind, selections, fragments)


def _selections(node: SelectionSetNode | None, variables: dict[str, Any]) -> list[Selection]:
    found = []
    for sel in node.selections if node else ():
        if isinstance(sel, FieldNode):
            args = {a.name.value: _value(a.value, variables) for a in sel.arguments or ()}  # 3.3: None when none
            found.append(Selection(name=sel.name.value, alias=(sel.alias or sel.name).value, args=args,
                                   children=_selections(sel.selection_set, variables)))
        elif isinstance(sel, InlineFragmentNode):  # no type condition: it applies to every type
            on = sel.type_condition.name.value if sel.type_condition else ANY_TYPE
            found.append(Selection(on=on, children=_selections(sel.selection_set, variables)))
        elif isinstance(sel, FragmentSpreadNode):
            found.append(Selection(spread=sel.name.value))
    return found


def _value(node: ValueNode, variables: dict[str, Any]) -> Any:
    """An argument's value (a variable the request did not send is null; an enum value is its name)."""
    value = value_from_ast_untyped(node, variables)
    return None if value is Undefined else value


def execute(fake: FakeGitHub, body: dict[str, Any], login: str) -> dict:
    """Answer the document in `body`: a query over `repository`, or the mutations in `mutations`."""
    try:
        doc = parse_document(body.get("query", ""), body.get("variables") or {})
        errors: list[dict] = []
        roots = mutations(fake, login) if doc.kind == "mutation" else \
            {"repository": lambda owner, name: repository(fake, login, owner, name)}
        data = _select(fake, doc, {"__typename": doc.kind.title(), **roots}, doc.selections, [], errors)
    except InvalidDocument as exc:
        return {"errors": [{"message": str(exc), "extensions": {"code": "undefinedField"}, "locations": []}]}
    return {"data": data, **({"errors": errors} if errors else {})}


def _select(fake: FakeGitHub, doc: Document, obj: dict, selections: list[Selection], path: list,
            errors: list[dict]) -> dict:
    out: dict[str, Any] = {}
    for sel in selections:
        if sel.spread:
            on, children = doc.fragments[sel.spread]
            if on == obj.get("__typename") or on not in _CONCRETE:
                out |= _select(fake, doc, obj, children, path, errors)
            continue
        if sel.on:
            if sel.on == obj.get("__typename") or sel.on not in _CONCRETE:  # an interface (or no type) applies to all
                out |= _select(fake, doc, obj, sel.children, path, errors)
            continue
        if sel.name == "__typename":
            out[sel.alias] = obj.get("__typename")
            continue
        if sel.name not in obj or sel.name in fake.graphql_missing:
            raise InvalidDocument(f"Field '{sel.name}' doesn't exist on type '{obj.get('__typename')}'")
        here = [*path, sel.alias]
        try:
            if sel.name in fake.graphql_errors:
                raise FieldError(*fake.graphql_errors[sel.name])
            value = obj[sel.name]
            value = value(**sel.args) if callable(value) else value
        except FieldError as exc:
            errors.append({"type": exc.kind, "path": here, "locations": [], "message": str(exc)})
            out[sel.alias] = None
            continue
        out[sel.alias] = _shape(fake, doc, value, sel, here, errors)
    return out


def _shape(fake: FakeGitHub, doc: Document, value: Any, sel: Selection, path: list, errors: list[dict]) -> Any:
    if isinstance(value, list):
        return [_shape(fake, doc, item, sel, [*path, i], errors) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return _select(fake, doc, value, sel.children, path, errors)
    return value


_CONCRETE = {"Issue", "PullRequest", "IssueComment", "Blob", "Commit", "User", "Bot", "Repository", "Ref",
             "Label", "Reaction", "Organization"}


# -- the fake's state as GraphQL objects -------------------------------------------------------
def connection(items: list, first: int | None = None, after: str | None = None, **_: Any) -> dict:
    """A connection page: `nodes`, `edges` (their `node`, plus what each item's `_edge` holds), `pageInfo`."""
    start = int(after) if after else 0
    chunk = items[start: start + (first if first is not None else len(items))]
    end = start + len(chunk)
    return {"__typename": "Connection", "totalCount": len(items),
            "pageInfo": {"__typename": "PageInfo", "hasNextPage": end < len(items), "endCursor": str(end) if chunk else None,
                         "hasPreviousPage": start > 0, "startCursor": str(start) if chunk else None},
            "nodes": [{k: v for k, v in item.items() if k != "_edge"} for item in chunk],
            "edges": [{"__typename": "Edge", "cursor": str(start + i + 1), **item.get("_edge", {}),
                       "node": {k: v for k, v in item.items() if k != "_edge"}} for i, item in enumerate(chunk)]}


def actor(fake: FakeGitHub, user: dict | None) -> dict | None:
    """A comment's author: null for a deleted user (REST's `ghost`), a Bot's login without `[bot]`."""
    if user is None or user["login"] == "ghost":
        return None
    login = user["login"]
    if login.endswith("[bot]"):
        return {"__typename": "Bot", "login": login.removesuffix("[bot]"), "id": f"BOT_{user['id']}"}
    return {"__typename": "User", "login": login, "id": f"U_{user['id']}"}


def comment_node(fake: FakeGitHub, repo: RepoState, comment: dict) -> dict:
    return {"__typename": "IssueComment", "id": f"IC_{comment['id']}", "databaseId": comment["id"],
            "body": comment["body"], "createdAt": comment["created_at"], "updatedAt": comment["updated_at"],
            "author": actor(fake, comment["user"]),
            "url": f"{fake.server_url}/{repo.full_name}/issues/{comment['issue_number']}#issuecomment-{comment['id']}"}


def issue_node(fake: FakeGitHub, repo: RepoState, number: int) -> dict:
    """Issue #number, or the PullRequest it is."""
    issue = repo.issues[number]
    node = {"__typename": "Issue", "id": f"I_{issue['id']}", "number": number, "title": issue["title"],
            "body": issue["body"], "state": issue["state"].upper(), "author": actor(fake, issue["user"]),
            "url": f"{fake.server_url}/{repo.full_name}/issues/{number}",
            "labels": lambda **a: connection([{"__typename": "Label", "name": label["name"], "id": label["node_id"]}
                                              for label in issue["labels"]], **a),
            "comments": lambda **a: connection([comment_node(fake, repo, c)
                                                for c in fake.comments_on(repo.full_name, number)], **a)}
    if number in repo.pulls:
        node |= pull_fields(fake, repo, repo.pulls[number])
    return node


def pull_fields(fake: FakeGitHub, repo: RepoState, pull: dict) -> dict:
    rest = fake.pull_json(repo, pull)
    head = rest["head"]
    state = "MERGED" if pull["merged"] else rest["state"].upper()
    live = fake.head_sha(repo.full_name, pull["head_ref"]) if not pull.get("fork") else pull.get("last_head_sha")
    return {"__typename": "PullRequest", "id": rest["node_id"], "state": state, "isDraft": pull["draft"],
            "url": rest["html_url"], "headRefName": pull["head_ref"], "headRefOid": head["sha"],
            "baseRefName": pull["base_ref"],
            "headRepository": {"__typename": "Repository", "nameWithOwner": head["repo"]["full_name"]},
            "headRepositoryOwner": {"__typename": "Organization", "login": head["repo"]["owner"]["login"]},
            "headRef": {"__typename": "Ref", "name": pull["head_ref"],
                        "target": {"__typename": "Commit", "oid": live}} if live else None}


def repository(fake: FakeGitHub, login: str, owner: str, name: str) -> dict | None:
    """The `repository` root field over the fake's state."""
    repo = fake.repos.get(f"{owner}/{name}")
    if repo is None:
        raise FieldError("NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'.")

    def blob(expression: str) -> dict | None:
        ref, _, path = expression.partition(":")
        try:
            text = fake.file_at(repo.full_name, ref, path)
        except RuntimeError:
            return None
        cut = len(text) > fake.graphql_blob_limit
        return {"__typename": "Blob", "text": text[:fake.graphql_blob_limit], "isTruncated": cut, "isBinary": False,
                "byteSize": len(text.encode())}

    def collaborators(query: str = "", first: int | None = None, after: str | None = None, **_: Any) -> dict:
        if not login.endswith("[bot]") and repo.permissions.get(login, "none") not in PUSH_ROLES:
            raise FieldError("FORBIDDEN", "You do not have permission to view repository collaborators.")
        people = [{"__typename": "User", "login": who, "id": f"U_{who}", "_edge": {"permission": ROLE_PERMISSION[role]}}
                  for who, role in sorted(repo.permissions.items())
                  if role in ROLE_PERMISSION and query.lower() in who.lower()]
        return connection(people, first, after)

    def issue_or_pull(number: int) -> dict | None:
        return issue_node(fake, repo, number) if number in repo.issues else None

    def pull_requests(headRefName: str | None = None, states: list[str] | None = None,  # noqa: N803 - GraphQL's
                      orderBy: dict | None = None, first: int | None = None, **_: Any) -> dict:  # noqa: N803
        found = [issue_node(fake, repo, n) for n in sorted(repo.pulls)]
        found = [p for p in found if headRefName in (None, p["headRefName"]) and (not states or p["state"] in states)]
        if (orderBy or {}).get("direction") == "DESC":
            found.reverse()
        return connection(found, first)

    def ref(qualifiedName: str) -> dict | None:  # noqa: N803 - GraphQL's name
        sha = fake.head_sha(repo.full_name, qualifiedName.removeprefix("refs/heads/"))
        return {"__typename": "Ref", "name": qualifiedName, "target": {"__typename": "Commit", "oid": sha}} if sha else None

    return {"__typename": "Repository", "id": f"R_{repo.id}", "nameWithOwner": repo.full_name, "object": blob,
            "collaborators": collaborators, "issueOrPullRequest": issue_or_pull, "pullRequests": pull_requests,
            "ref": ref}


def subject(fake: FakeGitHub, node_id: str) -> tuple[RepoState, int]:
    """The repository and number of an Issue (`I_<id>`) or PullRequest (`PR_<id>`) node id."""
    for repo in fake.repos.values():
        for number, issue in repo.issues.items():
            pull = repo.pulls.get(number)
            if node_id == f"I_{issue['id']}" or (pull is not None and node_id == f"PR_{pull['id']}"):
                return repo, number
    raise FieldError("NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'")


def mutations(fake: FakeGitHub, login: str) -> dict[str, Callable[..., Any]]:
    """addReaction and addComment on an issue or pull request, recorded as the REST routes record them."""
    from fakes.github_routes import create_reaction

    def add_reaction(input: dict) -> dict:  # noqa: A002 - GraphQL's argument name
        repo, number = subject(fake, input["subjectId"])
        content = str(input["content"]).lower().replace("thumbs_up", "+1").replace("thumbs_down", "-1")
        on_issue = re.match(r"(?P<n>\d+)", str(number))  # as the REST route's match for /issues/{n}/reactions
        status, _, made = create_reaction(fake, repo, on_issue, {}, {"content": content}, login)
        if status >= 400:
            raise FieldError("UNPROCESSABLE", f"could not react with {input['content']}")
        return {"__typename": "AddReactionPayload", "reaction": {"__typename": "Reaction", "content": input["content"],
                "id": made["node_id"]}, "subject": issue_node(fake, repo, number)}

    def add_comment(input: dict) -> dict:  # noqa: A002 - GraphQL's argument name
        repo, number = subject(fake, input["subjectId"])
        made = fake.add_comment(repo.full_name, number, input["body"], user=login)
        node = comment_node(fake, repo, repo.comments[made["id"]])
        return {"__typename": "AddCommentPayload", "subject": issue_node(fake, repo, number),
                "commentEdge": {"__typename": "IssueCommentEdge", "cursor": str(made["id"]), "node": node}}

    return {"addReaction": add_reaction, "addComment": add_comment}

"""Issues, comments, reactions and labels: what the bot reads from and writes on an issue or PR thread."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime
from typing import Any
from urllib.parse import quote

from github.IssueComment import IssueComment

from actions.github.base import GitHubBase, GitHubError
from actions.github.info import CommentInfo, IssueInfo
from actions.github.snapshot import COMMENT_FIELDS, comment_info

log = logging.getLogger(__name__)
PER_PAGE = 100  # GitHub's largest page, as the client asks for every listing (common/github.py)
REACTIONS = {"eyes": "EYES", "+1": "THUMBS_UP", "-1": "THUMBS_DOWN", "laugh": "LAUGH", "confused": "CONFUSED",
             "heart": "HEART", "hooray": "HOORAY", "rocket": "ROCKET"}  # REST's names as GraphQL's ReactionContent
REACT_AND_COMMENT = f"""mutation ReactAndComment($subject: ID!, $content: ReactionContent!, $body: String!) {{
  addReaction(input: {{subjectId: $subject, content: $content}}) {{ reaction {{ content }} }}
  addComment(input: {{subjectId: $subject, body: $body}}) {{ commentEdge {{ node {{ {COMMENT_FIELDS} }} }} }} }}"""


class IssueCalls(GitHubBase):
    """People, issues, comments and labels."""

    def permission(self, login: str) -> str:
        """The user's legacy permission: admin, write (also maintain), read (also triage) or none."""
        self._prefetch(login=login)
        with self._threads_lock:
            if login in self._granted:
                return self._granted[login]
        return self._not_found_is_none("check permission", lambda: self._repo.get_collaborator_permission(login)) or "none"

    def team_member(self, org: str, team: str, login: str) -> bool:
        """True when `login` is an active member of the team `org/team` (not one merely invited).

        The team membership API; the token needs read access to the organization's members (an App with
        "Members: read"; the default GITHUB_TOKEN has none): GitHub's refusal (403) is a GitHubError that says
        so, and its 404, for a non-member or a team the token cannot see, is "no".
        """
        def fetch() -> bool:
            _, data = self._gh.requester.requestJsonAndCheck(
                "GET", f"/orgs/{quote(org)}/teams/{quote(team)}/memberships/{quote(login)}")
            return bool(data) and data.get("state") == "active"
        return bool(self._not_found_is_none(f"read the membership of @{login} in team {org}/{team}", fetch))

    def issue(self, number: int) -> tuple[str, str, list[str]]:
        """An issue's title, body and label names; read once per event until the bot changes its labels."""
        def fetch() -> tuple[str, str, list[str]]:
            issue = self._repo.get_issue(number)
            return issue.title, issue.body or "", [label.name for label in issue.labels]
        self._prefetch(number=number)
        with self._threads_lock:
            kept = self._issues.get(number)
        if kept is None:
            kept = self.call(f"read issue #{number}", fetch)
            with self._threads_lock:
                self._issues[number] = kept
        return kept[0], kept[1], list(kept[2])

    def create_issue(self, title: str, body: str, labels: tuple[str, ...] = ()) -> int:
        """Open an issue; its number."""
        title, body = self.outgoing(title), self.outgoing(body)
        return self.call("open an issue", lambda: self._repo.create_issue(title, body, labels=list(labels)).number,
                         repeatable=False)  # a 5xx may come after the issue was made: no second one

    def labelled_issues(self, label: str) -> list[IssueInfo]:
        """The issues (open or closed, pull requests left out) that carry `label`, newest first."""
        def fetch() -> list[IssueInfo]:
            return [IssueInfo(i.number, i.user.login, i.state, i.body or "")
                    for i in self._repo.get_issues(state="all", labels=[label]) if i.pull_request is None]
        return self.call(f"list the issues labelled {label}", fetch)

    def comments(self, number: int, since: datetime | None = None, fresh: bool = False) -> list[CommentInfo]:
        """All comments on an issue or PR, oldest first (only those created or edited at or after `since`).

        The thread is read once per event and kept up to date with the bot's own comments and edits; `fresh`
        reads it again, for a question about comments people wrote while the event was handled (commands
        queued behind a run). A `since` read always goes to GitHub and leaves the kept thread alone.
        """
        def fetch() -> list[CommentInfo]:
            listing = self._repo.get_issue(number).get_comments(**({"since": since} if since else {}))
            return [_info(c) for c in listing]
        if since is not None:
            return self.call(f"list comments on #{number}", fetch)
        if not fresh:
            self._prefetch(number=number)
        with self._threads_lock:
            kept = None if fresh else self._threads.get(number)
        if kept is None:
            kept = self.call(f"list comments on #{number}", fetch)
            with self._threads_lock:
                self._threads[number] = kept
        return list(kept)

    def comments_since(self, number: int, since: datetime, etag: str = "") -> tuple[list[CommentInfo] | None, str]:
        """The comments on #number created or edited at or after `since`, asked conditionally for a poll.

        With the `etag` of the last answer, GitHub answers 304 Not Modified while nothing was written or
        edited (a 304 does not count against the rate limit): then (None, etag). Else the comments and the
        tag to send next time; '' when they fill more than a page, whose first page can stay the same while a
        new comment lands on the last.
        """
        def fetch() -> tuple[dict[str, Any], Any]:
            return self._gh.requester.requestJsonAndCheck(
                "GET", f"{self._repo.url}/issues/{number}/comments",
                parameters={"since": since.strftime("%Y-%m-%dT%H:%M:%SZ"), "per_page": PER_PAGE},
                headers={"If-None-Match": etag} if etag else None)
        headers, data = self.call(f"list comments on #{number}", fetch)
        if data is None:  # 304: the answer `etag` stands for still holds
            return None, etag
        if 'rel="next"' in headers.get("link", ""):
            return self.comments(number, since=since), ""
        return [_info(self._gh.create_from_raw_data(IssueComment, item, headers)) for item in data], \
            str(headers.get("etag", ""))

    def comment(self, number: int, body: str) -> int:
        """Post a comment; returns its id. A reaction waiting for this thread (`react_soon`) goes in the same
        request, before the comment."""
        body = self.outgoing(body)
        with self._threads_lock:
            waiting, self._reaction = self._reaction, None
        if waiting is not None and waiting[0] != number:  # another thread's: on its own, as it would have gone
            self._react_now(*waiting)
        elif waiting is not None and (made := self._react_and_comment(number, waiting[1], body)) is not None:
            return self._posted(number, made)
        made = self.call(f"comment on #{number}", lambda: _info(self._repo.get_issue(number).create_comment(body)),
                         repeatable=False)  # a 5xx may come after the comment was made: no second one
        return self._posted(number, made)

    def _posted(self, number: int, made: CommentInfo) -> int:
        with self._threads_lock:
            if number in self._threads:
                self._threads[number].append(made)
        return made.id

    def _react_and_comment(self, number: int, content: str, body: str) -> CommentInfo | None:
        """The waiting reaction and the comment in one GraphQL mutation (GitHub runs them in order); None when
        GitHub did not make the comment (it said so: REST then posts it). The reaction is put through REST when
        GitHub refused it in the mutation."""
        def send() -> dict[str, object]:
            _, data = self._gh.requester.requestJsonAndCheck("POST", self._gh.requester.graphql_url, input={
                "query": REACT_AND_COMMENT, "variables": {"subject": self._node_ids[number],
                                                          "content": REACTIONS[content], "body": body}})
            return data if isinstance(data, dict) else {}
        try:
            answer = self.call(f"react to and comment on #{number}", send, repeatable=False)  # as a comment: once
        except GitHubError:
            self._react_now(number, content)  # the comment fails as a REST one would; the reaction still goes on
            raise
        data = answer.get("data")
        data = data if isinstance(data, dict) else {}
        if answer.get("errors"):
            log.info("GitHub refused part of the reaction and comment on #%s: %s", number, answer["errors"])
        if not data.get("addReaction"):
            self._react_now(number, content)
        made = data.get("addComment")
        edge = made.get("commentEdge") if isinstance(made, dict) else None
        node = edge.get("node") if isinstance(edge, dict) else None
        return comment_info(node) if isinstance(node, dict) and node.get("databaseId") else None

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        """Replace a comment's body in place."""
        body = self.outgoing(body)
        self.call("update a comment", lambda: self._repo.get_issue(number).get_comment(comment_id).edit(body))
        with self._threads_lock:
            thread = self._threads.get(number, [])
            for i, kept in enumerate(thread):
                if kept.id == comment_id:
                    thread[i] = replace(kept, body=body)

    def react(self, number: int, comment_id: int | None = None, content: str = "eyes") -> None:
        """Put a reaction on comment `comment_id`, or on issue #number itself; reacting twice keeps one."""
        issue = self._repo.get_issue(number)  # lazy: no request until the reaction is posted
        target = issue.get_comment(comment_id) if comment_id else issue
        self.call(f"react to #{number}", lambda: target.create_reaction(content))

    def react_soon(self, number: int, content: str = "eyes") -> None:
        """Put a reaction on issue #number with the bot's next comment there, in one request (the snapshot gave
        the issue's node id), else now; `flush_reaction` puts it on when no comment follows."""
        self._prefetch(number=number)
        with self._threads_lock:
            if number in self._node_ids and content in REACTIONS and self._reaction is None:
                self._reaction = (number, content)
                return
        self._react_now(number, content)

    def flush_reaction(self) -> None:
        """Put on the reaction still waiting for a comment (the event ends without one)."""
        with self._threads_lock:
            waiting, self._reaction = self._reaction, None
        if waiting is not None:
            self._react_now(*waiting)

    def _react_now(self, number: int, content: str) -> None:
        """A waiting reaction, on its own; a refusal is logged, never fatal (as the handlers' `acknowledge`)."""
        try:
            self.react(number, None, content)
        except GitHubError as exc:
            log.warning("could not put the %s reaction on #%s: %s", content, number, exc)

    def add_labels(self, number: int, *labels: str) -> None:
        self._forget_issue(number)
        self.call(f"label #{number}", lambda: self._repo.get_issue(number).add_to_labels(*labels))

    def remove_label(self, number: int, label: str) -> None:
        """Remove a label; a label that is not there is fine."""
        self._forget_issue(number)
        self._not_found_is_none(f"unlabel #{number}", lambda: self._repo.get_issue(number).remove_from_labels(label))

    def _forget_issue(self, number: int) -> None:
        with self._threads_lock:
            self._issues.pop(number, None)


def _info(comment: IssueComment) -> CommentInfo:
    """A PyGithub IssueComment as the handlers read it."""
    return CommentInfo(comment.id, comment.body or "", comment.user.login, comment.user.type == "Bot", comment.created_at)

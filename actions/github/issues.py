"""Issues, comments, reactions and labels: what the bot reads from and writes on an issue or PR thread."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

from actions.github.base import GitHubBase
from actions.github.info import CommentInfo


class IssueCalls(GitHubBase):
    """People, issues, comments and labels."""

    def permission(self, login: str) -> str:
        """The user's legacy permission: admin, write (also maintain), read (also triage) or none."""
        return self._not_found_is_none("check permission", lambda: self._repo.get_collaborator_permission(login)) or "none"

    def team_member(self, org: str, team: str, login: str) -> bool:
        """True when `login` is an active member of the team `org/team` (not one merely invited).

        The team membership API; the token needs read access to the organization's members (an App with
        "Members: read"; the default GITHUB_TOKEN has none): GitHub's refusal (403) is a ForgeError that says
        so, and its 404, for a non-member or a team the token cannot see, is "no".
        """
        def fetch() -> bool:
            _, data = self._gh.requester.requestJsonAndCheck(
                "GET", f"/orgs/{quote(org)}/teams/{quote(team)}/memberships/{quote(login)}")
            return bool(data) and data.get("state") == "active"
        return bool(self._not_found_is_none(f"read the membership of @{login} in team {org}/{team}", fetch))

    def issue(self, number: int) -> tuple[str, str, list[str]]:
        """An issue's title, body and label names."""
        def fetch() -> tuple[str, str, list[str]]:
            issue = self._repo.get_issue(number)
            return issue.title, issue.body or "", [label.name for label in issue.labels]
        return self.call(f"read issue #{number}", fetch)

    def comments(self, number: int, since: datetime | None = None) -> list[CommentInfo]:
        """All comments on an issue or PR, oldest first (only those created or edited at or after `since`)."""
        def fetch() -> list[CommentInfo]:
            listing = self._repo.get_issue(number).get_comments(**({"since": since} if since else {}))
            return [CommentInfo(c.id, c.body or "", c.user.login, c.user.type == "Bot", c.created_at) for c in listing]
        return self.call(f"list comments on #{number}", fetch)

    def comment(self, number: int, body: str) -> int:
        """Post a comment; returns its id."""
        body = self.outgoing(body)
        return self.call(f"comment on #{number}", lambda: self._repo.get_issue(number).create_comment(body),
                         repeatable=False).id  # a 5xx may come after the comment was made: no second one

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        """Replace a comment's body in place."""
        body = self.outgoing(body)
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

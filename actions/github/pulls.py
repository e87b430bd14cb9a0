"""Pull requests, reviews and review threads (threads through GraphQL: REST has none)."""

from __future__ import annotations

from typing import TypedDict

from actions.github.base import GitHubBase, GitHubError, message, retry_after
from actions.github.info import PullInfo, ReviewInfo, ReviewThread, pull_info

THREADS_QUERY = """query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
    reviewThreads(first: 100, after: $cursor) { pageInfo { hasNextPage endCursor }
      nodes { id isResolved isOutdated path line comments(first: 1) { nodes { databaseId } } } } } } }"""
RESOLVE_MUTATION = """mutation($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }"""


class _CommentNode(TypedDict):
    databaseId: int


class _CommentNodes(TypedDict):
    nodes: list[_CommentNode]


class _ThreadNode(TypedDict):
    id: str
    isResolved: bool
    isOutdated: bool
    path: str
    line: int | None
    comments: _CommentNodes


class _PageInfo(TypedDict):
    hasNextPage: bool
    endCursor: str | None


class ThreadPage(TypedDict):
    """One page of THREADS_QUERY's `reviewThreads`, the part of GraphQL's answer that is read."""

    nodes: list[_ThreadNode]
    pageInfo: _PageInfo



class PullCalls(GitHubBase):
    """Pull requests and their reviews."""

    def find_pull(self, branch: str) -> PullInfo | None:
        """The open pull request from `branch`, if any."""
        answered, found = self._first_open_pull(branch)
        if answered:
            return found
        owner = self.full_name.split("/")[0]
        pulls = self.call("list pull requests", lambda: list(self._repo.get_pulls(state="open", head=f"{owner}:{branch}")))
        return pull_info(pulls[0]) if pulls else None

    def open_pulls(self) -> list[PullInfo]:
        """Every open pull request of the repository, oldest first."""
        return self.call("list open pull requests",
                         lambda: sorted((pull_info(p) for p in self._repo.get_pulls(state="open")),
                                        key=lambda p: p.number))

    def pull(self, number: int) -> PullInfo:
        """PR #number, read once per event (its head follows the bot's pushes) until the bot edits a pull request."""
        self._prefetch(number=number)
        with self._threads_lock:
            if number in self._pulls:
                return self._pulls[number]
        found = self.call(f"read PR #{number}", lambda: pull_info(self._repo.get_pull(number)))
        with self._threads_lock:
            self._pulls[number] = found
        return found

    def open_draft_pull(self, branch: str, base: str, title: str, body: str) -> PullInfo:
        """Open a draft PR; when one already exists for `branch`, update its body instead."""
        from github import GithubException

        title, body = self.outgoing(title), self.outgoing(body)
        self.forget_pulls()
        try:
            pull = self._repo.create_pull(base=base, head=branch, title=title, body=body, draft=True)
            return pull_info(pull)
        except GithubException as exc:
            if exc.status == 422 and "already exists" in str(exc.data):
                existing = self.find_pull(branch)
                if existing:
                    self.update_pull_body(existing.number, body)
                    return existing
            if retry_after(exc) is not None:
                return self.call("open a pull request", lambda: pull_info(
                    self._repo.create_pull(base=base, head=branch, title=title, body=body, draft=True)))
            raise GitHubError(f"GitHub refused to open a pull request from {branch}: {exc.status} {message(exc)}") from None

    def update_pull_body(self, number: int, body: str) -> None:
        body = self.outgoing(body)
        self.forget_pulls()
        self.call(f"update PR #{number}", lambda: self._repo.get_pull(number).edit(body=body))

    def mark_ready(self, number: int) -> None:
        self.forget_pulls()
        self.call(f"mark PR #{number} ready for review", lambda: self._repo.get_pull(number).mark_ready_for_review())

    def merge(self, number: int, sha: str, method: str = "squash") -> None:
        """Merge PR #`number` only if its head is still `sha` (GitHub refuses otherwise)."""
        self.forget_pulls()
        self.call(f"merge PR #{number}", lambda: self._repo.get_pull(number).merge(merge_method=method, sha=sha))

    def comment_review(self, number: int, sha: str, body: str, comments: list[tuple[str, int, str]]) -> int:
        """One review of PR #`number` at commit `sha` that only comments (event COMMENT: it neither approves nor
        requests changes), with `comments` (path, line of the head, text) on the lines; its id."""
        body = self.outgoing(body)
        inline = [{"path": path, "line": line, "side": "RIGHT", "body": self.outgoing(text)}
                  for path, line, text in comments]

        def create() -> int:
            pull = self._repo.get_pull(number)
            return pull.create_review(commit=self._repo.get_commit(sha), body=body, event="COMMENT",
                                      comments=inline).id  # type: ignore[arg-type]  # PyGithub types the dicts

        return self.call(f"review PR #{number}", create, repeatable=False)

    def pull_files(self, number: int) -> list[str]:
        """The paths PR #`number` changes (GitHub lists up to 3,000)."""
        return self.call(f"list the files of PR #{number}",
                         lambda: [f.filename for f in self._repo.get_pull(number).get_files()])

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
        cursor: str | None = None
        while True:
            variables: dict[str, str | int | None] = {"owner": owner, "name": name, "number": number, "cursor": cursor}

            def page_of_threads(v: dict[str, str | int | None] = variables) -> ThreadPage:
                _, data = self._gh.requester.graphql_query(THREADS_QUERY, v)
                page: ThreadPage = data["data"]["repository"]["pullRequest"]["reviewThreads"]
                return page

            page = self.call(f"list review threads on PR #{number}", page_of_threads)
            threads += [ReviewThread(t["id"], t["isResolved"], t["isOutdated"], t["path"], t["line"],
                                     t["comments"]["nodes"][0]["databaseId"])
                        for t in page["nodes"] if t["comments"]["nodes"]]
            if not page["pageInfo"]["hasNextPage"]:
                return threads
            cursor = page["pageInfo"]["endCursor"]

    def reply_in_thread(self, number: int, comment_id: int, body: str) -> None:
        """Answer in the review thread that review comment `comment_id` starts."""
        body = self.outgoing(body)
        self.call(f"reply to review comment {comment_id}",
                  lambda: self._repo.get_pull(number).create_review_comment_reply(comment_id, body), repeatable=False)

    def resolve_thread(self, thread_id: str) -> None:
        """Mark a review thread resolved (GraphQL `resolveReviewThread`)."""
        self.call("resolve a review thread",
                  lambda: self._gh.requester.graphql_query(RESOLVE_MUTATION, {"threadId": thread_id}))

    def request_review(self, number: int, login: str) -> None:
        """Ask `login` to review PR #`number`."""
        self.call(f"request a review of PR #{number} from @{login}",
                  lambda: self._repo.get_pull(number).create_review_request(reviewers=[login]))

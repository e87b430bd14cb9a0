"""After a revision: answer the PR's open review threads, and ask the person who asked for a review.

A thread counts as addressed when the revision changed the line it is on or a line next to it
(its path and line against `git diff <old head> <new head>`). Addressed threads get a reply
naming the commit and are resolved; the others stay open with a one-line reason. The reading of
the diff is pure; the GitHub calls go through `ctx.github`, and a failure there never undoes the
push that already happened: it is logged and reported in the progress note.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from actions.context import Context
from actions.github import GitHubError, ReviewThread
from actions.markers import inert
from common.git import git

log = logging.getLogger(__name__)
_HUNK = re.compile(r"^@@ -(?P<start>\d+)(?:,(?P<count>\d+))? \+\d+(?:,\d+)? @@")


def changed_lines(diff: str) -> dict[str, list[tuple[int, int]]]:
    """For each file a diff changes, its hunks on the old side as (first line, line count)."""
    hunks: dict[str, list[tuple[int, int]]] = {}
    path: str | None = None
    for line in diff.splitlines():
        if line.startswith("--- "):
            path = line[6:] if line.startswith("--- a/") else None  # /dev/null: a new file has no old lines
        elif (match := _HUNK.match(line)) and path is not None:
            count = 1 if match["count"] is None else int(match["count"])
            hunks.setdefault(path, []).append((int(match["start"]), count))
    return hunks


def addressed(thread: ReviewThread, hunks: dict[str, list[tuple[int, int]]]) -> bool:
    """True when a hunk changed the thread's line or a neighbour (for a file comment: the file)."""
    changed = hunks.get(thread.path, [])
    if thread.line is None:
        return bool(changed)
    return any(start - 1 <= thread.line <= start + max(count, 1) for start, count in changed)


def answer_threads(ctx: Context, number: int, clone: Path, before: str, after: str) -> str:
    """Reply in and resolve the threads the commits `before..after` addressed; a sentence for the progress note."""
    try:
        threads = [t for t in ctx.github.review_threads(number) if not t.resolved]
    except GitHubError as exc:
        log.warning("could not read the review threads of PR #%d: %s", number, exc)
        return " I could not read the review threads, so none were answered."
    if not threads:
        return ""
    hunks = changed_lines(git(clone, "diff", "--no-renames", "--unified=0", before, after))
    resolved = 0
    for thread in threads:
        done = addressed(thread, hunks) and not thread.outdated
        try:
            ctx.github.reply_in_thread(number, thread.comment_id, _reply(thread, done, after))
            if done:
                ctx.github.resolve_thread(thread.id)
                resolved += 1
        except GitHubError as exc:
            log.warning("could not answer review thread %s on PR #%d: %s", thread.id, number, exc)
    return f" Resolved {resolved} of {len(threads)} open review threads."


def _reply(thread: ReviewThread, done: bool, sha: str) -> str:
    where = f"`{thread.path.replace('`', '')}`" + (f" line {thread.line}" if thread.line else "")
    if done:
        return inert(f"Addressed in {sha}: this revision changed {where}.")
    if thread.outdated:
        return inert(f"Not checked by this revision ({sha[:7]}): the thread is on an outdated line, so it stays open.")
    return inert(f"Not changed by this revision ({sha[:7]}): it did not touch {where}, so this thread stays open.")


def request_review(ctx: Context, number: int, login: str) -> None:
    """Ask the person who triggered the run to review the PR (never the bot itself); failures are logged."""
    if not login or login.endswith("[bot]") or login in ctx.bot_logins or login == ctx.me():
        return
    try:
        ctx.github.request_review(number, login)
    except GitHubError as exc:  # e.g. 422 when the login may not review here
        log.warning("could not request a review of PR #%d from @%s: %s", number, login, exc)

"""Git work in the bot's clone: preparing the branch, and spotting commits a human pushed.

A commit on an `ensemble/` branch without an `Ensemble-Run:` trailer is a human's. From then
on the bot does not push to the branch until someone says `/ensemble retry`, which records
the branch head it was told to continue from (an `ack` marker).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from actions.context import Context, Outcome
from actions.github import ForgeError, GitHubForge
from actions.markers import marker
from actions.render import hold_comment
from common.git import git, git_succeeds

TRAILER = "Ensemble-Run:"
log = logging.getLogger(__name__)


def prepare_clone(ctx: Context, branch: str, remote_head: str | None, name: str) -> Path:
    """A fresh clone on the default branch, with local `branch` at the remote's head when it exists."""
    dest = ctx.workdir / name
    if dest.exists():
        shutil.rmtree(dest)
    ctx.workdir.mkdir(parents=True, exist_ok=True)
    clone = ctx.forge.clone(dest)
    if remote_head:
        git(clone, "branch", "--force", branch, remote_head)
    return clone


def complete_history(forge: GitHubForge, clone: Path, history: bool) -> bool:
    """With the history channel on (`index.history`), fetch a shallow clone's missing commits and trees.

    Returns whether the clone now has its history. A failed fetch is not a failed run: retrieval ranks
    without history, and the index.open span of the trace says so.
    """
    if not history or git(clone, "rev-parse", "--is-shallow-repository", check=False).strip() != "true":
        return history
    try:
        forge.fetch_history(clone)
    except ForgeError as exc:
        log.warning("ranking without the repository's history: %s", exc)
        return False
    return True


def human_commits(clone: Path, branch: str, ack: str | None) -> list[str]:
    """SHAs on origin/`branch` (after `ack`, else after the default branch) without the bot's trailer."""
    start = ack if ack and _is_ancestor(clone, ack, f"origin/{branch}") else "origin/HEAD"
    out = git(clone, "log", "--format=%H%x00%B%x01", f"{start}..origin/{branch}")
    shas = []
    for entry in out.split("\x01"):
        sha, _, message = entry.strip().partition("\x00")
        trailers = [line.strip() for line in message.strip().splitlines()]
        if sha and not any(line.startswith(TRAILER) for line in trailers):
            shas.append(sha)
    return shas


def _is_ancestor(clone: Path, older: str, newer: str) -> bool:
    return git_succeeds(clone, "merge-base", "--is-ancestor", older, newer)


def check_hold(ctx: Context, clone: Path, branch: str, remote_head: str | None, numbers: tuple[int, ...]) -> Outcome | None:
    """An Outcome when a human pushed to the branch since the last `/ensemble retry`; else None."""
    if not remote_head:
        return None
    # The newest acknowledgement on the issue or its PR (comment ids grow with time across both).
    acks = sorted((comment.id, str(data.get("sha") or ""))
                  for n in numbers for comment, data in ctx.own_markers(n, "ack"))
    shas = human_commits(clone, branch, acks[-1][1] if acks else None)
    if not shas:
        return None
    where = numbers[0]
    notified = [data for _, data in ctx.own_markers(where, "hold") if data.get("sha") == remote_head]
    if not notified:
        ctx.forge.comment(where, hold_comment(branch, shas) + "\n\n" + marker("hold", {"sha": remote_head}))
    return Outcome("held", f"a human pushed {shas[0][:7]} to {branch}; not pushing until /ensemble retry")

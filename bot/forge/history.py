"""The delivered history: a workspace's commits rebuilt from the base so that none holds a change the kept tree lacks.

A team commits every round it tested, so its workspace also holds the rounds that led to the kept
change: a cheat the judge found out, a half fix a later round replaced. A reviewer must not be able
to read or cherry-pick those from the branch; the refusals and their evidence go to the pull request
and the trace instead. A commit is delivered as it was made when every change it holds since the
base is in the kept tree unchanged (the reproduction test, say); the others fold into the next
delivered commit, whose message and trailers stand for them. Only commits after the base are made
anew, each with its own author, committer and message: the base (an earlier run's tip, or a human's
commit) is never rewritten, so publishing stays a fast-forward.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.forge import Commit
from common.git import git

__all__ = ["Change", "Rebuilt", "changes", "commits_between", "delivered", "rebuild"]

Change = tuple[str, str]  # a path's mode and blob after a diff ("000000" and zeros when it was deleted)


@dataclass(frozen=True)
class Rebuilt:
    """The head to publish, and the commits folded away (sha, summary) to say so in the trace."""

    head: str
    folded: tuple[tuple[str, str], ...] = ()


def commits_between(repo_dir: Path, base: str, head: str) -> list[Commit]:
    """The commits from `base` (excluded) to `head`, oldest first."""
    out = git(repo_dir, "log", "--reverse", "--format=%H%x00%s", f"{base}..{head}")
    return [Commit(*line.split("\0", 1)) for line in out.splitlines() if line]


def changes(repo_dir: Path, old: str, new: str) -> dict[str, Change]:
    """Every path that differs between two commits, with its mode and blob in `new`."""
    out = git(repo_dir, "diff", "--raw", "--no-renames", "--no-abbrev", "-z", old, new)
    fields = out.split("\0")
    found: dict[str, Change] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if meta.startswith(":"):  # ":old_mode new_mode old_blob new_blob status"
            _old_mode, new_mode, _old_blob, new_blob, _status = meta[1:].split(" ", 4)
            found[path] = (new_mode, new_blob)
    return found


def delivered(steps: Sequence[dict[str, Change]], kept: dict[str, Change]) -> list[bool]:
    """Which commits (each given by its changes since the base) go to the branch as made: those whose every change
    is in the kept tree unchanged. A change the kept tree does not hold (a refused cheat) folds away."""
    return [all(kept.get(path) == change for path, change in step.items()) for step in steps]


def rebuild(repo_dir: Path, base: str, head: str) -> Rebuilt:
    """The history from `base` to `head` with the commits holding what `head` does not folded away; `head` itself
    when there are none."""
    chain = git(repo_dir, "rev-list", "--reverse", "--first-parent", f"{base}..{head}").split()
    kept = changes(repo_dir, base, head)
    keep = delivered([changes(repo_dir, base, sha) for sha in chain], kept)
    if all(keep):
        return Rebuilt(head)
    parent = base
    for sha in (sha for sha, ok in zip(chain, keep, strict=True) if ok):
        parent = _recommit(repo_dir, sha, parent)
    folded = tuple((sha, _summary(repo_dir, sha)) for sha, ok in zip(chain, keep, strict=True) if not ok)
    return Rebuilt(parent, folded)


def _recommit(repo_dir: Path, sha: str, parent: str) -> str:
    """Commit `sha`'s tree anew on `parent`, with its message, author and committer as they were."""
    raw = git(repo_dir, "cat-file", "commit", sha)
    headers, _, message = raw.partition("\n\n")
    return git(repo_dir, "commit-tree", f"{sha}^{{tree}}", "-p", parent, stdin=message,
               env=_identity(headers)).strip()


def _identity(headers: str) -> dict[str, str]:
    """The author and committer of a commit's header lines, as the variables `git commit-tree` reads."""
    env: dict[str, str] = {}
    for line in headers.splitlines():
        role, _, rest = line.partition(" ")
        if role in ("author", "committer"):
            name, _, after = rest.partition(" <")
            email, _, date = after.partition("> ")
            prefix = f"GIT_{role.upper()}_"
            env |= {prefix + "NAME": name, prefix + "EMAIL": email, prefix + "DATE": date}
    return env


def _summary(repo_dir: Path, sha: str) -> str:
    return git(repo_dir, "log", "-1", "--format=%s", sha).strip()

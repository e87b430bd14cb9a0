"""Forges: where the ensemble's work lands. The ensemble does not know which one it works for.

A forge hands out one `Workspace` per team (a git worktree on the run's base commit), and
publishes the winning workspace's commits as the branch `ensemble/<slug>`, leaving out any that
hold a change the kept tree does not. `LocalForge` (bot/forge/local.py) does this on a plain
local checkout, which under GitHub Actions is the handler's clone: pushing, the pull request and
comments are `actions/github`'s, not the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NoReturn, Protocol

BRANCH_PREFIX = "ensemble/"


@dataclass(frozen=True)
class Commit:
    """One commit the bot made: its sha and summary line."""

    sha: str
    summary: str


class Workspace(Protocol):
    """A team's private checkout of the run's base commit."""

    path: Path
    base: str

    def diff(self) -> str:
        """The unified diff of everything changed since the base commit (new files included)."""
        ...

    def commit(self, summary: str, body: str, trailers: dict[str, str]) -> Commit | None:
        """Commit every change as one commit; None when nothing changed."""
        ...

    def commits(self) -> list[Commit]:
        """The commits made in this workspace since the base, oldest first."""
        ...

    def head(self) -> str:
        """The sha of the workspace's last commit (the base's until it has one of its own)."""
        ...

    def reset(self, sha: str) -> None:
        """Go back to one of this workspace's commits, dropping what came after it."""
        ...

    def discard(self) -> None:
        """Drop every uncommitted change (the worktree goes back to its last commit)."""
        ...

    def changed_paths(self) -> list[str]:
        """Paths that differ from the base commit: committed, uncommitted or new."""
        ...

    def base_text(self, path: str) -> str | None:
        """The file's text at the base commit, or None when it did not exist there."""
        ...

    def grep(self, text: str, max_hits: int = 30) -> list[tuple[str, int, str]]:
        """Exact-text search over the worktree's tracked files: (path, line number, line)."""
        ...


class HeldWorkspace:
    """A workspace read while nothing changes it: what changed since the base and the diff are asked once (each is a
    walk of the tree and a git process or two). The judge reads a candidate this way through one verdict, whose
    tests run on a copy of the tree; a write through it is a mistake in the reader and raises."""

    def __init__(self, workspace: Workspace):
        self.path = workspace.path
        self.base = workspace.base
        self._workspace = workspace
        self._diff = cache(workspace.diff)
        self._changed = cache(lambda: tuple(workspace.changed_paths()))

    def diff(self) -> str:
        return self._diff()

    def changed_paths(self) -> list[str]:
        return list(self._changed())

    def base_text(self, path: str) -> str | None:
        return self._workspace.base_text(path)

    def grep(self, text: str, max_hits: int = 30) -> list[tuple[str, int, str]]:
        return self._workspace.grep(text, max_hits)

    def commits(self) -> list[Commit]:
        return self._workspace.commits()

    def head(self) -> str:
        return self._workspace.head()

    def commit(self, summary: str, body: str, trailers: dict[str, str]) -> NoReturn:
        self._written("commit")

    def reset(self, sha: str) -> NoReturn:
        self._written("reset")

    def discard(self) -> NoReturn:
        self._written("discard")

    def _written(self, what: str) -> NoReturn:
        raise RuntimeError(f"{what} on a workspace held still ({self.path}): its readers assume nothing changes it")


class Forge(Protocol):
    """Branches and workspaces for one task."""

    def start(self, slug: str) -> str:
        """Choose the task's branch (`ensemble/<slug>`) and its base commit; returns the branch name."""
        ...

    def workspace(self, name: str) -> Workspace:
        """A new workspace for team `name` at the branch's base commit."""
        ...

    def publish(self, workspace: Workspace) -> list[Commit]:
        """Make the workspace's kept change the branch, with no commit holding a change it does not (a refused
        round's); returns the commits added."""
        ...

    def cleanup(self) -> None:
        """Remove the workspaces; the branch stays."""
        ...

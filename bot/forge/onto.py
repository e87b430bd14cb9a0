"""A branch brought onto a new base in a worktree of its own: `git merge` of the base, or `git rebase` onto it.

    onto = Onto(repo_dir, head, base, "merge", path, message)
    conflicts = onto.start()              # [] when git merged (or rebased) cleanly
    while conflicts:
        conflicts = onto.resolve({path: resolved text, ...})   # the next stop of a rebase, or []
    onto.head()                           # the updated branch's head; the branch itself is not moved

Conflicts are shown in diff3 style (both sides and what they started from). In a merge `ours` is the
branch and `theirs` the base; in a rebase it is the other way round (the base is what the branch's
commits are replayed onto), which `Conflict.sides` names. Nothing here decides whether a resolution is
good: the caller judges the tree, and `cleanup` removes the worktree whatever happened.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.forge.local import BOT_EMAIL, BOT_NAME
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES, ChangeRefused, content_problems
from bot.trace import span
from common.git import GitError, git, git_succeeds

Strategy = Literal["merge", "rebase"]
DIFF3 = ("-c", "merge.conflictStyle=diff3", "-c", "rerere.enabled=false")
NO_EDITOR = {"GIT_EDITOR": "true"}  # a rebase that continues keeps each commit's message as it is


@dataclass(frozen=True)
class Conflict:
    """One file git could not merge: its text with conflict markers, and which side is which."""

    path: str
    text: str
    sides: tuple[str, str]  # what `<<<<<<<` (ours) and `>>>>>>>` (theirs) hold, in words


def is_ancestor(repo_dir: Path, older: str, newer: str) -> bool:
    """Whether commit `older` is in `newer`'s history (the branch already holds the base)."""
    return git_succeeds(repo_dir, "merge-base", "--is-ancestor", older, newer)


class Onto:
    """One update of a branch (at `head`) onto `base` by `strategy`, in a detached worktree at `path`."""

    def __init__(self, repo_dir: Path, head: str, base: str, strategy: Strategy, path: Path, message: str,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, signoff: bool = False):
        self.repo_dir, self.head_sha, self.base, self.strategy = Path(repo_dir), head, base, strategy
        self.path, self.message, self.max_file_bytes = path, message, max_file_bytes
        self.signoff = ("--signoff",) if signoff else ()  # the merge commit, as `commit.signoff` signs every commit

    def start(self) -> list[Conflict]:
        """A fresh worktree at the branch's head, then the merge or rebase; the conflicts it stops at."""
        self.cleanup()
        git(self.repo_dir, "worktree", "add", "-q", "--detach", str(self.path), self.head_sha)
        with span("git.update", strategy=self.strategy, head=self.head_sha, base=self.base) as s:
            if self.strategy == "merge":
                done = git_succeeds(self.path, *self._identity(), *DIFF3, "merge", "-q", "--no-ff", "--no-verify",
                                    *self.signoff, "-m", self.message, self.base, env=NO_EDITOR)
            else:
                done = git_succeeds(self.path, *self._identity(), *DIFF3, "rebase", "-q", self.base, env=NO_EDITOR)
            found = [] if done else self._conflicts()
            if not done and not found:  # git failed for another reason than a conflict: say what
                self._raise_failure()
            s.set(conflicts=[c.path for c in found])
        return found

    def resolve(self, files: dict[str, str]) -> list[Conflict]:
        """Write the resolved `files`, commit them (the merge, or the rebased commit), go on; the next conflicts.

        Raises ChangeRefused, writing nothing, when a resolved file breaks the commit policy (a secret, a binary ...)."""
        problems = [p for name, text in files.items()
                    for p in content_problems(name, git(self.path, "show", f"HEAD:{name}", check=False), text,
                                              self.max_file_bytes)]  # the resolution's own text; the base's is not ours
        if problems:
            raise ChangeRefused(problems)
        for name, text in files.items():
            (self.path / name).write_text(text, encoding="utf-8")
        git(self.path, "add", "-A")
        with span("git.update_resolved", files=sorted(files)):
            if self.strategy == "merge":
                git(self.path, *self._identity(), "commit", "-q", "--no-verify", *self.signoff, "-F", "-",
                    stdin=self.message)
                return []
            if git_succeeds(self.path, *self._identity(), *DIFF3, "rebase", "--continue", env=NO_EDITOR):
                return []
        found = self._conflicts()
        if not found:
            self._raise_failure()
        return found

    def head(self) -> str:
        """The worktree's commit: the updated branch's head once `start` or `resolve` returned no conflicts."""
        return git(self.path, "rev-parse", "HEAD").strip()

    def cleanup(self) -> None:
        """Remove the worktree (an unfinished merge or rebase goes with it)."""
        git(self.repo_dir, "worktree", "remove", "--force", str(self.path), check=False)
        shutil.rmtree(self.path, ignore_errors=True)
        git(self.repo_dir, "worktree", "prune", check=False)

    def _identity(self) -> tuple[str, ...]:
        """The bot's name for the commits git makes here, unless the repository names a committer."""
        if git(self.repo_dir, "config", "user.email", check=False).strip():
            return ()
        return ("-c", f"user.name={BOT_NAME}", "-c", f"user.email={BOT_EMAIL}")

    def _conflicts(self) -> list[Conflict]:
        names = git(self.path, "diff", "--name-only", "--diff-filter=U", "-z").split("\0")
        sides = (("the pull request's branch", "the new base") if self.strategy == "merge" else
                 ("the new base", "the pull request's commit being replayed"))
        found = []
        for name in filter(None, names):
            file = self.path / name
            text = file.read_text(encoding="utf-8", errors="replace") if file.is_file() else ""
            found.append(Conflict(name, text, sides))
        return found

    def _raise_failure(self) -> None:
        status = git(self.path, "status", "--short", check=False)
        raise GitError(f"git could not {self.strategy} {self.base[:7]} into {self.head_sha[:7]} in {self.path}, and "
                       f"not because of a conflict it reports (status: {status.strip() or 'clean'}); run the same "
                       f"`git {self.strategy}` in a clone to see why", (self.strategy,), self.path)

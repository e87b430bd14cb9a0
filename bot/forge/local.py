"""The local forge: a branch `ensemble/<slug>` in the user's checkout, built in git worktrees.

All work happens in worktrees under `.ensemble/worktrees/` that start detached at the base
commit, so the user's current branch, index and uncommitted files are never touched. The
winning worktree's commits become the branch with `git update-ref` (a fast-forward), less any
holding a change the kept tree does not (a refused round: bot/forge/history.py); when the
branch already exists, the run continues from its tip instead of starting over.
"""

from __future__ import annotations

import logging
import posixpath
import re
import shutil
from pathlib import Path

from bot.forge import BRANCH_PREFIX, Commit, Workspace
from bot.forge.history import commits_between, rebuild
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES, ChangeRefused, commit_message, staged_problems
from bot.redact import scrub
from bot.trace import span
from common.git import GitError, git, git_bytes, git_succeeds

__all__ = ["CommittedTree", "GitError", "GitWorkspace", "LocalForge", "git", "slugify"]

log = logging.getLogger(__name__)
WORKTREES = Path(".ensemble") / "worktrees"
BOT_NAME, BOT_EMAIL = "ensemble-bot", "ensemble-bot@users.noreply.github.com"
COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # a commit named by its object id (SHA-1, SHA-256)


def slugify(text: str, limit: int = 40) -> str:
    """A branch-safe slug of a task's first words: 'Fix the parser!' -> 'fix-the-parser'."""
    words = re.sub(r"[^a-z0-9]+", "-", scrub(text).lower()).strip("-")  # a secret in a task never names a branch
    if len(words) > limit:  # cut at a word boundary unless the first word alone is too long
        cut = words[: limit + 1].rsplit("-", 1)[0]
        words = cut if "-" in words[: limit + 1] else words[:limit]
    return words.rstrip("-") or "task"


class GitWorkspace:
    """A detached worktree at `base`; commits stay local until the forge publishes them.

    Every commit passes `staged_problems` first (bot/forge/policy.py): a change holding a secret,
    a link, a submodule, a binary or an oversized file raises ChangeRefused and nothing is committed.
    """

    def __init__(self, path: Path, base: str, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, signoff: bool = False):
        self.path = path
        self.base = base
        self.max_file_bytes = max_file_bytes
        self.signoff = signoff  # `Signed-off-by:` the committer on every commit (commit.signoff)
        self._base_texts: dict[str, str | None] = {}  # `base_text`'s answers, where the base is a commit's id
        self._base_files: frozenset[str] | None = None  # the base's files, read once where the base is a commit's id

    def diff(self) -> str:
        """The diff since the base commit, new files included (staged with intent-to-add)."""
        git(self.path, "add", "-A", "--intent-to-add")
        return git(self.path, "diff", "--no-color", "--no-ext-diff", self.base)

    def commit(self, summary: str, body: str, trailers: dict[str, str]) -> Commit | None:
        """Commit every change in the worktree (message redacted); None when there is nothing to commit.

        Raises ChangeRefused, committing nothing and leaving the files as they are, when the change
        breaks the commit policy.
        """
        with span("git.commit", worktree=self.path.name) as s:
            git(self.path, "add", "-A")
            changed = git(self.path, "status", "--porcelain").splitlines()
            s.set(files=len(changed))
            if not changed:
                return None
            if problems := staged_problems(self.path, self.max_file_bytes):
                git(self.path, "reset", "-q")
                s.set(refused=problems)
                raise ChangeRefused(problems)
            identity = [] if git(self.path, "config", "user.email", check=False).strip() else [
                "-c", f"user.name={BOT_NAME}", "-c", f"user.email={BOT_EMAIL}"]
            message = commit_message(summary, body, trailers)
            signoff = ["--signoff"] if self.signoff else []
            git(self.path, *identity, "commit", "-q", "--no-verify", *signoff, "-F", "-", stdin=message)
            sha = self.head()
            s.set(sha=sha, summary=message.splitlines()[0])
            return Commit(sha, message.splitlines()[0])

    def reset(self, sha: str) -> None:
        """Go back to `sha` (one of this workspace's commits), dropping later commits and changes."""
        with span("git.reset", worktree=self.path.name, sha=sha):
            git(self.path, "reset", "-q", "--hard", sha)
            git(self.path, "clean", "-q", "-fd")

    def discard(self) -> None:
        """Drop every uncommitted change: the worktree goes back to its last commit."""
        self.reset("HEAD")

    def changed_paths(self) -> list[str]:
        """Paths that differ from the base commit, new files included."""
        git(self.path, "add", "-A", "--intent-to-add")
        out = git(self.path, "diff", "--no-renames", "--name-only", "-z", self.base)
        return sorted(p for p in out.split("\0") if p)

    def base_text(self, path: str) -> str | None:
        """The file's text at the base commit, or None when it did not exist there. Read once per path where the
        base is named by its id (a commit's files never change; the judge asks for the same few many times)."""
        if path in self._base_texts:
            return self._base_texts[path]
        if self._not_at_base(path):  # most paths asked of the base are settings files it does not have
            self._base_texts[path] = None
            return None
        try:
            text: str | None = git(self.path, "show", f"{self.base}:{path}")
        except GitError:
            text = None
        # a failure to read a path the base's tree holds is not remembered: git failing for a moment (a lock, memory)
        # must not make a file of the base look new for the rest of the run
        if COMMIT_ID.fullmatch(self.base) and text is not None:
            self._base_texts[path] = text
        return text

    def _not_at_base(self, path: str) -> bool:
        """Whether the base's tree was read and `path` is not a file in it (False when git could not read it, and
        where the base is named by something that may move, a branch). The tree is listed once."""
        if self._base_files is None and COMMIT_ID.fullmatch(self.base):
            try:
                listed = git(self.path, "ls-tree", "-r", "-z", "--name-only", "--full-tree", self.base)
            except GitError:
                return False
            self._base_files = frozenset(p for p in listed.split("\0") if p)
        return self._base_files is not None and path not in self._base_files

    def grep(self, text: str, max_hits: int = 30) -> list[tuple[str, int, str]]:
        """Exact-text search (`git grep -F`) over tracked text files: (path, line number, line)."""
        return grep(self.path, text, max_hits)

    def commits(self) -> list[Commit]:
        """Commits since the base, oldest first."""
        return commits_between(self.path, self.base, "HEAD")

    def head(self) -> str:
        """The sha of the last commit (the base's until the workspace has one of its own)."""
        return git(self.path, "rev-parse", "HEAD").strip()


def grep(tree: Path, text: str, max_hits: int = 30) -> list[tuple[str, int, str]]:
    """Exact-text search (`git grep -F`) over the tracked text files of the checkout `tree`: (path, line number,
    line)."""
    if not text.strip():
        return []
    out = git(tree, "grep", "-n", "-I", "-F", "--no-color", "-z", "-e", text, check=False)
    hits = []
    for line in out.splitlines():
        path, number, found = (line.split("\0", 2) + ["", ""])[:3]
        if number.isdigit():
            hits.append((path, int(number), found[:300]))
        if len(hits) >= max_hits:
            break
    return hits


class CommittedTree:
    """The files of one commit, read without a checkout (so nothing a run writes can change them)."""

    def __init__(self, repo_dir: Path, ref: str):
        self.repo_dir = Path(repo_dir)
        self.ref = ref

    def paths(self) -> list[str]:
        """Every file path in the commit; none when `ref` does not name one."""
        out = git(self.repo_dir, "ls-tree", "-r", "-z", "--full-tree", "--name-only", self.ref, check=False)
        return [p for p in out.split("\0") if p]

    def read(self, path: str) -> str | None:
        """The file's text at the commit (its first megabyte), a link followed inside the tree; None when absent."""
        for _hop in range(5):  # AGENTS.md -> CLAUDE.md links are common; a loop of links is not followed for ever
            entry = git(self.repo_dir, "ls-tree", "--full-tree", self.ref, "--", path, check=False).split()
            if len(entry) < 4 or entry[1] != "blob":
                return None
            blob = git_bytes(self.repo_dir, "cat-file", "blob", entry[2], check=False)
            text = blob[:1_000_000].decode("utf-8", "replace")
            if entry[0] != "120000":
                return text
            path = posixpath.normpath(posixpath.join(posixpath.dirname(path), text.strip()))
            if path.startswith("../") or path.startswith("/"):
                return None
        return None


class LocalForge:
    """Branches and worktrees in a local checkout; never touches the user's working tree."""

    def __init__(self, repo_dir: Path, run_id: str, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 signoff: bool = False):
        self.repo_dir = Path(git(Path(repo_dir), "rev-parse", "--show-toplevel").strip())
        self.run_id = run_id
        self.max_file_bytes = max_file_bytes
        self.signoff = signoff
        self.branch = ""
        self.base = ""
        self.continued = False
        self._workspaces: list[GitWorkspace] = []

    def start(self, slug: str) -> str:
        """Use `ensemble/<slug>`: continue from its tip if it exists, else from HEAD."""
        self.branch = BRANCH_PREFIX + slug
        existing = git(self.repo_dir, "rev-parse", "--verify", "-q", f"refs/heads/{self.branch}", check=False).strip()
        self.continued = bool(existing)
        self.base = existing or git(self.repo_dir, "rev-parse", "HEAD").strip()
        exclude_ensemble_dir(self.repo_dir)
        return self.branch

    def workspace(self, name: str) -> GitWorkspace:
        """A fresh detached worktree for team `name` at the base commit."""
        path = self.repo_dir / WORKTREES / f"{self.run_id}-{name}"
        if path.exists():
            self._remove(path)
        with span("git.worktree", worktree=path.name, base=self.base):
            git(self.repo_dir, "worktree", "add", "-q", "--detach", str(path), self.base)
        workspace = GitWorkspace(path, self.base, self.max_file_bytes, self.signoff)
        self._workspaces.append(workspace)
        return workspace

    def publish(self, workspace: Workspace) -> list[Commit]:
        """Point the branch at the workspace's kept change (a fast-forward from the base): its commits, less those
        holding a change the kept tree does not (bot/forge/history.py)."""
        made = workspace.commits()
        if not made:
            return []
        if self._checked_out_elsewhere():
            raise GitError(f"{self.branch} is checked out in your working tree; switch to another branch "
                           "so the bot can update it, then run again")
        old = self.base if self.continued else "0" * 40  # zeros: the branch must not exist yet
        with span("git.publish", branch=self.branch, continued=self.continued) as s:
            rebuilt = rebuild(self.repo_dir, self.base, made[-1].sha)
            commits = commits_between(self.repo_dir, self.base, rebuilt.head)
            s.set(head=rebuilt.head, commits=len(commits), folded=[f"{sha[:10]} {summary}"
                                                                   for sha, summary in rebuilt.folded])
            git(self.repo_dir, "update-ref", "-m", f"ensemble run {self.run_id}", f"refs/heads/{self.branch}",
                rebuilt.head, old)
        return commits

    def cleanup(self) -> None:
        """Remove this run's worktrees (the commits stay reachable from the branch)."""
        for workspace in self._workspaces:
            self._remove(workspace.path)
        self._workspaces.clear()
        git(self.repo_dir, "worktree", "prune", check=False)

    def _checked_out_elsewhere(self) -> bool:
        head = git(self.repo_dir, "symbolic-ref", "-q", "HEAD", check=False).strip()
        return head == f"refs/heads/{self.branch}"

    def _remove(self, path: Path) -> None:
        git(self.repo_dir, "worktree", "remove", "--force", str(path), check=False)
        shutil.rmtree(path, ignore_errors=True)


def exclude_ensemble_dir(repo_dir: Path) -> None:
    """Keep `.ensemble/` out of the user's `git status` via .git/info/exclude (not a tracked file)."""
    if _ignored(repo_dir):
        return
    exclude = Path(git(repo_dir, "rev-parse", "--git-path", "info/exclude").strip())
    exclude = exclude if exclude.is_absolute() else repo_dir / exclude
    exclude.parent.mkdir(parents=True, exist_ok=True)
    text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    exclude.write_text(text + ("" if text.endswith("\n") or not text else "\n") + ".ensemble/\n", encoding="utf-8")


def _ignored(repo_dir: Path) -> bool:
    return git_succeeds(repo_dir, "check-ignore", "-q", ".ensemble/x")

"""Clone and push through the git facade (`common.git`), authenticated without storing the token.

The token never appears on a command line, in output or in `.git/config`: git gets it as an
`http.extraheader` through GIT_CONFIG_* environment variables (as actions/checkout does),
scoped to the server URL. Pushes go to the bot's own `ensemble/*` branches only.
"""

from __future__ import annotations

import base64
from pathlib import Path

from actions.github.base import ForgeError, GitHubBase
from bot.forge import BRANCH_PREFIX
from bot.redact import clip
from bot.trace import span
from common.git import GitError, git


class RemoteCalls(GitHubBase):
    """The repository's git remote: clone it, push a branch with a lease."""

    def git_env(self) -> dict[str, str]:
        """Environment that lets git authenticate to the server without storing the token."""
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{self.server_url}/.extraheader",
                "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}", "GIT_TERMINAL_PROMPT": "0"}

    def clone(self, dest: Path, branch: str | None = None) -> Path:
        """Clone the repository into `dest` (and fetch `branch` as a remote branch when it exists)."""
        url = f"{self.server_url}/{self.full_name}.git"
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            with span("git.clone", url=url):
                git(dest.parent, "clone", "-q", url, str(dest), env=self.git_env())
        except GitError as exc:
            raise ForgeError(f"could not clone {url}: {git_words(exc)}; check the token can read the repository") from exc
        git(dest, "config", "user.name", "ensemble-bot")
        git(dest, "config", "user.email", "ensemble-bot@users.noreply.github.com")
        return dest

    def fetch_history(self, clone: Path) -> None:
        """Complete a shallow clone's history with commits and trees only (`--filter=blob:none`): what the
        retrieval's history channel reads, at a fraction of a full clone's size (README, Retrieval history)."""
        try:
            with span("git.fetch_history"):
                git(clone, "fetch", "-q", "--filter=blob:none", "--unshallow", "origin", env=self.git_env())
        except GitError as exc:
            raise ForgeError(f"could not fetch the history of {self.full_name}: {git_words(exc)}") from exc

    def bare_repo(self, dest: Path) -> Path:
        """An empty bare repository at `dest` whose `origin` is the repository: for a branch the bot keeps apart from
        the code (the spend ledger), fetched and pushed without a checkout."""
        dest.mkdir(parents=True, exist_ok=True)
        git(dest, "init", "-q", "--bare")
        git(dest, "remote", "add", "origin", f"{self.server_url}/{self.full_name}.git")
        return dest

    def fetch(self, repo: Path, branch: str, depth: int | None = None) -> str | None:
        """Fetch `branch` into `repo` as `origin/<branch>` (its last `depth` commits; all without); its head SHA,
        or None when the branch does not exist."""
        shallow = (f"--depth={depth}",) if depth else ()
        try:
            with span("git.fetch", branch=branch):
                if not git(repo, "ls-remote", "origin", f"refs/heads/{branch}", env=self.git_env()).strip():
                    return None
                git(repo, "fetch", "-q", *shallow, "origin", f"+refs/heads/{branch}:refs/remotes/origin/{branch}",
                    env=self.git_env())
        except GitError as exc:
            raise ForgeError(f"could not fetch {branch}: {git_words(exc)}; check the token can read the "
                             "repository") from exc
        return git(repo, "rev-parse", f"refs/remotes/origin/{branch}").strip()

    def push(self, clone: Path, branch: str, expected: str | None, source: str | None = None) -> None:
        """Push local `branch` (or `source`) to `branch`, only if the remote is still at `expected` (None: absent)."""
        refuse_foreign_branch(branch)
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        try:
            with span("git.push", branch=branch, expected=expected or "(absent)"):
                git(clone, "push", "-q", lease, "origin", f"{source or 'refs/heads/' + branch}:refs/heads/{branch}",
                    env=self.git_env())
        except GitError as exc:
            raise ForgeError(f"could not push {branch}: {git_words(exc)}; someone else may have pushed to it") from exc


def refuse_foreign_branch(branch: str) -> None:
    """Raise ForgeError unless `branch` is one of the bot's own (`ensemble/...`): it pushes nowhere else."""
    name = branch.removeprefix("refs/heads/")
    if not name.startswith(BRANCH_PREFIX) or ".." in name or name.rstrip("/") == BRANCH_PREFIX.rstrip("/"):
        raise ForgeError(f"refusing to push to {branch!r}: the bot pushes only to its own {BRANCH_PREFIX}* branches; "
                         "a change for any other branch goes through a pull request")


def git_words(exc: GitError) -> str:
    """What git said on stderr, on one line and cut to its end."""
    return clip((exc.stderr or str(exc)).strip().replace("\n", " "), 400, keep="tail")

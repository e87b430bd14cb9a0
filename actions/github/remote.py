"""Clone and push through the git facade (`common.git`), authenticated without storing the token.

The token never appears on a command line, in output or in `.git/config`: git gets it as an
`http.extraheader` through GIT_CONFIG_* environment variables (as actions/checkout does),
scoped to the server URL. Pushes go to the bot's own `ensemble/*` branches only.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING

from actions.github.base import GitHubBase, GitHubError
from bot.forge import BRANCH_PREFIX
from bot.redact import clip
from bot.trace import span
from common.git import GitError, git, git_bytes

if TYPE_CHECKING:
    from github.GitCommit import GitCommit
    from github.GitRef import GitRef
    from github.InputGitTreeElement import InputGitTreeElement


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
            raise GitHubError(f"could not clone {url}: {git_words(exc)}; check the token can read the repository") from exc
        git(dest, "config", "user.name", "ensemble-bot")
        git(dest, "config", "user.email", "ensemble-bot@users.noreply.github.com")
        return dest

    def fetch_history(self, clone: Path) -> None:
        """Complete a shallow clone's history with commits and trees only (`--filter=blob:none`): what the
        retrieval's history channel reads, at a fraction of a full clone's size (docs/configuration.md, Retrieval history)."""
        try:
            with span("git.fetch_history"):
                git(clone, "fetch", "-q", "--filter=blob:none", "--unshallow", "origin", env=self.git_env())
        except GitError as exc:
            raise GitHubError(f"could not fetch the history of {self.full_name}: {git_words(exc)}") from exc

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
            raise GitHubError(f"could not fetch {branch}: {git_words(exc)}; check the token can read the "
                             "repository") from exc
        return git(repo, "rev-parse", f"refs/remotes/origin/{branch}").strip()

    def fetch_pull(self, repo: Path, number: int) -> str:
        """Fetch PR #`number`'s head into `repo` as `refs/remotes/origin/pull/<number>` (from `refs/pull/<number>/head`,
        which GitHub keeps for a fork's pull request too); its SHA."""
        ref = f"refs/remotes/origin/pull/{number}"
        try:
            with span("git.fetch", pull=number):
                git(repo, "fetch", "-q", "origin", f"+refs/pull/{number}/head:{ref}", env=self.git_env())
        except GitError as exc:
            raise GitHubError(f"could not fetch the head of PR #{number}: {git_words(exc)}; check the token can read "
                             "the repository") from exc
        return git(repo, "rev-parse", ref).strip()

    def push(self, clone: Path, branch: str, expected: str | None, source: str | None = None,
             verified: bool = False, rewrite: bool = False) -> dict[str, str]:
        """Push local `branch` (or `source`) to `branch`, only if the remote is still at `expected` (None: absent).
        With `verified` the commits are made anew through the API (`push_verified`); the answer maps each local
        commit to the one on GitHub (empty for a git push, which keeps the SHAs). `rewrite` lets a verified push
        replace history (a rebased branch), still only over `expected`; a git push always may, under its lease."""
        refuse_foreign_branch(branch)
        ref = source or f"refs/heads/{branch}"
        if verified:
            made = self.push_verified(clone, branch, expected, source, rewrite)
        else:
            made = {}
            lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
            try:
                with span("git.push", branch=branch, expected=expected or "(absent)"):
                    git(clone, "push", "-q", lease, "origin", f"{ref}:refs/heads/{branch}", env=self.git_env())
            except GitError as exc:
                raise GitHubError(f"could not push {branch}: {git_words(exc)}; someone else may have pushed to it") from exc
        pushed = git(clone, "rev-parse", "--verify", f"{ref}^{{commit}}").strip()
        self.branch_moved(branch, made.get(pushed, pushed))
        return made

    def push_verified(self, clone: Path, branch: str, expected: str | None, source: str | None = None,
                      rewrite: bool = False) -> dict[str, str]:
        """Make the local commits GitHub lacks anew through the Git Data API (blobs, a tree on the parent's, a commit
        with the same message and parents), oldest first, then move `branch` to the last one only if it is still at
        `expected` (None: absent). GitHub signs the commits an App token makes this way, so they show as verified.
        The local branch is reset to the commits on GitHub; the answer maps each local SHA to GitHub's."""
        refuse_foreign_branch(branch)
        local = git(clone, "rev-parse", "--verify", f"{source or 'refs/heads/' + branch}^{{commit}}").strip()
        known = [f"^{expected}"] if expected else []
        todo = git(clone, "rev-list", "--reverse", "--topo-order", local, *known, "--not", "--remotes=origin").split()
        made: dict[str, str] = {}
        ours: dict[str, GitCommit] = {}  # local SHA -> the commit GitHub made for it
        signer: list[str] = []  # the author GitHub records for the commits it makes, once a sign-off asked
        with span("github.push_verified", branch=branch, expected=expected or "(absent)", commits=len(todo)):
            for sha in todo:
                ours[sha] = self._make_commit(clone, branch, sha, ours, signer)
                made[sha] = ours[sha].sha
            head = made.get(local, local)
            self._move_ref(branch, expected, head, rewrite)
        try:
            self.fetch(clone, branch)
            if not source:
                git(clone, "update-ref", f"refs/heads/{branch}", head, local)
        except (GitError, GitHubError) as exc:
            raise GitHubError(f"pushed {branch} as {head[:7]}, but could not bring it back into the clone: {exc}") from exc
        return made

    def _make_commit(self, clone: Path, branch: str, sha: str, ours: dict[str, GitCommit],
                     signer: list[str]) -> GitCommit:
        """GitHub's copy of local commit `sha`: its changed files as blobs, a tree on its first parent's, a commit
        with its message on its parents (GitHub's copies of those made already, in `ours`).

        GitHub records its own author for the copy (the token's; naming one would cost the signature), so a
        `Signed-off-by:` the local commit made for its committer (`commit.signoff`) is made to name that author
        instead: learnt from the first copy (`signer`), which is made again when it signed off someone else."""
        from github import InputGitTreeElement

        parents = git(clone, "rev-list", "--parents", "-n", "1", sha).split()[1:]
        tree = git(clone, "rev-parse", f"{sha}^{{tree}}").strip()
        elements = [self._tree_element(clone, change, InputGitTreeElement) for change in _changes(clone, parents[:1], sha)]
        if parents:
            base_sha = git(clone, "rev-parse", f"{parents[0]}^{{tree}}").strip()
            base = self.call(f"read tree {base_sha[:7]}", lambda: self._repo.get_git_tree(base_sha))
            made_tree = self.call(f"create a tree for {sha[:7]}", lambda: self._repo.create_git_tree(elements, base),
                                  repeatable=False)
        else:
            made_tree = self.call(f"create a tree for {sha[:7]}", lambda: self._repo.create_git_tree(elements),
                                  repeatable=False)
        if made_tree.sha != tree:
            raise GitHubError(f"could not push {branch}: GitHub made tree {made_tree.sha[:7]} for commit {sha[:7]}, "
                             f"whose tree is {tree[:7]}; nothing was moved; set `commit.verified: false` to push "
                             "these commits with git")
        message = git_bytes(clone, "cat-file", "commit", sha).partition(b"\n\n")[2].decode("utf-8", "replace")
        ups = [ours[p] if p in ours else self._read_commit(p) for p in parents]
        local = git(clone, "log", "-1", "--format=%cn <%ce>", sha).strip()
        signed = _signed_off(message, local)

        def create(text: str) -> GitCommit:
            return self.call(f"create a commit for {sha[:7]}", lambda: self._repo.create_git_commit(text, made_tree, ups),
                             repeatable=False)

        made = create(_signed_off(message, local, signer[0]) if signed and signer else message)
        recorded = f"{made.author.name} <{made.author.email}>"
        if signed and not signer and recorded != local:
            signer.append(recorded)
            made = create(_signed_off(message, local, recorded))  # the first copy stays unreferenced
        return made

    def _read_commit(self, sha: str) -> GitCommit:
        return self.call(f"read commit {sha[:7]}", lambda: self._repo.get_git_commit(sha))

    def _move_ref(self, branch: str, expected: str | None, head: str, rewrite: bool = False) -> None:
        """Point `branch` at `head` only if it is still at `expected` (None: absent); by force only with `rewrite`
        (a rebased branch), and then too only from `expected`, read just before."""
        moved = f"could not push {branch}: it is no longer at {(expected or '(absent)')[:7]}; someone else may have pushed to it"

        def read() -> tuple[GitRef, str]:
            ref = self._repo.get_git_ref(f"heads/{branch}")
            return ref, ref.object.sha

        found = self._not_found_is_none(f"read the ref of {branch}", read)
        current = found[0] if found else None
        if (found[1] if found else None) != expected:
            raise GitHubError(moved)
        try:
            if current is None:
                self.call(f"create {branch}", lambda: self._repo.create_git_ref(f"refs/heads/{branch}", head),
                          repeatable=False)
            else:
                self.call(f"move {branch}", lambda: current.edit(head, force=rewrite), repeatable=False)
        except GitHubError as exc:
            if exc.status in (409, 422):  # the branch exists already, or the move is not a fast-forward
                raise GitHubError(f"{moved} ({exc})", exc.status) from exc
            raise

    def _tree_element(self, clone: Path, change: tuple[str, str, str],
                      element: type[InputGitTreeElement]) -> InputGitTreeElement:
        """The tree entry of one changed path: a new blob for a file, a null SHA for a deletion."""
        mode, sha, path = change
        if mode == "000000":
            return element(path, "100644", "blob", sha=None)
        if mode == "160000":
            return element(path, mode, "commit", sha=sha)
        content = base64.b64encode(git_bytes(clone, "cat-file", "blob", sha)).decode()
        blob = self.call(f"create a blob for {path}", lambda: self._repo.create_git_blob(content, "base64"),
                         repeatable=False)
        return element(path, mode, "blob", sha=blob.sha)


def refuse_foreign_branch(branch: str) -> None:
    """Raise GitHubError unless `branch` is one of the bot's own (`ensemble/...`): it pushes nowhere else."""
    name = branch.removeprefix("refs/heads/")
    if not name.startswith(BRANCH_PREFIX) or ".." in name or name.rstrip("/") == BRANCH_PREFIX.rstrip("/"):
        raise GitHubError(f"refusing to push to {branch!r}: the bot pushes only to its own {BRANCH_PREFIX}* branches; "
                         "a change for any other branch goes through a pull request")


def _signed_off(message: str, who: str, instead: str | None = None) -> str:
    """With `instead`: `message` whose `Signed-off-by: <who>` trailer names `instead`. Without: that message
    when it carries such a trailer, else ''."""
    line = f"Signed-off-by: {who}"
    lines = message.split("\n")
    if line not in lines:
        return ""
    if instead is None:
        return message
    at = len(lines) - 1 - lines[::-1].index(line)
    return "\n".join([*lines[:at], f"Signed-off-by: {instead}", *lines[at + 1:]])


def git_words(exc: GitError) -> str:
    """What git said on stderr, on one line and cut to its end."""
    return clip((exc.stderr or str(exc)).strip().replace("\n", " "), 400, keep="tail")


def _changes(clone: Path, parent: list[str], sha: str) -> list[tuple[str, str, str]]:
    """(new mode, new blob SHA, path) of each path `sha` changes against `parent` (all its files without one);
    mode 000000 for a deletion."""
    out = git_bytes(clone, "diff-tree", "-r", "--no-renames", "--no-commit-id", "--root", "-z", *parent, sha)
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes = []
    for head, path in zip(fields[0::2], fields[1::2], strict=False):
        if head.startswith(":"):
            _old_mode, new_mode, _old_sha, new_sha, _status = head[1:].split(" ")
            changes.append((new_mode, new_sha, path))
    return changes

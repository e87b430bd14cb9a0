"""The repository's commit history as retrieval evidence: read with one `git log`, cached beside the index.

Only history reachable from the indexed commit is read, never anything after it. The cache
(`history.json` in the index folder) names the commit it was read up to; an update reads only the
commits since then (`git log OLD..NEW`), and reads everything again when the new commit does not
descend from the old one (a rewritten branch). A shallow clone has no history worth ranking with:
`update_history` says so in its note and the channel stays off.

Renames are followed exactly (`-M100%`: same blob, new path), which needs no file contents, so a
blob-less partial clone (`git fetch --filter=blob:none`) is enough; merge commits list the files
their first parent did not have, so a merged pull request counts once, as one change.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.git import GitError, git, git_succeeds
from indexer.tokens import tokenize

log = logging.getLogger(__name__)

HISTORY_FILE = "history.json"
HISTORY_FORMAT = 1
MESSAGE_CHARS = 2000  # of a message that are tokenized: the subject and the start of the body say what changed
RECORD, FIELD = "\x1e", "\x1f"
LOG_FORMAT = f"--format={RECORD}%H{FIELD}%P{FIELD}%ct{FIELD}%B{FIELD}"
UNSHALLOW_HINT = ("fetch the history (commits and trees only, no file contents): "
                  "`git fetch --filter=blob:none --unshallow`")


@dataclass(frozen=True)
class Change:
    """One path a commit changed: git's status letter (A, M, D, R, ...), the path, and the old path of a rename."""

    status: str
    path: str
    old_path: str = ""


@dataclass(frozen=True)
class Commit:
    """What the ranking needs of a commit: its id, parent count, commit time, subject, message tokens, changes."""

    sha: str
    parents: int
    time: int
    subject: str
    tokens: tuple[str, ...]
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class History:
    """The commits reachable from `head`, newest first; `shallow` when the clone's history is cut off."""

    head: str
    commits: tuple[Commit, ...]
    shallow: bool = False


@dataclass(frozen=True)
class HistoryUpdate:
    """The result of bringing the cached history up to date: the history (None when there is none to use),
    how many commits `git log` read this time, and a note for the trace and `ensemble doctor` when thin."""

    history: History | None
    read: int
    note: str = ""


def parse_log(raw: str, redact: Callable[[str], str] | None = None) -> list[Commit]:
    """Commits from `git log -z --name-status` output in LOG_FORMAT (pure: no git here).

    `redact` masks secrets in each message before anything of it is kept (a token pasted into a
    commit message would otherwise travel with the cache).
    """
    commits = []
    for record in raw.split(RECORD):
        parts = record.split(FIELD, 4)
        if len(parts) < 5:
            continue
        sha, parents, when, message, rest = parts
        fields = [f for f in rest.lstrip("\0\n").split("\0") if f and f != "\n"]
        changes, i = [], 0
        while i < len(fields):
            status = fields[i].strip()
            if status[:1] in ("R", "C") and i + 2 < len(fields):
                changes.append(Change(status[:1], fields[i + 2], fields[i + 1]))
                i += 3
            elif i + 1 < len(fields):
                changes.append(Change(status[:1], fields[i + 1]))
                i += 2
            else:
                break
        message = redact(message) if redact else message
        subject = message.strip().split("\n", 1)[0][:200]
        commits.append(Commit(sha, len(parents.split()), int(when or 0), subject,
                              tuple(tokenize(message[:MESSAGE_CHARS])), tuple(changes)))
    return commits


def read_commits(repo: Path, commit: str, since: str = "", redact: Callable[[str], str] | None = None) -> list[Commit]:
    """Commits reachable from `commit` (and not from `since`), newest first: one `git log`.

    `--diff-merges=first-parent` gives a merge the files its branch brought in; `-M100%` finds
    renames by blob id alone, so no file contents are read (a blob-less clone needs none fetched).
    """
    span = f"{since}..{commit}" if since else commit
    raw = git(repo, "-c", "core.quotePath=false", "log", "-z", "--no-color", "-M100%", "--name-status",
              "--diff-merges=first-parent", LOG_FORMAT, span, "--",
              hint="the history channel reads the commits of the indexed checkout")
    return parse_log(raw, redact)


def is_shallow(repo: Path) -> bool:
    """Whether the clone's history is cut off (actions/checkout's default depth 1)."""
    return git(repo, "rev-parse", "--is-shallow-repository", check=False).strip() == "true"


def _encode(commit: Commit) -> list[Any]:
    return [commit.sha, commit.parents, commit.time, commit.subject, " ".join(commit.tokens),
            [[c.status, c.path, c.old_path] if c.old_path else [c.status, c.path] for c in commit.changes]]


def _decode(row: list[Any]) -> Commit:
    sha, parents, when, subject, tokens, changes = row
    return Commit(sha, int(parents), int(when), subject, tuple(tokens.split()),
                  tuple(Change(*change) for change in changes))


def save_history(root: Path, history: History) -> None:
    """Write the cache whole or not at all (the index's atomic writer)."""
    from indexer.store import _atomic_write

    data = {"format": HISTORY_FORMAT, "head": history.head, "shallow": history.shallow,
            "commits": [_encode(c) for c in history.commits]}
    _atomic_write(root / HISTORY_FILE, lambda h: h.write(json.dumps(data, separators=(",", ":")).encode()))


def load_history(root: Path) -> History | None:
    """The cached history, or None when there is none or it is unreadable (it is then read again)."""
    try:
        data = json.loads((root / HISTORY_FILE).read_text(encoding="utf-8"))
        if data.get("format") != HISTORY_FORMAT:
            return None
        return History(data["head"], tuple(_decode(row) for row in data["commits"]), bool(data["shallow"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the history cache in %s is unreadable (%s); reading the history again", root, exc)
        return None


def update_history(repo: Path, root: Path, commit: str, save: bool = True,
                   redact: Callable[[str], str] | None = None) -> HistoryUpdate:
    """The history up to `commit`, from the cache plus the commits since it; the cache is rewritten when it grew."""
    if not commit:
        return HistoryUpdate(None, 0, "history: the repository has no commits yet")
    shallow = is_shallow(repo)
    if shallow:
        return HistoryUpdate(None, 0, "history: shallow clone, so retrieval ranks without the repository's "
                             f"history; {UNSHALLOW_HINT} (the Action does this when index.history is on)")
    cached = load_history(root)
    if cached is not None and cached.head == commit and not cached.shallow:
        return HistoryUpdate(cached, 0)
    try:
        if cached is not None and not cached.shallow and git_succeeds(repo, "merge-base", "--is-ancestor",
                                                                       cached.head, commit):
            fresh = read_commits(repo, commit, since=cached.head, redact=redact)
            history = History(commit, tuple(fresh) + cached.commits)
        else:
            fresh = read_commits(repo, commit, redact=redact)
            history = History(commit, tuple(fresh))
    except GitError as exc:
        log.warning("could not read the history of %s (%s); ranking without it", repo, exc)
        return HistoryUpdate(None, 0, f"history: unreadable ({exc}); retrieval ranks without it")
    if save:
        try:
            save_history(root, history)
        except OSError as exc:
            log.warning("could not keep the history in %s (%s); it is read again next time", root, exc)
    log.info("history: %d commits (%d read now)", len(history.commits), len(fresh))
    return HistoryUpdate(history, len(fresh))

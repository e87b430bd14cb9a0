"""The repository's commit history as retrieval evidence: read with one `git log`, cached beside the index.

Only history reachable from the indexed commit is read, never anything after it. The cache
(`history.jsonl` in the index folder) names the commit it was read up to; an update reads only the
commits since then (`git log OLD..NEW`), and reads everything again when the new commit does not
descend from the old one (a rewritten branch). A shallow clone has no history worth ranking with:
`update_history` says so in its note and the channel stays off. The cache is a file of one commit a
line, oldest first, which an update appends to, and a small head record written last.

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
from typing import TypedDict

from common.atomic import write_atomic
from common.git import GitError, git, git_succeeds
from indexer.tokens import tokenize

log = logging.getLogger(__name__)

HISTORY_FILE = "history.jsonl"  # one commit a line, oldest first: an update appends
HEAD_FILE = "history-head.json"  # the commit the cache was read up to, and how much of the file is valid
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
    """The commits reachable from `head`, newest first."""

    head: str
    commits: tuple[Commit, ...]


@dataclass(frozen=True)
class HistoryUpdate:
    """The history after an update: in memory when it was just read whole, else in the `cache` folder (loaded
    on first use); `read` is how many commits `git log` read this time, `count` how many there are, and
    `note` says why there is none (a shallow clone), for the trace and `ensemble doctor`."""

    history: History | None
    read: int
    note: str = ""
    cache: Path | None = None
    count: int = 0

    def load(self) -> History | None:
        """The commits, newest first (read from the cache when not in memory; None when there is no history)."""
        return self.history if self.history is not None or self.cache is None else load_history(self.cache)


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


def _encode(commit: Commit) -> bytes:
    changes = [[c.status, c.path, c.old_path] if c.old_path else [c.status, c.path] for c in commit.changes]
    row = [commit.sha, commit.parents, commit.time, commit.subject, " ".join(commit.tokens), changes]
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class HistoryHead(TypedDict):
    """The head record (`history-head.json`): the commit read up to, how many commits and bytes are valid."""

    format: int
    head: str
    count: int
    bytes: int


def _decode(row: object) -> Commit:
    """A cache line (`_encode`'s JSON row) as a `Commit`; ValueError for a line of another shape."""
    match row:
        case [str(sha), int(parents), int(when), str(subject), str(tokens), list(changes)]:
            return Commit(sha, parents, when, subject, tuple(tokens.split()),
                          tuple(Change(*change) for change in changes))
    raise ValueError("a line that is not a commit record")


def _read_head(root: Path) -> HistoryHead | None:
    """The cache's head record: the commit it was read up to, how many commits and bytes are valid."""
    try:
        data = json.loads((root / HEAD_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("the history cache in %s is unreadable (%s); reading the history again", root, exc)
        return None
    if not isinstance(data, dict) or data.get("format") != HISTORY_FORMAT:
        return None
    match data:
        case {"head": str(head), "count": int(count), "bytes": int(size)}:
            return HistoryHead(format=HISTORY_FORMAT, head=head, count=count, bytes=size)
    log.warning("the history cache in %s has a broken head record; reading the history again", root)
    return None


def _write_head(root: Path, head: str, count: int, size: int) -> None:
    data = HistoryHead(format=HISTORY_FORMAT, head=head, count=count, bytes=size)
    write_atomic(root / HEAD_FILE, json.dumps(data).encode(), sync_dir=True)


def save_history(root: Path, history: History) -> None:
    """Write the whole cache (one commit a line, oldest first), then the head record that validates it."""
    lines = b"".join(_encode(c) for c in reversed(history.commits))
    write_atomic(root / HISTORY_FILE, lines)
    _write_head(root, history.head, len(history.commits), len(lines))


def _append_history(root: Path, head: HistoryHead, fresh: list[Commit], commit: str) -> int:
    """Append the new commits (a crash before the head record moves leaves them ignored), then move the head."""
    import os

    with (root / HISTORY_FILE).open("r+b") as handle:
        handle.truncate(head["bytes"])
        handle.seek(0, os.SEEK_END)
        handle.write(b"".join(_encode(c) for c in reversed(fresh)))
        handle.flush()
        os.fsync(handle.fileno())
        size = handle.tell()
    count = head["count"] + len(fresh)
    _write_head(root, commit, count, size)
    return count


def load_history(root: Path) -> History | None:
    """The cached history, newest first, or None when there is none or it is unreadable (it is then read again)."""
    head = _read_head(root)
    if head is None:
        return None
    try:
        with (root / HISTORY_FILE).open("rb") as handle:
            lines = handle.read(head["bytes"]).splitlines()
        if len(lines) != head["count"]:
            raise ValueError(f"{len(lines)} commits where the head record says {head['count']}")
        return History(head["head"], tuple(_decode(json.loads(line)) for line in reversed(lines)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the history cache in %s is unreadable (%s); reading the history again", root, exc)
        return None


def cached_history(root: Path) -> HistoryUpdate | None:
    """The cache as it is, without asking git (for an index opened without updating); None when there is none."""
    head = _read_head(root)
    return HistoryUpdate(None, 0, cache=root, count=head["count"]) if head else None


def update_history(repo: Path, root: Path, commit: str, save: bool = True,
                   redact: Callable[[str], str] | None = None) -> HistoryUpdate:
    """The history up to `commit`: the cache, plus the commits since its head appended to it.

    Only the head record is read here; the commits themselves load on the first search (`load`), so
    an update after one new commit costs one short `git log` and an append.
    """
    if not commit:
        return HistoryUpdate(None, 0, "history: the repository has no commits yet")
    if is_shallow(repo):
        return HistoryUpdate(None, 0, "history: shallow clone, so retrieval ranks without the repository's "
                             f"history; {UNSHALLOW_HINT} (the Action does this when index.history is on)")
    head = _read_head(root) if save else None
    if head is not None and head["head"] == commit:
        return HistoryUpdate(None, 0, cache=root, count=head["count"])
    try:
        if head is not None and git_succeeds(repo, "merge-base", "--is-ancestor", head["head"], commit):
            fresh = read_commits(repo, commit, since=head["head"], redact=redact)
            try:
                count = _append_history(root, head, fresh, commit)
                log.info("history: %d commits (%d read now)", count, len(fresh))
                return HistoryUpdate(None, len(fresh), cache=root, count=count)
            except OSError as exc:
                log.warning("could not add to the history cache in %s (%s); reading it whole", root, exc)
        fresh = read_commits(repo, commit, redact=redact)
    except GitError as exc:
        log.warning("could not read the history of %s (%s); ranking without it", repo, exc)
        return HistoryUpdate(None, 0, f"history: unreadable ({exc}); retrieval ranks without it")
    history = History(commit, tuple(fresh))
    if save:
        try:
            save_history(root, history)
        except OSError as exc:
            log.warning("could not keep the history in %s (%s); it is read again next time", root, exc)
    log.info("history: %d commits read", len(fresh))
    return HistoryUpdate(history, len(fresh), count=len(fresh))

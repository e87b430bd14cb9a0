"""A read-only mapping view of a workspace's files, for the edit applier (no I/O in the applier).

Listing the tree (`git ls-files`) is read once per tree state, not once per view: a round builds a
view for every question it asks (the coder's files, each changed path, the judge's files). The
listing is kept per workspace with a stamp of the state it saw, checked without running git: the
paths the index holds, the times of `info/exclude` and the `.gitignore` files, and the times of
every folder that holds a listed file and of the folders under those that hold none (down to their
first file, so a file written into a folder a deletion left empty is seen). Adding, deleting or
renaming a file changes its folder's time, and `git rm --cached` or `git add -f` changes the
index's paths, so any of them makes the next view list again; `git add -A --intent-to-add` and
commits, which rewrite the index but not the listing, do not. A file's text is read when asked for.
"""

from __future__ import annotations

import os
import struct
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from common.git import git

MAX_FILE_BYTES = 1_000_000
MAX_CACHED_TREES = 16
# Folders stamped below the listed ones (empty folder chains, ignored build trees) before a tree is too
# big to stamp cheaply: it is then listed every time, as before.
MAX_EXTRA_FOLDERS = 2_000
# A stamp taken this close to a write cannot tell the write from the listing (the kernel's file times
# are coarse): such a listing is used once and not kept. File systems with whole-second times get 2 s.
RACY_NS = 50_000_000
RACY_WHOLE_SECOND_NS = 2_000_000_000

Stamp = tuple[tuple[str, int, int], ...]
INDEX = "\0index"  # the stamp's entry for the index's paths (no file or folder has a NUL in its name)


Read = Callable[[str], "str | None"]  # how a tree reads a file: its text, None when it has none


@dataclass(frozen=True)
class _Listing:
    paths: tuple[str, ...]
    watched: tuple[str, ...]  # the files and folders whose times the stamp holds
    stamp: Stamp


_listings: OrderedDict[Path, _Listing] = OrderedDict()
_git_files: dict[Path, tuple[Path, ...]] = {}
_lock = threading.Lock()


class WorkspaceFiles(Mapping[str, str]):
    """Repository-relative path -> text of the tracked and untracked (not ignored) files."""

    def __init__(self, root: Path):
        self.root = root
        self._paths = list(list_files(root))

    def __getitem__(self, path: str) -> str:
        target = (self.root / path).resolve()
        if self.root.resolve() not in target.parents or not target.is_file():
            raise KeyError(path)
        if target.stat().st_size > MAX_FILE_BYTES:
            raise KeyError(path)
        return target.read_bytes().decode("utf-8", "replace")

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self._paths and (self.root / path).is_file()

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def read(self, path: str) -> str | None:
        """The file's text, or None when it does not exist."""
        try:
            return self[path]
        except KeyError:
            return None


def list_files(root: Path) -> tuple[str, ...]:
    """The tracked and untracked (not ignored) files under `root`, sorted; listed again only when the tree changed."""
    key = root.resolve()
    with _lock:
        kept = _listings.get(key)
    if kept is not None and _stamp(key, kept.watched) == kept.stamp:
        with _lock:
            if key in _listings:  # another thread may have evicted it meanwhile (more trees than are kept)
                _listings.move_to_end(key)
        return kept.paths
    paths, watched, stamp, unsettled_ns = _take(key)
    if 0 < unsettled_ns <= RACY_NS:  # a tree just written (a reset, a new worktree): wait it out once, not per question
        time.sleep(unsettled_ns / 1e9)
        paths, watched, stamp, unsettled_ns = _take(key)
    with _lock:
        if stamp and watched is not None and unsettled_ns == 0:
            _listings[key] = _Listing(paths, watched, stamp)
            _listings.move_to_end(key)
            while len(_listings) > MAX_CACHED_TREES:
                _listings.popitem(last=False)
        else:
            _listings.pop(key, None)
    return paths


def _take(root: Path) -> tuple[tuple[str, ...], tuple[str, ...] | None, Stamp, int]:
    """A listing, what it watches, its stamp, and how long until the stamp can tell a later write from it."""
    started = time.time_ns()
    paths = _ls_files(root)
    watched = _watched(root, paths)
    stamp = _stamp(root, watched) if watched is not None else ()
    return paths, watched, stamp, _unsettled_ns(stamp, started)


def _ls_files(root: Path) -> tuple[str, ...]:
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", check=False)
    return tuple(sorted({p for p in out.split("\0") if p}))


def _watched(root: Path, paths: tuple[str, ...]) -> tuple[str, ...] | None:
    """The `.gitignore` files, every folder holding a listed file, and the folders under those that hold no
    listed file, down to their first file (an emptied folder chain); None when there are too many of those."""
    folders = {""}
    for path in paths:
        cut = path.rfind("/")
        while cut > 0 and path[:cut] not in folders:  # a folder already seen brought its parents with it
            folders.add(path[:cut])
            cut = path.rfind("/", 0, cut)
    extra: list[str] = []
    for folder in sorted(folders):
        if not _unlisted_below(str(root), folder, folders, extra):
            return None
    ignores = [p for p in paths if p == ".gitignore" or p.endswith("/.gitignore")]
    return (*ignores, *(f"{f}/" if f else "./" for f in sorted(folders)), *(f + "/" for f in extra))


def _unlisted_below(base: str, folder: str, listed: set[str], extra: list[str]) -> bool:
    """Add to `extra` the folders under `folder` outside `listed`, going down while they hold no file;
    False when that passes MAX_EXTRA_FOLDERS."""
    try:
        with os.scandir(os.path.join(base, folder)) as found:
            children = [e for e in found if e.is_dir(follow_symlinks=False) and e.name != ".git"]
    except OSError:
        return True
    for child in children:
        name = f"{folder}/{child.name}" if folder else child.name
        if name in listed:
            continue
        extra.append(name)
        if len(extra) > MAX_EXTRA_FOLDERS:
            return False
        if not _holds_a_file(child.path) and not _unlisted_below(base, name, listed, extra):
            return False
    return True


def _holds_a_file(folder: str) -> bool:
    try:
        with os.scandir(folder) as found:
            return any(not e.is_dir(follow_symlinks=False) for e in found)
    except OSError:
        return True


def _stamp(root: Path, watched: tuple[str, ...]) -> Stamp:
    """What the listing depends on: the index's paths, and the times of `info/exclude` and the watched
    files and folders; empty when the repository's files cannot be found."""
    files = _git_state_files(root)
    if not files:
        return ()
    index, exclude = files
    base = str(root)
    return ((INDEX, _index_paths_hash(index), 0), _entry(str(exclude), str(exclude)),
            *(_entry(name, os.path.join(base, name)) for name in watched))


def _entry(name: str, path: str) -> tuple[str, int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (name, -1, -1)
    return (name, info.st_mtime_ns, info.st_size)


def _index_paths_hash(index: Path) -> int:
    """A hash of the paths the index holds (of its bytes when it cannot be read as an index)."""
    try:
        data = index.read_bytes()
    except OSError:
        return -1
    names = index_paths(data)
    return hash(data) if names is None else hash(names)


def index_paths(data: bytes) -> tuple[bytes, ...] | None:
    """The path of every entry of a git index file (versions 2 to 4), in its order; None when it is not one.

    `git add -A --intent-to-add` and commits rewrite the index without changing these (the listing is
    the union of the index and the untracked files); `git rm --cached` and `git add -f` change them.
    """
    if data[:4] != b"DIRC" or len(data) < 12:
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    names: list[bytes] = []
    at, previous = 12, b""
    try:
        for _ in range(count):
            flags = struct.unpack(">H", data[at + 60:at + 62])[0]
            start = at + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:  # the name is the previous one, less `strip` bytes, plus a new suffix
                strip, start = _varint(data, start)
                end = data.index(b"\0", start)
                name = previous[:len(previous) - strip] + data[start:end]
                at = end + 1
            else:
                end = data.index(b"\0", start)
                name = data[start:end]
                at += ((end - at) // 8 + 1) * 8  # entries are NUL-padded to a multiple of 8 bytes
            names.append(name)
            previous = name
    except (struct.error, ValueError, IndexError):
        return None
    return tuple(names)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (index v4): the value and where the bytes after it start."""
    byte = data[at]
    value = byte & 0x7F
    while byte & 0x80:
        at += 1
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at + 1


def _unsettled_ns(stamp: Stamp, started_ns: int) -> int:
    """How long after the listing something in the stamp changed too close to it to tell which came first
    would stop being so (0: nothing did)."""
    left = 0
    for name, mtime, _size in stamp:
        if name == INDEX:
            continue  # stamped by content, not time
        window = RACY_WHOLE_SECOND_NS if mtime % 1_000_000_000 == 0 else RACY_NS
        left = max(left, mtime + window - started_ns)
    return left


def _git_state_files(root: Path) -> tuple[Path, ...]:
    """The index and `info/exclude` of the repository at `root` (asked of git once per workspace)."""
    with _lock:
        known = _git_files.get(root)
    if known is None:
        out = git(root, "rev-parse", "--git-path", "index", "--git-path", "info/exclude", check=False)
        lines = [line for line in out.splitlines() if line]
        known = tuple((root / line).resolve() for line in lines) if len(lines) == 2 else ()
        with _lock:
            _git_files[root] = known
    return known

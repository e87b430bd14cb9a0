"""A read-only mapping view of a workspace's files, for the edit applier (no I/O in the applier)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from common.git import git

MAX_FILE_BYTES = 1_000_000


class WorkspaceFiles(Mapping[str, str]):
    """Repository-relative path -> text of the tracked and untracked (not ignored) files."""

    def __init__(self, root: Path):
        self.root = root
        out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", check=False)
        self._paths = sorted({p for p in out.split("\0") if p})

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
